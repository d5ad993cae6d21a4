#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "conn.h"
#include "eff.h"
#include "gres.h"
#include "history.h"
#include "jobdir.h"
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
	WCMD_HOLD,	/* scontrol hold, or release when release is set */
	WCMD_SOONEST,
};

/* A request from the UI thread, queued for one worker. */
struct wcmd {
	enum wcmd_type	 type;
	char		*job_id;	/* cancel */
	char		*name;
	char		*spec_yaml;	/* submit: the spec, serialised */
	char		*user;		/* submit: login user, NULL: the
					   cluster's */
	int		 dry_run;
	int		 release;	/* hold: release the job instead */
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
	atomic_int		 quit;	/* written under lock, read anywhere */
	int			 nsubmits;	/* submit threads running */
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

	/* Finished jobs from accounting (history.h), every slow tick. */
	struct jobtable_row *hist;
	char		**hist_log;	/* SLURM's default log, or NULL */
	size_t		 nhist;
	int		 history_days;
	int		 hist_new;	/* rows not sent to the UI yet */
	time_t		 next_history;	/* monotonic seconds */
	time_t		 soonest_next;	/* no sbatch --test-only before */
	int		 soonest_wait;	/* a request waits for the budget */
	int		 soonest_res[5];	/* its resources (wcmd res) */

	/* The watched log. */
	unsigned	 log_gen;
	char		*log_id;
	enum log_stream	 log_stream;
	char		*log_path;	/* NULL: unknown (no record) */
	int		 log_lookup;	/* ask scontrol for it (joblog.h) */
	char		*log_fallback;	/* if SLURM forgot it (history) */
	long long	 log_next;	/* -1: first read is a tail */
	int		 log_ended;	/* the job is over */
	int		 log_done;	/* ... and everything was read */
	int		 log_last_flags;
	time_t		 next_log;
};

/* Static so that stuck, detached workers keep their memory reachable. */
static struct workers	*workers_abandoned;

static time_t
mono_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int
worker_rate_limited(const char *cause)
{
	return cause != NULL && strstr(cause, "Rate limit exceeded") != NULL;
}

int
worker_backoff(int current, int interval, int rate_limited)
{
	int	next;

	if (interval < 1)
		interval = 1;
	next = current > 0 ? current * 2 : interval * 2;
	if (rate_limited && next < WORKER_RATE_BACKOFF)
		next = WORKER_RATE_BACKOFF;
	if (next > WORKER_BACKOFF_MAX)
		next = WORKER_BACKOFF_MAX;
	return next;
}

char *
worker_start_text(const char *when, const char *reason)
{
	if (reason == NULL)
		return xstrdup("not pending any more: squeue has no start "
		    "estimate for it");
	if (when == NULL)
		return xasprintf("why pending: %s; squeue --start estimate: "
		    "none (N/A: SLURM has no start time for it)",
		    *reason != '\0' ? reason : "(none)");
	return xasprintf("why pending: %s; squeue --start estimate: %s",
	    *reason != '\0' ? reason : "(none)", when);
}

static void
wcmd_free(struct wcmd *c)
{
	free(c->job_id);
	free(c->name);
	free(c->spec_yaml);
	free(c->user);
	free(c);
}

/* Post unless the UI is gone (then the queue may be freed soon). */
static void
post(struct worker *w, struct msg *m)
{
	struct workers	*ws = w->ws;

	pthread_mutex_lock(&ws->lock);
	if (ws->quit)
		msg_free(m);
	else
		msgq_post(ws->q, m);
	pthread_mutex_unlock(&ws->lock);
}

static void
post_cluster(struct wstate *st, enum cluster_health h, const char *message)
{
	struct msg	*m = msg_new(MSG_CLUSTER);
	const char	*host = st->conn != NULL ? conn_host(st->conn) : NULL;
	size_t		 i;
	time_t		 now;

	m->u.cluster.cluster = xstrdup(st->w->cl->name);
	m->u.cluster.health = h;
	m->u.cluster.message = message != NULL ? xstrdup(message) : NULL;
	m->u.cluster.host = host != NULL ? xstrdup(host) : NULL;
	for (i = 0; i < st->parts.n; i++) {
		const char	*p = st->parts.v[i], *paren;
		size_t		 k, len = strcspn(p, " ");
		char		*s;

		/* "gpu 4:00:00 6/8 GPU" where the partition has GPUs. */
		for (k = 0; k < st->gres.n; k++) {
			if (strlen(st->gres.v[k].name) == len &&
			    strncmp(st->gres.v[k].name, p, len) == 0 &&
			    st->gres.v[k].total > 0)
				break;
		}
		if (k == st->gres.n) {
			strv_add(&m->u.cluster.partitions, p);
			continue;
		}
		/* Before the "(limits)" the clusters pane cuts off. */
		paren = strstr(p, " (");
		s = xasprintf("%.*s %d/%d GPU%s", paren != NULL ?
		    (int)(paren - p) : (int)strlen(p), p, st->gres.v[k].idle,
		    st->gres.v[k].total, paren != NULL ? paren : "");
		strv_add(&m->u.cluster.partitions, s);
		free(s);
	}
	m->u.cluster.last_ok = st->last_ok;
	now = mono_now();
	m->u.cluster.calls = budget_used(&st->budget, now);
	m->u.cluster.max_calls = (unsigned)st->budget.max_calls;
	if (conn_connected(st->conn) || st->last_ok != 0)
		m->u.cluster.next_poll = time(NULL) + (st->next_poll > now ?
		    st->next_poll - now : 0);
	m->u.cluster.backoff = st->backoff;
	if (st->backoff > 0 && st->budget.fault != BUDGET_FAULT_NONE)
		m->u.cluster.fault = xstrdup(budget_fault_text(
		    st->budget.fault));
	post(st->w, m);
}

static void __attribute__((format(printf, 6, 7)))
post_action(struct worker *w, enum action_kind kind, const char *job_id,
    const char *step, int done_failed, const char *fmt, ...)
{
	struct msg	*m = msg_new(MSG_ACTION);
	va_list		 ap;

	m->u.action.kind = kind;
	m->u.action.cluster = xstrdup(w->cl->name);
	m->u.action.job_id = job_id != NULL ? xstrdup(job_id) : NULL;
	m->u.action.step = step != NULL ? xstrdup(step) : NULL;
	/* done_failed: 0 progress, 1 done, 2 failed. */
	m->u.action.done = done_failed != 0;
	m->u.action.failed = done_failed == 2;
	va_start(ap, fmt);
	m->u.action.message = xvasprintf(fmt, ap);
	va_end(ap);
	post(w, m);
}

/* --- partitions ----------------------------------------------------------- */

/* sinfo once per connection: "name MaxTime" for the panes and the wizard. */
static void
fetch_partitions(struct wstate *st)
{
	struct conn_result	 res;
	struct slurm_partitions	 parts;
	struct plan_limit	 lim;
	char			*cmd, *cause = NULL, t[32];
	size_t			 i;

	memset(&parts, 0, sizeof parts);
	cmd = slurm_cmd_sinfo();
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0 ||
	    res.status != 0) {
		/* Not fatal: the configured partitions are shown instead. */
		free(cause);
		goto out;
	}
	if (slurm_parse_sinfo(res.out, &parts, &cause) != 0)
		free(cause);	/* the good lines are kept */
	strv_free(&st->parts);
	for (i = 0; i < parts.n; i++) {
		char	*s;

		if (parts.v[i].max_minutes < 0)
			snprintf(t, sizeof t, "UNLIMITED");
		else
			slurm_time_format(parts.v[i].max_minutes * 60, t,
			    sizeof t);
		memset(&lim, 0, sizeof lim);
		lim.nodes = parts.v[i].nodes;
		lim.cpus = parts.v[i].cpus > 0 ? parts.v[i].cpus : 0;
		lim.gres_known = 1;
		lim.gpus_per_node = plan_gres_gpus(parts.v[i].gres);
		s = plan_partition_text(parts.v[i].name, t, &lim);
		strv_add(&st->parts, s);
		free(s);
	}
	st->have_parts = 1;
