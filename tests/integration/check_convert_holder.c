/*
 * Issue 24, acceptance 1: a real image conversion runs through the held
 * login (the holder) while 'sqdeck jobs' and 'sqdeck cancel' of another
 * job of the same user answer, each within the cluster's poll interval.
 *
 * The conversion is the product's own: 'sqdeck submit' of a registry image
 * under a tag pushed for this test (nothing has it cached), through
 * tests/cluster/slow-registry, a relay of this test's own in front of the
 * test registry that hands the layers on at 64 kB/s, so that the real
 * 'enroot import' lasts about 45 s instead of 2.  The assertion is not a
 * benchmark: each verb must have answered while the conversion still ran,
 * which the import job (squeue: RUNNING) and its srun on the login node
 * (pgrep) show afterwards.  A holder that serves one request at a time
 * (6b72e51's) answers 'jobs' only once the conversion is over.
 *
 * Needs $SDTB_DIR/env.sh in the environment and the containers stack.
 */
#include <signal.h>

#include "itutil.h"

#include "config.h"

static char	rtdir[4200];
static char	relay_pid[4200];
static char	relay[128];

/* The relay's process group, from its pid file (0: none). */
static pid_t
relay_pgid(void)
{
	char	*s = NULL;
	pid_t	 pid = 0;

	if (file_read(relay_pid, &s, NULL, NULL) == 0)
		pid = (pid_t)atol(s);
	free(s);
	return pid;
}

/*
 * Private dirs (HOME, state, config, runtime: this test's own holder), a
 * clusters.yaml with the test's own image cache and poll interval, the
 * relay, the registry credentials.
 */
static void
setup(void)
{
	char	*cmd;
	FILE	*f;

	it_need_cluster(NULL);
	it_setup();
	it_image();
	snprintf(rtdir, sizeof rtdir, "%s/rt", tmpdir);
	ck_assert_int_eq(mkdir(rtdir, 0700), 0);
	setenv("XDG_RUNTIME_DIR", rtdir, 1);
	unsetenv("SSH_AUTH_SOCK");
	unsetenv("SQDECK_IMPORT_TIMEOUT");
	it_write_clusters("- name: sdtb\n  hosts: %s\n  poll_interval: 5\n"
	    "  image_cache: %s/cx-cache/%s\n", it_env("SLURM_HOSTNAME"),
	    it_env("SDTB_LUSTRE"), unique);
	snprintf(relay_pid, sizeof relay_pid, "%s/relay.pid", tmpdir);
	cmd = xasprintf("'%s/tests/cluster/slow-registry' --rate 65536 "
	    "--to '%s' '%s'", TOP_SRCDIR, it_env("SDTB_REGISTRY"), relay_pid);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	ck_assert_ptr_nonnull(fgets(relay, sizeof relay, f));
	ck_assert_int_eq(pclose(f), 0);
	relay[strcspn(relay, "\n")] = '\0';
	ck_assert_uint_gt(strlen(relay), 0);
	free(cmd);
	/*
	 * A tag nobody converted, with a layer nobody has: Enroot keeps
	 * the layers it fetched by digest, so a copy of a known image
	 * would fetch only its manifest.  A stamped build is new content.
	 */
	cmd = xasprintf("'%s/tests/cluster/push-image' --stamp hold-%s "
	    "sdtb/tools:hold-%s 2>&1", TOP_SRCDIR, unique, unique);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	free(cmd);
	it_registry_creds(tmpdir);
}

/*
 * What the test started: the relay, its jobs, its image cache, its
 * holder, its dirs.  The fixture is unchecked (run in Check's parent
 * process): a failed test's child ends at the failed assert (_exit),
 * without a checked teardown, and would leave them all behind.
 */
static void
teardown(void)
{
	char	*cmd;
	pid_t	 pg;

	if ((pg = relay_pgid()) > 0)
		kill(-pg, SIGTERM);
	cmd = xasprintf("squeue --me -h -o '%%i %%j' | awk '$2 ~ "
	    "/^hold-(cx|victim)-%s/ { print $1 }' | xargs -r scancel; "
	    "rm -rf %s/cx-cache/%s", unique, getenv("SDTB_LUSTRE"), unique);
	(void)it_ssh_run(tmpdir, cmd, NULL, NULL);
	free(cmd);
	cmd = xasprintf("'%s' logout >/dev/null 2>&1", getenv("SQDECK_BIN"));
	(void)system(cmd);
	free(cmd);
	it_teardown();
}

/* The cluster's poll interval, as the product reads clusters.yaml. */
static int
poll_interval(void)
{
	struct config	 cfg;
	struct cluster	*cl;
	char		*cause = NULL;
	int		 n;

	ck_assert_msg(config_load(NULL, &cfg, &cause) == 0, "%s", cause);
	ck_assert_ptr_nonnull(cl = config_cluster(&cfg, NULL, &cause));
	n = config_poll_interval(cl);
	config_free(&cfg);
	return n;
}

/* 'sqdeck submit -v --json spec' in a child; its output in tmpdir/sub.*. */
static pid_t
submit_bg(const char *spec)
{
	char	*o, *e;
	pid_t	 pid;
	int	 fd;

	if ((pid = fork()) != 0)
		return pid;
	o = xasprintf("%s/sub.out", tmpdir);
	e = xasprintf("%s/sub.err", tmpdir);
	fd = open("/dev/null", O_RDONLY);
	dup2(fd, 0);
	fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	fd = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	execl(it_env("SQDECK_BIN"), "sqdeck", "-v", "submit", "--json", spec,
	    (char *)NULL);
	_exit(127);
}

/*
 * The conversion is running: the import job of this test RUNNING in
 * squeue and its srun on the login node: "RUNNING N", N processes.
 */
