#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "array.h"
#include "conn.h"
#include "follow.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"
#include "text.h"

#define LOGS_CHUNK	(256 * 1024)	/* bytes per read while following */
#define LOGS_DEFAULT_LINES 200		/* tail -n ${N:-200} of the procedure */

static volatile sig_atomic_t logs_stop;

static void
logs_sigint(int sig)
{
	(void)sig;
	logs_stop = 1;
}

static void
logs_sleep(int secs)
{
	struct timespec	ts = { secs, 0 };

	while (!logs_stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void
logs_write(const struct ops_log *log)
{
	char	*s;
	size_t	 len;

	if (log->len == 0)
		return;
	s = ops_sanitize(log->data, log->len, &len);
	fwrite(s, 1, len, stdout);
	fflush(stdout);
	free(s);
}

/*
 * The tail's last n lines: tail -n counts \n only, a \r progress bar's
 * frames are lines too (issue 26.12).  Returns the bytes left out.
 */
static size_t
logs_write_tail(struct ops_log *log, long n)
{
	size_t	skip;

	skip = log->len > 0 ? text_tail_start(log->data, log->len, n) : 0;
	if (skip > 0) {
		memmove(log->data, log->data + skip, log->len - skip);
		log->len -= skip;
		log->data[log->len] = '\0';
	}
	logs_write(log);
	return skip;
}

/* Is the job over?  Asks the cluster (one poll) and reloads the record. */
static int
logs_job_ended(struct cli_ctx *ctx, struct conn *c, const struct cluster *cl,
    const char *id)
{
	struct monitor_opts	 opts;
	struct monitor_snapshot	 snap;
	struct record		*r;
	char			*cause = NULL;
	int			 ended = 0;

	memset(&opts, 0, sizeof opts);
	opts.user = cl->user;
	opts.index = cli_rindex(ctx);
	if (monitor_poll(c, cl->name, &opts, &snap, &cause) != 0) {
		/* Not fatal: the log is still worth following. */
		cli_fprintf(stderr, "sqdeck: logs: %s\n", cause);
		free(cause);
		cause = NULL;
	}
	monitor_snapshot_free(&snap);
	if (record_load(id, &r, &cause) == 0) {
		ended = state_terminal(r->state);
		record_free(r);
	}
	free(cause);
	return ended;
}

static const struct option logs_options[] = {
	{ "err", no_argument, NULL, 'e' },
	{ "follow", no_argument, NULL, 'f' },
	{ "interval", required_argument, NULL, 'i' },
	{ "lines", required_argument, NULL, 'n' },
	{ "pager", no_argument, NULL, 'P' },
	{ NULL, 0, NULL, 0 }
};

struct logs_opts {
	int		 err;		/* --err: main.err */
	int		 follow;
	long		 interval;	/* 0: 1 s */
	long		 lines;
	int		 has_lines;	/* -n given (0 is a count) */
	int		 pager;		/* --pager: the whole log in $PAGER */
};

static int
logs_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct logs_opts	*o = ctx->opts;

	switch (ch) {
	case 'e':
		o->err = 1;
		break;
	case 'f':
		o->follow = 1;
		break;
	case 'P':
		o->pager = 1;
		break;
	case 'i':
		if (cli_number(arg, 1, 3600, &o->interval) != 0) {
			cli_error("logs", "--interval must be whole seconds "
			    "from 1 to 3600, not '%s'", arg);
			return EXIT_USAGE;
		}
		break;
	case 'n':
		if (cli_number(arg, 0, 1000000, &o->lines) != 0) {
			cli_error("logs", "-n must be a line count from 0 to "
			    "1000000, not '%s'", arg);
			return EXIT_USAGE;
		}
		o->has_lines = 1;
		break;
	}
	return CLI_GO;
}

/* What following a log needs between reads. */
struct logs_run {
	struct cli_ctx	*ctx;
	struct follow	 f;
	const char	*shown;		/* the path, cleaned */
	long		 interval;
	int		 waiting;	/* said "waiting for log" */
	long		 lines;		/* -n */
};

/* One read while following: 0 to read again at once, 1 to sleep, -1 to
   stop. */
static int
logs_step(struct logs_run *lr)
{
	struct ops_log	 log;
	char		*cause = NULL;
	int		 flags;

	memset(&log, 0, sizeof log);
	if ((flags = follow_read(lr->ctx->conn, &lr->f, &log, &cause)) < 0) {
		/* A dropped read is retried; the place is kept. */
		cli_fprintf(stderr, "sqdeck: logs: %s\n", cause);
		free(cause);
		ops_log_free(&log);
		return lr->f.ended ? -1 : 1;
	}
	if (flags & FOLLOW_MISSING) {
		if (!lr->waiting)
			cli_fprintf(stderr, "sqdeck: logs: waiting for log "
			    "%s\n", lr->shown);
		lr->waiting = 1;
	} else {
		if (log.truncated)
			cli_fprintf(stderr, "sqdeck: logs: %s was truncated; "
			    "reading it from the start\n", lr->shown);
		lr->waiting = 0;
		logs_write(&log);
	}
	ops_log_free(&log);
	if (flags & FOLLOW_DONE)
		return -1;	/* the job is over and its log drained */
	/* A full chunk: more is waiting, read again at once. */
	return (flags & (FOLLOW_EOF | FOLLOW_MISSING)) ? 1 : 0;
}

/* --follow: print what is appended until the job ends or SIGINT. */
static void
logs_follow(struct logs_run *lr, const struct record *rec)
{
	struct cluster		*cl = lr->ctx->cl;
	struct sigaction	 sa, oldsa;
	time_t			 last_poll = 0;
	int			 poll_every, rc;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = logs_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oldsa);
	poll_every = config_poll_interval(cl);
	if (poll_every < lr->interval)
		poll_every = (int)lr->interval;
	lr->f.ended = state_terminal(rec->state);
	while (!logs_stop) {
		/* SLURM now and then (only look); the log every interval. */
		if (!lr->f.ended && time(NULL) - last_poll >= poll_every) {
			lr->f.ended = logs_job_ended(lr->ctx, lr->ctx->conn, cl,
			    rec->id);
			last_poll = time(NULL);
		}
		if ((rc = logs_step(lr)) < 0)
			break;
		if (rc > 0)
			logs_sleep((int)lr->interval);
	}
	sigaction(SIGINT, &oldsa, NULL);
	if (lr->f.ended && !logs_stop)
		cli_fprintf(stderr, "sqdeck: logs: job ended\n");
}

