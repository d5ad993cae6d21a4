/*
 * nccl suite (sqdeck(1): NCCL probe): the probe ladder as rendered shell, run
 * for real by bash on this machine (the srun prefix empty, so the probe runs
 * locally under timeout), the result lines, the cache and the pending list.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <time.h>

#include "testutil.h"

#include "config.h"
#include "lint.h"
#include "nccl.h"
#include "record.h"
#include "retry.h"
#include "template.h"
#include "triage.h"

static void
setup(void)
{
	setenv("XDG_STATE_HOME", test_tmpdir(), 1);
}

/* The probe used by the tests: hangs unless NCCL_P2P_DISABLE=1. */
#define HANG_UNLESS_P2P \
	"if [ \"${NCCL_P2P_DISABLE:-}\" = 1 ]; then echo NCCL_PROBE_OK; " \
	"else sleep 30; fi"

/*
 * Run a PRE_STEP the way the template does: set -euo pipefail, a launch
 * array (empty here: no srun on this machine), SQDECK_IMAGE, then a
 * marker line standing for the main step.  Returns bash's exit status.
 */
static int
run_pre_step(const char *pre, const char *image, char **out, double *secs)
{
	const char	*dir = test_tmpdir();
	char		 path[4200], cmd[8600];
	struct timespec	 t0, t1;
	FILE		*f;
	int		 st;
	size_t		 n;

	snprintf(path, sizeof path, "%s/job.sh", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "set -euo pipefail\nlaunch=()\nSQDECK_IMAGE=%s\n"
	    "%s\necho MAIN-STEP launch=\"${launch[*]}\" "
	    "P2P=\"${NCCL_P2P_DISABLE:-}\" IF=\"${NCCL_SOCKET_IFNAME:-}\"\n",
	    image, pre);
	fclose(f);
	snprintf(cmd, sizeof cmd, "bash %s >%s/out 2>&1", path, dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = system(cmd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	snprintf(path, sizeof path, "%s/out", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	*out = calloc(1, 65536);
	n = fread(*out, 1, 65535, f);
	(*out)[n] = '\0';
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_wanted)
{
	ck_assert(!nccl_wanted(1, 1));
	ck_assert(!nccl_wanted(1, 0));
	ck_assert(nccl_wanted(1, 2));
	ck_assert(nccl_wanted(2, 1));
	/* No GPUs: no probe, even on several nodes (issue 26, item 5). */
	ck_assert(!nccl_wanted(2, 0));
	ck_assert(!nccl_wanted(4, 0));
}
END_TEST

/*
 * An image without torchrun: each task of each node says so (with Pyxis'
 * own lines); the job's log gets one line of it, not thirty.
 */
START_TEST(test_ladder_no_torchrun_one_line)
{
	char		*pre, *out, *p;
	double		 secs;
	int		 n;

	pre = nccl_probe_step("for i in $(seq 29); do echo \"pyxis: couldn't "
	    "execute enroot command\"; done; echo 'bash: line 1: torchrun: "
	    "command not found'; exit 127", 5, 2, 4);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
	ck_assert_msg(strstr(out, "SQDECK_NCCL_SKIP=the probe could not run "
	    "(exit 127: bash: line 1: torchrun: command not found (1 of 30 "
	    "lines)); going on without it\n") != NULL, "%s", out);
	for (n = 0, p = out; (p = strstr(p, "couldn't execute")) != NULL; p++)
		n++;
	ck_assert_msg(n == 0, "%d pyxis lines: %s", n, out);
	for (n = 0, p = out; (p = strstr(p, "torchrun: command not found")) !=
	    NULL; p++)
		n++;
	ck_assert_msg(n == 1, "%d torchrun lines: %s", n, out);
	ck_assert_ptr_null(strstr(out, "[nccl probe]"));
	ck_assert_int_eq(nccl_parse_log(out, strlen(out), NULL), NCCL_SKIP);
	free(out);
	free(pre);
}
END_TEST

/* Try 1 hangs and is cut by the timeout; try 2 (P2P off) passes. */
START_TEST(test_ladder_fallback)
{
	char	*pre, *out, *v;
	double	 secs;

	pre = nccl_probe_step(HANG_UNLESS_P2P, 2, 2, 4);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
	ck_assert_msg(strstr(out, "try 1 (default) failed: timed out after "
	    "2 s") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "try 2/4 (NCCL_P2P_DISABLE=1)") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "[nccl probe] NCCL_PROBE_OK") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "MAIN-STEP launch= P2P=1 IF=\n") != NULL,
	    "%s", out);
	/* The first try really waited for its timeout (a hang fails by
	   Check's own timeout). */
	ck_assert(secs >= 2.0);
	ck_assert_int_eq(nccl_parse_log(out, strlen(out), &v), NCCL_OK);
	ck_assert_str_eq(v, "NCCL_P2P_DISABLE=1");
	free(v);
	ck_assert_ptr_null(strstr(out, "try 3"));
	free(out);
	free(pre);
}
END_TEST

/*
 * The total budget: tries of 2 s within 5 s in all; at most three tries
 * fit (a third gets what is left), then the ladder stops and says why
 * (the probe never passes here).  How many ran depends on the load.
 */
