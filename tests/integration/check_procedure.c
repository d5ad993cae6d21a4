/*
 * What the procedure says (issue 13) against the real local cluster
 * (tests/cluster/up; source $SDTB_DIR/env.sh first): the program timeout
 * inside the job, times above 4 h and partition lists checked against
 * sinfo, submit's overrides, cancel of a job SLURM forgot and of an id
 * nobody knew, the 200-line logs default, preflight --deep.  Every test
 * runs the real binary ($SQDECK_BIN) and checks with the real ssh client
 * and SLURM's own commands.  Only jobs named sdproc-* are touched.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdarg.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "itutil.h"
#include "record.h"
#include "util.h"

static void
need_cluster(void)
{
	static const char *const more[] = { "SDTB_LUSTRE", "SDTB_DIR", NULL };

	it_need_cluster(more);
}

static void
setup(void)
{
	it_setup();
	unsetenv("SLURM_TIME_HOURS");
	setenv("SLURM_PARTITION", "gpu", 1);
}

#define wait_end(id, cap)	it_wait_end((id), "State,ExitCode", (cap), 1)

/* submit --json SPEC [ARGS...]; the parsed reply, which must say ok. */
static cJSON *
submit(const char *spec, const char *a1, const char *a2)
{
	cJSON	*j;
	char	*out, *err;
	int	 rc;

	rc = sd(&out, &err, "submit", "--json", spec, a1, a2, NULL);
	j = cJSON_Parse(out);
	ck_assert_msg(rc == 0 && j != NULL, "submit: exit %d\n%s\n%s", rc,
	    out, err);
	free(out);
	free(err);
	return j;
}

/*
 * The image of these tests: a .sqsh on the cluster's shared storage, so
 * they need no conversion (the image tests are check_submit's):
 * SQDECK_TEST_IMAGE, else the test image as a file that
 * tests/cluster/containers writes ($SDTB_IMAGE_SQSH).  Checked on the
 * login node: a missing file fails here, naming what makes it.
 */
static const char *
test_image(void)
{
	const char	*e;
	char		*out;

	if ((e = getenv("SQDECK_TEST_IMAGE")) == NULL || *e == '\0')
		e = getenv("SDTB_IMAGE_SQSH");
	ck_assert_msg(e != NULL && *e != '\0', "SDTB_IMAGE_SQSH is not set: "
	    "source $SDTB_DIR/env.sh of a tests/cluster/up run with "
	    "containers (%s), or set SQDECK_TEST_IMAGE to a .sqsh with bash "
	    "on the cluster", getenv("SDTB_CONTAINERS_WHY") != NULL ?
	    getenv("SDTB_CONTAINERS_WHY") : "SDTB_CONTAINERS not set");
	out = ssh_out("head -c 4 '%s' 2>&1", e);
	ck_assert_msg(strcmp(out, "hsqs") == 0, "no test image %s on the "
	    "cluster (%s): tests/cluster/up writes it (tests/cluster/"
	    "containers), or set SQDECK_TEST_IMAGE to a .sqsh with bash on "
	    "the cluster", e, out);
	free(out);
	return e;
}

