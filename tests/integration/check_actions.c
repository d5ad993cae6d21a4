/*
 * Job actions (issue 27) against the real local cluster: hold, release,
 * requeue, signal, time and gpu on several jobs at once and on an array
 * range, each checked after with SLURM's own squeue and scontrol through
 * the real ssh client.  The jobs are plain sbatch jobs the tests submit
 * themselves (named sdact-*), on the cpu partition; teardown cancels them.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "itutil.h"
#include "util.h"

static char	jobname[96];

static void
setup(void)
{
	it_need_cluster(NULL);
	it_setup();
	snprintf(jobname, sizeof jobname, "sdact-%s", unique);
}

static void
teardown(void)
{
	/* Also the sqdeck jobs of a test that failed half-way (NAME-c1-...). */
	free(it_ssh_out(tmpdir, "scancel $(squeue -h -u \"$USER\" -o '%%i %%j' | "
	    "awk '$2 ~ /^%s(-|$)/ {print $1}') 2>/dev/null; "
	    "rm -rf \"$HOME/%s\"", jobname, jobname));
	it_teardown();
}

/*
 * sbatch a job of this test (its batch shell, in the test's dir, traps
 * USR1 into the file got.SLURM_JOB_ID there, then sleeps) with more sbatch
 * options; its job id.
 */
static char *
job(const char *opts)
{
	char	*out;

	out = it_ssh_out(tmpdir, "d=\"$HOME/%s\"; mkdir -p \"$d\" && "
	    "printf '%%s\\n' '#!/bin/sh' "
	    "'trap \"echo got >got.$SLURM_JOB_ID\" USR1' "
	    "'i=0; while [ $i -lt 600 ]; do sleep 1; i=$((i+1)); done' "
	    ">\"$d/job.sh\" && sbatch --parsable -p cpu -t 10 -J %s -D \"$d\" "
	    "-o /dev/null %s \"$d/job.sh\"", jobname, jobname, opts);
	str_trim(out);
	ck_assert_msg(*out >= '1' && *out <= '9', "sbatch: %s", out);
	return out;
}

/* squeue's state of a job until it is RUNNING (60 s at the most). */
static void
running(const char *id)
{
	char	*out;

	out = it_ssh_until(60, "^RUNNING", "squeue -h -j %s -o %%T", id);
	ck_assert_msg(strncmp(out, "RUNNING", 7) == 0, "%s never ran: %s",
	    id, out);
	free(out);
}

/* One field of scontrol show job ID ("Reason", "Restarts"). */
static char *
field(const char *id, const char *name)
{
	char	*out, *p, *v, *key;

	out = it_ssh_out(tmpdir, "scontrol -o show job %s", id);
	key = xasprintf(" %s=", name);
	p = strstr(out, key);
	ck_assert_msg(p != NULL, "no %s in: %s", name, out);
	p += strlen(key);
	free(key);
	v = xstrndup(p, strcspn(p, " \n"));
	free(out);
	return v;
}

START_TEST(test_hold_release_several)
{
	char	*a = job("--begin=now+3600"), *b = job("--begin=now+3600");
	char	*out, *err, *r;

	/* Two ids, one cluster: both held. */
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "hold", a, b, NULL), 0);
	ck_assert_msg(strstr(out, "held") != NULL, "%s\n%s", out, err);
	free(out); free(err);
	r = field(a, "Reason"); ck_assert_str_eq(r, "JobHeldUser"); free(r);
	r = field(b, "Reason"); ck_assert_str_eq(r, "JobHeldUser"); free(r);
	r = field(a, "Priority"); ck_assert_str_eq(r, "0"); free(r);

	/* Released: no longer held (it waits for its begin time again). */
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "release", a, b,
	    NULL), 0);
	free(out); free(err);
	r = field(a, "Reason"); ck_assert_str_ne(r, "JobHeldUser"); free(r);
	r = field(b, "Reason"); ck_assert_str_ne(r, "JobHeldUser"); free(r);
	r = field(a, "Priority"); ck_assert_str_ne(r, "0"); free(r);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_hold_array_range)
{
	char	*a = job("--begin=now+3600 --array=1-5"), *range, *out, *err;
	char	*held, *free_;
	cJSON	*j, *jobs;

	range = xasprintf("%s_[1-3]", a);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "hold", "--json",
	    range, NULL), 0);
	jobs = cJSON_GetObjectItem(j, "jobs");
	ck_assert_int_eq(cJSON_GetArraySize(jobs), 1);
	ck_assert_str_eq(it_jstr(cJSON_GetArrayItem(jobs, 0), "job_id"),
	    range);
	ck_assert_str_eq(it_jstr(j, "verb"), "hold");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
	cJSON_Delete(j);
	free(err);
	/* Tasks 1-3 held, 4 and 5 not: squeue -r lists every task. */
	held = it_ssh_out(tmpdir, "squeue -r -h -j %s -o '%%i %%r' | "
	    "grep -c ' JobHeldUser$'", a);
	free_ = it_ssh_out(tmpdir, "squeue -r -h -j %s -o '%%i %%r' | "
	    "grep -v ' JobHeldUser$' | sed 's/ .*//' | sort", a);
	str_trim(held);
	ck_assert_str_eq(held, "3");
	out = xasprintf("%s_4\n%s_5\n", a, a);
	ck_assert_str_eq(free_, out);
	free(out); free(held); free(free_);
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "release", range,
	    NULL), 0);
	free(out); free(err);
	held = it_ssh_out(tmpdir, "squeue -r -h -j %s -o '%%r' | "
	    "grep -c JobHeldUser", a);
	str_trim(held);
	ck_assert_str_eq(held, "0");
	free(held);
	free(range);
	free(a);
}
END_TEST

