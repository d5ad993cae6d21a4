/*
 * The login holder against the real local cluster: many clients at once
 * (a blocked command never delays another client's verb), a client gone
 * mid-request leaves nothing running on the login node, and the holder
 * keeps none of its starter's environment.  Needs $SDTB_DIR/env.sh in the
 * environment.  Each test has its own runtime dir, hence its own holder.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "testutil.h"
#include "it-lib.h"

#include "config.h"
#include "conn.h"

static char	tmp[4096];

/* A private HOME, config and runtime dir: the cluster from env.sh. */
static void
setup(void)
{
	char	*d;

	ck_assert_msg(getenv("SLURM_HOSTNAME") != NULL, "source "
	    "$SDTB_DIR/env.sh first");
	snprintf(tmp, sizeof tmp, "%s", test_tmpdir());
	it_private_dirs(tmp);
	d = xasprintf("%s/rt", tmp);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	setenv("XDG_RUNTIME_DIR", d, 1);
	free(d);
	unsetenv("SSH_AUTH_SOCK");
	unsetenv("SQDECK_CLUSTER");
	setenv("SQDECK_BIN", it_bin(), 1);
	conn_holder_enable(it_bin(), 0);
}

static void
teardown(void)
{
	char	*cmd;

	cmd = xasprintf("'%s' logout >/dev/null 2>&1; rm -rf '%s'", it_bin(),
	    tmp);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* The cluster of the environment, as the verbs see it (same holder). */
static struct conn *
env_conn(struct config *cfg)
{
	struct cluster	*cl;
	char		*cause = NULL;

	ck_assert_msg(config_load(NULL, cfg, &cause) == 0, "%s", cause);
	ck_assert_ptr_nonnull(cl = config_cluster(cfg, NULL, &cause));
	return conn_new_cluster(cl);
}

/* Run cmd through the holder in a child process; its pid. */
static pid_t
run_blocked(const char *cmd, int timeout)
{
	struct config		 cfg;
	struct conn		*c;
	struct conn_result	 r;
	char			*cause = NULL;
	pid_t			 pid;
	int			 rc;

	if ((pid = fork()) != 0)
		return pid;
	c = env_conn(&cfg);
	rc = conn_exec_limit(c, cmd, NULL, 0, timeout, 0, &r, &cause);
	if (rc != 0)
		fprintf(stderr, "blocked command: %s\n", cause);
	rc = rc == 0 && r.status == 0 && conn_holder_pid(c) != 0 &&
	    strstr(r.out, "done") != NULL ? 0 : 1;
	_exit(rc);
}

/* A line of /proc/PID/status ("Threads:", "VmRSS:"), as a number. */
static long
proc_status(long pid, const char *key)
{
	char	*path, line[256];
	FILE	*f;
	long	 v = -1;

	path = xasprintf("/proc/%ld/status", pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, strlen(key)) == 0)
			v = atol(line + strlen(key));
	}
	fclose(f);
	free(path);
	return v;
}

/* How many processes of the cluster user carry marker, asked through c. */
static int
remote_count(struct conn *c, const char *marker)
{
	struct conn_result	 r;
	char			*cmd, *cause = NULL;
	int			 n;

	/* The [] keeps pgrep from counting the shell that runs it. */
	cmd = xasprintf("pgrep -c -u \"$(id -u)\" -f '[%c]%s' || true",
	    marker[0], marker + 1);
	ck_assert_msg(conn_exec(c, cmd, NULL, 0, &r, &cause) == 0, "%s",
	    cause);
	n = atoi(r.out);
	conn_result_free(&r);
	free(cmd);
	return n;
}

/* Wait until the count of marker's processes is want (or limit s). */
static int
remote_wait(struct conn *c, const char *marker, int want, int limit)
{
	double	end = it_now() + limit;
	int	n;

	while ((n = remote_count(c, marker)) != want && it_now() < end)
		usleep(200 * 1000);
	return n;
}