out:
	slurm_partitions_free(&parts);
	conn_result_free(&res);
	free(cmd);
}

/*
 * A slow-tick command that failed: if the scheduler itself did not answer
 * (budget_classify), its text for poll_failed (allocated), else NULL: a
 * stopped slurmctld shows as back-off at the first command that meets it.
 */
static char *
sched_fault(const struct conn_result *res, const char *cause)
{
	const char	*t = cause;

	if (t == NULL && res->err != NULL && *res->err != '\0')
		t = res->err;
	if (t == NULL && res->out != NULL)
		t = res->out;
	if (t == NULL || budget_classify(t) == BUDGET_FAULT_NONE)
		return NULL;
	return xstrdup(t);
}

/* Idle and total GPUs per partition: one sinfo (gres.h). */
static char *
fetch_gres(struct wstate *st)
{
	struct conn_result	 res;
	struct gres_parts	 gp;
	char			*cmd = gres_cmd(), *cause = NULL, *fault = NULL;

	memset(&res, 0, sizeof res);
	memset(&gp, 0, sizeof gp);
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0 ||
	    res.status != 0) {
		fault = sched_fault(&res, cause);
		free(cause);
		goto out;	/* the last counts stay */
	}
	if (gres_parse(res.out, &gp, &cause) != 0)
		free(cause);	/* the good lines are kept */
	gres_free(&st->gres);
	st->gres = gp;
	memset(&gp, 0, sizeof gp);
out:
	gres_free(&gp);
	conn_result_free(&res);
	free(cmd);
	return fault;
}

/* After any conn call: a new session means new partitions. */
static void
check_new_session(struct wstate *st)
{
	struct conn_stats	s;

	conn_get_stats(st->conn, &s);
	if (s.sessions != st->sessions && conn_connected(st->conn)) {
		st->sessions = s.sessions;
		fetch_partitions(st);
	}
}

/* --- polling -------------------------------------------------------------- */

static int
row_finished(const struct monitor_snapshot *snap, const char *id, int *found)
{
	size_t	i;

	for (i = 0; i < snap->n; i++) {
		if (strcmp(snap->rows[i].id, id) == 0) {
			*found = 1;
			return snap->rows[i].finished;
		}
	}
	*found = 0;
	return 0;
}

static void
poll_failed(struct wstate *st, const char *cause)
{
	enum budget_fault	f = budget_classify(cause);

	/* The scheduler's fault: back off longer (budget.h). */
	if (f != BUDGET_FAULT_NONE) {
		st->budget.backoff = st->backoff;
		st->backoff = budget_fail(&st->budget, st->interval, f);
	} else {
		st->backoff = worker_backoff(st->backoff, st->interval,
		    worker_rate_limited(cause));
		st->budget.fault = BUDGET_FAULT_NONE;
	}
	st->next_poll = mono_now() + st->backoff;
	/* A cluster that never answered is in error; else its rows are old. */
	post_cluster(st, st->last_ok != 0 && conn_connected(st->conn) ?
	    CLUSTER_STALE : CLUSTER_ERROR, cause);
}

static void
hist_clear(struct wstate *st)
{
	size_t	i;

	for (i = 0; i < st->nhist; i++) {
		jobtable_row_clear(&st->hist[i]);
		free(st->hist_log[i]);
	}
	free(st->hist);
	free(st->hist_log);
	st->hist = NULL;
	st->hist_log = NULL;
	st->nhist = 0;
}

/* One sacct for the jobs that ended in the window (history.h). */
static char *
do_history(struct wstate *st)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	struct history		 h;
	char			*cmd, *cause = NULL, base[64], *fault = NULL;
	char			 sep[SLURM_SEP_SIZE];
	size_t			 i;

	memset(&res, 0, sizeof res);
	memset(&h, 0, sizeof h);
	st->next_history = mono_now() + WORKER_HISTORY_SECONDS;
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = history_cmd(w->cl->user, st->history_days, time(NULL),
	    sep, &cause)) == NULL)
		goto out;
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0 ||
	    res.status != 0) {
		fault = sched_fault(&res, cause);
		goto out;	/* the old rows stay; the poll says the health */
	}
	(void)history_parse(res.out, sep, &h, &cause);	/* good rows kept */
	hist_clear(st);
	st->hist = xcalloc(h.n + 1, sizeof *st->hist);
	st->hist_log = xcalloc(h.n + 1, sizeof *st->hist_log);
	for (i = 0; i < h.n; i++) {
		const struct history_job	*j = &h.v[i];
		struct jobtable_row		*r = &st->hist[i];

		r->cluster = xstrdup(w->cl->name);
		r->id = xstrdup(j->id);
		r->name = xstrdup(j->name);
		r->partition = xstrdup(j->partition);
		r->state = xstrdup(slurm_state_base(j->state, base,
		    sizeof base));
		r->elapsed = j->elapsed;
		r->limit = j->limit;
		if (j->exit_code > 0 || j->exit_signal > 0)
			r->reason = xasprintf("exit %d:%d", j->exit_code,
			    j->exit_signal);
		else
			r->reason = xstrdup("");
		r->finished = 1;
		st->hist_log[i] = history_default_log(j);
	}
	st->nhist = h.n;
	st->hist_new = 1;
out:
	check_new_session(st);
	free(cause);
	free(cmd);
	conn_result_free(&res);
	history_free(&h);
	return fault;
}

static int
id_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Add the history rows the queue and the records do not have: the queue's
 * ids sorted once, each history row looked up (n log n; 500 queued and a
 * week of history were 500 x thousands of compares on every poll).
 */
static void
hist_append(struct wstate *st, struct msg_jobs *jobs)
{
	size_t	  i, n = jobs->nrows;
	char	**ids;

	if (st->nhist == 0)
		return;
	ids = xcalloc(n + 1, sizeof *ids);
	for (i = 0; i < n; i++)
		ids[i] = jobs->rows[i].id;
	qsort(ids, n, sizeof *ids, id_cmp);
	jobs->rows = xrealloc(jobs->rows, (n + st->nhist + 1) *
	    sizeof *jobs->rows);
	for (i = 0; i < st->nhist; i++) {
		const struct jobtable_row	*h = &st->hist[i];
		struct jobtable_row		*r;

		if (n > 0 && bsearch(&h->id, ids, n, sizeof *ids,
		    id_cmp) != NULL)
			continue;
		r = &jobs->rows[jobs->nrows++];
		*r = *h;
		r->cluster = xstrdup(h->cluster);
		r->id = xstrdup(h->id);
		r->name = xstrdup(h->name);
		r->partition = xstrdup(h->partition);
		r->state = xstrdup(h->state);
		r->reason = xstrdup(h->reason);
	}
	free(ids);
}

