/*
 * The verbs as entries (cli.h): sqdeck --help and VERB --help are made
 * from cli_entries, --cluster works after every verb that uses a cluster,
 * and a bad option is named with its verb.  Runs the built binary on a
 * local clusters file: nothing here reaches a cluster.
 */
#include "testutil.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>

#include "cli.h"
#include "color.h"
#include "record.h"
#include "state.h"
#include "util.h"

static char	*home;
extern char	**environ;

/* Unset every variable whose name starts with prefix. */
static void
clear_env(const char *prefix)
{
	char	**e, *name;
	size_t	  n;

	for (;;) {
		for (e = environ; *e != NULL; e++) {
			if (str_has_prefix(*e, prefix))
				break;
		}
		if (*e == NULL)
			return;
		n = strcspn(*e, "=");
		name = xstrndup(*e, n);
		unsetenv(name);
		free(name);
	}
}

static void
setup(void)
{
	home = xstrdup(test_tmpdir());
	/*
	 * Nothing from the caller's environment picks a cluster or changes
	 * one: the test cluster's env.sh sets SLURM_BASE_RESULTS_DIR and
	 * friends, which config.c reads over the file's values.
	 */
	clear_env("SLURM_");
	clear_env("SSH_");
	clear_env("SQDECK_CLUSTER");
	unsetenv("XDG_RUNTIME_DIR");
	setenv("HOME", home, 1);
	setenv("XDG_STATE_HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("NGC_KEY", "not-a-key", 1);
}

static void
teardown(void)
{
	free(home);
}

/* Run sqdeck with args (from a directory of its own): exit status. */
static int
run(const char *args, char **out, char **err)
{
	const char	*bin = getenv("SQDECK_BIN");
	char		*cmd, *po, *pe, *cause = NULL;
	int		 st;

	if (bin == NULL)
		bin = TOP_BUILDDIR "/sqdeck";
	po = xasprintf("%s/out", home);
	pe = xasprintf("%s/err", home);
	cmd = xasprintf("cd %s && %s %s >%s 2>%s </dev/null", home, bin, args,
	    po, pe);
	st = system(cmd);
	ck_assert(st != -1 && WIFEXITED(st));
	ck_assert_msg(file_read(po, out, NULL, &cause) == 0, "%s", cause);
	ck_assert_msg(file_read(pe, err, NULL, &cause) == 0, "%s", cause);
	free(po);
	free(pe);
	free(cmd);
	return WEXITSTATUS(st);
}

/* The first line of an entry's usage. */
static char *
first_line(const char *s)
{
	return xstrndup(s, strcspn(s, "\n"));
}

START_TEST(test_help_lists_every_entry)
{
	const struct cli_entry	*const *e;
	char			*out, *err, *want, *args, *verbs, *p;
	size_t			 n = 0, listed = 0;

	ck_assert_int_eq(run("--help", &out, &err), 0);
	for (e = cli_entries; *e != NULL; e++, n++) {
		p = first_line((*e)->usage);
		want = xasprintf("\n  %-10s %s\n  %-10s   %s\n", (*e)->name, p,
		    "", (*e)->summary);
		ck_assert_msg(strstr(out, want) != NULL, "sqdeck --help has "
		    "no lines for %s:\n%s", (*e)->name, out);
		free(want);
		free(p);

		/* VERB --help: the entry's usage and help, exit 0. */
		args = xasprintf("%s --help", (*e)->name);
		free(err);
		ck_assert_int_eq(run(args, &p, &err), 0);
		want = xasprintf("usage: sqdeck %s %s\n%s", (*e)->name,
		    (*e)->usage, (*e)->help != NULL ? (*e)->help : "");
		ck_assert_str_eq(p, want);
		ck_assert_str_eq(err, "");
		free(want);
		free(p);
		free(args);
	}
	ck_assert_uint_ge(n, 13);
	/* And no verb that is not an entry: one name line each. */
	verbs = strstr(out, "\nVerbs:\n");
	ck_assert_ptr_nonnull(verbs);
	for (p = verbs + 8; strncmp(p, "\n", 1) != 0; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "  ", 2) == 0 && p[2] != ' ')
			listed++;
	}
	ck_assert_uint_eq(listed, n);
	free(out);
	free(err);
}
END_TEST