START_TEST(test_requeue_several)
{
	char	*a = job(""), *b = job(""), *out, *err, *r;

	running(a);
	running(b);
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "requeue", a, b,
	    NULL), 0);
	ck_assert_msg(strstr(out, "requeued") != NULL, "%s\n%s", out, err);
	free(out); free(err);
	r = field(a, "Restarts"); ck_assert_str_eq(r, "1"); free(r);
	r = field(b, "Restarts"); ck_assert_str_eq(r, "1"); free(r);
	/* Pending again: SLURM refuses a second requeue, said in words. */
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "requeue", a, NULL),
	    1);
	ck_assert_msg(strstr(err, "still pending") != NULL, "%s", err);
	free(out); free(err);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_signal_batch_trap)
{
	char	*a = job(""), *b = job(""), *out, *err;

	running(a);
	running(b);
	/* The trap is set once the shell runs: give it a moment. */
	sleep(2);
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "signal", "--batch",
	    a, b, "usr1", NULL), 0);
	ck_assert_msg(strstr(out, "SIGUSR1") != NULL, "%s\n%s", out, err);
	free(out); free(err);
	out = it_ssh_until(20, "^got\ngot\n$", "cat \"$HOME/%s/got.%s\" "
	    "\"$HOME/%s/got.%s\" 2>/dev/null", jobname, a, jobname, b);
	ck_assert_str_eq(out, "got\ngot\n");
	free(out);
	/* A signal scancel does not know is refused before any login. */
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "signal", a, "USR9",
	    NULL), 2);
	ck_assert_msg(strstr(err, "unknown signal") != NULL, "%s", err);
	free(out); free(err);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_time_lower_not_raise)
{
	char	*a = job(""), *b = job("--array=1-2"), *t, *out, *err, *r;

	running(a);
	t = xasprintf("%s_2", b);
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "time", a, t, "5",
	    NULL), 0);
	free(out); free(err);
	r = field(a, "TimeLimit"); ck_assert_str_eq(r, "00:05:00"); free(r);
	r = field(t, "TimeLimit"); ck_assert_str_eq(r, "00:05:00"); free(r);
	/* Raising is an administrator's: refused, and said so. */
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "time", a, "0:30:00",
	    NULL), 1);
	ck_assert_msg(strstr(err, "only lower") != NULL, "%s", err);
	free(out); free(err);
	r = field(a, "TimeLimit"); ck_assert_str_eq(r, "00:05:00"); free(r);
	free(t);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_gpu_no_nvidia_smi)
{
	char	*a = job("-N 2"), *out, *err, *nodes;
	cJSON	*j, *miss;

	running(a);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "gpu", "--json", a,
	    NULL), 1);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "running")));
	ck_assert_str_eq(it_jstr(j, "job_id"), a);
	ck_assert_str_eq(it_jstr(j, "state"), "RUNNING");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "gpus")),
	    0);
	/* Each of its two nodes said it has no nvidia-smi. */
	miss = cJSON_GetObjectItem(j, "no_nvidia_smi");
	ck_assert_int_eq(cJSON_GetArraySize(miss), 2);
	nodes = it_ssh_out(tmpdir, "squeue -h -j %s -o %%N", a);
	ck_assert_msg(strstr(nodes, "sdn") != NULL, "%s", nodes);
	ck_assert_ptr_nonnull(strstr(cJSON_GetArrayItem(miss, 0)->valuestring,
	    "sdn"));
	cJSON_Delete(j);
	free(err);
	free(nodes);
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "gpu", a, NULL), 1);
	ck_assert_msg(strstr(out, "no nvidia-smi on this node") != NULL,
	    "%s\n%s", out, err);
	free(out); free(err);
	free(a);
}
END_TEST

/*
 * A spec's after: waits for its parents: the sbatch script carries
 * --dependency, SLURM shows it pending for Dependency until the parent
 * completes; a parent that fails leaves it DependencyNeverSatisfied,
 * which sqdeck jobs --json explains.
 */
