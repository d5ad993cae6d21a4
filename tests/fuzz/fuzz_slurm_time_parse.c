/*
 * slurm_time_parse() and slurm_maxtime_minutes() on arbitrary text: no
 * crash, no leak; a parsed duration is >= 0 and survives a round trip
 * through slurm_time_format() (which prints what SLURM prints).
 */
#include "fuzz.h"
#include "slurm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			*s = fuzz_cstr(data, size), *cause = NULL;
	char			 buf[64];
	enum slurm_time		 t, t2;
	long			 secs, secs2, minutes;
	int			 rc;

	t = slurm_time_parse(s, &secs);
	if (t == SLURM_TIME_SET) {
		fuzz_check(secs >= 0, "negative duration %ld", secs);
		slurm_time_format(secs, buf, sizeof buf);
	}
	/*
	 * The parser takes fields of up to 9 digits, so "999999999-999999999"
	 * (hours past 23) formats to 10 digits of days: no round trip there.
	 */
	if (t == SLURM_TIME_SET && secs / 86400 <= 999999999L) {
		t2 = slurm_time_parse(buf, &secs2);
		fuzz_check(t2 == SLURM_TIME_SET && secs2 == secs,
		    "\"%s\" -> %ld -> \"%s\" -> %d %ld", s, secs, buf,
		    (int)t2, secs2);
	} else if (t != SLURM_TIME_SET)
		fuzz_check(secs == -1, "kind %d with secs %ld", (int)t, secs);

	rc = slurm_maxtime_minutes(s, &minutes, &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	if (rc == 0)
		fuzz_check(minutes >= -1, "minutes %ld", minutes);
	free(cause);

	slurm_state_base(s, buf, sizeof buf);
	fuzz_check(strlen(buf) < sizeof buf, "state base overflow");
	free(s);
	return 0;
}
