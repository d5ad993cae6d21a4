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
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "util.h"

/* The verbs, in the order sqdeck --help lists them. */
const struct cli_entry *const cli_entries[] = {
	&cli_preflight_entry,
	&cli_submit_entry,
	&cli_status_entry,
	&cli_logs_entry,
	&cli_cancel_entry,
	&cli_hold_entry,
	&cli_release_entry,
	&cli_requeue_entry,
	&cli_signal_entry,
	&cli_time_entry,
	&cli_gpu_entry,
	&cli_jobs_entry,
	&cli_history_entry,
	&cli_creds_entry,
	&cli_retry_entry,
	&cli_login_entry,
	&cli_logout_entry,
	&cli_records_entry,
	&cli_triage_entry,
	&cli_shell_entry,
	&cli_forward_entry,
	NULL
};

/* The getopt values of --cluster and --color after a verb: no character. */
#define CLI_OPT_CLUSTER	256
#define CLI_OPT_COLOR	257
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
	    "  --color=WHEN    colour the tables: auto (default), always, "
	    "never\n"
	    "  -h, --help      this help (sqdeck VERB --help: the verb's)\n"
	    "  -V, --version   print the version\n"
	    "\n"
	    "Environment: SLURM_USER, SLURM_HOSTNAME, SLURM_PARTITION, "
	    "SSH_KEY_PATH,\n"
	    "SLURM_BASE_RESULTS_DIR, SLURM_ACCOUNT, SLURM_TIME_HOURS, "
	    "SLURM_USE_REQUEUE, NO_COLOR.\n"
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

/* --color=WHEN, before or after the verb: 0, or -1 after saying why. */
static int
cli_color(struct cli *cli, const char *verb, const char *arg)
{
	if (color_parse_when(arg, &cli->color_when) == 0)
		return 0;
	cli_error(verb, "--color must be auto, always or never, not '%s'",
	    arg);
	return -1;
}

