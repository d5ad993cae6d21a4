/*
 * slurm_parse_sacct() on arbitrary sacct -P output: no crash, no leak, the
 * error contract holds, and each row's state has a base word.
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slurm_jobs	 jobs = { NULL, 0, NULL };
	char			*text = fuzz_cstr(data, size), *cause = NULL;
	char			 base[64];
	size_t			 i;
	int			 rc;

	rc = slurm_parse_sacct(text, NULL, &jobs, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	for (i = 0; i < jobs.n; i++) {
		struct slurm_job *j = &jobs.v[i];

		fuzz_check(j->jobid != NULL && j->name != NULL &&
		    j->partition != NULL && j->state != NULL &&
		    j->reason != NULL && j->nodelist != NULL &&
		    j->submit != NULL && j->start != NULL && j->end != NULL &&
		    j->gres != NULL, "row %zu has a NULL string", i);
		slurm_state_base(j->state, base, sizeof base);
		fuzz_check(strlen(base) < sizeof base, "base overflow");
		fuzz_check(slurm_jobs_find(&jobs, j->id) != NULL,
		    "row %zu not found by id %ld", i, j->id);
	}
	free(cause);
	slurm_jobs_free(&jobs);
	free(text);
	return 0;
}
