/*
 * The remote shell of sqdeck (rsh.h): scripts of templates/remote/ with
 * their values before them, run on stdin of /bin/sh.
 */
#include "rsh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

void
rsh_var(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, "%s=", name);
	buf_add_quoted(b, value != NULL ? value : "");
	buf_adds(b, "\n");
}

void
rsh_embed(struct buf *b, const char *name)
{
	const char	*text;
	char		*path;

	path = xasprintf("remote/%s", name);
	text = template_embedded(path);
	if (text == NULL) {
		/* Makefile.am's EMBEDDED_FILES lacks it: a broken build. */
		fprintf(stderr, "sqdeck: %s is not embedded\n", path);
		abort();
	}
	free(path);
	buf_adds(b, text);
}

/*
 * Run a script on the login node: on stdin of /bin/sh -s, inside braces
 * so sh reads all of it before running anything (no command can eat the
 * rest from stdin, and a secret in it is never in an argv).
 */
int
rsh_run(struct conn *c, const char *body, int timeout,
    struct conn_result *res, char **cause)
{
	struct buf	b;
	int		rc;

	buf_init(&b);
	buf_adds(&b, "{\n");
	buf_adds(&b, body);
	buf_adds(&b, "\n} </dev/null\n");
	rc = conn_exec_limit(c, "/bin/sh -s", b.data, b.len, timeout, 0, res,
	    cause);
	/* The script may have held a secret: scrub our copy. */
	memset(b.data, 0, b.len);
	buf_free(&b);
	return rc;
}
