/*
 * slurm_parse_start() on arbitrary "squeue --start" output: no crash, no
 * leak; 1 has a time, 0 has none, -1 has a cause.
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text = fuzz_cstr(data, size), *when, *reason, *cause = NULL;
	int	 rc;

	rc = slurm_parse_start(text, NULL, &when, &reason, &cause);
	switch (rc) {
	case 1:
		fuzz_check(when != NULL && *when != '\0' && reason != NULL &&
		    cause == NULL, "1 without a time");
		break;
	case 0:
		fuzz_check(when == NULL && cause == NULL, "0 with a time");
		break;
	case -1:
		fuzz_check(when == NULL && reason == NULL && cause != NULL,
		    "-1 without a cause");
		break;
	default:
		fuzz_check(0, "rc %d", rc);
	}
	free(when);
	free(reason);
	free(cause);

	/* reason may be NULL. */
	cause = NULL;
	fuzz_check(slurm_parse_start(text, NULL, &when, NULL, &cause) == rc,
	    "answer depends on reason");
	free(when);
	free(cause);
	free(text);
	return 0;
}
