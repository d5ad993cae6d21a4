/*
 * sqdeck login [CLUSTER] / sqdeck logout [CLUSTER]: the shared login of a
 * cluster, held by the holder process (see holder.h).
 */
#include "cli.h"
#include "conn.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* [CLUSTER] or --cluster NAME, before or after the verb (CLUSTER wins). */
static int
login_check(struct cli_ctx *ctx)
{
	if (ctx->argc == 1)
		ctx->cli->cluster = ctx->argv[0];
	return CLI_GO;
}

static char *
login_minutes(int secs)
{
	if (secs % 3600 == 0)
		return xasprintf("%d h", secs / 3600);
	if (secs % 60 == 0)
		return xasprintf("%d min", secs / 60);
	return xasprintf("%d s", secs);
}

static int
cli_login(struct cli_ctx *ctx)
{
	struct cluster	*cl;
	struct conn	*c;
	char		*cause = NULL, *idle;
	int		 persist;

	/* A cluster that is not there is a usage error here. */
	if (cli_need(ctx, CLI_CONFIG | CLI_CONN) != CLI_GO)
		return EXIT_USAGE;
	cl = ctx->cl;
	c = ctx->conn;
	persist = cl->persist < 0 ? 600 : cl->persist;
	if (persist == 0) {
		cli_error(NULL, "persist: is off for cluster %s, so no login "
		    "is held: every command logs in on its own. Set persist: "
		    "10m in its entry of %s to keep one", cl->name,
		    ctx->cfg.path != NULL ? ctx->cfg.path : "clusters.yaml");
		return EXIT_USAGE;
	}
	if (conn_connect(c, &cause) != 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	idle = login_minutes(persist);
	if (conn_holder_pid(c) != 0)
		printf("logged in to %s (%s). The login is held by process "
		    "%ld for every sqdeck command and the TUI; it ends after "
		    "%s without use, or with: sqdeck logout %s\n", cl->name,
		    conn_target(c), conn_holder_pid(c), idle, cl->name);
	else
		printf("logged in to %s (%s), but no login could be held "
		    "(run with -v to see why): each command will log in on "
		    "its own\n", cl->name, conn_target(c));
	free(idle);
	return EXIT_OK;
}

static int
cli_logout(struct cli_ctx *ctx)
{
	char	*cause = NULL;
	int	 n;

	if (ctx->cli->cluster == NULL)
		n = conn_holder_stop_all(&cause);
	else if (cli_need(ctx, CLI_CONFIG | CLI_CONN) != CLI_GO)
		return EXIT_USAGE;
	else
		n = conn_holder_stop(ctx->conn, &cause);
	if (n < 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	if (ctx->cli->cluster == NULL)
		printf("%d login%s ended\n", n, n == 1 ? "" : "s");
	else
		printf(n > 0 ? "logged out of %s\n" : "no login held for "
		    "%s\n", ctx->cl->name);
	return EXIT_OK;
}

const struct cli_entry cli_login_entry = {
	.name = "login",
	.usage = "[CLUSTER | --cluster NAME]",
	.summary = "log in once (key, then any second factor) and keep the "
	    "login",
	.help = "  CLUSTER  the cluster to log in to (default: the first "
	    "one)\n",
	.flags = CLI_CLUSTER,	/* the config from cli_need() */
	.args_kind = CLI_ARG_CLUSTER,
	.args_max = 1,
	.check = login_check,
	.exec = cli_login,
};

const struct cli_entry cli_logout_entry = {
	.name = "logout",
	.usage = "[CLUSTER | --cluster NAME]",
	.summary = "end the kept login (of every cluster with no CLUSTER)",
	.help = "  CLUSTER  the cluster whose kept login ends (default: every "
	    "cluster's)\n",
	.flags = CLI_CLUSTER,	/* the config only for one cluster */
	.args_kind = CLI_ARG_CLUSTER,
	.args_max = 1,
	.check = login_check,
	.exec = cli_logout,
};
