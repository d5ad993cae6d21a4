#ifndef ITUTIL_H
#define ITUTIL_H

/*
 * Shared by the integration suites: the cluster's env, each test's private
 * dirs, the real binary run with its output captured, and commands run
 * with the real OpenSSH client (not our conn.c) to check what the product
 * did.  dir is the suite's private temp dir, for the captured output; the
 * short names at the end (run, ssh_out, sd, write_spec) use tmpdir.
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>
#include <time.h>

#include <cjson/cJSON.h>

#include <regex.h>

#include "testutil.h"
#include "it-lib.h"
#include "record.h"
#include "util.h"

/*
 * The running test's private dir (HOME, state and config below it) and a
 * tag unique to it for job and spec names; it_setup() sets both.
 */
static char	tmpdir[4096];
static char	unique[64];

/* Fail, never skip, when the env of $SDTB_DIR/env.sh is missing. */
static inline void
it_need_env(const char *const *vars)
{
	const char *const	*v;

	for (v = vars; *v != NULL; v++)
		ck_assert_msg(getenv(*v) != NULL, "%s is not set: source "
		    "$SDTB_DIR/env.sh (tests/cluster/up) first", *v);
}

/* What every cluster test needs (binary, host, user, key), and more. */
static inline void
it_need_cluster(const char *const *more)
{
	static const char *const vars[] = { "SQDECK_BIN", "SLURM_HOSTNAME",
	    "SLURM_USER", "SLURM_PORT", "SSH_KEY_PATH", "SSH_KNOWN_HOSTS",
	    NULL };

	it_need_env(vars);
	if (more != NULL)
		it_need_env(more);
}

/*
 * Each test: a private dir with HOME, XDG_STATE_HOME and XDG_CONFIG_HOME
 * below it (records, caches and clusters.yaml are its own), no fault or
 * cluster choice inherited, a new unique tag.
 */
static inline void
it_setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s", test_tmpdir());
	it_private_dirs(tmpdir);
	unsetenv("SQDECK_TEST_FAULT");
	unsetenv("SQDECK_CLUSTER");
	snprintf(unique, sizeof unique, "%ld%04x", (long)time(NULL) % 100000,
	    (unsigned)getpid() & 0xffff);
}

