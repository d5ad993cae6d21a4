/*
 * uri_resolve() on arbitrary URIs and results roots (input "uri\0root"; no
 * NUL means no root).  No crash, no leak, and an accepted URI resolves to
 * a clean absolute path: no "//", no "." or ".." component, no trailing
 * '/'; resolving lustre://<that path> gives the same path.
 */
#include "fuzz.h"
#include "uri.h"
#include "util.h"

static void
check_clean(const char *uri, const char *path)
{
	size_t	len = strlen(path);

	fuzz_check(path[0] == '/', "\"%s\" -> \"%s\" not absolute", uri, path);
	fuzz_check(strstr(path, "//") == NULL, "\"%s\" -> \"%s\"", uri, path);
	fuzz_check(strstr(path, "/../") == NULL && strstr(path, "/./") == NULL,
	    "\"%s\" -> \"%s\"", uri, path);
	fuzz_check(!str_has_suffix(path, "/..") && !str_has_suffix(path, "/."),
	    "\"%s\" -> \"%s\"", uri, path);
	fuzz_check(len == 1 || path[len - 1] != '/', "\"%s\" -> \"%s\"", uri,
	    path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s = fuzz_cstr(data, size), *part[2], *path, *path2, *again;
	char	*cause = NULL;
	size_t	 n;
	int	 rc;

	n = fuzz_split(s, size, part, 2);
	rc = uri_resolve("dataset", part[0], n > 1 ? part[1] : NULL, &path,
	    &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	fuzz_check((rc == 0) == (path != NULL), "rc %d", rc);
	if (rc == 0) {
		check_clean(part[0], path);
		again = xasprintf("lustre://%s", path);
		if (uri_resolve("dataset", again, NULL, &path2, &cause) != 0)
			fuzz_check(0, "\"%s\" refused: %s", again, cause);
		fuzz_check(strcmp(path, path2) == 0, "\"%s\" -> \"%s\"", again,
		    path2);
		free(path2);
		free(again);
	}
	free(path);
	free(cause);
	free(s);
	return 0;
}
