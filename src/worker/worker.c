#include "worker.h"

#include <sys/resource.h>

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
#include "str.h"
#include "jobdir.h"
#include "joblog.h"
#include "monitor.h"
#include "ops.h"
#include "pending.h"
#include "plan.h"
#include "react.h"
#include "record.h"
#include "slurm.h"
#include "soonest.h"
#include "state.h"
#include "submit.h"
#include "text.h"
#include "worker-int.h"

static void do_spec(struct wstate *, struct wcmd *);

/* Static so that stuck, detached workers keep their memory reachable. */
static struct workers	*workers_abandoned;

time_t
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

/* Doubling from two intervals, at least WORKER_RATE_BACKOFF when throttled. */
static int
backoff_capped(int current, int interval, int rate_limited, int cap)
{
	int	next;

	if (interval < 1)
		interval = 1;
	next = current > 0 ? current * 2 : interval * 2;
	if (rate_limited && next < WORKER_RATE_BACKOFF)
		next = WORKER_RATE_BACKOFF;
	return next > cap ? cap : next;
}

int
worker_backoff(int current, int interval, int rate_limited)
{
	return backoff_capped(current, interval, rate_limited,
	    WORKER_BACKOFF_MAX);
}

int
worker_unreach_backoff(int current, int interval, int rate_limited)
{
	return backoff_capped(current, interval, rate_limited,
	    WORKER_UNREACH_MAX);
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

void
wcmd_free(struct wcmd *c)
{
	free(c->job_id);
	free(c->name);
	free(c->spec_yaml);
	free(c->user);
	free(c->record_id);
	free(c->value);
	strv_free(&c->ids);
	free(c);
}

/* Post unless the UI is gone (then the queue may be freed soon). */
void
post(struct worker *w, struct msg *m)
{
	workers_post(w->ws, m);
}

/* Queue m for the screen, unless the workers are stopping. */
void
workers_post(struct workers *ws, struct msg *m)
{
	pthread_mutex_lock(&ws->lock);
	if (ws->quit)
		msg_free(m);
	else
		msgq_post(ws->q, m);
	pthread_mutex_unlock(&ws->lock);
}

/*
 * Calls spent outside a poll (an action, an estimate, a lookup): the
 * clusters pane's meter and the detail's uses follow them at once, not at
 * the next poll, and nothing else of the cluster's state is said again.
 */
static void
post_budget(struct wstate *st)
{
	struct msg	*m;
	time_t		 now = mono_now();

	if (st->budget.total == st->budget_said)
		return;
	m = msg_new(MSG_CLUSTER);
	m->u.cluster.cluster = xstrdup(st->w->cl->name);
	m->u.cluster.budget_only = 1;
	m->u.cluster.calls = budget_used(&st->budget, now);
	m->u.cluster.max_calls = (unsigned)st->budget.max_calls;
	m->u.cluster.uses = budget_uses_text(&st->budget, now);
	if (conn_connected(st->conn) || st->last_ok != 0)
		m->u.cluster.next_poll = time(NULL) + (st->next_poll > now ?
		    st->next_poll - now : 0);
	st->budget_said = st->budget.total;
	post(st->w, m);
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
	m->u.cluster.uses = budget_uses_text(&st->budget, now);
	st->budget_said = st->budget.total;
	if (conn_connected(st->conn) || st->last_ok != 0)
		m->u.cluster.next_poll = time(NULL) + (st->next_poll > now ?
		    st->next_poll - now : 0);
	m->u.cluster.backoff = st->backoff;
	if (st->backoff > 0 && st->budget.fault != BUDGET_FAULT_NONE)
		m->u.cluster.fault = xstrdup(budget_fault_text(
		    st->budget.fault));
	post(st->w, m);
}

void __attribute__((format(printf, 6, 7)))
post_action(struct worker *w, enum action_kind kind, const char *job_id,
    const char *step, enum action_state as, const char *fmt, ...)
{
	struct msg	*m = msg_new(MSG_ACTION);
	va_list		 ap;

	m->u.action.kind = kind;
	m->u.action.cluster = xstrdup(w->cl->name);
	m->u.action.job_id = job_id != NULL ? xstrdup(job_id) : NULL;
	m->u.action.step = step != NULL ? xstrdup(step) : NULL;
	m->u.action.done = as != ACTION_PROGRESS;
	m->u.action.failed = as == ACTION_FAILED;
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
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_CLUSTER);
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
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_CLUSTER);
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
void
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
		if (st->hist != NULL)
			jobtable_row_clear(&st->hist[i]);
		free(st->hist_id[i]);
		free(st->hist_log[i]);
	}
	free(st->hist);
	free(st->hist_id);
	free(st->hist_log);
	st->hist = NULL;
	st->hist_id = NULL;
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
	uint64_t		 d;

	memset(&res, 0, sizeof res);
	memset(&h, 0, sizeof h);
	st->next_history = mono_now() + WORKER_HISTORY_SECONDS;
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = history_cmd(w->cl->user, st->history_days, time(NULL),
	    sep, &cause)) == NULL)
		goto out;
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_HISTORY);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0 ||
	    res.status != 0) {
		fault = sched_fault(&res, cause);
		goto out;	/* the old rows stay; the poll says the health */
	}
	/*
	 * The same history as a minute ago: no parse, nothing sent (every
	 * cluster parsed its week of ended jobs each minute).
	 */
	d = slurm_digest(SLURM_DIGEST_INIT, res.out, res.outlen, "", sep);
	if (d == st->hist_digest && st->nhist_parsed)
		goto out;
	st->hist_digest = d;
	st->nhist_parsed = 1;
	(void)history_parse(res.out, sep, &h, &cause);	/* good rows kept */
	hist_clear(st);
	st->hist = xcalloc(h.n + 1, sizeof *st->hist);
	st->hist_id = xcalloc(h.n + 1, sizeof *st->hist_id);
	st->hist_log = xcalloc(h.n + 1, sizeof *st->hist_log);
	for (i = 0; i < h.n; i++) {
		const struct history_job	*j = &h.v[i];
		struct jobtable_row		*r = &st->hist[i];

		r->cluster = xstrdup(w->cl->name);
		r->id = xstrdup(j->id);
		st->hist_id[i] = xstrdup(j->id);
		r->name = xstrdup(j->name);
		r->partition = xstrdup(j->partition);
		r->state = xstrdup(slurm_state_base(j->state, base,
		    sizeof base));
		r->elapsed = jobtable_secs(j->elapsed);
		r->limit = jobtable_secs(j->limit);
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

	if (st->nhist == 0 || st->hist == NULL)
		return;
	ids = xcalloc(n + 1, sizeof *ids);
	for (i = 0; i < n; i++)
		ids[i] = jobs->rows[i].id;
	qsort(ids, n, sizeof *ids, id_cmp);
	jobs->rows = xrealloc(jobs->rows, (n + st->nhist + 1) *
	    sizeof *jobs->rows);
	/*
	 * The rows move into the message: the worker keeps only each
	 * row's id and log (hist_id, hist_log: for the log of a job SLURM
	 * forgot), not a second copy of a week of history per cluster.
	 */
	for (i = 0; i < st->nhist; i++) {
		struct jobtable_row	*h = &st->hist[i];

		if (n > 0 && bsearch(&h->id, ids, n, sizeof *ids,
		    id_cmp) != NULL)
			jobtable_row_clear(h);
		else
			jobs->rows[jobs->nrows++] = *h;
	}
	free(ids);
	free(st->hist);
	st->hist = NULL;
}

