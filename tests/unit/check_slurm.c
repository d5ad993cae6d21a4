/*
 * slurm.c: command lines and parsers.  The parsers run on output captured
 * from the real local cluster by tests/data/slurm/capture.sh (job ids 21-33
 * of that run, tag sdslurm23147).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "gres.h"
#include "jobid.h"
#include "joblog.h"
#include "slurm.h"
#include "state.h"

#define TAG	"sdslurm23147"

static char *
slurp(const char *name)
{
	char	 path[256], *text = NULL, *cause = NULL;

	snprintf(path, sizeof path, "slurm/%s", name);
	if (file_read(test_data(path), &text, NULL, &cause) != 0)
		ck_abort_msg("%s", cause);
	return (text);
}

/* Parse a captured file with squeue or sacct; asserts it parsed cleanly. */
static void
parse_file(const char *name, int sacct, struct slurm_jobs *jobs)
{
	char	*text = slurp(name), *cause = NULL;
	int	 rc;

	memset(jobs, 0, sizeof *jobs);
	if (sacct)
		rc = slurm_parse_sacct(text, NULL, jobs, &cause);
	else
		rc = slurm_parse_squeue(text, NULL, jobs, &cause);
	ck_assert_msg(rc == 0, "%s: %s", name, cause);
	ck_assert_ptr_null(cause);
	free(text);
}

static struct slurm_job *
must_find(struct slurm_jobs *jobs, long id)
{
	struct slurm_job	*j = slurm_jobs_find(jobs, id);

	ck_assert_msg(j != NULL, "job %ld not in the output", id);
	return (j);
}

/* --- durations ---------------------------------------------------------- */

START_TEST(test_time_parse)
{
	static const struct {
		const char	*s;
		enum slurm_time	 kind;
		long		 secs;
	} t[] = {
		{ "0:00", SLURM_TIME_SET, 0 },		/* squeue %M, pending */
		{ "0:07", SLURM_TIME_SET, 7 },		/* M:SS */
		{ "1:00", SLURM_TIME_SET, 60 },		/* squeue %l of --time=1 */
		{ "30:00", SLURM_TIME_SET, 1800 },
		{ "4:00:00", SLURM_TIME_SET, 14400 },	/* H:MM:SS */
		{ "00:01:13", SLURM_TIME_SET, 73 },	/* sacct Elapsed */
		{ "04:00:00", SLURM_TIME_SET, 14400 },	/* sacct Timelimit */
		{ "1-00:00:00", SLURM_TIME_SET, 86400 },	/* D-HH:MM:SS */
		{ "2-03:04:05", SLURM_TIME_SET, 2 * 86400 + 3 * 3600 + 245 },
		{ "1-2", SLURM_TIME_SET, 86400 + 7200 },	/* D-H */
		{ "1-2:30", SLURM_TIME_SET, 86400 + 9000 },	/* D-H:MM */
		{ "45", SLURM_TIME_SET, 2700 },		/* minutes */
		{ " 4:00:00 ", SLURM_TIME_SET, 14400 },
		{ "UNLIMITED", SLURM_TIME_UNLIMITED, -1 },
		{ "infinite", SLURM_TIME_UNLIMITED, -1 },	/* sinfo */
		{ "Partition_Limit", SLURM_TIME_PARTITION, -1 },
		{ "INVALID", SLURM_TIME_INVALID, -1 },
		{ "NOT_SET", SLURM_TIME_NOT_SET, -1 },
		{ "N/A", SLURM_TIME_NOT_SET, -1 },
		{ "", SLURM_TIME_NOT_SET, -1 },
		{ "abc", SLURM_TIME_ERROR, -1 },
		{ "1:2:3:4", SLURM_TIME_ERROR, -1 },
		{ "1:60", SLURM_TIME_ERROR, -1 },
		{ "1:60:00", SLURM_TIME_ERROR, -1 },
		{ "1-1:00:60", SLURM_TIME_ERROR, -1 },
		{ "-5", SLURM_TIME_ERROR, -1 },
		{ "1-", SLURM_TIME_ERROR, -1 },
		{ ":30", SLURM_TIME_ERROR, -1 },
		{ "1::2", SLURM_TIME_ERROR, -1 },
		{ "4:00:00x", SLURM_TIME_ERROR, -1 },
		{ "99999999999:00", SLURM_TIME_ERROR, -1 },
	};
	size_t	i;
	long	secs;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		secs = 12345;
		ck_assert_msg(slurm_time_parse(t[i].s, &secs) == t[i].kind,
		    "\"%s\": kind", t[i].s);
		ck_assert_msg(secs == t[i].secs, "\"%s\": %ld, expected %ld",
		    t[i].s, secs, t[i].secs);
	}
	ck_assert_int_eq(slurm_time_parse(NULL, &secs), SLURM_TIME_NOT_SET);
}
END_TEST

START_TEST(test_time_format)
{
	static const long v[] = { 0, 7, 60, 73, 1800, 3599, 3600, 14400,
	    86399, 86400, 2 * 86400 + 3 * 3600 + 245, 30 * 86400 };
	char	buf[32];
	size_t	i;
	long	back;

	slurm_time_format(0, buf, sizeof buf);
	ck_assert_str_eq(buf, "0:00");
	slurm_time_format(73, buf, sizeof buf);
	ck_assert_str_eq(buf, "1:13");
	slurm_time_format(14400, buf, sizeof buf);
	ck_assert_str_eq(buf, "4:00:00");
	slurm_time_format(90061, buf, sizeof buf);
	ck_assert_str_eq(buf, "1-01:01:01");
	slurm_time_format(-1, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
	/* What we print, SLURM (and our parser) reads back. */
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		slurm_time_format(v[i], buf, sizeof buf);
		ck_assert_int_eq(slurm_time_parse(buf, &back), SLURM_TIME_SET);
		ck_assert_int_eq(back, v[i]);
	}
}
END_TEST

START_TEST(test_maxtime)
{
	char	*cause = NULL;
	long	 m;

	ck_assert_int_eq(slurm_maxtime_minutes("4:00:00", &m, NULL), 0);
	ck_assert_int_eq(m, 240);
	ck_assert_int_eq(slurm_maxtime_minutes("1-00:00:00", &m, NULL), 0);
	ck_assert_int_eq(m, 1440);
	ck_assert_int_eq(slurm_maxtime_minutes("30:00", &m, NULL), 0);
	ck_assert_int_eq(m, 30);
	ck_assert_int_eq(slurm_maxtime_minutes("0:30", &m, NULL), 0);
	ck_assert_int_eq(m, 1);		/* rounded up, never 0 */
	m = 0;
	ck_assert_int_eq(slurm_maxtime_minutes("infinite", &m, NULL), 0);
	ck_assert_int_eq(m, -1);
	m = 0;
	ck_assert_int_eq(slurm_maxtime_minutes("UNLIMITED", &m, NULL), 0);
	ck_assert_int_eq(m, -1);
	ck_assert_int_eq(slurm_maxtime_minutes("soon", &m, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "\"soon\""));
	free(cause);
}
END_TEST

START_TEST(test_since)
{
	char	buf[32];

	/* 2026-11-29T16:24:34Z, the submit time of job 21. */
	slurm_since(1795969474, buf, sizeof buf);
	ck_assert_str_eq(buf, "2026-11-28");
	/* Just after midnight UTC: still one whole day back. */
	slurm_since(1795910460, buf, sizeof buf);
	ck_assert_str_eq(buf, "2026-11-28");
}
END_TEST

/* --- squeue --------------------------------------------------------------- */

START_TEST(test_squeue_me)
{
	struct slurm_jobs	 jobs;
	struct slurm_job	*j;
	struct strv		 nodes = { NULL, 0 };

	parse_file("squeue_me.txt", 0, &jobs);
	ck_assert_int_eq(jobs.n, 5);

	j = must_find(&jobs, 25);		/* running, cpu partition */
	ck_assert_str_eq(j->jobid, "25");
	ck_assert_str_eq(j->name, TAG "-run");
	ck_assert_str_eq(j->partition, "cpu");
	ck_assert_str_eq(j->state, "RUNNING");
	ck_assert_int_eq(j->elapsed, 4);
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_UNLIMITED);
	ck_assert_int_eq(j->limit, -1);
	ck_assert_int_eq(j->nnodes, 1);
	ck_assert_str_eq(j->nodelist, "sdn1");
	ck_assert_str_eq(j->reason, "None");
	ck_assert_str_eq(j->submit, "2026-11-29T16:24:36");
	ck_assert_str_eq(j->start, "2026-11-29T16:24:38");
	ck_assert_str_eq(j->end, "");
	ck_assert_str_eq(j->gres, "");		/* N/A */
	ck_assert_int_eq(j->placeholder, 0);

	j = must_find(&jobs, 26);		/* 2 nodes */
	ck_assert_str_eq(j->name, TAG "-2node");
	ck_assert_int_eq(j->nnodes, 2);
	ck_assert_str_eq(j->nodelist, "sdn[1-2]");
	ck_assert_int_eq(slurm_nodelist_expand(j->nodelist, &nodes, NULL), 0);
	ck_assert_int_eq(nodes.n, 2);
	ck_assert_str_eq(nodes.v[0], "sdn1");
	ck_assert_str_eq(nodes.v[1], "sdn2");
	strv_free(&nodes);

	j = must_find(&jobs, 24);		/* held array, pending */
	ck_assert_str_eq(j->jobid, "24_[1-3]");
	ck_assert_str_eq(j->name, TAG "-array");
	ck_assert_str_eq(j->state, "PENDING");
	ck_assert_str_eq(j->reason, "JobHeldUser");
	ck_assert_str_eq(j->nodelist, "");
	ck_assert_str_eq(j->start, "");		/* N/A */
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_SET);
	ck_assert_int_eq(j->limit, 4 * 3600);	/* gpu MaxTime */
	ck_assert_int_eq(j->elapsed, 0);

	j = must_find(&jobs, 23);		/* '|' and a blank in the name */
	ck_assert_str_eq(j->name, TAG "-held|pipe name");
	ck_assert_str_eq(j->state, "PENDING");
	ck_assert_str_eq(j->partition, "gpu");

	j = must_find(&jobs, 21);		/* --time=0:01 */
	ck_assert_str_eq(j->name, TAG "-timeout");
	ck_assert_int_eq(j->limit, 60);
	ck_assert_int_eq(j->elapsed, 7);

	ck_assert_ptr_null(slurm_jobs_find(&jobs, 22));
	slurm_jobs_free(&jobs);
	ck_assert_int_eq(jobs.n, 0);
}
END_TEST