START_TEST(test_dependency)
{
	const char	*img = getenv("SDTB_IMAGE_SQSH");
	char		*ok, *bad = job("--hold"), *spec, *out, *err, *dep, *r;
	cJSON		*j, *jobs, *it, *why;
	struct it_sub	 c1, c2;
	int		 i, found = 0;

	ck_assert_msg(img != NULL && *img != '\0', "SDTB_IMAGE_SQSH is not "
	    "set: source $SDTB_DIR/env.sh of a tests/cluster/up run with "
	    "containers");
	/* The good parent: held, then released, it completes at once. */
	ok = it_ssh_out(tmpdir, "sbatch --parsable --hold -p cpu -t 1 -J %s "
	    "-o /dev/null --wrap true", jobname);
	str_trim(ok);
	ck_assert_msg(*ok >= '1' && *ok <= '9', "sbatch: %s", ok);
	setenv("SLURM_PARTITION", "cpu", 1);
	spec = it_write_spec("name: %s-c1\nimage: %s\ncommand: echo child\n"
	    "gpus: 0\ncpus: 1\ntime: 5m\npartition: cpu\nafter: [%s]\n",
	    jobname, img, ok);
	it_submit(spec, &c1);
	free(spec);
	spec = it_write_spec("name: %s-c2\nimage: %s\ncommand: echo never\n"
	    "gpus: 0\ncpus: 1\ntime: 5m\npartition: cpu\n"
	    "after:\n  any: [%s]\n  ok: [%s]\n", jobname, img, ok, bad);
	it_submit(spec, &c2);
	free(spec);
	/* The rendered scripts and SLURM say the same. */
	dep = field(c1.sid, "Dependency");
	ck_assert_msg(strncmp(dep, "afterok:", 8) == 0 && strstr(dep, ok) !=
	    NULL, "c1 Dependency=%s", dep);
	free(dep);
	/* Reason is None until the scheduler's next pass looks at it. */
	r = it_ssh_until(30, "^Dependency$", "squeue -h -j %s -o %%r",
	    c1.sid);
	str_trim(r);
	ck_assert_str_eq(r, "Dependency");
	free(r);
	dep = field(c2.sid, "Dependency");
	ck_assert_msg(strstr(dep, "afterok:") != NULL && strstr(dep,
	    "afterany:") != NULL, "c2 Dependency=%s", dep);
	free(dep);
	/* The good parent completes; the bad one is cancelled (not ok). */
	free(it_ssh_out(tmpdir, "scancel %s; scontrol release %s", bad, ok));
	out = it_ssh_until(90, "^(RUNNING|COMPLETING|COMPLETED)", "squeue "
	    "-h -j %s -o %%T 2>/dev/null; sacct -n -X -j %s -o State 2>/dev/null",
	    c1.sid, c1.sid);
	ck_assert_msg(strncmp(out, "PENDING", 7) != 0 && *out != '\0',
	    "child of a completed parent never started: %s", out);
	free(out);
	out = it_ssh_until(60, "DependencyNeverSatisfied", "squeue -h -j %s "
	    "-o %%r", c2.sid);
	ck_assert_msg(strstr(out, "DependencyNeverSatisfied") != NULL, "%s",
	    out);
	free(out);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "jobs", "--json", NULL),
	    0);
	jobs = cJSON_GetObjectItem(j, "jobs");
	for (i = 0; i < cJSON_GetArraySize(jobs); i++) {
		it = cJSON_GetArrayItem(jobs, i);
		if (it_jstr(it, "job_id") == NULL ||
		    strcmp(it_jstr(it, "job_id"), c2.sid) != 0)
			continue;
		why = cJSON_GetObjectItem(it, "why_pending");
		ck_assert_ptr_nonnull(why);
		ck_assert_str_eq(it_jstr(why, "code"),
		    "DependencyNeverSatisfied");
		ck_assert_ptr_nonnull(strstr(it_jstr(why, "meaning"),
		    "never start"));
		found = 1;
	}
	ck_assert_msg(found, "jobs --json has no row for %s", c2.sid);
	cJSON_Delete(j);
	free(err);
	free(it_ssh_out(tmpdir, "scancel %s %s", c1.sid, c2.sid));
	it_sub_free(&c1);
	it_sub_free(&c2);
	free(ok);
	free(bad);
}
END_TEST

static Suite *
actions_suite(void)
{
	Suite	*s = suite_create("actions");
	TCase	*tc;

	tc = it_tcase(s, "actions", 300, setup, teardown);
	tcase_add_test(tc, test_hold_release_several);
	tcase_add_test(tc, test_hold_array_range);
	tcase_add_test(tc, test_requeue_several);
	tcase_add_test(tc, test_signal_batch_trap);
	tcase_add_test(tc, test_time_lower_not_raise);
	tcase_add_test(tc, test_gpu_no_nvidia_smi);
	tc = it_tcase(s, "dependency", 600, setup, teardown);
	it_add_job_test(tc, test_dependency);
	return s;
}

TEST_MAIN(actions_suite)
