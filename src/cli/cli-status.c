#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "cli.h"
#include "conn.h"
#include "budget.h"
#include "eff.h"
#include "monitor.h"
#include "ops.h"
#include "react.h"
#include "record.h"
#include "submit.h"

static volatile sig_atomic_t status_stop;

static void
status_sigint(int sig)
{
	(void)sig;
	status_stop = 1;
}

/* Sleep up to secs; a SIGINT cuts it short. */
static void
status_sleep(int secs)
{
	struct timespec	ts = { secs, 0 };

	while (!status_stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The snapshot row of a record, or NULL. */
static const struct jobtable_row *
row_of(const struct monitor_snapshot *snap, const char *id)
{
	size_t	i;

	for (i = 0; i < snap->n; i++) {
		if (snap->info[i].record_id != NULL &&
		    strcmp(snap->info[i].record_id, id) == 0)
			return &snap->rows[i];
	}
	return NULL;
}

/* The records to show: one, or the tracked ones the poll returned. */
static size_t
status_records(const struct monitor_snapshot *snap, const char *only,
    struct record ***vp)
{
	struct record	**v;
	size_t		  i, n = 0;
	char		 *why = NULL;

	v = xcalloc(snap->n + 1, sizeof *v);
	if (only != NULL) {
		if (record_load(only, &v[0], &why) == 0)
			n = 1;
		free(why);
		*vp = v;
		return n;
	}
	for (i = 0; i < snap->n; i++) {
		if (snap->info[i].record_id == NULL)
			continue;
		if (record_load(snap->info[i].record_id, &v[n], &why) == 0)
			n++;
		free(why);
		why = NULL;
	}
	*vp = v;
	return n;
}

static void
status_table(const struct monitor_snapshot *snap, struct record **v, size_t n,
    int color)
{
	static const char *const head[] = { "ID", "SLURM ID", "STATE",
	    "NATIVE", "NAME", "TIME", "INFO" };
	enum { NCOL = 7 };
	const struct jobtable_row *row;
	char			**cells, buf[64];
	size_t			  i;

	if (n == 0) {
		cli_printf("no tracked jobs on cluster %s\n", snap->cluster);
		return;
	}
	cells = xcalloc(n * NCOL, sizeof *cells);
	for (i = 0; i < n; i++) {
		row = row_of(snap, v[i]->id);
		cells[i * NCOL + 0] = xstrdup(v[i]->id);
		cells[i * NCOL + 1] = xstrdup(record_slurm_id(v[i]) != NULL ?
		    record_slurm_id(v[i]) : "-");
		cells[i * NCOL + 2] = xstrdup(cli_state_text(v[i], buf,
		    sizeof buf));
		cells[i * NCOL + 3] = xstrdup(v[i]->native != NULL ?
		    v[i]->native : "");
		cells[i * NCOL + 4] = xstrdup(v[i]->job_name != NULL ?
		    v[i]->job_name : "");
		cells[i * NCOL + 5] = xstrdup(row != NULL ?
		    jobtable_cell(row, JT_TIME, buf, sizeof buf) : "-");
		if (v[i]->state == RSTATE_ERROR && v[i]->err_rule != NULL &&
		    *v[i]->err_rule != '\0')
			cells[i * NCOL + 6] = xasprintf("%s%s%s",
			    v[i]->err_rule, row != NULL && row->reason != NULL &&
			    *row->reason != '\0' ? ", " : "",
			    row != NULL && row->reason != NULL ?
			    row->reason : "");
		else
			cells[i * NCOL + 6] = xstrdup(row != NULL &&
			    row->reason != NULL ? row->reason : "");
	}
	ops_table_print(stdout, head, NCOL, cells, n, color);
	for (i = 0; i < n * NCOL; i++)
		free(cells[i]);
	free(cells);
}

/* Why a job ended ERROR: triage's class and rule, and the line. */
static void
status_detail_error(const struct record *r)
{
	char	*s;

	if (r->err_class == ERR_NONE)
		return;
	s = ops_clean(r->err_rule);
	cli_printf("error:    %s (rule %s)\n", err_class_name(r->err_class), s);
	free(s);
	if (r->err_evidence != NULL && *r->err_evidence != '\0') {
		s = ops_clean(r->err_evidence);
		printf("evidence: %s\n", s);
		free(s);
	}
}

static void
status_detail(const struct record *r, const struct monitor_snapshot *snap,
    int stale)
{
	const struct jobtable_row	*row = row_of(snap, r->id);
	const struct record_event	*e;
	char				 buf[64], *s, *path;

	cli_printf("record:   %s\n", r->id);
	s = ops_clean(r->cluster);
	cli_printf("cluster:  %s\n", s);
	free(s);
	s = ops_clean(record_slurm_id(r));
	cli_printf("slurm id: %s\n", s);
	free(s);
	s = ops_clean(r->native);
	/* SLURM's sub-state beside it only where it adds something. */
	cli_printf("state:    %s%s%s%s%s\n", cli_state_text(r, buf, sizeof buf),
	    *s != '\0' && strcmp(s, state_word(r->state)) != 0 ? " (" : "",
	    *s != '\0' && strcmp(s, state_word(r->state)) != 0 ? s : "",
	    *s != '\0' && strcmp(s, state_word(r->state)) != 0 ? ")" : "",
	    stale && !state_terminal(r->state) ? " last known: the poll "
	    "failed" : "");
	free(s);
	status_detail_error(r);
	if ((s = cli_array_summary(r)) != NULL) {
		cli_printf("tasks:    %s (array %s)\n", s, r->array);
		free(s);
	}
	s = ops_clean(r->job_name);
	cli_printf("name:     %s\n", s);
	free(s);
	if (row != NULL) {
		cli_printf("time:     %s\n", jobtable_cell(row, JT_TIME, buf,
		    sizeof buf));
		if (row->reason != NULL && *row->reason != '\0') {
			s = ops_clean(row->reason);
			cli_printf("info:     %s\n", s);
			free(s);
		}
	}
	if ((path = ops_log_path(r, 0)) != NULL) {
		s = ops_clean(path);
		cli_printf("log:      %s\n", s);
		free(s);
		free(path);
	}
	if (r->nhistory != 0) {
		e = &r->history[r->nhistory - 1];
		s = ops_clean(e->message);
		cli_printf("last:     %s %s by %s: %s\n", e->time,
		    state_word(e->state), e->source, s);
		free(s);
	}
}

static void	eff_json(cJSON *, const struct eff *);

static void
status_json(const struct monitor_snapshot *snap, struct record **v, size_t n,
    const char *cause, int watch, const struct eff *eff,
    const struct gpuuse_reply *gpu)
{
	const struct jobtable_row	*row;
	cJSON				*o, *a, *item, *sl;
	char				when[32];
	size_t				 i;

	o = cli_json_doc("status");
	cJSON_AddStringToObject(o, "cluster", snap->cluster);
	if (snap->polled != 0) {
		iso_time_fmt(snap->polled, when, sizeof when);
		cJSON_AddStringToObject(o, "polled", when);
	} else
		cJSON_AddNullToObject(o, "polled");
	cJSON_AddBoolToObject(o, "ok", cause == NULL);
	if (cause != NULL || snap->error != NULL)
		cJSON_AddStringToObject(o, "error", cause != NULL ? cause :
		    snap->error);
	else
		cJSON_AddNullToObject(o, "error");
	a = cJSON_AddArrayToObject(o, "jobs");
	for (i = 0; i < n; i++) {
		if ((item = cli_json_record(v[i])) == NULL)
			continue;
		/* What this poll's squeue or sacct said: "queue", or null. */
		row = row_of(snap, v[i]->id);
		if (row != NULL) {
			sl = cJSON_AddObjectToObject(item, "queue");
			cJSON_AddStringToObject(sl, "job_id", row->id);
			cli_json_str(sl, "slurm_state", state_known(row->state) ?
			    row->state : NULL);
			cli_json_str(sl, "partition", *row->partition != '\0' ?
			    row->partition : NULL);
			cli_json_num(sl, "elapsed", row->elapsed,
			    row->elapsed >= 0);
			cli_json_num(sl, "limit", row->limit, row->limit >= 0);
			cli_json_num(sl, "nodes", row->nodes, row->nodes > 0);
			cli_json_str(sl, "reason", *row->reason != '\0' ?
			    row->reason : NULL);
		} else
			cJSON_AddNullToObject(item, "queue");
		if (eff != NULL && n == 1)
			eff_json(item, eff);
		else
			cJSON_AddNullToObject(item, "efficiency");
		/* Only with --gpu: one nvidia-smi step, asked once. */
		if (gpu != NULL && n == 1)
			cJSON_AddItemToObject(item, "gpu", cli_json_gpu(gpu));
		cJSON_AddItemToArray(a, item);
	}
	cli_json(stdout, o, watch);
	cJSON_Delete(o);
}

/*
 * The efficiency of an ended job: one sacct with its steps (eff.h).  NULL
 * when the job has no SLURM id or sacct cannot say; *why tells why.
 */
static struct eff *
status_eff(struct conn *c, const struct record *r, char **why)
{
	struct conn_result	 res;
	struct eff		*e;
	const char		*sid = record_slurm_id(r);
	char			*cmd;

	if (sid == NULL)
		return NULL;
	memset(&res, 0, sizeof res);
	if ((cmd = eff_cmd(strtol(sid, NULL, 10), why)) == NULL)
		return NULL;
	e = xcalloc(1, sizeof *e);
	if (conn_exec(c, cmd, NULL, 0, &res, why) != 0)
		goto fail;
	if (res.status != 0) {
		*why = xasprintf("sacct failed (exit %d)", res.status);
		goto fail;
	}
	if (eff_parse(res.out, strtol(sid, NULL, 10), e, why) != 0)
		goto fail;
	free(cmd);
	conn_result_free(&res);
	return e;
fail:
	free(cmd);
	conn_result_free(&res);
	eff_free(e);
	free(e);
	return NULL;
}

static void
eff_json(cJSON *item, const struct eff *e)
{
	cJSON	*o = cJSON_AddObjectToObject(item, "efficiency");
	char	*t;

#define NUM_OR_NULL(k, v, ok) do {				\
	if (ok)							\
		cJSON_AddNumberToObject(o, k, (double)(v));	\
	else							\
		cJSON_AddNullToObject(o, k);			\
} while (0)
	NUM_OR_NULL("cpus", e->cpus, e->cpus > 0);
	NUM_OR_NULL("cpu_seconds", e->cpu_used, e->cpu_used >= 0);
	NUM_OR_NULL("cpu_efficiency", e->cpu_pct, e->cpu_pct >= 0);
	NUM_OR_NULL("mem_requested", e->req_mem, e->req_mem >= 0);
	NUM_OR_NULL("mem_peak", e->peak_mem, e->peak_mem >= 0);
	NUM_OR_NULL("mem_efficiency", e->mem_pct, e->mem_pct >= 0);
	NUM_OR_NULL("elapsed", e->elapsed, e->elapsed >= 0);
	NUM_OR_NULL("limit", e->limit, e->limit > 0);
	NUM_OR_NULL("time_efficiency", e->time_pct, e->time_pct >= 0);
#undef NUM_OR_NULL
	t = eff_text(e);
	cJSON_AddStringToObject(o, "summary", t);
	free(t);
	if (e->hint != NULL)
		cJSON_AddStringToObject(o, "hint", e->hint);
	else
		cJSON_AddNullToObject(o, "hint");
}

/* A JSON event on one line of its own, then freed. */
static void
status_event_put(cJSON *o)
{
	/* Names are the cluster's bytes: cli_json makes them UTF-8. */
	cli_json(stdout, o, 1);
	fflush(stdout);
	cJSON_Delete(o);
}

/* The event of a record's new state (from: the one said before, or NULL). */
static cJSON *
status_event(const struct monitor_snapshot *snap, const struct record *r,
    const char *from, const char *when)
{
	const struct jobtable_row	*row = row_of(snap, r->id);
	cJSON				*o = cli_json_doc("status");
	enum rstate			 fs;

	cJSON_AddStringToObject(o, "event", "state");
	cJSON_AddStringToObject(o, "time", when);
	cJSON_AddStringToObject(o, "cluster", snap->cluster);
	cJSON_AddStringToObject(o, "record_id", r->id);
	cli_json_str(o, "job_id", record_slurm_id(r));
	cli_json_str(o, "name", r->job_name);
	/* from: the state said before, in the same words as state. */
	if (from != NULL && state_from_name(from, &fs) == 0)
		cJSON_AddStringToObject(o, "from", state_word(fs));
	else
		cJSON_AddNullToObject(o, "from");
	cli_json_state(o, r->state, r->native, r->err_class);
	cJSON_AddBoolToObject(o, "ended", state_terminal(r->state));
	cli_json_str(o, "reason", row != NULL && row->reason != NULL &&
	    *row->reason != '\0' ? row->reason : NULL);
	return o;
}

/*
 * status --watch --json: one line per state change (issue 15.7), so a
 * script reacts without polling itself.  seen holds "record-id STATE"
 * from the previous polls; the first poll says every job's state once.
 */
static void
status_events(const struct monitor_snapshot *snap, struct record **v,
    size_t n, const char *cause, struct strv *seen, const struct eff *eff)
{
	cJSON		*o;
	char		 when[32], *key;
	const char	*from;
	size_t		 i, k, idlen;

	iso_time_fmt(time(NULL), when, sizeof when);
	if (cause != NULL) {
		o = cli_json_doc("status");
		cJSON_AddStringToObject(o, "event", "poll_failed");
		cJSON_AddStringToObject(o, "time", when);
		cJSON_AddStringToObject(o, "cluster", snap->cluster);
		cJSON_AddStringToObject(o, "error", cause);
		status_event_put(o);
		return;
	}
	for (i = 0; i < n; i++) {
		idlen = strlen(v[i]->id);
		for (k = 0; k < seen->n; k++) {
			if (strncmp(seen->v[k], v[i]->id, idlen) == 0 &&
			    seen->v[k][idlen] == ' ')
				break;
		}
		from = k < seen->n ? seen->v[k] + idlen + 1 : NULL;
		if (from != NULL && strcmp(from, state_name(v[i]->state)) == 0)
			continue;
		o = status_event(snap, v[i], from, when);
		if (eff != NULL && n == 1 && state_terminal(v[i]->state))
			eff_json(o, eff);
		status_event_put(o);
		/* Remember the new state. */
		key = xasprintf("%s %s", v[i]->id, state_name(v[i]->state));
		if (from != NULL) {
			free(seen->v[k]);
			seen->v[k] = key;
		} else {
			strv_add(seen, key);
			free(key);
		}
	}
}

static void
status_progress(void *arg, enum submit_step step, const char *text)
{
	char	*s = ops_clean(text);

	(void)arg;
	cli_error(NULL, "%s: %s", submit_step_name(step), s);
	free(s);
}

/*
 * A submit that was killed or cut off leaves its record marked; finish it
 * (adopt and release its job, or close the record) before the poll, so
 * status shows the truth without waiting for the next submit.
 */
static void
status_recover(struct conn *c, const struct cluster *cl)
{
	struct submit_session	 s;
	struct submit_opts	 o;
	char			*cause = NULL;

	memset(&o, 0, sizeof o);
	o.progress = status_progress;
	submit_session_init(&s, c, cl);
	if (submit_recover(&s, &o, NULL, NULL, NULL, &cause) < 0) {
		cli_error(NULL, "interrupted submits not checked: "
		    "%s", cause);
		free(cause);
	}
	submit_session_free(&s);
}

static const struct option status_options[] = {
	{ "watch", no_argument, NULL, 'w' },
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "gpu", no_argument, NULL, 'g' },
	{ NULL, 0, NULL, 0 }
};