START_TEST(test_ladder_budget)
{
	char	*pre, *out;
	double	 secs;

	ck_assert_int_eq(nccl_probe_budget(240, 0), 480);	/* 4 x 120 */
	ck_assert_int_eq(nccl_probe_budget(30, 0), 90);		/* 5 % */
	ck_assert_int_eq(nccl_probe_budget(2, 0), 60);	/* minimum */
	pre = nccl_probe_step_budget("sleep 30", 2, 5, 100, 2, 4);
	ck_assert_ptr_nonnull(strstr(pre, "NCCL probe budget 5 s in all (5% "
	    "of the job's 100 min, at least 60 s), 2 s per try"));
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 1);
	ck_assert_msg(strstr(out, "try 2/4 (NCCL_P2P_DISABLE=1)") != NULL,
	    "%s", out);
	ck_assert_ptr_null(strstr(out, "try 4/4"));
	ck_assert_msg(strstr(out, "its budget of 5 s is spent") != NULL, "%s",
	    out);
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_NCCL_FAIL="));
	ck_assert_ptr_null(strstr(out, "MAIN-STEP"));
	free(out);
	free(pre);
}
END_TEST

/*
 * The whole ladder; the interface of try 3 comes from the environment (a
 * cluster nccl_env).  Under Pyxis (IMAGE set) the names go to
 * --container-env of the probe and the main step, so the image cannot
 * override them; without srun here only the text can show that.
 */
START_TEST(test_ladder_pyxis_env)
{
	char	*pre, *out;
	double	 secs;

	pre = nccl_probe_step("[ \"${NCCL_IB_DISABLE:-}\" = 1 ] && "
	    "echo NCCL_PROBE_OK || sleep 30", 1, 2, 1);
	setenv("NCCL_SOCKET_IFNAME", "eth9", 1);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
	unsetenv("NCCL_SOCKET_IFNAME");
	ck_assert_msg(strstr(out, "try 1 (default) failed") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "try 3 (NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=eth9) failed") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "SQDECK_NCCL_OK=NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=eth9,NCCL_IB_DISABLE=1\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "MAIN-STEP launch= P2P=1 IF=eth9") != NULL,
	    "%s", out);
	ck_assert_ptr_nonnull(strstr(pre, "if [ -n \"$SQDECK_IMAGE\" ] && "
	    "[ -n \"$sqdeck_nccl_names\" ]; then\n"
	    "\t\tsqdeck_nccl_launch+=(--container-env="
	    "\"$sqdeck_nccl_names\")"));
	ck_assert_ptr_nonnull(strstr(pre, "\t\tlaunch+=(--container-env="
	    "\"$sqdeck_nccl_names\")"));
	free(out);
	free(pre);
}
END_TEST

/* Every try fails: exit 1 before the main step, a FAIL line. */
START_TEST(test_ladder_all_fail)
{
	char	*pre, *out, *v;
	double	 secs;

	pre = nccl_probe_step("echo broken >&2; exit 1", 5, 2, 4);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 1);
	ck_assert_ptr_null(strstr(out, "MAIN-STEP"));
	ck_assert_msg(strstr(out, "try 4 (NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "NCCL_IB_DISABLE=1) failed: exit 1") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "[nccl probe] broken") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "sqdeck: NCCL probe failed with every "
	    "setting") != NULL, "%s", out);
	ck_assert_int_eq(nccl_parse_log(out, strlen(out), &v), NCCL_FAIL);
	ck_assert_str_eq(v, "every setting failed (last: exit 1)");
	free(v);
	free(out);
	free(pre);
}
END_TEST