/* Arguments that bring each verb as far as choosing its cluster. */
static const char *
cluster_args(const char *verb)
{
	static const char *const v[][2] = {
		{ "preflight", "--script" },
		{ "submit", TESTS_SRCDIR "/data/spec/minimal.yaml" },
		{ "status", "1" },
		{ "logs", "1" },
		{ "cancel", "1" },
		{ "hold", "1" },
		{ "release", "1" },
		{ "requeue", "1" },
		{ "signal", "1 USR1" },
		{ "time", "1 30" },
		{ "gpu", "1" },
		{ "jobs", "" },
		{ "history", "" },
		{ "creds", "install" },
		{ "retry", "1" },
		{ "login", "" },
		{ "logout", "" },
		{ "triage", "1" },
		{ "shell", "1" },
		{ "forward", "1 8080" },
	};
	size_t	i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (strcmp(v[i][0], verb) == 0)
			return v[i][1];
	}
	return NULL;
}

START_TEST(test_cluster_after_every_verb)
{
	const struct cli_entry	*const *e;
	const char		*a;
	char			*out, *err, *args;
	int			 rc, nclusters = 0;

	for (e = cli_entries; *e != NULL; e++) {
		if (((*e)->flags & CLI_CLUSTER) == 0) {
			/* records is local: --cluster is not its option. */
			args = xasprintf("-c %s %s --cluster nosuch",
			    test_data("config/good.yaml"), (*e)->name);
			ck_assert_int_eq(run(args, &out, &err), EXIT_USAGE);
			ck_assert_msg(strstr(err, "unknown option "
			    "'--cluster'") != NULL, "%s: %s", args, err);
			free(args);
			free(out);
			free(err);
			continue;
		}
		a = cluster_args((*e)->name);
		ck_assert_msg(a != NULL, "a verb this test does not know: %s",
		    (*e)->name);
		/* The unknown name is taken as the cluster and refused. */
		args = xasprintf("-c %s %s --cluster nosuch %s",
		    test_data("config/good.yaml"), (*e)->name, a);
		rc = run(args, &out, &err);
		ck_assert_int_ne(rc, 0);
		ck_assert_msg(strstr(err, "no cluster named 'nosuch' "
		    "(clusters: polar, lab)") != NULL, "%s: %s", args, err);
		ck_assert_ptr_null(strstr(err, "unknown option"));
		free(args);
		free(out);
		free(err);
		nclusters++;
	}
	ck_assert_int_ge(nclusters, 12);
}
END_TEST

/* Before or after the verb it picks the cluster; the later one wins. */
START_TEST(test_cluster_after_verb_picks_it)
{
	char	*out, *err, *args;

	args = xasprintf("-c %s preflight --script --cluster polar",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "/lustre/alice/results"));
	free(args);
	free(out);
	free(err);

	args = xasprintf("-c %s preflight --script --cluster lab",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_ptr_null(strstr(out, "/lustre/alice/results"));
	free(args);
	free(out);
	free(err);

	args = xasprintf("-c %s --cluster lab preflight --cluster polar "
	    "--script", test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "/lustre/alice/results"));
	free(args);
	free(out);
	free(err);
}
END_TEST

/*
 * The environment describes the first cluster (or SQDECK_CLUSTER's); a
 * --cluster naming another one never takes its values: they were sent to
 * the wrong login node when it did (issue 26).
 */
START_TEST(test_cluster_env_stays_on_first)
{
	char	*out, *err, *args;

	setenv("SLURM_BASE_RESULTS_DIR", "/env/results", 1);
	args = xasprintf("-c %s preflight --script",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "/env/results") != NULL, "%s", out);
	free(args);
	free(out);
	free(err);

	args = xasprintf("-c %s preflight --script --cluster lab",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "/env/results") == NULL, "%s", out);
	free(args);
	free(out);
	free(err);

	setenv("SQDECK_CLUSTER", "lab", 1);
	args = xasprintf("-c %s preflight --script --cluster lab",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "/env/results") != NULL, "%s", out);
	free(args);
	free(out);
	free(err);
	unsetenv("SQDECK_CLUSTER");
	unsetenv("SLURM_BASE_RESULTS_DIR");
}
END_TEST