/* status's options and what one run keeps from poll to poll. */
struct status_opts {
	int		 watch;
	int		 json;
	int		 gpu;
	long		 interval;
};

struct status_run {
	struct cli_ctx		*ctx;
	const struct status_opts *o;
	const char		*only;	/* the record asked for, or NULL */
	struct eff		*eff;	/* of the ended job asked for */
	struct gpuuse_reply	*gpu;	/* --gpu: of the running job asked for */
	struct strv		 seen;	/* --watch --json: states said */
	struct budget		 budget;
	int			 done;	/* the job asked for has ended */
};

static int
status_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct status_opts	*o = ctx->opts;

	if (ch == 'w')
		o->watch = 1;
	else if (ch == 'j')
		o->json = 1;
	else if (ch == 'g')
		o->gpu = 1;
	else if (cli_number(arg, 1, 86400, &o->interval) != 0) {
		cli_error("status", "--interval must be whole seconds from 1 "
		    "to 86400, not '%s'", arg);
		return EXIT_USAGE;
	}
	return CLI_GO;
}

static int
status_check(struct cli_ctx *ctx)
{
	const struct status_opts	*o = ctx->opts;

	if (ctx->argc > 1) {
		cli_error("status", "one ID at most (got '%s' and '%s')",
		    ctx->argv[0], ctx->argv[1]);
		return EXIT_USAGE;
	}
	/* One srun per request, never one per poll. */
	if (o->gpu && (o->watch || ctx->argc != 1)) {
		cli_error("status", "--gpu goes with one ID and not with "
		    "--watch (one nvidia-smi step per request; sqdeck gpu ID "
		    "asks again)");
		return EXIT_USAGE;
	}
	if (o->interval != 0 && !o->watch) {
		cli_error("status", "--interval goes with --watch");
		return EXIT_USAGE;
	}
	return CLI_GO;
}