static void
do_poll(struct wstate *st)
{
	struct worker		*w = st->w;
	struct monitor_opts	 opts;
	struct monitor_snapshot	 snap;
	struct msg		*m;
	char			*cause = NULL, *fault = NULL;
	size_t			 i;
	int			 found, fin, rc;

	memset(&opts, 0, sizeof opts);
	opts.user = w->cl->user;
	opts.source = "poll:tui";
	budget_polled(&st->budget, mono_now());
	rc = monitor_poll(st->conn, w->cl->name, &opts, &snap, &cause);
	budget_spend(&st->budget, mono_now(), snap.sched_calls);
	if (rc != 0) {
		monitor_snapshot_free(&snap);
		check_new_session(st);
		poll_failed(st, cause);
		free(cause);
		return;
	}
	check_new_session(st);
	st->backoff = 0;
	budget_ok(&st->budget);
	st->next_poll = mono_now() + st->interval;
	st->last_ok = snap.polled != 0 ? snap.polled : time(NULL);

	if (st->log_id != NULL) {
		fin = row_finished(&snap, st->log_id, &found);
		if (found && fin)
			st->log_ended = 1;
	}
	for (i = 0; i < snap.events.n; i++)
		post_action(w, ACTION_REFRESH, NULL, NULL, 1, "%s",
		    snap.events.v[i]);

	/* The slow tick: history, within the budget. */
	if (mono_now() >= st->next_history &&
	    budget_used(&st->budget, mono_now()) + 2 <=
	    (unsigned)st->budget.max_calls) {
		if (w->cl->history != 0)
			fault = do_history(st);
		else
			st->next_history = mono_now() + WORKER_HISTORY_SECONDS;
		if (fault == NULL)
			fault = fetch_gres(st);
	}

	m = msg_new(MSG_JOBS);
	m->u.jobs.cluster = xstrdup(w->cl->name);
	m->u.jobs.rows = snap.rows;	/* given away; zeroed rows left */
	m->u.jobs.nrows = snap.n;
	/*
	 * History rows only when sacct was asked again (once a minute): the
	 * table keeps finished rows a snapshot leaves out, and resending
	 * thousands of them every poll cost every cluster's UI merge.
	 */
	if (st->hist_new)
		hist_append(st, &m->u.jobs);
	st->hist_new = 0;
	m->u.jobs.polled = st->last_ok;
	snap.rows = xcalloc(snap.n + 1, sizeof *snap.rows);
	if (fault != NULL) {
		/* The rows are this poll's; the scheduler stopped since. */
		post(w, m);
		poll_failed(st, fault);
		free(fault);
	} else {
		post_cluster(st, CLUSTER_OK, snap.error);
		post(w, m);
	}
	monitor_snapshot_free(&snap);
}

/* --- logs ----------------------------------------------------------------- */

static void
log_reset(struct wstate *st)
{
	free(st->log_id);
	free(st->log_path);
	free(st->log_fallback);
	st->log_id = st->log_path = st->log_fallback = NULL;
	st->log_ended = st->log_done = st->log_lookup = 0;
	st->log_last_flags = -1;
}

static void	log_missing(struct wstate *, const char *);

/* Take a new watch request: find the job's record and its log path. */
static void
log_take(struct wstate *st, const char *id, enum log_stream stream,
    uint64_t offset)
{
	struct worker	*w = st->w;
	struct record	*rec = NULL;
	const char	*task;
	char		*cause = NULL, base[32];
	long		 sid;
	int		 rc;

	log_reset(st);
	if (id == NULL)
		return;
	st->log_id = xstrdup(id);
	st->log_stream = stream;
	st->log_next = offset > 0 ? (long long)offset : -1;
	st->next_log = 0;

	/* An array task has no record: sqdeck submits no arrays. */
	if (jobtable_array_split(id, base, sizeof base, &task))
		rc = 1;
	else
		rc = ops_find(id, w->cl->name, &rec, &sid, &cause);
	if (rc == 0 && rec->cluster != NULL &&
	    strcmp(rec->cluster, w->cl->name) != 0) {
		record_free(rec);	/* same SLURM id, another cluster */
		rec = NULL;
		rc = 1;
	}
	if (rc == 0) {
		st->log_path = ops_log_path(rec, stream == LOG_ERR);
		st->log_ended = state_terminal(rec->state);
		if (st->log_path == NULL)
			cause = xasprintf("record %s has no log path yet",
			    rec->id);
	} else if (rc == 1 || cause == NULL) {
		size_t	i;

		/*
		 * A job sqdeck did not submit: its StdOut from scontrol while
		 * SLURM knows it (asked once connected, joblog.h), else for a
		 * finished one SLURM's default log in its work dir.
		 */
		for (i = 0; i < st->nhist; i++) {
			if (strcmp(st->hist[i].id, id) == 0 &&
			    st->hist_log[i] != NULL) {
				st->log_fallback = xstrdup(st->hist_log[i]);
				break;
			}
		}
		free(cause);
		st->log_lookup = 1;
		record_free(rec);
		return;
	}
	record_free(rec);
	if (st->log_path != NULL) {
		free(cause);
		return;
	}
	log_missing(st, cause);
	free(cause);
}

/* Say once why there is no log; the pane shows none. */
static void
log_missing(struct wstate *st, const char *cause)
{
	struct worker	*w = st->w;
	struct msg	*m;
	const char	*id = st->log_id;

	post_action(w, ACTION_OTHER, id, "log", 2, "%s", cause);
	m = msg_new(MSG_LOG);
	m->u.log.cluster = xstrdup(w->cl->name);
	m->u.log.job_id = xstrdup(id);
	m->u.log.stream = st->log_stream;
	m->u.log.flags = MSG_LOG_MISSING | MSG_LOG_DONE;
	post(w, m);
	st->log_done = 1;
}

/*
 * A job sqdeck did not submit and accounting has not listed as ended: its
 * StdOut/StdErr from scontrol, patterns (%A_%a ...) resolved.  One
 * scheduler call when the watch starts, none while it is followed.
 */
