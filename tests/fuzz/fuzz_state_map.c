/*
 * state_map() on arbitrary SLURM state text, with each status.json verdict:
 * no crash; native and raw stay NUL-terminated in their arrays; the flags
 * agree with the state (terminal iff state_terminal(), needs_status only
 * for COMPLETED); names round-trip.  Also state_base() and state_known().
 */
#include "fuzz.h"
#include "state.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum status_verdict verdicts[] = {
		STATUS_MISSING, STATUS_PASS, STATUS_FAIL
	};
	struct state_map	 m;
	char			*s = fuzz_cstr(data, size), base[64];
	enum rstate		 back;
	enum err_class		 eback;
	size_t			 i;
	int			 rc;

	for (i = 0; i < 3; i++) {
		memset(&m, 0x5a, sizeof m);
		rc = state_map(s, verdicts[i], &m);
		fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
		fuzz_check(memchr(m.native, '\0', sizeof m.native) != NULL &&
		    memchr(m.raw, '\0', sizeof m.raw) != NULL,
		    "native/raw not terminated");
		if (rc == -1)
			fuzz_check(m.state == RSTATE_UNKNOWN, "unknown word "
			    "mapped to %d", (int)m.state);
		fuzz_check(m.terminal == state_terminal(m.state), "terminal");
		fuzz_check(!m.needs_status || strcmp(m.native, "COMPLETED") ==
		    0, "needs_status for %s", m.native);
		fuzz_check(state_from_name(state_name(m.state), &back) == 0 &&
		    back == m.state, "state name %d", (int)m.state);
		fuzz_check(err_class_from_name(err_class_name(m.err), &eback)
		    == 0 && eback == m.err, "err class %d", (int)m.err);
		status_verdict_name(verdicts[i]);
	}
	state_base(s, base, sizeof base);
	fuzz_check(memchr(base, '\0', sizeof base) != NULL, "base");
	state_known(s);
	free(s);
	return 0;
}
