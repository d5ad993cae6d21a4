#ifndef ENTER_H
#define ENTER_H

#include "conn.h"
#include "record.h"

/*
 * Into a running job (sqdeck shell, sqdeck forward, the TUI's keys): where
 * it runs, a terminal in its container, a port on its node.
 */

/* Where a job is (one round trip): its SLURM state, and while it runs
   its first node or the one asked for (a checked host name).  0, or -1
   and a cause (also when node is not one of the running job's). */
struct enter_where {
	char	*state;		/* "RUNNING", "COMPLETED"..., cleaned */
	char	*node;		/* NULL unless RUNNING */
	char	*addr;		/* its NodeAddr (else node): for a forward */
	char	*others;	/* the job's nodes when node was not one */
};
int	 enter_where(struct conn *, long sid, const char *node,
	     struct enter_where *, char **cause);
void	 enter_where_free(struct enter_where *);

/*
 * The command of the PTY channel for a shell (or argv) in job sid, on
 * node (NULL: its first), in the container its record's staged script
 * uses (rec NULL: on the node).  Only srun runs on the login node; the
 * job's state is checked again there (exit 125 and a line if it ended).
 */
#define ENTER_REFUSED	125
char	*enter_command(long sid, const char *node, const struct record *rec,
	     char *const *argv, int argc);

/*
 * An interactive terminal in the job: the local terminal in raw mode,
 * its size followed (SIGWINCH), until the remote end; the exit status
 * of the command, or -1 and a cause.  The TUI calls it with the screen
 * suspended (endwin) and redraws after.
 */
int	 enter_shell(struct conn *, const char *cmd, int *status,
	     char **cause);

/*
 * Forward 127.0.0.1:lport (0: any, *bound says which) to port on host as
 * seen from the login node, for every connection, until *stop is set
 * (a signal handler), alive() says 0 (polled every few seconds; NULL:
 * never), or the login is lost.  ready() is called once listening.
 * Returns 0 or -1 and a cause.
 */
int	 enter_forward(struct conn *, int lport, const char *host, int port,
	     volatile int *stop, int (*alive)(void *), void *arg,
	     void (*ready)(int bound, void *), char **cause);

#endif