/* The last lines first (tail -n N, the procedure's): 0, or -1 said. */
static int
logs_tail(struct logs_run *lr, const struct record *rec, int follow)
{
	struct ops_log	 log;
	char		*cause = NULL;
	size_t		 skip;
	int		 ret = -1;

	memset(&log, 0, sizeof log);
	if (follow_read(lr->ctx->conn, &lr->f, &log, &cause) < 0) {
		cli_error("logs", "%s", cause);
		free(cause);
	} else if (log.missing && !follow)
		cli_error("logs", "%s does not exist (yet): the job is %s",
		    lr->shown, state_word(rec->state));
	else {
		skip = logs_write_tail(&log, lr->lines);
		if (log.cut && skip == 0)
			cli_error("logs", "the first line shown is cut at its "
			    "start: it is longer than the last MiB that "
			    "sqdeck reads (%s on the cluster has it whole)",
			    lr->shown);
		if (log.missing) {
			cli_error("logs", "waiting for log %s", lr->shown);
			lr->waiting = 1;
		}
		ret = 0;
	}
	ops_log_free(&log);
	return ret;
}

/*
 * A job sqdeck did not submit (a plain sbatch, an array task): its path
 * from SLURM (follow_foreign_path), read once; -f follows while squeue
 * still has it.
 */
static int
logs_foreign(struct cli_ctx *ctx, const char *id, char *known, int kended)
{
	const struct logs_opts	*o = ctx->opts;
	struct logs_run		 lr;
	struct ops_log		 log;
	char			*path = known, *shown, *cause = NULL;
	int			 ended = kended, ret = EXIT_FAIL, rc;

	if (path == NULL && follow_foreign_path(ctx->conn, id, o->err, &path,
	    &ended, &cause) != 0) {
		cli_error("logs", "job %s has no sqdeck record and its log "
		    "path is not known: %s", id, cause);
		free(cause);
		return EXIT_FAIL;
	}
	if (o->pager) {
		shown = ops_clean(path);
		ret = cli_logs_pager(ctx->conn, path, o->err, shown);
		free(shown);
		free(path);
		return ret;
	}
	memset(&lr, 0, sizeof lr);
	lr.ctx = ctx;
	lr.shown = shown = ops_clean(path);
	lr.interval = o->interval != 0 ? o->interval : 1;
	lr.lines = o->has_lines ? o->lines : LOGS_DEFAULT_LINES;
	follow_init(&lr.f, path, -1, (int)lr.lines, LOGS_CHUNK);
	lr.f.ended = ended;
	memset(&log, 0, sizeof log);
	if (follow_read(ctx->conn, &lr.f, &log, &cause) < 0) {
		cli_error("logs", "%s", cause);
		free(cause);
	} else if (log.missing)
		cli_error("logs", "%s does not exist%s", shown, ended ? "" :
		    " (yet)");
	else {
		ret = EXIT_OK;
		lr.waiting = 0;
		logs_write_tail(&log, lr.lines);
		while (o->follow && !ended && !logs_stop &&
		    (rc = logs_step(&lr)) >= 0) {
			if (rc > 0)
				logs_sleep((int)lr.interval);
		}
	}
	ops_log_free(&log);
	free(shown);
	free(path);
	return ret;
}

