/*
 * slurm_nodelist_expand() on arbitrary host lists: no crash, no leak, no
 * more than 65536 names, no empty name, and -1 iff *cause is set.
 *
 * Lists that would expand to more than EXPAND_MAX names are skipped: strv_add()
 * grows its array one slot at a time, which is quick with glibc's realloc
 * (65536 names: 0.06 s) but quadratic under ASan's (16 s), and would only
 * show up as timeouts.  The 65536-name cap itself is tested in check_slurm.
 */
#include <ctype.h>

#include "fuzz.h"
#include "slurm.h"

#define EXPAND_MAX 4096

/* Values in one "[...]" group: "1-3,7" -> 4; unparsable ranges count 1. */
static double
group_count(const char *p, const char *end)
{
	double		 n = 0;
	unsigned long	 lo, hi;
	char		*q;

	while (p < end) {
		lo = hi = 0;
		if (isdigit((unsigned char)*p)) {
			lo = hi = strtoul(p, &q, 10);
			if (*q == '-' && isdigit((unsigned char)q[1]))
				hi = strtoul(q + 1, &q, 10);
			p = q;
		}
		n += hi >= lo ? (double)(hi - lo) + 1 : 1;
		while (p < end && *p != ',')
			p++;
		p++;
	}
	return n;
}

/* An upper bound of the names list expands to. */
static double
estimate(const char *s)
{
	const char	*close;
	double		 total = 0, item = 1;

	for (; *s != '\0'; s++) {
		if (*s == '[' && (close = strchr(s, ']')) != NULL) {
			item *= group_count(s + 1, close);
			s = close;
		} else if (*s == ',') {
			total += item;
			item = 1;
		}
	}
	return total + item;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv	 out = { 0 };
	char		*s = fuzz_cstr(data, size), *cause = NULL;
	size_t		 i;
	int		 rc;

	if (estimate(s) > EXPAND_MAX) {
		free(s);
		return 0;
	}
	rc = slurm_nodelist_expand(s, &out, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	fuzz_check(out.n <= 65536, "%zu names", out.n);
	if (rc == 0) {
		for (i = 0; i < out.n; i++)
			fuzz_check(out.v[i][0] != '\0', "empty name %zu", i);
	}
	free(cause);
	strv_free(&out);
	free(s);
	return 0;
}
