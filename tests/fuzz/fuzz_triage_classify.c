/*
 * triage_classify() on arbitrary state, exit status and log.  Input:
 * "STATE\0EXIT\0LOG" (LOG may hold NULs; an empty STATE means unknown, an
 * EXIT that triage_parse_exit() refuses means none).  The log is passed
 * with its length and nothing after it, so ASan catches a read past
 * loglen.  Always decides; retry iff INFRA; a matched line lies inside the
 * log and holds no control characters.
 */
#include "fuzz.h"
#include "triage.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct triage_input	 in;
	struct triage_result	 res;
	char			*s = fuzz_cstr(data, size), *part[3], *log;
	char			*cause = NULL;
	const char		*p;
	size_t			 n;

	memset(&in, 0, sizeof in);
	n = fuzz_split(s, size, part, 3);
	in.state = part[0][0] != '\0' ? part[0] : NULL;
	if (n > 1) {
		if (triage_parse_exit(part[1], &in.exit_code, &in.exit_signal,
		    &cause) == 0) {
			fuzz_check(cause == NULL, "cause on success");
			fuzz_check(in.exit_code >= 0 && in.exit_signal >= 0,
			    "negative exit %d:%d", in.exit_code,
			    in.exit_signal);
			in.has_exit = 1;
		} else {
			fuzz_check(cause != NULL, "no cause");
			free(cause);
		}
	}
	log = NULL;
	if (n > 2) {
		in.loglen = (size_t)(s + size - part[2]);
		log = malloc(in.loglen + 1);	/* +1: malloc(0) may be NULL */
		if (log == NULL)
			abort();
		memcpy(log, part[2], in.loglen);
		in.log = log;
	}

	triage_classify(&in, &res);
	fuzz_check(res.rule != NULL, "no rule");
	fuzz_check(res.class == res.rule->class, "class");
	fuzz_check(res.retry == (res.class == ERR_INFRA), "retry");
	fuzz_check(memchr(res.line, '\0', sizeof res.line) != NULL, "line");
	if (res.has_line) {
		fuzz_check(res.rule->pattern != NULL, "line without pattern");
		fuzz_check(in.log != NULL && res.line_off <= in.loglen,
		    "line_off %zu, loglen %zu", res.line_off, in.loglen);
		for (p = res.line; *p != '\0'; p++)
			fuzz_check((unsigned char)*p >= 0x20 && *p != 0x7f,
			    "control character in the line");
	}
	free(log);
	free(s);
	return 0;
}