/*
 * Task N of an array sqdeck submitted (ID_N): main_N.out in the array's
 * log dir, straight from the record, even once SLURM forgot the task.
 */
static char *
logs_array_task(struct cli_ctx *ctx, int *ended)
{
	const struct jobid	*j = &ctx->target->id;
	struct record		*r = NULL;
	char			 sid[32], *path, *why = NULL;
	long			 id;

	snprintf(sid, sizeof sid, "%lu", j->job);
	if (ops_find_in(cli_rindex(ctx), sid, ctx->target->cl != NULL ?
	    ctx->target->cl->name : NULL, &r, &id, &why) != 0 || r == NULL || r->array == NULL) {
		free(why);
		record_free(r);
		return NULL;
	}
	path = ops_task_log_path(r, (int)strtol(j->tasks, NULL, 10),
	    ((const struct logs_opts *)ctx->opts)->err);
	*ended = state_terminal(r->state) && !array_tasks_live(r->array_tasks);
	record_free(r);
	return path;
}

static int
cli_logs(struct cli_ctx *ctx)
{
	const struct logs_opts	*o = ctx->opts;
	struct record		*rec = ctx->target->rec;
	struct logs_run		 lr;
	char			*path, *shown;
	int			 ret = EXIT_FAIL, ended;

	if (ctx->target->id.kind == JOBID_RANGE) {
		cli_error("logs", "one array task at a time: give JOBID_TASK, "
		    "e.g. 12_3");
		return EXIT_USAGE;
	}
	if (o->pager && o->follow) {
		cli_error("logs", "--pager shows the log as it is now: not "
		    "with --follow");
		return EXIT_USAGE;
	}
	if (rec == NULL && ctx->target->id.kind == JOBID_TASK &&
	    (path = logs_array_task(ctx, &ended)) != NULL)
		return logs_foreign(ctx, ctx->target->arg, path, ended);
	if (rec == NULL)
		return logs_foreign(ctx, ctx->target->arg, NULL, 0);
	if ((path = ops_log_path(rec, o->err)) == NULL) {
		cli_error("logs", "record %s has no %s yet, so it has no log",
		    rec->id, record_slurm_id(rec) == NULL ? "SLURM job id" :
		    "job_dir or job_name");
		return EXIT_FAIL;
	}
	shown = ops_clean(path);
	if (o->pager) {
		ret = cli_logs_pager(ctx->conn, path, o->err, shown);
		free(shown);
		free(path);
		return ret;
	}
	memset(&lr, 0, sizeof lr);
	lr.ctx = ctx;
	lr.shown = shown;
	lr.interval = o->interval != 0 ? o->interval : 1;
	lr.lines = o->has_lines ? o->lines : LOGS_DEFAULT_LINES;
	follow_init(&lr.f, path, -1, o->has_lines ? (int)o->lines :
	    LOGS_DEFAULT_LINES, LOGS_CHUNK);
	if (logs_tail(&lr, rec, o->follow) == 0) {
		if (o->follow)
			logs_follow(&lr, rec);
		ret = EXIT_OK;
	}
	free(shown);
	free(path);
	return ret;
}

const struct cli_entry cli_logs_entry = {
	.name = "logs",
	.usage = "ID [--cluster NAME] [-n N] [--err] [--follow [--interval "
	    "S]] [--pager]",
	.summary = "show the job's main.out (or main.err)",
	.help = "  ID          record id, SLURM job id or array task (12_3); "
	    "a job sqdeck did not submit is read from SLURM's -o/-e path\n"
	    "  -n N        the last N lines (default 200, as the "
	    "procedure says)\n"
	    "  --err       main.err instead of main.out\n"
	    "  --follow    then print what is appended until the job "
	    "ends (or Ctrl-C)\n"
	    "  --interval  seconds between reads while following "
	    "(default 1)\n"
	    "  --pager     the whole log (64 MiB at most) in $PAGER, else "
	    "less, else more, as a private file removed afterwards\n",
	.shortopts = "efi:n:",
	.longopts = logs_options,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_TARGET | CLI_CONN | CLI_TASKS,
	.args_kind = CLI_ARG_ID,
	.args_min = 1,
	.args_max = 1,
	.args_few = "which job? give one record id or SLURM job id",
	.args_many = "one job at a time",
	.optsize = sizeof (struct logs_opts),
	.option = logs_option,
	.exec = cli_logs,
};
