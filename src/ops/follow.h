#ifndef FOLLOW_H
#define FOLLOW_H

#include <stddef.h>

#include "conn.h"
#include "ops.h"

/*
 * The one log follower, of "sqdeck logs --follow" and of the TUI's log
 * view (the worker): where the next read of a job's log starts, and when
 * it is over.  The first read is the last lines (like tail -n); each later
 * one the next bytes from where the last one ended, at most chunk.  A file
 * that is missing is waited for; one that became shorter is read again
 * from the start (ops_log_read).  The caller says when the job ended
 * (ended); once it has and a read found nothing more, the follow is done.
 */
struct follow {
	const char	*path;		/* on the cluster; the caller's */
	long long	 next;		/* -1: the next read is a tail */
	int		 lines;		/* how many lines the tail shows */
	size_t		 chunk;		/* bytes per read at most */
	/*
	 * A log missing at the first read: 1, it is tailed when it comes
	 * (the TUI); 0, it is read from its start (the CLI prints it all).
	 */
	int		 tail_late;
	int		 ended;		/* set by the caller: the job is over */
	int		 done;		/* ended, and nothing more to read */
};

/* What a read found; the values are the TUI's MSG_LOG_* (msgq.h). */
#define FOLLOW_EOF	0x1	/* no more bytes now (the job may write more) */
#define FOLLOW_MISSING	0x2	/* the file does not exist (yet) */
#define FOLLOW_DONE	0x4	/* the job ended: nothing more will come */

/* offset: where to start, or -1 for a tail of lines. */
void	 follow_init(struct follow *, const char *path, long long offset,
	     int lines, size_t chunk);
/*
 * One read over c into *log (ops_log_free it either way).  Returns the
 * FOLLOW_* flags, or -1 with a cause (the place is kept: try again).
 */
int	 follow_read(struct conn *, struct follow *, struct ops_log *,
	     char **cause);

/*
 * The log path of a job sqdeck did not submit (issue 26.4): squeue's
 * StdOut/StdErr while SLURM knows it, else accounting's (the sbatch
 * line's -o/-e, or SLURM's default), patterns resolved (joblog.h).
 * *ended: 1 when only accounting knows it.  0, or -1 and a cause.
 */
int	 follow_foreign_path(struct conn *, const char *id, int err,
	     char **path, int *ended, char **cause);

#endif
