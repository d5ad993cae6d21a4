/* Job arrays (array.h): the validator, the tasks from squeue/sacct rows,
   the template's --array line and per-task logs. */
#include "testutil.h"
#include "array.h"
#include "spec.h"
#include "template.h"

static const struct {
	const char	*s;
	int		 ntasks, first, last, throttle;
} good[] = {
	{ "0-99%4", 100, 0, 99, 4 },
	{ "0-15:4", 4, 0, 12, 0 },
	{ "1,3,5-7", 5, 1, 7, 0 },
	{ "7", 1, 7, 7, 0 },
	{ "0-3,2-5", 6, 0, 5, 0 },	/* a task listed twice runs once */
	{ "0-9999", 10000, 0, 9999, 0 },
	{ "4000000", 1, 4000000, 4000000, 0 },
	{ "0-3%2", 4, 0, 3, 2 },
};

START_TEST(test_good)
{
	struct array_info	 ai;
	char			*cause = NULL;

	ck_assert_msg(array_parse(good[_i].s, &ai, &cause) == 0, "%s: %s",
	    good[_i].s, cause);
	ck_assert_int_eq(ai.ntasks, good[_i].ntasks);
	ck_assert_int_eq(ai.first, good[_i].first);
	ck_assert_int_eq(ai.last, good[_i].last);
	ck_assert_int_eq(ai.throttle, good[_i].throttle);
}
END_TEST

static const struct {
	const char	*s;
	const char	*want;	/* in the message */
} bad[] = {
	{ "", "array is empty" },
	{ "0-20000", "more than 10000 tasks, sqdeck's limit" },
	{ "0-9999,10000", "more than 10000 tasks" },
	{ "4000001", "over 4000000, the most SLURM's MaxArraySize allows" },
	{ "5-1", "range 5-1 runs backwards: write 1-5" },
	{ "0-15:0", "step must be 1 or more" },
	{ "0-3%0", "throttle %0 must be from 1 to 10000" },
	{ "a", "not SLURM's --array form at 'a'" },
	{ "1,,2", "at ',2'" },
	{ "1-", "at the end" },
	{ "%4", "at '%4'" },
	{ "0-3%", "at the end" },
	{ "-1", "at '-1'" },
	{ "0-3%4x", "at 'x'" },
	{ "1 ,2", "at ' ,2'" },
	{ "0-3;reboot", "at ';reboot'" },
	{ "99999999999", "not SLURM's --array form" },
};

START_TEST(test_bad)
{
	char	*cause = NULL;

	ck_assert_int_eq(array_parse(bad[_i].s, NULL, &cause), -1);
	ck_assert_msg(strstr(cause, bad[_i].want) != NULL, "'%s': %s",
	    bad[_i].s, cause);
	free(cause);
}
END_TEST

START_TEST(test_too_long)
{
	char	 s[400], *cause = NULL;
	size_t	 i;

	for (i = 0; i + 2 < sizeof s; i += 2)
		memcpy(s + i, "1,", 2);
	s[i] = '1';
	s[i + 1] = '\0';
	ck_assert_int_eq(array_parse(s, NULL, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "longer than 256 characters"));
	free(cause);
}
END_TEST

/* Rows as squeue and sacct print them, summed up. */
START_TEST(test_status)
{
	struct array_status	 as;
	char			*sum, *tasks, *failed;

	ck_assert_int_eq(array_status_init(&as, "0-3%2"), 0);
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_UNKNOWN);
	free(sum);
	free(tasks);
	/* Another job's rows, and a step, say nothing. */
	array_status_row(&as, "12", "123_0", "FAILED");
	array_status_row(&as, "12", "12", "FAILED");
	array_status_row(&as, "12", "12_0", "RUNNING");
	array_status_row(&as, "12", "12_1", "RUNNING");
	array_status_row(&as, "12", "12_[2-3%2]", "PENDING");
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_RUNNING);
	ck_assert_str_eq(sum, "2 running, 2 pending of 4 tasks");
	ck_assert_str_eq(tasks, "0=RUNNING 1=RUNNING 2=PENDING 3=PENDING");
	free(sum);
	free(tasks);
	array_status_row(&as, "12", "12_0", "COMPLETED");
	array_status_row(&as, "12", "12_1", "COMPLETED");
	array_status_row(&as, "12", "12_2", "FAILED");
	array_status_row(&as, "12", "12_3", "COMPLETED");
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_ERROR);
	ck_assert_str_eq(sum, "3 completed, 1 failed (task 2) of 4 tasks");
	failed = array_status_failed(&as);
	ck_assert_str_eq(failed, "2");
	free(failed);
	array_status_free(&as);
	/* What the record keeps reads back the same. */
	ck_assert_int_eq(array_status_load(&as, "0-3%2", tasks), 0);
	free(sum);
	ck_assert_int_eq(array_status_verdict(&as, &sum, &failed),
	    RSTATE_ERROR);
	ck_assert_str_eq(failed, tasks);
	ck_assert(!array_tasks_live(tasks));
	ck_assert(array_tasks_live("0=COMPLETED 1=PENDING"));
	ck_assert(!array_tasks_live(NULL));
	free(sum);
	free(tasks);
	free(failed);
	array_status_free(&as);
}
END_TEST

