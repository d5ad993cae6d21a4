/*
 * image_cache_stat_line() and image_cache_trust() on arbitrary reports of
 * the cluster (issue 12: the shared image cache).  Input: lines as the
 * check script prints them after "cache ", then the owners and the pin
 * after a NUL.  Contracts: no crash or leak, -1 comes with a cause, and a
 * file is trusted only if it was reported as a regular file of the user
 * or a listed owner that neither group nor others can write.
 */
#include "fuzz.h"
#include "image.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_cache_stat	 st;
	struct strv		 owners, lines;
	char			*text, *rest, *cause = NULL;
	const char		*pin = NULL;
	size_t			 i, n;
	int			 rc;

	memset(&owners, 0, sizeof owners);
	memset(&lines, 0, sizeof lines);
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	n = strlen(text);
	rest = n < size ? text + n + 1 : NULL;
	image_cache_stat_init(&st);
	strv_split(&lines, text, '\n');
	for (i = 0; i < lines.n; i++)
		image_cache_stat_line(&st, lines.v[i]);
	if (rest != NULL) {
		strv_split(&owners, rest, ',');
		if (owners.n != 0 && strncmp(owners.v[owners.n - 1], "sha256:",
		    7) == 0)
			pin = owners.v[owners.n - 1];
	}
	rc = image_cache_trust(&st, &owners, pin, "/c/x.sqsh", &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	if (rc == 0) {
		fuzz_check(st.file == 1 && (st.mode & 022) == 0 && st.me >= 0,
		    "trusted file %d mode %o me %ld", st.file, st.mode, st.me);
		fuzz_check(pin == NULL || (st.digest == 1 &&
		    strcmp(st.digest_value, pin) == 0), "pin not matched");
	}
	free(cause);
	strv_free(&owners);
	strv_free(&lines);
	free(text);
	return 0;
}
