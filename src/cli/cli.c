#include "cli.h"
#include "conn.h"
#include "holder.h"
#include "ops.h"
#include "record.h"
#include "tty.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

/* The verbs, in the order sqdeck --help lists them. */
const struct cli_entry *const cli_entries[] = {
	&cli_preflight_entry,
	&cli_submit_entry,
	&cli_status_entry,
	&cli_logs_entry,
	&cli_cancel_entry,
	&cli_jobs_entry,
	&cli_history_entry,
	&cli_creds_entry,
	&cli_retry_entry,
	&cli_login_entry,
	&cli_logout_entry,
	&cli_records_entry,
	&cli_triage_entry,
	NULL
};

/* The getopt value of --cluster after a verb: no character. */
#define CLI_OPT_CLUSTER	256
#define CLI_MAXOPTS	32

static void
usage(FILE *f)
{
	const struct cli_entry	*const *e;
	const char		*u;
	int			 len;

	fprintf(f, "usage: sqdeck [-v] [-c FILE] [--cluster NAME] "
	    "[VERB [ARGS]]\n"
	    "\n"
	    "With no verb, sqdeck opens the terminal UI.\n"
	    "\n"
	    "Verbs:\n");
	for (e = cli_entries; *e != NULL; e++) {
		/* The usage's first line: the others are in VERB --help. */
		u = (*e)->usage;
		len = (int)strcspn(u, "\n");
		fprintf(f, "  %-10s %.*s\n  %-10s   %s\n", (*e)->name, len, u,
		    "", (*e)->summary);
	}
	fprintf(f, "\n"
	    "Options:\n"
	    "  -c FILE         clusters file (default "
	    "$XDG_CONFIG_HOME/sqdeck/clusters.yaml)\n"
	    "  --cluster NAME  cluster to use (default: the first one); also "
	    "after a verb\n"
	    "  -v              say how each cluster is reached (shared login "
	    "or own)\n"
	    "  -h, --help      this help (sqdeck VERB --help: the verb's)\n"
	    "  -V, --version   print the version\n"
	    "\n"
	    "Environment: SLURM_USER, SLURM_HOSTNAME, SLURM_PARTITION, "
	    "SSH_KEY_PATH,\n"
	    "SLURM_BASE_RESULTS_DIR, SLURM_ACCOUNT, SLURM_TIME_HOURS, "
	    "SLURM_USE_REQUEUE.\n"
	    "See sqdeck(1) and sqdeck-clusters.yaml(5).\n");
}

void
cli_usage(const struct cli_entry *e, FILE *f)
{
	cli_fprintf(f, "usage: sqdeck %s %s\n%s", e->name, e->usage,
	    e->help != NULL ? e->help : "");
}

/* A bad option, named with its verb; then the verb's usage. */
static int
cli_badopt(const struct cli_entry *e, int ch, int argc, char **argv)
{
	const char	*arg = "";
	int		 len;

	if (optind > 0 && optind <= argc)
		arg = argv[optind - 1];
	if (strncmp(arg, "--", 2) == 0) {
		len = (int)strcspn(arg, "=");
		if (ch == ':')
			cli_error(e->name, "option '%.*s' needs a value", len,
			    arg);
		else
			cli_error(e->name, "unknown option '%.*s'", len, arg);
	} else if (ch == ':')
		cli_error(e->name, "option '-%c' needs a value", optopt);
	else
		cli_error(e->name, "unknown option '-%c'", optopt);
	cli_usage(e, stderr);
	return CLI_OPT_BAD;
}

int
cli_getopt(struct cli *cli, const struct cli_entry *e, int argc, char **argv)
{
	struct option	lo[CLI_MAXOPTS + 3];
	char		so[64];
	size_t		n = 0;
	int		ch;

	while (e->longopts != NULL && e->longopts[n].name != NULL &&
	    n < CLI_MAXOPTS) {
		lo[n] = e->longopts[n];
		n++;
	}
	if (e->flags & CLI_CLUSTER)
		lo[n++] = (struct option){ "cluster", required_argument, NULL,
		    CLI_OPT_CLUSTER };
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	memset(&lo[n], 0, sizeof lo[n]);
	/* ':' first: a missing value comes back as ':', not '?'. */
	snprintf(so, sizeof so, ":%sh", e->shortopts != NULL ? e->shortopts :
	    "");
	opterr = 0;
	for (;;) {
		switch ((ch = getopt_long(argc, argv, so, lo, NULL))) {
		case CLI_OPT_CLUSTER:
			cli->cluster = optarg;
			break;
		case 'h':
			cli_usage(e, stdout);
			return CLI_OPT_HELP;
		case '?':
		case ':':
			return cli_badopt(e, ch, argc, argv);
		default:
			return ch;
		}
	}
}

static void
cli_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char	*raw, *safe;
	size_t	 len;

	raw = xvasprintf(fmt, ap);
	safe = text_sanitize(raw, strlen(raw), TEXT_CR_LINES | TEXT_TABS,
	    &len);
	fwrite(safe, 1, len, f);
	free(safe);
	free(raw);
}

