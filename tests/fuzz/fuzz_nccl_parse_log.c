/*
 * nccl_parse_log() on arbitrary log text (the probe's answer line as the
 * poll reads it back) and nccl_setting_parse() on the value it returns: no
 * crash, no leak, a value only with a verdict.
 */
#include "fuzz.h"
#include "nccl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv		 env;
	enum nccl_verdict	 v;
	char			*text = fuzz_cstr(data, size), *value = NULL;
	char			*cause = NULL;

	v = nccl_parse_log(text, size, &value);
	fuzz_check(v != NCCL_NONE || value == NULL, "value without verdict");
	if (value != NULL) {
		memset(&env, 0, sizeof env);
		if (nccl_setting_parse(value, &env, &cause) != 0)
			fuzz_check(cause != NULL, "no cause");
		free(cause);
		strv_free(&env);
	}
	free(value);
	free(text);
	return 0;
}