/* No torchrun on the nodes (exit 127): go on, nothing learnt. */
START_TEST(test_ladder_unavailable)
{
	char	*pre, *out;
	double	 secs;

	pre = nccl_probe_step("sqdeck-no-such-probe-command", 5, 1, 4);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
	ck_assert_msg(strstr(out, "SQDECK_NCCL_SKIP=the probe could not run "
	    "(exit 127: ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "MAIN-STEP launch= P2P= IF=") != NULL, "%s",
	    out);
	ck_assert_int_eq(nccl_parse_log(out, strlen(out), NULL), NCCL_SKIP);
	free(out);
	free(pre);
}
END_TEST

/* An executable shell script at path. */
static void
write_script(const char *path, const char *text)
{
	FILE	*f;

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

/*
 * Run a PRE_STEP as job.sh in dir with launch=(launcher), an image, and
 * env before bash; steps (and once) from an earlier run are removed.
 */
static void
run_job(const char *dir, const char *launcher, const char *pre,
    const char *env)
{
	char	*path, *text;

	path = xasprintf("%s/job.sh", dir);
	text = xasprintf("set -euo pipefail\nlaunch=(%s)\n"
	    "SQDECK_IMAGE=img.sqsh\n%s\n", launcher, pre);
	write_script(path, text);
	free(text);
	free(path);
	text = xasprintf("cd %s && rm -f steps once && %s bash job.sh "
	    ">out 2>&1", dir, env);
	ck_assert_int_eq(system(text), 0);
	free(text);
}

/*
 * With an image, every node unpacks it in a step of its own before the
 * first try: a try that ends at once (exit 127) made srun kill the other
 * nodes' unpacking (--kill-on-bad-exit), and the job's step then met a
 * half-made container.  The launcher here records each step and runs
 * it without its options.
 */
START_TEST(test_unpack_before_probe)
{
	const char	*dir = test_tmpdir();
	char		*pre, *script, *text, *cmd, *steps = NULL, *cause = NULL;

	script = xasprintf("%s/rec", dir);
	text = xasprintf("#!/bin/sh\necho \"STEP $*\" >>%s/steps\n"
	    "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
	    "exec \"$@\"\n", dir);
	write_script(script, text);
	free(text);
	pre = nccl_probe_step("sqdeck-no-such-probe-command", 5, 2, 1);
	run_job(dir, script, pre, "SLURM_JOB_ID=7");
	cmd = xasprintf("%s/steps", dir);
	ck_assert_msg(file_read(cmd, &steps, NULL, &cause) == 0, "%s", cause);
	/* First the unpacking (true), then the probe's one try. */
	ck_assert_msg(strncmp(steps, "STEP --container-name=sqdeck-7 true\n",
	    35) == 0, "%s", steps);
	ck_assert_msg(strstr(steps, "\nSTEP --container-name=sqdeck-7 bash -c "
	    "sqdeck-no-such-probe-command\n") != NULL, "%s", steps);
	free(steps);
	free(cmd);
	free(pre);
	free(script);
}
END_TEST

/*
 * The unpacking step fails once (another node's Pyxis failed first and
 * cut this node's unpacking short): the named container is removed on
 * every node (srun ... enroot remove) before the unpacking is tried again,
 * and the script says so with the line the triage knows.
 */
START_TEST(test_unpack_retry)
{
	const char	*dir = test_tmpdir();
	char		*pre, *path, *text, *cmd, *steps = NULL, *out = NULL;
	char		*cause = NULL, *a, *b, *c;

	path = xasprintf("%s/bin", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	free(path);
	path = xasprintf("%s/bin/srun", dir);
	text = xasprintf("#!/bin/sh\necho \"SRUN $*\" >>%s/steps\n", dir);
	write_script(path, text);
	free(text);
	free(path);
	path = xasprintf("%s/rec", dir);
	text = xasprintf("#!/bin/sh\necho \"STEP $*\" >>%s/steps\n"
	    "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
	    "if [ \"$1\" = true ] && [ ! -e %s/once ]; then\n"
	    "\t: >%s/once; exit 1\nfi\nexec \"$@\"\n", dir, dir, dir);
	write_script(path, text);
	free(text);
	pre = nccl_probe_step("echo NCCL_PROBE_OK", 5, 2, 1);
	cmd = xasprintf("PATH=%s/bin:$PATH SLURM_JOB_ID=7 "
	    "SLURM_JOB_NUM_NODES=2", dir);
	run_job(dir, path, pre, cmd);
	free(cmd);
	cmd = xasprintf("%s/steps", dir);
	ck_assert_msg(file_read(cmd, &steps, NULL, &cause) == 0, "%s", cause);
	free(cmd);
	cmd = xasprintf("%s/out", dir);
	ck_assert_msg(file_read(cmd, &out, NULL, &cause) == 0, "%s", cause);
	/* true (fails), the removal on both nodes, true again, the probe. */
	a = strstr(steps, "STEP --container-name=sqdeck-7 true\n");
	ck_assert_msg(a != NULL, "%s", steps);
	b = strstr(a, "SRUN --overlap --nodes=2 --ntasks-per-node=1 enroot "
	    "remove -f pyxis_sqdeck-7\n");
	ck_assert_msg(b != NULL, "%s", steps);
	c = strstr(b, "STEP --container-name=sqdeck-7 true\n");
	ck_assert_msg(c != NULL, "%s", steps);
	ck_assert_msg(strstr(c, "STEP --container-name=sqdeck-7 bash -c echo "
	    "NCCL_PROBE_OK\n") != NULL, "%s", steps);
	ck_assert_msg(strstr(out, TRIAGE_STEP_RETRIED " (unpacking the image "
	    "on every node, exit 1): its container removed on every node, "
	    "trying again, try 2 of 3\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "unpacking the image on every node failed") ==
	    NULL, "%s", out);
	ck_assert_msg(strstr(out, "SQDECK_NCCL_OK=default\n") != NULL, "%s",
	    out);
	free(out);
	free(steps);
	free(cmd);
	free(pre);
	free(path);
}
END_TEST

/*
 * A try whose container could not be set up on a node (SLURM's spank
 * line) is the same setting again, twice at most: a later setting passing
 * is not taken (and cached) for a fault of the node's container runtime.
 */
START_TEST(test_ladder_setup_retry)
{
	const char	*dir = test_tmpdir();
	char		*probe, *pre, *out;
	double		 secs;
	int		 fails;

	for (fails = 1; fails <= 3; fails++) {
		/* Fails with the spank line the first `fails` times. */
		probe = xasprintf("n=$(cat %s/count 2>/dev/null || echo 0); "
		    "echo $((n + 1)) >%s/count; if [ \"$n\" -lt %d ]; then "
		    "echo 'slurmstepd-sdn2: error: Failed to invoke spank "
		    "plugin stack'; exit 1; fi; echo NCCL_PROBE_OK", dir, dir,
		    fails);
		out = xasprintf("rm -f %s/count", dir);
		ck_assert_int_eq(system(out), 0);
		free(out);
		pre = nccl_probe_step(probe, 5, 2, 4);
		ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
		ck_assert_msg(strstr(out, TRIAGE_STEP_RETRIED " (NCCL probe "
		    "try 1, exit 1: a node's container could not be set up, "
		    "not the setting's fault): the same setting again\n") !=
		    NULL, "%d: %s", fails, out);
		if (fails <= 2) {
			ck_assert_msg(strstr(out, "SQDECK_NCCL_OK=default\n") !=
			    NULL, "%d: %s", fails, out);
			ck_assert_msg(strstr(out, "try 2/4") == NULL, "%d: %s",
			    fails, out);
		} else {
			/* The third is the setting's: the next one is tried. */
			ck_assert_msg(strstr(out, "try 1 (default) failed: "
			    "exit 1\n") != NULL, "%d: %s", fails, out);
			ck_assert_msg(strstr(out, "SQDECK_NCCL_OK="
			    "NCCL_P2P_DISABLE=1\n") != NULL, "%d: %s", fails,
			    out);
		}
		free(out);
		free(pre);
		free(probe);
	}
}
END_TEST

/* The default command carries the real probe and renders lint-clean. */
START_TEST(test_default_render)
{
	struct template_vars	 tv;
	char			*pre, *out = NULL, *cause = NULL;

	pre = nccl_probe_step(NULL, 0, 2, 4);
	ck_assert_ptr_nonnull(strstr(pre, "sqdeck_nccl_timeout=120\n"));
	ck_assert_ptr_nonnull(strstr(pre, "SQDECK_NCCL_INNER=110\n"));
	ck_assert_ptr_nonnull(strstr(pre, "dist.all_reduce"));
	ck_assert_ptr_nonnull(strstr(pre, "NCCL_PROBE_OK world_size"));
	ck_assert_ptr_nonnull(strstr(pre, "--node-rank=\"$SLURM_NODEID\""));
	template_vars_init(&tv);
	template_set(&tv, "JOB_NAME", "t-1");
	template_set(&tv, "PARTITION", "gpu");
	template_set(&tv, "NUM_NODES", "2");
	template_set(&tv, "NUM_GPUS", "4");
	template_set(&tv, "CPUS_PER_TASK", "2");
	template_set(&tv, "TIME", "0:10:00");
	template_set(&tv, "LOG_DIR", "/l");
	template_set(&tv, "REQUEUE", "1");
	template_set(&tv, "SBATCH_EXTRA", "");
	template_set(&tv, "IMAGE", "/i.sqsh");
	template_set(&tv, "IMAGE_OWNERS", "");
	template_set(&tv, "CONTAINER_MOUNTS", "");
	template_set(&tv, "COMMAND", "true");
	template_set(&tv, "ENV_FILE", "");
	template_set(&tv, "SECRET_NAMES", "");
	template_set(&tv, "RESULTS_DIR", "");
	template_set(&tv, "JOB_DIR", "/j");
	template_set(&tv, "EXTRA_ENV", "");
	template_set(&tv, "PRE_STEP", pre);
	template_set(&tv, "PROGRAM_TIMEOUT", "570");
	template_set(&tv, "PROGRAM_GRACE", "15");
	ck_assert_msg(template_render_embedded("slurm/multinode.sbatch.tmpl",
	    &tv, &out, &cause) == 0, "%s", cause);
	ck_assert_msg(lint_script("job.sbatch", out, NULL, 0, &cause) == 0,
	    "%s", cause);
	ck_assert_msg(lint_bash_syntax("job.sbatch", out, &cause) == 0, "%s",
	    cause);
	/* The probe comes after the rendezvous and before the main step. */
	ck_assert(strstr(out, "export MASTER_ADDR") < strstr(out,
	    "# NCCL probe: step"));
	ck_assert(strstr(out, "# NCCL probe: step") < strstr(out, "step='set"));
	free(out);
	free(pre);
	template_vars_free(&tv);
}
END_TEST

/*
 * The program timeout counts from the job's start: a pre-step (the NCCL
 * probe) of 3 s comes off the program's 4 s, so the watchdog fires at
 * about 4 s of the job, not 7 (SLURM's TIMEOUT would come first).  The
 * program step runs with srun --unbuffered.  srun and scancel are stand-ins
 * that record their arguments and run the command.
 */
START_TEST(test_program_timeout_counts_probe)
{
	const char		*dir = test_tmpdir();
	struct template_vars	 tv;
	char			*out = NULL, *cause = NULL, *path, *cmd, *log;
	struct timespec		 t0, t1;
	double			 secs;
	FILE			*f;

	path = xasprintf("%s/bin", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	free(path);
	path = xasprintf("%s/bin/srun", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\necho \"SRUN $*\" >>%s/srun.args\n"
	    "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
	    "exec \"$@\"\n", dir);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	path = xasprintf("%s/bin/scancel", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nexit 0\n");
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);

	template_vars_init(&tv);
	template_set(&tv, "JOB_NAME", "t-1");
	template_set(&tv, "PARTITION", "gpu");
	template_set(&tv, "NUM_GPUS", "2");
	template_set(&tv, "CPUS_PER_TASK", "1");
	template_set(&tv, "TIME", "0:01:00");
	template_set(&tv, "LOG_DIR", "/l");
	template_set(&tv, "REQUEUE", "0");
	template_set(&tv, "SBATCH_EXTRA", "");
	template_set(&tv, "IMAGE", "");
	template_set(&tv, "IMAGE_OWNERS", "");
	template_set(&tv, "CONTAINER_MOUNTS", "");
	template_set(&tv, "COMMAND", "sleep 30");
	template_set(&tv, "ENV_FILE", "");
	template_set(&tv, "SECRET_NAMES", "");
	template_set(&tv, "RESULTS_DIR", "");
	template_set(&tv, "JOB_DIR", dir);
	template_set(&tv, "EXTRA_ENV", "");
	template_set(&tv, "PRE_STEP", "sleep 3  # stands for the NCCL probe");
	template_set(&tv, "PROGRAM_TIMEOUT", "4");
	template_set(&tv, "PROGRAM_GRACE", "1");
	ck_assert_msg(template_render_embedded("slurm/singlenode.sbatch.tmpl",
	    &tv, &out, &cause) == 0, "%s", cause);
	template_vars_free(&tv);
	path = xasprintf("%s/job.sbatch", dir);
	ck_assert_int_eq(file_write_atomic(path, out, strlen(out), 0600,
	    &cause), 0);
	free(out);
	cmd = xasprintf("cd %s && PATH=%s/bin:$PATH SLURM_JOB_ID=9 "
	    "SLURM_JOB_NAME=t-1 SLURM_JOB_NODELIST=n1 bash %s >out 2>&1",
	    dir, dir, path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(WEXITSTATUS(system(cmd)), 124);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(cmd);
	free(path);
	path = xasprintf("%s/out", dir);
	ck_assert_int_eq(file_read(path, &log, NULL, &cause), 0);
	/* 4 s of the job and 1 s of grace; 3 s later before the fix. */
	ck_assert_msg(secs < 6.5, "ended after %.1f s: %s", secs, log);
	ck_assert_msg(strstr(log, "sqdeck: program timeout: the program ran "
	    "1 s (the job 4 s, 0.95 of its time)") != NULL, "%s", log);
	free(log);
	free(path);
	path = xasprintf("%s/srun.args", dir);
	ck_assert_int_eq(file_read(path, &log, NULL, &cause), 0);
	ck_assert_msg(strstr(log, "SRUN --cpus-per-task=1 --kill-on-bad-exit=1 "
	    "--unbuffered bash -c") != NULL, "%s", log);
	free(log);
	free(path);
}
END_TEST

START_TEST(test_skip_step)
{
	struct strv	 env;
	char		*pre, *out, *cause = NULL;
	double		 secs;

	memset(&env, 0, sizeof env);
	ck_assert_int_eq(nccl_setting_parse("NCCL_P2P_DISABLE=1,"
	    "NCCL_IB_DISABLE=1", &env, &cause), 0);
	pre = nccl_skip_step("NCCL_P2P_DISABLE=1,NCCL_IB_DISABLE=1", &env);
	ck_assert_int_eq(run_pre_step(pre, "/x.sqsh", &out, &secs), 0);
	ck_assert_msg(strstr(out, "sqdeck: NCCL probe skipped: cached "
	    "setting NCCL_P2P_DISABLE=1,NCCL_IB_DISABLE=1\n") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "MAIN-STEP launch=--container-env="
	    "NCCL_P2P_DISABLE,NCCL_IB_DISABLE ") != NULL, "%s", out);
	ck_assert_ptr_null(strstr(out, "try 1"));
	free(out);
	free(pre);
	strv_free(&env);
}
END_TEST

START_TEST(test_setting_parse)
{
	struct strv	 env;
	char		*cause = NULL;

	memset(&env, 0, sizeof env);
	ck_assert_int_eq(nccl_setting_parse("default", &env, &cause), 0);
	ck_assert_uint_eq(env.n, 0);
	ck_assert_int_eq(nccl_setting_parse("NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=^lo,docker0", &env, &cause), -1);
	ck_assert_str_eq(cause, "NCCL setting 'NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=^lo,docker0': 'docker0' is not NCCL_NAME=value "
	    "(letters, digits, '.', '_', ':', '^', '-')");
	free(cause);
	cause = NULL;
	ck_assert_uint_eq(env.n, 0);
	ck_assert_int_eq(nccl_setting_parse("NCCL_SOCKET_IFNAME=ib0.8001",
	    &env, &cause), 0);
	ck_assert_str_eq(env.v[0], "NCCL_SOCKET_IFNAME=ib0.8001");
	ck_assert_int_eq(nccl_setting_parse("LD_PRELOAD=x", &env, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(nccl_setting_parse("NCCL_X=$(id)", &env, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(nccl_setting_parse("", &env, &cause), -1);
	free(cause);
	strv_free(&env);
}
END_TEST

/*
 * Issue 12 item 7: only the ladder's own rungs are taken from a probe
 * answer, and the probe step writes its answer to a file of the job.
 */
START_TEST(test_setting_allowlist)
{
	struct strv	 env;
	char		*cause = NULL, *pre, *out, *path, *text;
	double		 secs;
	static const char *bad[] = {
		"NCCL_SOCKET_IFNAME=lo", "NCCL_ALGO=Ring",
		"NCCL_P2P_DISABLE=0", "NCCL_DEBUG_FILE=x",
		"NCCL_IB_DISABLE=1,NCCL_IB_DISABLE=1",
		"NCCL_SOCKET_IFNAME=^docker", "NCCL_NET_PLUGIN=evil",
		"NCCL_SOCKET_IFNAME=a234567890123456", NULL,
	};
	size_t		 i;

	memset(&env, 0, sizeof env);
	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(nccl_setting_parse(bad[i], &env, &cause) == -1,
		    "%s accepted", bad[i]);
		free(cause);
		cause = NULL;
		ck_assert_uint_eq(env.n, 0);
	}
	ck_assert_int_eq(nccl_setting_parse("NCCL_P2P_DISABLE=1,"
	    "NCCL_SOCKET_IFNAME=eth0,NCCL_IB_DISABLE=1", &env, &cause), 0);
	ck_assert_uint_eq(env.n, 3);
	strv_free(&env);
	/* Nor stored in the cache. */
	ck_assert_int_eq(nccl_cache_store("c", "p", "i",
	    "NCCL_SOCKET_IFNAME=lo", "sd-1", &cause), -1);
	free(cause);

	/* The answer file: <job dir>/nccl/result-<job id>, mode 600. */
	setenv("SQDECK_JOB_DIR", test_tmpdir(), 1);
	setenv("SLURM_JOB_ID", "4242", 1);
	pre = nccl_probe_step(HANG_UNLESS_P2P, 2, 2, 4);
	ck_assert_int_eq(run_pre_step(pre, "", &out, &secs), 0);
	path = xasprintf("%s/" NCCL_RESULT_DIR "/result-4242",
	    getenv("SQDECK_JOB_DIR"));
	ck_assert_int_eq(file_read(path, &text, NULL, NULL), 0);
	ck_assert_str_eq(text, "SQDECK_NCCL_OK=NCCL_P2P_DISABLE=1\n");
	{
		struct stat	st;

		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0600);
	}
	free(text);
	free(path);
	free(out);
	free(pre);
	unsetenv("SQDECK_JOB_DIR");
	unsetenv("SLURM_JOB_ID");
}
END_TEST

START_TEST(test_parse_log)
{
	const char	*log = "x\nSQDECK_NCCL_OK=default\r\n"
	    "  SQDECK_NCCL_FAIL=indented, not ours\n"
	    "SQDECK_NCCL_OK=NCCL_P2P_DISABLE=1";
	char		*v;

	ck_assert_int_eq(nccl_parse_log(log, strlen(log), &v), NCCL_OK);
	ck_assert_str_eq(v, "NCCL_P2P_DISABLE=1");
	free(v);
	/* Only the first line, as the length says. */
	ck_assert_int_eq(nccl_parse_log(log, 28, &v), NCCL_OK);
	ck_assert_str_eq(v, "default");
	free(v);
	ck_assert_int_eq(nccl_parse_log("nothing\n", 8, &v), NCCL_NONE);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(nccl_parse_log(NULL, 0, NULL), NCCL_NONE);
	ck_assert_str_eq(nccl_verdict_name(NCCL_SKIP), "SKIP");
}
END_TEST

START_TEST(test_cache)
{
	char	*s = NULL, *cause = NULL, *path, *text;
	size_t	 len;
	FILE	*f;

	ck_assert_int_eq(nccl_cache_lookup("c", "gpu", "img", &s, &cause), 0);
	ck_assert_int_eq(nccl_cache_store("c", "gpu", "img",
	    "NCCL_P2P_DISABLE=1", "sd-1", &cause), 0);
	ck_assert_int_eq(nccl_cache_store("c", "cpu", "img", "default",
	    "sd-2", &cause), 0);
	ck_assert_int_eq(nccl_cache_lookup("c", "gpu", "img", &s, &cause), 1);
	ck_assert_str_eq(s, "NCCL_P2P_DISABLE=1");
	free(s);
	/* Every part of the key counts. */
	ck_assert_int_eq(nccl_cache_lookup("c", "gpu", "img2", &s, &cause), 0);
	ck_assert_int_eq(nccl_cache_lookup("d", "gpu", "img", &s, &cause), 0);
	ck_assert_int_eq(nccl_cache_lookup("c", "cpu", "img", &s, &cause), 1);
	ck_assert_str_eq(s, "default");
	free(s);
	/* Replacing keeps one entry per key. */
	ck_assert_int_eq(nccl_cache_store("c", "gpu", "img",
	    "NCCL_IB_DISABLE=1", "sd-3", &cause), 0);
	path = nccl_cache_path();
	ck_assert_int_eq(file_read(path, &text, &len, &cause), 0);
	ck_assert_ptr_null(strstr(text, "sd-1"));
	ck_assert_ptr_nonnull(strstr(text, "\"record_id\":\t\"sd-3\""));
	free(text);
	/* A setting that is not safe is refused, the file is unchanged. */
	ck_assert_int_eq(nccl_cache_store("c", "gpu", "img", "X=`id`", "sd-4",
	    &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(nccl_cache_forget("c", "gpu", "img", &cause), 1);
	ck_assert_int_eq(nccl_cache_forget("c", "gpu", "img", &cause), 0);
	ck_assert_int_eq(nccl_cache_lookup("c", "gpu", "img", &s, &cause), 0);
	/* A corrupt file is an error naming the file and the fix. */
	f = fopen(path, "w");
	fputs("{not json", f);
	fclose(f);
	ck_assert_int_eq(nccl_cache_lookup("c", "gpu", "img", &s, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, path));
	ck_assert_ptr_nonnull(strstr(cause, "remove it"));
	free(cause);
	free(path);
}
END_TEST

/* prepare without a connection: cache hit -> skip, miss -> probe. */
START_TEST(test_prepare)
{
	struct cluster	 cl;
	struct nccl_job	 job;
	char		*cause = NULL;

	memset(&cl, 0, sizeof cl);
	cl.name = "c";
	cl.nccl_probe_command = HANG_UNLESS_P2P;
	cl.nccl_probe_timeout = 5;
	ck_assert_int_eq(nccl_prepare(NULL, &cl, "gpu", "img", 1, 1, 240, &job,
	    &cause), 0);
	ck_assert(!job.probe && !job.cached);
	ck_assert_str_eq(job.pre_step, "");
	nccl_job_free(&job);
	ck_assert_int_eq(nccl_prepare(NULL, &cl, "gpu", "img", 2, 4, 240, &job,
	    &cause), 0);
	ck_assert(job.probe && !job.cached);
	ck_assert_ptr_nonnull(strstr(job.pre_step, "sqdeck_nccl_timeout=5"));
	ck_assert_ptr_nonnull(strstr(job.pre_step, "sleep 30"));
	/* 5 % of 4 h is 720 s, but four tries of 5 s need only 20. */
	ck_assert_int_eq(job.budget, 20);
	ck_assert_ptr_nonnull(strstr(job.pre_step, "sqdeck_nccl_budget=20\n"));
	ck_assert_ptr_nonnull(strstr(job.pre_step,
	    "--container-name=\"$sqdeck_nccl_cname\""));
	nccl_job_free(&job);
	ck_assert_int_eq(nccl_cache_store("c", "gpu", "img",
	    "NCCL_P2P_DISABLE=1", "sd-1", &cause), 0);
	ck_assert_int_eq(nccl_prepare(NULL, &cl, "gpu", "img", 2, 4, 240, &job,
	    &cause), 0);
	ck_assert(!job.probe && job.cached);
	ck_assert_str_eq(job.setting, "NCCL_P2P_DISABLE=1");
	ck_assert_uint_eq(job.env.n, 1);
	ck_assert_str_eq(job.env.v[0], "NCCL_P2P_DISABLE=1");
	ck_assert_ptr_nonnull(strstr(job.pre_step, "probe skipped"));
	nccl_job_free(&job);
	ck_assert_int_eq(nccl_pending_add("sd-20260101T000000-abcdef", "c",
	    "gpu", "img", &cause), 0);
	ck_assert_int_eq(nccl_pending_add("../x", "c", "gpu", "img", &cause),
	    -1);
	free(cause);
}
END_TEST


/* --- retry (sqdeck(1): retries): the pure rules, kept here with their NCCL
   neighbour --- */

static struct record *
failed(const char *id, enum err_class cls, const char *rule, int count)
{
	struct record	*r = record_new("c");

	r->id = xstrdup(id);
	r->state = RSTATE_ERROR;
	r->err_class = cls;
	r->err_rule = xstrdup(rule);
	r->retry_count = count;
	strv_add(&r->slurm_ids, "42");
	return r;
}

START_TEST(test_retry_decide)
{
	struct record	*r = failed("sd-1", ERR_INFRA, "node-fail", 0);
	char		*why;

	ck_assert_int_eq(retry_decide(r, 2, NULL, NULL, &why), RETRY_GO);
	ck_assert_str_eq(why, "INFRA failure (triage rule node-fail): retry 1 "
	    "of 2");
	free(why);
	/* A requeued job is followed, not retried. */
	ck_assert_int_eq(retry_decide(r, 2, NULL, "PENDING", &why),
	    RETRY_REQUEUED);
	ck_assert_ptr_nonnull(strstr(why, "job 42 in the queue again"));
	free(why);
	ck_assert_int_eq(retry_decide(r, 2, "sd-2", NULL, &why), RETRY_DONE);
	free(why);
	r->retry_count = 2;
	ck_assert_int_eq(retry_decide(r, 2, NULL, NULL, &why), RETRY_BUDGET);
	ck_assert_str_eq(why, "not retried: the retry budget of 2 is spent "
	    "(record sd-1 is retry 2 of the chain)");
	free(why);
	ck_assert_int_eq(retry_decide(r, 0, NULL, NULL, NULL), RETRY_BUDGET);
	record_free(r);

	/* PROGRAM and CONFIG: no retry, the rule is shown. */
	r = failed("sd-3", ERR_PROGRAM, "cuda-oom", 0);
	ck_assert_int_eq(retry_decide(r, 2, NULL, NULL, &why),
	    RETRY_NOT_INFRA);
	ck_assert_str_eq(why, "not retried: a PROGRAM failure (triage rule "
	    "cuda-oom) is not the cluster's fault; fix it and submit again");
	free(why);
	r->err_class = ERR_CONFIG;
	ck_assert_int_eq(retry_decide(r, 2, NULL, NULL, NULL),
	    RETRY_NOT_INFRA);
	r->state = RSTATE_COMPLETE;
	ck_assert_int_eq(retry_decide(r, 2, NULL, NULL, NULL),
	    RETRY_NOT_ERROR);
	record_free(r);
}
END_TEST

START_TEST(test_retry_exclude)
{
	char	*x, *note;

	/* The down node of the job, not the healthy one. */
	x = retry_exclude("sdn[1-2]", "sdn1 down*\nsdn2 alloc\n", NULL, &note);
	ck_assert_str_eq(x, "sdn1");
	ck_assert_ptr_null(note);
	free(x);
	/* Nothing failing: every node of the job, inheritance kept. */
	x = retry_exclude("n2", "n1 idle\nn2 alloc\nn3 mix\nn4 idle\n", "n4",
	    &note);
	ck_assert_str_eq(x, "n2,n4");
	free(x);
	/* Drained and not-responding forms count as failing. */
	x = retry_exclude("n[1-3]", "n1 drain\nn2 idle~\nn3 mix\nn4 idle\n",
	    NULL, &note);
	ck_assert_str_eq(x, "n1,n2");
	free(x);
	x = retry_exclude("n3", "n1 idle\nn3 idle*\n", NULL, NULL);
	ck_assert_str_eq(x, "n3");
	free(x);
	/* Never the whole partition: only the failing node stays. */
	x = retry_exclude("sdn[1-2]", "sdn1 mix\nsdn2 down\n", NULL, &note);
	ck_assert_str_eq(x, "sdn2");
	ck_assert_ptr_null(note);
	free(x);
	x = retry_exclude("sdn1", "sdn1 idle\nsdn2 idle\n", "sdn2", &note);
	ck_assert_str_eq(x, "");
	ck_assert_str_eq(note, "excluding every node the job had would leave "
	    "none in the partition: only the failing ones are excluded (none "
	    "is failing now)");
	free(note);
	free(x);
	x = retry_exclude("sdn[1-2]", "sdn1 down\nsdn2 down\n", NULL, &note);
	ck_assert_str_eq(x, "");
	ck_assert_str_eq(note, "every node of the partition is failing: no "
	    "node is excluded");
	free(note);
	free(x);
	/* Unknown partition (no sinfo): the job's nodes. */
	x = retry_exclude("a1,b[1-2]", "", NULL, NULL);
	ck_assert_str_eq(x, "a1,b1,b2");
	free(x);
	x = retry_exclude(NULL, NULL, NULL, NULL);
	ck_assert_str_eq(x, "");
	free(x);
}
END_TEST

START_TEST(test_retry_chain)
{
	struct record	*a = failed("sd-20260101T000000-aaaaaa", ERR_INFRA,
			    "node-fail", 0), *b, *c, **v;
	char		*cause = NULL, *x;
	size_t		 n;

	ck_assert_msg(record_create(a, &cause) == 0, "%s", cause);
	b = record_new_retry(a);
	ck_assert_msg(record_create(b, &cause) == 0, "%s", cause);
	ck_assert_int_eq(record_transition(b->id, RSTATE_PENDING, "",
	    "retry:cli", "retry 1 of 2 of x (SLURM job 42, NODE_FAIL, rule "
	    "node-fail); exclude=sdn1", &cause), 0);
	c = record_new_retry(b);
	ck_assert_msg(record_create(c, &cause) == 0, "%s", cause);
	ck_assert_int_eq(c->retry_count, 2);
	ck_assert_int_eq(retry_chain(b->id, &v, &n, &cause), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(v[0]->id, a->id);
	ck_assert_str_eq(v[1]->id, b->id);
	ck_assert_str_eq(v[2]->id, c->id);
	ck_assert_str_eq(v[2]->retry_of, b->id);
	x = retry_inherited(v[1]);
	ck_assert_str_eq(x, "sdn1");
	free(x);
	ck_assert_ptr_null(retry_inherited(v[0]));

	/*
	 * The whole chain's exclusions are inherited, even where one step's
	 * own list lost some (c's says only sdn2): a retry of c keeps sdn1
	 * out too.  b's past does not include c's.
	 */
	ck_assert_int_eq(record_transition(c->id, RSTATE_PENDING, "",
	    "retry:auto", "retry 2 of 2 of y (SLURM job 43, NODE_FAIL, rule "
	    "node-fail); exclude=sdn2", &cause), 0);
	x = retry_inherited_chain(v[2]);
	ck_assert_str_eq(x, "sdn1,sdn2");
	free(x);
	x = retry_inherited_chain(v[1]);
	ck_assert_str_eq(x, "sdn1");
	free(x);
	ck_assert_ptr_null(retry_inherited_chain(v[0]));
	for (size_t i = 0; i < n; i++)
		record_free(v[i]);
	free(v);
	ck_assert_int_eq(retry_chain("sd-nope", &v, &n, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "no record sd-nope"));
	free(cause);
	record_free(a);
	record_free(b);
	record_free(c);
}
END_TEST

static Suite *
nccl_suite(void)
{
	Suite	*s = suite_create("nccl");
	TCase	*tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_wanted);
	tcase_add_test(tc, test_program_timeout_counts_probe);
	tcase_add_test(tc, test_ladder_no_torchrun_one_line);
	tcase_add_test(tc, test_ladder_fallback);
	tcase_add_test(tc, test_unpack_before_probe);
	tcase_add_test(tc, test_unpack_retry);
	tcase_add_test(tc, test_ladder_setup_retry);
	tcase_add_test(tc, test_ladder_budget);
	tcase_add_test(tc, test_ladder_pyxis_env);
	tcase_add_test(tc, test_ladder_all_fail);
	tcase_add_test(tc, test_ladder_unavailable);
	tcase_add_test(tc, test_default_render);
	tcase_add_test(tc, test_skip_step);
	tcase_add_test(tc, test_setting_parse);
	tcase_add_test(tc, test_setting_allowlist);
	tcase_add_test(tc, test_parse_log);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_prepare);
	suite_add_tcase(s, tc);
	tc = tcase_create("retry");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_retry_decide);
	tcase_add_test(tc, test_retry_exclude);
	tcase_add_test(tc, test_retry_chain);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(nccl_suite)