START_TEST(test_squeue_name)
{
	struct slurm_jobs	 jobs;

	parse_file("squeue_name.txt", 0, &jobs);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_int_eq(jobs.v[0].id, 23);
	ck_assert_str_eq(jobs.v[0].name, TAG "-held|pipe name");
	slurm_jobs_free(&jobs);
}
END_TEST

/* Real rows, then damaged copies of them. */
START_TEST(test_squeue_robust)
{
	struct slurm_jobs	 jobs = { NULL, 0, NULL };
	struct buf		 b;
	char			*text = slurp("squeue_me.txt"), *first, *cause = NULL;
	char			*nl = strchr(text, '\n');

	first = xstrndup(text, nl - text);
	buf_init(&b);
	buf_adds(&b, "\n  \n");
	buf_adds(&b, first);
	buf_adds(&b, "   \r\n\n");		/* trailing blanks, CRLF */
	buf_adds(&b, "x");			/* bad id */
	buf_adds(&b, strchr(first, SLURM_SEP));
	buf_adds(&b, "\n");
	buf_adds(&b, nl + 1);			/* the other 4 rows */
	buf_add(&b, first, 30);			/* cut short */

	ck_assert_int_eq(slurm_parse_squeue(b.data, NULL, &jobs, &cause), -1);
	ck_assert_int_eq(jobs.n, 5);
	ck_assert_int_eq(jobs.v[0].id, 25);
	ck_assert_str_eq(jobs.v[0].name, TAG "-run");
	ck_assert_int_eq(jobs.v[1].id, 26);
	ck_assert_msg(strstr(cause, "squeue output row 2: bad job id \"x\"")
	    != NULL, "%s", cause);
	ck_assert_msg(strstr(cause, "1 more bad row") != NULL, "%s", cause);
	ck_assert_ptr_null(strchr(cause, SLURM_SEP));	/* printable */
	free(cause);
	slurm_jobs_free(&jobs);

	/* stderr by mistake is reported, not parsed. */
	free(text);
	text = slurp("squeue_start_gone.err");
	cause = NULL;
	ck_assert_int_eq(slurm_parse_squeue(text, NULL, &jobs, &cause), -1);
	ck_assert_int_eq(jobs.n, 0);
	ck_assert_ptr_nonnull(strstr(cause, "Invalid job id specified"));
	free(cause);

	/* Nothing at all is fine. */
	ck_assert_int_eq(slurm_parse_squeue("", NULL, &jobs, NULL), 0);
	ck_assert_int_eq(slurm_parse_squeue(NULL, NULL, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.n, 0);

	buf_free(&b);
	free(first);
	free(text);
}
END_TEST

/*
 * Issue 12 item 12: a job name holding a newline (sbatch -J, scontrol
 * update JobName=) must not become a row of its own.  The forged text is
 * what an attacker would write: a full row of 0x1f-separated fields for a
 * phantom RUNNING job 999999.  With the random separator it stays in the
 * name.
 */
START_TEST(test_squeue_forged_row)
{
	struct slurm_jobs	 jobs = { NULL, 0, NULL };
	struct buf		 b;
	const char		*forged = "x\n999999\037999999\037gpu\037"
	    "RUNNING\0370:01\0374:00:00\0371\037sdn1\037None\037"
	    "2026-11-29T16:24:36\037N/A\037N/A\037phantom\037\n";
	char			 sep[SLURM_SEP_SIZE], *cmd;
	size_t			 i;

	slurm_sep_new(sep, sizeof sep);
	ck_assert_int_eq(strlen(sep), SLURM_SEP_SIZE - 1);
	ck_assert_int_eq(sep[0], SLURM_SEP);
	/* The command asks for exactly that separator after every field. */
	cmd = slurm_cmd_squeue(NULL, sep);
	ck_assert_ptr_nonnull(strstr(cmd, sep));
	free(cmd);

	/* As squeue prints it: the real row for job 41, name and all. */
	buf_init(&b);
	buf_adds(&b, "41");
	for (i = 0; i < 12; i++) {
		static const char *const v[] = { "41", "gpu", "PENDING",
		    "0:00", "4:00:00", "1", "", "JobHeldUser",
		    "2026-11-29T16:24:36", "N/A", "N/A" };

		buf_adds(&b, sep);
		if (i < 11)
			buf_adds(&b, v[i]);
		else
			buf_adds(&b, forged);
	}
	buf_adds(&b, sep);
	buf_adds(&b, "\n");
	ck_assert_int_eq(slurm_parse_squeue(b.data, sep, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_int_eq(jobs.v[0].id, 41);
	ck_assert_str_eq(jobs.v[0].state, "PENDING");
	ck_assert_str_eq(jobs.v[0].name, forged);
	ck_assert_ptr_null(slurm_jobs_find(&jobs, 999999));
	slurm_jobs_free(&jobs);

	/* sacct: the same name cannot forge an ended job either. */
	buf_free(&b);
	buf_init(&b);
	buf_printf(&b, "41%s41%sPENDING%s0:0%sJobHeldUser%s%sgpu%s00:00:00%s"
	    "04:00:00%s1%s2026-11-29T16:24:36%sUnknown%sUnknown%s", sep, sep,
	    sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
	buf_adds(&b, "y\n999999\037999999\037NODE_FAIL\0370:0\037None\037"
	    "sdn1\037gpu\03700:00:01\03704:00:00\0371\037x\037x\037x\037"
	    "phantom\037");
	buf_adds(&b, sep);
	buf_adds(&b, "\n");
	ck_assert_int_eq(slurm_parse_sacct(b.data, sep, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_str_eq(jobs.v[0].state, "PENDING");
	ck_assert_ptr_null(slurm_jobs_find(&jobs, 999999));
	slurm_jobs_free(&jobs);
	buf_free(&b);
}
END_TEST

START_TEST(test_squeue_start)
{
	char	*text, *when, *reason, *cause = NULL;

	text = slurp("squeue_start_resources.txt");
	ck_assert_int_eq(slurm_parse_start(text, NULL, &when, &reason, NULL), 1);
	ck_assert_str_eq(when, "2026-11-29T16:26:47");
	ck_assert_str_eq(reason, "Resources");
	free(when);
	free(reason);
	free(text);

	text = slurp("squeue_start_held.txt");	/* N/A */
	ck_assert_int_eq(slurm_parse_start(text, NULL, &when, &reason, NULL), 0);
	ck_assert_ptr_null(when);
	ck_assert_str_eq(reason, "JobHeldUser");
	free(reason);
	free(text);

	text = slurp("squeue_start_gone.out");	/* empty: job unknown */
	ck_assert_int_eq(slurm_parse_start(text, NULL, &when, &reason, NULL), 0);
	ck_assert_ptr_null(when);
	ck_assert_ptr_null(reason);
	free(text);

	ck_assert_int_eq(slurm_parse_start("33\037garbage\n", NULL, &when,
	    NULL, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	free(cause);
}
END_TEST

START_TEST(test_squeue_resources_row)
{
	struct slurm_jobs	 jobs;

	parse_file("squeue_start_resources.txt", 0, &jobs);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_int_eq(jobs.v[0].id, 33);
	ck_assert_int_eq(jobs.v[0].nnodes, 2);
	ck_assert_str_eq(jobs.v[0].gres, "gres:gpu:4");
	ck_assert_int_eq(jobs.v[0].limit, 60);
	slurm_jobs_free(&jobs);
}
END_TEST

/* --- sacct ---------------------------------------------------------------- */

START_TEST(test_sacct_batch)
{
	struct slurm_jobs	 jobs;
	struct slurm_job	*j;
	char			 base[32];

	parse_file("sacct_batch.txt", 1, &jobs);
	ck_assert_int_eq(jobs.n, 8);

	j = must_find(&jobs, 21);
	ck_assert_str_eq(j->name, TAG "-timeout");
	ck_assert_str_eq(j->state, "TIMEOUT");
	ck_assert_int_eq(j->elapsed, 73);
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_SET);
	ck_assert_int_eq(j->limit, 60);
	ck_assert_int_eq(j->exit_code, 0);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert_str_eq(j->end, "2026-11-29T16:25:48");

	j = must_find(&jobs, 22);		/* the placeholder, settled */
	ck_assert_str_eq(j->name, TAG "-ph");
	ck_assert_str_eq(j->partition, "cpu");
	ck_assert_int_eq(j->placeholder, 0);
	ck_assert_str_eq(j->state, "COMPLETED");

	j = must_find(&jobs, 23);
	ck_assert_str_eq(j->name, TAG "-held|pipe name");
	ck_assert_str_eq(j->state, "CANCELLED by 1001");
	ck_assert_str_eq(slurm_state_base(j->state, base, sizeof base),
	    "CANCELLED");
	/* Held 11 s, then ran 62 s: what it waited for is no reason now. */
	ck_assert_str_eq(j->reason, "None");
	ck_assert_int_eq(j->elapsed, 62);

	j = must_find(&jobs, 24);		/* array, never started */
	ck_assert_str_eq(j->jobid, "24_[1-3]");
	ck_assert_str_eq(j->nodelist, "");	/* None assigned */
	ck_assert_str_eq(j->start, "");		/* None */
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_PARTITION);
	ck_assert_int_eq(j->limit, -1);

	j = must_find(&jobs, 25);
	ck_assert_str_eq(j->state, "CANCELLED by 1001");
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_UNLIMITED);

	j = must_find(&jobs, 26);
	ck_assert_str_eq(j->name, TAG "-2node");
	ck_assert_str_eq(j->nodelist, "sdn[1-2]");
	ck_assert_int_eq(j->nnodes, 2);
	ck_assert_int_eq(j->elapsed, 15);

	j = must_find(&jobs, 27);
	ck_assert_str_eq(j->state, "COMPLETED");
	ck_assert_int_eq(j->exit_code, 0);

	j = must_find(&jobs, 28);
	ck_assert_str_eq(j->name, TAG "-fail");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_int_eq(j->exit_code, 3);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert_str_eq(j->submit, "2026-11-29T16:24:38");
	ck_assert_str_eq(j->start, "2026-11-29T16:24:41");
	slurm_jobs_free(&jobs);
}
END_TEST

START_TEST(test_sacct_placeholder)
{
	struct slurm_jobs	 jobs;

	parse_file("sacct_placeholder.txt", 1, &jobs);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_int_eq(jobs.v[0].id, 22);
	ck_assert_str_eq(jobs.v[0].name, "allocation");
	ck_assert_str_eq(jobs.v[0].partition, "");
	ck_assert_int_eq(jobs.v[0].placeholder, 1);
	ck_assert_int_eq(jobs.v[0].limit_kind, SLURM_TIME_NOT_SET);
	ck_assert_str_eq(jobs.v[0].state, "COMPLETED");	/* settles first */
	slurm_jobs_free(&jobs);

	/* Right after sbatch (or for an unknown id): no row at all. */
	parse_file("sacct_empty.txt", 1, &jobs);
	ck_assert_int_eq(jobs.n, 0);
}
END_TEST

START_TEST(test_sacct_name)
{
	struct slurm_jobs	 jobs;

	parse_file("sacct_name.txt", 1, &jobs);
	ck_assert_int_eq(jobs.n, 1);
	ck_assert_int_eq(jobs.v[0].id, 23);
	ck_assert_str_eq(jobs.v[0].name, TAG "-held|pipe name");
	ck_assert_int_eq(jobs.v[0].placeholder, 0);
	slurm_jobs_free(&jobs);
}
END_TEST

START_TEST(test_sacct_robust)
{
	struct slurm_jobs	 jobs = { NULL, 0, NULL };
	char			*cause = NULL;

	/* A job really named "allocation" has a partition: trusted. */
	ck_assert_int_eq(slurm_parse_sacct("5\0375\037RUNNING\0370:0\037None"
	    "\037sdn1\037gpu\03700:00:01\03704:00:00\0371\037x\037x\037"
	    "Unknown\037allocation\037\n", NULL, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.v[0].placeholder, 0);
	ck_assert_str_eq(jobs.v[0].end, "");
	/* Exit code by signal, "9:15" style and garbage. */
	ck_assert_int_eq(slurm_parse_sacct("6\0376\037FAILED\0370:15\037None"
	    "\037sdn1\037gpu\03700:00:01\03704:00:00\0371\037x\037x\037x\037"
	    "n\037\n7\0377\037FAILED\037?\037None\037sdn1\037gpu\03700:00:01"
	    "\03704:00:00\0371\037x\037x\037x\037n\037\n", NULL, &jobs, NULL),
	    0);
	ck_assert_int_eq(jobs.v[1].exit_code, 0);
	ck_assert_int_eq(jobs.v[1].exit_signal, 15);
	ck_assert_int_eq(jobs.v[2].exit_code, -1);
	/* '|' would be a separator for plain -P: we do not use it. */
	ck_assert_int_eq(slurm_parse_sacct("8|8|COMPLETED|0:0|None|sdn1|gpu|"
	    "00:00:00|04:00:00|1|x|x|x|name\n", NULL, &jobs, &cause), -1);
	ck_assert_int_eq(jobs.n, 3);
	ck_assert_ptr_nonnull(strstr(cause, "text after the last row"));
	free(cause);
	slurm_jobs_free(&jobs);
}
END_TEST

START_TEST(test_state_base)
{
	char	buf[32], small[4], *text;

	text = slurp("sacct_default_width.txt");	/* "CANCELLED+ " */
	ck_assert_str_eq(slurm_state_base(text, buf, sizeof buf),
	    "CANCELLED");
	free(text);
	ck_assert_str_eq(slurm_state_base("CANCELLED by 1001", buf,
	    sizeof buf), "CANCELLED");
	ck_assert_str_eq(slurm_state_base("NODE_FAIL", buf, sizeof buf),
	    "NODE_FAIL");
	ck_assert_str_eq(slurm_state_base("OUT_OF_MEMORY", buf, sizeof buf),
	    "OUT_OF_MEMORY");
	ck_assert_str_eq(slurm_state_base("", buf, sizeof buf), "");
	ck_assert_str_eq(slurm_state_base("RUNNING", small, sizeof small),
	    "RUN");
}
END_TEST

/* --- sinfo ---------------------------------------------------------------- */

START_TEST(test_sinfo)
{
	struct slurm_partitions		 parts = { NULL, 0, NULL };
	const struct slurm_partition	*p;
	char				*text = slurp("sinfo.txt"), *cause = NULL;

	ck_assert_int_eq(slurm_parse_sinfo(text, &parts, &cause), 0);
	ck_assert_int_eq(parts.n, 2);

	p = slurm_partition_find(&parts, "gpu");
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "gpu");		/* '*' stripped */
	ck_assert_int_eq(p->is_default, 1);
	ck_assert_str_eq(p->avail, "up");
	ck_assert_int_eq(p->max_minutes, 240);
	ck_assert_int_eq(p->nodes, 2);
	ck_assert_int_eq(p->nodes_alloc, 2);
	ck_assert_int_eq(p->nodes_idle, 0);
	ck_assert_int_eq(p->cpus, 64);
	ck_assert_int_eq(p->mem_mb, 256000);
	ck_assert_str_eq(p->gres, "gpu:4");
	ck_assert_ptr_eq(slurm_partition_default(&parts), p);

	p = slurm_partition_find(&parts, "cpu");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->is_default, 0);
	ck_assert_int_eq(p->max_minutes, -1);		/* infinite */
	ck_assert_ptr_null(slurm_partition_find(&parts, "gpu*"));
	slurm_partitions_free(&parts);
	free(text);
}
END_TEST

/* One partition over two node configurations, and damaged lines. */
START_TEST(test_sinfo_merge)
{
	struct slurm_partitions		 parts = { NULL, 0, NULL };
	const struct slurm_partition	*p;
	char				*cause = NULL;

	ck_assert_int_eq(slurm_parse_sinfo(
	    "big\037up\0371-00:00:00\0373\0371/2/0/3\03764\037256000\037"
	    "gpu:a100:4(S:0-1)\n"
	    "big\037up\0371-00:00:00\0371\0370/0/1/1\03732+\037128000+\037"
	    "(null)\n"
	    "big\037up\0371-00:00:00\0372\0370/2/0/2\03732\037128000\037"
	    "gpu:h100:8\n"
	    "short\037down\03730:00\0371\0370/1/0/1\0374\0371000\037(null)\n"
	    "bad\037up\037soon\0371\0370/1/0/1\0374\0371000\037(null)\n"
	    "trunc\037up\n", &parts, &cause), -1);
	ck_assert_int_eq(parts.n, 2);
	p = slurm_partition_find(&parts, "big");
	ck_assert_int_eq(p->nodes, 6);
	ck_assert_int_eq(p->nodes_alloc, 1);
	ck_assert_int_eq(p->nodes_idle, 4);
	ck_assert_int_eq(p->nodes_other, 1);
	ck_assert_int_eq(p->cpus, 32);
	ck_assert_int_eq(p->mem_mb, 128000);
	ck_assert_int_eq(p->max_minutes, 1440);
	ck_assert_str_eq(p->gres, "gpu:a100:4(S:0-1),gpu:h100:8");
	p = slurm_partition_find(&parts, "short");
	ck_assert_str_eq(p->avail, "down");
	ck_assert_int_eq(p->max_minutes, 30);
	ck_assert_str_eq(p->gres, "");
	ck_assert_ptr_null(slurm_partition_default(&parts));
	ck_assert_msg(strstr(cause, "sinfo output line 5") != NULL &&
	    strstr(cause, "\"soon\"") != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(cause, "1 more bad line"));
	free(cause);
	slurm_partitions_free(&parts);
}
END_TEST

/* --- sbatch replies -------------------------------------------------------- */

START_TEST(test_sbatch_reply)
{
	char	*out, *err, *msg;
	long	 id;

	out = slurp("sbatch_ok.out");
	ck_assert_int_eq(slurm_parse_sbatch(out, "", &id, &msg),
	    SLURM_SUBMIT_OK);
	ck_assert_int_eq(id, 29);
	ck_assert_ptr_null(msg);
	free(out);

	out = slurp("sbatch_cluster.out");	/* "30;sdtb" */
	ck_assert_int_eq(slurm_parse_sbatch(out, NULL, &id, NULL),
	    SLURM_SUBMIT_OK);
	ck_assert_int_eq(id, 30);
	free(out);

	out = slurp("sbatch_timelimit.out");
	err = slurp("sbatch_timelimit.err");
	ck_assert_int_eq(slurm_parse_sbatch(out, err, &id, &msg),
	    SLURM_SUBMIT_ERROR);
	ck_assert_int_eq(id, -1);
	ck_assert_str_eq(msg, "Batch job submission failed: Requested time "
	    "limit is invalid (missing or exceeds some limit)");
	free(msg);
	free(out);
	free(err);

	out = slurp("sbatch_gpus.out");
	err = slurp("sbatch_gpus.err");
	ck_assert_int_eq(slurm_parse_sbatch(out, err, &id, &msg),
	    SLURM_SUBMIT_ERROR);
	ck_assert_str_eq(msg, "Batch job submission failed: Requested node "
	    "configuration is not available");
	free(msg);
	free(out);
	free(err);

	/*
	 * No account (AccountingStorageEnforce=associations and none given,
	 * or a site's job_submit plugin): where to set it (issue 24).
	 */
	ck_assert_int_eq(slurm_parse_sbatch("", "sbatch: error: Batch job "
	    "submission failed: Invalid account or account/partition "
	    "combination specified\n", &id, &msg), SLURM_SUBMIT_ERROR);
	ck_assert_str_eq(msg, "Batch job submission failed: Invalid account "
	    "or account/partition combination specified: set SLURM_ACCOUNT "
	    "(or 'account:' for the cluster in clusters.yaml) to an account "
	    "you may use (sacctmgr show assoc user=$USER "
	    "format=account,partition)");
	free(msg);
	ck_assert_int_eq(slurm_parse_sbatch("", "sbatch: error: You must "
	    "specify an Account\n", &id, &msg), SLURM_SUBMIT_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "You must specify an Account: set "
	    "SLURM_ACCOUNT (or 'account:'"));
	free(msg);

	/* No answer at all (connection cut, reply lost). */
	ck_assert_int_eq(slurm_parse_sbatch("", "", &id, &msg),
	    SLURM_SUBMIT_AMBIGUOUS);
	ck_assert_int_eq(id, -1);
	ck_assert_str_eq(msg, "sbatch printed no job id");
	free(msg);
	ck_assert_int_eq(slurm_parse_sbatch(NULL, NULL, &id, NULL),
	    SLURM_SUBMIT_AMBIGUOUS);
	/* Garbage, and the non-parsable form. */
	ck_assert_int_eq(slurm_parse_sbatch("Submitted batch job 5\n", "",
	    &id, &msg), SLURM_SUBMIT_AMBIGUOUS);
	ck_assert_ptr_nonnull(strstr(msg, "Submitted batch job 5"));
	free(msg);
	ck_assert_int_eq(slurm_parse_sbatch("12\n13\n", "", &id, NULL),
	    SLURM_SUBMIT_AMBIGUOUS);
	ck_assert_int_eq(slurm_parse_sbatch("0\n", "", &id, NULL),
	    SLURM_SUBMIT_AMBIGUOUS);
	ck_assert_int_eq(slurm_parse_sbatch("99999999999\n", "", &id, NULL),
	    SLURM_SUBMIT_AMBIGUOUS);
	/* A timeout may come after the job was queued. */
	ck_assert_int_eq(slurm_parse_sbatch("", "sbatch: error: Batch job "
	    "submission failed: Socket timed out on send/recv operation\n",
	    &id, &msg), SLURM_SUBMIT_AMBIGUOUS);
	ck_assert_ptr_nonnull(strstr(msg, "may have queued"));
	free(msg);
	/* A warning next to an id is still a success. */
	ck_assert_int_eq(slurm_parse_sbatch("41\n", "sbatch: warning: "
	    "something\n", &id, NULL), SLURM_SUBMIT_OK);
	ck_assert_int_eq(id, 41);
}
END_TEST

/* scancel of an ended job prints nothing (and exits 0): success. */
START_TEST(test_scancel_done)
{
	char	*out = slurp("scancel_done.out"), *err = slurp("scancel_done.err");

	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

/* --- node lists ------------------------------------------------------------ */

static void
expand_ok(const char *list, const char *want)
{
	struct strv	 v = { NULL, 0 };
	struct buf	 b;
	char		*cause = NULL;
	size_t		 i;

	ck_assert_msg(slurm_nodelist_expand(list, &v, &cause) == 0, "%s: %s",
	    list, cause);
	buf_init(&b);
	for (i = 0; i < v.n; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : " ", v.v[i]);
	buf_adds(&b, "");
	ck_assert_msg(strcmp(b.data, want) == 0, "%s -> \"%s\", want \"%s\"",
	    list, b.data, want);
	buf_free(&b);
	strv_free(&v);
}

static void
expand_bad(const char *list, const char *why)
{
	struct strv	 v = { NULL, 0 };
	char		*cause = NULL;

	ck_assert_msg(slurm_nodelist_expand(list, &v, &cause) == -1, "%s",
	    list);
	ck_assert_msg(strstr(cause, why) != NULL, "%s: %s", list, cause);
	free(cause);
	strv_free(&v);
}

START_TEST(test_nodelist)
{
	expand_ok("sdn[1-2,5]", "sdn1 sdn2 sdn5");
	expand_ok("sdn[1-2]", "sdn1 sdn2");
	expand_ok("sdn1", "sdn1");
	expand_ok("n[01-03]", "n01 n02 n03");
	expand_ok("n[8-11]", "n8 n9 n10 n11");
	expand_ok("a1,b[1-2],c", "a1 b1 b2 c");
	expand_ok("r[1-2]-n[1-2]", "r1-n1 r1-n2 r2-n1 r2-n2");
	expand_ok("gpu-[3]x", "gpu-3x");
	expand_ok("", "");
	expand_ok("None assigned", "");
	expand_ok("a,,b", "a b");
	expand_bad("sdn[1-", "unbalanced '['");
	expand_bad("sdn]1", "unbalanced ']'");
	expand_bad("sdn[2-1]", "reversed");
	expand_bad("sdn[a]", "bad range");
	expand_bad("sdn[1-]", "bad range");
	expand_bad("a[1[2]]", "nested");
	expand_bad("n[0-99999999]", "more than 65536");
	expand_bad("a b", "blank");

	/*
	 * Found by tests/fuzz (slurm_nodelist_expand): "[]" expanded to no
	 * names and no error, and the groups were only checked while
	 * expanding, so a bad tail cost the product of the groups before it
	 * (2 s for 86 bytes).  Now every group is checked and the names
	 * counted first: nothing is added for a refused item.
	 */
	expand_bad("sdn[]", "bad range \"\"");
	expand_bad("a[1,]", "bad range \"\"");
	expand_bad("a[0-999]b[0-999]c[0-999]d[]", "bad range \"\"");
	expand_bad("a[0-999]b[0-999]c[0-999]d[2-1]", "reversed");
	expand_bad("a[0-999]b[0-999]c[0-999]]", "unbalanced ']'");
	expand_bad("a[0-999]b[0-999]", "more than 65536");
	{
		struct strv	 v = { NULL, 0 };
		char		*cause = NULL;

		ck_assert_int_eq(slurm_nodelist_expand("x,a[0-999]b[0-999]",
		    &v, &cause), -1);
		ck_assert_uint_eq(v.n, 1);	/* x, none of the a*b* */
		ck_assert_ptr_nonnull(strstr(cause, "more than 65536"));
		free(cause);
		strv_free(&v);
	}
}
END_TEST

/* --- commands --------------------------------------------------------------- */

/*
 * Run cmd through a local sh with the program replaced by printf, so we
 * see the argv the remote shell would build: one "[arg]" per line.
 */
static char *
shell_argv(const char *cmd)
{
	struct buf	 b;
	char		 line[4096], *sp;
	FILE		*f;
	char		*full;

	sp = strchr(cmd, ' ');
	ck_assert_ptr_nonnull(sp);
	full = xasprintf("printf '[%%s]\\n'%s", sp);
	f = popen(full, "r");
	ck_assert_ptr_nonnull(f);
	buf_init(&b);
	while (fgets(line, sizeof line, f) != NULL)
		buf_adds(&b, line);
	ck_assert_int_eq(pclose(f), 0);
	free(full);
	return (buf_steal(&b));
}

static char *
joined(const char *fields, int sep)
{
	char	*s = xstrdup(fields), *p;

	for (p = s; *p != '\0'; p++) {
		if (*p == ' ')
			*p = sep;
	}
	return (s);
}

/* The command after slurm_env_clean()'s "env -u ..." (test_cmd_env). */
static const char *
bare(const char *cmd)
{
	const char	*p = cmd;

	if (strncmp(p, "env ", 4) == 0) {
		for (p += 4; strncmp(p, "-u ", 3) == 0; p++)
			p = strchr(p + 3, ' ');
	}
	return (p);
}

START_TEST(test_cmd_squeue)
{
	char	*cmd, *argv, *want, *fmt;

	fmt = joined(SLURM_SQUEUE_FIELDS, SLURM_SEP);
	cmd = slurm_cmd_squeue(NULL, NULL);
	argv = shell_argv(bare(cmd));
	/* Every field, the last one too, is followed by the separator. */
	want = xasprintf("[--me]\n[-h]\n[-o]\n[%s\037]\n", fmt);
	ck_assert_str_eq(argv, want);		/* 0x1f survived sh */
	ck_assert(str_has_prefix(bare(cmd), "squeue "));
	free(cmd);
	free(argv);
	free(want);

	cmd = slurm_cmd_squeue("o'brien", NULL);
	argv = shell_argv(bare(cmd));
	ck_assert(str_has_prefix(argv, "[-u]\n[o'brien]\n[-h]\n"));
	free(cmd);
	free(argv);
	free(fmt);
}
END_TEST

START_TEST(test_cmd_name_lookup)
{
	const char	*name = "x |$(touch /tmp/no)'\"`;";
	char		*cmd, *argv, *want, *cause = NULL;

	cmd = slurm_cmd_squeue_name(NULL, name, NULL, NULL);
	argv = shell_argv(bare(cmd));
	want = xasprintf("[--me]\n[-h]\n[-t]\n[all]\n[-n]\n[%s]\n", name);
	ck_assert(str_has_prefix(argv, want));
	free(want);
	free(argv);
	free(cmd);

	cmd = slurm_cmd_sacct_name(name, "2026-11-28", "u1", NULL, NULL);
	ck_assert(str_has_prefix(bare(cmd), "sacct -X -n -p '--delimiter="));
	argv = shell_argv(bare(cmd));
	want = xasprintf("[--name=%s]\n", name);
	ck_assert(str_has_suffix(argv, want));
	ck_assert_ptr_nonnull(strstr(argv, "[-S]\n[2026-11-28]\n"));
	free(want);
	free(argv);
	free(cmd);

	ck_assert_ptr_null(slurm_cmd_squeue_name(NULL, "a,b", NULL, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "','"));
	free(cause);
	ck_assert_ptr_null(slurm_cmd_squeue_name(NULL, "", NULL, NULL));
	ck_assert_ptr_null(slurm_cmd_sacct_name("x", NULL, NULL, NULL,
	    &cause));
	ck_assert_ptr_nonnull(strstr(cause, "midnight"));
	free(cause);
}
END_TEST

START_TEST(test_cmd_sacct)
{
	static const long ids[] = { 21, 22, 23 }, bad[] = { 21, 0 };
	char	*cmd, *argv, *want, *fmt, *cause = NULL;

	fmt = joined(SLURM_SACCT_FIELDS, ',');
	cmd = slurm_cmd_sacct(ids, 3, "2026-11-28", "o'brien", NULL, NULL);
	argv = shell_argv(bare(cmd));
	/* -p: a delimiter after the last field too; -u: never another
	 * user's job under a reused id. */
	want = xasprintf("[-X]\n[-n]\n[-p]\n[--delimiter=\037]\n[-u]\n"
	    "[o'brien]\n[-S]\n[2026-11-28]\n[-o]\n[%s]\n[-j]\n[21,22,23]\n",
	    fmt);
	ck_assert_str_eq(argv, want);
	ck_assert_ptr_nonnull(strstr(fmt, "State%30,"));
	ck_assert(str_has_suffix(fmt, ",JobName"));	/* name last */
	free(want);
	free(argv);
	free(cmd);
	free(fmt);

	ck_assert_ptr_null(slurm_cmd_sacct(ids, 0, "x", NULL, NULL, &cause));
	free(cause);
	ck_assert_ptr_null(slurm_cmd_sacct(bad, 2, "x", NULL, NULL, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "invalid job id 0"));
	free(cause);
	ck_assert_ptr_null(slurm_cmd_sacct(ids, 1, "", NULL, NULL, &cause));
	free(cause);
	/* Without a user: the login's own, found on the cluster. */
	cmd = slurm_cmd_sacct(ids, 1, "2026-11-28", NULL, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(cmd, " -u \"`id -un`\" "));
	free(cmd);
	cause = NULL;
	free(cause);
}
END_TEST

START_TEST(test_cmd_misc)
{
	static const long ids[] = { 7, 8 };
	char	*cmd, *argv, *fmt, *want, *cause = NULL;

	cmd = slurm_cmd_scancel(ids, 2, NULL);
	ck_assert_str_eq(cmd, "scancel 7 8");
	free(cmd);
	ck_assert_ptr_null(slurm_cmd_scancel(ids, 0, &cause));
	free(cause);

	cmd = slurm_cmd_scancel_name(NULL, "a b|c", NULL);
	argv = shell_argv(bare(cmd));
	ck_assert_str_eq(argv, "[--me]\n[-n]\n[a b|c]\n");
	free(argv);
	free(cmd);
	ck_assert_ptr_null(slurm_cmd_scancel_name(NULL, "a,b", &cause));
	free(cause);
	cmd = slurm_cmd_scancel_name("u", "n", NULL);
	ck_assert_str_eq(cmd, "scancel -u 'u' -n 'n'");
	free(cmd);

	cmd = slurm_cmd_release(33, NULL);
	ck_assert_str_eq(bare(cmd), "scontrol release 33");
	free(cmd);
	ck_assert_ptr_null(slurm_cmd_release(-1, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "-1"));
	free(cause);

	fmt = joined(SLURM_SQUEUE_FIELDS, SLURM_SEP);
	cmd = slurm_cmd_start(33, NULL, NULL);
	argv = shell_argv(bare(cmd));
	want = xasprintf("[--me]\n[--start]\n[-h]\n[-j]\n[33]\n[-o]\n"
	    "[%s\037]\n", fmt);
	ck_assert_str_eq(argv, want);
	free(want);
	free(argv);
	free(cmd);
	free(fmt);

	fmt = joined(SLURM_SINFO_FIELDS, SLURM_SEP);
	cmd = slurm_cmd_sinfo();
	argv = shell_argv(bare(cmd));
	want = xasprintf("[-h]\n[-o]\n[%s]\n", fmt);
	ck_assert_str_eq(argv, want);
	free(want);
	free(argv);
	free(cmd);
	free(fmt);

	cmd = slurm_cmd_sbatch("/l/job dir/job_1.sbatch", "sd-1", 1, NULL);
	argv = shell_argv(bare(cmd));
	ck_assert_str_eq(argv, "[--parsable]\n[--hold]\n[-J]\n[sd-1]\n"
	    "[/l/job dir/job_1.sbatch]\n");
	free(argv);
	free(cmd);
	cmd = slurm_cmd_sbatch("-x.sbatch", NULL, 0, NULL);
	argv = shell_argv(bare(cmd));
	ck_assert_str_eq(argv, "[--parsable]\n[./-x.sbatch]\n");
	free(argv);
	free(cmd);
	ck_assert_ptr_null(slurm_cmd_sbatch("", NULL, 0, &cause));
	free(cause);
}
END_TEST

/* capture.sh asked SLURM for the same fields the parsers expect. */
START_TEST(test_capture_fields)
{
	char	*text = slurp("capture.sh"), *want;

	want = xasprintf("\nSQUEUE_FIELDS='%s'\n", SLURM_SQUEUE_FIELDS);
	ck_assert_msg(strstr(text, want) != NULL, "capture.sh: %s", want);
	free(want);
	want = xasprintf("\nSACCT_FIELDS='%s'\n", SLURM_SACCT_FIELDS);
	ck_assert_msg(strstr(text, want) != NULL, "capture.sh: %s", want);
	free(want);
	want = xasprintf("\nSINFO_FIELDS='%s'\n", SLURM_SINFO_FIELDS);
	ck_assert_msg(strstr(text, want) != NULL, "capture.sh: %s", want);
	free(want);
	free(text);
}
END_TEST


/* --- releases (tests/data/slurm-RELEASE, `tests/cluster/releases capture`) */

/*
 * A captured file without its '#' header; *cmd (may be NULL) gets the
 * command of its last header line, "# $ COMMAND".
 */
static char *
slurp_rel(const char *rel, const char *name, char **cmd)
{
	char		 path[256], *text = NULL, *cause = NULL, *body, *eol;
	const char	*p = NULL;

	snprintf(path, sizeof path, "%s/%s", rel, name);
	if (file_read(test_data(path), &text, NULL, &cause) != 0)
		ck_abort_msg("%s", cause);
	if (cmd != NULL)
		*cmd = NULL;
	body = text;
	while (*body == '#') {
		eol = strchr(body, '\n');
		if (strncmp(body, "# $ ", 4) == 0)
			p = body + 4;
		if (p == body + 4 && cmd != NULL)
			*cmd = xstrndup(p, (size_t)((eol != NULL ? eol :
			    body + strlen(body)) - p));
		body = eol != NULL ? eol + 1 : body + strlen(body);
	}
	body = xstrdup(body);
	free(text);
	return (body);
}

/* The id of an outcome in RELEASE/jobs.txt ("failed 6"). */
static long
rel_id(const char *rel, const char *outcome)
{
	char		*text = slurp_rel(rel, "jobs.txt", NULL), *want;
	const char	*p;
	long		 id;

	want = xasprintf("%s ", outcome);
	for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, want, strlen(want)) == 0)
			break;
	}
	ck_assert_msg(p != NULL && *p != '\0', "%s: no %s", rel, outcome);
	id = strtol(p + strlen(want), NULL, 10);
	free(want);
	free(text);
	return (id);
}

static const char *const releases[] = {
	"slurm-22.05", "slurm-24.11", "slurm-26.05"
};
#define NRELEASES	((int)(sizeof releases / sizeof releases[0]))

/* The squeue captures: the same jobs read the same on both releases. */
START_TEST(test_release_squeue)
{
	const char		*rel = releases[_i];
	struct slurm_jobs	 jobs;
	struct slurm_job	*j;
	char			*text, *cmd, *cause = NULL, *want, base[32];
	long			 pend = rel_id(rel, "pending");
	long			 run = rel_id(rel, "running");
	long			 arr = rel_id(rel, "array");
	size_t			 i;
	int			 tasks = 0;

	text = slurp_rel(rel, "squeue.txt", &cmd);
	/* Exactly the command sqdeck runs. */
	want = slurm_cmd_squeue(NULL, NULL);
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	memset(&jobs, 0, sizeof jobs);
	ck_assert_msg(slurm_parse_squeue(text, NULL, &jobs, &cause) == 0,
	    "%s: %s", rel, cause);
	ck_assert_ptr_null(jobs.notes);
	j = must_find(&jobs, pend);
	ck_assert_str_eq(j->state, "PENDING");
	ck_assert_str_eq(j->reason, "JobHeldUser");
	ck_assert_str_eq(j->nodelist, "");
	ck_assert_str_eq(j->start, "");
	ck_assert_str_eq(j->name, "p23-pending");
	j = must_find(&jobs, run);
	ck_assert_str_eq(j->state, "RUNNING");
	/* One of the test cluster's two nodes, sdn1 or sdn2. */
	ck_assert_msg(strcmp(j->nodelist, "sdn1") == 0 ||
	    strcmp(j->nodelist, "sdn2") == 0, "%s: %s", rel, j->nodelist);
	/* Over 20 characters and not cut: -o, not a bare -O field. */
	ck_assert_str_eq(j->name,
	    "p23-running-job-with-a-name-longer-than-twenty");
	ck_assert_int_eq(j->limit_kind, SLURM_TIME_SET);
	ck_assert_int_eq(j->limit, 4 * 3600);
	ck_assert_int_eq((int)strlen(j->submit), 19);
	for (i = 0; i < jobs.n; i++) {
		struct jobid	id;

		if (jobid_parse(jobs.v[i].jobid, &id) == JOBID_JOB ||
		    id.job != (unsigned long)arr)
			continue;
		tasks++;
		slurm_state_base(jobs.v[i].state, base, sizeof base);
		if (id.kind == JOBID_RANGE) {
			ck_assert_str_eq(base, "PENDING");
			ck_assert_int_eq(id.ntasks, 2);	/* [2-3%1] */
		} else {
			ck_assert_int_eq(id.kind, JOBID_TASK);
			ck_assert_str_eq(base, "RUNNING");
		}
	}
	ck_assert_int_eq(tasks, 2);
	slurm_jobs_free(&jobs);
	free(text);

	text = slurp_rel(rel, "squeue_name.txt", &cmd);
	want = slurm_cmd_squeue_name(NULL,
	    "p23-running-job-with-a-name-longer-than-twenty", NULL, NULL);
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	ck_assert_int_eq(slurm_parse_squeue(text, NULL, &jobs, NULL), 0);
	/* The running job, and any other of that name an earlier capture
	 * left in SLURM's memory (-t all): every row has the name. */
	ck_assert_int_ge(jobs.n, 1);
	ck_assert_ptr_nonnull(must_find(&jobs, run));
	for (i = 0; i < jobs.n; i++)
		ck_assert_str_eq(jobs.v[i].name,
		    "p23-running-job-with-a-name-longer-than-twenty");
	slurm_jobs_free(&jobs);
	free(text);

	/* --start of a held job: no estimate; of an unknown one: nothing. */
	text = slurp_rel(rel, "squeue_start.txt", &cmd);
	want = slurm_cmd_start(pend, NULL, NULL);
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	ck_assert_int_eq(slurm_parse_start(text, NULL, &want, &cmd, NULL), 0);
	ck_assert_ptr_null(want);
	ck_assert_str_eq(cmd, "JobHeldUser");
	free(cmd);
	free(text);
	text = slurp_rel(rel, "squeue_start_gone.out", NULL);
	ck_assert_int_eq(slurm_parse_start(text, NULL, &want, NULL, NULL), 0);
	free(text);
	text = slurp_rel(rel, "squeue_start_gone.err", NULL);
	ck_assert_str_eq(text, "slurm_load_jobs error: Invalid job id "
	    "specified\n");
	free(text);
}
END_TEST

/*
 * The sacct captures: every outcome reads the same on 24.11 and 26.05,
 * the SIGKILLed program too (sacct prints 9:0 on 24.11, 137:0 on 26.05).
 */
/* What a pending job waits for (squeue %E), each release's own words. */
START_TEST(test_release_dependency)
{
	const char	*rel = releases[_i];
	char		*text, *cmd, *dep, *want, *p;
	long		 held = rel_id(rel, "pending");
	long		 gone = rel_id(rel, "cancelled");

	text = slurp_rel(rel, "squeue_dependency.txt", &cmd);
	ck_assert_ptr_nonnull(cmd);
	/* The command is sqdeck's, but for the job's id. */
	p = strstr(cmd, " -j ");
	ck_assert_ptr_nonnull(p);
	want = slurm_cmd_dependency(strtol(p + 4, NULL, 10), NULL);
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	dep = slurm_parse_dependency(text);
	want = xasprintf("afterok:%ld(unfulfilled),afterany:%ld(unfulfilled)",
	    held, held);
	ck_assert_str_eq(dep, want);
	free(want);
	free(dep);
	free(text);
	text = slurp_rel(rel, "squeue_dependency_never.txt", NULL);
	dep = slurm_parse_dependency(text);
	want = xasprintf("afterok:%ld(failed)", gone);
	ck_assert_str_eq(dep, want);
	free(want);
	free(dep);
	free(text);
	/* Only SLURM's words pass: no escape, no second line; none: NULL. */
	dep = slurm_parse_dependency("after\033]52;c;eA==\aok:1(x)\nrm -rf /\n");
	ck_assert_str_eq(dep, "after52ceAok:1(x)");
	free(dep);
	ck_assert_ptr_null(slurm_parse_dependency("(null)\n"));
	ck_assert_ptr_null(slurm_parse_dependency("\n"));
	ck_assert_ptr_null(slurm_parse_dependency(NULL));
	ck_assert_ptr_null(slurm_cmd_dependency(-1, NULL));
}
END_TEST

START_TEST(test_release_sacct)
{
	static const struct {
		const char	*outcome;
		const char	*state;		/* base word */
		int		 code, sig;
		enum rstate	 rstate;
	} want[] = {
		{ "pending",	   "PENDING",	 0, 0, RSTATE_PENDING },
		{ "running",	   "RUNNING",	 0, 0, RSTATE_RUNNING },
		{ "cancelled",	   "CANCELLED",	 0, 0, RSTATE_CANCELED },
		{ "completed",	   "COMPLETED",	 0, 0, RSTATE_COMPLETE },
		{ "failed",	   "FAILED",	 3, 0, RSTATE_ERROR },
		{ "exit9",	   "FAILED",	 9, 0, RSTATE_ERROR },
		{ "sigkill",	   "FAILED",	 9, 0, RSTATE_ERROR },
		{ "sigkill_batch", "FAILED",	 0, 9, RSTATE_ERROR },
	};
	const char		*rel = releases[_i];
	struct slurm_jobs	 jobs;
	struct slurm_job	*j;
	struct state_map	 m;
	char			*text, *cmd, *cause = NULL, *since, *ids, *c;
	char			 base[32];
	long			 idv[16];
	size_t			 i, n = 0;

	text = slurp_rel(rel, "sacct.txt", &cmd);
	/* The command: sqdeck's, for the captured date and ids. */
	since = strstr(cmd, " -S '");
	ids = strstr(cmd, " -j ");
	ck_assert_ptr_nonnull(since);
	ck_assert_ptr_nonnull(ids);
	since = xstrndup(since + 5, 10);
	for (c = ids + 4; *c != '\0'; c++) {
		idv[n++] = strtol(c, &c, 10);
		if (*c == '\0')
			break;
	}
	c = slurm_cmd_sacct(idv, n, since, NULL, NULL, NULL);
	ck_assert_str_eq(cmd, c);
	free(c);
	free(since);
	free(cmd);

	memset(&jobs, 0, sizeof jobs);
	ck_assert_msg(slurm_parse_sacct(text, NULL, &jobs, &cause) == 0,
	    "%s: %s", rel, cause);
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		j = must_find(&jobs, rel_id(rel, want[i].outcome));
		slurm_state_base(j->state, base, sizeof base);
		ck_assert_msg(strcmp(base, want[i].state) == 0, "%s %s: %s",
		    rel, want[i].outcome, j->state);
		ck_assert_msg(j->exit_code == want[i].code &&
		    j->exit_signal == want[i].sig, "%s %s: %d:%d", rel,
		    want[i].outcome, j->exit_code, j->exit_signal);
		/* Only 26.05 printed 137:0. */
		ck_assert_int_eq(j->exit_folded, strcmp(want[i].outcome,
		    "sigkill") == 0 && strcmp(rel, "slurm-26.05") == 0);
		ck_assert_int_eq(state_map(j->state, STATUS_PASS, &m), 0);
		ck_assert_int_eq(m.state, want[i].rstate);
	}
	/* The array: a running task by its own id, the pending rest. */
	j = must_find(&jobs, rel_id(rel, "array"));
	ck_assert_str_eq(j->state, "PENDING");
	ck_assert_ptr_nonnull(strstr(j->jobid, "_[2-3%1]"));
	slurm_jobs_free(&jobs);
	free(text);
}
END_TEST

