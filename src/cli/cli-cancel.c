#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conn.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"

/* What scancel did to an array task (sqdeck keeps no record of arrays). */
static void
cancel_said_task(const struct cli_target *t, const struct ops_cancel *oc)
{
	char	*s = ops_clean(oc->was_live ? oc->live_state : oc->acct_state);

	if (oc->was_live)
		cli_printf("cancelled SLURM array task %s (was %s)\n", t->arg,
		    s);
	else
		cli_printf("SLURM array task %s had already ended (sacct: %s): "
		    "counts as cancelled\n", t->arg, s);
	free(s);
}

/* What scancel did to a job; 1 when it had already ended. */
static int
cancel_said_job(const struct cli_target *t, const struct ops_cancel *oc)
{
	const char	*rec = t->rec != NULL ? t->rec->id : "";
	const char	*with = t->rec != NULL ? ", record " : "";
	char		*s;

	if (oc->was_live) {
		s = ops_clean(oc->live_state);
		cli_printf("cancelled SLURM job %ld%s%s (was %s)\n", t->sid,
		    with, rec, s);
	} else {
		s = ops_clean(oc->acct_state);
		cli_printf("SLURM job %ld%s%s had already ended%s%s%s: counts "
		    "as cancelled\n", t->sid, with, rec, oc->forgotten ?
		    " (SLURM no longer lists it; sacct: " : "",
		    oc->forgotten ? (oc->acct_state != NULL &&
		    *oc->acct_state != '\0' ? s : "nothing") : "",
		    oc->forgotten ? ")" : "");
	}
	if (oc->wiped)
		cli_printf("removed the secrets sidecar of record %s\n", rec);
	free(s);
	return !oc->was_live;
}

/* Ended jobs with records: let sacct say how, once per cluster. */
static void
cancel_poll(struct cli_ctx *ctx, const int *ended)
{
	struct monitor_opts	 opts;
	struct monitor_snapshot	 snap;
	struct cluster		*cl;
	char			*cause = NULL;
	int			 i, k;

	for (i = 0; i < ctx->argc; i++) {
		cl = ctx->targets[i].cl;
		for (k = 0; k < i && (!ended[k] || ctx->targets[k].cl != cl);
		    k++)
			;
		if (!ended[i] || k < i)
			continue;
		memset(&opts, 0, sizeof opts);
		opts.user = cl->user;
		opts.index = cli_rindex(ctx);
		if (monitor_poll(cli_conn(ctx, cl), cl->name, &opts, &snap,
		    &cause) != 0)
			cli_error("cancel", "%s", cause);
		free(cause);
		cause = NULL;
		monitor_snapshot_free(&snap);
	}
}

static int
cli_cancel(struct cli_ctx *ctx)
{
	struct cli_target	*t;
	struct ops_cancel	 oc;
	struct conn		*c;
	char			*cause = NULL, *s;
	int			 i, rc, *ended, ret = EXIT_OK;

	/* Every id is checked before anything is cancelled. */
	for (i = 0; i < ctx->argc; i++) {
		t = &ctx->targets[i];
		if (t->rec != NULL && t->sid <= 0) {
			cli_error("cancel", "record %s has no SLURM job id: "
			    "nothing was launched", t->rec->id);
			return EXIT_USAGE;
		}
	}
	ended = xcalloc((size_t)ctx->argc, sizeof *ended);
	for (i = 0; i < ctx->argc; i++) {
		t = &ctx->targets[i];
		c = cli_conn(ctx, t->cl);
		if (t->id.kind == JOBID_TASK || t->id.kind == JOBID_RANGE)
			rc = ops_cancel_task(c, t->arg, "cancel:cli", &oc,
			    &cause);
		else
			rc = ops_cancel(c, t->rec, t->sid, "cancel:cli", &oc,
			    &cause);
		if (rc != 0) {
			s = ops_clean(cause);
			cli_error("cancel", "%s", s);
			free(s);
			free(cause);
			cause = NULL;
			ret = EXIT_FAIL;
			continue;
		}
		if (t->id.kind == JOBID_TASK || t->id.kind == JOBID_RANGE)
			cancel_said_task(t, &oc);
		else
			ended[i] = cancel_said_job(t, &oc) && t->rec != NULL;
		ops_cancel_free(&oc);
	}
	cancel_poll(ctx, ended);
	free(ended);
	return ret;
}

const struct cli_entry cli_cancel_entry = {
	.name = "cancel",
	.usage = "[--cluster NAME] ID...",
	.summary = "cancel jobs (an ended job counts as cancelled)",
	.help = "  ID  record id or SLURM job id; a job that already ended "
	    "counts as cancelled\n"
	    "      an array: its job id for every task, 12_3 for one "
	    "task, 12_[4-9] for some\n",
	.shortopts = "",
	.longopts = NULL,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_TARGET | CLI_TASKS,
	.args_kind = CLI_ARG_ID,
	.args_min = 1,
	.args_max = -1,
	.args_few = "which jobs? give record ids or SLURM job ids",
	.exec = cli_cancel,
};
