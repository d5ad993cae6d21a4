#ifndef MSGQ_H
#define MSGQ_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "jobtable.h"
#include "util.h"

/*
 * Messages from worker threads to the UI thread.  A producer builds a
 * message with msg_new(), fills it with heap strings it gives away, and
 * posts it: from then on the queue owns it.  The UI thread takes messages
 * out and frees each one with msg_free() when it has applied it (the
 * receiver frees).  Every pointer in a message is owned by the message.
 *
 * Posting also writes one byte to a non-blocking pipe so that the UI
 * thread, sleeping in poll() on stdin and msgq_fd(), wakes up.  A full
 * pipe (EAGAIN) is ignored: a byte is already there to wake the reader,
 * and the reader always empties the whole queue.  So a producer never
 * blocks on a slow UI.
 */

enum msg_type {
	MSG_CLUSTER,		/* health of a cluster changed */
	MSG_JOBS,		/* a fresh job snapshot of one cluster */
	MSG_LOG,		/* a chunk of a job's log file */
	MSG_ACTION,		/* progress or result of a user action */
	MSG_RECORDS,		/* the jobs the local records know */
};

enum cluster_health {
	CLUSTER_CONNECTING,	/* first connect or reconnect in progress */
	CLUSTER_OK,		/* last poll succeeded */
	CLUSTER_STALE,		/* polls are late or failing: rows are old */
	CLUSTER_ERROR,		/* cannot connect: message says why */
};

struct msg_cluster {
	char			*cluster;	/* config name */
	enum cluster_health	 health;
	char			*message;	/* what went wrong, or NULL */
	char			*host;		/* login host in use, or NULL */
	struct strv		 partitions;	/* "name" or "name MaxTime" */
	time_t			 last_ok;	/* last good poll, 0 never */
	/* The polling budget (budget.h), for the clusters pane's meter. */
	unsigned		 calls;		/* scheduler calls, last minute */
	unsigned		 max_calls;	/* allowed per minute, 0: unknown */
	time_t			 next_poll;	/* wall clock, 0: unknown */
	int			 backoff;	/* seconds backing off, 0: none */
	char			*fault;		/* "slurmctld timed out", NULL */
	char			*uses;		/* what the calls were for, "" */
	int			 budget_only;	/* only the four above are set */
};

struct msg_jobs {
	char			*cluster;
	struct jobtable_row	*rows;		/* owned array of owned rows */
	size_t			 nrows;
	time_t			 polled;	/* when squeue answered */
};

#define MSG_LOG_EOF	0x1	/* no more bytes now (the job may write more) */
#define MSG_LOG_MISSING	0x2	/* the file does not exist (yet) */
#define MSG_LOG_DONE	0x4	/* the job ended: nothing more will come */

enum log_stream {
	LOG_OUT,		/* main.out */
	LOG_ERR,		/* main.err */
};

struct msg_log {
	char			*cluster;
	char			*job_id;
	enum log_stream		 stream;
	char			*data;		/* raw bytes, not NUL-safe */
	size_t			 len;
	uint64_t		 offset;	/* byte offset of data in the file */
	int			 flags;		/* MSG_LOG_* */
};

/* What an action message is about; the receiver dispatches on it. */
enum action_kind {
	ACTION_SUBMIT,		/* the submit pipeline: step names the stage */
	ACTION_CANCEL,
	ACTION_REFRESH,
	ACTION_SPEC,		/* a job's staged spec (message: the YAML) */
	ACTION_START,		/* why pending and when (squeue --start) */
	ACTION_LOG,		/* why a job has no log to show */
	ACTION_EFFICIENCY,	/* how an ended job used what it asked for */
	ACTION_SOONEST,		/* where the wizard's request starts soonest */
	ACTION_HOLD,		/* hold or release done */
	ACTION_DETAIL,		/* a job's local record, for its detail view */
	ACTION_GPU,		/* a running job's GPU use (nvidia-smi) */
};

/* Where an action is: under way, or finished well or not. */
enum action_state {
	ACTION_PROGRESS,
	ACTION_DONE,
	ACTION_FAILED,
};

struct msg_action {
	enum action_kind	 kind;
	char			*cluster;
	char			*job_id;	/* NULL before sbatch answered;
						   a dry run's preview: its
						   record id */
	char			*step;		/* ACTION_SUBMIT: "staging",
						   "sbatch", ...; else NULL */
	char			*message;	/* for the footer */
	int			 done;		/* 0: progress, 1: finished */
	int			 failed;	/* when done: 1 if it failed */
};

/*
 * The local records as rows (reason "(record)"), read by the workers'
 * records thread when the screen starts, so its first frame waits for no
 * disk.  Rows squeue already gave are fresher: the receiver keeps those.
 */
struct msg_records {
	struct jobtable_row	*rows;		/* owned array of owned rows */
	size_t			 nrows;
	char			*message;	/* for the footer, or NULL */
	int			 error;		/* message is a warning */
	int			 more;		/* a batch: more rows follow */
};

struct msg {
	enum msg_type		 type;
	union {
		struct msg_cluster	 cluster;
		struct msg_jobs		 jobs;
		struct msg_log		 log;
		struct msg_action	 action;
		struct msg_records	 records;
	} u;
	struct msg		*next;		/* queue link, owned by the queue */
};

/* The footer's word for an action kind ("hold", "start"), or "". */
const char	*action_kind_name(enum action_kind);

/* A zeroed message of that type. */
struct msg	*msg_new(enum msg_type);
/* Free a message and everything it points to; NULL is fine. */
void		 msg_free(struct msg *);
/* Free a list linked by ->next (as msgq_take_all returns). */
void		 msg_free_list(struct msg *);

struct msgq;

struct msgq	*msgq_create(char **cause);
/* Frees messages still queued; no producer may post any more. */
void		 msgq_destroy(struct msgq *);
/* The read end of the wake pipe, for poll(POLLIN). */
int		 msgq_fd(const struct msgq *);
/* Queue m (the queue now owns it) and wake the reader; never blocks. */
void		 msgq_post(struct msgq *, struct msg *);
/*
 * Empty the wake pipe, then take every queued message in posting order as
 * a list linked by ->next (NULL if none).  The pipe is drained first so a
 * message posted meanwhile leaves a byte behind and wakes poll() again.
 */
struct msg	*msgq_take_all(struct msgq *);
/* Messages queued now (for tests and the status line). */
size_t		 msgq_length(struct msgq *);

#endif