START_TEST(test_status_ends)
{
	struct array_status	 as;
	char			*sum, *tasks;

	ck_assert_int_eq(array_status_init(&as, "1,3"), 0);
	array_status_row(&as, "7", "7_1", "COMPLETED");
	array_status_row(&as, "7", "7_3", "COMPLETED");
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_COMPLETE);
	free(sum);
	free(tasks);
	array_status_row(&as, "7", "7_3", "CANCELLED by 1001");
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_CANCELED);
	free(sum);
	free(tasks);
	/*
	 * A task cancelled while pending is in no row (SLURM 22.05: squeue
	 * -t all and sacct both drop it from the range).
	 */
	array_status_free(&as);
	ck_assert_int_eq(array_status_init(&as, "0-5%1"), 0);
	array_status_row(&as, "7", "7_0", "RUNNING");
	array_status_row(&as, "7", "7_[1-4%1]", "PENDING");
	ck_assert_int_eq(array_status_verdict(&as, &sum, &tasks),
	    RSTATE_RUNNING);
	ck_assert_str_eq(sum, "1 running, 4 pending, 1 cancelled of 6 tasks");
	ck_assert_ptr_nonnull(strstr(tasks, "5=CANCELLED"));
	free(sum);
	free(tasks);
	array_status_free(&as);
	ck_assert_int_eq(array_status_init(&as, "0-"), -1);
}
END_TEST

static char *
render(const char *array)
{
	struct template_vars	 tv;
	char			*out = NULL, *cause = NULL;

	template_vars_init(&tv);
	template_set(&tv, "JOB_NAME", "t");
	template_set(&tv, "PARTITION", "gpu");
	template_set(&tv, "NUM_NODES", "1");
	template_set(&tv, "NUM_GPUS", "1");
	template_set(&tv, "CPUS_PER_TASK", "1");
	template_set(&tv, "TIME", "0:05:00");
	template_set(&tv, "LOG_DIR", "/r/logs");
	template_set(&tv, "REQUEUE", "0");
	template_set(&tv, "SBATCH_EXTRA", "");
	template_set(&tv, "IMAGE", "");
	template_set(&tv, "IMAGE_OWNERS", "");
	template_set(&tv, "CONTAINER_MOUNTS", "");
	template_set(&tv, "JOB_DIR", "/r");
	template_set(&tv, "COMMAND", "true");
	template_set(&tv, "ENV_FILE", "");
	template_set(&tv, "SECRET_NAMES", "");
	template_set(&tv, "RESULTS_DIR", "/r/results");
	template_set(&tv, "EXTRA_ENV", "");
	template_set(&tv, "PRE_STEP", "");
	template_set(&tv, "PROGRAM_TIMEOUT", "10");
	template_set(&tv, "PROGRAM_GRACE", "1");
	if (array != NULL) {
		template_set(&tv, "ARRAY", array);
		template_set(&tv, "LOG_FILE", "1");
	}
	if (template_render_embedded("slurm/singlenode.sbatch.tmpl", &tv,
	    &out, &cause) != 0) {
		template_vars_free(&tv);
		return cause;
	}
	template_vars_free(&tv);
	return out;
}

START_TEST(test_template)
{
	char	*s;

	s = render("0-3%2");
	ck_assert_ptr_nonnull(strstr(s, "\n#SBATCH --array=0-3%2\n"));
	ck_assert_ptr_nonnull(strstr(s,
	    "#SBATCH --output=/r/logs/%x-%A/main_%a.out\n"));
	ck_assert_ptr_nonnull(strstr(s,
	    "#SBATCH --error=/r/logs/%x-%A/main_%a.err\n"));
	free(s);
	s = render(NULL);
	ck_assert_ptr_null(strstr(s, "--array"));
	ck_assert_ptr_nonnull(strstr(s,
	    "#SBATCH --output=/r/logs/%x-%j/main.out\n"));
	free(s);
	/* The renderer checks the value itself. */
	s = render("0-3\n#SBATCH --uid=0");
	ck_assert_msg(strstr(s, "not SLURM's --array form") != NULL, "%s", s);
	free(s);
}
END_TEST

START_TEST(test_spec_round_trip)
{
	struct spec	 sp, back;
	struct buf	 b;
	const char	*text = "image: /x.sqsh\ncommand: c\narray: 0-99%4\n";
	char		*cause = NULL;

	ck_assert_int_eq(spec_parse(text, strlen(text), "job.yaml", &sp,
	    &cause), 0);
	ck_assert_str_eq(sp.array, "0-99%4");
	buf_init(&b);
	ck_assert_int_eq(spec_write(&sp, &b, &cause), 0);
	ck_assert_int_eq(spec_parse(b.data, b.len, "w.yaml", &back, &cause),
	    0);
	ck_assert_str_eq(back.array, "0-99%4");
	/* The wizard's path: a hand-built spec is checked the same way. */
	free(back.array);
	back.array = xstrdup("0-20000");
	ck_assert_int_eq(spec_validate(&back, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "more than 10000 tasks"));
	free(cause);
	buf_free(&b);
	spec_free(&sp);
	spec_free(&back);
}
END_TEST

static Suite *
array_suite(void)
{
	Suite	*s = suite_create("array");
	TCase	*tc = tcase_create("array");

	tcase_add_loop_test(tc, test_good, 0, sizeof good / sizeof good[0]);
	tcase_add_loop_test(tc, test_bad, 0, sizeof bad / sizeof bad[0]);
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_status_ends);
	tcase_add_test(tc, test_template);
	tcase_add_test(tc, test_spec_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(array_suite)
