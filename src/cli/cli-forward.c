/*
 * sqdeck forward ID [LOCAL:]PORT [--node N]: 127.0.0.1:LOCAL reaches PORT
 * on the job's first node (or node N of its nodes), through the held login (direct-tcpip from the login
 * node), until Ctrl-C or the job ends (ops/enter.c).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conn.h"
#include "enter.h"
#include "record.h"

static volatile int forward_stop;

static void
forward_on_signal(int sig)
{
	(void)sig;
	forward_stop = 1;
}

struct forward_run {
	struct conn	*conn;
	long		 sid;
	const char	*node;
	const char	*addr;
	int		 port;
};

/* Still running (asked every few seconds)? */
static int
forward_alive(void *arg)
{
	struct forward_run	*f = arg;
	struct enter_where	 w;
	char			*cause = NULL;
	int			 up;

	if (enter_where(f->conn, f->sid, NULL, &w, &cause) != 0) {
		free(cause);
		return 1;	/* a hiccup: the streams say if the login died */
	}
	up = strcmp(w.state, "RUNNING") == 0;
	if (!up)
		cli_printf("job %ld is %s: forward closed\n", f->sid, w.state);
	enter_where_free(&w);
	return up;
}

static void
forward_ready(int bound, void *arg)
{
	struct forward_run	*f = arg;

	cli_printf("forwarding 127.0.0.1:%d to %s:%d (job %ld, %s); Ctrl-C "
	    "to stop\n", bound, f->node, f->port, f->sid, f->addr);
	fflush(stdout);
}

/* [LOCAL:]PORT */
static int
forward_ports(const char *s, long *lport, long *port)
{
	const char	*colon = strchr(s, ':');
	char		*l;
	int		 rc;

	*lport = 0;
	if (colon == NULL)
		return cli_number(s, 1, 65535, port);
	l = xstrndup(s, colon - s);
	rc = cli_number(l, 0, 65535, lport);
	free(l);
	return rc != 0 ? -1 : cli_number(colon + 1, 1, 65535, port);
}

static int
cli_forward(struct cli_ctx *ctx)
{
	const struct cli_node_opts *o = ctx->opts;
	struct forward_run	 f;
	struct enter_where	 w;
	struct sigaction	 sa;
	char			*cause = NULL;
	long			 lport, port;
	int			 ret;

	if (forward_ports(ctx->argv[1], &lport, &port) != 0) {
		cli_error("forward", "want [LOCAL:]PORT (1-65535), not '%s'",
		    ctx->argv[1]);
		return EXIT_USAGE;
	}
	ctx->argc = 1;
	if ((ret = cli_running_job(ctx, o->node, &w)) != CLI_GO)
		return ret;
	if (w.node == NULL) {
		/* RUNNING, but its node's name was not one to dial. */
		cli_error("forward", "job %ld: SLURM gave no node name to "
		    "forward to", ctx->target->sid);
		enter_where_free(&w);
		return EXIT_FAIL;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	f.conn = ctx->conn;
	f.sid = ctx->target->sid;
	f.node = w.node;
	f.addr = w.addr;
	f.port = (int)port;
	ret = enter_forward(ctx->conn, (int)lport, w.addr, (int)port,
	    &forward_stop, forward_alive, &f, forward_ready, &cause);
	enter_where_free(&w);
	if (ret != 0) {
		cli_error("forward", "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

const struct cli_entry cli_forward_entry = {
	.name = "forward",
	.usage = "[--cluster NAME] [--node N] ID [LOCAL:]PORT",
	.summary = "reach a port of a running job's node on localhost",
	.help = "  ID     record id or SLURM job id of a RUNNING job\n"
	    "  PORT   the port on the job's first node\n"
	    "  LOCAL  the port on 127.0.0.1 (default: a free one, printed)\n"
	    "  --node N  node N of the job's nodes instead (another is "
	    "refused\n"
	    "         with the job's nodes)\n"
	    "  Through the held login (direct-tcpip from the login node); "
	    "several\n"
	    "  connections at once; until Ctrl-C or the job ends.\n",
	.shortopts = "",
	.longopts = cli_node_longopts,
	.flags = CLI_CLUSTER | CLI_CONFIG,
	.args_kind = CLI_ARG_ID,
	.args_min = 2,
	.args_max = 2,
	.args_few = "which job and port? give ID [LOCAL:]PORT",
	.args_many = "give one job and one port",
	.optsize = sizeof (struct cli_node_opts),
	.option = cli_node_option,
	.exec = cli_forward,
};
