/*
 * slurm_parse_squeue() on arbitrary squeue output: no crash, no leak, and
 * the documented contract (-1 iff *cause is set; every parsed row has all
 * its strings) holds.  A second parse appends to the same list.
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slurm_jobs	 jobs = { NULL, 0, NULL };
	char			*text = fuzz_cstr(data, size), *cause = NULL;
	size_t			 i, n;
	int			 rc;

	rc = slurm_parse_squeue(text, NULL, &jobs, &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	for (i = 0; i < jobs.n; i++) {
		struct slurm_job *j = &jobs.v[i];

		fuzz_check(j->jobid != NULL && j->name != NULL &&
		    j->partition != NULL && j->state != NULL &&
		    j->reason != NULL && j->nodelist != NULL &&
		    j->submit != NULL && j->start != NULL && j->end != NULL &&
		    j->gres != NULL, "row %zu has a NULL string", i);
		fuzz_check(slurm_jobs_find(&jobs, j->id) != NULL,
		    "row %zu not found by id %ld", i, j->id);
	}
	free(cause);
	cause = NULL;

	/* Appending: the rows of the first parse stay. */
	n = jobs.n;
	slurm_parse_squeue(text, NULL, &jobs, &cause);
	fuzz_check(jobs.n == 2 * n, "append: %zu rows, want %zu", jobs.n,
	    2 * n);
	free(cause);
	slurm_jobs_free(&jobs);
	free(text);
	return 0;
}
