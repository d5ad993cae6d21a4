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

/*
 * [CLUSTER] or --cluster NAME, before or after the verb (CLUSTER wins).
 * Returns -1 to go on, or the verb's exit status.
 */
static int
login_cluster_arg(struct cli *cli, const struct cli_entry *e, int argc,
    char **argv)
{
	int	ch;

	if ((ch = cli_getopt(cli, e, argc, argv)) != -1)
		return CLI_OPT_EXIT(ch);
	if (argc - optind > 1) {
		cli_usage(e, stderr);
		return EXIT_USAGE;
	}
	if (optind < argc)
		cli->cluster = argv[optind];
	return -1;
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
cli_login(struct cli *cli, int argc, char **argv)
{
	struct config	 cfg;
	struct cluster	*cl;
	struct conn	*c;
	char		*cause = NULL, *idle;
	int		 persist, rc = EXIT_FAIL;

	if ((rc = login_cluster_arg(cli, &cli_login_entry, argc, argv)) != -1)
		return rc;
	rc = EXIT_FAIL;
	if (cli_load(cli, &cfg, &cl) != 0)
		return EXIT_USAGE;
	persist = cl->persist < 0 ? 600 : cl->persist;
	if (persist == 0) {
		cli_error(NULL, "persist: is off for cluster %s, so "
		    "no login is held: every command logs in on its own. Set "
		    "persist: 10m in its entry of %s to keep one", cl->name,
		    cfg.path != NULL ? cfg.path : "clusters.yaml");
		config_free(&cfg);
		return EXIT_USAGE;
	}
	c = conn_new_cluster(cl);
	if (conn_connect(c, &cause) != 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		goto out;
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
	rc = EXIT_OK;
out:
	conn_free(c);
	config_free(&cfg);
	return rc;
}

static int
cli_logout(struct cli *cli, int argc, char **argv)
{
	struct config	 cfg;
	struct cluster	*cl;
	struct conn	*c;
	char		*cause = NULL;
	int		 n;

	if ((n = login_cluster_arg(cli, &cli_logout_entry, argc, argv)) != -1)
		return n;
	if (cli->cluster == NULL) {
		if ((n = conn_holder_stop_all(&cause)) < 0) {
			cli_error(NULL, "%s", cause);
			free(cause);
			return EXIT_FAIL;
		}
		printf("%d login%s ended\n", n, n == 1 ? "" : "s");
		return EXIT_OK;
	}
	if (cli_load(cli, &cfg, &cl) != 0)
		return EXIT_USAGE;
	c = conn_new_cluster(cl);
	n = conn_holder_stop(c, &cause);
	conn_free(c);
	if (n < 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		config_free(&cfg);
		return EXIT_FAIL;
	}
	printf(n > 0 ? "logged out of %s\n" : "no login held for %s\n",
	    cl->name);
	config_free(&cfg);
	return EXIT_OK;
}

const struct cli_entry cli_login_entry = {
	.name = "login",
	.usage = "[CLUSTER | --cluster NAME]",
	.summary = "log in once (key, then any second factor) and keep the "
	    "login",
	.help = "  CLUSTER  the cluster to log in to (default: the first "
	    "one)\n",
	.flags = CLI_CLUSTER,
	.exec = cli_login,
};

const struct cli_entry cli_logout_entry = {
	.name = "logout",
	.usage = "[CLUSTER | --cluster NAME]",
	.summary = "end the kept login (of every cluster with no CLUSTER)",
	.help = "  CLUSTER  the cluster whose kept login ends (default: every "
	    "cluster's)\n",
	.flags = CLI_CLUSTER,
	.exec = cli_logout,
};
