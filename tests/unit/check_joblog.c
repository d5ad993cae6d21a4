/*
 * Logs of jobs sqdeck did not submit (src/core/joblog.c): scontrol show job -o
 * of an array task captured on the local cluster
 * (tests/data/slurm/scontrol-array-sdtb.txt), and the sbatch -o patterns
 * resolved; SLURM's start estimates for the wizard (src/core/soonest.c) from
 * sbatch --test-only as the local cluster printed it
 * (tests/data/slurm/testonly-sdtb.txt).
 */
#include <time.h>

#include "testutil.h"
#include "joblog.h"
#include "slurm.h"
#include "soonest.h"
#include "util.h"

/* The separator the captures were made with (slurm_sep_new's form). */
#define CAPSEP	"\0370123456789abcdef"

/*
 * squeue -O of task 2 of an array job named "x StdOut=/etc/passwd
 * StdErr=/etc/passwd" (sbatch -o out-%A_%a.txt -e err-%x-%a.txt), from the
 * local cluster: the paths are the job's own, never the ones in its name.
 * With scontrol show job -o the name's " StdOut=" was taken for the key.
 */
START_TEST(test_joblog_captured)
{
	struct joblog	 j;
	char		*text = NULL, *cause = NULL, *p, *want;

	ck_assert_int_eq(file_read(test_data(
	    "slurm/squeue-joblog-forged-sdtb.txt"), &text, NULL, &cause), 0);
	ck_assert_int_eq(joblog_parse(text, CAPSEP, &j, &cause), 0);
	ck_assert_ptr_nonnull(j.array_job);
	ck_assert_ptr_nonnull(j.array_task);
	ck_assert_str_eq(j.name, "x StdOut=/etc/passwd StdErr=/etc/passwd");
	ck_assert_str_eq(j.user, "sqdeck");
	ck_assert_str_eq(j.workdir, "/tmp/sdtb/lustre/results/joblogcap");
	ck_assert_str_eq(j.array_task, "2");
	ck_assert_str_eq(j.out, "/tmp/sdtb/lustre/results/joblogcap/"
	    "out-%A_%a.txt");
	p = joblog_path(&j, 0, &cause);
	ck_assert_msg(p != NULL, "%s", cause);
	want = xasprintf("/tmp/sdtb/lustre/results/joblogcap/out-%s_2.txt",
	    j.array_job);
	ck_assert_str_eq(p, want);
	free(want);
	free(p);
	p = joblog_path(&j, 1, &cause);
	ck_assert_msg(p != NULL, "%s", cause);
	ck_assert_str_eq(p, "/tmp/sdtb/lustre/results/joblogcap/err-"
	    "x StdOut=/etc/passwd StdErr=/etc/passwd-2.txt");
	free(p);
	joblog_free(&j);
	free(text);

	/* Not an array, no -e: StdErr is StdOut. */
	ck_assert_int_eq(file_read(test_data(
	    "slurm/squeue-joblog-plain-sdtb.txt"), &text, NULL, &cause), 0);
	ck_assert_int_eq(joblog_parse(text, CAPSEP, &j, &cause), 0);
	ck_assert_ptr_null(j.array_job);
	ck_assert_ptr_null(j.array_task);
	ck_assert_str_eq(j.name, "plain");
	p = joblog_path(&j, 1, &cause);
	ck_assert_msg(p != NULL, "%s", cause);
	want = xasprintf("/tmp/plain-%s.out", j.job_id);
	ck_assert_str_eq(p, want);
	free(want);
	free(p);
	joblog_free(&j);
	free(text);
}
END_TEST

/*
 * A name that holds a newline, Key=Value pairs and a fake row cannot move
 * a field: only the command's own separator splits.
 */
START_TEST(test_joblog_forged_name)
{
	struct joblog	 j;
	char		*cause = NULL, *p;
	const char	*row = "12" CAPSEP "12" CAPSEP "N/A" CAPSEP "u" CAPSEP
	    "/w" CAPSEP "/w/o-%j.txt" CAPSEP "/w/o-%j.txt" CAPSEP
	    "a StdOut=/etc/passwd WorkDir=/\n13\0375 StdOut=/x" CAPSEP "\n";

	ck_assert_int_eq(joblog_parse(row, CAPSEP, &j, &cause), 0);
	p = joblog_path(&j, 0, &cause);
	ck_assert_str_eq(p, "/w/o-12.txt");
	free(p);
	ck_assert_str_eq(j.workdir, "/w");
	joblog_free(&j);
	/* Another separator (the name's guess) splits nothing. */
	ck_assert_int_eq(joblog_parse(row, "\037ffffffffffffffff", &j,
	    &cause), -1);
	free(cause);
	cause = NULL;
	/* Cut short: refused, not read as a path. */
	ck_assert_int_eq(joblog_parse("12" CAPSEP "12" CAPSEP, CAPSEP, &j,
	    &cause), -1);
	free(cause);
}
END_TEST

