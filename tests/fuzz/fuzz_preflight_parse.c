/*
 * preflight_parse() on arbitrary replies of the preflight script: no crash,
 * no leak, -1 iff *cause is set.
 */
#include "fuzz.h"
#include "preflight.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct preflight	 pf;
	char			*text = fuzz_cstr(data, size), *cause = NULL;
	int			 rc;

	memset(&pf, 0, sizeof pf);
	rc = preflight_parse(text, &pf, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	free(cause);
	preflight_free(&pf);
	free(text);
	return 0;
}