/* The text of one poll: its events, then the job or the table. */
static void
status_text(struct status_run *st, const struct monitor_snapshot *snap,
    struct record **v, size_t n, int failed)
{
	const struct eff	*eff = st->eff;
	char			*s;
	size_t			 i;

	if (st->o->watch)
		cli_printf("-- %s, cluster %s\n", snap->polled != 0 ?
		    "polled" : "poll failed", st->ctx->cl->name);
	for (i = 0; i < snap->events.n; i++) {
		s = ops_clean(snap->events.v[i]);
		cli_error(NULL, "%s", s);
		free(s);
	}
	if (st->only == NULL) {
		status_table(snap, v, n, st->ctx->cli->color);
		return;
	}
	if (n != 1)
		return;
	status_detail(v[0], snap, failed);
	if (eff != NULL) {
		s = eff_text(eff);
		printf("usage:    %s\n", s);
		free(s);
		if (eff->hint != NULL)
			printf("hint:     %s\n", eff->hint);
	}
	if (st->gpu != NULL) {
		s = gpuuse_text(st->gpu);
		cli_printf("%s", s);
		free(s);
	}
}

/* An ended job asked for: how well it used what it asked for, once. */
static void
status_eff_once(struct status_run *st, const struct record *r)
{
	char	*why = NULL;

	if (st->eff != NULL || !state_terminal(r->state))
		return;
	if ((st->eff = status_eff(st->ctx->conn, r, &why)) == NULL &&
	    why != NULL) {
		cli_error("status", "efficiency not known: %s", why);
		free(why);
	}
}