/*
 * Jobs squeue has let go of since the last poll join lost_ids; the live
 * ones of this poll are remembered for the next.  1 when some job is lost:
 * sacct should be asked now for how it ended.
 */
static int
lost_update(struct wstate *st, const struct monitor_snapshot *snap)
{
	char	**ids;
	size_t	  i;

	ids = xcalloc(snap->n + 1, sizeof *ids);
	for (i = 0; i < snap->n; i++)
		ids[i] = snap->rows[i].id != NULL ? snap->rows[i].id : "";
	qsort(ids, snap->n, sizeof *ids, id_cmp);
	for (i = 0; i < st->live_ids.n; i++) {
		if ((snap->n == 0 || bsearch(&st->live_ids.v[i], ids, snap->n,
		    sizeof *ids, id_cmp) == NULL) &&
		    !strv_has(&st->lost_ids, st->live_ids.v[i])) {
			strv_add(&st->lost_ids, st->live_ids.v[i]);
			st->lost_tries = 0;
		}
	}
	free(ids);
	strv_free(&st->live_ids);
	for (i = 0; i < snap->n; i++) {
		if (!snap->rows[i].finished && snap->rows[i].id != NULL)
			strv_add(&st->live_ids, snap->rows[i].id);
	}
	return st->lost_ids.n > 0;
}