/*
 * sqdeck's jobs (held, released at once) that ran and ended: 24.11 and
 * 26.05 may keep Reason JobHeldUser on the ended row, 22.05 says None.
 * Read the same on every release: no reason (tests/compat/run saw
 * "info: JobHeldUser" under a COMPLETED job on 24.11 only).
 */
/* 22.05's sqdeck jobs said None (its capture has no such file). */
static const char *const held_releases[] = { "slurm-24.11", "slurm-26.05" };

START_TEST(test_release_held_ended)
{
	const char		*rel = held_releases[_i];
	struct slurm_jobs	 jobs;
	char			*text, *cmd, *cause = NULL, *since, *ids, *c;
	long			 idv[16];
	size_t			 i, n = 0;

	text = slurp_rel(rel, "sacct_held_ended.txt", &cmd);
	since = strstr(cmd, " -S '");
	ids = strstr(cmd, " -j ");
	ck_assert_ptr_nonnull(since);
	ck_assert_ptr_nonnull(ids);
	since = xstrndup(since + 5, 10);
	for (c = ids + 4; *c != '\0'; c++) {
		idv[n++] = strtol(c, &c, 10);
		if (*c == '\0')
			break;
	}
	c = slurm_cmd_sacct(idv, n, since, NULL, NULL, NULL);
	ck_assert_str_eq(cmd, c);
	free(c);
	free(since);
	free(cmd);
	/* What the release printed. */
	ck_assert_ptr_nonnull(strstr(text, "\037JobHeldUser\037"));
	memset(&jobs, 0, sizeof jobs);
	ck_assert_msg(slurm_parse_sacct(text, NULL, &jobs, &cause) == 0,
	    "%s: %s", rel, cause);
	ck_assert_uint_eq(jobs.n, n);
	for (i = 0; i < jobs.n; i++) {
		ck_assert_msg(*jobs.v[i].start != '\0' &&
		    *jobs.v[i].end != '\0', "%s %ld", rel, jobs.v[i].id);
		ck_assert_msg(strcmp(jobs.v[i].reason, "None") == 0,
		    "%s %ld: %s", rel, jobs.v[i].id, jobs.v[i].reason);
	}
	slurm_jobs_free(&jobs);
	free(text);

	/* Not started (cancelled while held) or not ended: kept. */
	ck_assert_int_eq(slurm_parse_sacct("6\0376\037CANCELLED by 1001\037"
	    "0:0\037JobHeldUser\037None assigned\037cpu\03700:00:00\037"
	    "UNLIMITED\0371\0372026-12-02T01:59:19\037None\037"
	    "2026-12-02T02:01:11\037held\037\n"
	    "7\0377\037PENDING\0370:0\037Priority\037None assigned\037"
	    "gpu\03700:00:00\03704:00:00\0371\0372026-12-02T01:59:19\037"
	    "Unknown\037Unknown\037wait\037\n"
	    "8\0378\037FAILED\0371:0\037NodeDown\037sdn1\037gpu\037"
	    "00:00:03\03704:00:00\0371\0372026-12-02T01:59:19\037"
	    "2026-12-02T01:59:20\0372026-12-02T01:59:23\037nf\037\n",
	    NULL, &jobs, NULL), 0);
	ck_assert_str_eq(jobs.v[0].reason, "JobHeldUser");
	ck_assert_str_eq(jobs.v[1].reason, "Priority");
	ck_assert_str_eq(jobs.v[2].reason, "NodeDown");
	slurm_jobs_free(&jobs);
}
END_TEST