static char *
conversion_state(void)
{
	/* The import job's name: hold-cx-TAG-RECORD-import. */
	return it_ssh_out(tmpdir, "printf '%%s %%s\\n' \"$(squeue --me -h "
	    "-o '%%j %%T' | awk '$1 ~ /^hold-cx-%s-.*-import$/ "
	    "{ print $2 }')\" \"$(pgrep -c -u \"$(id -u)\" -f "
	    "'[s]run .*-J hold-cx-%s-.*-import' || true)\"", unique, unique);
}

/* What the submit in the background wrote (out or err), or "". */
static char *
sub_file(const char *which)
{
	char	*path, *s = NULL;

	path = xasprintf("%s/sub.%s", tmpdir, which);
	if (file_read(path, &s, NULL, NULL) != 0)
		s = xstrdup("");
	free(path);
	return s;
}

/* "RUNNING N" with N > 0 (timeout, srun and its helper: 3 here). */
static int
conversion_running(const char *st)
{
	return strncmp(st, "RUNNING ", 8) == 0 && atoi(st + 8) > 0;
}

/* Time one verb; it must succeed through the shared login. */
static double
timed_verb(char **out, const char *verb, const char *arg)
{
	char	*err = NULL;
	double	 t0, took;
	int	 rc;

	t0 = it_now();
	rc = it_sd(NULL, out, &err, NULL, "-v", verb, arg, NULL);
	took = it_now() - t0;
	ck_assert_msg(rc == 0, "%s: %s%s", verb, *out, err);
	ck_assert_msg(strstr(err, "using the shared login") != NULL,
	    "%s did not go through the holder: %s", verb, err);
	free(err);
	return took;
}

START_TEST(conversion_delays_no_verb)
{
	cJSON	*j;
	char	*spec, *victim, *out = NULL, *st, *sub = NULL, *path;
	double	 took_jobs, took_cancel, end;
	int	 interval, status;
	pid_t	 pid;

	interval = poll_interval();
	ck_assert_int_eq(interval, 5);
	/* Another job of the same user, pending or running: to cancel. */
	victim = it_ssh_out(tmpdir, "sbatch --parsable -p cpu -c 1 -t 10 "
	    "-J hold-victim-%s -o /dev/null --wrap 'sleep 600'", unique);
	str_trim(victim);
	ck_assert_msg(*victim != '\0' && strspn(victim, "0123456789") ==
	    strlen(victim), "sbatch: %s", victim);
	spec = write_spec("name: hold-cx-%s\nimage: %s#sdtb/tools:hold-%s\n"
	    "command: 'cat /etc/os-release'\ngpus: 1\ncpus: 1\ntime: 10m\n",
	    unique, relay, unique);
	pid = submit_bg(spec);
	/* Until the real conversion runs (the layers come at 64 kB/s). */
	end = it_now() + 90;
	do {
		free(out);
		usleep(500 * 1000);
		out = conversion_state();
	} while (!conversion_running(out) && it_now() < end);
	ck_assert_msg(conversion_running(out), "the conversion never "
	    "ran: %s; submit said: %s", out, sub_file("err"));
	free(out);

	/* Both verbs, through the same holder, while it runs. */
	took_jobs = timed_verb(&out, "jobs", NULL);
	ck_assert_msg(strstr(out, victim) != NULL, "jobs does not list %s: "
	    "%s", victim, out);
	free(out);
	took_cancel = timed_verb(&out, "cancel", victim);
	free(out);
	fprintf(stderr, "while the conversion ran: jobs %.2f s, cancel "
	    "%.2f s (poll interval %d s)\n", took_jobs, took_cancel,
	    interval);
	/* ... and it still runs: both answered during the conversion. */
	st = conversion_state();
	ck_assert_msg(conversion_running(st), "the conversion was "
	    "over before the verbs answered (jobs %.1f s, cancel %.1f s): "
	    "%s", took_jobs, took_cancel, st);
	free(st);
	ck_assert_msg(took_jobs < interval, "jobs took %.1f s, more than the "
	    "poll interval (%d s), while a conversion ran", took_jobs,
	    interval);
	ck_assert_msg(took_cancel < interval, "cancel took %.1f s, more than "
	    "the poll interval (%d s), while a conversion ran", took_cancel,
	    interval);
	st = it_ssh_out(tmpdir, "squeue -h -j %s -o %%T 2>/dev/null; sacct "
	    "-X -n -P -j %s -o State", victim, victim);
	ck_assert_msg(strstr(st, "CANCELLED") != NULL, "%s", st);
	free(st);

	/* The conversion's own answer comes back whole: converted. */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	path = xasprintf("%s/sub.out", tmpdir);
	ck_assert_int_eq(file_read(path, &sub, NULL, NULL), 0);
	free(path);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
	    sub);
	ck_assert_ptr_nonnull(j = cJSON_Parse(sub));
	ck_assert_msg(it_jstr(j, "image_action") != NULL &&
	    strcmp(it_jstr(j, "image_action"), "converted") == 0, "%s", sub);
	cJSON_Delete(j);
	free(sub);
	path = xasprintf("%s/sub.err", tmpdir);
	ck_assert_int_eq(file_read(path, &sub, NULL, NULL), 0);
	free(path);
	ck_assert_msg(strstr(sub, "using the shared login") != NULL, "%s",
	    sub);
	free(sub);
	free(spec);
	free(victim);
}
END_TEST

static Suite *
convert_holder_suite(void)
{
	Suite	*s = suite_create("convert_holder");
	TCase	*tc;

	tc = tcase_create("convert_holder");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	it_add_job_test(tc, conversion_delays_no_verb);
	return s;
}

TEST_MAIN(convert_holder_suite)