START_TEST(blocked_command_delays_no_one)
{
	struct config	 cfg;
	struct conn	*c;
	char		*marker, *cmd, *out = NULL, *jobs;
	double		 t0, took;
	pid_t		 pid;
	int		 st, i;

	marker = xasprintf("sqdeck-hold-%ld", (long)getpid());
	cmd = xasprintf("sleep 60; echo done %s", marker);
	jobs = xasprintf("'%s' -v jobs 2>&1 </dev/null", it_bin());
	pid = run_blocked(cmd, 90);
	c = env_conn(&cfg);
	/* Our own client of the same holder sees the blocked command. */
	ck_assert_int_eq(remote_wait(c, marker, 1, 20), 1);
	ck_assert_int_ne(conn_holder_pid(c), 0);
	/* Another client's verbs answer while it runs, through the holder. */
	for (i = 0; i < 3; i++) {
		t0 = it_now();
		ck_assert_msg(it_sh(jobs, &out) == 0, "%s", out);
		took = it_now() - t0;
		ck_assert_msg(took < 5, "jobs took %.1f s while a command was "
		    "blocked in the holder", took);
		ck_assert_msg(strstr(out, "using the shared login") != NULL,
		    "%s", out);
		free(out);
	}
	ck_assert_int_eq(remote_count(c, marker), 1);
	/* Ten clients at once: still one thread, no thread per client. */
	ck_assert_int_eq(system("for i in 1 2 3 4 5 6 7 8 9 10; do "
	    "\"$SQDECK_BIN\" jobs >/dev/null 2>&1 </dev/null & done; "
	    "sleep 0.5; wait"), 0);
	ck_assert_int_eq(proc_status(conn_holder_pid(c), "Threads:"), 1);
	ck_assert_int_lt(proc_status(conn_holder_pid(c), "VmRSS:"), 64 * 1024);
	fprintf(stderr, "holder after 10 clients at once: 1 thread, %ld kB\n",
	    proc_status(conn_holder_pid(c), "VmRSS:"));
	/* The blocked command's own answer still comes back whole. */
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	conn_free(c);
	config_free(&cfg);
	free(jobs);
	free(cmd);
	free(marker);
}
END_TEST

START_TEST(client_gone_leaves_nothing)
{
	struct config	 cfg;
	struct conn	*c;
	char		*marker, *cmd;
	pid_t		 pid;
	int		 st;

	marker = xasprintf("sqdeck-gone-%ld", (long)getpid());
	cmd = xasprintf("sleep 120; echo done %s", marker);
	pid = run_blocked(cmd, 150);
	c = env_conn(&cfg);
	ck_assert_int_eq(remote_wait(c, marker, 1, 20), 1);
	/* The client dies mid-request: its channel is closed. */
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(remote_wait(c, marker, 0, 10) == 0, "the command of a "
	    "client that went away still runs on the login node");
	/* The holder itself lives on for the others. */
	ck_assert_int_eq(remote_count(c, marker), 0);
	ck_assert_int_ne(conn_holder_pid(c), 0);
	conn_free(c);
	config_free(&cfg);
	free(cmd);
	free(marker);
}
END_TEST

START_TEST(holder_env_scrubbed)
{
	struct config	 cfg;
	struct conn	*c;
	char		*path, *cause = NULL, buf[65536];
	FILE		*f;
	size_t		 n, i;

	setenv("NGC_KEY", "nvapi-sqdeck-test-secret", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "aws-sqdeck-test-secret", 1);
	c = env_conn(&cfg);
	ck_assert_msg(conn_connect(c, &cause) == 0, "%s", cause);
	ck_assert_int_ne(conn_holder_pid(c), 0);
	path = xasprintf("/proc/%ld/environ", conn_holder_pid(c));
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = '\n';
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "HOME=") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "sqdeck-test-secret") == NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "NGC_KEY") == NULL, "%s", buf);
	free(path);
	conn_free(c);
	config_free(&cfg);
}
END_TEST

static Suite *
holder_suite(void)
{
	Suite	*s = suite_create("holder");
	TCase	*tc;

	tc = it_tcase(s, "holder", 300, setup, teardown);
	tcase_add_test(tc, holder_env_scrubbed);
	tcase_add_test(tc, client_gone_leaves_nothing);
	tcase_add_test(tc, blocked_command_delays_no_one);
	return s;
}

TEST_MAIN(holder_suite)