/* 22.05 (tests/data/slurm/): the same outcomes read the same. */
START_TEST(test_release_2205)
{
	struct slurm_jobs	 jobs;
	struct slurm_job	*j;
	struct state_map	 m;

	parse_file("sacct_batch.txt", 1, &jobs);
	j = must_find(&jobs, 28);		/* exit 3 */
	ck_assert_int_eq(j->exit_code, 3);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert_int_eq(j->exit_folded, 0);
	state_map(j->state, STATUS_MISSING, &m);
	ck_assert_int_eq(m.state, RSTATE_ERROR);
	j = must_find(&jobs, 25);		/* cancelled while running */
	state_map(j->state, STATUS_MISSING, &m);
	ck_assert_int_eq(m.state, RSTATE_CANCELED);
	j = must_find(&jobs, 27);		/* exit 0 */
	state_map(j->state, STATUS_PASS, &m);
	ck_assert_int_eq(m.state, RSTATE_COMPLETE);
	slurm_jobs_free(&jobs);
}
END_TEST

/* sinfo, the GRES of the nodes and scontrol show job of every outcome. */
START_TEST(test_release_sinfo_scontrol)
{
	const char		*rel = releases[_i];
	struct slurm_partitions	 parts;
	char			*text, *cmd, *want, *cause = NULL;

	text = slurp_rel(rel, "sinfo.txt", &cmd);
	want = slurm_cmd_sinfo();
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	memset(&parts, 0, sizeof parts);
	ck_assert_msg(slurm_parse_sinfo(text, &parts, &cause) == 0, "%s: %s",
	    rel, cause);
	/* The test cluster's partitions: cpu, and gpu (the default, 4 h). */
	ck_assert_int_eq(parts.n, 2);
	ck_assert_str_eq(parts.v[0].name, "cpu");
	ck_assert(!parts.v[0].is_default);
	ck_assert_str_eq(parts.v[1].name, "gpu");
	ck_assert(parts.v[1].is_default);
	ck_assert_int_eq(parts.v[1].max_minutes, 240);
	ck_assert_int_gt(parts.v[1].cpus, 0);
	slurm_partitions_free(&parts);
	free(text);

	text = slurp_rel(rel, "gres.txt", &cmd);
	want = gres_cmd();
	ck_assert_str_eq(cmd, want);
	free(want);
	free(cmd);
	free(text);
	text = NULL;

	/* The log paths, as joblog asks for them, of every plain outcome. */
	{
		static const char *const plain[] = { "pending", "running",
		    "cancelled", "completed", "failed", "exit9", "sigkill",
		    "sigkill_batch" };
		struct joblog	jl;
		char		name[64], id[32];
		size_t		k;

		for (k = 0; k < sizeof plain / sizeof plain[0]; k++) {
			snprintf(name, sizeof name, "joblog-%s.txt", plain[k]);
			snprintf(id, sizeof id, "%ld", rel_id(rel, plain[k]));
			free(text);
			text = slurp_rel(rel, name, &cmd);
			want = joblog_cmd(id, "\037", NULL);
			ck_assert_str_eq(cmd, want);
			free(want);
			free(cmd);
			ck_assert_msg(joblog_parse(text, "\037", &jl, &cause) == 0,
			    "%s %s: %s", rel, name, cause);
			ck_assert_str_eq(jl.job_id, id);
			ck_assert_ptr_null(jl.array_job);
			ck_assert_str_eq(jl.out, "/dev/null");
			/* 24.11 and 26.05 print "(null)": StdOut's file. */
			ck_assert_str_eq(jl.err, "/dev/null");
			ck_assert_str_eq(jl.user, "sqdeck");
			ck_assert_msg(strlen(jl.workdir) > 12 &&
			    strcmp(jl.workdir + strlen(jl.workdir) - 12,
			    "/home/sqdeck") == 0, "%s %s: %s", rel, name,
			    jl.workdir);
			joblog_free(&jl);
		}
	}
	free(text);

	/*
	 * joblog asks squeue -O (a job name cannot forge its fields, as it
	 * could scontrol's Key=Value line; joblog-*.txt above, on every
	 * release): the scontrol captures are kept for the stderr of a job
	 * SLURM no longer knows, the same words.
	 */
	text = slurp_rel(rel, "scontrol_gone.err", NULL);
	ck_assert_str_eq(text, "slurm_load_jobs error: Invalid job id "
	    "specified\n");
	free(text);
}
END_TEST

