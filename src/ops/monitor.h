#ifndef MONITOR_H
#define MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "conn.h"
#include "jobtable.h"
#include "record.h"
#include "remote.h"
#include "slurm.h"
#include "state.h"

/*
 * The poll of one cluster (sqdeck(1): JOB RECORDS AND STATES): ONE remote
 * script per call, run by /bin/sh -s on the login node.  It runs one squeue
 * for all of the user's jobs; for the tracked jobs (records of this cluster
 * with a SLURM id that are not terminal) that are no longer in the queue it
 * runs one batched sacct with an explicit -S; for those sacct calls COMPLETED
 * it reads status.json, for failures the tail of main.out/main.err (triage),
 * and for every one that ended it wipes the env sidecar.  The reply comes back
 * in sections behind a random per-poll marker, so nothing a job prints can
 * forge one.
 *
 * Records change (source "poll", native sub-state) only when the state or
 * the native word really changed; a record that is already terminal is
 * never touched.  A job neither squeue nor sacct -S knows becomes UNKNOWN
 * (not terminal: it is polled again), and only after a grace period since
 * its record last changed, because sacct lags a few seconds behind sbatch.
 * A failed poll changes nothing and cancels nothing; the caller just polls
 * again (never giving up because of elapsed time is the caller's loop).
 *
 * A poll only observes: it writes what it saw into the records and never
 * submits, retries or learns anything.  What a job's end sets off (INFRA
 * retries, NCCL learning) is react_after_poll() (react.h), which the
 * worker and "status" call on purpose; "logs --follow", "jobs", "cancel"
 * and "retry" only poll.
 */

/* What the poll knows about a row beyond the jobs pane's columns. */
struct monitor_info {
	char		*record_id;	/* NULL: a job sqdeck does not track */
	enum rstate	 state;		/* the record's state after the poll,
					   or the SLURM state mapped */
	enum err_class	 err;
	char		*err_rule;	/* triage rule, NULL if none */
	int		 changed;	/* this poll moved the record */
	int		 wiped;		/* this poll removed the env sidecar */
};

struct monitor_snapshot {
	char			*cluster;
	time_t			 polled;	/* when the reply came */
	int			 ok;		/* squeue answered */
	char			*error;		/* partial failure, else NULL */
	/*
	 * Every job of the user in the queue, then tracked jobs that left it
	 * and recently finished records of this cluster.  rows can be given
	 * as is to jobtable_merge(); info[i] belongs to rows[i].
	 */
	struct jobtable_row	*rows;
	struct monitor_info	*info;
	size_t			 n;
	unsigned		 commands;	/* remote commands run (1) */
	int			 unchanged;	/* same answer: no rows (opts) */
	unsigned		 sched_calls;	/* squeue + sacct run (budget) */
	size_t			 tracked;	/* records asked about */
	struct strv		 events;	/* "ID: RUNNING -> COMPLETE ..." */
};

struct monitor_opts {
	const char	*user;		/* NULL: squeue --me */
	/* Finished records changed within this many seconds are rows too;
	   0: 24 hours, < 0: every record of the cluster. */
	long		 recent;
	/* Seconds a job may be unknown to squeue and sacct after its record
	   last changed before it is called UNKNOWN; 0: 60. */
	long		 grace;
	const char	*source;	/* history source, NULL: "poll" */
	/* The caller's record index (record.h), kept across polls: only the
	   records the poll needs are read.  NULL: every record is read. */
	struct record_index *index;
	/*
	 * The caller's digest of the last answer, kept across polls (start
	 * at 0), or NULL.  An answer that is the same as the last one (its
	 * per-poll marker and separator aside), to the same script, for the
	 * same records, with no job gone from the queue, is not parsed and
	 * changes nothing: snap->unchanged, no rows.
	 */
	uint64_t	*digest;
};

/* Poll answers this thread parsed (a test hook: an unchanged one is not). */
unsigned long	 monitor_parses_here(void);

/*
 * Poll cluster (the name records carry) over c.  Returns 0 when squeue
 * answered (snap->error may still report a failed sacct or a record that
 * could not be written), -1 and a cause when nothing could be asked; snap
 * is filled in both cases (rows from the records alone on failure) and
 * must be freed.
 */
int	 monitor_poll(struct conn *, const char *cluster,
	     const struct monitor_opts *, struct monitor_snapshot *,
	     char **cause);
void	 monitor_snapshot_free(struct monitor_snapshot *);

/* --- the pieces, for tests ---------------------------------------------- */

/*
 * The remote script for the given tracked records (n may be 0: then only
 * squeue runs).  marker is the section marker (letters and digits), sep
 * the squeue/sacct field separator (slurm_sep_new()).
 *
 * A job's files (status.json, log tails, the sidecar) are touched only if
 * they are regular files, each read by its own process killed after
 * MONITOR_READ_SECS ("stuck" section), and no read starts after
 * MONITOR_READ_BUDGET seconds ("skipped"): a FIFO or a hung path in one
 * job's directory never stops the poll or the other jobs.  A job with a
 * stuck or skipped read keeps its record as it is until a later poll.
 */
#define MONITOR_READ_SECS	5
#define MONITOR_READ_BUDGET	20
char	*monitor_script(struct record *const *tracked, size_t n,
	     const char *user, const char *marker, const char *sep,
	     char **cause);
/* Its reply is a remote_reply (remote.h), parsed with "the poll". */

#endif