static void
log_lookup(struct wstate *st)
{
	struct conn_result	 res;
	struct joblog		 jl;
	char			*cmd, *cause = NULL;

	/* A scheduler call: it waits for the budget like a poll. */
	if (budget_used(&st->budget, mono_now()) + 1 >
	    (unsigned)st->budget.max_calls)
		return;
	st->log_lookup = 0;
	memset(&res, 0, sizeof res);
	memset(&jl, 0, sizeof jl);
	if ((cmd = joblog_cmd(st->log_id, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	if (res.status != 0 || joblog_parse(res.out, &jl, NULL) != 0) {
		/* Forgotten by SLURM: accounting's default, if it ended. */
		if (st->log_fallback != NULL) {
			st->log_path = st->log_fallback;
			st->log_fallback = NULL;
			st->log_ended = 1;
			goto out;
		}
		cause = xasprintf("not submitted by sqdeck and SLURM no longer "
		    "knows it: its log path is not known");
		goto fail;
	}
	if ((st->log_path = joblog_path(&jl, st->log_stream == LOG_ERR,
	    &cause)) == NULL)
		goto fail;
	if (strcmp(st->log_path, "/dev/null") == 0) {
		/* sbatch -o /dev/null: nothing will ever be there. */
		free(st->log_path);
		st->log_path = NULL;
		cause = xasprintf("not submitted by sqdeck, and its %s goes "
		    "to /dev/null (sbatch %s /dev/null): there is no log to "
		    "show", st->log_stream == LOG_ERR ? "stderr" : "output",
		    st->log_stream == LOG_ERR ? "-e" : "-o");
		goto fail;
	}
	goto out;
fail:
	log_missing(st, cause);
out:
	check_new_session(st);
	joblog_free(&jl);
	conn_result_free(&res);
	free(cmd);
	free(cause);
}

static void
do_log(struct wstate *st)
{
	struct worker	*w = st->w;
	struct ops_log	 log;
	struct msg	*m;
	char		*cause = NULL;
	int		 rc, flags = 0;

	st->next_log = mono_now() + WORKER_LOG_SECONDS;
	if (st->log_next < 0)
		rc = ops_log_tail(st->conn, st->log_path, WORKER_LOG_LINES,
		    &log, &cause);
	else
		rc = ops_log_read(st->conn, st->log_path, st->log_next,
		    WORKER_LOG_CHUNK, &log, &cause);
	check_new_session(st);
	if (rc != 0) {
		/* The poll reports the cluster's health; just try again. */
		free(cause);
		ops_log_free(&log);
		return;
	}
	if (log.missing)
		flags |= MSG_LOG_MISSING;
	else {
		st->log_next = log.next;
		if (log.len < WORKER_LOG_CHUNK)
			flags |= MSG_LOG_EOF;
	}
	/* An ended job with nothing more to read: stop asking. */
	if (st->log_ended && (flags & (MSG_LOG_EOF | MSG_LOG_MISSING))) {
		flags |= MSG_LOG_DONE;
		st->log_done = 1;
	}
	if (log.len > 0 || flags != st->log_last_flags) {
		m = msg_new(MSG_LOG);
		m->u.log.cluster = xstrdup(w->cl->name);
		m->u.log.job_id = xstrdup(st->log_id);
		m->u.log.stream = st->log_stream;
		m->u.log.offset = (uint64_t)(log.offset > 0 ? log.offset : 0);
		m->u.log.len = log.len;
		m->u.log.data = log.data;	/* given away */
		log.data = NULL;
		m->u.log.flags = flags;
		post(w, m);
	}
	st->log_last_flags = flags;
	ops_log_free(&log);
}

/* --- requests ------------------------------------------------------------- */

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return 0;
	}
	return 1;
}

static void
do_cancel(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct record		*rec = NULL;
	struct ops_cancel	 oc;
	char			*cause = NULL;
	long			 sid;
	int			 rc;

	memset(&oc, 0, sizeof oc);
	if (!all_digits(c->job_id)) {
		/* An array task or pending range: sqdeck keeps no record. */
		budget_spend(&st->budget, mono_now(), 1);	/* scancel */
		rc = ops_cancel_task(st->conn, c->job_id, "cancel:tui", &oc,
		    &cause);
		check_new_session(st);
		if (rc != 0) {
			post_action(w, ACTION_CANCEL, c->job_id, NULL, 2, "%s",
			    cause);
			free(cause);
			return;
		}
		goto done;
	}
	rc = ops_find(c->job_id, w->cl->name, &rec, &sid, &cause);
	if (rc < 0) {
		post_action(w, ACTION_CANCEL, c->job_id, NULL, 2, "%s", cause);
		free(cause);
		return;
	}
	if (rec != NULL && rec->cluster != NULL &&
	    strcmp(rec->cluster, w->cl->name) != 0) {
		record_free(rec);	/* another cluster's job with this id */
		rec = NULL;
	}
	budget_spend(&st->budget, mono_now(), 1);	/* scancel */
	if (ops_cancel(st->conn, rec, sid, "cancel:tui", &oc, &cause) != 0) {
		check_new_session(st);
		post_action(w, ACTION_CANCEL, c->job_id, NULL, 2, "%s", cause);
		free(cause);
		record_free(rec);
		return;
	}
	check_new_session(st);
done:
	if (oc.was_live)
		post_action(w, ACTION_CANCEL, c->job_id, NULL, 1,
		    "cancelled %s (was %s)%s", c->name != NULL ? c->name : "",
		    oc.live_state != NULL && *oc.live_state != '\0' ?
		    oc.live_state : "queued", oc.wiped ?
		    "; secrets sidecar removed" : "");
	else
		post_action(w, ACTION_CANCEL, c->job_id, NULL, 1,
		    "%s had already ended: counts as cancelled",
		    c->name != NULL ? c->name : "the job");
	ops_cancel_free(&oc);
	record_free(rec);
	/* Show the end at once rather than at the next tick. */
	st->next_poll = 0;
}

/* The detail view's "why pending": squeue --start for one job. */
static void
do_start(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	char			*cmd, *cause = NULL, *when = NULL;
	char			*reason = NULL, *text, *why, sep[SLURM_SEP_SIZE];
	long			 id = strtol(c->job_id, NULL, 10);

	memset(&res, 0, sizeof res);
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = slurm_cmd_start(id, sep, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	/* A job slurmctld forgot: "Invalid job id specified", exit 1. */
	if (res.status != 0 && (res.err == NULL ||
	    strstr(res.err, "Invalid job id") == NULL)) {
		cause = xasprintf("squeue --start failed: %s", res.err != NULL &&
		    *res.err != '\0' ? res.err : "no message");
		goto fail;
	}
	if (res.status == 0 && slurm_parse_start(res.out, sep, &when, &reason,
	    &cause) < 0)
		goto fail;
	text = worker_start_text(when, reason);
	/* The reason in words, and what the user can do (pending.h). */
	if ((why = pending_text(reason)) != NULL) {
		char	*both = xasprintf("%s. %s", text, why);

		free(text);
		free(why);
		text = both;
	}
	post_action(w, ACTION_OTHER, c->job_id, "start", 1, "%s", text);
	free(text);
	goto out;
fail:
	post_action(w, ACTION_OTHER, c->job_id, "start", 2, "%s", cause);
out:
	check_new_session(st);
	conn_result_free(&res);
	free(cmd);
	free(cause);
	free(when);
	free(reason);
}

/* H and U in the jobs pane: scontrol hold or release of one job. */
static void
do_hold(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	char			*cmd, *q, *cause = NULL, *err;
	const char		*verb = c->release ? "release" : "hold";

	memset(&res, 0, sizeof res);
	q = shell_quote(c->job_id);
	cmd = xasprintf("scontrol %s %s", verb, q);
	free(q);
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0) {
		post_action(w, ACTION_OTHER, c->job_id, "hold", 2, "%s", cause);
	} else if (res.status != 0) {
		err = text_sanitize(res.err != NULL ? res.err : "",
		    res.err != NULL ? strlen(res.err) : 0, 0, NULL);
		post_action(w, ACTION_OTHER, c->job_id, "hold", 2,
		    "scontrol %s failed: %s", verb, *err != '\0' ? err :
		    "no message");
		free(err);
	} else
		post_action(w, ACTION_OTHER, c->job_id, "hold", 1, "%s",
		    c->release ? "released: it may start when SLURM "
		    "schedules it" : "held: it stays pending until released "
		    "(U)");
	check_new_session(st);
	conn_result_free(&res);
	free(cmd);
	free(cause);
	st->next_poll = 0;	/* show the new reason at once */
}

/* The detail view's efficiency of an ended job: one sacct (eff.h). */
static void
do_eff(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	struct eff		 e;
	char			*cmd, *cause = NULL, *text;
	long			 id = strtol(c->job_id, NULL, 10);

	memset(&res, 0, sizeof res);
	memset(&e, 0, sizeof e);
	if ((cmd = eff_cmd(id, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), 1);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	if (res.status != 0) {
		cause = xasprintf("sacct failed (exit %d)", res.status);
		goto fail;
	}
	if (eff_parse(res.out, id, &e, &cause) != 0)
		goto fail;
	text = eff_text(&e);
	/* "label\ttext" lines: the detail view puts each under its label. */
	post_action(w, ACTION_OTHER, c->job_id, "efficiency", 1,
	    "%s%s%susage\t%s%s%s", e.exit_code != NULL ? "exit code\t" : "",
	    e.exit_code != NULL ? e.exit_code : "", e.exit_code != NULL ?
	    "\n" : "", text, e.hint != NULL ? "\nhint\t" : "",
	    e.hint != NULL ? e.hint : "");
	free(text);
	goto out;
fail:
	post_action(w, ACTION_OTHER, c->job_id, "efficiency", 2, "%s", cause);
out:
	check_new_session(st);
	conn_result_free(&res);
	eff_free(&e);
	free(cmd);
	free(cause);
}

/*
 * The wizard's "where would it start soonest": the request planned for
 * each partition sinfo listed, and one sbatch --test-only per partition it
 * fits (soonest.h), in one remote script.
 */
static void
do_soonest(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	struct spec		 sp;
	struct plan		*plans;
	const struct plan	**pp;
	struct plan_limit	 lim;
	struct soonest		 so;
	struct buf		 skipped;
	char			*cmd = NULL, *cause = NULL, *name, *why, *text;
	char			*mt, sep[SLURM_SEP_SIZE];
	size_t			 i, n = 0;
	long			 min;

	memset(&res, 0, sizeof res);
	memset(&so, 0, sizeof so);
	buf_init(&skipped);
	buf_add(&skipped, "", 0);
	plans = xcalloc(st->parts.n + 1, sizeof *plans);
	pp = xcalloc(st->parts.n + 1, sizeof *pp);
	for (i = 0; i < st->parts.n && n < SOONEST_MAX; i++) {
		name = why = NULL;
		if (plan_partition_parse(st->parts.v[i], &lim, &name) != 0) {
			free(name);
			continue;
		}
		lim.name = name;
		/* "name MaxTime (what a node holds)", as the wizard reads it. */
		mt = xstrndup(st->parts.v[i] + strlen(name) + 1,
		    strcspn(st->parts.v[i] + strlen(name) + 1, " "));
		if (slurm_maxtime_minutes(mt, &min, &why) != 0) {
			free(why);
			why = NULL;
			min = -1;
		}
		free(mt);
		lim.max_minutes = min < 0 ? PLAN_UNLIMITED : (int)min;
		spec_init(&sp);
		sp.partition = xstrdup(name);
		sp.nodes = c->res[0];
		sp.gpus = c->res[1];
		sp.gpus_per_node = c->res[2];
		sp.cpus = c->res[3];
		sp.time_minutes = c->res[4];
		if (plan_make(&sp, w->cl, &lim, 1, &plans[n], &why) == 0)
			pp[n] = &plans[n], n++;
		else {
			/* "gpu: no node has 8 GPUs" -- said, not tried. */
			buf_printf(&skipped, "; %s: %s", name, why != NULL ?
			    why : "does not fit");
			plan_free(&plans[n]);
			memset(&plans[n], 0, sizeof plans[n]);
		}
		free(why);
		spec_free(&sp);
		free(name);
	}
	if (n == 0) {
		cause = xasprintf("no partition of %s fits the request%s%s",
		    w->cl->name, st->parts.n == 0 ? " (partitions not known "
		    "yet)" : "", skipped.data);
		goto fail;
	}
	/*
	 * At most one estimate every WORKER_SOONEST_SECONDS, the latest
	 * request kept meanwhile (a wizard whose every change asked again
	 * went 10 calls over the budget and starved the polls).  Its calls
	 * are counted but not refused by the budget: the polls fill the
	 * budget at default settings and it would never be asked.
	 */
	if (mono_now() < st->soonest_next) {
		/* Kept (the latest request only) and asked when it fits. */
		st->soonest_wait = 1;
		memcpy(st->soonest_res, c->res, sizeof st->soonest_res);
		goto out;
	}
	st->soonest_wait = 0;
	st->soonest_next = mono_now() + WORKER_SOONEST_SECONDS;
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = soonest_cmd(pp, n, sep + 1, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), (unsigned)n);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	if (soonest_parse(res.out, sep + 1, &so, &cause) != 0)
		goto fail;
	text = soonest_text(&so, time(NULL));
	post_action(w, ACTION_OTHER, NULL, "soonest", 1, "%s%s",
	    text != NULL ? text : "no answer", skipped.data);
	free(text);
	goto out;
fail:
	post_action(w, ACTION_OTHER, NULL, "soonest", 2, "%s", cause);
out:
	check_new_session(st);
	for (i = 0; i < n; i++)
		plan_free(&plans[i]);
	free(plans);
	free(pp);
	buf_free(&skipped);
	soonest_free(&so);
	conn_result_free(&res);
	free(cmd);
	free(cause);
}

static void submit_spawn(struct worker *, struct wcmd *);
static void do_spec(struct wstate *, struct wcmd *);

/* --- the thread ----------------------------------------------------------- */

static int
ensure_connected(struct wstate *st)
{
	char	*cause = NULL;

	if (conn_connected(st->conn))
		return 0;
	if (mono_now() < st->next_connect)
		return -1;
	post_cluster(st, CLUSTER_CONNECTING, NULL);
	if (conn_connect(st->conn, &cause) != 0) {
		/*
		 * Let go of the holder too: one that never logged in ends
		 * when no client is attached, so a dead host keeps no
		 * process while it waits for its next try.
		 */
		conn_disconnect(st->conn);
		st->backoff = worker_backoff(st->backoff, st->interval,
		    worker_rate_limited(cause));
		st->next_connect = mono_now() + st->backoff;
		post_cluster(st, CLUSTER_ERROR, cause);
		free(cause);
		return -1;
	}
	check_new_session(st);
	st->next_poll = 0;	/* poll at once on a new session */
	return 0;
}

/* What a turn takes from the requests, under the lock. */
struct wtake {
	struct wcmd	*cmds;
	int		 poll_now;
	int		 log_changed;
	char		*log_id;
	enum log_stream	 log_stream;
	uint64_t	 log_offset;
};

static struct wstate *
wstate_new(struct worker *w)
{
	struct wstate	*st = xcalloc(1, sizeof *st);

	st->w = w;
	st->conn = conn_new_cluster(w->cl);
	st->interval = w->cl->poll_interval > 0 ? w->cl->poll_interval : 5;
	budget_init(&st->budget, w->cl->min_poll_interval,
	    w->cl->max_scheduler_calls);
	st->history_days = w->cl->history_days;
	if (st->interval < st->budget.min_interval)
		st->interval = st->budget.min_interval;
	st->log_last_flags = -1;
	post_cluster(st, CLUSTER_CONNECTING, NULL);
	return st;
}

static void
wstate_free(struct wstate *st)
{
	if (st == NULL)
		return;
	log_reset(st);
	strv_free(&st->parts);
	budget_free(&st->budget);
	hist_clear(st);
	gres_free(&st->gres);
	conn_free(st->conn);
	free(st);
}

/* When the cluster next needs a turn without a request (monotonic). */
static time_t
wstate_due(struct wstate *st)
{
	time_t	wake;

	wake = conn_connected(st->conn) ? st->next_poll : st->next_connect;
	if (st->log_path != NULL && !st->log_done &&
	    conn_connected(st->conn) && st->next_log < wake)
		wake = st->next_log;
	return wake;
}

/*
 * One turn for a cluster: take its requests, connect if it is time, run
 * what is due (poll, watched log).  Never waits for a timer: the pool
 * comes back when wstate_due() says.
 */
static void
worker_turn(struct worker *w, struct wtake *t)
{
	struct workers	*ws = w->ws;
	struct wstate	*st;
	struct wcmd	*cmds = t->cmds, *c, **cp;
	time_t		 now, wake;

	if (w->st == NULL)
		w->st = wstate_new(w);
	st = w->st;
	if (t->log_changed)
		log_take(st, t->log_id, t->log_stream, t->log_offset);
	if (t->poll_now) {
		st->next_poll = 0;
		st->next_connect = 0;
	}

	/* Submits run in their own thread: see submit_main(). */
	for (cp = &cmds; (c = *cp) != NULL; /* below */) {
		if (c->type != WCMD_SUBMIT) {
			cp = &c->next;
			continue;
		}
		*cp = c->next;
		submit_spawn(w, c);
	}
	if (ensure_connected(st) != 0) {
		/* Requests cannot wait for a cluster that is down. */
		while ((c = cmds) != NULL) {
			cmds = c->next;
			post_action(w, c->type == WCMD_CANCEL ?
			    ACTION_CANCEL : ACTION_OTHER, c->job_id,
			    c->type == WCMD_SPEC ? "spec" :
			    c->type == WCMD_START ? "start" :
			    c->type == WCMD_EFF ? "efficiency" :
			    c->type == WCMD_HOLD ? "hold" :
			    c->type == WCMD_SOONEST ? "soonest" : NULL, 2,
			    "%s is not connected: try again when its "
			    "state is ok", w->cl->name);
			wcmd_free(c);
		}
		return;
	}
	if (st->log_lookup && st->log_id != NULL)
		log_lookup(st);
	if (st->soonest_wait && mono_now() >= st->soonest_next) {
		struct wcmd	sc;

		memset(&sc, 0, sizeof sc);
		sc.type = WCMD_SOONEST;
		memcpy(sc.res, st->soonest_res, sizeof sc.res);
		do_soonest(st, &sc);
	}
	while ((c = cmds) != NULL) {
		cmds = c->next;
		if (c->type == WCMD_CANCEL)
			do_cancel(st, c);
		else if (c->type == WCMD_START)
			do_start(st, c);
		else if (c->type == WCMD_EFF)
			do_eff(st, c);
		else if (c->type == WCMD_SOONEST)
			do_soonest(st, c);
		else if (c->type == WCMD_HOLD)
			do_hold(st, c);
		else
			do_spec(st, c);
		wcmd_free(c);
		if (ws->quit)
			break;
	}
	while ((c = cmds) != NULL) {
		cmds = c->next;
		wcmd_free(c);
	}
	now = mono_now();
	if (!ws->quit && st->next_poll <= now) {
		/* Within the budget, or wait for it (budget.h). */
		wake = budget_when(&st->budget, now, 1);
		if (wake > now) {
			st->next_poll = wake;
			post_cluster(st, st->last_ok != 0 ?
			    CLUSTER_OK : CLUSTER_CONNECTING,
			    "waiting for the polling budget");
		} else
			do_poll(st);
	}
	if (!ws->quit && st->log_path != NULL && !st->log_done &&
	    st->next_log <= mono_now() && conn_connected(st->conn))
		do_log(st);
}

/* How many pool threads may be reconnecting to dead clusters at once. */
static size_t
pool_dead_max(const struct workers *ws)
{
	return ws->nt > 1 ? ws->nt / 2 : 1;
}

/*
 * Under the lock: the next cluster that needs a turn, taken round-robin
 * so that none starves, or NULL with *wake set to the earliest timer of
 * those waiting (0: none).
 */
static struct worker *
pool_pick(struct workers *ws, time_t now, time_t *wake)
{
	struct worker	*w;
	size_t		 i, k;
	int		 asked;

	*wake = 0;
	for (k = 0; k < ws->n; k++) {
		i = (ws->next + k) % ws->n;
		w = &ws->v[i];
		if (w->busy)
			continue;
		asked = w->cmds != NULL || w->poll_now ||
		    w->log_gen != w->log_taken;
		/* Dead hosts never take the whole pool from live ones. */
		if (!asked && w->dead && ws->ndead >= pool_dead_max(ws))
			continue;
		if (asked || w->due <= now) {
			ws->next = (i + 1) % ws->n;
			return w;
		}
		if (*wake == 0 || w->due < *wake)
			*wake = w->due;
	}
	return NULL;
}

static void *
pool_main(void *arg)
{
	struct wthread	*me = arg;
	struct workers	*ws;
	struct worker	*w;
	struct wtake	 t;
	struct timespec	 until;
	struct wstate	*st;
	time_t		 now, wake, due;
	size_t		 i;
	int		 dead;

	ws = me->ws;
	pthread_mutex_lock(&ws->lock);
	while (!ws->quit) {
		now = mono_now();
		if ((w = pool_pick(ws, now, &wake)) == NULL) {
			if (wake == 0)
				pthread_cond_wait(&ws->cond, &ws->lock);
			else {
				clock_gettime(CLOCK_MONOTONIC, &until);
				until.tv_sec += wake - now;
				pthread_cond_timedwait(&ws->cond, &ws->lock,
				    &until);
			}
			continue;
		}
		memset(&t, 0, sizeof t);
		t.cmds = w->cmds;
		w->cmds = NULL;
		w->cmdtail = &w->cmds;
		t.poll_now = w->poll_now;
		w->poll_now = 0;
		if (w->log_gen != w->log_taken) {
			w->log_taken = w->log_gen;
			t.log_changed = 1;
			t.log_id = w->log_id != NULL ? xstrdup(w->log_id) :
			    NULL;
			t.log_stream = w->log_stream;
			t.log_offset = w->log_offset;
		}
		w->busy = 1;
		if ((dead = w->dead) != 0)
			ws->ndead++;
		pthread_mutex_unlock(&ws->lock);

		worker_turn(w, &t);
		free(t.log_id);
		due = wstate_due(w->st);
		dead = !conn_connected(w->st->conn) && w->st->backoff > 0;

		pthread_mutex_lock(&ws->lock);
		if (w->dead)
			ws->ndead--;
		w->dead = dead;
		w->due = due;
		w->busy = 0;
		/* A reconnect slot may be free for a waiting dead cluster. */
		pthread_cond_broadcast(&ws->cond);
	}
	/* Quitting: free the states no other thread is using. */
	for (i = 0; i < ws->n; i++) {
		w = &ws->v[i];
		if (w->busy || w->st == NULL)
			continue;
		st = w->st;
		w->st = NULL;
		pthread_mutex_unlock(&ws->lock);
		wstate_free(st);
		pthread_mutex_lock(&ws->lock);
	}
	me->exited = 1;
	pthread_cond_broadcast(&ws->exited);
	pthread_mutex_unlock(&ws->lock);
	return NULL;
}

/* --- submit ---------------------------------------------------------------- */

static void
submit_progress(void *arg, enum submit_step step, const char *text)
{
	post_action(arg, ACTION_SUBMIT, NULL, submit_step_name(step), 0, "%s",
	    text != NULL ? text : "");
}

/*
 * The same pipeline as `sqdeck submit`, in a thread of its own with its
 * own connection (one conn per thread): a submit may wait in the queue for
 * its image conversion (srun on the CPU partition) for a long time, and
 * the cluster's polls and logs must go on meanwhile.
 */
struct submit_job {
	struct worker	*w;
	struct wcmd	*c;
};

static void *
submit_main(void *arg)
{
	struct submit_job	*sj = arg;
	struct worker		*w = sj->w;
	struct workers		*ws = w->ws;
	struct wcmd		*c = sj->c;
	struct conn		*conn = NULL;
	struct submit_session	 sess;
	struct spec		 sp;
	struct submit_opts	 o;
	struct submit_result	 r;
	struct cluster		 as;
	char			*cause = NULL;

	free(sj);
	if (spec_parse(c->spec_yaml, strlen(c->spec_yaml), "wizard", &sp,
	    &cause) != 0) {
		post_action(w, ACTION_SUBMIT, NULL, "spec", 2, "%s", cause);
		free(cause);
		goto out;
	}
	/* Another login user: the same cluster, hosts and auth rules. */
	as = *w->cl;
	if (c->user != NULL)
		as.user = c->user;
	conn = conn_new_cluster(&as);
	submit_session_init(&sess, conn, &as);
	memset(&o, 0, sizeof o);
	o.dry_run = c->dry_run;
	o.progress = submit_progress;
	o.arg = w;
	if (submit_run(&sess, &sp, &o, &r, &cause) != 0) {
		post_action(w, ACTION_SUBMIT, r.slurm_id,
		    submit_step_name(r.failed_step), 2, "%s", cause);
		free(cause);
	} else if (c->dry_run)
		post_action(w, ACTION_SUBMIT, NULL, "preview", 1, "%s",
		    r.script != NULL ? r.script : "");
	else
		post_action(w, ACTION_SUBMIT, r.slurm_id, "launch", 1,
		    "submitted %s as SLURM job %s (record %s, %s)",
		    r.job_name, r.slurm_id, r.record_id, r.state);
	submit_result_free(&r);
	submit_session_free(&sess);
	spec_free(&sp);
out:
	conn_free(conn);
	pthread_mutex_lock(&ws->lock);
	if (!c->dry_run)
		w->poll_now = 1;	/* show the new job at once */
	ws->nsubmits--;
	pthread_cond_broadcast(&ws->cond);
	pthread_cond_broadcast(&ws->exited);
	pthread_mutex_unlock(&ws->lock);
	wcmd_free(c);
	return NULL;
}

static void
submit_spawn(struct worker *w, struct wcmd *c)
{
	struct workers		*ws = w->ws;
	struct submit_job	*sj;
	pthread_attr_t		 attr;
	pthread_t		 t;
	int			 err;

	pthread_mutex_lock(&ws->lock);
	if (ws->quit) {
		pthread_mutex_unlock(&ws->lock);
		wcmd_free(c);
		return;
	}
	ws->nsubmits++;
	pthread_mutex_unlock(&ws->lock);
	sj = xcalloc(1, sizeof *sj);
	sj->w = w;
	sj->c = c;
	/* Detached; workers_stop() waits for nsubmits instead of joining.
	 * It inherits this thread's mask: signals stay blocked. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, submit_main, sj);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		post_action(w, ACTION_SUBMIT, NULL, NULL, 2, "cannot start the "
		    "submit: %s", strerror(err));
		free(sj);
		wcmd_free(c);
		pthread_mutex_lock(&ws->lock);
		ws->nsubmits--;
		pthread_mutex_unlock(&ws->lock);
	}
}

/* The staged spec of a job sqdeck submitted, for a resubmit. */
static void
do_spec(struct wstate *st, struct wcmd *c)
{
	struct worker	*w = st->w;
	struct record	*rec = NULL;
	struct ops_log	 log;
	char		*cause = NULL, *path = NULL;
	long		 sid;

	memset(&log, 0, sizeof log);
	if (ops_find(c->job_id, w->cl->name, &rec, &sid, &cause) != 0) {
		if (cause == NULL)
			cause = xasprintf("job %s was not submitted by "
			    "sqdeck: there is no spec to edit", c->job_id);
		goto fail;
	}
	if (rec->spec_path != NULL)
		path = xstrdup(rec->spec_path);
	else if (rec->job_dir != NULL)
		path = jobdir_path(rec->job_dir, JOBDIR_SPEC, NULL);
	else {
		cause = xasprintf("record %s has no job dir: nothing was "
		    "staged", rec->id);
		goto fail;
	}
	/* Any file by offset: the log reader reads the spec too. */
	if (ops_log_read(st->conn, path, 0, 1024 * 1024, &log, &cause) != 0)
		goto fail;
	if (log.missing) {
		cause = xasprintf("%s is gone from the cluster", path);
		goto fail;
	}
	/*
	 * The staged spec is the job's to rewrite: which local variables a
	 * resubmit reads as secrets comes from the local record.
	 */
	if (rec->retry_known) {
		struct spec	sp;
		struct buf	yb;
		size_t		i;

		if (spec_parse(log.data, log.len, path, &sp, NULL) == 0) {
			strv_free(&sp.secrets);
			for (i = 0; i < rec->secrets.n; i++)
				strv_add(&sp.secrets, rec->secrets.v[i]);
			buf_init(&yb);
			if (spec_write(&sp, &yb, NULL) == 0) {
				post_action(w, ACTION_OTHER, c->job_id, "spec",
				    1, "%s", yb.data);
				buf_free(&yb);
				spec_free(&sp);
				goto out;
			}
			buf_free(&yb);
			spec_free(&sp);
		}
	}
	post_action(w, ACTION_OTHER, c->job_id, "spec", 1, "%s", log.data);
	goto out;
fail:
	post_action(w, ACTION_OTHER, c->job_id, "spec", 2, "%s", cause);
out:
	check_new_session(st);
	free(cause);
	free(path);
	ops_log_free(&log);
	record_free(rec);
}

/* --- the UI thread's side --------------------------------------------------- */

static void
workers_free(struct workers *ws)
{
	struct wcmd	*c;
	size_t		 i;

	for (i = 0; i < ws->n; i++) {
		while ((c = ws->v[i].cmds) != NULL) {
			ws->v[i].cmds = c->next;
			wcmd_free(c);
		}
		free(ws->v[i].log_id);
		wstate_free(ws->v[i].st);	/* no thread ever took it */
	}
	free(ws->v);
	free(ws->t);
	pthread_mutex_destroy(&ws->lock);
	pthread_cond_destroy(&ws->cond);
	pthread_cond_destroy(&ws->exited);
	free(ws);
}

size_t
workers_pool_size(size_t nclusters)
{
	return nclusters < WORKER_POOL_MAX ? nclusters : WORKER_POOL_MAX;
}

struct workers *
workers_start(const struct config *cfg, struct msgq *q, char **cause)
{
	struct workers		*ws;
	pthread_condattr_t	 ca;
	sigset_t		 all, old;
	size_t			 i;
	int			 err;
	static const int	 crash[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT
	};

	ws = xcalloc(1, sizeof *ws);
	ws->q = q;
	pthread_mutex_init(&ws->lock, NULL);
	/* Timers are monotonic: a clock change must not stall polling. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ws->cond, &ca);
	pthread_cond_init(&ws->exited, &ca);
	pthread_condattr_destroy(&ca);
	ws->n = cfg != NULL ? cfg->nclusters : 0;
	ws->v = xcalloc(ws->n + 1, sizeof *ws->v);
	for (i = 0; i < ws->n; i++) {
		struct worker	*w = &ws->v[i];

		w->ws = ws;
		w->cl = &cfg->clusters[i];
		w->cmdtail = &w->cmds;
		w->due = 0;	/* a first turn at once */
	}
	/* The threads do not follow the clusters: a bounded pool. */
	ws->nt = workers_pool_size(ws->n);
	ws->t = xcalloc(ws->nt + 1, sizeof *ws->t);

	/* Blocked in the workers: SIGWINCH and SIGTERM go to the UI thread.
	 * Crash signals stay open so the terminal is restored anyway. */
	sigfillset(&all);
	for (i = 0; i < sizeof crash / sizeof crash[0]; i++)
		sigdelset(&all, crash[i]);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < ws->nt; i++) {
		ws->t[i].ws = ws;
		if ((err = pthread_create(&ws->t[i].thread, NULL, pool_main,
		    &ws->t[i])) != 0) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			cause_set(cause, "cannot start worker thread %zu of "
			    "%zu: %s", i + 1, ws->nt, strerror(err));
			workers_stop(ws, 2000);
			return NULL;
		}
		ws->t[i].started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ws;
}

