/*
 * ops_log_parse() on arbitrary replies of the log scripts (logs, the TUI's
 * log pane), as head or tail: no crash, no leak, the data stays inside the
 * reply and the offsets never go negative.
 */
#include "fuzz.h"
#include "ops.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conn_result	 res;
	struct ops_log		 log;
	char			*text = fuzz_cstr(data, size), *cause = NULL;
	int			 tail, rc;

	for (tail = 0; tail < 2; tail++) {
		memset(&res, 0, sizeof res);
		res.out = text;
		res.outlen = size;
		res.err = (char *)"";
		memset(&log, 0, sizeof log);
		rc = ops_log_parse("/x/main.out", &res, tail, &log, &cause);
		fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
		if (rc == 0 && !log.missing) {
			fuzz_check(log.len <= size, "len %zu", log.len);
			fuzz_check(log.offset >= 0 && log.next >= log.offset,
			    "offsets %lld %lld", log.offset, log.next);
		}
		free(cause);
		cause = NULL;
		ops_log_free(&log);
	}
	free(text);
	return 0;
}