/*
 * A SLURM id with --cluster is that cluster's job, not another cluster's
 * record of the same number (tests/compat/run: `--cluster slurm-24.11
 * cancel 38` took slurm-26.05's record of its job 38).  Without --cluster
 * the record still brings its own cluster.
 */
START_TEST(test_slurm_id_of_picked_cluster)
{
	struct record	*r = record_new("polar");
	char		*out, *err, *args, *cause = NULL, *id;

	r->job_name = xstrdup("polar-job");
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	ck_assert_int_eq(record_set_slurm_id(id, "38", NULL), 0);

	/* lab's job 38 has no record: its path is asked of lab (issue 26.4),
	   which this test cannot reach; polar's record is not taken. */
	args = xasprintf("-c %s logs --cluster lab 38",
	    test_data("config/good.yaml"));
	ck_assert_int_eq(run(args, &out, &err), EXIT_FAIL);
	ck_assert_msg(strstr(err, "job 38 has no sqdeck record and its log "
	    "path is not known") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "polar"));
	free(args);
	free(out);
	free(err);
	args = xasprintf("-c %s --cluster lab status 38",
	    test_data("config/good.yaml"));
	run(args, &out, &err);
	ck_assert_msg(strstr(err, "belongs to cluster polar") == NULL, "%s",
	    err);
	free(args);
	free(out);
	free(err);
	free(id);
}
END_TEST

START_TEST(test_bad_option_names_verb)
{
	const struct cli_entry	*const *e;
	char			*out, *err, *args, *want;

	for (e = cli_entries; *e != NULL; e++) {
		args = xasprintf("%s --no-such-option", (*e)->name);
		ck_assert_int_eq(run(args, &out, &err), EXIT_USAGE);
		want = xasprintf("sqdeck: %s: unknown option "
		    "'--no-such-option'\nusage: sqdeck %s ", (*e)->name,
		    (*e)->name);
		ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
		    "%s:\n%s", args, err);
		ck_assert_str_eq(out, "");
		free(want);
		free(args);
		free(out);
		free(err);
	}

	ck_assert_int_eq(run("logs -x", &out, &err), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "sqdeck: logs: unknown option "
	    "'-x'\n"));
	free(out);
	free(err);
	ck_assert_int_eq(run("logs --interval", &out, &err), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "sqdeck: logs: option '--interval' "
	    "needs a value\n"));
	free(out);
	free(err);
	ck_assert_int_eq(run("history --days=", &out, &err), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "sqdeck: history: --days '': give "
	    "a number of days from 1 to 365\n"));
	free(out);
	free(err);
	ck_assert_int_eq(run("nosuchverb", &out, &err), EXIT_USAGE);
	ck_assert_str_eq(err, "sqdeck: unknown verb 'nosuchverb' (try sqdeck "
	    "--help)\n");
	free(out);
	free(err);
}
END_TEST

/*
 * triage --json names the rule and quotes the evidence line (issue 16),
 * on a log it reads locally: no cluster.
 */
START_TEST(test_triage_json_rule_evidence)
{
	const char	*text = "epoch 1\nTraceback (most recent call "
	    "last):\n  File \"train.py\", line 3\nValueError: bad learning "
	    "rate\n";
	char		*out = NULL, *err = NULL, *log, *args;

	log = xasprintf("%s/main.out", home);
	ck_assert_int_eq(file_write_atomic(log, text, strlen(text), 0600,
	    NULL), 0);
	args = xasprintf("triage --json --state FAILED --exit 1:0 %s", log);
	ck_assert_int_eq(run(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "\"err_class\":\t\"PROGRAM\"") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "\"rule\":\t\"python-exception\"") !=
	    NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"evidence\":\t\"ValueError: bad "
	    "learning rate\"") != NULL, "%s", out);
	free(args);
	free(log);
	free(out);
	free(err);
}
END_TEST

