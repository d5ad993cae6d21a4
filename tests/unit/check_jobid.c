/*
 * Job arguments (src/slurm/jobid.c): the one parser of "12", "12_3",
 * "12_[4-9]" and record ids that cancel, status, logs, the TUI's hold,
 * start estimate and efficiency, the job table and the history share.
 */
#include "testutil.h"
#include "jobid.h"

START_TEST(test_jobid_jobs)
{
	struct jobid	j;

	ck_assert_int_eq(jobid_parse("12", &j), JOBID_JOB);
	ck_assert_uint_eq(j.job, 12);
	ck_assert_uint_eq(j.joblen, 2);
	ck_assert_ptr_null(j.tasks);
	ck_assert_int_eq(jobid_slurm(&j), 1);
	ck_assert_int_eq(jobid_parse("4294967295", &j), JOBID_JOB);
	ck_assert_uint_eq(j.job, 4294967295UL);
	/* Not a SLURM job id, though digits. */
	ck_assert_int_eq(jobid_parse("0", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("4294967296", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("99999999999999999999999", &j),
	    JOBID_BAD);
	ck_assert_int_eq(jobid_parse("", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse(NULL, &j), JOBID_BAD);
	ck_assert_int_eq(jobid_slurm(&j), 0);
}
END_TEST

START_TEST(test_jobid_tasks)
{
	struct jobid	j;

	ck_assert_int_eq(jobid_parse("12_3", &j), JOBID_TASK);
	ck_assert_uint_eq(j.job, 12);
	ck_assert_str_eq(j.tasks, "3");
	ck_assert_int_eq(j.ntasks, 1);
	ck_assert_int_eq(jobid_slurm(&j), 1);
	/* A range is a target too: scancel, scontrol hold and release. */
	ck_assert_int_eq(jobid_parse("12_[4-9]", &j), JOBID_RANGE);
	ck_assert_str_eq(j.tasks, "[4-9]");
	ck_assert_int_eq(j.ntasks, 6);
	ck_assert_int_eq(jobid_slurm(&j), 1);
	ck_assert_int_eq(jobid_parse("12_[4-9,11%2]", &j), JOBID_RANGE);
	ck_assert_int_eq(j.ntasks, 7);
	ck_assert_int_eq(jobid_parse("12_[1-9:2]", &j), JOBID_RANGE);
	ck_assert_int_eq(j.ntasks, 5);
	ck_assert_int_eq(jobid_parse("12_[3]", &j), JOBID_RANGE);
	ck_assert_int_eq(j.ntasks, 1);
	ck_assert_int_eq(jobid_ntasks("[1-3,7]"), 4);
	ck_assert_int_eq(jobid_ntasks("3"), 1);
	/* SLURM's form, wrong: no task, an open or reversed range. */
	ck_assert_int_eq(jobid_parse("12_", &j), JOBID_BAD);
	ck_assert_ptr_null(j.tasks);
	ck_assert_int_eq(jobid_parse("12_x", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12__3", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12_[4-", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12_[9-4]", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12_[1-9:0]", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12_3x", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("12_4-5", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_parse("0_3", &j), JOBID_BAD);
	ck_assert_int_eq(jobid_slurm(&j), 0);
}
END_TEST

START_TEST(test_jobid_records)
{
	struct jobid	j;

	ck_assert_int_eq(jobid_parse("sd-20261129T164500-1a2b3c", &j),
	    JOBID_RECORD);
	ck_assert_int_eq(jobid_slurm(&j), 0);
	ck_assert_int_eq(jobid_parse("r_2026", &j), JOBID_RECORD);
	ck_assert_int_eq(jobid_parse("_3", &j), JOBID_RECORD);
	/* A part of a heterogeneous job is no target sqdeck takes. */
	ck_assert_int_eq(jobid_parse("12+0", &j), JOBID_RECORD);
	ck_assert_int_eq(jobid_parse("12;rm", &j), JOBID_RECORD);
}
END_TEST

static Suite *
jobid_suite(void)
{
	Suite	*s = suite_create("jobid");
	TCase	*tc = tcase_create("parse");

	tcase_add_test(tc, test_jobid_jobs);
	tcase_add_test(tc, test_jobid_tasks);
	tcase_add_test(tc, test_jobid_records);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(jobid_suite)
