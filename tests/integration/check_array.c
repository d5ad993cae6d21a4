/*
 * Job arrays (sqdeck(1): ARRAYS) against the real local cluster
 * (tests/cluster/up; source $SDTB_DIR/env.sh first): array: 0-3%2 in a
 * spec run in the registry image, the throttle seen in squeue, each
 * task's log read with logs ID_N, the secret there for the last task
 * too and wiped after it, the failed task named in the record; a cancel
 * of the whole array; a bad array refused before anything is sent.
 */
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "itutil.h"
#include "array.h"
#include "record.h"
#include "util.h"

/* Every test runs an array in the registry image, on Lustre. */
static const char *const need[] = { "SDTB_LUSTRE", NULL };

static void
setup(void)
{
	it_setup();
}

/* Tasks of array id that squeue says run now. */
static int
running_tasks(const char *id)
{
	return it_ssh_lines("squeue -h -j %s -t RUNNING -o '%%i'", id);
}

/* Is anything of array id still in the queue? */
static int
queued(const char *id)
{
	return it_ssh_lines("squeue -h -j %s -o '%%i' 2>/dev/null", id) != 0;
}

static cJSON *
jget(cJSON *j, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(j, key);
}

START_TEST(test_array_run)
{
	struct record	*r;
	cJSON		*j, *st, *job, *arr, *counts, *failed;
	char		*spec, *err, *out, *envf;
	const char	*id, *rid;
	int		 i, most = 0, n, t;

	it_need_jobs(need);
	setenv("SD_ARRAY_SECRET", "arr-secret-value", 1);
	spec = write_spec("name: sdarr-%s\nimage: %s\n"
	    "command: 'echo \"task-$SLURM_ARRAY_TASK_ID-%s\"; "
	    "echo \"has-secret-$(printf %%s \"$SD_ARRAY_SECRET\" | wc -c)\"; "
	    "sleep 6; [ \"$SLURM_ARRAY_TASK_ID\" != 2 ]'\n"
	    "secrets: [SD_ARRAY_SECRET]\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\narray: 0-3%%2\n", unique, it_image(),
	    unique);
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "submit failed: %s", err);
	unsetenv("SD_ARRAY_SECRET");
	free(err);
	id = it_jstr(j, "job_id");
	rid = it_jstr(j, "record_id");
	ck_assert_ptr_nonnull(id);
	envf = xstrdup(it_jstr(j, "env_path"));

	/* The throttle: never more than 2 running; polls on the way. */
	for (i = 0; i < 240 && queued(id); i++) {
		n = running_tasks(id);
		if (n > most)
			most = n;
		if (i % 5 == 0)
			sd(NULL, NULL, "status", rid, NULL);
		sleep(1);
	}
	ck_assert_msg(!queued(id), "array %s still queued after %d s", id, i);
	ck_assert_msg(most >= 1 && most <= 2, "%d tasks ran at once", most);

	/* Each task's own log, the last ones with the secret as well. */
	for (t = 0; t < 4; t++) {
		char	arg[64], want[96];

		snprintf(arg, sizeof arg, "%s_%d", id, t);
		snprintf(want, sizeof want, "task-%d-%s", t, unique);
		out = err = NULL;
		ck_assert_msg(sd(&out, &err, "logs", arg, NULL) == 0,
		    "logs %s: %s", arg, err);
		ck_assert_msg(strstr(out, want) != NULL, "logs %s: %s", arg,
		    out);
		ck_assert_msg(strstr(out, "has-secret-16") != NULL, "task %d ran "
		    "without the secret: %s", t, out);
		free(out);
		free(err);
	}

	/* The record: FAILED, task 2 named; three completed. */
	it_wait_poll_end(id, 60);
	for (i = 0; i < 30 && !it_status_ended(rid); i++)
		sleep(2);
	r = it_load_record(rid);
	ck_assert_int_eq(r->state, RSTATE_ERROR);
	ck_assert_str_eq(r->array, "0-3%2");
	ck_assert_msg(strstr(r->history[r->nhistory - 1].message,
	    "1 failed (task 2)") != NULL, "%s",
	    r->history[r->nhistory - 1].message);
	record_free(r);
	ck_assert_int_eq(it_sd(&st, &out, NULL, NULL, "status", "--json", rid,
	    NULL), 0);
	/* The document validates against the schema (its "array" too). */
	{
		char	 path[4200], *vout = NULL, *verr = NULL;
		char	*const argv[] = { "python3", TOP_SRCDIR
			    "/tests/json/validate", TOP_SRCDIR
			    "/doc/sqdeck.schema.json", path, NULL };

		snprintf(path, sizeof path, "%s/status.json", tmpdir);
		ck_assert_int_eq(file_write_atomic(path, out, strlen(out), 0600,
		    NULL), 0);
		ck_assert_msg(it_run(tmpdir, argv, NULL, &vout, &verr) == 0,
		    "schema: %s%s", vout, verr);
		free(vout);
		free(verr);
		free(out);
	}
	job = cJSON_GetArrayItem(jget(st, "jobs"), 0);
	ck_assert_str_eq(it_jstr(job, "state"), "FAILED");
	arr = jget(job, "array");
	ck_assert(cJSON_IsObject(arr));
	counts = jget(arr, "counts");
	ck_assert_int_eq(jget(counts, "completed")->valueint, 3);
	ck_assert_int_eq(jget(counts, "failed")->valueint, 1);
	failed = jget(arr, "failed");
	ck_assert_int_eq(cJSON_GetArraySize(failed), 1);
	ck_assert_int_eq(cJSON_GetArrayItem(failed, 0)->valueint, 2);
	cJSON_Delete(st);

	/* The cleanup job (afterany on the array) wipes the sidecar. */
	for (i = 0; i < 60; i++) {
		out = ssh_out("test -e '%s' && echo present || echo gone",
		    envf);
		n = strstr(out, "gone") != NULL;
		free(out);
		if (n)
			break;
		sleep(1);
	}
	ck_assert_msg(n, "sidecar %s still there 60 s after the array", envf);
	free(envf);
	cJSON_Delete(j);
	free(spec);
}
END_TEST

