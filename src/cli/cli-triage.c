#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "eff.h"
#include "ops.h"
#include "record.h"
#include "triage.h"

/* Only the end of a log matters, and training logs can be huge. */
#define TRIAGE_TAIL (256 * 1024)

struct logpart {
	const char	*name;
	size_t		 off;	/* where this file starts in the text */
};

/*
 * Append the last TRIAGE_TAIL bytes of data to b, without the partial
 * first line when that is cut (cut: data itself began mid-file).
 */
static void
tail_add(struct buf *b, const char *data, size_t len, int cut)
{
	const char	*nl;
	size_t		 skip = 0;

	if (len > TRIAGE_TAIL) {
		skip = len - TRIAGE_TAIL;
		cut = 1;
	}
	if (cut && len > skip &&
	    (nl = memchr(data + skip, '\n', len - skip)) != NULL)
		skip = (size_t)(nl - data) + 1;
	if (len > skip)
		buf_add(b, data + skip, len - skip);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		buf_add(b, "\n", 1);
}

/* Append the tail of a file (or stdin) to b. */
static int
read_tail(const char *path, struct buf *b, char **cause)
{
	struct stat	 sb;
	struct buf	 all;
	char		 chunk[8192];
	ssize_t		 n;
	off_t		 from = 0;
	int		 fd, cut = 0;

	if (strcmp(path, "-") == 0)
		fd = dup(STDIN_FILENO);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cause_set(cause, "cannot open log %s: %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size > TRIAGE_TAIL) {
		from = sb.st_size - TRIAGE_TAIL;
		if (lseek(fd, from, SEEK_SET) < 0)
			from = 0;
		cut = from != 0;
	}
	buf_init(&all);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cause_set(cause, "cannot read log %s: %s", path,
			    strerror(errno));
			close(fd);
			buf_free(&all);
			return -1;
		}
		if (n == 0)
			break;
		buf_add(&all, chunk, (size_t)n);
		/* A pipe has no size: keep a window of twice the tail. */
		if (all.len > 2 * TRIAGE_TAIL) {
			memmove(all.data, all.data + all.len - TRIAGE_TAIL,
			    TRIAGE_TAIL);
			all.len = TRIAGE_TAIL;
			all.data[all.len] = '\0';
			cut = 1;
		}
	}
	close(fd);
	tail_add(b, all.data, all.len, cut);
	buf_free(&all);
	return 0;
}

/* Whether a triage argument names a job rather than a log file. */
static int
is_job_arg(const char *a)
{
	struct jobid	j;

	if (strcmp(a, "-") == 0 || access(a, F_OK) == 0)
		return 0;
	if (strncmp(a, "sd-", 3) == 0)
		return 1;
	/* Digits, even no job id's ("0"): ops_find says why. */
	jobid_parse(a, &j);
	return j.kind == JOBID_JOB || (j.kind == JOBID_BAD && j.joblen > 0 &&
	    a[j.joblen] == '\0');
}

/* What triage ID fetched besides the logs. */
struct triage_job {
	char	*state;		/* sacct's State, or the record's */
	char	*exitstr;	/* sacct's ExitCode, or the record's */
	char	*job;		/* "12 on polar" */
	long		 sid;		/* the SLURM job id (job set) */
	const char	*record_id;	/* its record's, or NULL */
	const char	*cluster;	/* job set */
};

/* The job's state and exit code from sacct, else the record's: 0, or -1
   said. */
