/*
 * History from accounting (src/slurm/history.c): the sacct command and the
 * parser, on output captured from the local cluster
 * (tests/data/slurm/history-sdtb.txt, made with the separator
 * "\0370123456789abcdef": a job whose name holds a newline and 0x1f stays
 * one job with that name).
 */
#include "testutil.h"
#include "history.h"
#include "slurm.h"
#include "util.h"

#define SEP	"\0370123456789abcdef"

START_TEST(test_parse_captured)
{
	struct history	 h;
	char		*text = NULL, *cause = NULL, *log;

	memset(&h, 0, sizeof h);
	ck_assert_int_eq(file_read(test_data("slurm/history-sdtb.txt"), &text,
	    NULL, &cause), 0);
	ck_assert_int_eq(history_parse(text, SEP, &h, &cause), 0);
	ck_assert_uint_eq(h.n, 11);
	/* The name "secp-x\n999999\037forged\037" is one name, not a row. */
	for (size_t i = 0; i < h.n; i++)
		ck_assert_int_ne(h.v[i].raw, 999999);
	ck_assert_str_eq(h.v[6].name, "secp-x\n999999\037forged\037");
	ck_assert_int_eq(h.v[7].raw, 8);
	ck_assert_int_eq(h.v[0].raw, 1);
	ck_assert_str_eq(h.v[0].state, "COMPLETED");
	ck_assert_int_eq(h.v[0].exit_code, 0);
	ck_assert_int_eq(h.v[0].elapsed, 3);
	ck_assert_int_eq(h.v[0].limit, -1);	/* UNLIMITED */
	ck_assert_int_eq(h.v[1].limit, 120);	/* minutes -> seconds */
	ck_assert_str_eq(h.v[5].state, "FAILED");
	ck_assert_int_eq(h.v[5].exit_code, 1);
	ck_assert_int_eq(h.v[5].exit_signal, 0);
	ck_assert_str_eq(h.v[5].partition, "gpu");
	ck_assert_str_eq(h.v[6].state, "CANCELLED by 1001");
	ck_assert_str_eq(h.v[6].end, "2026-12-01T09:00:16");
	log = history_default_log(&h.v[1]);
	ck_assert_str_eq(log, "/tmp/sdtb/lustre/proc-test/slurm-2.out");
	free(log);
	history_free(&h);
	/* With another command's separator nothing is a row. */
	ck_assert_int_eq(history_parse(text, "\037ffffffffffffffff", &h,
	    &cause), -1);
	ck_assert_uint_eq(h.n, 0);
	free(cause);
	history_free(&h);
	free(text);
}
END_TEST

START_TEST(test_parse_edges)
{
	struct history	 h;
	char		*cause = NULL, *log;

	memset(&h, 0, sizeof h);
	ck_assert_int_eq(history_parse("12" SEP "12_3" SEP "TIMEOUT" SEP "0:15"
	    SEP "60" SEP "1" SEP "Unknown" SEP "cpu" SEP "/w/" SEP "a\nb" SEP
	    "\n\n", SEP, &h, &cause), 0);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_str_eq(h.v[0].name, "a\nb");
	ck_assert_str_eq(h.v[0].id, "12_3");
	ck_assert_str_eq(h.v[0].end, "");
	ck_assert_int_eq(h.v[0].exit_signal, 15);
	log = history_default_log(&h.v[0]);
	ck_assert_str_eq(log, "/w/slurm-12_3.out");
	free(log);
	history_free(&h);
	/* Not a job id; a cut-off row. */
	ck_assert_int_eq(history_parse("x" SEP "1" SEP "A" SEP "0:0" SEP "1"
	    SEP "1" SEP "e" SEP "p" SEP "/w" SEP "n" SEP "\n1" SEP "1" SEP,
	    SEP, &h, &cause), -1);
	ck_assert_uint_eq(h.n, 0);
	ck_assert_ptr_nonnull(strstr(cause, "2 row(s) not understood, first: "
	    "row 1"));
	free(cause);
	history_free(&h);
	/* A never-started array or a relative work dir: no default log. */
	ck_assert_int_eq(history_parse("24" SEP "24_[1-3]" SEP "CANCELLED" SEP
	    "0:0" SEP "0" SEP "1" SEP "e" SEP "p" SEP "/w" SEP "n" SEP "\n25"
	    SEP "25" SEP "CANCELLED" SEP "0:0" SEP "0" SEP "1" SEP "e" SEP "p"
	    SEP "" SEP "n" SEP "\n", SEP, &h, &cause), 0);
	ck_assert_ptr_null(history_default_log(&h.v[0]));
	ck_assert_ptr_null(history_default_log(&h.v[1]));
	history_free(&h);
}
END_TEST

START_TEST(test_cmd)
{
	char	*cmd, *cause = NULL;
	time_t	 now = 1764580000;	/* 2025-12-01T09:06:40Z */

	cmd = history_cmd(NULL, 0, now, SEP, &cause);
	ck_assert_ptr_nonnull(cmd);
	/* Seven days and one more, in UTC. */
	ck_assert_ptr_nonnull(strstr(cmd, " -S '2025-11-23' -E now -s "));
	ck_assert_ptr_nonnull(strstr(cmd, "-o JobIDRaw,JobID,State,ExitCode,"
	    "ElapsedRaw,TimelimitRaw,End,Partition,WorkDir,JobName"));
	/* No user but the environment's "env -u" (slurm_env_clean()). */
	ck_assert_ptr_null(strstr(cmd +
	    strlen(slurm_env_clean(SLURM_TOOL_SACCT)), " -u "));
	free(cmd);
	cmd = history_cmd("alice", 30, now, SEP, &cause);
	ck_assert_ptr_nonnull(strstr(cmd, " -S '2025-10-31' "));
	ck_assert_ptr_nonnull(strstr(cmd, " -u 'alice'"));
	free(cmd);
	ck_assert_ptr_null(history_cmd("a b", 1, now, SEP, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "user name 'a b'"));
	free(cause);
	ck_assert_ptr_null(history_cmd("-x", 1, now, SEP, &cause));
	free(cause);
}
END_TEST

static Suite *
history_suite(void)
{
	Suite	*s = suite_create("history");
	TCase	*tc = tcase_create("history");

	tcase_add_test(tc, test_parse_captured);
	tcase_add_test(tc, test_parse_edges);
	tcase_add_test(tc, test_cmd);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(history_suite)
