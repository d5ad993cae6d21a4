#ifndef RSH_H
#define RSH_H

#include "conn.h"
#include "util.h"

/*
 * Remote scripts (templates/remote/, embedded in the binary): each value
 * is a quoted assignment (rsh_var) before the script's text (rsh_embed),
 * and the whole runs on stdin of /bin/sh -s inside braces (rsh_run), so
 * sh reads all of it before running anything (no command can eat the
 * rest from stdin, and a secret in it is never in an argv).  The caller's
 * copy of the script is scrubbed after it ran.
 */
void	 rsh_var(struct buf *, const char *name, const char *value);
void	 rsh_embed(struct buf *, const char *name);
int	 rsh_run(struct conn *, const char *body, int timeout,
	     struct conn_result *, char **cause);

#endif