/*
 * After sacct: a lost job it gave an end for is found; the others are
 * asked for again at the next polls, a few times (slurmdbd may lag).
 */
static void
lost_found(struct wstate *st)
{
	struct strv	keep;
	size_t		i, k;

	memset(&keep, 0, sizeof keep);
	for (i = 0; i < st->lost_ids.n; i++) {
		for (k = 0; k < st->nhist && strcmp(st->hist_id[k],
		    st->lost_ids.v[i]) != 0; k++)
			;
		if (k == st->nhist)
			strv_add(&keep, st->lost_ids.v[i]);
	}
	strv_free(&st->lost_ids);
	st->lost_ids = keep;
	if (++st->lost_tries >= WORKER_LOST_TRIES)
		strv_free(&st->lost_ids);
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
	int			 found, fin, rc, lost;

	memset(&opts, 0, sizeof opts);
	opts.user = w->cl->user;
	opts.source = "poll:tui";
	/* Kept across polls, one for all clusters (worker-records.c). */
	opts.index = records_index(w->ws);
	opts.digest = &st->poll_digest;
	/*
	 * sacct's answers go with this poll's rows (a lost job's end, the
	 * minute's history): those polls are parsed whole, as before.
	 */
	if (st->lost_ids.n > 0 || mono_now() >= st->next_history)
		st->poll_digest = 0;
	budget_polled(&st->budget, mono_now());
	rc = monitor_poll(st->conn, w->cl->name, &opts, &snap, &cause);
	if (rc == 0)
		react_after_poll(st->conn, &snap);	/* retries, NCCL */
	budget_spend(&st->budget, mono_now(), snap.sched_calls,
	    BUDGET_USE_POLL);
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

	if (st->log_id != NULL && !snap.unchanged) {
		fin = row_finished(&snap, st->log_id, &found);
		if (found && fin)
			st->log_ended = 1;
	}
	for (i = 0; i < snap.events.n; i++)
		post_action(w, ACTION_REFRESH, NULL, NULL, ACTION_DONE, "%s",
		    snap.events.v[i]);

	/*
	 * A job squeue let go of (an array task sqdeck keeps no record of)
	 * gets its final state from sacct now, not ENDED until the tick.
	 * An unchanged answer has no rows: nothing left since the last.
	 */
	lost = !snap.unchanged && lost_update(st, &snap) &&
	    w->cl->history != 0;
	if (lost && mono_now() < st->next_history &&
	    budget_used(&st->budget, mono_now()) + 1 <=
	    (unsigned)st->budget.max_calls) {
		fault = do_history(st);
		if (fault == NULL)
			lost_found(st);
	}
	/* The slow tick: history, within the budget. */
	else if (mono_now() >= st->next_history &&
	    budget_used(&st->budget, mono_now()) + 2 <=
	    (unsigned)st->budget.max_calls) {
		if (w->cl->history != 0)
			fault = do_history(st);
		else
			st->next_history = mono_now() + WORKER_HISTORY_SECONDS;
		if (fault == NULL && lost)
			lost_found(st);
		if (fault == NULL)
			fault = fetch_gres(st);
	}

	if (snap.unchanged) {
		/*
		 * The screen has these rows: only the cluster's age moves.
		 * History rows (a budget that waited) go with the next
		 * poll's, parsed whole.
		 */
		if (st->hist_new)
			st->poll_digest = 0;
		if (fault != NULL) {
			poll_failed(st, fault);
			free(fault);
		} else
			post_cluster(st, CLUSTER_OK, NULL);
		monitor_snapshot_free(&snap);
		return;
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
		/* A host that never answered in this run waits longer. */
		st->backoff = st->last_ok != 0 ?
		    worker_backoff(st->backoff, st->interval,
		    worker_rate_limited(cause)) :
		    worker_unreach_backoff(st->backoff, st->interval,
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

/* What answers a request (its failure, when the cluster is down). */
static const enum action_kind wcmd_action[] = {
	[WCMD_CANCEL] = ACTION_CANCEL,
	[WCMD_SUBMIT] = ACTION_SUBMIT,
	[WCMD_SPEC] = ACTION_SPEC,
	[WCMD_START] = ACTION_START,
	[WCMD_EFF] = ACTION_EFFICIENCY,
	[WCMD_HOLD] = ACTION_HOLD,
	[WCMD_SOONEST] = ACTION_SOONEST,
	[WCMD_GPU] = ACTION_GPU,
};

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
	st->interval = config_poll_interval(w->cl);
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
	strv_free(&st->live_ids);
	strv_free(&st->lost_ids);
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
	/* The wizard's estimate that waits for its turn: at its turn. */
	if (st->soonest_wait && conn_connected(st->conn) &&
	    st->soonest_next < wake)
		wake = st->soonest_next;
	/*
	 * A lookup waits for the selection to rest, then for the budget
	 * (the poll's turn, whose wait leaves it room: worker_turn).
	 */
	if (st->log_lookup && st->log_id != NULL && conn_connected(st->conn) &&
	    mono_now() < st->log_asked + LOG_LOOKUP_SETTLE &&
	    st->log_asked + LOG_LOOKUP_SETTLE < wake)
		wake = st->log_asked + LOG_LOOKUP_SETTLE;
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
	struct wcmd	*cmds = t->cmds, *c, **cp, *last;
	time_t		 now, wake;
	unsigned	 cost;

	if (w->st == NULL)
		w->st = wstate_new(w);
	st = w->st;
	if (t->log_changed)
		log_take(st, t->log_id, t->log_stream, t->log_offset);
	if (t->poll_now) {
		st->next_poll = 0;
		st->next_connect = 0;
	}

	/*
	 * A wizard that closed forgets its estimate, the one waiting for its
	 * turn and any asked before in this batch, connected or not: it would
	 * spend the budget on an answer no one sees.
	 */
	for (c = cmds, last = NULL; c != NULL; c = c->next) {
		if (c->type == WCMD_SOONEST && c->res[0] < 0)
			last = c;
	}
	for (cp = &cmds; last != NULL && (c = *cp) != NULL; /* below */) {
		if (c->type != WCMD_SOONEST) {
			cp = &c->next;
			continue;
		}
		*cp = c->next;
		st->soonest_wait = 0;
		if (c == last)
			last = NULL;
		wcmd_free(c);
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
			size_t	i = 0;

			cmds = c->next;
			/* A hold answers for each of its jobs. */
			do {
				post_action(w, wcmd_action[c->type],
				    c->ids.n > 0 ? c->ids.v[i] : c->job_id,
				    NULL, ACTION_FAILED, "%s is not connected: "
				    "try again when its state is ok",
				    w->cl->name);
			} while (++i < c->ids.n);
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
		else if (c->type == WCMD_GPU)
			do_gpu(st, c);
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
		/*
		 * Within the budget, or wait for it (budget.h); with room
		 * for a log lookup that waits within its share, which goes
		 * first at the next turn.
		 */
		cost = 1;
		if (st->log_lookup && st->log_id != NULL &&
		    budget_side_room(&st->budget, now, LOG_LOOKUP_CALLS,
		    log_lookup_reserve(st)))
			cost += LOG_LOOKUP_CALLS;
		wake = budget_when(&st->budget, now, cost);
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
	if (!ws->quit)
		post_budget(st);
}

/*
 * How many pool threads may be connecting at once: half of the pool once
 * a cluster is connected (its polls need a thread), else all of it.
 */
static size_t
pool_dead_max(const struct workers *ws)
{
	if (ws->nlinked == 0)
		return ws->nt;
	return ws->nt > 1 ? ws->nt / 2 : 1;
}

/*
 * Under the lock: the next cluster that needs a turn, or NULL with *wake
 * set to the earliest timer of those waiting (0: none).  Round-robin so
 * that none starves, in two rounds: first one that was asked something
 * or is connected and due, then one that must connect, while connecting
 * clusters hold fewer than pool_dead_max() threads.
 */
static struct worker *
pool_pick(struct workers *ws, time_t now, time_t *wake)
{
	struct worker	*w;
	size_t		 i, k;
	int		 asked, round;

	*wake = 0;
	for (round = 0; round < 2; round++) {
		for (k = 0; k < ws->n; k++) {
			i = (ws->next + k) % ws->n;
			w = &ws->v[i];
			if (w->busy)
				continue;
			asked = w->cmds != NULL || w->poll_now ||
			    w->log_gen != w->log_taken || w->probe_ok;
			if (round == 0 && !asked && !w->linked)
				continue;
			if (round == 1 && (asked || w->linked))
				continue;
			/* Dead hosts never take the pool from live ones. */
			if (round == 1 && ws->ndead >= pool_dead_max(ws))
				break;
			/* Never answered: the next probe takes it. */
			if (round == 1 && !w->answered && ws->probing) {
				if (w->due > now && (*wake == 0 ||
				    w->due < *wake))
					*wake = w->due;
				continue;
			}
			if (asked || w->due <= now) {
				ws->next = (i + 1) % ws->n;
				return w;
			}
			if (*wake == 0 || w->due < *wake)
				*wake = w->due;
		}
	}
	return NULL;
}

/*
 * Clusters that never answered in this run are first probed, many at once
 * (conn_probe: a socket each, no holder, no login), by one pool thread at
 * a time: 2,000 hosts that never answer were 2,000 connects of
 * connect_timeout each on a few threads, and a live cluster listed after
 * them waited for the whole pass (25 min at 3 s).  A cluster whose host
 * said SSH's hello is handed back at once to connect the usual way; the
 * others back off as a failed connect does.
 */
#define WORKER_PROBE_MAX	512	/* clusters per probe */

struct pool_probe {
	struct workers	*ws;
	struct worker	**v;
};

/* A cluster's host answered: connect it now (the probe lets go of it). */
static void
pool_probe_found(void *arg, size_t i)
{
	struct pool_probe	*pp = arg;
	struct worker		*w = pp->v[i];

	pthread_mutex_lock(&pp->ws->lock);
	w->probe_ok = 1;
	w->due = 0;
	w->busy = 0;
	pp->v[i] = NULL;
	pthread_cond_broadcast(&pp->ws->cond);
	pthread_mutex_unlock(&pp->ws->lock);
}

/* How many clusters one probe may take: each is a socket or a few. */
static size_t
pool_probe_max(void)
{
	struct rlimit	rl;
	size_t		max = WORKER_PROBE_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rl.rlim_cur - 64) / 4 < max)
		max = rl.rlim_cur > 128 ? (rl.rlim_cur - 64) / 4 : 16;
	return max;
}

/*
 * Under the lock, w picked: whether it should be probed, and if so take
 * every other cluster due for one with it.  Returns the clusters taken
 * (busy, with the lock dropped and taken again), or 0 if w is not one.
 */
static size_t
pool_probe(struct workers *ws, struct worker *w, time_t now)
{
	struct pool_probe	 pp;
	struct worker		*o;
	struct conn		**cv;
	struct wstate		*st;
	char			**why;
	int			*ok;
	size_t			 i, n = 0, max, k;
	int			 asked;

	if (w->answered || w->linked || w->probe_ok || ws->probing ||
	    w->cmds != NULL || w->poll_now || w->log_gen != w->log_taken)
		return 0;
	max = pool_probe_max();
	pp.ws = ws;
	pp.v = xcalloc(max + 1, sizeof *pp.v);
	pp.v[n++] = w;
	for (k = 0; k < ws->n && n < max; k++) {
		o = &ws->v[(ws->next + k) % ws->n];
		asked = o->cmds != NULL || o->poll_now ||
		    o->log_gen != o->log_taken;
		if (o == w || o->busy || o->answered || o->linked ||
		    o->probe_ok || asked || o->due > now)
			continue;
		pp.v[n++] = o;
	}
	for (i = 0; i < n; i++)
		pp.v[i]->busy = 1;
	ws->probing = 1;
	ws->ndead++;
	pthread_mutex_unlock(&ws->lock);

	cv = xcalloc(n + 1, sizeof *cv);
	ok = xcalloc(n + 1, sizeof *ok);
	why = xcalloc(n + 1, sizeof *why);
	for (i = 0; i < n; i++) {
		if (pp.v[i]->st == NULL)
			pp.v[i]->st = wstate_new(pp.v[i]);
		cv[i] = pp.v[i]->st->conn;
	}
	conn_probe(cv, n, ok, why, pool_probe_found, &pp);
	/* No hello: a failed connect (worker_turn's ensure_connected). */
	for (i = 0; i < n; i++) {
		if (ok[i] || pp.v[i] == NULL)
			continue;
		st = pp.v[i]->st;
		st->backoff = worker_unreach_backoff(st->backoff,
		    st->interval, 0);
		st->next_connect = mono_now() + st->backoff;
		post_cluster(st, CLUSTER_ERROR, why[i]);
	}

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < n; i++) {
		free(why[i]);
		if ((o = pp.v[i]) == NULL)
			continue;
		o->due = wstate_due(o->st);
		o->busy = 0;
	}
	ws->probing = 0;
	ws->ndead--;
	pthread_cond_broadcast(&ws->cond);
	free(why);
	free(ok);
	free(cv);
	free(pp.v);
	return n;
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
	int		 linked;

	ws = me->ws;
	pthread_mutex_lock(&ws->lock);
	while (!ws->quit) {
		if (ws->adopting) {
			/* The records thread first adopts (ops_adopt). */
			pthread_cond_wait(&ws->cond, &ws->lock);
			continue;
		}
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
		if (pool_probe(ws, w, now) != 0)
			continue;
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
		/* Connecting (or about to): holds a reconnect slot. */
		if ((w->dead = !w->linked) != 0)
			ws->ndead++;
		pthread_mutex_unlock(&ws->lock);

		worker_turn(w, &t);
		free(t.log_id);
		due = wstate_due(w->st);
		linked = conn_connected(w->st->conn);

		pthread_mutex_lock(&ws->lock);
		if (w->dead)
			ws->ndead--;
		w->dead = 0;
		if (linked != w->linked) {
			if (linked)
				ws->nlinked++;
			else
				ws->nlinked--;
			w->linked = linked;
		}
		/* Once connected, back-offs and the pool take it as before. */
		w->answered |= linked;
		w->probe_ok = 0;
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

/* The staged spec of a job sqdeck submitted, for a resubmit. */
static void
do_spec(struct wstate *st, struct wcmd *c)
{
	struct worker	*w = st->w;
	struct record	*rec = NULL;
	struct ops_log	 log;
	struct buf	 yb;
	char		*cause = NULL, *path = NULL;
	long		 sid;

	memset(&log, 0, sizeof log);
	if (ops_find_in(records_index(w->ws), c->job_id, w->cl->name,
	    &rec, &sid, &cause) != 0 ||
	    (rec->cluster != NULL && strcmp(rec->cluster, w->cl->name) != 0)) {
		/* Another cluster's record of this number: another job. */
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
	 * resubmit reads as secrets comes from the local record only (none
	 * for a record from before it kept them), and a file that does not
	 * parse, or holds a NUL, is refused rather than shown as text.
	 */
	buf_init(&yb);
	if (spec_resubmit_text(log.data, log.len, path, rec->retry_known ?
	    &rec->secrets : NULL, &yb, &cause) != 0) {
		buf_free(&yb);
		goto fail;
	}
	post_action(w, ACTION_SPEC, c->job_id, NULL, ACTION_DONE, "%s",
	    yb.data);
	buf_free(&yb);
	goto out;
fail:
	post_action(w, ACTION_SPEC, c->job_id, NULL,
	    ACTION_FAILED, "%s", cause);
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
	struct rreq	*r;
	size_t		 i;

	for (i = 0; i < ws->n; i++) {
		while ((c = ws->v[i].cmds) != NULL) {
			ws->v[i].cmds = c->next;
			wcmd_free(c);
		}
		free(ws->v[i].log_id);
		wstate_free(ws->v[i].st);	/* no thread ever took it */
	}
	while ((r = ws->rreqs) != NULL) {
		ws->rreqs = r->next;
		rreq_free(r);
	}
	free(ws->v);
	free(ws->t);
	records_index_free(ws);
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
	return workers_start_flags(cfg, q, 0, cause);
}

struct workers *
workers_start_flags(const struct config *cfg, struct msgq *q, int flags,
    char **cause)
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
	ws->cfg = cfg;
	ws->rtail = &ws->rreqs;
	ws->adopting = (flags & WORKERS_ADOPT) != 0;

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
	if (flags & (WORKERS_RECORDS | WORKERS_ADOPT)) {
		if ((err = pthread_create(&ws->rthread, NULL, records_main,
		    ws)) != 0) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			cause_set(cause, "cannot start the records thread: %s",
			    strerror(err));
			pthread_mutex_lock(&ws->lock);
			ws->adopting = 0;
			pthread_mutex_unlock(&ws->lock);
			workers_stop(ws, 2000);
			return NULL;
		}
		ws->rstarted = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ws;
}

/* Join a thread that exited (0), else detach it (1). */
static int
thread_end(struct workers *ws, pthread_t thread, const int *exited)
{
	int	done;

	pthread_mutex_lock(&ws->lock);
	done = *exited;
	pthread_mutex_unlock(&ws->lock);
	if (done) {
		pthread_join(thread, NULL);
		return 0;
	}
	/* Stuck in a conn call: it exits when that returns. */
	pthread_detach(thread);
	return 1;
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
		left = ws->nsubmits + (ws->rstarted && !ws->rexited);
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

		if (t->started)
			left += thread_end(ws, t->thread, &t->exited);
	}
	/* The records thread may be reading a file of a hung filesystem. */
	if (ws->rstarted)
		left += thread_end(ws, ws->rthread, &ws->rexited);
	if (left > 0) {
		workers_abandoned = ws;
		return left;
	}
	workers_free(ws);
	return 0;
}