/* --color's decision: always and never win; auto needs all three. */
START_TEST(test_color_decide)
{
	enum color_when	w = CW_NEVER;

	ck_assert_int_eq(color_parse_when("auto", &w), 0);
	ck_assert_int_eq(w, CW_AUTO);
	ck_assert_int_eq(color_parse_when("always", &w), 0);
	ck_assert_int_eq(w, CW_ALWAYS);
	ck_assert_int_eq(color_parse_when("never", &w), 0);
	ck_assert_int_eq(w, CW_NEVER);
	ck_assert_int_eq(color_parse_when("yes", &w), -1);
	ck_assert_int_eq(color_parse_when(NULL, &w), -1);
	ck_assert_int_eq(w, CW_NEVER);

	ck_assert_int_eq(color_env_off(NULL), 0);
	ck_assert_int_eq(color_env_off(""), 0);	/* set but empty: colour */
	ck_assert_int_eq(color_env_off("1"), 1);
	ck_assert_int_eq(color_env_off("0"), 1);	/* any value at all */

	ck_assert_int_eq(color_enabled(CW_AUTO, 1, NULL, "xterm"), 1);
	ck_assert_int_eq(color_enabled(CW_AUTO, 1, "", "xterm"), 1);
	ck_assert_int_eq(color_enabled(CW_AUTO, 0, NULL, "xterm"), 0);
	ck_assert_int_eq(color_enabled(CW_AUTO, 1, "1", "xterm"), 0);
	ck_assert_int_eq(color_enabled(CW_AUTO, 1, NULL, "dumb"), 0);
	ck_assert_int_eq(color_enabled(CW_AUTO, 1, NULL, NULL), 0);
	ck_assert_int_eq(color_enabled(CW_AUTO, 1, NULL, ""), 0);
	ck_assert_int_eq(color_enabled(CW_ALWAYS, 0, "1", "dumb"), 1);
	ck_assert_int_eq(color_enabled(CW_NEVER, 1, NULL, "xterm"), 0);

	ck_assert_str_eq(state_sgr("RUNNING"), "32");
	ck_assert_str_eq(state_sgr("PENDING"), "33");
	ck_assert_str_eq(state_sgr("COMPLETED"), "34");
	ck_assert_str_eq(state_sgr("FAILED/INFRA"), "1;31");
	ck_assert_str_eq(state_sgr("OUT_OF_MEMORY"), "1;31");
	ck_assert_str_eq(state_sgr("CANCELLED by 0"), "35");
	ck_assert_ptr_null(state_sgr("-"));
	ck_assert_ptr_null(state_sgr("NOT_A_STATE"));
	ck_assert_ptr_null(state_sgr(NULL));
}
END_TEST

/* One record in the test's state directory. */
static void
put_record(const char *id, const char *cluster, const char *state,
    const char *sid)
{
	char	*dir, *path, *json, *cause = NULL;

	dir = xasprintf("%s/sqdeck/records", home);
	ck_assert_int_eq(mkdir_p(dir, 0700, &cause), 0);
	path = xasprintf("%s/%s.json", dir, id);
	json = xasprintf("{\"version\":1,\"id\":\"%s\",\"cluster\":\"%s\","
	    "\"created\":\"2026-11-29T16:45:00Z\",\"updated\":"
	    "\"2099-01-01T00:00:00Z\",\"state\":\"%s\",\"err_class\":"
	    "\"NONE\",\"slurm_ids\":[\"%s\"],\"history\":[]}\n", id, cluster,
	    state, sid);
	ck_assert_msg(file_write_atomic(path, json, strlen(json), 0600,
	    &cause) == 0, "%s", cause);
	free(json);
	free(path);
	free(dir);
}

/* The tables: an escape with --color=always only. */
START_TEST(test_color_cli)
{
	char	*out, *err;

	put_record("sd-20261129T164500-1a2b3c", "polar", "RUNNING", "4242");
	ck_assert_int_eq(run("records --color=always", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "\033[32mRUNNING\033[0m"));
	ck_assert_ptr_nonnull(strstr(out, "\033[1mSTATE\033[0m"));
	free(out);
	free(err);
	/* Before the verb too. */
	ck_assert_int_eq(run("--color=always records", &out, &err), 0);
	ck_assert_ptr_nonnull(strchr(out, '\033'));
	free(out);
	free(err);
	ck_assert_int_eq(run("records --color=never", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "RUNNING"));
	ck_assert_ptr_null(strchr(out, '\033'));
	free(out);
	free(err);
	/* auto: not a terminal here, so none; NO_COLOR none either. */
	ck_assert_int_eq(run("records", &out, &err), 0);
	ck_assert_ptr_null(strchr(out, '\033'));
	free(out);
	free(err);
	ck_assert_int_eq(run("--color=auto records", &out, &err), 0);
	ck_assert_ptr_null(strchr(out, '\033'));
	free(out);
	free(err);
	ck_assert_int_eq(run("records --color=blue", &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "sqdeck: records: --color must be "
	    "auto, always or never, not 'blue'"));
	free(out);
	free(err);
}
END_TEST

