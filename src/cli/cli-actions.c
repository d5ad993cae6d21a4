/*
 * hold, release, requeue, signal and time: a job action on every job
 * given, one remote command per cluster however many (ops_act), as the
 * TUI's keys do on the marked rows.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "cli.h"
#include "conn.h"
#include "ops.h"
#include "record.h"

struct act_opts {
	int	json;
	int	batch;
};

static const struct option act_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static const struct option signal_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "batch", no_argument, NULL, 'b' },
	{ NULL, 0, NULL, 0 }
};

static int
act_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct act_opts	*o = ctx->opts;

	(void)arg;
	if (ch == 'b')
		o->batch = 1;
	else
		o->json = 1;
	return CLI_GO;
}

static enum jobact_kind
act_kind(struct cli_ctx *ctx)
{
	const char	*n = ctx->entry->name;

	if (strcmp(n, "hold") == 0)
		return JOBACT_HOLD;
	if (strcmp(n, "release") == 0)
		return JOBACT_RELEASE;
	if (strcmp(n, "requeue") == 0)
		return JOBACT_REQUEUE;
	if (strcmp(n, "time") == 0)
		return JOBACT_TIME;
	return ((struct act_opts *)ctx->opts)->batch ? JOBACT_SIGNAL_BATCH :
	    JOBACT_SIGNAL;
}

/* What SLURM is given for a target: its job id, or the task(s) as is. */
static char *
act_id(const struct cli_target *t)
{
	if (t->rec != NULL || t->id.kind == JOBID_JOB)
		return xasprintf("%ld", t->sid);
	return xstrdup(t->arg);
}

/* "held 12" and the like, for one job that was done. */
static void
act_said(enum jobact_kind k, const char *value, const char *id,
    const char *cluster)
{
	switch (k) {
	case JOBACT_HOLD:
		cli_printf("held %s on %s: it stays pending until released\n",
		    id, cluster);
		break;
	case JOBACT_RELEASE:
		cli_printf("released %s on %s\n", id, cluster);
		break;
	case JOBACT_REQUEUE:
		cli_printf("requeued %s on %s: it is pending again\n", id,
		    cluster);
		break;
	case JOBACT_SIGNAL:
	case JOBACT_SIGNAL_BATCH:
		cli_printf("sent SIG%s to %s on %s%s\n", value, id, cluster,
		    k == JOBACT_SIGNAL_BATCH ? " (its batch shell)" :
		    " (its steps)");
		break;
	case JOBACT_TIME:
		cli_printf("time limit of %s on %s is now %s\n", id, cluster,
		    value);
		break;
	}
}

/* The record id of the target sent to SLURM as id on cl, or NULL. */
static const char *
act_record_id(struct cli_ctx *ctx, const struct cluster *cl, const char *id)
{
	const char	*rid = NULL;
	char		*s;
	int		 i;

	for (i = 0; i < ctx->argc && rid == NULL; i++) {
		if (ctx->targets[i].cl != cl || ctx->targets[i].rec == NULL)
			continue;
		s = act_id(&ctx->targets[i]);
		if (strcmp(s, id) == 0)
			rid = ctx->targets[i].rec->id;
		free(s);
	}
	return rid;
}

/* One job's row of the JSON document (sqdeck(1): JSON OUTPUT). */
static void
act_json_job(struct cli_ctx *ctx, const struct cluster *cl, const char *id,
    const char *error, cJSON *arr)
{
	cJSON	*o = cJSON_CreateObject();

	cli_json_str(o, "job_id", id);
	cli_json_str(o, "record_id", act_record_id(ctx, cl, id));
	cli_json_str(o, "cluster", cl->name);
	cJSON_AddBoolToObject(o, "ok", error == NULL);
	cli_json_str(o, "error", error);
	cJSON_AddItemToArray(arr, o);
}

/* The rows of one cluster's reply: said, or into the JSON array. */
static int
act_report(struct cli_ctx *ctx, enum jobact_kind k, const char *value,
    const struct cluster *cl, const struct jobact_reply *r, cJSON *arr)
{
	char	*why;
	size_t	 i;
	int	 ret = EXIT_OK;

	for (i = 0; i < r->n; i++) {
		why = r->v[i].rc != 0 ? jobact_explain(k, r->v[i].id,
		    r->v[i].words) : NULL;
		if (why != NULL)
			ret = EXIT_FAIL;
		if (arr != NULL)
			act_json_job(ctx, cl, r->v[i].id, why, arr);
		else if (why != NULL)
			cli_error(ctx->entry->name, "%s", why);
		else
			act_said(k, value, r->v[i].id, cl->name);
		free(why);
	}
	return ret;
}

/* Every target of cl, one ops_act; done[] marks them. */
static int
act_cluster(struct cli_ctx *ctx, enum jobact_kind k, const char *value,
    struct cluster *cl, int *done, cJSON *arr)
{
	struct jobact_reply	 r;
	struct strv		 ids;
	char			*id, *cause = NULL, *s;
	int			 i, ret;

	memset(&ids, 0, sizeof ids);
	for (i = 0; i < ctx->argc; i++) {
		if (done[i] || ctx->targets[i].cl != cl)
			continue;
		done[i] = 1;
		id = act_id(&ctx->targets[i]);
		strv_add(&ids, id);
		free(id);
	}
	if (ops_act(cli_conn(ctx, cl), k, value, &ids, &r, &cause) != 0) {
		s = ops_clean(cause);
		cli_error(ctx->entry->name, "%s: %s", cl->name, s);
		/* With --json each of its jobs is in the list, not done. */
		for (i = 0; arr != NULL && (size_t)i < ids.n; i++)
			act_json_job(ctx, cl, ids.v[i], s, arr);
		free(s);
		free(cause);
		strv_free(&ids);
		return EXIT_FAIL;
	}
	ret = act_report(ctx, k, value, cl, &r, arr);
	jobact_free(&r);
	strv_free(&ids);
	return ret;
}