static int
triage_sacct(struct cli_ctx *ctx, struct triage_job *tj)
{
	const struct cli_target	*t = ctx->target;
	struct conn_result	 res;
	struct eff		 e;
	char			*cmd, *cause = NULL, *sp;
	int			 ret = 0;

	memset(&res, 0, sizeof res);
	memset(&e, 0, sizeof e);
	if ((cmd = eff_cmd(t->sid, &cause)) == NULL ||
	    conn_exec(ctx->conn, cmd, NULL, 0, &res, &cause) != 0) {
		cli_error("triage", "job %ld: %s", t->sid, cause);
		ret = -1;
	} else if (res.status == 0 && eff_parse(res.out, t->sid, &e,
	    &cause) == 0) {
		/* "CANCELLED by 1000": the state is the first word. */
		tj->state = xstrdup(e.state);
		if ((sp = strchr(tj->state, ' ')) != NULL)
			*sp = '\0';
		tj->exitstr = e.exit_code != NULL ? xstrdup(e.exit_code) : NULL;
	} else if (t->rec == NULL) {
		cli_error("triage", "job %ld: %s, and no sqdeck record has it: "
		    "nothing to triage", t->sid, cause != NULL ? cause :
		    "sacct failed");
		ret = -1;
	} else {
		cli_error("triage", "sacct has no state for job %ld (%s): the "
		    "record's last known state is used", t->sid, cause != NULL ?
		    cause : "sacct failed");
		if (t->rec->native != NULL && *t->rec->native != '\0')
			tj->state = xstrdup(t->rec->native);
		if (t->rec->exit_code != NULL)
			tj->exitstr = xstrdup(t->rec->exit_code);
	}
	free(cmd);
	free(cause);
	conn_result_free(&res);
	eff_free(&e);
	return ret;
}

/* The end of the job's main.out and main.err, as parts: 0 or -1 said. */
static int
triage_logs(struct cli_ctx *ctx, struct buf *text, struct logpart *parts,
    int *nparts)
{
	struct ops_log	 log;
	char		*path, *cause = NULL;
	int		 k, rc;

	for (k = 0; k < 2; k++) {
		if ((path = ops_log_path(ctx->target->rec, k)) == NULL)
			continue;
		memset(&log, 0, sizeof log);
		rc = ops_log_tail(ctx->conn, path, 1000000, &log, &cause);
		free(path);
		if (rc != 0) {
			cli_error("triage", "%s", cause);
			free(cause);
			ops_log_free(&log);
			return -1;
		}
		if (!log.missing) {
			parts[*nparts].name = k ? "main.err" : "main.out";
			parts[*nparts].off = text->len;
			(*nparts)++;
			tail_add(text, log.data != NULL ? log.data : "", log.len,
			    log.cut);
		}
		ops_log_free(&log);
	}
	return 0;
}

/*
 * triage ID: the job's state and exit code from sacct (the record's when
 * sacct has none) and the end of its main.out and main.err from the
 * cluster, as the job's own files (parts, at most 2).  Returns 0, or -1
 * after saying why on stderr.
 */
static int
fetch_job(struct cli_ctx *ctx, struct buf *text, struct logpart *parts,
    int *nparts, struct triage_job *tj)
{
	const struct cli_target	*t;
	struct state_map	 sm;

	*nparts = 0;
	if (cli_need(ctx, CLI_CONFIG | CLI_TARGET | CLI_CONN) != CLI_GO)
		return -1;
	t = ctx->target;
	if (t->sid <= 0) {
		cli_error("triage", "record %s has no SLURM job id: nothing "
		    "was launched, so nothing ended", t->rec->id);
		return -1;
	}
	tj->job = xasprintf("%ld on %s", t->sid, ctx->cl->name);
	tj->sid = t->sid;
	tj->record_id = t->rec != NULL ? t->rec->id : NULL;
	tj->cluster = ctx->cl->name;
	if (triage_sacct(ctx, tj) != 0)
		return -1;
	if (tj->state != NULL && state_map(tj->state, STATUS_MISSING,
	    &sm) == 0 && !sm.terminal)
		cli_error("triage", "job %ld is %s: it has not ended, so this "
		    "is a verdict on its logs so far", t->sid, tj->state);
	if (t->rec == NULL) {
		cli_error("triage", "SLURM job %ld has no sqdeck record, so its "
		    "logs are not known: classified by its state and exit code "
		    "only", t->sid);
		return 0;
	}
	if (triage_logs(ctx, text, parts, nparts) != 0)
		return -1;
	if (*nparts == 0)
		cli_error("triage", "job %ld has no main.out or main.err: "
		    "classified by its state and exit code only", t->sid);
	return 0;
}