/* __complete: the verbs and every verb's options, from cli_entries. */
START_TEST(test_complete_from_entries)
{
	const struct cli_entry	*const *e;
	const struct option	*o;
	char			*out, *err, *args, *want;

	ck_assert_int_eq(run("__complete ''", &out, &err), 0);
	for (e = cli_entries; *e != NULL; e++) {
		want = xasprintf("\n%s\n", (*e)->name);
		ck_assert_msg(strstr(out, want) != NULL || str_has_prefix(out,
		    want + 1), "verb %s not offered: %s", (*e)->name, out);
		free(want);
	}
	free(out);
	free(err);
	for (e = cli_entries; *e != NULL; e++) {
		args = xasprintf("__complete %s --", (*e)->name);
		ck_assert_int_eq(run(args, &out, &err), 0);
		for (o = (*e)->longopts; o != NULL && o->name != NULL; o++) {
			want = xasprintf("--%s\n", o->name);
			ck_assert_msg(strstr(out, want) != NULL, "%s: %s not "
			    "offered: %s", (*e)->name, want, out);
			free(want);
		}
		ck_assert_int_eq(strstr(out, "--cluster\n") != NULL,
		    ((*e)->flags & CLI_CLUSTER) != 0);
		ck_assert_ptr_nonnull(strstr(out, "--color=never\n"));
		ck_assert_str_eq(err, "");
		free(args);
		free(out);
		free(err);
	}
	/* Ids from the records, narrowed by what was typed. */
	put_record("sd-20261129T164500-1a2b3c", "polar", "RUNNING", "4242");
	ck_assert_int_eq(run("__complete cancel 42", &out, &err), 0);
	ck_assert_str_eq(out, "4242\n");
	free(out);
	free(err);
	ck_assert_int_eq(run("__complete records --chain=sd-", &out, &err),
	    0);
	ck_assert_str_eq(out, "--chain=sd-20261129T164500-1a2b3c\n");
	free(out);
	free(err);
	/* An unknown verb: nothing, and no error. */
	ck_assert_int_eq(run("__complete nosuch ''", &out, &err), 0);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

/* A record that ended long ago (CANCELED on 2026-01-01). */
static void
put_old(const char *dir, int i, const char *cluster)
{
	char	*path, *json, *cause = NULL;

	path = xasprintf("%s/sd-20260101T000000-%06x.json", dir, i);
	json = xasprintf("{\"version\":1,\"id\":\"sd-20260101T000000-%06x\","
	    "\"cluster\":\"%s\",\"job_name\":\"old-%d\",\"created\":"
	    "\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\","
	    "\"state\":\"CANCELED\",\"err_class\":\"NONE\",\"slurm_ids\":"
	    "[\"%d\"],\"history\":[]}\n", i, cluster, i, 900000 + i);
	ck_assert_msg(file_write_atomic_nodirsync(path, json, strlen(json),
	    0600, &cause) == 0, "%s", cause);
	free(json);
	free(path);
}

/* What SQDECK_TEST_RECORD_READS said a verb read (-1: it said nothing). */
static long
reads_said(const char *file)
{
	char	*text = NULL, *p;
	long	 n = -1;

	if (file_read(file, &text, NULL, NULL) != 0)
		return -1;
	if ((p = strstr(text, "record reads: ")) != NULL)
		n = strtol(p + strlen("record reads: "), NULL, 10);
	free(text);
	unlink(file);
	return n;
}

/*
 * Issue 25: jobs of one cluster, and records, read that cluster's records
 * still moving and the recent ones, not every other cluster's history
 * (main read all 3,000 files for each cluster it polled: a week of
 * history, 193,000 records over 32 clusters, took jobs past 60 s).  A
 * first run reads every file once into records.index; the next ones
 * read only what they show.
 */
/*
 * A listener that takes connections and never says SSH's hello: each
 * client waits its connect_timeout.  It counts how many were open at
 * once.
 */
struct mute {
	int		lfd;
	int		stop;		/* atomic */
	int		accepted;
	int		most;		/* open at once */
};

static void *
mute_run(void *arg)
{
	struct mute	*m = arg;
	struct pollfd	 pf[65];
	char		 b[512];
	int		 fds[64], n = 0, i, fd;
	ssize_t		 r;

	while (!__atomic_load_n(&m->stop, __ATOMIC_SEQ_CST)) {
		pf[0].fd = m->lfd;
		pf[0].events = POLLIN;
		for (i = 0; i < n; i++) {
			pf[i + 1].fd = fds[i];
			pf[i + 1].events = POLLIN;
		}
		if (poll(pf, (nfds_t)n + 1, 50) <= 0)
			continue;
		for (i = n - 1; i >= 0; i--) {
			if (pf[i + 1].revents == 0)
				continue;
			/* The client's own hello is read; EOF: it gave up. */
			if ((r = read(fds[i], b, sizeof b)) <= 0) {
				close(fds[i]);
				fds[i] = fds[--n];
			}
		}
		if ((pf[0].revents & POLLIN) &&
		    (fd = accept(m->lfd, NULL, NULL)) >= 0) {
			if (n == 64)
				close(fd);
			else {
				fds[n++] = fd;
				m->accepted++;
				if (n > m->most)
					m->most = n;
			}
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return NULL;
}

/*
 * jobs polls the clusters side by side: three whose host never says
 * hello are waited on at once (one after another, each waited its
 * connect_timeout in turn: at most one open), and what each poll says
 * comes in the configuration's order.
 */
START_TEST(test_jobs_side_by_side)
{
	struct sockaddr_in	 sa;
	socklen_t		 len = sizeof sa;
	struct mute		 m;
	pthread_t		 t;
	char			*out, *err, *yaml, *text, *cause = NULL;
	const char		*a, *b, *c;

	memset(&m, 0, sizeof m);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(m.lfd = socket(AF_INET, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(bind(m.lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(m.lfd, 64), 0);
	ck_assert_int_eq(getsockname(m.lfd, (struct sockaddr *)&sa, &len), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, mute_run, &m), 0);
	yaml = xasprintf("%s/clusters.yaml", home);
	text = xasprintf("clusters:\n"
	    "  - name: mute-a\n    hosts: [127.0.0.1]\n    user: nobody\n"
	    "    connect_timeout: 3\n    port: %d\n"
	    "  - name: mute-b\n    hosts: [127.0.0.1]\n    user: nobody\n"
	    "    connect_timeout: 3\n    port: %d\n"
	    "  - name: mute-c\n    hosts: [127.0.0.1]\n    user: nobody\n"
	    "    connect_timeout: 3\n    port: %d\n",
	    ntohs(sa.sin_port), ntohs(sa.sin_port), ntohs(sa.sin_port));
	ck_assert_msg(file_write_atomic(yaml, text, strlen(text), 0600,
	    &cause) == 0, "%s", cause);
	ck_assert_int_ne(run("-c clusters.yaml jobs", &out, &err), 0);
	__atomic_store_n(&m.stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	close(m.lfd);
	ck_assert_msg(m.accepted >= 3, "%d connections: %s", m.accepted, err);
	ck_assert_msg(m.most >= 2, "the polls waited one after another "
	    "(%d of %d connections open at most): %s", m.most, m.accepted,
	    err);
	a = strstr(err, "mute-a");
	b = strstr(err, "mute-b");
	c = strstr(err, "mute-c");
	ck_assert_msg(a != NULL && b != NULL && c != NULL && a < b && b < c,
	    "not said in the configuration's order: %s", err);
	free(out);
	free(err);
	free(text);
	free(yaml);
}
END_TEST

START_TEST(test_reads_of_one_cluster)
{
	char		*out, *err, *dir, *yaml, *reads, *cause = NULL;
	const char	*text;
	long		 n;
	int	 i, run_no;

	dir = xasprintf("%s/sqdeck/records", home);
	ck_assert_int_eq(mkdir_p(dir, 0700, &cause), 0);
	for (i = 1; i <= 3000; i++)
		put_old(dir, i, i % 10 == 0 ? "polar" : "other");
	/* polar: two still running, one ended within a day. */
	put_record("sd-20261129T164500-a00001", "polar", "RUNNING", "4242");
	put_record("sd-20261129T164500-a00002", "polar", "PENDING", "4243");
	put_record("sd-20261129T164500-a00003", "polar", "CANCELED", "4244");
	yaml = xasprintf("%s/clusters.yaml", home);
	text = "clusters:\n  - name: polar\n    hosts: [127.0.0.1]\n"
	    "    user: nobody\n    port: 1\n  - name: other\n"
	    "    hosts: [127.0.0.1]\n    user: nobody\n    port: 1\n";
	ck_assert_msg(file_write_atomic(yaml, text, strlen(text), 0600,
	    &cause) == 0, "%s", cause);
	reads = xasprintf("%s/reads", home);
	setenv("SQDECK_TEST_RECORD_READS", reads, 1);
	for (run_no = 0; run_no < 3; run_no++) {
		/* The poll fails (port 1): the records' rows are shown. */
		run("-c clusters.yaml jobs --cluster polar --json", &out, &err);
		n = reads_said(reads);
		ck_assert_msg(n >= 0, "jobs said nothing of its reads: %s",
		    err);
		ck_assert_ptr_nonnull(strstr(out, "\"job_id\":\t\"4242\""));
		ck_assert_ptr_nonnull(strstr(out, "\"job_id\":\t\"4243\""));
		ck_assert_ptr_nonnull(strstr(out, "\"job_id\":\t\"4244\""));
		ck_assert_ptr_null(strstr(out, "\"job_id\":\t\"900010\""));
		/*
		 * The first run reads every file once (3,003); then a
		 * listing at most and polar's three records.
		 */
		if (run_no > 0)
			ck_assert_msg(n <= 4, "jobs --cluster polar read %ld "
			    "record files and listings (run %d)", n, run_no);
		free(out);
		free(err);
	}
	ck_assert_int_eq(run("records", &out, &err), 0);
	n = reads_said(reads);
	ck_assert_msg(n >= 0 && n <= 4, "records read %ld", n);
	ck_assert_ptr_nonnull(strstr(out, "sd-20261129T164500-a00001"));
	ck_assert_ptr_nonnull(strstr(out, "sd-20261129T164500-a00003"));
	ck_assert_ptr_null(strstr(out, "sd-20260101T000000-"));
	free(out);
	free(err);
	/* A record changed since: read again, and shown as it is now. */
	put_record("sd-20261129T164500-a00002", "polar", "COMPLETE", "4243");
	ck_assert_int_eq(run("records --state COMPLETED", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "sd-20261129T164500-a00002"));
	free(out);
	free(err);
	/* A job named by its SLURM id: its record alone (main: all). */
	run("-c clusters.yaml status 900011", &out, &err);
	n = reads_said(reads);
	ck_assert_msg(n >= 0 && n <= 6, "status 900011 read %ld", n);
	ck_assert_ptr_nonnull(strstr(out, "sd-20260101T000000-00000b"));
	free(out);
	free(err);
	/* --all still reads and shows every one. */
	ck_assert_int_eq(run("records --all --format record_id", &out, &err),
	    0);
	ck_assert_ptr_nonnull(strstr(out, "sd-20260101T000000-000bb8"));
	free(out);
	free(err);
	unsetenv("SQDECK_TEST_RECORD_READS");
	free(reads);
	free(yaml);
	free(dir);
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite	*s = suite_create("cli");
	TCase	*tc = tcase_create("entries");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_help_lists_every_entry);
	tcase_add_test(tc, test_cluster_after_every_verb);
	tcase_add_test(tc, test_cluster_after_verb_picks_it);
	tcase_add_test(tc, test_cluster_env_stays_on_first);
	tcase_add_test(tc, test_bad_option_names_verb);
	tcase_add_test(tc, test_slurm_id_of_picked_cluster);
	tcase_add_test(tc, test_triage_json_rule_evidence);
	tcase_add_test(tc, test_color_decide);
	tcase_add_test(tc, test_color_cli);
	tcase_add_test(tc, test_reads_of_one_cluster);
	tcase_add_test(tc, test_jobs_side_by_side);
	tcase_add_test(tc, test_complete_from_entries);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(cli_suite)