/* Every command clears its tool's output-changing variables first. */
START_TEST(test_cmd_env)
{
	static const char *const sq[] = { "SQUEUE_FORMAT", "SQUEUE_FORMAT2",
	    "SQUEUE_SORT", "SQUEUE_STATES", "SQUEUE_USERS",
	    "SQUEUE_PARTITION", "SLURM_TIME_FORMAT", NULL };
	static const char *const sa[] = { "SACCT_FORMAT", "SLURM_TIME_FORMAT",
	    NULL };
	const char *const	*v;
	long			 ids[] = { 5 };
	char			*cmd, *w;

	cmd = slurm_cmd_squeue(NULL, NULL);
	for (v = sq; *v != NULL; v++) {
		w = xasprintf(" -u %s ", *v);
		ck_assert_msg(strstr(cmd, w) != NULL, "%s: %s", cmd, w);
		free(w);
	}
	ck_assert(str_has_prefix(cmd, "env -u "));
	ck_assert_ptr_nonnull(strstr(cmd, " squeue --me -h -o '"));
	/* SLURM_CLUSTERS says where sbatch sent the job: kept. */
	ck_assert_ptr_null(strstr(cmd, "SLURM_CLUSTERS"));
	free(cmd);
	cmd = slurm_cmd_sacct(ids, 1, "2026-11-28", NULL, NULL, NULL);
	for (v = sa; *v != NULL; v++) {
		w = xasprintf(" -u %s ", *v);
		ck_assert_msg(strstr(cmd, w) != NULL, "%s: %s", cmd, w);
		free(w);
	}
	ck_assert(str_has_prefix(cmd, "env -u "));
	free(cmd);
	cmd = slurm_cmd_sinfo();
	ck_assert(str_has_prefix(cmd, "env -u "));
	ck_assert_ptr_nonnull(strstr(cmd, " -u SINFO_PARTITION "));
	free(cmd);
	cmd = gres_cmd();
	ck_assert(str_has_prefix(cmd, slurm_env_clean(SLURM_TOOL_SINFO)));
	free(cmd);
	cmd = joblog_cmd("12", "\037ab", NULL);
	ck_assert(str_has_prefix(cmd, slurm_env_clean(SLURM_TOOL_SQUEUE)));
	free(cmd);
	cmd = slurm_cmd_release(7, NULL);
	ck_assert(str_has_prefix(cmd, slurm_env_clean(SLURM_TOOL_SCONTROL)));
	free(cmd);
}
END_TEST