/* The job triaged: its ids and cluster, null for a log file alone. */
static void
print_json_job(cJSON *o, const struct triage_job *tj)
{
	char	id[32];

	if (tj != NULL && tj->job != NULL) {
		snprintf(id, sizeof id, "%ld", tj->sid);
		cJSON_AddStringToObject(o, "job_id", id);
		cli_json_str(o, "record_id", tj->record_id);
		cJSON_AddStringToObject(o, "cluster", tj->cluster);
	} else {
		cJSON_AddNullToObject(o, "job_id");
		cJSON_AddNullToObject(o, "record_id");
		cJSON_AddNullToObject(o, "cluster");
	}
}

static void
print_json(const struct triage_result *res, const char *state,
    const char *exitstr, const char *file, const struct triage_job *tj)
{
	cJSON	*o, *m, *a;
	char	*ev;
	int	 i;

	o = cli_json_doc("triage");
	print_json_job(o, tj);
	/* The verdict's class; "NONE" is a verdict too (not null). */
	cJSON_AddStringToObject(o, "err_class", err_class_name(res->class));
	cJSON_AddStringToObject(o, "rule", res->rule->name);
	cJSON_AddBoolToObject(o, "retry", res->retry);
	cJSON_AddStringToObject(o, "why", res->rule->why);
	cJSON_AddStringToObject(o, "state", state_word_of(state));
	cli_json_str(o, "slurm_state", state != NULL && *state != '\0' ?
	    state : NULL);
	if (exitstr != NULL)
		cJSON_AddStringToObject(o, "exit", exitstr);
	else
		cJSON_AddNullToObject(o, "exit");
	/* The evidence: the line quoted, or the log's last lines. */
	if ((ev = triage_evidence(res)) != NULL)
		cJSON_AddStringToObject(o, "evidence", ev);
	else
		cJSON_AddNullToObject(o, "evidence");
	free(ev);
	if (res->has_line) {
		m = cJSON_AddObjectToObject(o, "match");
		cJSON_AddStringToObject(m, "file", file);
		cJSON_AddStringToObject(m, "line", res->line);
	} else
		cJSON_AddNullToObject(o, "match");
	a = cJSON_AddArrayToObject(o, "last_lines");
	for (i = 0; i < res->ntail; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(res->tail[i]));
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static const struct option triage_options[] = {
	{ "state", required_argument, NULL, 's' },
	{ "exit", required_argument, NULL, 'e' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

struct triage_opts {
	const char	*state;		/* --state */
	const char	*exitstr;	/* --exit */
	int		 json;
};

static int
triage_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct triage_opts	*o = ctx->opts;

	if (ch == 's')
		o->state = arg;
	else if (ch == 'e')
		o->exitstr = arg;
	else
		o->json = 1;
	return CLI_GO;
}

/* The state and exit status into in: CLI_GO, or the exit status said. */
static int
triage_in(struct triage_input *in, const char *state, const char *exitstr)
{
	char	*cause = NULL;

	memset(in, 0, sizeof *in);
	if (exitstr != NULL) {
		if (triage_parse_exit(exitstr, &in->exit_code,
		    &in->exit_signal, &cause) != 0) {
			cli_error("triage", "--exit: %s", cause);
			free(cause);
			return EXIT_USAGE;
		}
		in->has_exit = 1;
	}
	if (state != NULL && !state_known(state))
		cli_error("triage", "warning: '%s' is not a SLURM state sqdeck "
		    "knows; only the exit status and logs are used", state);
	in->state = state;
	return CLI_GO;
}

/* LOGFILEs, each a part of text: 0, or -1 said. */
static int
triage_files(struct cli_ctx *ctx, struct buf *text, struct logpart *parts)
{
	char	*cause = NULL;
	int	 i;

	for (i = 0; i < ctx->argc; i++) {
		parts[i].name = ctx->argv[i];
		parts[i].off = text->len;
		if (read_tail(ctx->argv[i], text, &cause) != 0) {
			cli_error("triage", "%s", cause);
			free(cause);
			return -1;
		}
	}
	return 0;
}

/* The verdict on text, with the file of the matching line. */
static void
triage_report(const struct triage_opts *o, struct triage_input *in,
    const struct buf *text, const struct logpart *parts, int nparts,
    const struct triage_job *tj)
{
	struct triage_result	 res;
	const char		*file = NULL;
	int			 i;

	in->log = text->data;
	in->loglen = text->len;
	triage_classify(in, &res);
	for (i = nparts - 1; res.has_line && file == NULL && i >= 0; i--) {
		if (res.line_off >= parts[i].off)
			file = parts[i].name;
	}
	if (o->json) {
		print_json(&res, in->state, tj->exitstr != NULL ? tj->exitstr :
		    o->exitstr, file != NULL ? file : "", tj);
		return;
	}
	if (tj->job != NULL)
		cli_printf("job:   %s (%s, exit %s)\n", tj->job, in->state !=
		    NULL ? in->state : "state unknown", tj->exitstr != NULL ?
		    tj->exitstr : "unknown");
	cli_printf("class: %s\n", err_class_name(res.class));
	cli_printf("rule:  %s\n", res.rule->name);
	cli_printf("retry: %s\n", res.retry ? "yes (infrastructure: "
	    "resubmit within the retry budget)" : "no");
	cli_printf("why:   %s\n", res.rule->why);
	if (res.has_line)
		cli_printf("match: %s: %s\n", file != NULL ? file : "-",
		    res.line);
	for (i = 0; i < res.ntail; i++)
		cli_printf("last:  %s\n", res.tail[i]);
}

static int
cli_triage(struct cli_ctx *ctx)
{
	const struct triage_opts *o = ctx->opts;
	struct triage_job	 tj;
	struct triage_input	 in;
	struct logpart		*parts;
	struct buf		 text;
	int			 nparts = ctx->argc, rc = EXIT_USAGE;

	memset(&tj, 0, sizeof tj);
	buf_init(&text);
	parts = xcalloc((size_t)ctx->argc + 3, sizeof *parts);
	/* triage ID: what it needs is fetched from the cluster. */
	if (ctx->argc == 1 && is_job_arg(ctx->argv[0])) {
		if (o->state != NULL || o->exitstr != NULL) {
			cli_error("triage", "--state and --exit go with "
			    "LOGFILEs: for a job id they come from sacct");
			goto out;
		}
		if (fetch_job(ctx, &text, parts, &nparts, &tj) != 0) {
			rc = EXIT_FAIL;
			goto out;
		}
	} else if (ctx->argc == 0 && o->state == NULL && o->exitstr == NULL) {
		cli_error("triage", "nothing to classify: give LOGFILEs, "
		    "--state or --exit");
		cli_usage(ctx->entry, stderr);
		goto out;
	}
	if (triage_in(&in, tj.job != NULL ? tj.state : o->state, tj.job !=
	    NULL ? tj.exitstr : o->exitstr) != CLI_GO)
		goto out;
	if (tj.job == NULL && triage_files(ctx, &text, parts) != 0)
		goto out;
	triage_report(o, &in, &text, parts, nparts, &tj);
	rc = EXIT_OK;
out:
	free(parts);
	free(tj.state);
	free(tj.exitstr);
	free(tj.job);
	buf_free(&text);
	return rc;
}

const struct cli_entry cli_triage_entry = {
	.name = "triage",
	.usage = "[--state STATE] [--exit CODE[:SIGNAL]] [--json] "
	    "[LOGFILE...]\n"
	    "       sqdeck triage [--cluster NAME] [--json] ID",
	.summary = "classify a failed job as INFRA, PROGRAM or CONFIG",
	.help = "  --state  the SLURM state (sacct State), e.g. FAILED, "
	    "NODE_FAIL\n"
	    "  --exit   the exit status as sacct prints it, e.g. 3:0 "
	    "or 0:9\n"
	    "  LOGFILE  main.out, main.err (- for stdin); the last 256 "
	    "KiB of each is read\n"
	    "  ID       a SLURM job id or record id: its state and "
	    "exit code from sacct\n"
	    "           and the end of its main.out and main.err are "
	    "fetched from the cluster\n",
	.shortopts = "s:e:j",
	.longopts = triage_options,
	.flags = CLI_CLUSTER,	/* the config for an ID only: cli_need() */
	.args_kind = CLI_ARG_ID | CLI_ARG_FILE,
	.args_max = -1,
	.optsize = sizeof (struct triage_opts),
	.option = triage_option,
	.exec = cli_triage,
};