static inline void
it_teardown(void)
{
	char	cmd[4300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* A spec file in tmpdir from printf-style text; returns its path. */
static inline char *
it_write_spec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline char *
it_write_spec(const char *fmt, ...)
{
	va_list	 ap;
	char	*text, *path;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	path = xasprintf("%s/spec-%d.yaml", tmpdir, rand());
	ck_assert_int_eq(file_write_atomic(path, text, strlen(text), 0644,
	    NULL), 0);
	free(text);
	return path;
}

/*
 * Run argv with stdin from in (may be NULL), stdout and stderr captured.
 * No shell: canary values passed in the environment never reach an argv.
 */
static inline int
it_run(const char *dir, char *const argv[], const char *in, char **out,
    char **err)
{
	char	 of[4200], ef[4200], inf[4200];
	pid_t	 pid;
	int	 status, fd;

	snprintf(of, sizeof of, "%s/run.out", dir);
	snprintf(ef, sizeof ef, "%s/run.err", dir);
	snprintf(inf, sizeof inf, "%s/run.in", dir);
	if (in != NULL) {
		fd = open(inf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, in, strlen(in)), (ssize_t)strlen(in));
		close(fd);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(in != NULL ? inf : "/dev/null", O_RDONLY);
		dup2(fd, 0);
		fd = open(of, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		fd = open(ef, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (out != NULL)
		ck_assert_int_eq(file_read(of, out, NULL, NULL), 0);
	if (err != NULL)
		ck_assert_int_eq(file_read(ef, err, NULL, NULL), 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A command on the cluster through OpenSSH; returns its exit status. */
static inline int
it_ssh_run(const char *dir, const char *cmd, const char *in, char **out)
{
	char	 port[32], kh[4200], target[512];
	char	*argv[] = { "ssh", "-F", "/dev/null", "-p", port, "-i",
		    getenv("SSH_KEY_PATH"), "-o", "BatchMode=yes", "-o",
		    "StrictHostKeyChecking=yes", "-o", kh, "-o",
		    "GlobalKnownHostsFile=/dev/null", target, (char *)cmd,
		    NULL };

	snprintf(port, sizeof port, "%s", getenv("SLURM_PORT"));
	snprintf(kh, sizeof kh, "UserKnownHostsFile=%s",
	    getenv("SSH_KNOWN_HOSTS"));
	snprintf(target, sizeof target, "%s@%s", getenv("SLURM_USER"),
	    getenv("SLURM_HOSTNAME"));
	return it_run(dir, argv, in, out, NULL);
}

/* The stdout of a command on the cluster (printf-style). */
static inline char *
it_ssh_out(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline char *
it_ssh_out(const char *dir, const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd, *out = NULL;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	it_ssh_run(dir, cmd, NULL, &out);
	free(cmd);
	return out;
}

/*
 * it_ssh_out() of the command every second until its output matches the
 * extended regex re, at most secs tries; the last output either way.
 * SLURM's accounting lags a job's end by seconds (longer while a new
 * database warms up: the first jobs of a purged testbed showed an empty
 * Partition and the transient JobName "allocation" right after sacct
 * said COMPLETED), so a test that reads a field other than the state
 * waits for it the same way.
 */
static inline char *
it_ssh_until(int secs, const char *re, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline char *
it_ssh_until(int secs, const char *re, const char *fmt, ...)
{
	regex_t	 rx;
	va_list	 ap;
	char	*cmd, *out = NULL;
	int	 i;

	ck_assert_int_eq(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB |
	    REG_NEWLINE), 0);
	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	for (i = 0; i < secs; i++) {
		if (i != 0)
			sleep(1);
		free(out);
		out = NULL;
		it_ssh_run(tmpdir, cmd, NULL, &out);
		if (out != NULL && regexec(&rx, out, 0, NULL, 0) == 0)
			break;
	}
	regfree(&rx);
	free(cmd);
	return out != NULL ? out : xstrdup("");
}

/*
 * The real binary: $SQDECK_BIN ARGS... (NULL-terminated), stdin from in
 * (may be NULL), stdout and stderr captured (out, err may be NULL); stdout
 * parsed into *json when json is set (it must be JSON).  Exit status.
 */
static inline int
it_sd(cJSON **json, char **out, char **err, const char *in, ...)
{
	char		*argv[32], *o = NULL, *e = NULL;
	const char	*a;
	va_list		 ap;
	int		 n = 0, rc;

	argv[n++] = (char *)it_env("SQDECK_BIN");
	va_start(ap, in);
	while ((a = va_arg(ap, const char *)) != NULL && n < 31)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	rc = it_run(tmpdir, argv, in, &o, &e);
	if (json != NULL) {
		*json = cJSON_Parse(o);
		ck_assert_msg(*json != NULL, "not JSON: %s\nstderr: %s", o, e);
	}
	if (out != NULL)
		*out = o;
	else
		free(o);
	if (err != NULL)
		*err = e;
	else
		free(e);
	return rc;
}

/* A string member of a JSON object, or NULL. */
static inline const char *
it_jstr(cJSON *j, const char *key)
{
	cJSON	*v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * Poll sacct (every `every` s, tries times at the most: a cap, never a
 * timed assertion) until job id has ended; returns its sacct fields, of
 * which the first must be State.
 */
static inline char *
it_wait_end(const char *id, const char *fields, int tries, int every)
{
	static const char *const live[] = { "PENDING", "RUNNING",
	    "COMPLETING", "REQUEUED", NULL };
	const char *const	*l;
	char			*out;
	size_t			 n;
	int			 i;

	for (i = 0; i < tries; i++) {
		if (i != 0)
			sleep(every);
		out = it_ssh_out(tmpdir, "sacct -j %s -X -n -P -o %s", id,
		    fields);
		str_trim(out);
		n = strcspn(out, "|");
		for (l = live; *l != NULL; l++) {
			if (strlen(*l) == n && strncmp(out, *l, n) == 0)
				break;
		}
		if (*out != '\0' && *l == NULL)
			return out;
		free(out);
	}
	ck_abort_msg("job %s did not end in %d s", id, tries * every);
	return NULL;
}

/*
 * Wait until a poll can see that job id ended: the poll asks sacct with
 * -u (slurmdbd lists a job there a second or more after plain sacct -j,
 * longer on a new database: a purged testbed's status of a job that
 * it_wait_end() had seen FAILED still found it in neither squeue nor
 * sacct and rightly waited), and squeue must have let it go (a job stays
 * COMPLETING for seconds while the Pyxis/Enroot epilog runs).
 */
static inline void
it_wait_poll_end(const char *id, int secs)
{
	char	*out, *bar;
	int	 i;

	for (i = 0; i < secs; i++) {
		if (i != 0)
			sleep(1);
		out = it_ssh_out(tmpdir, "sacct -u %s -X -n -P -S now-1days "
		    "-j %s -o State 2>/dev/null; echo '|'; squeue -h -j %s "
		    "-o %%i 2>/dev/null", getenv("SLURM_USER"), id, id);
		bar = strchr(out, '|');
		if (bar != NULL && bar != out && strstr(out, "PENDING") ==
		    NULL && strstr(out, "RUNNING") == NULL && strstr(out,
		    "COMPLETING") == NULL && *str_trim(bar + 1) == '\0') {
			free(out);
			return;
		}
		free(out);
	}
	ck_abort_msg("job %s: not ended for a poll after %d s (sacct -u, "
	    "squeue)", id, secs);
}

static inline struct record *
it_load_record(const char *id)
{
	struct record	*r = NULL;
	char		*cause = NULL;

	ck_assert_msg(record_load(id, &r, &cause) == 0, "record %s: %s", id,
	    cause);
	return r;
}

/* One 'sqdeck status RID' (records, retries, caches move): is it over? */
static inline int
it_status_ended(const char *rid)
{
	struct record	*r;
	int		 done;

	it_sd(NULL, NULL, NULL, NULL, "status", rid, NULL);
	r = it_load_record(rid);
	done = state_terminal(r->state);
	record_free(r);
	return done;
}

/*
 * SLURM holds a requeued job about 2 minutes (its BeginTime) before it may
 * run again.  Once a test has seen what it wants of that wait, the
 * cluster's admin (root, as tests/cluster/up) lets it start now: the wait
 * is SLURM's, not sqdeck's, and it cost 2 minutes of every check.
 */
static inline void
it_start_now(const char *sid)
{
	char	*cmd;

	cmd = xasprintf("SLURM_CONF=\"$SDTB_DIR/etc/slurm.conf\" scontrol "
	    "update jobid=%s StartTime=now >/dev/null 2>&1", sid);
	(void)system(cmd);	/* if it fails, the job starts later */
	free(cmd);
}

/* Did the record go RUNNING, then PENDING again (requeued)? */
static inline int
it_requeue_seen(const char *rid)
{
	struct record	*r = it_load_record(rid);
	size_t		 i;
	int		 phase = 0;

	for (i = 0; i < r->nhistory; i++) {
		if (phase == 0 && r->history[i].state == RSTATE_RUNNING)
			phase = 1;
		else if (phase == 1 && r->history[i].state == RSTATE_PENDING)
			phase = 2;
	}
	record_free(r);
	return phase == 2;
}

/*
 * it_status_ended() every 2 s until the record is terminal, 30 times at
 * the most (squeue may still list a job sacct calls ended: COMPLETING).
 */
static inline void
it_status_until_end(const char *rid)
{
	int	i, done = 0;

	for (i = 0; i < 30 && !done; i++) {
		if (i != 0)
			sleep(2);
		done = it_status_ended(rid);
	}
	ck_assert_msg(done, "record %s never ended", rid);
}

/* What 'submit --json' answered. */
struct it_sub {
	char	*rid;
	char	*sid;
	char	*job_dir;
	char	*job_name;
	char	*err;		/* submit's progress lines */
};

static inline void
it_sub_free(struct it_sub *s)
{
	free(s->rid);
	free(s->sid);
	free(s->job_dir);
	free(s->job_name);
	free(s->err);
}

static inline char *
it_jdup(cJSON *j, const char *key)
{
	const char	*v = it_jstr(j, key);

	ck_assert_msg(v != NULL, "no %s in the submit reply", key);
	return xstrdup(v);
}

/* sqdeck submit --json SPEC, which must succeed. */
static inline void
it_submit(const char *spec, struct it_sub *s)
{
	cJSON	*j;
	char	*out;

	memset(s, 0, sizeof *s);
	ck_assert_msg(it_sd(NULL, &out, &s->err, NULL, "submit", "--json",
	    spec, NULL) == 0, "submit failed: %s\n%s", out, s->err);
	j = cJSON_Parse(out);
	ck_assert_msg(j != NULL, "not JSON: %s", out);
	s->rid = it_jdup(j, "record_id");
	s->sid = it_jdup(j, "job_id");
	s->job_dir = it_jdup(j, "job_dir");
	s->job_name = it_jdup(j, "name");
	cJSON_Delete(j);
	free(out);
}

/*
 * Register a test that runs a job (in the registry image).  On a cluster
 * that came up without containers (SDTB_CONTAINERS=absent: no vendor
 * archives) it is not registered: one "skipped:" line says so and why,
 * and it is not counted.  An env that was never sourced still fails.
 */
#define it_add_job_test(tc, t)	it_add_job_test_named((tc), (t), #t)

static inline void
it_add_job_test_named(TCase *tc, const TTest *t, const char *name)
{
	const char	*m = getenv("SDTB_CONTAINERS");
	const char	*why = getenv("SDTB_CONTAINERS_WHY");

	if (m != NULL && strcmp(m, "absent") == 0) {
		printf("skipped: %s: the cluster has no containers (%s)\n",
		    name, why != NULL ? why : "no reason given");
		fflush(stdout);
		return;
	}
	tcase_add_test(tc, t);
}

/*
 * The registry image of tests/cluster/containers ($SDTB_IMAGE): every
 * suite that runs a job runs it in this image through the real
 * conversion.  Fails, never skips, when the cluster has no containers.
 */
static inline const char *
it_image(void)
{
	const char	*v = getenv("SDTB_IMAGE");

	ck_assert_msg(v != NULL && *v != '\0', "SDTB_IMAGE is not set: the "
	    "cluster has no containers (%s); source $SDTB_DIR/env.sh from "
	    "tests/cluster/up with the vendor archives",
	    getenv("SDTB_CONTAINERS_WHY") != NULL ?
	    getenv("SDTB_CONTAINERS_WHY") : "SDTB_CONTAINERS not set");
	return v;
}

/*
 * Enroot's credentials for the test registry, installed with the real
 * 'sqdeck creds install' (the password from its file, through the
 * environment, never argv).  Other machines' lines are kept.
 */
static inline void
it_registry_creds(const char *dir)
{
	char		*pw = NULL, *out = NULL, *err = NULL;
	char *const	 argv[] = { (char *)getenv("SQDECK_BIN"), "creds",
			    "install", "--registry",
			    (char *)getenv("SDTB_REGISTRY"), "--login",
			    (char *)getenv("SDTB_REGISTRY_USER"), NULL };

	it_image();
	ck_assert_msg(getenv("SQDECK_BIN") != NULL, "SQDECK_BIN is not set");
	ck_assert_int_eq(file_read(getenv("SDTB_REGISTRY_PASSWORD_FILE"), &pw,
	    NULL, NULL), 0);
	str_trim(pw);
	setenv("SQDECK_REGISTRY_PASSWORD", pw, 1);
	ck_assert_msg(it_run(dir, argv, NULL, &out, &err) == 0,
	    "creds install: %s%s", out, err);
	unsetenv("SQDECK_REGISTRY_PASSWORD");
	free(pw);
	free(out);
	free(err);
}

/*
 * A test that runs a job: the cluster's env (and more, may be NULL) and
 * the registry's credentials for Enroot (every job runs in its image).
 */
static inline void
it_need_jobs(const char *const *more)
{
	it_need_cluster(more);
	it_registry_creds(tmpdir);
}

/*
 * The test's own clusters.yaml (in its XDG_CONFIG_HOME, see it_setup),
 * from printf-style text; a later call replaces it.
 */
static inline void
it_write_clusters(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
it_write_clusters(const char *fmt, ...)
{
	va_list	 ap;
	char	*text, *path;

	path = xasprintf("%s/config/sqdeck", tmpdir);
	ck_assert_int_eq(mkdir_p(path, 0700, NULL), 0);
	free(path);
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	path = xasprintf("%s/config/sqdeck/clusters.yaml", tmpdir);
	ck_assert_int_eq(file_write_atomic(path, text, strlen(text), 0600,
	    NULL), 0);
	free(text);
	free(path);
}

/* How many lines a command on the cluster printed (printf-style). */
static inline int
it_ssh_lines(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline int
it_ssh_lines(const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd, *out = NULL, *p;
	int	 n = 0;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	it_ssh_run(tmpdir, cmd, NULL, &out);
	for (p = strtok(out, "\n"); p != NULL; p = strtok(NULL, "\n"))
		n++;
	free(out);
	free(cmd);
	return n;
}

/* The short names of the suites, on the running test's tmpdir. */
#define run(argv, in, out, err)	it_run(tmpdir, argv, in, out, err)
#define ssh_run(cmd, in, out)	it_ssh_run(tmpdir, cmd, in, out)
#define ssh_out(...)		it_ssh_out(tmpdir, __VA_ARGS__)
#define sd(out, err, ...)	it_sd(NULL, out, err, NULL, __VA_ARGS__)
#define write_spec		it_write_spec

#endif