static int
lines_of(const char *s)
{
	int	n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/*
 * 1. The program gets 0.95 of the job's time: a 2 min job's program is
 * stopped at 114 s (TERM, which this one ignores, then KILL 3 s later),
 * the script still writes its verdict, SLURM says FAILED 124 and not
 * TIMEOUT, and the record says program-timeout.
 */
START_TEST(test_program_timeout)
{
	struct record	*r;
	cJSON		*j;
	char		*spec, *state, *out, *err;
	const char	*id, *dir, *name;

	need_cluster();
	spec = write_spec("name: sdproc-pt-%s\n"
	    "image: %s\n"
	    "command: |\n"
	    "  trap 'echo \"got TERM at $SECONDS s, ignoring it\"' TERM\n"
	    "  echo started\n"
	    "  while :; do sleep 1; done\n"
	    "gpus: 1\ncpus: 1\ntime: 2m\n", unique, test_image());
	j = submit(spec, NULL, NULL);
	id = it_jstr(j, "job_id");
	dir = it_jstr(j, "job_dir");
	name = it_jstr(j, "name");
	out = ssh_out("cat '%s/sbatch/'*.sbatch", dir);
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_PROGRAM_TIMEOUT=114\n"));
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_PROGRAM_GRACE=3\n"));
	free(out);

	state = wait_end(id, 400);
	/* Stopped by sqdeck's timeout: not SLURM's TIMEOUT. */
	ck_assert_str_eq(state, "FAILED|124:0");
	free(state);
	out = ssh_out("sacct -j %s -X -n -P -o Elapsed", id);
	fprintf(stderr, "program timeout: job %s elapsed %s", id, out);
	free(out);
	out = ssh_out("cat '%s/logs/%s-%s/main.out' '%s/logs/%s-%s/main.err' "
	    "'%s/results/status.json'", dir, name, id, dir, name, id, dir);
	ck_assert_msg(strstr(out, "got TERM") != NULL, "TERM never came: %s",
	    out);
	/* 114 s from the job's start: the program's share is less. */
	ck_assert_msg(strstr(out, "sqdeck: program timeout: the program ran "
	    "1") != NULL && strstr(out, " s (the job 114 s, 0.95 of its "
	    "time)") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"status\":\"FAILURE\",\"exit_code\""
	    ":124,\"reason\":\"program-timeout\""));
	free(out);

	/* The record says why (once a poll can see the end). */
	it_wait_poll_end(id, 60);
	ck_assert_int_eq(sd(&out, &err, "status", it_jstr(j, "record_id"),
	    NULL), 0);
	ck_assert_msg(strstr(out, "rule program-timeout") != NULL, "%s", out);
	free(out);
	free(err);
	r = it_load_record(it_jstr(j, "record_id"));
	ck_assert_int_eq(r->state, RSTATE_ERROR);
	ck_assert_str_eq(r->err_rule, "program-timeout");
	ck_assert_str_eq(r->native, "FAILED");
	record_free(r);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/*
 * 2. SLURM_TIME_HOURS above 4: every verb still loads the config; submit
 * checks it against the partition's MaxTime (gpu: 4 h; cpu: none).  The
 * overrides --time --partition --gpus --nodes beat the spec.  And the
 * acceptance case: a 4 h spec's dry run shows the program timeout.
 */
START_TEST(test_long_time_and_overrides)
{
	char	*spec, *sec, *out, *err;

	need_cluster();
	spec = write_spec("name: sdproc-long-%s\n"
	    "image: %s\n"
	    "command: echo hi\ngpus: 1\ncpus: 1\n", unique, test_image());
	setenv("SLURM_TIME_HOURS", "6", 1);
	ck_assert_int_eq(sd(&out, &err, "jobs", NULL), 0);
	free(out);
	free(err);
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec, NULL), 0);
	ck_assert_msg(strstr(err, "the default time 6:00:00 (SLURM_TIME_HOURS "
	    "or time_hours of cluster 'default') exceeds partition gpu's "
	    "MaxTime 4:00:00") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sd(&out, &err, "submit", "--dry-run", spec,
	    "--partition", "cpu", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --partition=cpu\n"));
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --time=6:00:00\n"));
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_PROGRAM_TIMEOUT=20520\n"));
	free(out);
	free(err);
	unsetenv("SLURM_TIME_HOURS");

	/* --time too long for gpu: refused before anything is written. */
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec,
	    "--time", "5h", NULL), 0);
	ck_assert_msg(strstr(err, "time 5:00:00 exceeds partition gpu's "
	    "MaxTime 4:00:00: use --time 4h or less") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec,
	    "--gpus", "x", NULL), 0);
	ck_assert_ptr_nonnull(strstr(err, "--gpus must be a whole number"));
	free(out);
	free(err);
	/* Issue 26.12: a dry run exits as a real submit would. */
	sec = write_spec("name: sdproc-sec-%s\n"
	    "image: %s\nsecrets: [SD_DRY_UNSET]\n"
	    "command: echo hi\ngpus: 1\ncpus: 1\n", unique, test_image());
	unsetenv("SD_DRY_UNSET");
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", sec, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH"));
	ck_assert_msg(strstr(err, "dry run: not set in this environment: "
	    "SD_DRY_UNSET; a real submit stops there") != NULL, "%s", err);
	free(out);
	free(err);
	setenv("SD_DRY_UNSET", "dry-canary-q7zv", 1);
	ck_assert_int_eq(sd(&out, &err, "submit", "--dry-run", sec, NULL), 0);
	free(out);
	free(err);
	unsetenv("SD_DRY_UNSET");
	free(sec);
	/* Issue 26.12: the time as written; one limit for CLI and spec. */
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec,
	    "--time", "4:00:01", NULL), 0);
	ck_assert_msg(strstr(err, "time 4:00:01 exceeds partition gpu's "
	    "MaxTime 4:00:00: use --time 4h or less") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec,
	    "--gpus", "8193", NULL), 0);
	ck_assert_msg(strstr(err, "--gpus must be a whole number from 0 to "
	    "8192") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_ne(sd(&out, &err, "submit", "--dry-run", spec,
	    "--nodes", "1025", NULL), 0);
	ck_assert_msg(strstr(err, "--nodes must be a whole number from 1 to "
	    "1024") != NULL, "%s", err);
	free(out);
	free(err);

	/* The acceptance case: 4 h, and the program timeout 0.95 of it. */
	ck_assert_int_eq(sd(&out, &err, "submit", "--dry-run", spec,
	    "--time", "4h", "--gpus", "2", "--nodes", "1", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --time=4:00:00\n"));
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --gres=gpu:2\n"));
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_PROGRAM_TIMEOUT=13680\n"));
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_PROGRAM_GRACE=120\n"));
	ck_assert_ptr_nonnull(strstr(err, "program timeout 13680 s"));
	free(out);
	free(err);
	free(spec);
}
END_TEST

/*
 * 3. SLURM_PARTITION is a list: each entry is checked against sinfo,
 * the dropped ones are named with the reason, SLURM gets the rest as
 * -p a,b and starts the job in one of them.
 */
START_TEST(test_partition_list)
{
	cJSON	*j;
	char	*spec, *out, *err, *state;
	const char *id;

	need_cluster();
	spec = write_spec("name: sdproc-parts-%s\n"
	    "image: %s\n"
	    "command: echo ran\ngpus: 1\ncpus: 1\n", unique, test_image());
	setenv("SLURM_PARTITION", "gpu,nope,cpu", 1);
	ck_assert_int_eq(sd(&out, &err, "submit", "--dry-run", spec,
	    "--time", "6h", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --partition=cpu\n"));
	ck_assert_msg(strstr(err, "partitions dropped: nope (does not exist), "
	    "gpu (MaxTime 4:00:00 < 6:00:00); asking SLURM for cpu") != NULL,
	    "%s", err);
	free(out);
	free(err);

	/* Both fit 5 min: SLURM gets both and picks. */
	setenv("SLURM_PARTITION", "gpu,cpu", 1);
	j = submit(spec, "--time", "5m");
	id = it_jstr(j, "job_id");
	out = ssh_out("cat '%s/sbatch/'*.sbatch", it_jstr(j, "job_dir"));
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --partition=gpu,cpu\n"));
	free(out);
	state = wait_end(id, 240);
	ck_assert_str_eq(state, "COMPLETED|0:0");
	free(state);
	out = it_ssh_until(30, "^(gpu|cpu)$", "sacct -j %s -X -n -P -o "
	    "Partition", id);
	str_trim(out);
	ck_assert_msg(strcmp(out, "gpu") == 0 || strcmp(out, "cpu") == 0,
	    "ran in '%s'", out);
	free(out);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/* Wait until slurmctld has forgotten the job (MinJobAge, then a purge). */
static void
wait_forgotten(const char *id)
{
	char	*out, *age;
	int	 i, cap;

	age = ssh_out("scontrol show config | sed -n "
	    "'s/^MinJobAge *= *\\([0-9]*\\).*/\\1/p'");
	cap = atoi(age) + 300;
	fprintf(stderr, "cancel: MinJobAge %d s\n", atoi(age));
	free(age);
	for (i = 0; i < cap; i += 5) {
		out = ssh_out("scontrol show job %s >/dev/null 2>&1 && "
		    "echo known || echo gone", id);
		if (strcmp(out, "gone\n") == 0) {
			free(out);
			return;
		}
		free(out);
		sleep(5);
	}
	ck_abort_msg("slurmctld still knows job %s after %d s", id, cap);
}

/*
 * 4. A job SLURM has forgotten counts as cancelled (sqdeck(1): cancel), with a
 * record or without (sacct knows it); an id nobody knew fails: "no such job".
 */
START_TEST(test_cancel_forgotten)
{
	cJSON	*j;
	char	*spec, *out, *err, *state, *bare, *big;
	const char *id;

	need_cluster();
	spec = write_spec("name: sdproc-gone-%s\n"
	    "image: %s\n"
	    "command: echo done\ngpus: 1\ncpus: 1\ntime: 5m\n",
	    unique, test_image());
	j = submit(spec, NULL, NULL);
	id = it_jstr(j, "job_id");
	/* A job without a record (a few tries: the shared cluster may be
	   reconfiguring). */
	bare = ssh_out("for i in 1 2 3; do sbatch --parsable -p cpu -t 1 "
	    "-J sdproc-bare-%s -o /dev/null --wrap true && break; sleep 5; "
	    "done", unique);
	str_trim(bare);
	ck_assert_msg(atol(bare) > 0, "sbatch: %s", bare);
	state = wait_end(id, 240);
	free(state);
	state = wait_end(bare, 240);
	free(state);
	wait_forgotten(id);
	wait_forgotten(bare);

	/* By record id, by SLURM id (its record is found), without one. */
	ck_assert_int_eq(sd(&out, &err, "cancel", it_jstr(j, "record_id"),
	    NULL), 0);
	ck_assert_msg(strstr(out, "had already ended (SLURM no longer lists "
	    "it; sacct: COMPLETED): counts as cancelled") != NULL, "%s\n%s",
	    out, err);
	free(out);
	free(err);
	ck_assert_int_eq(sd(&out, &err, "cancel", id, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "counts as cancelled"));
	free(out);
	free(err);
	ck_assert_int_eq(sd(&out, &err, "cancel", bare, NULL), 0);
	ck_assert_msg(strstr(out, "counts as cancelled") != NULL, "%s\n%s",
	    out, err);
	free(out);
	free(err);

	/* A typo: far above any id this cluster handed out. */
	big = xasprintf("%ld", atol(bare) + 1000000);
	ck_assert_int_ne(sd(&out, &err, "cancel", big, NULL), 0);
	ck_assert_msg(strstr(err, "no such job") != NULL, "%s\n%s", out, err);
	ck_assert_ptr_null(strstr(out, "counts as cancelled"));
	free(out);
	free(err);
	free(big);
	free(bare);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/*
 * 4b. A running job cancelled through sqdeck leaves nothing on its node:
 * the program-timeout flag (sqdeck-timeout.<job id>.* in the node's
 * TMPDIR; the testbed's nodes have the host's /tmp) and the step's marks
 * (.sqdeck-step-<job id> in the job dir) are there while it runs and
 * gone once it ended.  The job's EXIT trap removes both: before it did,
 * every cancelled job left its flag in the node's /tmp.
 */
START_TEST(test_cancel_running_leaves_nothing)
{
	cJSON		*j;
	char		*spec, *out, *err, *state;
	const char	*id, *dir, *name;

	need_cluster();
	spec = write_spec("name: sdproc-cx-%s\n"
	    "image: %s\n"
	    "command: echo started; sleep 600\n"
	    "gpus: 1\ncpus: 1\ntime: 10m\n", unique, test_image());
	j = submit(spec, NULL, NULL);
	id = it_jstr(j, "job_id");
	dir = it_jstr(j, "job_dir");
	name = it_jstr(j, "name");
	out = it_ssh_until(180, "^started$", "cat '%s/logs/%s-%s/main.out' "
	    "2>/dev/null", dir, name, id);
	ck_assert_msg(strstr(out, "started\n") != NULL, "job %s never "
	    "started its program: %s", id, out);
	free(out);
	out = ssh_out("ls -d /tmp/sqdeck-timeout.%s.* '%s/.sqdeck-step-%s' "
	    "2>/dev/null | wc -l", id, dir, id);
	ck_assert_msg(strcmp(out, "2\n") == 0, "while job %s runs, its "
	    "flag and marks: %s", id, out);
	free(out);

	ck_assert_int_eq(sd(&out, &err, "cancel", it_jstr(j, "record_id"),
	    NULL), 0);
	free(out);
	free(err);
	state = wait_end(id, 240);
	ck_assert_msg(strncmp(state, "CANCELLED", 9) == 0, "job %s: %s", id,
	    state);
	free(state);
	/* The batch shell's trap runs within SLURM's KillWait. */
	out = it_ssh_until(60, "^0$", "ls -d /tmp/sqdeck-timeout.%s.* "
	    "'%s/.sqdeck-step-%s' 2>/dev/null | wc -l", id, dir, id);
	ck_assert_msg(strcmp(out, "0\n") == 0, "cancelled job %s left on its "
	    "node: %s", id, out);
	free(out);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/* 5. logs: the last 200 lines unless -n says otherwise. */
START_TEST(test_logs_200)
{
	cJSON	*j;
	char	*spec, *out, *err, *state;

	need_cluster();
	spec = write_spec("name: sdproc-logs-%s\n"
	    "image: %s\n"
	    "command: 'for i in $(seq 1 250); do echo line $i; done; "
	    "for i in $(seq 1 3000); do printf \"%%d%%%%\\r\" $i >&2; "
	    "done'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, test_image());
	j = submit(spec, NULL, NULL);
	state = wait_end(it_jstr(j, "job_id"), 240);
	ck_assert_str_eq(state, "COMPLETED|0:0");
	free(state);
	ck_assert_int_eq(sd(&out, &err, "logs", it_jstr(j, "record_id"), NULL),
	    0);
	ck_assert_int_eq(lines_of(out), 200);
	ck_assert_msg(strncmp(out, "line 51\n", 8) == 0, "%.40s", out);
	ck_assert_ptr_nonnull(strstr(out, "line 250\n"));
	free(out);
	free(err);
	ck_assert_int_eq(sd(&out, &err, "logs", "-n", "3", it_jstr(j,
	    "record_id"), NULL), 0);
	ck_assert_str_eq(out, "line 248\nline 249\nline 250\n");
	free(out);
	free(err);
	/* Issue 26.12: a \r-only progress bar; each frame is a line. */
	ck_assert_int_eq(sd(&out, &err, "logs", "--err", "-n", "6",
	    it_jstr(j, "record_id"), NULL), 0);
	ck_assert_msg(lines_of(out) == 6, "%d lines: %.200s", lines_of(out),
	    out);
	ck_assert_ptr_nonnull(strstr(out, "3000%"));
	free(out);
	free(err);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/*
 * Issue 26.4: the log of an array task sqdeck did not submit (sbatch
 * --array -o out-%A_%a.txt over ssh) stays readable after it ended, when
 * squeue no longer has it: sqdeck logs ID_TASK with no record.
 */
START_TEST(test_logs_foreign_array)
{
	char	*dir, *dir2, *sid, *task, *state, *out, *err;

	need_cluster();
	dir = xasprintf("%s/foreign-%s", getenv("SDTB_LUSTRE"), unique);
	sid = it_ssh_out(tmpdir, "mkdir -p '%s' && cd '%s' && sbatch "
	    "--parsable --array=0-1 -p cpu -t 2 -o out-%%A_%%a.txt --wrap "
	    "'echo foreign-task-$SLURM_ARRAY_TASK_ID-said'", dir, dir);
	str_trim(sid);
	ck_assert_msg(*sid != '\0' && sid[strspn(sid, "0123456789")] == '\0',
	    "sbatch said '%s'", sid);
	task = xasprintf("%s_1", sid);
	state = wait_end(task, 240);
	ck_assert_str_eq(state, "COMPLETED|0:0");
	free(state);
	/* squeue lets an ended task go soon; wait until it has. */
	for (int i = 0; i < 120; i++) {
		out = it_ssh_out(tmpdir, "squeue -h -j %s -o %%i", task);
		str_trim(out);
		if (*out == '\0') {
			free(out);
			break;
		}
		free(out);
		sleep(1);
	}
	ck_assert_int_eq(sd(&out, &err, "logs", task, NULL), 0);
	ck_assert_msg(strcmp(out, "foreign-task-1-said\n") == 0, "out '%s' "
	    "err '%s'", out, err);
	free(out);
	free(err);
	/* A task of a job with no such task: said, not a crash. */
	dir2 = xasprintf("%s_7", sid);
	ck_assert_int_ne(sd(&out, &err, "logs", dir2, NULL), 0);
	ck_assert_msg(strstr(err, "log path is not known") != NULL, "%s", err);
	free(dir2);
	free(out);
	free(err);
	free(sid);
	free(task);
	free(dir);
}
END_TEST

/*
 * 7. The NCCL probe has a total budget (stated in the log) and runs in
 * the same Pyxis container as the job: both see the container
 * pyxis_sqdeck-<job id> as their root, and it is removed at the end.
 */
START_TEST(test_probe_shares_container)
{
	cJSON	*j;
	char	*spec, *out, *err, *state, *want, *probe;
	const char *id, *dir, *name;

	need_cluster();
	/* The cluster's own probe: says which container it runs in. */
	it_write_clusters("- name: sdtb\n  hosts: %s\n"
	    "  nccl_probe_command: \"grep -o 'pyxis_sqdeck-[0-9]*' "
	    "/proc/self/mountinfo | head -n 1; echo NCCL_PROBE_OK\"\n",
	    getenv("SLURM_HOSTNAME"));
	spec = write_spec("name: sdproc-probe-%s\n"
	    "image: %s\n"
	    "command: grep -o 'pyxis_sqdeck-[0-9]*' /proc/self/mountinfo | "
	    "head -n 1 | sed 's/^/job runs in /'\n"
	    "gpus: 2\ngpus_per_node: 2\ncpus: 1\ntime: 10m\n",
	    unique, test_image());
	ck_assert_int_eq(sd(&out, &err, "submit", "--json", spec, NULL), 0);
	j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	ck_assert_msg(strstr(err, "at most 60 s in all (5% of its time, at "
	    "least 60 s)") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_str_eq(it_jstr(j, "container_mode"), "pyxis");
	id = it_jstr(j, "job_id");
	dir = it_jstr(j, "job_dir");
	name = it_jstr(j, "name");
	state = wait_end(id, 300);
	ck_assert_str_eq(state, "COMPLETED|0:0");
	free(state);
	out = ssh_out("cat '%s/logs/%s-%s/main.out'", dir, name, id);
	ck_assert_msg(strstr(out, "NCCL probe budget 60 s in all") != NULL,
	    "%s", out);
	want = xasprintf("job runs in pyxis_sqdeck-%s\n", id);
	probe = xasprintf("[nccl probe] pyxis_sqdeck-%s\n", id);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	ck_assert_msg(strstr(out, probe) != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "share container sqdeck-"));
	free(out);
	free(want);
	free(probe);
	/* Removed from the node when the script ended. */
	out = ssh_out("ls -d /tmp/sdtb-enroot/data/*/user-*/pyxis_sqdeck-%s "
	    "2>/dev/null | wc -l", id);
	ck_assert_str_eq(out, "0\n");
	free(out);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

/*
 * 9. preflight --deep: one tiny job on the CPU partition checks enroot
 * and Pyxis on a compute node; a plain preflight then says when it last
 * passed.  A deep check that cannot run its job fails and says why.
 */
START_TEST(test_preflight_deep)
{
	char	*out, *err;

	need_cluster();
	ck_assert_int_eq(sd(&out, &err, "preflight", NULL), 0);
	ck_assert_msg(strstr(out, "never passed from here; run 'sqdeck "
	    "preflight --deep'") != NULL, "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(sd(&out, &err, "preflight", "--deep", NULL), 0);
	ck_assert_msg(strstr(out, "deep check (one job on partition cpu)") !=
	    NULL, "%s\n%s", out, err);
	ck_assert_msg(strstr(out, "enroot     ok       on node sdn") != NULL,
	    "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "pyxis      ok       on node sdn"));
	ck_assert_ptr_nonnull(strstr(out, "deep check: OK"));
	free(out);
	free(err);
	/* It was a real job: SLURM's accounting has it. */
	out = it_ssh_until(30, "\\|cpu\\|COMPLETED", "sacct -n -X -P -S "
	    "now-3600 -o JobName,Partition,State | grep '^sqdeck-deep-' | "
	    "tail -n 1");
	ck_assert_msg(strstr(out, "|cpu|COMPLETED") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(sd(&out, &err, "preflight", NULL), 0);
	ck_assert_msg(strstr(out, "deep check (enroot and Pyxis on a compute "
	    "node): last passed 20") != NULL, "%s", out);
	free(out);
	free(err);

	/* A CPU partition that does not exist: the job cannot run. */
	it_write_clusters("- name: default\n  hosts: %s\n  cpu_partition: "
	    "nosuchpart\n", getenv("SLURM_HOSTNAME"));
	ck_assert_int_ne(sd(&out, &err, "preflight", "--deep", NULL), 0);
	ck_assert_msg(strstr(out, "deep check: FAILED: the test job on "
	    "partition nosuchpart did not run") != NULL, "%s\n%s", out, err);
	free(out);
	free(err);
}
END_TEST

/*
 * A job that fails as INFRA (triage rule gpu-xid) with a retry budget of
 * 1, submitted as sdproc-TAG-* and waited for until it ended.
 */
static cJSON *
infra_failure(const char *tag)
{
	cJSON	*j;
	char	*spec, *state;

	spec = write_spec("name: sdproc-%s-%s\n"
	    "image: %s\n"
	    "command: |\n  echo 'NVRM: Xid (PCI:0000:3b:00): 79, GPU has "
	    "fallen off the bus.'\n  exit 1\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\nretry_budget: 1\n",
	    tag, unique, test_image());
	j = submit(spec, NULL, NULL);
	state = wait_end(it_jstr(j, "job_id"), 240);
	ck_assert_str_eq(state, "FAILED|1:0");
	free(state);
	it_wait_poll_end(it_jstr(j, "job_id"), 60);
	free(spec);
	return j;
}

/* How many records retry rid; *retry_id (may be NULL) gets the last. */
static int
retries_of(const char *rid, char **retry_id)
{
	struct record_list	 list;
	char			*cause = NULL;
	size_t			 i;
	int			 n = 0;

	ck_assert_msg(record_list(&list, &cause) == 0, "%s", cause);
	for (i = 0; i < list.n; i++) {
		if (list.v[i]->retry_of != NULL &&
		    strcmp(list.v[i]->retry_of, rid) == 0) {
			n++;
			if (retry_id != NULL) {
				free(*retry_id);
				*retry_id = xstrdup(list.v[i]->id);
			}
		}
	}
	record_list_free(&list);
	return n;
}

/*
 * 6. An INFRA failure is retried by the poll; the retry's sbatch reply is
 * lost (SQDECK_TEST_FAULT=empty-reply: the job is queued, held, and its
 * id thrown away).  The retry finds it by its exact name, leaving out the
 * first job of that name, adopts and releases it: two jobs of that name
 * in all, never three, and the retry excludes the failed node.
 */
START_TEST(test_retry_lost_reply)
{
	struct record		*rr = NULL;
	cJSON			*j;
	char			*out, *err, *node, *rid = NULL;
	char			*cause = NULL;
	const char		*id, *name;
	size_t			 k;
	int			 adopted = 0;

	need_cluster();
	j = infra_failure("retry");
	id = it_jstr(j, "job_id");
	name = it_jstr(j, "name");
	node = ssh_out("sacct -j %s -X -n -P -o NodeList", id);
	str_trim(node);

	/* The poll sees INFRA (gpu-xid) and retries, its reply lost. */
	setenv("SQDECK_TEST_FAULT", "empty-reply", 1);
	ck_assert_int_eq(sd(&out, &err, "status", it_jstr(j, "record_id"),
	    NULL), 0);
	unsetenv("SQDECK_TEST_FAULT");
	ck_assert_msg(strstr(err, "retried as") != NULL, "%s\n%s", out, err);
	free(out);
	free(err);

	ck_assert_int_eq(retries_of(it_jstr(j, "record_id"), &rid), 1);
	ck_assert_msg(record_load(rid, &rr, &cause) == 0, "%s", cause);
	ck_assert_ptr_nonnull(record_slurm_id(rr));
	for (k = 0; k < rr->nhistory; k++) {
		if (rr->history[k].message != NULL && strstr(rr->history[k].
		    message, "sbatch's reply was lost; found by name and "
		    "adopted SLURM job") != NULL)
			adopted = 1;
	}
	ck_assert_msg(adopted, "record %s: no adoption in its history",
	    rr->id);

	/* Released (it ends), and the failed node excluded. */
	free(wait_end(record_slurm_id(rr), 240));
	/*
	 * Exactly two jobs of that name: the first and the adopted retry
	 * (sacct names a job right only a few seconds after it ended).
	 */
	sleep(5);
	out = ssh_out("sacct -n -X -P -S now-3600 --name='%s' -o JobID | "
	    "sort -u | wc -l", name);
	ck_assert_str_eq(out, "2\n");
	free(out);
	out = ssh_out("sacct -j %s -X -n -P -o NodeList", record_slurm_id(rr));
	str_trim(out);
	ck_assert_msg(strcmp(out, node) != 0, "the retry ran on %s again",
	    node);
	free(out);
	free(node);
	record_free(rr);
	free(rid);
	cJSON_Delete(j);
}
END_TEST

/*
 * 7. A poll only observes (issue 17): "logs --follow" of a job whose
 * failure is INFRA (gpu-xid) polls, sees the job end, records ERROR/INFRA
 * and stops: no retry record, no new SLURM job of that name.  "status"
 * reacts to the end "logs" saw: it retries the job.
 */
START_TEST(test_follow_never_submits)
{
	struct record	*r = NULL;
	cJSON		*j;
	char		*out, *err, *retry = NULL;
	char		*cause = NULL;
	const char	*sid, *rid, *name;

	need_cluster();
	j = infra_failure("follow");
	sid = it_jstr(j, "job_id");
	rid = it_jstr(j, "record_id");
	name = it_jstr(j, "name");

	/* Follow it: the poll sees the end, the log is drained, it stops. */
	ck_assert_int_eq(sd(&out, &err, "logs", rid, "--follow", "--interval",
	    "1", NULL), 0);
	ck_assert_msg(strstr(out, "fallen off the bus") != NULL &&
	    strstr(err, "job ended") != NULL, "%s\n%s", out, err);
	ck_assert_msg(strstr(err, "retried") == NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_msg(record_load(rid, &r, &cause) == 0, "%s", cause);
	ck_assert_int_eq(r->state, RSTATE_ERROR);
	ck_assert_int_eq(r->err_class, ERR_INFRA);
	record_free(r);
	/* Nothing submitted: no retry record, one job of that name. */
	ck_assert_int_eq(retries_of(rid, NULL), 0);
	out = ssh_out("{ squeue -h -n '%s' -o %%i; sacct -n -X -P "
	    "-S now-3600 --name='%s' -o JobID; } | sort -u | wc -l", name,
	    name);
	ck_assert_str_eq(out, "1\n");
	free(out);

	/* status acts on the end logs saw: the retry. */
	ck_assert_int_eq(sd(&out, &err, "status", rid, NULL), 0);
	ck_assert_msg(strstr(err, "INFRA failure, retried as") != NULL,
	    "%s\n%s", out, err);
	free(out);
	free(err);
	ck_assert_int_eq(retries_of(rid, &retry), 1);
	ck_assert_msg(record_load(retry, &r, &cause) == 0, "%s", cause);
	ck_assert_ptr_nonnull(record_slurm_id(r));
	ck_assert_str_ne(record_slurm_id(r), sid);
	record_free(r);
	/* A second status acts no more: the end was acted on once. */
	ck_assert_int_eq(sd(&out, &err, "status", rid, NULL), 0);
	ck_assert_msg(strstr(err, "INFRA failure, retried as") == NULL,
	    "%s\n%s", out, err);
	free(out);
	free(err);
	ck_assert_int_eq(retries_of(rid, NULL), 1);
	free(retry);
	cJSON_Delete(j);
}
END_TEST

static Suite *
procedure_suite(void)
{
	Suite	*s = suite_create("procedure");
	TCase	*tc;

	tc = it_tcase(s, "cluster", 900, setup, it_teardown);
	tcase_add_test(tc, test_preflight_deep);
	tcase_add_test(tc, test_long_time_and_overrides);
	tcase_add_test(tc, test_partition_list);
	tcase_add_test(tc, test_logs_200);
	tcase_add_test(tc, test_logs_foreign_array);
	tcase_add_test(tc, test_probe_shares_container);
	/* Cases of their own, to run alone: each takes minutes. */
	tc = it_tcase(s, "timeout", 900, setup, it_teardown);
	tcase_add_test(tc, test_program_timeout);
	tc = it_tcase(s, "cancel", 1200, setup, it_teardown);
	tcase_add_test(tc, test_cancel_forgotten);
	tcase_add_test(tc, test_cancel_running_leaves_nothing);
	tc = it_tcase(s, "retry", 900, setup, it_teardown);
	tcase_add_test(tc, test_retry_lost_reply);
	tc = it_tcase(s, "follow", 900, setup, it_teardown);
	tcase_add_test(tc, test_follow_never_submits);
	return s;
}

TEST_MAIN(procedure_suite)
