/*
 * Efficiency of an ended job (src/slurm/eff.c) from sacct output captured on the
 * local cluster (tests/data/slurm/eff-sdtb.txt: job 12 ran 10 minutes and
 * had its memory sampled; job 146 failed after 2 s with no limit; job 245,
 * the same plain sbatch with no limit, was started by SLURM's backfill,
 * which wrote 365 days as its limit), and the "far too large" hint.
 */
#include "testutil.h"
#include "eff.h"
#include "util.h"

static char *
slurp(const char *name)
{
	char	*text = NULL, *cause = NULL;

	ck_assert_msg(file_read(test_data(name), &text, NULL, &cause) == 0,
	    "%s", cause);
	return text;
}

START_TEST(test_sizes)
{
	ck_assert_int_eq(eff_size("250G"), 250LL * 1024 * 1024 * 1024);
	ck_assert_int_eq(eff_size("11916K"), 11916LL * 1024);
	ck_assert_int_eq(eff_size("1000Mc"), 1000LL * 1024 * 1024);
	ck_assert_int_eq(eff_size("0"), 0);
	ck_assert_int_eq(eff_size(""), -1);
	ck_assert_int_eq(eff_size("12X"), -1);
	ck_assert_int_eq(eff_size("-3M"), -1);
	ck_assert(eff_cpu_time("00:01.985") > 1.98 &&
	    eff_cpu_time("00:01.985") < 1.99);
	ck_assert(eff_cpu_time("1:02:03") == 3723);
	ck_assert(eff_cpu_time("2-01:00:00") == 2 * 86400 + 3600);
	ck_assert(eff_cpu_time("") < 0);
	ck_assert(eff_cpu_time("1:2:3:4") < 0);
	ck_assert(eff_cpu_time("x") < 0);
}
END_TEST

START_TEST(test_captured)
{
	struct eff	 e;
	char		*text = slurp("slurm/eff-sdtb.txt"), *cause = NULL, *t;

	ck_assert_int_eq(eff_parse(text, 12, &e, &cause), 0);
	ck_assert_str_eq(e.state, "COMPLETED");
	ck_assert_int_eq(e.cpus, 1);
	ck_assert_int_eq(e.elapsed, 604);
	ck_assert_int_eq(e.limit, 900);
	ck_assert_int_eq(e.req_mem, 250LL * 1024 * 1024 * 1024);
	/* The largest MaxRSS of the steps (batch 11916K, step 0 4964K). */
	ck_assert_int_eq(e.peak_mem, 11916LL * 1024);
	ck_assert(e.cpu_pct >= 0 && e.cpu_pct < 1);
	ck_assert(e.time_pct > 67 && e.time_pct < 67.2);
	/* 250G asked, 12M used: ask for 1G.  The time fitted. */
	ck_assert_ptr_nonnull(e.hint);
	ck_assert_ptr_nonnull(strstr(e.hint, "--mem=1G"));
	ck_assert_ptr_null(strstr(e.hint, "--time"));
	t = eff_text(&e);
	ck_assert_str_eq(t, "cpu 0% of 1, memory 11M of 250.0G (0%), "
	    "time 10:04 of 15:00 (67%)");
	free(t);
	eff_free(&e);

	ck_assert_int_eq(eff_parse(text, 146, &e, &cause), 0);
	ck_assert_str_eq(e.state, "FAILED");
	ck_assert_int_eq(e.limit, -1);		/* UNLIMITED */
	ck_assert_int_eq(e.peak_mem, -1);	/* never sampled */
	ck_assert(e.time_pct < 0);
	ck_assert_ptr_null(e.hint);
	t = eff_text(&e);
	ck_assert_ptr_nonnull(strstr(t, "memory not sampled of 250.0G"));
	ck_assert_ptr_nonnull(strstr(t, "time 0:02 (no limit)"));
	free(t);
	eff_free(&e);

	/*
	 * Started by the backfill scheduler: TimelimitRaw 525600, 365 days,
	 * SLURM's stand-in for none (tests/operator/run met it in a CI run:
	 * "time 0:02 of 365-00:00:00 (0%)" and a --time hint for a job that
	 * asked for no time).  Read as no limit, like job 146.
	 */
	ck_assert_int_eq(eff_parse(text, 245, &e, &cause), 0);
	ck_assert_str_eq(e.state, "FAILED");
	ck_assert_int_eq(e.limit, -1);
	ck_assert(e.time_pct < 0);
	ck_assert_ptr_null(e.hint);
	ck_assert_str_eq(e.exit_code, "3:0");
	t = eff_text(&e);
	ck_assert_ptr_nonnull(strstr(t, "time 0:02 (no limit)"));
	free(t);
	eff_free(&e);

	ck_assert_int_eq(eff_parse(text, 13, &e, &cause), -1);
	ck_assert_str_eq(cause, "sacct has no record of job 13");
	free(cause);
	eff_free(&e);
	free(text);
}
END_TEST

START_TEST(test_hint)
{
	struct eff	 e;
	char		*cause = NULL, *cmd;

	/* 8 CPUs, 1 busy; 4 hours asked, 5 minutes used. */
	ck_assert_int_eq(eff_parse("7\037COMPLETED\0378\037300\037240\037"
	    "05:00\0378G\037\n7.0\037COMPLETED\0378\037300\037\037"
	    "05:00\037\0373G\n", 7, &e, &cause), 0);
	ck_assert(e.cpu_pct > 12 && e.cpu_pct < 13);
	ck_assert_ptr_nonnull(strstr(e.hint, "--time=10:00"));
	ck_assert_ptr_nonnull(strstr(e.hint, "--cpus-per-task=2"));
	/* 3G of 8G is not "far too large". */
	ck_assert_ptr_null(strstr(e.hint, "--mem"));
	eff_free(&e);
	/* A job that used what it asked for gets no hint. */
	ck_assert_int_eq(eff_parse("8\037COMPLETED\0372\0373500\03760\037"
	    "1:50:00\0374G\0373G\n", 8, &e, &cause), 0);
	ck_assert_ptr_null(e.hint);
	ck_assert_ptr_null(e.exit_code);	/* a capture without ExitCode */
	eff_free(&e);
	/* ExitCode, the ninth field: the detail view's exit code. */
	ck_assert_int_eq(eff_parse("9\037FAILED\0372\0373500\03760\037"
	    "1:50:00\0374G\0373G\0373:0\n", 9, &e, &cause), 0);
	ck_assert_str_eq(e.exit_code, "3:0");
	eff_free(&e);
	cmd = eff_cmd(42, &cause);
	ck_assert_ptr_nonnull(strstr(cmd, " -j 42 -o JobIDRaw,State,AllocCPUS,"
	    "ElapsedRaw,TimelimitRaw,TotalCPU,ReqMem,MaxRSS,ExitCode"));
	free(cmd);
	ck_assert_ptr_null(eff_cmd(0, &cause));
	free(cause);
}
END_TEST

static Suite *
eff_suite(void)
{
	Suite	*s = suite_create("eff");
	TCase	*tc = tcase_create("eff");

	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_captured);
	tcase_add_test(tc, test_hint);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(eff_suite)