/*
 * A site's warnings between and around the rows (stderr read with
 * stdout) are notes, not rows, and not a failure; an error still is.
 */
START_TEST(test_warning_lines)
{
	struct slurm_jobs	 jobs;
	struct slurm_partitions	 parts;
	char			*text, *bad, *cause = NULL;

	text = slurp_rel("slurm-24.11", "squeue.txt", NULL);
	bad = xasprintf("squeue: warning: the slurmctld is busy\n%s"
	    "NOTE: sacct -X is deprecated\n\n  Warning: x\n", text);
	memset(&jobs, 0, sizeof jobs);
	ck_assert_msg(slurm_parse_squeue(bad, NULL, &jobs, &cause) == 0, "%s",
	    cause);
	ck_assert_int_eq(jobs.n, 4);
	ck_assert_str_eq(jobs.notes, "squeue: warning: the slurmctld is "
	    "busy\nNOTE: sacct -X is deprecated\nWarning: x");
	slurm_jobs_free(&jobs);
	ck_assert_ptr_null(jobs.notes);
	free(bad);
	/* Between two rows. */
	bad = xstrdup(text);
	{
		char	*nl = strchr(bad, '\n'), *m;

		*nl = '\0';
		m = xasprintf("%s\nsqueue: warning: x\n%s", bad, nl + 1);
		free(bad);
		bad = m;
	}
	ck_assert_int_eq(slurm_parse_squeue(bad, NULL, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.n, 4);
	ck_assert_str_eq(jobs.notes, "squeue: warning: x");
	slurm_jobs_free(&jobs);
	free(bad);
	/* An error is not a note. */
	bad = xasprintf("squeue: error: Invalid user\n%s", text);
	ck_assert_int_eq(slurm_parse_squeue(bad, NULL, &jobs, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "text between rows"));
	free(cause);
	cause = NULL;
	slurm_jobs_free(&jobs);
	free(bad);
	free(text);

	text = slurp_rel("slurm-26.05", "sacct.txt", NULL);
	bad = xasprintf("sacct: warning: Could not find partition foo\n%s"
	    "sacct: NOTE: x\n", text);
	ck_assert_int_eq(slurm_parse_sacct(bad, NULL, &jobs, NULL), 0);
	ck_assert_int_eq(jobs.n, 10);
	ck_assert_ptr_nonnull(jobs.notes);
	slurm_jobs_free(&jobs);
	free(bad);
	free(text);

	text = slurp_rel("slurm-26.05", "sinfo.txt", NULL);
	bad = xasprintf("sinfo: warning: x\n%s", text);
	memset(&parts, 0, sizeof parts);
	ck_assert_int_eq(slurm_parse_sinfo(bad, &parts, NULL), 0);
	ck_assert_int_eq(parts.n, 2);
	ck_assert_str_eq(parts.notes, "sinfo: warning: x");
	slurm_partitions_free(&parts);
	free(bad);
	free(text);

	ck_assert(slurm_line_is_note("NOTE: x", 7));
	ck_assert(slurm_line_is_note("scontrol: warning: x", 20));
	ck_assert(!slurm_line_is_note("squeue: error: x", 16));
	ck_assert(!slurm_line_is_note("12\037warning: x", 13));
	ck_assert(!slurm_line_is_note("a: b: warning: x", 16));
}
END_TEST

/* ExitCode: the pre-25.11 form on every release (slurm.h). */
START_TEST(test_exit_parse)
{
	static const struct {
		const char	*s;
		int		 code, sig, folded;
	} t[] = {
		{ "0:0", 0, 0, 0 }, { "3:0", 3, 0, 0 }, { "9:0", 9, 0, 0 },
		{ "137:0", 9, 0, 1 }, { "255:0", 127, 0, 1 },
		{ "128:0", 0, 0, 1 }, { "0:9", 0, 9, 0 }, { "0:15", 0, 15, 0 },
		{ "", -1, -1, 0 }, { "3", -1, -1, 0 }, { "x:0", -1, -1, 0 },
		{ "256:0", -1, -1, 0 }, { "1:-1", -1, -1, 0 },
	};
	size_t	i;
	int	code, sig, f;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		f = slurm_exit_parse(t[i].s, &code, &sig);
		ck_assert_msg(code == t[i].code && sig == t[i].sig &&
		    f == t[i].folded, "%s: %d:%d %d", t[i].s, code, sig, f);
	}
}
END_TEST