void
cli_printf(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_vfprintf(stdout, fmt, ap);
	va_end(ap);
}

void
cli_fprintf(FILE *f, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_vfprintf(f, fmt, ap);
	va_end(ap);
}

void
cli_error(const char *verb, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (verb != NULL)
		cli_fprintf(stderr, "sqdeck: %s: %s\n", verb, msg);
	else
		cli_fprintf(stderr, "sqdeck: %s\n", msg);
	free(msg);
}

void
cli_fputs(const char *s, FILE *f)
{
	char	*safe;
	size_t	 len;

	safe = text_sanitize(s, strlen(s), TEXT_CR_LINES | TEXT_TABS, &len);
	fwrite(safe, 1, len, f);
	free(safe);
}

void
cli_json(FILE *f, const cJSON *o, int compact)
{
	char	*raw, *safe;
	size_t	 len;

	raw = compact ? cJSON_PrintUnformatted(o) : cJSON_Print(o);
	if (raw == NULL)
		return;
	/* cJSON copies bytes >= 0x80 as they are: make them UTF-8. */
	safe = text_utf8(raw, strlen(raw), &len);
	fwrite(safe, 1, len, f);
	fputc('\n', f);
	free(safe);
	cJSON_free(raw);
}

int
cli_number(const char *s, long min, long max, long *out)
{
	char	*end;
	long	 l;

	errno = 0;
	l = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || l < min || l > max)
		return -1;
	*out = l;
	return 0;
}

const char *
cli_state_text(const struct record *r, char *buf, size_t len)
{
	if (r->state == RSTATE_ERROR && r->err_class != ERR_NONE)
		snprintf(buf, len, "%s/%s", state_word(r->state),
		    err_class_name(r->err_class));
	else
		snprintf(buf, len, "%s", state_word(r->state));
	return buf;
}

/*
 * No core files: a crash must not write HF_TOKEN or NGC_KEY (in the
 * environment and in memory) to disk, and a non-dumpable process cannot be
 * ptrace-attached or have its memory read through /proc by other processes
 * of the same user.
 */
static void
cli_nocore(void)
{
	struct rlimit	rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* Records of a cluster name now gone, moved by host and user (ops.h). */
void
cli_adopt(const struct config *cfg)
{
	struct strv	said;
	size_t		i;

	memset(&said, 0, sizeof said);
	ops_adopt(cfg, &said);
	for (i = 0; i < said.n; i++)
		cli_error(NULL, "%s", said.v[i]);
	strv_free(&said);
}

struct cluster *
cli_record_cluster(struct config *cfg, const struct record *rec,
    char **cause)
{
	struct cluster	*cl;
	char		*why;

	if ((why = ops_orphan_why(cfg, rec)) != NULL) {
		free(*cause);
		*cause = why;
		return NULL;
	}
	cl = config_cluster(cfg, rec->cluster, cause);
	return cl;
}

int
cli_load(struct cli *cli, struct config *cfg, struct cluster **cp)
{
	char	*cause = NULL;

	/* Environment overrides go to the cluster the user picked. */
	if (cli->cluster != NULL)
		setenv("SQDECK_CLUSTER", cli->cluster, 1);
	if (config_load(cli->config_path, cfg, &cause) != 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		return -1;
	}
	cli_adopt(cfg);
	*cp = config_cluster(cfg, cli->cluster, &cause);
	if (*cp == NULL) {
		cli_error(NULL, "%s", cause);
		free(cause);
		config_free(cfg);
		return -1;
	}
	return 0;
}

int
cli_main(int argc, char **argv, int (*tui)(const char *))
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli		 cli;
	const struct cli_entry	*const *e;
	char			*cause = NULL;
	int			 ch;

	cli_nocore();
	memset(&cli, 0, sizeof cli);
	/* The holder: sqdeck runs itself this way (holder.h). */
	if (argc == 2 && strcmp(argv[1], "__holder") == 0)
		return holder_main();
	/* '+': stop at the verb, its options are its own. */
	while ((ch = getopt_long(argc, argv, "+c:hvV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cli.config_path = optarg;
			break;
		case 'C':
			cli.cluster = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'v':
			cli.verbose = 1;
			break;
		case 'V':
			printf("sqdeck %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (path_check(&cause) != 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	/* One login per cluster, shared through the holder (holder.h). */
	conn_holder_enable("/proc/self/exe", argc != 0 && cli.verbose);
	if (argc == 0)
		return tui(cli.config_path);
	conn_set_default_prompt(tty_prompt, NULL);
	if (strcmp(argv[0], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	for (e = cli_entries; *e != NULL; e++) {
		if (strcmp((*e)->name, argv[0]) == 0) {
			optind = 0;	/* reset getopt for the verb */
			return (*e)->exec(&cli, argc, argv);
		}
	}
	cli_error(NULL, "unknown verb '%s' (try sqdeck --help)", argv[0]);
	return EXIT_USAGE;
}