/* --gpu on a running job asked for: its GPU use, once (ops_gpu). */
static void
status_gpu_once(struct status_run *st, const struct record *r)
{
	char	*cause = NULL, *id, *s;

	if (st->gpu != NULL || !st->o->gpu || r->state != RSTATE_RUNNING ||
	    record_slurm_id(r) == NULL)
		return;
	id = xstrdup(record_slurm_id(r));
	st->gpu = xcalloc(1, sizeof *st->gpu);
	if (ops_gpu(st->ctx->conn, id, st->gpu, &cause) != 0) {
		s = ops_clean(cause);
		cli_error("status", "GPU use not known: %s", s);
		free(s);
		free(cause);
		free(st->gpu);
		st->gpu = NULL;
	}
	free(id);
}

/* One poll and what it shows: the exit status; *cause why it failed. */
static int
status_once(struct status_run *st, char **cause)
{
	struct monitor_opts	 opts;
	struct monitor_snapshot	 snap;
	struct record		**v;
	size_t			 i, n;
	int			 rc, ret = EXIT_OK;

	memset(&opts, 0, sizeof opts);
	opts.user = st->ctx->cl->user;
	opts.index = cli_rindex(st->ctx);
	rc = monitor_poll(st->ctx->conn, st->ctx->cl->name, &opts, &snap,
	    cause);
	/* status acts on what it saw: INFRA retries, NCCL. */
	if (rc == 0)
		react_after_poll(st->ctx->conn, &snap);
	n = status_records(&snap, st->only, &v);
	if (rc == 0 && st->only != NULL && n == 1) {
		status_eff_once(st, v[0]);
		status_gpu_once(st, v[0]);
	}
	if (st->o->json && st->o->watch)
		status_events(&snap, v, n, rc != 0 ? *cause : NULL, &st->seen,
		    st->eff);
	else if (st->o->json)
		status_json(&snap, v, n, *cause, st->o->watch, st->eff,
		    st->gpu);
	else
		status_text(st, &snap, v, n, rc != 0 || snap.error != NULL);
	/* Monitoring failures never cancel anything; a failed sacct after
	   a good squeue is as much a failure as a failed squeue. */
	if (rc != 0 || snap.error != NULL) {
		cli_error("status", "%s (records show the last known state)",
		    rc != 0 ? *cause : snap.error);
		ret = EXIT_FAIL;
	}
	st->done = st->only != NULL && n == 1 && state_terminal(v[0]->state);
	for (i = 0; i < n; i++)
		record_free(v[i]);
	free(v);
	monitor_snapshot_free(&snap);
	fflush(stdout);
	return ret;
}

