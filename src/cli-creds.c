/*
 * sqdeck creds install: Enroot registry credentials on the cluster (R7).
 * The key comes from NGC_KEY (or stdin with --stdin) and leaves this
 * machine only inside the script sent on the SSH channel's stdin.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "submit.h"

static void
usage(FILE *f)
{
	cli_fprintf(f, "usage: sqdeck creds install [--cluster NAME] [--stdin] "
	    "[--json]\n"
	    "  Writes ~/.config/enroot/.credentials on the cluster (machine "
	    "nvcr.io and\n"
	    "  authn.nvidia.com, login $oauthtoken) with umask 077, keeping "
	    "other machines.\n"
	    "  The key is read from NGC_KEY (or NGC_API_KEY), or with --stdin "
	    "from the first\n"
	    "  line of standard input; it is never put on a command line.\n");
}

/* First line of stdin, without its newline. */
static char *
read_key(void)
{
	struct buf	b;
	int		ch;

	buf_init(&b);
	buf_adds(&b, "");
	while ((ch = getchar()) != EOF && ch != '\n')
		buf_add(&b, &(char){ (char)ch }, 1);
	if (b.len > 0 && b.data[b.len - 1] == '\r')
		b.data[--b.len] = '\0';
	return buf_steal(&b);
}

int
cli_creds(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "stdin", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct submit_creds	 cr;
	struct config		 cfg;
	struct cluster		*cl;
	struct conn		*c;
	cJSON			*o;
	const char		*env;
	char			*key = NULL, *cause = NULL;
	int			 ch, from_stdin = 0, json = 0, ret = EXIT_FAIL;

	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			cli->cluster = optarg;
			break;
		case 's':
			from_stdin = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || strcmp(argv[optind], "install") != 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (from_stdin)
		key = read_key();
	else if ((env = getenv("NGC_KEY")) != NULL && *env != '\0')
		key = xstrdup(env);
	else if ((env = getenv("NGC_API_KEY")) != NULL && *env != '\0')
		key = xstrdup(env);
	if (key == NULL || *key == '\0') {
		cli_fprintf(stderr, "sqdeck: creds: no key: export NGC_KEY, or "
		    "pipe it in with --stdin\n");
		free(key);
		return EXIT_USAGE;
	}
	if (cli_load(cli, &cfg, &cl) != 0) {
		memset(key, 0, strlen(key));
		free(key);
		return EXIT_FAIL;
	}
	c = conn_new_cluster(cl);
	if (submit_creds_install(c, key, &cr, &cause) != 0) {
		cli_fprintf(stderr, "sqdeck: creds: cluster %s: %s\n", cl->name,
		    cause);
		free(cause);
		goto out;
	}
	if (json) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cluster", cl->name);
		cJSON_AddStringToObject(o, "path", cr.path ? cr.path : "");
		cJSON_AddNumberToObject(o, "kept_lines", cr.kept);
		cli_json(stdout, o, 0);
		cJSON_Delete(o);
	} else {
		cli_printf("enroot credentials installed on cluster %s: %s (mode "
		    "600)\n  machines nvcr.io and authn.nvidia.com (login "
		    "$oauthtoken); %d line%s for other machines kept\n",
		    cl->name, cr.path ? cr.path : "?", cr.kept,
		    cr.kept == 1 ? "" : "s");
	}
	submit_creds_free(&cr);
	ret = EXIT_OK;
out:
	memset(key, 0, strlen(key));
	free(key);
	conn_free(c);
	config_free(&cfg);
	return ret;
}
