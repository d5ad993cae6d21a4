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
/* The text of templates/remote/NAME (a script that runs elsewhere, such
   as on a compute node, is passed to the one sent as a value). */
const char *rsh_text(const char *name);
/* lib-slurmenv.sh (the output-changing SLURM variables unset), "{", body,
   "} </dev/null": what rsh_run sends; the caller frees it. */
char	*rsh_wrap(const char *body);
int	 rsh_run(struct conn *, const char *body, int timeout,
	     struct conn_result *, char **cause);
/* The same with a cap on the reply in bytes (0: none, conn_exec_limit). */
int	 rsh_run_limit(struct conn *, const char *body, int timeout,
	     size_t maxout, struct conn_result *, char **cause);

#endif