START_TEST(test_array_cancel)
{
	struct record	*r;
	cJSON		*j;
	char		*spec, *err, *out;
	const char	*id, *rid;
	char		 task[64];
	int		 i, done = 0;

	it_need_jobs(need);
	spec = write_spec("name: sdarrc-%s\nimage: %s\n"
	    "command: 'sleep 120'\ngpus: 1\ncpus: 1\ntime: 5m\n"
	    "array: 0-5%%1\n", unique, it_image());
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "submit failed: %s", err);
	id = it_jstr(j, "job_id");
	rid = it_jstr(j, "record_id");
	for (i = 0; i < 120 && running_tasks(id) == 0; i++)
		sleep(1);
	ck_assert_int_eq(running_tasks(id), 1);
	/* One pending task: the rest of the pending range stays. */
	snprintf(task, sizeof task, "%s_5", id);
	out = NULL;
	ck_assert_int_eq(sd(&out, NULL, "cancel", task, NULL), 0);
	free(out);
	for (i = 0; i < 30; i++) {
		sd(NULL, NULL, "status", rid, NULL);
		r = it_load_record(rid);
		done = r->array_tasks != NULL && strstr(r->array_tasks,
		    "5=CANCELLED") != NULL;
		if (done) {
			ck_assert_msg(strstr(r->array_tasks, "4=PENDING") !=
			    NULL, "%s", r->array_tasks);
			ck_assert_int_eq(r->state, RSTATE_RUNNING);
		}
		record_free(r);
		if (done)
			break;
		sleep(1);
	}
	ck_assert_msg(done, "task 5 not seen cancelled");
	out = NULL;
	ck_assert_int_eq(sd(&out, NULL, "cancel", rid, NULL), 0);
	free(out);
	for (i = 0; i < 60 && queued(id); i++)
		sleep(1);
	ck_assert_msg(!queued(id), "array %s still queued after cancel", id);
	r = it_load_record(rid);
	ck_assert_int_eq(r->state, RSTATE_CANCELED);
	record_free(r);
	/* Polled on until every task is seen ended. */
	for (i = 0; i < 60; i++) {
		sd(NULL, NULL, "status", rid, NULL);
		r = it_load_record(rid);
		done = !array_tasks_live(r->array_tasks);
		if (done)
			ck_assert_ptr_nonnull(strstr(r->array_tasks,
			    "0=CANCELLED"));
		record_free(r);
		if (done)
			break;
		sleep(1);
	}
	ck_assert_msg(done, "tasks still live after the cancel");
	cJSON_Delete(j);
	free(err);
	free(spec);
}
END_TEST

/* A bad array: refused with the limit named, nothing queued. */
START_TEST(test_array_refused)
{
	char	*spec, *err, *out;

	it_need_jobs(need);
	spec = write_spec("name: sdarrb-%s\nimage: %s\ncommand: 'true'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\narray: 0-20000\n", unique,
	    it_image());
	ck_assert_int_ne(sd(&out, &err, "submit", spec, NULL), 0);
	ck_assert_msg(strstr(err, "more than 10000 tasks") != NULL, "%s", err);
	/* Nothing of this test in the queue or just ended (-t all). */
	ck_assert_int_eq(it_ssh_lines("squeue --me -h -t all -o '%%j' | "
	    "grep -F -- '%s'", unique), 0);
	free(out);
	free(err);
	free(spec);
}
END_TEST

static Suite *
array_suite(void)
{
	Suite	*s = suite_create("array");
	TCase	*tc;

	tc = it_tcase(s, "cluster", 300, setup, it_teardown);
	it_add_job_test(tc, test_array_refused);
	it_add_job_test(tc, test_array_run);
	it_add_job_test(tc, test_array_cancel);
	return s;
}

TEST_MAIN(array_suite)