int
cli_getopt(struct cli *cli, const struct cli_entry *e, int argc, char **argv)
{
	struct option	lo[CLI_MAXOPTS + 4];
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
	lo[n++] = (struct option){ "color", required_argument, NULL,
	    CLI_OPT_COLOR };
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
		case CLI_OPT_COLOR:
			if (cli_color(cli, e->name, optarg) != 0) {
				cli_usage(e, stderr);
				return CLI_OPT_BAD;
			}
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

void
cli_json_str(cJSON *o, const char *key, const char *value)
{
	if (value != NULL)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
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

/*
 * Records made under a cluster name now gone: moved by host and user,
 * said on stderr (ops_adopt).
 */
static void
cli_adopt(const struct config *cfg, const char *path)
{
	struct strv	said;
	char		*own = config_default_path(), *a, *b;
	size_t		i;

	memset(&said, 0, sizeof said);
	a = path != NULL ? realpath(path, NULL) : NULL;
	b = own != NULL ? realpath(own, NULL) : NULL;
	/* -c naming the user's own file is the user's own configuration. */
	if (path != NULL && (a == NULL || b == NULL || strcmp(a, b) != 0))
		ops_adopt_look(cfg, path, &said);
	else
		ops_adopt(cfg, &said);
	free(a);
	free(b);
	free(own);
	for (i = 0; i < said.n; i++)
		cli_error(NULL, "%s", said.v[i]);
	strv_free(&said);
}

int
cli_load(struct cli *cli, struct config *cfg, struct cluster **cp)
{
	char	*cause = NULL;

	/*
	 * The environment's SLURM_* and SSH_* describe one cluster: the one
	 * SQDECK_CLUSTER names, else the first (sqdeck(1) ENVIRONMENT).
	 * --cluster picks which cluster the verb talks to; it never moves
	 * those values onto another cluster, whose login node they do not
	 * describe.
	 */
	if (config_load(cli->config_path, cfg, &cause) != 0) {
		cli_error(NULL, "%s", cause);
		free(cause);
		return -1;
	}
	cli_adopt(cfg, cli->config_path);
	*cp = config_cluster(cfg, cli->cluster, &cause);
	if (*cp == NULL) {
		cli_error(NULL, "%s", cause);
		free(cause);
		config_free(cfg);
		return -1;
	}
	return 0;
}

/* --- the entries' framework: what a verb needs, made once -------------- */

struct cli_conn {
	struct cluster	*cl;
	struct conn	*c;
};

struct record_index *
cli_rindex(struct cli_ctx *ctx)
{
	if (ctx->rindex == NULL) {
		ctx->rindex = record_index_new();
		(void)record_index_load(ctx->rindex);
	}
	return ctx->rindex;
}

struct conn *
cli_conn(struct cli_ctx *ctx, struct cluster *cl)
{
	size_t	i;

	for (i = 0; i < ctx->nconns; i++) {
		if (ctx->conns[i].cl == cl)
			return ctx->conns[i].c;
	}
	ctx->conns = xrealloc(ctx->conns, (ctx->nconns + 1) *
	    sizeof *ctx->conns);
	ctx->conns[ctx->nconns].cl = cl;
	ctx->conns[ctx->nconns].c = conn_new_cluster(cl);
	return ctx->conns[ctx->nconns++].c;
}

/*
 * The job one argument names, in the picked cluster's records first; a
 * record elsewhere brings its own cluster (it knows where it ran).
 */
static int
cli_target(struct cli_ctx *ctx, struct cli_target *t)
{
	const char	*verb = ctx->entry->name;
	char		*cause = NULL;
	int		 rc;

	t->cl = ctx->cl;
	jobid_parse(t->arg, &t->id);
	if (ctx->entry->flags & CLI_TASKS) {
		/* sqdeck keeps no record of arrays: a task is its own. */
		if (t->id.kind == JOBID_TASK || t->id.kind == JOBID_RANGE)
			return CLI_GO;
		if (t->id.kind == JOBID_BAD && t->arg[t->id.joblen] == '_') {
			cli_error(verb, "invalid array task id '%s': give "
			    "JOBID_TASK, e.g. 12_3, or a range of tasks, "
			    "12_[4-9]", t->arg);
			return EXIT_USAGE;
		}
	}
	if ((rc = ops_find_in(cli_rindex(ctx), t->arg, ctx->cl->name,
	    &t->rec, &t->sid, &cause)) < 0) {
		cli_error(verb, "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	if (rc == 1 || t->rec->cluster == NULL ||
	    strcmp(t->rec->cluster, ctx->cl->name) == 0)
		return CLI_GO;
	/*
	 * A SLURM id on the cluster --cluster picked is that cluster's job:
	 * another cluster's record of the same number is another job.  Every
	 * cluster hands out the same small ids; tests/compat/run's cancel of
	 * an array on slurm-24.11 took slurm-26.05's record of its job 38 and
	 * cancelled nothing.
	 */
	if (ctx->cli->cluster != NULL && t->id.kind == JOBID_JOB) {
		record_free(t->rec);
		t->rec = NULL;
		return CLI_GO;
	}
	if ((ctx->entry->flags & CLI_OWN) && ctx->cli->cluster != NULL) {
		cli_error(verb, "record %s belongs to cluster %s, not %s",
		    t->rec->id, t->rec->cluster, ctx->cl->name);
		return EXIT_USAGE;
	}
	if ((cause = ops_orphan_why(&ctx->cfg, t->rec)) == NULL &&
	    (t->cl = config_cluster(&ctx->cfg, t->rec->cluster, &cause)) != NULL)
		return CLI_GO;
	cli_error(verb, "record %s: %s", t->rec->id, cause);
	free(cause);
	return EXIT_FAIL;
}

int
cli_need(struct cli_ctx *ctx, int flags)
{
	int	i, ret;

	flags &= ~ctx->have;
	if ((flags & (CLI_CONFIG | CLI_TARGET | CLI_CONN)) &&
	    !(ctx->have & CLI_CONFIG)) {
		if (cli_load(ctx->cli, &ctx->cfg, &ctx->cl) != 0)
			return EXIT_FAIL;
		ctx->have |= CLI_CONFIG;
	}
	if (flags & CLI_TARGET) {
		ctx->have |= CLI_TARGET;
		ctx->targets = xcalloc((size_t)ctx->argc + 1,
		    sizeof *ctx->targets);
		for (i = 0; i < ctx->argc; i++) {
			ctx->targets[i].arg = ctx->argv[i];
			if ((ret = cli_target(ctx, &ctx->targets[i])) !=
			    CLI_GO)
				return ret;
		}
		if (ctx->argc > 0) {
			ctx->target = &ctx->targets[0];
			ctx->cl = ctx->target->cl;
		}
	}
	if (flags & CLI_CONN) {
		ctx->have |= CLI_CONN;
		ctx->conn = cli_conn(ctx, ctx->cl);
	}
	return CLI_GO;
}

/* Too few or too many arguments: said, with the usage. */
static int
cli_args(struct cli_ctx *ctx)
{
	const struct cli_entry	*e = ctx->entry;

	if (ctx->argc >= e->args_min &&
	    (e->args_max < 0 || ctx->argc <= e->args_max))
		return CLI_GO;
	if (ctx->argc < e->args_min) {
		if (e->args_few != NULL)
			cli_error(e->name, "%s", e->args_few);
	} else if (e->args_many != NULL && e->args_max == 0)
		cli_error(e->name, "%s '%s'", e->args_many, ctx->argv[0]);
	else if (e->args_many != NULL)
		cli_error(e->name, "%s", e->args_many);
	cli_usage(e, stderr);
	return EXIT_USAGE;
}

static void
cli_ctx_free(struct cli_ctx *ctx)
{
	int	i;

	for (i = 0; ctx->targets != NULL && i < ctx->argc; i++)
		record_free(ctx->targets[i].rec);
	free(ctx->targets);
	for (i = 0; i < (int)ctx->nconns; i++)
		conn_free(ctx->conns[i].c);
	free(ctx->conns);
	if (ctx->have & CLI_CONFIG)
		config_free(&ctx->cfg);
	free(ctx->opts);
	if (ctx->rindex != NULL) {
		char	*cause = NULL;

		/* Only a speed-up: a run that cannot keep it says nothing. */
		if (record_index_save(ctx->rindex, &cause) != 0)
			free(cause);
		record_index_free(ctx->rindex);
	}
}

/*
 * A test hook: with SQDECK_TEST_RECORD_READS set to a file name, say there
 * how many record files and listings the verb read (one thread).
 */
static void
cli_reads_report(const char *verb)
{
	const char	*path = getenv("SQDECK_TEST_RECORD_READS");
	FILE		*f;

	if (path == NULL || *path == '\0' || (f = fopen(path, "w")) == NULL)
		return;
	fprintf(f, "%s record reads: %lu\n", verb, record_reads_here());
	fclose(f);
}

/* A verb from its entry: options, arguments, what it needs, the action. */
static int
cli_run(struct cli *cli, const struct cli_entry *e, int argc, char **argv)
{
	struct cli_ctx	ctx;
	int		ch, ret = CLI_GO;

	memset(&ctx, 0, sizeof ctx);
	ctx.cli = cli;
	ctx.entry = e;
	ctx.opts = xcalloc(1, e->optsize + 1);
	while (ret == CLI_GO &&
	    (ch = cli_getopt(cli, e, argc, argv)) != -1) {
		if (ch == CLI_OPT_HELP || ch == CLI_OPT_BAD)
			ret = CLI_OPT_EXIT(ch);
		else
			ret = e->option(&ctx, ch, optarg);
	}
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	/* https://no-color.org; TERM=dumb cannot show them either. */
	cli->color = color_enabled(cli->color_when, isatty(STDOUT_FILENO),
	    getenv("NO_COLOR"), getenv("TERM"));
	if (ret == CLI_GO)
		ret = cli_args(&ctx);
	if (ret == CLI_GO && e->check != NULL)
		ret = e->check(&ctx);
	if (ret == CLI_GO)
		ret = cli_need(&ctx, e->flags);
	if (ret == CLI_GO)
		ret = e->exec(&ctx);
	cli_ctx_free(&ctx);
	cli_reads_report(e->name);
	return ret;
}

/* The verb argv[0] names, or help. */
static int
cli_verb(struct cli *cli, int argc, char **argv)
{
	const struct cli_entry	*const *e;

	if (strcmp(argv[0], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	for (e = cli_entries; *e != NULL; e++) {
		if (strcmp((*e)->name, argv[0]) == 0) {
			optind = 0;	/* reset getopt for the verb */
			return cli_run(cli, *e, argc, argv);
		}
	}
	cli_error(NULL, "unknown verb '%s' (try sqdeck --help)", argv[0]);
	return EXIT_USAGE;
}

int
cli_main(int argc, char **argv, int (*tui)(const char *))
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "color", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli	 cli;
	char		*cause = NULL;
	int		 ch;

	cli_nocore();
	/*
	 * The sanitiser tells printable code points from others by the
	 * locale (text.h): the verbs use the user's, as the TUI does.  Only
	 * LC_CTYPE: numbers and dates keep the C forms parsers expect.
	 */
	setlocale(LC_CTYPE, "");
	memset(&cli, 0, sizeof cli);
	/* The holder: sqdeck runs itself this way (holder.h). */
	if (argc == 2 && strcmp(argv[1], "__holder") == 0)
		return holder_main();
	/* The shells' completion (completion/): hidden, like __holder. */
	if (argc >= 2 && strcmp(argv[1], "__complete") == 0)
		return cli_complete(argc - 2, argv + 2);
	/* '+': stop at the verb, its options are its own. */
	while ((ch = getopt_long(argc, argv, "+c:hvV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cli.config_path = optarg;
			break;
		case 'C':
			cli.cluster = optarg;
			break;
		case 'O':
			if (cli_color(&cli, NULL, optarg) != 0) {
				usage(stderr);
				return EXIT_USAGE;
			}
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
	return cli_verb(&cli, argc, argv);
}