/* SLUIDs (26.05): a job id wherever one is parsed. */
START_TEST(test_sluid)
{
	struct jobid	 j;
	char		*cmd;

	ck_assert_int_eq(jobid_parse("sFMSM8SXV8E000", &j), JOBID_SLUID);
	ck_assert(jobid_slurm(&j));
	ck_assert_int_eq(jobid_parse("sfmsm8sxv8e000", &j), JOBID_SLUID);
	/* 12 or 14 characters, or a letter base32 leaves out: not one. */
	ck_assert_int_eq(jobid_parse("sFMSM8SXV8E00", &j), JOBID_RECORD);
	ck_assert_int_eq(jobid_parse("sFMSM8SXV8E0000", &j), JOBID_RECORD);
	ck_assert_int_eq(jobid_parse("sFMSM8SXV8EU00", &j), JOBID_RECORD);
	ck_assert_int_eq(jobid_parse("sd-20261129T1645", &j), JOBID_RECORD);
	ck_assert(!jobid_is_sluid(NULL));
	cmd = joblog_cmd("sFMSM8SXV8E000", "\037ab", NULL);
	ck_assert_ptr_nonnull(cmd);
	ck_assert_ptr_nonnull(strstr(cmd, "squeue -h -t all -j "
	    "'sFMSM8SXV8E000'"));
	free(cmd);
}
END_TEST

