#include "cli.h"
#include "conn.h"
#include "holder.h"
#include "ops.h"
#include "tty.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

struct verb {
	const char	*name;
	int		(*fn)(struct cli *, int, char **);
	const char	*usage;
	const char	*summary;
};

/* One line per verb; `sqdeck help` and --help print this table. */
static const struct verb verbs[] = {
	{ "preflight", cli_preflight, "[--json | --raw | --script]",
	  "check SSH, SLURM tools, Pyxis/Enroot, storage and partitions" },
	{ "submit", cli_submit, "SPEC.yaml [--dry-run] [--json]",
	  "stage and launch a job (preflight, image, secrets, sbatch)" },
	{ "status", cli_status, "[ID] [--watch [--interval S]] [--json]",
	  "update and show the state of jobs" },
	{ "logs", cli_logs, "ID [-n N] [--err] [--follow [--interval S]]",
	  "show the job's main.out (or main.err)" },
	{ "cancel", cli_cancel, "ID...",
	  "cancel jobs (an ended job counts as cancelled)" },
	{ "jobs", cli_jobs, "[--all] [--json]",
	  "the live queue of your jobs plus recent records" },
	{ "history", cli_history, "[--days N] [--json]",
	  "your jobs that ended recently, from accounting (sacct)" },
	{ "creds", cli_creds, "install [--stdin] [--json]",
	  "install Enroot registry credentials on the cluster (stdin only)" },
	{ "retry", cli_retry, "[--json] ID",
	  "resubmit a failed job by hand (same staged workload, bad nodes excluded)" },
	{ "login", cli_login, "[CLUSTER]",
	  "log in once (key, then any second factor) and keep the login" },
	{ "logout", cli_logout, "[CLUSTER]",
	  "end the kept login (of every cluster with no CLUSTER)" },
	{ "records", cli_records, "[--json] [--all] [--chain ID]",
	  "list the local job records" },
	{ "triage", cli_triage, "[--state S] [--exit CODE[:SIG]] [--json] [LOGFILE...]",
	  "classify a failed job as INFRA, PROGRAM or CONFIG" },
	{ NULL, NULL, NULL, NULL }
};

static void
usage(FILE *f)
{
	const struct verb	*v;

	fprintf(f, "usage: sqdeck [-v] [-c FILE] [--cluster NAME] "
	    "[VERB [ARGS]]\n"
	    "\n"
	    "With no verb, sqdeck opens the terminal UI.\n"
	    "\n"
	    "Verbs:\n");
	for (v = verbs; v->name != NULL; v++)
		fprintf(f, "  %-10s %s\n  %-10s   %s\n", v->name, v->usage, "",
		    v->summary);
	fprintf(f, "\n"
	    "Options:\n"
	    "  -c FILE         clusters file (default "
	    "$XDG_CONFIG_HOME/sqdeck/clusters.yaml)\n"
	    "  --cluster NAME  cluster to use (default: the first one)\n"
	    "  -v              say how each cluster is reached (shared login "
	    "or own)\n"
	    "  -h, --help      this help\n"
	    "  -V, --version   print the version\n"
	    "\n"
	    "Environment: SLURM_USER, SLURM_HOSTNAME, SLURM_PARTITION, "
	    "SSH_KEY_PATH,\n"
	    "SLURM_BASE_RESULTS_DIR, SLURM_ACCOUNT, SLURM_TIME_HOURS, "
	    "SLURM_USE_REQUEUE.\n"
	    "See sqdeck(1) and sqdeck-clusters.yaml(5).\n");
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
		cli_fprintf(stderr, "sqdeck: %s\n", said.v[i]);
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
		cli_fprintf(stderr, "sqdeck: %s\n", cause);
		free(cause);
		return -1;
	}
	cli_adopt(cfg);
	*cp = config_cluster(cfg, cli->cluster, &cause);
	if (*cp == NULL) {
		cli_fprintf(stderr, "sqdeck: %s\n", cause);
		free(cause);
		config_free(cfg);
		return -1;
	}
	return 0;
}

int
cli_main(int argc, char **argv, int (*tui)(struct cli *))
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli		 cli;
	const struct verb	*v;
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
		fprintf(stderr, "sqdeck: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	/* One login per cluster, shared through the holder (holder.h). */
	conn_holder_enable("/proc/self/exe", argc != 0 && cli.verbose);
	if (argc == 0)
		return tui(&cli);
	conn_set_default_prompt(tty_prompt, NULL);
	if (strcmp(argv[0], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	for (v = verbs; v->name != NULL; v++) {
		if (strcmp(v->name, argv[0]) == 0) {
			optind = 0;	/* reset getopt for the verb */
			return v->fn(&cli, argc, argv);
		}
	}
	cli_fprintf(stderr, "sqdeck: unknown verb '%s' (try sqdeck --help)\n",
	    argv[0]);
	return EXIT_USAGE;
}
