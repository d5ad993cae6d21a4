/*
 * sqdeck shell ID [--node N] [-- CMD...]: a terminal (or CMD) in a running
 * job's own container, through the held login (ops/enter.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conn.h"
#include "enter.h"
#include "record.h"

const struct option cli_node_longopts[] = {
	{ "node", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 }
};

int
cli_node_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct cli_node_opts	*o = ctx->opts;
	size_t			 n = strlen(arg);

	if (ch != 'w')
		return EXIT_USAGE;
	if (n == 0 || n > 255 || arg[0] == '-' || strspn(arg,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-_") != n) {
		cli_error(ctx->entry->name, "--node wants a node name, not "
		    "'%s'", arg);
		return EXIT_USAGE;
	}
	o->node = arg;
	return CLI_GO;
}

/*
 * The node is asked of SLURM with the state: a node that is not the job's
 * is refused here, naming the job's nodes, before anything runs.
 */
int
cli_running_job(struct cli_ctx *ctx, const char *node, struct enter_where *w)
{
	const char	*verb = ctx->entry->name;
	char		*cause = NULL;
	long		 sid;
	int		 ret;

	memset(w, 0, sizeof *w);
	if ((ret = cli_need(ctx, CLI_TARGET | CLI_CONN)) != CLI_GO)
		return ret;
	if ((sid = ctx->target->sid) <= 0) {
		cli_error(verb, "%s has no SLURM job id: nothing was "
		    "launched", ctx->target->arg);
		return EXIT_USAGE;
	}
	if (enter_where(ctx->conn, sid, node, w, &cause) != 0) {
		cli_error(verb, "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	if (strcmp(w->state, "RUNNING") != 0) {
		cli_error(verb, "job %ld is %s, not running: nothing to %s",
		    sid, w->state, strcmp(verb, "shell") == 0 ? "enter" :
		    "forward to");
		enter_where_free(w);
		return EXIT_FAIL;
	}
	return CLI_GO;
}

static int
cli_shell(struct cli_ctx *ctx)
{
	const struct cli_node_opts *o = ctx->opts;
	struct enter_where	 w;
	struct cli_target	*t;
	char			**cmdv = ctx->argv + 1, *cmd, *cause = NULL;
	int			 ncmd = ctx->argc - 1, ret, status;

	/* Only the first argument is a job: the rest is the command. */
	ctx->argc = 1;
	if ((ret = cli_running_job(ctx, o->node, &w)) != CLI_GO)
		return ret;
	enter_where_free(&w);
	t = ctx->target;
	cmd = enter_command(t->sid, o->node, t->rec, cmdv, ncmd);
	ret = enter_shell(ctx->conn, cmd, &status, &cause);
	free(cmd);
	if (ret != 0) {
		cli_error("shell", "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	return status >= 0 && status < 256 ? status : EXIT_FAIL;
}

const struct cli_entry cli_shell_entry = {
	.name = "shell",
	.usage = "[--cluster NAME] [--node N] ID [-- CMD...]",
	.summary = "a shell (or CMD) inside a running job's container",
	.help = "  ID         record id or SLURM job id of a RUNNING job\n"
	    "  --node N   on node N of the job (default: its first node)\n"
	    "  CMD        run this instead of a shell (after --)\n"
	    "  srun --jobid=ID --overlap --pty joins the job's RUNNING "
	    "container there\n"
	    "  (enroot list -f, enroot exec: its files, mounts, environment) "
	    "in the job\n"
	    "  dir, waiting up to 60 s for one still starting; with "
	    "container: none,\n"
	    "  on the node.\n"
	    "  The exit status is the command's; a job not running is "
	    "refused with its state.\n",
	.shortopts = "",
	.longopts = cli_node_longopts,
	.flags = CLI_CLUSTER | CLI_CONFIG,
	.args_kind = CLI_ARG_ID,
	.args_min = 1,
	.args_max = -1,
	.args_few = "which job? give a record id or a SLURM job id",
	.optsize = sizeof (struct cli_node_opts),
	.option = cli_node_option,
	.exec = cli_shell,
};
