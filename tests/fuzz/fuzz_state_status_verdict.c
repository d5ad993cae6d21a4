/*
 * state_status_verdict() on arbitrary status.json text.  The bytes are
 * passed with their length and no NUL after them (as the caller hands a
 * buffer read from the cluster), so ASan catches a read past len.  The
 * answer is one of the three verdicts and does not depend on what follows
 * the buffer.
 */
#include "fuzz.h"
#include "state.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum status_verdict	 v, v2;
	char			*copy;

	v = state_status_verdict((const char *)data, size);
	fuzz_check(v == STATUS_MISSING || v == STATUS_PASS || v == STATUS_FAIL,
	    "verdict %d", (int)v);

	/* Garbage after len must not change the answer. */
	copy = malloc(size + 2);
	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	memcpy(copy + size, "}x", 2);
	v2 = state_status_verdict(copy, size);
	fuzz_check(v == v2, "verdict %d vs %d with bytes after len", (int)v,
	    (int)v2);
	free(copy);
	return 0;
}