int
workers_stop(struct workers *ws, int timeout_ms)
{
	struct timespec	until;
	size_t		i;
	int		left = 0, rc;

	if (ws == NULL)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&ws->lock);
	ws->quit = 1;
	pthread_cond_broadcast(&ws->cond);
	for (;;) {
		left = ws->nsubmits;
		for (i = 0; i < ws->nt; i++) {
			if (ws->t[i].started && !ws->t[i].exited)
				left++;
		}
		if (left == 0)
			break;
		rc = pthread_cond_timedwait(&ws->exited, &ws->lock, &until);
		if (rc == ETIMEDOUT)
			break;
	}
	left = ws->nsubmits;	/* a submit stuck in a conn call */
	pthread_mutex_unlock(&ws->lock);
	for (i = 0; i < ws->nt; i++) {
		struct wthread	*t = &ws->t[i];

		if (!t->started)
			continue;
		pthread_mutex_lock(&ws->lock);
		if (t->exited) {
			pthread_mutex_unlock(&ws->lock);
			pthread_join(t->thread, NULL);
		} else {
			/* Stuck in a conn call: it exits when that returns. */
			pthread_mutex_unlock(&ws->lock);
			pthread_detach(t->thread);
			left++;
		}
	}
	if (left > 0) {
		workers_abandoned = ws;
		return left;
	}
	workers_free(ws);
	return 0;
}