START_TEST(test_joblog_resolve)
{
	struct joblog	 j;
	char		*p, *cause = NULL;

	memset(&j, 0, sizeof j);
	j.job_id = (char *)"78";
	j.array_job = (char *)"77";
	j.array_task = (char *)"1";
	j.name = (char *)"n";
	j.user = (char *)"u";
	p = joblog_resolve("slurm-%A_%a.out", &j, &cause);
	ck_assert_str_eq(p, "slurm-77_1.out");
	free(p);
	p = joblog_resolve("%x-%j-%3a-%u-100%%.log", &j, &cause);
	ck_assert_str_eq(p, "n-78-001-u-100%.log");
	free(p);
	/* Not an array: %A is the job id. */
	j.array_job = NULL;
	p = joblog_resolve("o-%A.txt", &j, &cause);
	ck_assert_str_eq(p, "o-78.txt");
	free(p);
	/* A pending range has no one task number; %N needs the node. */
	j.array_task = (char *)"4-9%2";
	ck_assert_ptr_null(joblog_resolve("o-%a.txt", &j, &cause));
	ck_assert_msg(strstr(cause, "a started array task") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;
	ck_assert_ptr_null(joblog_resolve("o-%N.txt", &j, &cause));
	free(cause);
	cause = NULL;
	/* Unknown job: no JobId. */
	ck_assert_int_eq(joblog_parse("slurm_load_jobs error: Invalid job id "
	    "specified\n", CAPSEP, &j, &cause), -1);
	free(cause);
	cause = NULL;
	/* Ids are checked and quoted. */
	ck_assert_ptr_null(joblog_cmd("12;rm", CAPSEP, &cause));
	free(cause);
	cause = NULL;
	p = joblog_cmd("12_[4-9]", "\037ab", &cause);
	ck_assert_str_eq(p + strlen(slurm_env_clean(SLURM_TOOL_SQUEUE)),
	    "squeue -h -t all -j '12_[4-9]' -O 'JobID:0\037ab,"
	    "ArrayJobID:0\037ab,ArrayTaskID:0\037ab,UserName:0\037ab,"
	    "WorkDir:0\037ab,StdOut:0\037ab,StdErr:0\037ab,Name:0\037ab'");
	free(p);
}
END_TEST

/*
 * Issue 26.4: after the job left squeue, accounting's row.  The -o of the
 * sbatch line (SubmitLine, 22.05-26.05) or SLURM's default; a name that
 * holds the separator's look-alikes or " -o /etc/passwd" moves nothing.
 */
START_TEST(test_joblog_sacct)
{
	const char	*sep = "\037" "0123456789abcdef";
	struct joblog	 jl;
	char		*text, *path, *cmd, *cause = NULL;

	cmd = joblog_sacct_cmd("706_3", sep, &cause);
	ck_assert_ptr_nonnull(cmd);
	ck_assert_ptr_nonnull(strstr(cmd, "sacct -X -n -P --delimiter="));
	ck_assert_ptr_nonnull(strstr(cmd, " -j '706_3' -o JobIDRaw,JobID,"
	    "User,WorkDir,SubmitLine,JobName"));
	free(cmd);
	ck_assert_ptr_null(joblog_sacct_cmd("7;rm", sep, &cause));
	free(cause);
	cause = NULL;

	text = xasprintf("709%s706_3%ssdtb%s/home/sdtb/w%ssbatch --array=0-4 "
	    "-o out-%%A_%%a.txt job.sh -o x%sjob -o /etc/passwd%s\n", sep,
	    sep, sep, sep, sep, sep);
	ck_assert_int_eq(joblog_sacct_parse(text, sep, &jl, &cause), 0);
	ck_assert_str_eq(jl.job_id, "709");
	ck_assert_str_eq(jl.array_job, "706");
	ck_assert_str_eq(jl.array_task, "3");
	ck_assert_str_eq(jl.name, "job -o /etc/passwd");
	path = joblog_path(&jl, 0, &cause);
	ck_assert_str_eq(path, "/home/sdtb/w/out-706_3.txt");
	free(path);
	path = joblog_path(&jl, 1, &cause);	/* no -e: -o's */
	ck_assert_str_eq(path, "/home/sdtb/w/out-706_3.txt");
	free(path);
	joblog_free(&jl);
	free(text);

	/* No -o: SLURM's defaults. */
	text = xasprintf("12%s12%su%s/w%ssbatch -p cpu --wrap=true%sn%s", sep,
	    sep, sep, sep, sep, sep);
	ck_assert_int_eq(joblog_sacct_parse(text, sep, &jl, &cause), 0);
	path = joblog_path(&jl, 0, &cause);
	ck_assert_str_eq(path, "/w/slurm-12.out");
	free(path);
	joblog_free(&jl);
	free(text);
	text = xasprintf("15%s12_3%su%s/w%s%sn%s", sep, sep, sep, sep, sep,
	    sep);
	ck_assert_int_eq(joblog_sacct_parse(text, sep, &jl, &cause), 0);
	path = joblog_path(&jl, 0, &cause);
	ck_assert_str_eq(path, "/w/slurm-12_3.out");
	free(path);
	joblog_free(&jl);
	free(text);
	/* No row: a job accounting does not have. */
	ck_assert_int_eq(joblog_sacct_parse("", sep, &jl, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(test_joblog_submit_opt)
{
	static const struct { const char *line, *out, *err; } c[] = {
		{ "sbatch -o out-%A_%a.txt job.sh", "out-%A_%a.txt", NULL },
		{ "sbatch --output=/r/%j.o -e '/r/e %j' x.sh", "/r/%j.o",
		  "/r/e %j" },
		{ "sbatch --output /r/o -J name -p cpu x.sh", "/r/o", NULL },
		{ "sbatch -o/r/a --hold --error=/r/b x", "/r/a", "/r/b" },
		{ "sbatch -J -o x.sh -o real", NULL, NULL },
		{ "sbatch --parsable x.sh -o not-sbatch", NULL, NULL },
		{ "sbatch --wrap 'echo -o x' -o \"a b\"", "a b", NULL },
		{ "sbatch", NULL, NULL },
		{ "", NULL, NULL },
	};
	size_t	 i;
	char	*o, *e;

	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		o = joblog_submit_opt(c[i].line, 0);
		e = joblog_submit_opt(c[i].line, 1);
		if (c[i].out == NULL)
			ck_assert_msg(o == NULL, "%s: -o %s", c[i].line, o);
		else
			ck_assert_str_eq(o, c[i].out);
		if (c[i].err == NULL)
			ck_assert_msg(e == NULL, "%s: -e %s", c[i].line, e);
		else
			ck_assert_str_eq(e, c[i].err);
		free(o);
		free(e);
	}
}
END_TEST

START_TEST(test_soonest)
{
	struct soonest	 so;
	struct plan	 a, b;
	const struct plan *pp[2] = { &a, &b };
	char		*text = NULL, *cause = NULL, *cmd, *t;
	struct tm	 tm;
	time_t		 now;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.partition = (char *)"gpu";
	a.nodes = 1;
	a.gpus_per_node = 2;
	a.cpus_per_task = 4;
	snprintf(a.time_str, sizeof a.time_str, "1:00:00");
	a.account = (char *)"sdtb";
	b = a;
	b.partition = (char *)"cpu's";
	b.gpus_per_node = 0;
	cmd = soonest_cmd(pp, 2, "MARK", &cause);
	ck_assert_ptr_nonnull(cmd);
	ck_assert_ptr_nonnull(strstr(cmd, "sbatch --test-only -J "
	    "sqdeck-test-only -p 'gpu' -N 1 -c 4 -t 1:00:00 --gres=gpu:2 -A "
	    "'sdtb' --wrap true"));
	/* Every value quoted. */
	ck_assert_ptr_nonnull(strstr(cmd, "-p 'cpu'\\''s' -N 1"));
	free(cmd);
	ck_assert_ptr_null(soonest_cmd(pp, 0, "MARK", &cause));
	free(cause);
	cause = NULL;

	/* The local cluster's answers: cpu and gpu fit, 3 nodes do not. */
	ck_assert_int_eq(file_read(test_data("slurm/testonly-sdtb.txt"),
	    &text, NULL, &cause), 0);
	ck_assert_int_eq(soonest_parse(text, "MARK", &so, &cause), 0);
	ck_assert_uint_eq(so.n, 3);
	ck_assert_str_eq(so.v[0].partition, "cpu");
	ck_assert_str_eq(so.v[1].partition, "gpu");
	ck_assert_ptr_nonnull(so.v[0].start);
	ck_assert_ptr_nonnull(so.v[1].start);
	ck_assert_int_ne(so.v[1].when, 0);
	ck_assert_ptr_null(so.v[0].error);
	ck_assert_ptr_null(so.v[2].start);
	ck_assert_str_eq(so.v[2].error, "allocation failure: Node count "
	    "specification invalid");
	/* At the estimate: "now", by name; the refusal last. */
	t = soonest_text(&so, so.v[1].when);
	localtime_r(&so.v[1].when, &tm);
	ck_assert_msg(strncmp(t, "soonest start (sbatch --test-only): cpu "
	    "now (", 40) == 0, "%s", t);
	ck_assert_msg(strstr(t, "; gpu now (") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "; gpu: allocation failure: Node count "
	    "specification invalid") != NULL, "%s", t);
	free(t);
	/* An hour before it: "at HH:MM". */
	now = so.v[1].when - 3600;
	t = soonest_text(&so, now);
	ck_assert_msg(strstr(t, "gpu at ") != NULL, "%s", t);
	free(t);
	soonest_free(&so);
	ck_assert_int_eq(soonest_parse("nothing\n", "MARK", &so, &cause), -1);
	free(cause);
	free(text);
}
END_TEST

static Suite *
joblog_suite(void)
{
	Suite	*s = suite_create("joblog");
	TCase	*tc = tcase_create("joblog");

	tcase_add_test(tc, test_joblog_captured);
	tcase_add_test(tc, test_joblog_forged_name);
	tcase_add_test(tc, test_joblog_resolve);
	tcase_add_test(tc, test_joblog_sacct);
	tcase_add_test(tc, test_joblog_submit_opt);
	tcase_add_test(tc, test_soonest);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(joblog_suite)