/* The value after the jobs (signal, time), checked before any login. */
static int
act_value(struct cli_ctx *ctx, enum jobact_kind k, char **value)
{
	char	*cause = NULL, *v = NULL;

	*value = NULL;
	if (k != JOBACT_TIME && k != JOBACT_SIGNAL &&
	    k != JOBACT_SIGNAL_BATCH)
		return CLI_GO;
	if (ctx->argc < 2) {
		cli_error(ctx->entry->name, "give the job(s), then the %s",
		    k == JOBACT_TIME ? "new time limit" : "signal");
		cli_usage(ctx->entry, stderr);
		return EXIT_USAGE;
	}
	ctx->argc--;
	if (k == JOBACT_TIME ? jobact_time(ctx->argv[ctx->argc], &cause) :
	    jobact_signal(ctx->argv[ctx->argc], &v, &cause)) {
		cli_error(ctx->entry->name, "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	*value = v != NULL ? v : xstrdup(ctx->argv[ctx->argc]);
	return CLI_GO;
}

static int
cli_act(struct cli_ctx *ctx)
{
	struct act_opts		*o = ctx->opts;
	enum jobact_kind	 k = act_kind(ctx);
	cJSON			*doc = NULL, *arr = NULL;
	char			*value;
	int			 i, *done, ret;

	if ((ret = act_value(ctx, k, &value)) != CLI_GO)
		return ret;
	if ((ret = cli_need(ctx, CLI_TARGET)) != CLI_GO)
		goto out;
	for (i = 0; i < ctx->argc; i++) {
		if (ctx->targets[i].rec != NULL && ctx->targets[i].sid <= 0) {
			cli_error(ctx->entry->name, "record %s has no SLURM "
			    "job id: nothing was launched",
			    ctx->targets[i].rec->id);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (o->json) {
		doc = cli_json_doc(ctx->entry->name);
		cli_json_str(doc, "value", value);
		if (k == JOBACT_SIGNAL || k == JOBACT_SIGNAL_BATCH)
			cJSON_AddBoolToObject(doc, "batch",
			    k == JOBACT_SIGNAL_BATCH);
		else
			cJSON_AddNullToObject(doc, "batch");
		arr = cJSON_AddArrayToObject(doc, "jobs");
	}
	ret = EXIT_OK;
	done = xcalloc((size_t)ctx->argc, sizeof *done);
	for (i = 0; i < ctx->argc; i++)
		if (!done[i] && act_cluster(ctx, k, value,
		    ctx->targets[i].cl, done, arr) != EXIT_OK)
			ret = EXIT_FAIL;
	free(done);
	if (doc != NULL) {
		cJSON_AddBoolToObject(doc, "ok", ret == EXIT_OK);
		cli_json(stdout, doc, 0);
		cJSON_Delete(doc);
	}
out:
	free(value);
	return ret;
}

#define ACT_IDS_HELP \
	"  ID  record id or SLURM job id; 12_3 for one array task, " \
	"12_[4-9] for some;\n" \
	"      several ids: one remote command per cluster\n" \
	"  --json  {schema, verb, value, batch, ok, jobs: [{job_id, " \
	"record_id, cluster,\n" \
	"          ok, error}]} (sqdeck(1): JSON OUTPUT)\n"

#define ACT_ENTRY(nm, us, sm, hp, opts, min)				\
	{ .name = nm, .usage = us, .summary = sm, .help = hp,		\
	  .shortopts = "", .longopts = opts,				\
	  .flags = CLI_CLUSTER | CLI_CONFIG | CLI_TASKS,		\
	  .args_kind = CLI_ARG_ID, .args_min = min, .args_max = -1,	\
	  .args_few = "which jobs? give record ids or SLURM job ids",	\
	  .optsize = sizeof (struct act_opts), .option = act_option,	\
	  .exec = cli_act }

const struct cli_entry cli_hold_entry = ACT_ENTRY("hold",
    "[--cluster NAME] [--json] ID...",
    "hold jobs: they stay pending (Reason JobHeldUser) until released",
    ACT_IDS_HELP, act_options, 1);
const struct cli_entry cli_release_entry = ACT_ENTRY("release",
    "[--cluster NAME] [--json] ID...",
    "release held jobs (scontrol release)", ACT_IDS_HELP, act_options, 1);
const struct cli_entry cli_requeue_entry = ACT_ENTRY("requeue",
    "[--cluster NAME] [--json] ID...",
    "requeue running or ended batch jobs: they start again",
    ACT_IDS_HELP, act_options, 1);
const struct cli_entry cli_signal_entry = ACT_ENTRY("signal",
    "[--cluster NAME] [--batch] [--json] ID... SIGNAL",
    "send a signal (USR1, TERM, ...) to running jobs",
    ACT_IDS_HELP
    "  SIGNAL   a name (USR1, SIGUSR1) or a number\n"
    "  --batch  to the batch shell (its trap), not to the job's steps\n",
    signal_options, 2);
const struct cli_entry cli_time_entry = ACT_ENTRY("time",
    "[--cluster NAME] [--json] ID... LIMIT",
    "lower the time limit of jobs (SLURM lets only admins raise one)",
    ACT_IDS_HELP
    "  LIMIT  minutes (30), HH:MM:SS or D-HH:MM:SS; scontrol update "
    "TimeLimit=\n",
    act_options, 2);
