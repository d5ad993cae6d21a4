/*
 * Private to the workers (worker*.c): the pool, a cluster's state between
 * turns, and the helpers one worker file calls in another.
 */
#ifndef WORKER_INT_H
#define WORKER_INT_H

#include "worker.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "act.h"
#include "budget.h"
#include "conn.h"
#include "eff.h"
#include "gres.h"
#include "history.h"
#include "jobid.h"
#include "joblog.h"
#include "monitor.h"
#include "ops.h"
#include "pending.h"
#include "plan.h"
#include "record.h"
#include "slurm.h"
#include "soonest.h"
#include "state.h"
#include "submit.h"
#include "text.h"


enum wcmd_type {
	WCMD_CANCEL,
	WCMD_SUBMIT,
	WCMD_SPEC,
	WCMD_START,
	WCMD_EFF,
	WCMD_HOLD,	/* a job action (act: hold, release, requeue,
			   signal, time) on every job in ids, in one
			   remote command (ops_act) */
	WCMD_SOONEST,
	WCMD_GPU,	/* nvidia-smi on a running job's nodes, once */
};

/* A request from the UI thread, queued for one worker. */
struct wcmd {
	enum wcmd_type	 type;
	char		*job_id;	/* cancel */
	struct strv	 ids;		/* hold: the jobs of this cluster */
	char		*name;
	char		*spec_yaml;	/* submit: the spec, serialised */
	char		*user;		/* submit: login user, NULL: the
					   cluster's */
	int		 dry_run;
	char		*record_id;	/* submit: a preview's, or NULL */
	int		 release;	/* hold: release the job instead */
	int		 act;		/* hold: enum jobact_kind */
	char		*value;		/* hold: the signal or time limit */
	int		 res[5];	/* soonest: nodes gpus gpn cpus min */
	struct wcmd	*next;
};

struct wstate;

/* One cluster: its requests and, in st, what the pool keeps for it. */
struct worker {
	struct workers		*ws;
	const struct cluster	*cl;
	/*
	 * Owned by the pool thread that set busy (one at a time: the libssh
	 * session in it is never used by two threads at once); NULL until
	 * the first turn, and again once freed at the end.
	 */
	struct wstate		*st;

	/* Under ws->lock. */
	int			 busy;
	int			 dead;		/* last turn: not connected */
	int			 linked;	/* last turn: connected */
	int			 answered;	/* connected once in this run */
	int			 probe_ok;	/* a probe heard SSH: connect */
	time_t			 due;		/* monotonic: next timer */
	struct wcmd		*cmds;		/* written by the UI thread */
	struct wcmd		**cmdtail;
	int			 poll_now;
	unsigned		 log_gen;	/* bumped on every watch change */
	unsigned		 log_taken;	/* log_gen the state has */
	char			*log_id;	/* NULL: no job of ours watched */
	enum log_stream		 log_stream;
	uint64_t		 log_offset;
};

/* One thread of the pool. */
struct wthread {
	struct workers		*ws;
	pthread_t		 thread;
	int			 started;
	int			 exited;	/* under ws->lock */
};

/* A request to the records thread (worker-records.c). */
struct rreq {
	char		*cluster;	/* NULL: read them all (MSG_RECORDS) */
	char		*job_id;	/* else: this job's (ACTION_DETAIL) */
	struct rreq	*next;
};

struct workers {
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;		/* requests, timers and quit */
	pthread_cond_t		 exited;	/* a thread finished */
	struct msgq		*q;
	struct worker		*v;
	size_t			 n;
	struct wthread		*t;		/* the pool */
	size_t			 nt;
	size_t			 next;		/* where the next pick starts */
	size_t			 ndead;		/* busy reconnecting */
	size_t			 nlinked;	/* clusters connected */
	int			 probing;	/* a thread probes (pool_probe) */
	atomic_int		 quit;	/* written under lock, read anywhere */
	int			 nsubmits;	/* submit threads running */

	/* The records thread, if started (all under lock). */
	const struct config	*cfg;
	struct rreq		*rreqs;
	struct rreq		**rtail;
	pthread_t		 rthread;
	int			 rstarted;
	int			 rexited;
	int			 adopting;	/* no poll until ops_adopt ran */
	/* The records' index of every thread (records_index). */
	struct record_index	*rindex;
	pthread_mutex_t		 rindex_lock;
};