/* Until the job ends or SIGINT; slurmctld timing out or down: back off. */
static int
status_watch(struct status_run *st, long interval)
{
	enum budget_fault	 fault;
	char			*cause = NULL;
	int			 ret, wait;

	for (;;) {
		free(cause);
		cause = NULL;
		ret = status_once(st, &cause);
		if (!st->o->watch || st->done || status_stop)
			break;
		wait = (int)interval;
		if (ret != EXIT_OK && cause != NULL &&
		    (fault = budget_classify(cause)) != BUDGET_FAULT_NONE) {
			wait = budget_fail(&st->budget, wait, fault);
			cli_error("status", "%s: next poll in %d s",
			    budget_fault_text(fault), wait);
		} else
			budget_ok(&st->budget);
		status_sleep(wait);
		if (status_stop)
			break;
	}
	free(cause);
	return st->o->watch && status_stop ? EXIT_OK : ret;
}

static int
cli_status(struct cli_ctx *ctx)
{
	const struct status_opts *o = ctx->opts;
	struct cluster		*cl = ctx->cl;
	struct status_run	 st;
	struct sigaction	 sa, oldsa;
	long			 interval = o->interval;
	int			 ret;

	if (ctx->target != NULL && ctx->target->rec == NULL) {
		cli_error("status", "SLURM job %ld has no sqdeck record "
		    "(sqdeck jobs lists every job in the queue)",
		    ctx->target->sid);
		return EXIT_USAGE;
	}
	memset(&st, 0, sizeof st);
	st.ctx = ctx;
	st.o = o;
	st.only = ctx->target != NULL ? ctx->target->rec->id : NULL;
	if (interval == 0)
		interval = config_poll_interval(cl);
	/* The polling budget's floor holds for --watch too (budget.h). */
	budget_init(&st.budget, cl->min_poll_interval,
	    cl->max_scheduler_calls);
	if (o->watch && interval < st.budget.min_interval)
		interval = st.budget.min_interval;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = status_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oldsa);
	status_recover(ctx->conn, cl);
	ret = status_watch(&st, interval);
	sigaction(SIGINT, &oldsa, NULL);
	strv_free(&st.seen);
	budget_free(&st.budget);
	if (st.eff != NULL) {
		eff_free(st.eff);
		free(st.eff);
	}
	if (st.gpu != NULL) {
		gpuuse_free(st.gpu);
		free(st.gpu);
	}
	return ret;
}

const struct cli_entry cli_status_entry = {
	.name = "status",
	.usage = "[ID] [--cluster NAME] [--watch [--interval S]] [--json] "
	    "[--gpu]",
	.summary = "update and show the state of jobs",
	.help = "  ID          record id or SLURM job id (default: every "
	    "job tracked on the cluster)\n"
	    "  --watch     poll again every interval until interrupted "
	    "(with ID: until the job ends)\n"
	    "  --interval  seconds between polls (default: the "
	    "cluster's poll_interval, 5)\n"
	    "  --json      the records and what SLURM said, as JSON\n"
	    "  --gpu       with ID of a running job: its GPU use too (one "
	    "nvidia-smi\n"
	    "              step, as sqdeck gpu; --json: \"gpu\" {gpus, "
	    "no_nvidia_smi, said})\n",
	.shortopts = "wi:jg",
	.longopts = status_options,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_TARGET | CLI_OWN | CLI_CONN,
	.args_kind = CLI_ARG_ID,
	.args_max = -1,
	.optsize = sizeof (struct status_opts),
	.option = status_option,
	.check = status_check,
	.exec = cli_status,
};
