/*
 * History from accounting (src/history.c): the sacct command and the
 * parser, on output captured from the local cluster
 * (tests/data/slurm/history-sdtb.txt: a job whose name holds a newline and
 * separators makes one line that must not become a job).
 */
#include "testutil.h"
#include "history.h"
#include "util.h"

START_TEST(test_parse_captured)
{
	struct history	 h;
	char		*text = NULL, *cause = NULL, *log;

	memset(&h, 0, sizeof h);
	ck_assert_int_eq(file_read(test_data("slurm/history-sdtb.txt"), &text,
	    NULL, &cause), 0);
	ck_assert_int_eq(history_parse(text, &h, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "1 line(s) not understood, "
	    "first at line 8"));
	free(cause);
	ck_assert_uint_eq(h.n, 11);
	/* No row forged by the name "secp-x\n999999\037forged\037". */
	for (size_t i = 0; i < h.n; i++)
		ck_assert_int_ne(h.v[i].raw, 999999);
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
	free(text);
}
END_TEST

START_TEST(test_parse_edges)
{
	struct history	 h;
	char		*cause = NULL, *log;

	memset(&h, 0, sizeof h);
	/* A name holding the separator stays whole (it is the last field). */
	ck_assert_int_eq(history_parse("12\03712_3\037TIMEOUT\0370:15\03760"
	    "\0371\037Unknown\037cpu\037/w/\037a\037b\n\n", &h, &cause), 0);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_str_eq(h.v[0].name, "a\037b");
	ck_assert_str_eq(h.v[0].id, "12_3");
	ck_assert_str_eq(h.v[0].end, "");
	ck_assert_int_eq(h.v[0].exit_signal, 15);
	log = history_default_log(&h.v[0]);
	ck_assert_str_eq(log, "/w/slurm-12_3.out");
	free(log);
	history_free(&h);
	/* Not a job id; too few fields. */
	ck_assert_int_eq(history_parse("x\0371\037A\0370:0\0371\0371\037e\037p"
	    "\037/w\037n\n1\0371\n", &h, &cause), -1);
	ck_assert_uint_eq(h.n, 0);
	free(cause);
	history_free(&h);
	/* A never-started array or a relative work dir: no default log. */
	ck_assert_int_eq(history_parse("24\03724_[1-3]\037CANCELLED\0370:0\0370"
	    "\0371\037e\037p\037/w\037n\n25\03725\037CANCELLED\0370:0\0370"
	    "\0371\037e\037p\037\037n\n", &h, &cause), 0);
	ck_assert_ptr_null(history_default_log(&h.v[0]));
	ck_assert_ptr_null(history_default_log(&h.v[1]));
	history_free(&h);
}
END_TEST

START_TEST(test_cmd)
{
	char	*cmd, *cause = NULL;
	time_t	 now = 1764580000;	/* 2025-12-01T09:06:40Z */

	cmd = history_cmd(NULL, 0, now, &cause);
	ck_assert_ptr_nonnull(cmd);
	/* Seven days and one more, in UTC. */
	ck_assert_ptr_nonnull(strstr(cmd, " -S '2025-11-23' -E now -s "));
	ck_assert_ptr_nonnull(strstr(cmd, "-o JobIDRaw,JobID,State,ExitCode,"
	    "ElapsedRaw,TimelimitRaw,End,Partition,WorkDir,JobName"));
	ck_assert_ptr_null(strstr(cmd, " -u "));
	free(cmd);
	cmd = history_cmd("alice", 30, now, &cause);
	ck_assert_ptr_nonnull(strstr(cmd, " -S '2025-10-31' "));
	ck_assert_ptr_nonnull(strstr(cmd, " -u 'alice'"));
	free(cmd);
	ck_assert_ptr_null(history_cmd("a b", 1, now, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "user name 'a b'"));
	free(cause);
	ck_assert_ptr_null(history_cmd("-x", 1, now, &cause));
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
