/*
 * slurm_parse_sinfo() on arbitrary sinfo output: no crash, no leak, the
 * error contract holds, partitions are merged (names unique) and each can
 * be found by name.
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slurm_partitions	 parts = { NULL, 0, NULL };
	char			*text = fuzz_cstr(data, size), *cause = NULL;
	size_t			 i;
	int			 rc;

	rc = slurm_parse_sinfo(text, &parts, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	for (i = 0; i < parts.n; i++) {
		const struct slurm_partition *p = &parts.v[i];

		fuzz_check(p->name != NULL && p->avail != NULL &&
		    p->gres != NULL, "partition %zu has a NULL string", i);
		fuzz_check(slurm_partition_find(&parts, p->name) == p,
		    "partition \"%s\" not unique", p->name);
	}
	slurm_partition_default(&parts);
	free(cause);
	slurm_partitions_free(&parts);
	free(text);
	return 0;
}
