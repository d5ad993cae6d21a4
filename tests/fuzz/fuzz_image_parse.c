/*
 * image_parse() on arbitrary image references: no crash, no leak, and for
 * every accepted reference:
 *   - the cache name uses only [A-Za-z0-9._+-] (it becomes a file name);
 *   - what image_pyxis() prints parses back to the same image (same display
 *     form and cache name): the sbatch script and the cache key agree;
 *   - image_sbatch_escape() leaves no bare '#'.
 */
#include "fuzz.h"
#include "image.h"

static void
check_escape(const char *s)
{
	char	*e = image_sbatch_escape(s);
	size_t	 i;

	for (i = 0; e[i] != '\0'; i++)
		fuzz_check(e[i] != '#' || (i > 0 && e[i - 1] == '\\'),
		    "bare '#' in \"%s\"", e);
	free(e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_ref	 ref, again;
	char			*s = fuzz_cstr(data, size), *cause = NULL;
	char			*pyxis, *display, *name, *path, *cause2 = NULL;
	char			*display2, *name2;
	const char		*p;
	int			 rc;

	rc = image_parse(s, &ref, &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	check_escape(s);
	if (rc != 0) {
		free(cause);
		image_free(&ref);	/* must be safe after a failure too */
		free(s);
		return 0;
	}

	pyxis = image_pyxis(&ref);
	display = image_display(&ref);
	name = image_cache_name(&ref);
	path = image_cache_path(&ref, "/lustre/cache//");
	if (ref.kind == IMAGE_SQSH) {
		fuzz_check(name == NULL && path == NULL, "sqsh has a cache");
		fuzz_check(ref.path != NULL && ref.path[0] == '/',
		    "sqsh path \"%s\"", ref.path);
	} else {
		fuzz_check(name != NULL && path != NULL && ref.repository !=
		    NULL, "registry image without cache name");
		for (p = name; *p != '\0'; p++)
			fuzz_check(strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *p) !=
			    NULL, "cache name \"%s\" from \"%s\"", name, s);
		fuzz_check(strcmp(path + strlen("/lustre/cache/"), name) == 0,
		    "cache path \"%s\"", path);
	}
	check_escape(pyxis);

	if (image_parse(pyxis, &again, &cause2) != 0)
		fuzz_check(0, "\"%s\" -> \"%s\" does not parse: %s", s, pyxis,
		    cause2);
	display2 = image_display(&again);
	name2 = image_cache_name(&again);
	fuzz_check(strcmp(display, display2) == 0, "\"%s\" -> \"%s\" -> "
	    "display \"%s\" vs \"%s\"", s, pyxis, display, display2);
	fuzz_check((name == NULL && name2 == NULL) ||
	    (name != NULL && name2 != NULL && strcmp(name, name2) == 0),
	    "\"%s\" -> \"%s\": cache name changed", s, pyxis);
	fuzz_check(ref.latest == again.latest, "latest changed");

	free(display2);
	free(name2);
	image_free(&again);
	free(pyxis);
	free(display);
	free(name);
	free(path);
	image_free(&ref);
	free(s);
	return 0;
}
