#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"
#include "retry.h"

static const char *
decision_name(enum retry_decision d)
{
	switch (d) {
	case RETRY_GO:
		return "retried";
	case RETRY_NOT_ERROR:
		return "not-error";
	case RETRY_NOT_INFRA:
		return "not-infra";
	case RETRY_BUDGET:
		return "budget-spent";
	case RETRY_DONE:
		return "already-retried";
	case RETRY_REQUEUED:
		return "requeued";
	}
	return "?";
}

static const struct option retry_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int
retry_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	*(int *)ctx->opts = 1;	/* --json, its only option */
	return CLI_GO;
}

/*
 * A record still live locally: let sacct and triage say how it ended
 * before deciding.  0, or -1 said.
 */
static int
retry_poll(struct cli_ctx *ctx, const struct record *r, int json)
{
	struct monitor_opts	 mo;
	struct monitor_snapshot	 snap;
	char			*cause = NULL, *s;
	size_t			 i;
	int			 rc;

	if (state_terminal(r->state))
		return 0;
	memset(&mo, 0, sizeof mo);
	mo.user = ctx->cl->user;
	mo.index = cli_rindex(ctx);
	mo.source = "poll";
	if ((rc = monitor_poll(ctx->conn, ctx->cl->name, &mo, &snap,
	    &cause)) != 0)
		cli_error("retry", "%s", cause);
	for (i = 0; rc == 0 && i < snap.events.n; i++) {
		s = ops_clean(snap.events.v[i]);
		if (!json)
			cli_printf("%s\n", s);
		free(s);
	}
	free(cause);
	monitor_snapshot_free(&snap);
	return rc != 0 ? -1 : 0;
}

static void
retry_json(const struct record *r, int rc, const struct retry_result *res,
    const char *cause)
{
	cJSON	*j = cli_json_doc("retry");

	cJSON_AddStringToObject(j, "record_id", r->id);
	cli_json_str(j, "job_id", record_slurm_id(r));
	cli_json_str(j, "cluster", r->cluster);
	cJSON_AddStringToObject(j, "decision", rc < 0 ? "error" :
	    decision_name(res->decision));
	cJSON_AddStringToObject(j, "message", rc < 0 ? cause :
	    res->why != NULL ? res->why : "");
	/* The new submit's ids (null when nothing was resubmitted). */
	cli_json_str(j, "retry_record_id", res->record_id);
	cli_json_str(j, "retry_job_id", res->slurm_id);
	cli_json_str(j, "exclude", res->exclude);
	cli_json_str(j, "note", res->note);
	cli_json_str(j, "inherited", res->inherited);
	cJSON_AddBoolToObject(j, "adopted", res->adopted);
	cJSON_AddBoolToObject(j, "resubmitted", res->resubmitted);
	cJSON_AddNumberToObject(j, "budget", res->budget);
	cli_json(stdout, j, 0);
	cJSON_Delete(j);
}

static void
retry_text(int rc, const struct retry_result *res, const char *cause)
{
	char	*s;

	if (rc != 0) {
		s = ops_clean(rc == 1 ? res->why : cause);
		cli_error("retry", "%s", s);
		free(s);
		return;
	}
	cli_printf("%s\nretry record %s: SLURM job %s (%s), same sbatch %s, "
	    "exclude %s\n", res->why, res->record_id, res->slurm_id,
	    res->state, res->sbatch_path, *res->exclude ? res->exclude :
	    "none");
	if (res->inherited != NULL)
		cli_printf("inherited from the retry chain (nodes that failed "
		    "earlier): %s\n", res->inherited);
	if (res->adopted)
		cli_printf("sbatch's reply was lost: the job was found by its "
		    "name and adopted, not submitted twice\n");
	if (res->resubmitted)
		cli_printf("sbatch's reply was lost and no job had its name: "
		    "it was submitted once more\n");
	if (res->note != NULL)
		cli_printf("note: %s\n", res->note);
}

static int
cli_retry(struct cli_ctx *ctx)
{
	const struct record	*r = ctx->target->rec;
	struct retry_opts	 o;
	struct retry_result	 res;
	char			*cause = NULL;
	int			 json = *(int *)ctx->opts, rc;

	if (r == NULL) {
		cli_error("retry", "that SLURM job has no record: only "
		    "sqdeck's own jobs can be retried");
		return EXIT_USAGE;
	}
	if (retry_poll(ctx, r, json) != 0)
		return EXIT_FAIL;
	memset(&o, 0, sizeof o);
	o.source = "retry:cli";
	rc = retry_run(ctx->conn, r->id, &o, &res, &cause);
	if (json)
		retry_json(r, rc, &res, cause);
	else
		retry_text(rc, &res, cause);
	retry_result_free(&res);
	free(cause);
	return rc == 0 ? EXIT_OK : EXIT_FAIL;
}

const struct cli_entry cli_retry_entry = {
	.name = "retry",
	.usage = "[--cluster NAME] [--json] ID",
	.summary = "resubmit a failed job by hand (same staged workload, bad "
	    "nodes excluded)",
	.help = "  ID  record id or SLURM job id of a job that ended ERROR "
	    "with an INFRA failure;\n"
	    "      the staged workload is submitted again as a new "
	    "record, the failed nodes excluded\n",
	.shortopts = "j",
	.longopts = retry_options,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_TARGET | CLI_CONN,
	.args_kind = CLI_ARG_ID,
	.args_min = 1,
	.args_max = 1,
	.optsize = sizeof (int),
	.option = retry_option,
	.exec = cli_retry,
};