static struct worker *
worker_find(struct workers *ws, const char *cluster)
{
	size_t	i;

	for (i = 0; i < ws->n; i++) {
		if (strcmp(ws->v[i].cl->name, cluster) == 0)
			return &ws->v[i];
	}
	return NULL;
}

void
workers_poll_now(struct workers *ws, const char *cluster)
{
	size_t	i;

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < ws->n; i++) {
		if (cluster == NULL || strcmp(ws->v[i].cl->name, cluster) == 0)
			ws->v[i].poll_now = 1;
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

void
workers_watch_log(struct workers *ws, const char *cluster, const char *job_id,
    enum log_stream stream, uint64_t offset)
{
	size_t	i;

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < ws->n; i++) {
		struct worker	*w = &ws->v[i];
		int		 mine = cluster != NULL && job_id != NULL &&
				     strcmp(w->cl->name, cluster) == 0;

		if (!mine && w->log_id == NULL)
			continue;
		free(w->log_id);
		w->log_id = mine ? xstrdup(job_id) : NULL;
		w->log_stream = stream;
		w->log_offset = offset;
		w->log_gen++;
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

static void
queue_cmd(struct worker *w, struct wcmd *c)
{
	*w->cmdtail = c;
	w->cmdtail = &c->next;
}

/* Queue a command for a worker and wake the workers. */
static void
post_cmd(struct workers *ws, struct worker *w, struct wcmd *c)
{
	pthread_mutex_lock(&ws->lock);
	queue_cmd(w, c);
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

int
workers_cancel(struct workers *ws, const struct jobtable_key *keys, size_t n,
    char **cause)
{
	struct wcmd	*c;
	size_t		 i;

	/* All or nothing: check every cluster before queueing any. */
	for (i = 0; i < n; i++) {
		if (worker_find(ws, keys[i].cluster) == NULL)
			return cause_set(cause, "cluster %s is not in the "
			    "configuration: its job %s cannot be cancelled "
			    "from here", keys[i].cluster, keys[i].id);
	}
	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < n; i++) {
		c = xcalloc(1, sizeof *c);
		c->type = WCMD_CANCEL;
		c->job_id = xstrdup(keys[i].id);
		c->name = keys[i].name != NULL ? xstrdup(keys[i].name) : NULL;
		queue_cmd(worker_find(ws, keys[i].cluster), c);
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

int
workers_submit(struct workers *ws, const char *cluster, const struct spec *sp,
    int dry_run, char **cause)
{
	return workers_submit_as(ws, cluster, NULL, sp, dry_run, cause);
}

int
workers_submit_as(struct workers *ws, const char *cluster, const char *user,
    const struct spec *sp, int dry_run, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;
	struct buf	 b;

	if ((w = worker_find(ws, cluster)) == NULL)
		return cause_set(cause, "cluster %s is not in the "
		    "configuration", cluster);
	/* A deep copy the worker owns: the spec as YAML, parsed back there. */
	buf_init(&b);
	if (spec_write(sp, &b, cause) != 0) {
		buf_free(&b);
		return -1;
	}
	c = xcalloc(1, sizeof *c);
	c->type = WCMD_SUBMIT;
	c->spec_yaml = buf_steal(&b);
	c->user = user != NULL ? xstrdup(user) : NULL;
	c->dry_run = dry_run;
	post_cmd(ws, w, c);
	return 0;
}

/* A command for cluster's worker; NULL and a cause if it has none. */
static struct wcmd *
cmd_new(struct workers *ws, const char *cluster, enum wcmd_type type,
    const char *job_id, struct worker **wp, char **cause)
{
	struct wcmd	*c;

	if ((*wp = worker_find(ws, cluster)) == NULL) {
		cause_set(cause, "cluster %s is not in the configuration",
		    cluster);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->type = type;
	c->job_id = job_id != NULL ? xstrdup(job_id) : NULL;
	return c;
}

int
workers_fetch_spec(struct workers *ws, const char *cluster, const char *job_id,
    char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if ((c = cmd_new(ws, cluster, WCMD_SPEC, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_start_estimate(struct workers *ws, const char *cluster,
    const char *job_id, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if (worker_find(ws, cluster) != NULL && !all_digits(job_id))
		return cause_set(cause, "job %s: squeue --start takes a plain "
		    "job id", job_id);
	if ((c = cmd_new(ws, cluster, WCMD_START, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_hold(struct workers *ws, const char *cluster, const char *job_id,
    int release, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;
	const char	*p;

	if ((w = worker_find(ws, cluster)) == NULL)
		return cause_set(cause, "cluster %s is not in the "
		    "configuration", cluster);
	/* "123" or an array task "123_4". */
	for (p = job_id; (*p >= '0' && *p <= '9') || *p == '_'; p++)
		;
	if (*p != '\0' || *job_id < '0' || *job_id > '9')
		return cause_set(cause, "job %s: scontrol %s takes a job id",
		    job_id, release ? "release" : "hold");
	c = xcalloc(1, sizeof *c);
	c->type = WCMD_HOLD;
	c->job_id = xstrdup(job_id);
	c->release = release;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_efficiency(struct workers *ws, const char *cluster,
    const char *job_id, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if (worker_find(ws, cluster) != NULL && !all_digits(job_id))
		return cause_set(cause, "job %s: efficiency takes a plain job "
		    "id", job_id);
	if ((c = cmd_new(ws, cluster, WCMD_EFF, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_soonest(struct workers *ws, const char *cluster, const struct spec *sp,
    char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if ((c = cmd_new(ws, cluster, WCMD_SOONEST, NULL, &w, cause)) == NULL)
		return -1;
	c->res[0] = sp->nodes;
	c->res[1] = sp->gpus;
	c->res[2] = sp->gpus_per_node;
	c->res[3] = sp->cpus;
	c->res[4] = sp->time_minutes;
	post_cmd(ws, w, c);
	return 0;
}
