#include "uri.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Append the components of rel to b, refusing "..". */
static int
add_components(struct buf *b, const char *what, const char *uri,
    const char *rel, char **cause)
{
	const char	*p = rel, *end;
	size_t		 n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		end = strchr(p, '/');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n == 2 && strncmp(p, "..", 2) == 0) {
			return cause_set(cause, "%s \"%s\": \"..\" is not "
			    "allowed in a storage path; write the absolute "
			    "path without it", what, uri);
		}
		if (n != 1 || *p != '.') {
			buf_add(b, "/", 1);
			buf_add(b, p, n);
		}
		p += n;
	}
	return 0;
}

static int
is_scheme(const char *s, size_t *lenp)
{
	size_t	i = 0;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '.' ||
	    s[i] == '-')
		i++;
	if (strncmp(s + i, "://", 3) != 0)
		return 0;
	*lenp = i;
	return 1;
}

int
uri_resolve(const char *what, const char *uri, const char *results_root,
    char **path, char **cause)
{
	struct buf	 b;
	const char	*p, *rest;
	size_t		 n;

	*path = NULL;
	if (*uri == '\0')
		return cause_set(cause, "%s is empty", what);
	for (p = uri; *p != '\0'; p++) {
		if (iscntrl((unsigned char)*p)) {
			return cause_set(cause, "%s \"%s\" contains a control "
			    "character", what, uri);
		}
	}

	buf_init(&b);
	if (str_has_prefix(uri, "lustre://")) {
		rest = uri + strlen("lustre://");
		if (*rest != '/') {
			return cause_set(cause, "%s \"%s\": lustre:// takes no "
			    "host; write lustre:///absolute/path (three "
			    "slashes)", what, uri);
		}
		if (add_components(&b, what, uri, rest, cause) != 0)
			goto fail;
	} else if (str_has_prefix(uri, "slurm://")) {
		rest = uri + strlen("slurm://");
		if (strncmp(rest, "results", 7) != 0 ||
		    (rest[7] != '/' && rest[7] != '\0')) {
			n = strcspn(rest, "/");
			return cause_set(cause, "%s \"%s\": unknown slurm:// "
			    "area \"%.*s\"; the only one is slurm://results/"
			    "<path> (under the results root)", what, uri,
			    (int)n, rest);
		}
		if (results_root == NULL || *results_root == '\0') {
			return cause_set(cause, "%s \"%s\": slurm://results/ "
			    "needs a results root: set SLURM_BASE_RESULTS_DIR "
			    "or results_root in clusters.yaml", what, uri);
		}
		if (*results_root != '/') {
			return cause_set(cause, "%s \"%s\": the results root "
			    "\"%s\" is not an absolute path; fix "
			    "SLURM_BASE_RESULTS_DIR or results_root", what, uri,
			    results_root);
		}
		/* The result must be a path this function accepts. */
		for (p = results_root; *p != '\0'; p++) {
			if (iscntrl((unsigned char)*p)) {
				return cause_set(cause, "%s \"%s\": the results "
				    "root contains a control character; fix "
				    "SLURM_BASE_RESULTS_DIR or results_root",
				    what, uri);
			}
		}
		if (add_components(&b, what, uri, results_root, cause) != 0 ||
		    add_components(&b, what, uri, rest + 7, cause) != 0)
			goto fail;
	} else if (str_has_prefix(uri, "file://")) {
		return cause_set(cause, "%s \"%s\": file:// names a file on "
		    "this machine, which the cluster cannot read; copy the "
		    "data to the cluster's shared storage and write "
		    "lustre:///<path on the cluster>", what, uri);
	} else if (is_scheme(uri, &n)) {
		return cause_set(cause, "%s \"%s\": %.*s:// is not supported "
		    "for a cluster; stage the data to shared storage before "
		    "submitting (never inside the GPU allocation) and write "
		    "lustre:///<path>", what, uri, (int)n, uri);
	} else if (*uri == '/') {
		return cause_set(cause, "%s \"%s\" is a plain local path; if "
		    "it is on the cluster's shared storage write lustre://%s",
		    what, uri, uri);
	} else {
		return cause_set(cause, "%s \"%s\" is a relative local path, "
		    "which the cluster cannot read; write lustre:///<absolute "
		    "path on the cluster's shared storage>", what, uri);
	}

	if (b.len == 0)
		buf_adds(&b, "/");
	*path = buf_steal(&b);
	return 0;

fail:
	buf_free(&b);
	return -1;
}
