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

const char *
rsh_text(const char *name)
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
	return text;
}

void
rsh_embed(struct buf *b, const char *name)
{
	buf_adds(b, rsh_text(name));
}

char *
rsh_wrap(const char *body)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, rsh_text("lib-slurmenv.sh"));
	buf_adds(&b, "{\n");
	buf_adds(&b, body);
	buf_adds(&b, "\n} </dev/null\n");
	return buf_steal(&b);
}

/*
 * Run a script on the login node: on stdin of /bin/sh -s, inside braces
 * so sh reads all of it before running anything (no command can eat the
 * rest from stdin, and a secret in it is never in an argv).
 */
int
rsh_run_limit(struct conn *c, const char *body, int timeout, size_t maxout,
    struct conn_result *res, char **cause)
{
	char	*script;
	size_t	 len;
	int	 rc;

	script = rsh_wrap(body);
	len = strlen(script);
	rc = conn_exec_limit(c, "/bin/sh -s", script, len, timeout, maxout,
	    res, cause);
	/* The script may have held a secret: scrub our copy. */
	memset(script, 0, len);
	free(script);
	return rc;
}

int
rsh_run(struct conn *c, const char *body, int timeout,
    struct conn_result *res, char **cause)
{
	return rsh_run_limit(c, body, timeout, 0, res, cause);
}
