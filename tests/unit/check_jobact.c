/*
 * Job actions and GPU use (src/slurm/jobact.c, gpuuse.c): the replies of
 * templates/remote/act.sh and gpu.sh captured on the local cluster
 * (tests/data/slurm/act-sdtb.txt, tests/data/nvidia-smi/gpu-sdtb-*.txt),
 * and nvidia-smi's CSV cells as real nvidia-smi printed them in public
 * threads (tests/data/nvidia-smi/README.md names each source).
 */
#include "testutil.h"
#include "gpuuse.h"
#include "jobact.h"
#include "spec.h"
#include "util.h"

START_TEST(test_signal)
{
	char	*v, *cause = NULL;

	ck_assert_int_eq(jobact_signal("USR1", &v, &cause), 0);
	ck_assert_str_eq(v, "USR1");
	free(v);
	ck_assert_int_eq(jobact_signal("sigusr2", &v, &cause), 0);
	ck_assert_str_eq(v, "USR2");
	free(v);
	ck_assert_int_eq(jobact_signal("10", &v, &cause), 0);
	ck_assert_str_eq(v, "10");
	free(v);
	ck_assert_int_eq(jobact_signal("USR9", &v, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "unknown signal"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(jobact_signal("65", &v, &cause), -1);
	free(cause);
	cause = NULL;
	/* Never a word a shell would act on. */
	ck_assert_int_eq(jobact_signal("USR1;id", &v, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(test_time)
{
	static const char *const ok[] = { "30", "5:00", "1:30:00",
	    "2-00", "2-12:00", "1-00:00:00", NULL };
	static const char *const bad[] = { "", "-5", "+30", "1:2:3:4",
	    "1h", "30 ", "1-", "1-00:00:00:00", "$(id)", "1:60x", NULL };
	char	*cause = NULL;
	int	 i;

	for (i = 0; ok[i] != NULL; i++)
		ck_assert_msg(jobact_time(ok[i], &cause) == 0, "%s", ok[i]);
	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(jobact_time(bad[i], &cause) == -1, "%s", bad[i]);
		free(cause);
		cause = NULL;
	}
}
END_TEST

START_TEST(test_captured_act)
{
	struct jobact_reply	 r;
	char			*text = NULL, *cause = NULL, *why;

	ck_assert_int_eq(file_read(test_data("slurm/act-sdtb.txt"), &text,
	    NULL, &cause), 0);
	ck_assert_int_eq(jobact_parse(text, &r, &cause), 0);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_str_eq(r.v[0].id, "726");
	ck_assert_int_eq(r.v[0].rc, 1);
	/* A raised time limit: SLURM's rule in words. */
	why = jobact_explain(JOBACT_TIME, r.v[0].id, r.v[0].words);
	ck_assert_ptr_nonnull(strstr(why, "only lower"));
	free(why);
	why = jobact_explain(JOBACT_HOLD, r.v[1].id, r.v[1].words);
	ck_assert_ptr_nonnull(strstr(why, "no such job"));
	free(why);
	ck_assert_int_eq(r.v[2].rc, 0);
	ck_assert_str_eq(r.v[2].words, "");
	why = jobact_explain(JOBACT_REQUEUE, r.v[3].id, r.v[3].words);
	ck_assert_ptr_nonnull(strstr(why, "still pending"));
	free(why);
	jobact_free(&r);
	free(text);
}
END_TEST

START_TEST(test_act_hostile)
{
	struct jobact_reply	 r;
	char			*cause = NULL;

	/* Control characters from the cluster never reach the screen. */
	ck_assert_int_eq(jobact_parse("12\t1\tno \033[31mway\n", &r, &cause),
	    0);
	ck_assert_ptr_null(strchr(r.v[0].words, '\033'));
	jobact_free(&r);
	ck_assert_int_eq(jobact_parse("12 1 no tabs\n", &r, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(jobact_parse("12\tx\t\n", &r, &cause), -1);
	free(cause);
	ck_assert_int_eq(jobact_parse("", &r, &cause), 0);
	ck_assert_uint_eq(r.n, 0);
	jobact_free(&r);
}
END_TEST

/* Every cell of a real CSV line: a number, or -1 for nvidia-smi's words. */
static void
cells(const char *file, const long *want, int n)
{
	char	*text = NULL, *cause = NULL, *p;
	long	 v;
	size_t	 len;
	int	 i;

	ck_assert_int_eq(file_read(test_data(file), &text, NULL, &cause), 0);
	p = text;
	for (i = 0; i < n; i++) {
		len = strcspn(p, ",\n");
		ck_assert_int_eq(gpuuse_cell(p, len, &v), 0);
		ck_assert_int_eq(v, want[i]);
		p += len + (p[len] != '\0');
	}
	ck_assert(*p == '\0');
	free(text);
}

START_TEST(test_cells)
{
	static const long	i3[] = { 2004, 2004, 0, 44, -1, 0, 0 };
	static const long	gb10[] = { -1, -1, 0 };
	long			v;

	cells("nvidia-smi/i3pystatus-776-new.csv", i3, 7);
	cells("nvidia-smi/i3pystatus-776-old.csv", i3, 7);
	cells("nvidia-smi/llama-swap-782-gb10.csv", gb10, 3);
	/* Without nounits: "85 %", "3847 MiB". */
	ck_assert_int_eq(gpuuse_cell(" 85 %", 5, &v), 0);
	ck_assert_int_eq(v, 85);
	ck_assert_int_eq(gpuuse_cell(" 3847 MiB", 9, &v), 0);
	ck_assert_int_eq(v, 3847);
	ck_assert_int_eq(gpuuse_cell(" NVIDIA A40", 11, &v), -1);
	ck_assert_int_eq(gpuuse_cell(" 12 GB", 6, &v), -1);
}
END_TEST

START_TEST(test_line)
{
	struct gpuuse_row	r;

	ck_assert_int_eq(gpuuse_parse_line("sdn1, 0, NVIDIA A100-SXM4-80GB, "
	    "35, 4235, 81920", 1, &r), 0);
	ck_assert_str_eq(r.node, "sdn1");
	ck_assert_int_eq(r.index, 0);
	ck_assert_str_eq(r.name, "NVIDIA A100-SXM4-80GB");
	ck_assert_int_eq(r.util, 35);
	ck_assert_int_eq(r.used, 4235);
	ck_assert_int_eq(r.total, 81920);
	gpuuse_row_free(&r);
	/* A name with a comma; a GPU that reports no utilisation. */
	ck_assert_int_eq(gpuuse_parse_line("3, Tesla K80, rev 2, [N/A], 0, "
	    "11441", 0, &r), 0);
	ck_assert_str_eq(r.name, "Tesla K80, rev 2");
	ck_assert_int_eq(r.util, -1);
	ck_assert_int_eq(r.total, 11441);
	gpuuse_row_free(&r);
	ck_assert_int_eq(gpuuse_parse_line("sdn1, -", 1, &r), -1);
	ck_assert_int_eq(gpuuse_parse_line("srun: error: Unable to create "
	    "step for job 5", 1, &r), -1);
	ck_assert_int_eq(gpuuse_parse_line("", 0, &r), -1);
}
END_TEST

START_TEST(test_captured_gpu)
{
	struct gpuuse_reply	 g;
	char			*text = NULL, *cause = NULL, *s;

	ck_assert_int_eq(file_read(test_data("nvidia-smi/gpu-sdtb-2node.txt"),
	    &text, NULL, &cause), 0);
	ck_assert_int_eq(gpuuse_parse(text, &g, &cause), 0);
	ck_assert(g.running);
	ck_assert_str_eq(g.state, "RUNNING");
	ck_assert_int_eq(g.rc, 0);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_uint_eq(g.nmissing, 2);
	ck_assert_str_eq(g.missing[0], "sdn2");
	ck_assert_str_eq(g.missing[1], "sdn1");
	s = gpuuse_text(&g);
	ck_assert_ptr_nonnull(strstr(s, "sdn1: no nvidia-smi on this node"));
	free(s);
	gpuuse_free(&g);
	free(text);

	ck_assert_int_eq(file_read(test_data("nvidia-smi/gpu-sdtb-pending.txt"),
	    &text, NULL, &cause), 0);
	ck_assert_int_eq(gpuuse_parse(text, &g, &cause), 0);
	ck_assert(!g.running);
	ck_assert_str_eq(g.state, "PENDING");
	s = gpuuse_text(&g);
	ck_assert_ptr_nonnull(strstr(s, "not running (PENDING)"));
	free(s);
	gpuuse_free(&g);
	free(text);

	ck_assert_int_eq(file_read(test_data("nvidia-smi/gpu-sdtb-ended.txt"),
	    &text, NULL, &cause), 0);
	ck_assert_int_eq(gpuuse_parse(text, &g, &cause), 0);
	ck_assert(!g.running);
	s = gpuuse_text(&g);
	ck_assert_ptr_nonnull(strstr(s, "SLURM no longer lists it"));
	free(s);
	gpuuse_free(&g);
	free(text);
}
END_TEST

START_TEST(test_gpu_reply)
{
	struct gpuuse_reply	 g;
	char			*cause = NULL, *s;

	/* Two nodes' GPUs, and words of srun's kept. */
	ck_assert_int_eq(gpuuse_parse("state RUNNING 2 40\nrc 0\n"
	    "n1, 0, NVIDIA A40, 100, 43518, 46068\n"
	    "n2, 0, NVIDIA A40, [N/A], [N/A], 46068\n"
	    "srun: warning: \033]0;x\007odd\n", &g, &cause), 0);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_int_eq(g.v[1].util, -1);
	ck_assert_int_eq(g.v[1].used, -1);
	ck_assert_ptr_nonnull(g.said);
	ck_assert_ptr_null(strchr(g.said, '\033'));
	s = gpuuse_text(&g);
	ck_assert_ptr_nonnull(strstr(s, "n1 GPU 0 NVIDIA A40: util 100%, "
	    "memory 43518/46068 MiB (94%)"));
	ck_assert_ptr_nonnull(strstr(s, "n2 GPU 0 NVIDIA A40: util n/a, "
	    "memory n/a"));
	free(s);
	gpuuse_free(&g);
	ck_assert_int_eq(gpuuse_parse("garbage", &g, &cause), -1);
	free(cause);
}
END_TEST

/* A spec's after: (issue 27): parsed, written back, rendered. */
START_TEST(test_spec_after)
{
	static const char base[] = "image: x.sqsh\ncommand: run\n";
	struct spec	 sp, back;
	struct buf	 b;
	char		*text, *dep, *cause = NULL;

	text = xasprintf("%safter: [12, 13_4, 12]\n", base);
	ck_assert_int_eq(spec_parse(text, strlen(text), "t", &sp, &cause), 0);
	free(text);
	dep = spec_dependency(&sp);
	ck_assert_str_eq(dep, "afterok:12:13_4");
	free(dep);
	spec_free(&sp);

	text = xasprintf("%safter:\n  any: [20]\n  ok: [21]\n", base);
	ck_assert_int_eq(spec_parse(text, strlen(text), "t", &sp, &cause), 0);
	free(text);
	dep = spec_dependency(&sp);
	ck_assert_str_eq(dep, "afterok:21,afterany:20");
	free(dep);
	/* Written and read back: the same dependency. */
	buf_init(&b);
	ck_assert_int_eq(spec_write(&sp, &b, &cause), 0);
	ck_assert_int_eq(spec_parse(b.data, b.len, "w", &back, &cause), 0);
	dep = spec_dependency(&back);
	ck_assert_str_eq(dep, "afterok:21,afterany:20");
	free(dep);
	spec_free(&back);
	buf_free(&b);
	spec_free(&sp);

	text = xasprintf("%sstuff: 1\n", base);
	ck_assert_int_ne(spec_parse(text, strlen(text), "t", &sp, &cause), 0);
	free(cause);
	cause = NULL;
	free(text);
	ck_assert_int_eq(spec_parse(base, strlen(base), "t", &sp, &cause), 0);
	ck_assert_ptr_null(spec_dependency(&sp));
	spec_free(&sp);
	/* Never a word that is not a job id: it goes into #SBATCH. */
	text = xasprintf("%safter: ['12 --wrap=x']\n", base);
	ck_assert_int_eq(spec_parse(text, strlen(text), "t", &sp, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "not a SLURM job id"));
	free(cause);
	cause = NULL;
	free(text);
	text = xasprintf("%safter: {later: [1]}\n", base);
	ck_assert_int_eq(spec_parse(text, strlen(text), "t", &sp, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "takes ok:"));
	free(cause);
	free(text);
}
END_TEST

static Suite *
jobact_suite(void)
{
	Suite	*s = suite_create("jobact");
	TCase	*tc = tcase_create("jobact");

	tcase_add_test(tc, test_signal);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_captured_act);
	tcase_add_test(tc, test_act_hostile);
	tcase_add_test(tc, test_cells);
	tcase_add_test(tc, test_line);
	tcase_add_test(tc, test_captured_gpu);
	tcase_add_test(tc, test_gpu_reply);
	tcase_add_test(tc, test_spec_after);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(jobact_suite)
