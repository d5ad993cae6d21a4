/*
 * sqdeck creds install: Enroot registry credentials on the cluster (sqdeck(1):
 * creds). The key comes from NGC_KEY (or stdin with --stdin) and leaves this
 * machine only inside the script sent on the SSH channel's stdin.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "creds.h"
#include "submit.h"

static struct termios	saved_tty;
static volatile sig_atomic_t tty_saved;

/* A signal while echo is off: the terminal gets its echo back. */
static void
restore_tty(int sig)
{
	if (tty_saved)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* First line of stdin, without its newline; echo off on a terminal. */
static char *
read_key(const char *what)
{
	struct termios	 t;
	struct buf	 b;
	int		 ch, tty;

	tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	if (tty) {
		signal(SIGINT, restore_tty);
		signal(SIGTERM, restore_tty);
		signal(SIGHUP, restore_tty);
		signal(SIGTSTP, restore_tty);
		t = saved_tty;
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		tty_saved = 1;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &t);
		fprintf(stderr, "%s (not echoed): ", what);
		fflush(stderr);
	}
	buf_init(&b);
	buf_adds(&b, "");
	while ((ch = getchar()) != EOF && ch != '\n')
		buf_add(&b, &(char){ (char)ch }, 1);
	if (b.len > 0 && b.data[b.len - 1] == '\r')
		b.data[--b.len] = '\0';
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
		tty_saved = 0;
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTSTP, SIG_DFL);
		fputc('\n', stderr);
	}
	return buf_steal(&b);
}

static const struct option creds_options[] = {
	{ "stdin", no_argument, NULL, 's' },
	{ "registry", required_argument, NULL, 'r' },
	{ "login", required_argument, NULL, 'l' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

struct creds_opts {
	int		 from_stdin;
	const char	*registry;
	const char	*login;
	int		 json;
};

static int
creds_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct creds_opts	*o = ctx->opts;

	if (ch == 's')
		o->from_stdin = 1;
	else if (ch == 'r')
		o->registry = arg;
	else if (ch == 'l')
		o->login = arg;
	else
		o->json = 1;
	return CLI_GO;
}

/* Bad registry or missing login: said before the key is asked for. */
static int
creds_check(struct cli_ctx *ctx)
{
	const struct creds_opts	*o = ctx->opts;
	char			*m, *cause = NULL;
	int			 ret = CLI_GO;

	if (strcmp(ctx->argv[0], "install") != 0) {
		cli_usage(ctx->entry, stderr);
		return EXIT_USAGE;
	}
	if (o->login != NULL && o->registry == NULL) {
		cli_error("creds", "--login needs --registry (the NGC login "
		    "is $oauthtoken)");
		return EXIT_USAGE;
	}
	if (o->registry == NULL)
		return CLI_GO;
	if ((m = creds_machine(o->registry, &cause)) == NULL) {
		cli_error("creds", "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	if (o->login == NULL && strcmp(m, "nvcr.io") != 0) {
		cli_error("creds", "registry %s needs a login: give --login "
		    "USER", o->registry);
		ret = EXIT_USAGE;
	}
	free(m);
	return ret;
}

/* The key or password: stdin, else the environment; NULL if none. */
static char *
creds_key(const struct creds_opts *o)
{
	const char	*env;

	if (o->from_stdin)
		return read_key(o->registry != NULL ? "registry password" :
		    "NGC key");
	if (o->registry != NULL)
		env = getenv("SQDECK_REGISTRY_PASSWORD");
	else if ((env = getenv("NGC_KEY")) == NULL || *env == '\0')
		env = getenv("NGC_API_KEY");
	return env != NULL && *env != '\0' ? xstrdup(env) : NULL;
}

static void
creds_said(const struct cluster *cl, const struct creds *cr, int json)
{
	cJSON	*o;

	if (!json) {
		cli_printf("enroot credentials installed on cluster %s: %s "
		    "(mode 600)\n  machine %s (login %s); %d line%s for other "
		    "machines kept\n", cl->name, cr->path ? cr->path : "?",
		    cr->machines, cr->login, cr->kept, cr->kept == 1 ? "" :
		    "s");
		return;
	}
	o = cli_json_doc("creds");
	cJSON_AddStringToObject(o, "cluster", cl->name);
	cli_json_str(o, "path", cr->path);
	cJSON_AddNumberToObject(o, "kept_lines", cr->kept);
	cJSON_AddStringToObject(o, "machines", cr->machines);
	cJSON_AddStringToObject(o, "login", cr->login);
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static int
cli_creds(struct cli_ctx *ctx)
{
	const struct creds_opts	*o = ctx->opts;
	struct creds		 cr;
	char			*key, *cause = NULL;
	int			 ret = EXIT_FAIL;

	if ((key = creds_key(o)) == NULL || *key == '\0') {
		cli_error("creds", "no %s: export %s, or give it with --stdin",
		    o->registry != NULL ? "password" : "key", o->registry !=
		    NULL ? "SQDECK_REGISTRY_PASSWORD" : "NGC_KEY");
		free(key);
		return EXIT_USAGE;
	}
	/* After the key is read: it is zeroed on every way out. */
	if (cli_need(ctx, CLI_CONFIG | CLI_CONN) != CLI_GO)
		goto out;
	if (creds_install(ctx->conn, o->registry, o->login, key, &cr,
	    &cause) != 0) {
		cli_error("creds", "cluster %s: %s", ctx->cl->name, cause);
		free(cause);
		goto out;
	}
	creds_said(ctx->cl, &cr, o->json);
	creds_free(&cr);
	ret = EXIT_OK;
out:
	memset(key, 0, strlen(key));
	free(key);
	return ret;
}

const struct cli_entry cli_creds_entry = {
	.name = "creds",
	.usage = "install [--cluster NAME] [--registry HOST[:PORT] --login "
	    "USER]\n"
	    "                             [--stdin] [--json]",
	.summary = "install Enroot registry credentials on the cluster (stdin "
	    "only)",
	.help = "  Writes ~/.config/enroot/.credentials on the cluster "
	    "with umask 077, keeping\n"
	    "  other machines' lines.  Default: machine nvcr.io and "
	    "authn.nvidia.com, login\n"
	    "  $oauthtoken, the key from NGC_KEY (or NGC_API_KEY).  "
	    "With --registry: machine\n"
	    "  HOST (without the port, as Enroot looks it up), login "
	    "USER, the password from\n"
	    "  SQDECK_REGISTRY_PASSWORD.  --stdin reads the first line "
	    "of standard input\n"
	    "  instead (on a terminal it asks, with echo off).  The "
	    "secret is never put on a\n"
	    "  command line.\n",
	.shortopts = "",
	.longopts = creds_options,
	.flags = CLI_CLUSTER,	/* the config after the key: cli_need() */
	.args_words = "install",
	.args_min = 1,
	.args_max = 1,
	.optsize = sizeof (struct creds_opts),
	.option = creds_option,
	.check = creds_check,
	.exec = cli_creds,
};