/* What the pool keeps for a cluster between turns (no lock: see busy). */
struct wstate {
	struct worker	*w;
	struct conn	*conn;
	unsigned	 sessions;	/* to notice a new connection */
	int		 interval;
	int		 backoff;	/* seconds, 0: none */
	struct budget	 budget;	/* scheduler calls (budget.h) */
	time_t		 next_poll;	/* monotonic seconds */
	time_t		 next_connect;
	time_t		 last_ok;	/* wall clock of the last good poll */
	int		 have_parts;
	struct strv	 parts;		/* "name MaxTime" */
	struct gres_parts gres;		/* free GPUs per partition (gres.h) */

	/*
	 * Finished jobs from accounting (history.h), every slow tick: the
	 * rows until they are sent (hist_append moves them into the message,
	 * then frees the array), and each one's id and log for as long as
	 * the history stands.  A row kept per job was 88 bytes of zeroes
	 * beside its id, ~25,000 of them over 32 clusters (issue 25).
	 */
	struct jobtable_row *hist;	/* NULL once sent */
	char		**hist_id;
	char		**hist_log;	/* SLURM's default log, or NULL */
	size_t		 nhist;
	int		 history_days;
	int		 hist_new;	/* rows not sent to the UI yet */
	uint64_t	 poll_digest;	/* the last poll answer (monitor.h) */
	uint64_t	 hist_digest;	/* the last history answer */
	int		 nhist_parsed;	/* hist_digest is one */
	time_t		 next_history;	/* monotonic seconds */
	/*
	 * Jobs squeue listed live last poll, and those it has since let go
	 * of that accounting has not given an end for yet: sacct is asked
	 * at once for them (an array task showed ENDED until the slow tick).
	 */
	struct strv	 live_ids;
	struct strv	 lost_ids;
	int		 lost_tries;
	time_t		 soonest_next;	/* no sbatch --test-only before */
	int		 soonest_wait;	/* a request waits for the budget */
	unsigned long	 budget_said;	/* budget.total last posted */
	int		 soonest_res[5];	/* its resources (wcmd res) */

	/* The watched log. */
	unsigned	 log_gen;
	char		*log_id;
	enum log_stream	 log_stream;
	char		*log_path;	/* NULL: unknown (no record) */
	int		 log_lookup;	/* ask scontrol for it (joblog.h) */
	time_t		 log_asked;	/* since when (monotonic) */
	char		*log_fallback;	/* if SLURM forgot it (history) */
	long long	 log_next;	/* -1: first read is a tail */
	int		 log_ended;	/* the job is over */
	int		 log_done;	/* ... and everything was read */
	int		 log_last_flags;
	time_t		 next_log;
};


/* worker.c */
time_t
mono_now(void);
void
wcmd_free(struct wcmd *c);
void
post(struct worker *w, struct msg *m);
void
workers_post(struct workers *ws, struct msg *m);
void __attribute__((format(printf, 6, 7)))
post_action(struct worker *w, enum action_kind kind, const char *job_id,
    const char *step, enum action_state as, const char *fmt, ...);
void
check_new_session(struct wstate *st);

/* worker-log.c */
void
log_reset(struct wstate *st);
void
log_take(struct wstate *st, const char *id, enum log_stream stream,
    uint64_t offset);
void
log_lookup(struct wstate *st);
/* A lookup's scheduler calls (squeue, then sacct). */
#define LOG_LOOKUP_CALLS	2
/*
 * Seconds the selection rests on a job before its lookup runs: the rows
 * the cursor passes on its way (a filter cleared, then typed) cost
 * nothing.  The clock is in whole seconds: 1 to 2 s.
 */
#define LOG_LOOKUP_SETTLE	2
unsigned
log_lookup_reserve(struct wstate *st);
void
do_log(struct wstate *st);

/* worker-actions.c */
void
do_cancel(struct wstate *st, struct wcmd *c);
void
do_start(struct wstate *st, struct wcmd *c);
void
do_hold(struct wstate *st, struct wcmd *c);
void
do_eff(struct wstate *st, struct wcmd *c);
void
do_gpu(struct wstate *st, struct wcmd *c);
void
do_soonest(struct wstate *st, struct wcmd *c);
void *
submit_main(void *arg);
void
submit_spawn(struct worker *w, struct wcmd *c);

/* worker-records.c */
struct record_index *
records_index(struct workers *ws);
void
records_index_free(struct workers *ws);
void *
records_main(void *arg);
void
rreq_free(struct rreq *r);

#endif