/* States a newer release prints: shown as they are, still queued. */
START_TEST(test_new_states)
{
	struct state_map	m;
	char			base[32];

	ck_assert_int_eq(state_map("RUNNING,EXPEDITING", STATUS_MISSING, &m),
	    0);
	ck_assert_int_eq(m.state, RSTATE_RUNNING);
	ck_assert_str_eq(slurm_state_base("PENDING,EXPEDITING", base,
	    sizeof base), "PENDING");
	state_map("EXPEDITING", STATUS_MISSING, &m);
	ck_assert_str_eq(m.native, "EXPEDITING");
	ck_assert(!m.terminal);
}
END_TEST

static Suite *
slurm_suite(void)
{
	Suite	*s = suite_create("slurm");
	TCase	*tc;

	tc = tcase_create("time");
	tcase_add_test(tc, test_time_parse);
	tcase_add_test(tc, test_time_format);
	tcase_add_test(tc, test_maxtime);
	tcase_add_test(tc, test_since);
	suite_add_tcase(s, tc);

	tc = tcase_create("squeue");
	tcase_add_test(tc, test_squeue_me);
	tcase_add_test(tc, test_squeue_name);
	tcase_add_test(tc, test_squeue_robust);
	tcase_add_test(tc, test_squeue_forged_row);
	tcase_add_test(tc, test_squeue_start);
	tcase_add_test(tc, test_squeue_resources_row);
	suite_add_tcase(s, tc);

	tc = tcase_create("sacct");
	tcase_add_test(tc, test_sacct_batch);
	tcase_add_test(tc, test_sacct_placeholder);
	tcase_add_test(tc, test_sacct_name);
	tcase_add_test(tc, test_sacct_robust);
	tcase_add_test(tc, test_state_base);
	suite_add_tcase(s, tc);

	tc = tcase_create("sinfo");
	tcase_add_test(tc, test_sinfo);
	tcase_add_test(tc, test_sinfo_merge);
	suite_add_tcase(s, tc);

	tc = tcase_create("replies");
	tcase_add_test(tc, test_sbatch_reply);
	tcase_add_test(tc, test_scancel_done);
	suite_add_tcase(s, tc);

	tc = tcase_create("nodelist");
	tcase_add_test(tc, test_nodelist);
	suite_add_tcase(s, tc);

	tc = tcase_create("commands");
	tcase_add_test(tc, test_cmd_squeue);
	tcase_add_test(tc, test_cmd_name_lookup);
	tcase_add_test(tc, test_cmd_sacct);
	tcase_add_test(tc, test_cmd_misc);
	tcase_add_test(tc, test_capture_fields);
	tcase_add_test(tc, test_cmd_env);
	suite_add_tcase(s, tc);

	tc = tcase_create("releases");
	/* Every release of releases[]: 2 left 26.05 out once 22.05 joined. */
	tcase_add_loop_test(tc, test_release_squeue, 0, NRELEASES);
	tcase_add_loop_test(tc, test_release_sacct, 0, NRELEASES);
	tcase_add_loop_test(tc, test_release_dependency, 0, NRELEASES);
	tcase_add_loop_test(tc, test_release_held_ended, 0, 2);
	tcase_add_loop_test(tc, test_release_sinfo_scontrol, 0, NRELEASES);
	tcase_add_test(tc, test_release_2205);
	tcase_add_test(tc, test_warning_lines);
	tcase_add_test(tc, test_exit_parse);
	tcase_add_test(tc, test_sluid);
	tcase_add_test(tc, test_new_states);
	suite_add_tcase(s, tc);

	return (s);
}

TEST_MAIN(slurm_suite)
