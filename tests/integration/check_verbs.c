/*
 * status, logs, cancel, jobs (issue 4) against the real local
 * cluster.  Needs the env of $SDTB_DIR/env.sh and SQDECK_BIN.  submit
 * does not exist yet, so the fixture launches jobs itself over the conn
 * layer, following the conventions of ops.h: a record, <job_dir>/logs,
 * sbatch --hold, mkdir of <log_dir>/<name>-<id>, release, an env sidecar.
 * Every job has a unique name and only those jobs are cancelled.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <signal.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "it-lib.h"

#include "config.h"
#include "conn.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"
#include "slurm.h"
#include "util.h"

static char	 tmproot[4096];

/* --- helpers ----------------------------------------------------------------
   */

static struct config	 cfg;

static struct cluster *
cluster(void)
{
	static struct cluster	*cl;
	char			*cause = NULL;

	if (cl != NULL)
		return cl;
	ck_assert_msg(getenv("SLURM_HOSTNAME") != NULL,
	    "source $SDTB_DIR/env.sh first (SLURM_HOSTNAME is not set)");
	ck_assert_msg(config_load(NULL, &cfg, &cause) == 0, "config: %s",
	    cause);
	cl = config_cluster(&cfg, NULL, &cause);
	ck_assert_msg(cl != NULL, "cluster: %s", cause);
	ck_assert_msg(cl->results_root != NULL,
	    "SLURM_BASE_RESULTS_DIR must be set (it is in env.sh)");
	return cl;
}

/* Run a command on the login node; must exit 0.  Returns stdout. */
static char *
remote(struct conn *c, const char *cmd, const char *in)
{
	struct conn_result	 res;
	char			*cause = NULL, *out;

	ck_assert_msg(conn_exec(c, cmd, in, in != NULL ? strlen(in) : 0, &res,
	    &cause) == 0, "%s: %s", cmd, cause);
	ck_assert_msg(res.status == 0, "%s: exit %d: %s", cmd, res.status,
	    res.err);
	out = xstrdup(res.out);
	conn_result_free(&res);
	return out;
}

static int
remote_exists(struct conn *c, const char *path)
{
	struct conn_result	 res;
	char			*cause = NULL, *q = shell_quote(path), *cmd;
	int			 st;

	cmd = xasprintf("test -e %s", q);
	ck_assert_msg(conn_exec(c, cmd, NULL, 0, &res, &cause) == 0, "%s",
	    cause);
	st = res.status;
	conn_result_free(&res);
	free(cmd);
	free(q);
	return st == 0;
}

static char *
unique(const char *tag)
{
	static unsigned	n;

	return xasprintf("sdv-%s-%ld-%u-%04x", tag, (long)getpid(), n++,
	    (unsigned)(time(NULL) & 0xffff));
}

struct job {
	char	*rid;		/* record id */
	char	*name;
	char	*job_dir;
	char	*sid;		/* SLURM id */
	long	 id;
};

static void
job_free(struct job *j)
{
	free(j->rid);
	free(j->name);
	free(j->job_dir);
	free(j->sid);
}

/*
 * Launch body as a batch job the way submit will: record first, then the
 * job dir, sidecar and script, sbatch --hold, the %x-%j log dir, release.
 * hold_only leaves it held (PENDING forever until cancelled).
 */
static void
launch(struct conn *c, const char *tag, const char *body, const char *extra,
    int hold_only, struct job *j)
{
	struct cluster	*cl = cluster();
	struct record	*r;
	char		*cause = NULL, *cmd, *q, *script, *path, *out, *msg;
	char		*logdir, *jld, *qr, *ql;
	enum slurm_submit st;

	memset(j, 0, sizeof *j);
	j->name = unique(tag);
	r = record_new(cl->name);
	r->job_name = xstrdup(j->name);
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	j->rid = xstrdup(r->id);
	j->job_dir = xasprintf("%s/verbs-test/%s", cl->results_root, r->id);
	ck_assert(record_set(j->rid, "job_dir", j->job_dir, &cause) == 0);
	ck_assert(record_set(j->rid, "partition", cl->partitions.v[0],
	    &cause) == 0);
	free(r->job_dir);
	r->job_dir = xstrdup(j->job_dir);
	logdir = ops_log_dir(r);

	/* Job dir, log dir, results dir, and a 600 sidecar through stdin. */
	path = ops_env_path(r);
	q = shell_quote(j->job_dir);
	qr = shell_quote(path);
	cmd = xasprintf("mkdir -p %s/logs %s/results && umask 077 && "
	    "cat > %s", q, q, qr);
	free(remote(c, cmd, "SDV_SECRET=canary-not-a-real-secret\n"));
	free(cmd);
	free(q);
	free(qr);
	ck_assert(remote_exists(c, path));
	free(path);

	script = xasprintf("#!/bin/bash\n"
	    "#SBATCH --partition=%s\n"
	    "#SBATCH --time=0:10:00\n"
	    "#SBATCH --output=%s/%%x-%%j/main.out\n"
	    "#SBATCH --error=%s/%%x-%%j/main.err\n"
	    "%s\n"
	    "SDV_RESULTS=%s/results\n"
	    "SDV_LOG=%s/\"$SLURM_JOB_NAME-$SLURM_JOB_ID\"/main.out\n"
	    "%s\n", cl->partitions.v[0], logdir, logdir,
	    extra != NULL ? extra : "", (qr = shell_quote(j->job_dir)),
	    (ql = shell_quote(logdir)), body);
	free(qr);
	free(ql);
	path = xasprintf("%s/job.sbatch", j->job_dir);
	q = shell_quote(path);
	cmd = xasprintf("cat > %s", q);
	free(remote(c, cmd, script));
	free(cmd);
	free(q);
	free(script);

	cmd = slurm_cmd_sbatch(path, j->name, 1, &cause);
	ck_assert_msg(cmd != NULL, "%s", cause);
	out = remote(c, cmd, NULL);
	st = slurm_parse_sbatch(out, "", &j->id, &msg);
	ck_assert_msg(st == SLURM_SUBMIT_OK, "sbatch: %s", msg);
	free(out);
	free(cmd);
	free(path);
	j->sid = xasprintf("%ld", j->id);
	ck_assert(record_set_slurm_id(j->rid, j->sid, &cause) == 0);
	ck_assert(record_transition(j->rid, RSTATE_RUNNING, "", "submit",
	    "sbatch --hold, released", &cause) == 0);

	/* SLURM does not create %x-%j: do it before the job can start. */
	jld = ops_job_log_dir_for(logdir, j->name, j->sid);
	q = shell_quote(jld);
	cmd = hold_only ? xasprintf("mkdir -p %s", q) :
	    xasprintf("mkdir -p %s && scontrol release %ld", q, j->id);
	free(remote(c, cmd, NULL));
	free(cmd);
	free(q);
	free(jld);
	free(logdir);
	record_free(r);
}

static struct record *
load(const char *rid)
{
	struct record	*r;
	char		*cause = NULL;

	ck_assert_msg(record_load(rid, &r, &cause) == 0, "%s", cause);
	return r;
}

/* Poll (the product's own monitor) until the record is terminal. */
static struct record *
wait_terminal(struct conn *c, const char *rid, int secs)
{
	struct monitor_snapshot	 snap;
	struct record		*r;
	char			*cause = NULL;
	int			 i;

	for (i = 0; i < secs; i++) {
		ck_assert_msg(monitor_poll(c, cluster()->name, NULL, &snap,
		    &cause) == 0, "poll: %s", cause);
		monitor_snapshot_free(&snap);
		r = load(rid);
		if (state_terminal(r->state))
			return r;
		record_free(r);
		sleep(1);
	}
	ck_abort_msg("record %s not terminal after %d s", rid, secs);
	return NULL;
}

static void
wait_state(struct conn *c, const char *rid, enum rstate want, int secs)
{
	struct monitor_snapshot	 snap;
	struct record		*r;
	char			*cause = NULL;
	int			 i;

	for (i = 0; i < secs; i++) {
		ck_assert_msg(monitor_poll(c, cluster()->name, NULL, &snap,
		    &cause) == 0, "poll: %s", cause);
		monitor_snapshot_free(&snap);
		r = load(rid);
		if (r->state == want) {
			record_free(r);
			return;
		}
		record_free(r);
		sleep(1);
	}
	ck_abort_msg("record %s never reached %s", rid, state_name(want));
}

/* Run the sqdeck binary; stdout and stderr captured. */
static int
run(char **out, char **err, const char *fmt, ...)
{
	const char	*bin = getenv("SQDECK_BIN");
	va_list		 ap;
	char		*args, *cmd, *errpath, *qbin;
	int		 st;

	ck_assert_msg(bin != NULL, "SQDECK_BIN is not set");
	va_start(ap, fmt);
	args = xvasprintf(fmt, ap);
	va_end(ap);
	errpath = xasprintf("%s/stderr.%ld", tmproot, (long)getpid());
	qbin = shell_quote(bin);
	cmd = xasprintf("%s %s 2>%s", qbin, args, errpath);
	st = it_sh(cmd, out);
	if (err != NULL) {
		if (file_read(errpath, err, NULL, NULL) != 0)
			*err = xstrdup("");
	}
	unlink(errpath);
	free(errpath);
	free(qbin);
	free(cmd);
	free(args);
	return st;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t	n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static const struct record_event *
event_from(const struct record *r, const char *source)
{
	size_t	i;

	for (i = r->nhistory; i > 0; i--) {
		if (strcmp(r->history[i - 1].source, source) == 0)
			return &r->history[i - 1];
	}
	return NULL;
}

/* --- pure parts -------------------------------------------------------------
   */

START_TEST(test_conventions)
{
	struct record	*r = record_new("c1");
	char		*s;

	r->id = xstrdup("sd-1");
	ck_assert_ptr_null(ops_log_path(r, 0));	/* no job_dir */
	r->job_dir = xstrdup("/lustre/u/j");
	r->job_name = xstrdup("train");
	ck_assert_ptr_null(ops_log_path(r, 0));	/* no SLURM id yet */
	strv_add(&r->slurm_ids, "77");
	s = ops_log_path(r, 0);
	ck_assert_str_eq(s, "/lustre/u/j/logs/train-77/main.out");
	free(s);
	s = ops_log_path(r, 1);
	ck_assert_str_eq(s, "/lustre/u/j/logs/train-77/main.err");
	free(s);
	s = ops_env_path(r);
	ck_assert_str_eq(s, "/lustre/u/j/job_sd-1.env");
	free(s);
	s = ops_status_path(r);
	ck_assert_str_eq(s, "/lustre/u/j/results/status.json");
	free(s);
	r->log_dir = xstrdup("/elsewhere");
	s = ops_job_log_dir(r);
	ck_assert_str_eq(s, "/elsewhere/train-77");
	free(s);
	record_free(r);
}
END_TEST

START_TEST(test_sanitize)
{
	char	*s;
	size_t	 len;

	static const char in[] =
	    "a\033[31mb\tc\r\nd\re\0f\xc2\x9bg\xc3\xa9";

	s = ops_sanitize(in, sizeof in - 1, &len);
	ck_assert_str_eq(s, "ab\tc\nd\ne\xef\xbf\xbd" "f\xef\xbf\xbd" "g\xc3\xa9");
	ck_assert_uint_eq(len, strlen(s));
	free(s);
	s = ops_clean("x\ny\tz\a");
	ck_assert_str_eq(s, "x y     z\xef\xbf\xbd");
	free(s);
	s = ops_clean("");
	ck_assert_str_eq(s, "-");
	free(s);
}
END_TEST

START_TEST(test_reply_sections)
{
	struct remote_reply		 rep;
	const struct remote_section	*s;
	/* A log line that looks like a marker with another nonce is data. */
	const char	text[] = "\nSDMab squeue 0\nrow1\nrow2"
	    "\nSDMab out 42\nSDMzz end 0\nfake\n"
	    "\nSDMab status 42\n{\"status\":\"SUCCESS\"}\n"
	    "\nSDMab end 0\n";
	char		*cause = NULL;

	ck_assert_int_eq(remote_reply_parse(text, sizeof text - 1, "SDMab",
	    "the poll", &rep, &cause), 0);
	ck_assert_int_eq(rep.complete, 1);
	ck_assert_uint_eq(rep.n, 4);
	s = remote_reply_find(&rep, "squeue", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->arg, "0");
	ck_assert_int_eq((int)s->len, 9);
	ck_assert(memcmp(s->data, "row1\nrow2", 9) == 0);
	s = remote_reply_find(&rep, "out", "42");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq((int)s->len, (int)strlen("SDMzz end 0\nfake\n"));
	s = remote_reply_find(&rep, "status", "42");
	ck_assert_int_eq(state_status_verdict(s->data, s->len), STATUS_PASS);
	remote_reply_free(&rep);

	/* Cut short: no end section. */
	ck_assert_int_eq(remote_reply_parse("\nSDMab squeue 0\n", 16,
	    "SDMab", "the poll", &rep, &cause), 0);
	ck_assert_int_eq(rep.complete, 0);
	remote_reply_free(&rep);
	ck_assert_int_eq(remote_reply_parse("Welcome!\n", 9, "SDMab",
	    "the poll", &rep, &cause), -1);
	ck_assert_msg(strstr(cause, "the poll script printed none") != NULL,
	    "%s", cause);
	free(cause);
}
END_TEST

START_TEST(test_bad_args)
{
	char	*out, *err;

	ck_assert_int_eq(run(&out, &err, "status --watch --interval x"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--interval"));
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "status --interval 3"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "status a b"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "status sd-nosuch-record"), 2);
	ck_assert_ptr_nonnull(strstr(err, "sd-nosuch-record"));
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "logs"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "logs x/../y"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "logs -n -3 sd-x"), 2);
	free(out); free(err);
	/* Asked of the cluster (a job of another tool has no record): 1. */
	ck_assert_int_eq(run(&out, &err, "logs 99999997"), 1);
	ck_assert_ptr_nonnull(strstr(err, "no sqdeck record"));
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "cancel"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "cancel 0"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "cancel sd-nosuch"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "jobs extra"), 2);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "jobs --bogus"), 2);
	free(out); free(err);
}
END_TEST

/* --- against the cluster
   ------------------------------------------------------ */

START_TEST(test_log_read_offsets)
{
	struct conn	*c = conn_new_cluster(cluster());
	struct ops_log	 log;
	char		*cause = NULL, *dir, *path, *q, *cmd;

	dir = xasprintf("%s/verbs-test/logread-%ld", cluster()->results_root,
	    (long)getpid());
	path = xasprintf("%s/main.out", dir);
	q = shell_quote(dir);
	cmd = xasprintf("rm -rf %s && mkdir -p %s", q, q);
	free(remote(c, cmd, NULL));
	free(cmd);
	free(q);
	q = shell_quote(path);

	/* Not there yet: "waiting for log", not an error. */
	ck_assert_int_eq(ops_log_read(c, path, 0, 1024, &log, &cause), 0);
	ck_assert_int_eq(log.missing, 1);
	ops_log_free(&log);

	cmd = xasprintf("printf 'abc' > %s", q);
	free(remote(c, cmd, NULL));
	free(cmd);
	ck_assert_int_eq(ops_log_read(c, path, 0, 1024, &log, &cause), 0);
	ck_assert_int_eq(log.missing, 0);
	ck_assert_uint_eq(log.len, 3);
	ck_assert_str_eq(log.data, "abc");
	ck_assert_int_eq((int)log.next, 3);
	ops_log_free(&log);

	/* Only the new bytes come back. */
	cmd = xasprintf("printf 'defg\\n' >> %s", q);
	free(remote(c, cmd, NULL));
	free(cmd);
	ck_assert_int_eq(ops_log_read(c, path, 3, 1024, &log, &cause), 0);
	ck_assert_uint_eq(log.len, 5);
	ck_assert_str_eq(log.data, "defg\n");
	ck_assert_int_eq((int)log.offset, 3);
	ck_assert_int_eq((int)log.next, 8);
	ck_assert_int_eq(log.truncated, 0);
	ops_log_free(&log);
	ck_assert_int_eq(ops_log_read(c, path, 8, 1024, &log, &cause), 0);
	ck_assert_uint_eq(log.len, 0);
	ck_assert_int_eq((int)log.size, 8);
	ops_log_free(&log);

	/* max caps one read; the next read goes on from there. */
	ck_assert_int_eq(ops_log_read(c, path, 1, 2, &log, &cause), 0);
	ck_assert_str_eq(log.data, "bc");
	ck_assert_int_eq((int)log.next, 3);
	ops_log_free(&log);

	/* Truncated below the offset: from 0 again, and said so. */
	cmd = xasprintf("printf 'xy' > %s", q);
	free(remote(c, cmd, NULL));
	free(cmd);
	ck_assert_int_eq(ops_log_read(c, path, 8, 1024, &log, &cause), 0);
	ck_assert_int_eq(log.truncated, 1);
	ck_assert_int_eq((int)log.offset, 0);
	ck_assert_str_eq(log.data, "xy");
	ck_assert_int_eq((int)log.next, 2);
	ops_log_free(&log);

	/* tail -n, and next is the size so a follow goes on from there. */
	cmd = xasprintf("printf '1\\n2\\n3\\n4\\n' > %s", q);
	free(remote(c, cmd, NULL));
	free(cmd);
	ck_assert_int_eq(ops_log_tail(c, path, 2, &log, &cause), 0);
	ck_assert_str_eq(log.data, "3\n4\n");
	ck_assert_int_eq((int)log.next, 8);
	ck_assert_int_eq((int)log.offset, 4);
	ops_log_free(&log);

	/* A path with a quote and a space is quoted, not executed. */
	free(path);
	path = xasprintf("%s/it's a log; touch %s/pwned", dir, dir);
	ck_assert_int_eq(ops_log_read(c, path, 0, 16, &log, &cause), 0);
	ck_assert_int_eq(log.missing, 1);
	ops_log_free(&log);
	free(path);
	path = xasprintf("%s/pwned", dir);
	ck_assert(!remote_exists(c, path));

	free(q);
	q = shell_quote(dir);
	cmd = xasprintf("rm -rf %s", q);
	free(remote(c, cmd, NULL));
	free(cmd);
	free(q);
	free(path);
	free(dir);
	conn_free(c);
}
END_TEST

START_TEST(test_complete_and_logs)
{
	struct conn	*c = conn_new_cluster(cluster());
	struct record	*r;
	struct job	 j;
	const struct record_event *e;
	char		*out, *err, *env, *want;
	cJSON		*doc, *jobs, *item, *st;
	int		 found = 0, i;

	launch(c, "ok", "echo \"hello from $SLURM_JOB_ID\"\n"
	    "for i in 1 2 3; do echo \"line $i\"; done\n"
	    "echo 'to stderr' >&2\n"
	    "printf '{\"status\": \"SUCCESS\"}\\n' > "
	    "\"$SDV_RESULTS/status.json\"", NULL, 0, &j);
	r = wait_terminal(c, j.rid, 90);
	ck_assert_msg(r->state == RSTATE_COMPLETE, "state %s (%s)",
	    state_name(r->state), r->native);
	ck_assert_str_eq(r->native, "COMPLETED");
	e = event_from(r, "poll");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e->message, "status.json: pass"));
	/* Terminal: the poll wiped the secrets sidecar. */
	env = ops_env_path(r);
	ck_assert(!remote_exists(c, env));
	free(env);
	record_free(r);

	/* logs by record id and by SLURM id: main.out, then main.err. */
	want = xasprintf("hello from %s\nline 1\nline 2\nline 3\n", j.sid);
	ck_assert_int_eq(run(&out, &err, "logs %s", j.rid), 0);
	ck_assert_str_eq(out, want);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "logs -n 2 %s", j.sid), 0);
	ck_assert_str_eq(out, "line 2\nline 3\n");
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "logs --err %s", j.sid), 0);
	ck_assert_str_eq(out, "to stderr\n");
	free(out); free(err);
	/* --follow of an ended job: the tail, then it stops by itself. */
	ck_assert_int_eq(run(&out, &err, "logs --follow %s", j.rid), 0);
	ck_assert_str_eq(out, want);
	free(out); free(err);
	free(want);

	/* status --json parses and says COMPLETED with SLURM's view. */
	ck_assert_int_eq(run(&out, &err, "status --json %s", j.rid), 0);
	doc = cJSON_Parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(doc, "ok")));
	jobs = cJSON_GetObjectItem(doc, "jobs");
	ck_assert_int_eq(cJSON_GetArraySize(jobs), 1);
	item = cJSON_GetArrayItem(jobs, 0);
	ck_assert_str_eq(cJSON_GetObjectItem(item, "state")->valuestring,
	    "COMPLETED");
	cJSON_Delete(doc);
	free(out); free(err);
	/* Without ID: every tracked job of the cluster, this one among them. */
	ck_assert_int_eq(run(&out, &err, "status --json"), 0);
	doc = cJSON_Parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	jobs = cJSON_GetObjectItem(doc, "jobs");
	for (i = 0; i < cJSON_GetArraySize(jobs); i++) {
		item = cJSON_GetArrayItem(jobs, i);
		if (strcmp(cJSON_GetObjectItem(item, "record_id")->
		    valuestring, j.rid) == 0) {
			found = 1;
			st = cJSON_GetObjectItem(item, "queue");
			ck_assert_ptr_nonnull(st);
			ck_assert_str_eq(cJSON_GetObjectItem(st,
			    "slurm_state")->valuestring, "COMPLETED");
		}
	}
	ck_assert(found);
	cJSON_Delete(doc);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "status"), 0);
	ck_assert_ptr_nonnull(strstr(out, j.rid));
	free(out); free(err);

	/* Cancel of a finished job succeeds and leaves COMPLETE alone. */
	ck_assert_int_eq(run(&out, &err, "cancel %s", j.rid), 0);
	ck_assert_ptr_nonnull(strstr(out, "already ended"));
	free(out); free(err);
	r = load(j.rid);
	ck_assert_int_eq(r->state, RSTATE_COMPLETE);
	record_free(r);
	job_free(&j);
	conn_free(c);
}
END_TEST

START_TEST(test_error_program)
{
	struct conn	*c = conn_new_cluster(cluster());
	struct record	*r;
	struct job	 j;
	char		*env, *out, *err;

	launch(c, "fail", "sleep 2\necho 'about to fail'\nexit 1", NULL, 0,
	    &j);
	/* --watch with an ID polls until the job ends (sqdeck(1): status),
	   then stops. */
	ck_assert_int_eq(run(&out, &err, "status --watch --interval 1 %s",
	    j.rid), 0);
	ck_assert_msg(count(out, "-- polled") >= 2, "%s", out);
	/* One vocabulary (issue 18): SLURM's word, the class beside it. */
	ck_assert_msg(strstr(out, "state:    FAILED/PROGRAM\n") != NULL, "%s",
	    out);
	ck_assert_ptr_nonnull(strstr(out, "error:    PROGRAM (rule exit-code)"));
	ck_assert_msg(strstr(out, "evidence: last lines: ") != NULL &&
	    strstr(out, "about to fail") != NULL, "%s", out);
	free(out);
	free(err);
	r = load(j.rid);
	ck_assert_msg(r->state == RSTATE_ERROR, "state %s",
	    state_name(r->state));
	ck_assert_str_eq(r->native, "FAILED");
	ck_assert_msg(r->err_class == ERR_PROGRAM, "class %s rule %s",
	    err_class_name(r->err_class), r->err_rule);
	ck_assert_str_eq(r->err_rule, "exit-code");
	/* No line decided: the evidence is the log's last lines. */
	ck_assert_msg(r->err_evidence != NULL && strstr(r->err_evidence,
	    "last lines: ") == r->err_evidence && strstr(r->err_evidence,
	    "about to fail") != NULL, "evidence %s", r->err_evidence);
	ck_assert_ptr_nonnull(strstr(event_from(r, "poll")->message,
	    "exit 1:0"));
	env = ops_env_path(r);
	ck_assert(!remote_exists(c, env));
	free(env);
	record_free(r);
	job_free(&j);
	conn_free(c);
}
END_TEST

START_TEST(test_cancel_sleeping)
{
	struct conn	*c = conn_new_cluster(cluster());
	struct record	*r;
	struct job	 j;
	const struct record_event *e;
	char		*out, *err, *env, *uid, *cmd, *want, *since;
	char		*fpath, *cause = NULL;
	char		 day[16];
	pid_t		 pid;
	int		 i, st, ok = 0;

	launch(c, "sleep", "echo sleeping\nsleep 300", NULL, 0, &j);
	wait_state(c, j.rid, RSTATE_RUNNING, 60);
	r = load(j.rid);
	ck_assert_str_eq(r->native, "RUNNING");
	env = ops_env_path(r);
	ck_assert(remote_exists(c, env));	/* live: the job may need it */
	record_free(r);

	/* logs --follow of a live job runs until Ctrl-C, then exits 0. */
	fpath = xasprintf("%s/follow.%ld", tmproot, (long)getpid());
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		if (freopen(fpath, "w", stdout) == NULL ||
		    freopen("/dev/null", "w", stderr) == NULL)
			_exit(126);
		execl(getenv("SQDECK_BIN"), "sqdeck", "logs", "--follow",
		    "--interval", "1", j.rid, (char *)NULL);
		_exit(127);
	}
	sleep(4);
	kill(pid, SIGINT);
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(100000);
	}
	ck_assert_msg(i < 100, "logs --follow ignored SIGINT");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(file_read(fpath, &out, NULL, &cause), 0);
	ck_assert_str_eq(out, "sleeping\n");
	free(out);
	unlink(fpath);
	free(fpath);

	ck_assert_int_eq(run(&out, &err, "cancel %s", j.sid), 0);
	ck_assert_msg(strstr(out, "cancelled SLURM job") != NULL, "%s", out);
	free(out); free(err);
	r = load(j.rid);
	ck_assert_int_eq(r->state, RSTATE_CANCELED);
	e = event_from(r, "cancel:cli");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->native, "CANCELLED");
	record_free(r);
	ck_assert(!remote_exists(c, env));
	free(env);

	/* SLURM's own word: "CANCELLED by <uid>" (sacct lags a little). */
	uid = remote(c, "id -u", NULL);
	str_trim(uid);
	want = xasprintf("CANCELLED by %s", uid);
	slurm_since(time(NULL), day, sizeof day);
	since = shell_quote(day);
	cmd = xasprintf("sacct -X -n -S %s -j %ld -o State%%30", since, j.id);
	for (i = 0; i < 30 && !ok; i++) {
		out = remote(c, cmd, NULL);
		ok = strstr(out, want) != NULL;
		free(out);
		if (!ok)
			sleep(1);
	}
	ck_assert_msg(ok, "sacct never said '%s'", want);
	free(cmd); free(since); free(want); free(uid);

	/* A poll afterwards leaves the cancelled record alone. */
	r = wait_terminal(c, j.rid, 5);
	ck_assert_int_eq(r->state, RSTATE_CANCELED);
	ck_assert_ptr_null(event_from(r, "poll") != NULL &&
	    event_from(r, "poll")->state == RSTATE_CANCELED ? "" : NULL);
	record_free(r);

	/* Again: the job has ended, which counts as a successful cancel. */
	ck_assert_int_eq(run(&out, &err, "cancel %s", j.rid), 0);
	ck_assert_ptr_nonnull(strstr(out, "already ended"));
	free(out); free(err);
	job_free(&j);
	conn_free(c);
}
END_TEST

START_TEST(test_follow)
{
	struct conn	*c = conn_new_cluster(cluster());
	struct record	*r;
	struct job	 j;
	struct buf	 b;
	char		*out, *err, *body, line[64];
	int		 i;

	/*
	 * --open-mode=append so that the job's own truncation of its log
	 * leaves no hole.  The first part is longer than what follows the
	 * truncation, so the reader sees the file shrink.
	 */
	buf_init(&b);
	buf_adds(&b, "sleep 3\n");
	buf_adds(&b, "for i in $(seq 1 40); do echo \"before $i "
	    "..................................\"; done\n");
	buf_adds(&b, "sleep 4\n: > \"$SDV_LOG\"\necho after-1\nsleep 4\n");
	buf_adds(&b, "for i in 2 3 4; do echo \"after-$i\"; sleep 1; done\n");
	buf_adds(&b, "printf '{\"status\": \"SUCCESS\"}\\n' > "
	    "\"$SDV_RESULTS/status.json\"\n");
	body = buf_steal(&b);
	launch(c, "follow", body, "#SBATCH --open-mode=append", 0, &j);
	free(body);

	/* Started at once: the log may not exist yet. */
	ck_assert_int_eq(run(&out, &err, "logs --follow --interval 1 -n 0 %s",
	    j.rid), 0);
	for (i = 1; i <= 40; i++) {
		snprintf(line, sizeof line, "before %d ....", i);
		ck_assert_msg(count(out, line) == 1, "'%s' %zu times in:\n%s",
		    line, count(out, line), out);
	}
	for (i = 1; i <= 4; i++) {
		snprintf(line, sizeof line, "after-%d\n", i);
		ck_assert_msg(count(out, line) == 1, "'%s' %zu times in:\n%s",
		    line, count(out, line), out);
	}
	/* In order, nothing twice: exactly the bytes, each read once. */
	buf_init(&b);
	for (i = 1; i <= 40; i++)
		buf_printf(&b, "before %d ..................................\n",
		    i);
	for (i = 1; i <= 4; i++)
		buf_printf(&b, "after-%d\n", i);
	ck_assert_str_eq(out, b.data);
	buf_free(&b);
	ck_assert_msg(strstr(err, "truncated") != NULL, "stderr: %s", err);
	ck_assert_ptr_nonnull(strstr(err, "job ended"));
	free(out); free(err);
	r = load(j.rid);
	ck_assert_int_eq(r->state, RSTATE_COMPLETE);
	record_free(r);
	job_free(&j);
	conn_free(c);
}
END_TEST

/* Both in sacct with a settled state: then they have left the queue. */
static void
wait_sacct(struct conn *c, long a, long b)
{
	char	*cmd, *out, day[16], sep[32], *cause = NULL;
	long	 ids[2] = { a, b };
	int	 i;

	/*
	 * The poll's own sacct query: with -u, slurmdbd lists a job a
	 * second or two later than without (measured here), and a poll
	 * that meets a job in neither squeue nor sacct rightly waits.
	 */
	slurm_since(time(NULL), day, sizeof day);
	slurm_sep_new(sep, sizeof sep);
	cmd = slurm_cmd_sacct(ids, 2, day, NULL, sep, &cause);
	ck_assert_msg(cmd != NULL, "%s", cause);
	for (i = 0; i < 60; i++) {
		out = remote(c, cmd, NULL);
		if (count(out, "COMPLETED") + count(out, "FAILED") == 2) {
			free(out);
			break;
		}
		free(out);
		sleep(1);
	}
	ck_assert_msg(i < 60, "jobs %ld %ld never ended in sacct", a, b);
	free(cmd);
	/*
	 * sacct settles before squeue lets go: a job can stay COMPLETING
	 * for seconds (the Pyxis/Enroot epilog), and the poll rightly keeps
	 * a listed job live.  Wait until squeue no longer lists either.
	 */
	cmd = xasprintf("squeue -h -j %ld,%ld -o %%i 2>/dev/null | "
	    "grep . || true", a, b);
	for (i = 0; i < 60; i++) {
		out = remote(c, cmd, NULL);
		if (out == NULL || *out == '\0') {
			free(out);
			break;
		}
		free(out);
		sleep(1);
	}
	ck_assert_msg(i < 60, "jobs %ld %ld stayed in squeue", a, b);
	free(cmd);
}

/*
 * An answer the same as the last poll's is not parsed and gives no rows
 * (issue 25: 32 idle clusters parsed and sent all their rows every 5 s);
 * a change of the records it depends on is parsed again.  squeue -u root:
 * a queue nobody else's test moves (this user's jobs tick each second).
 */
START_TEST(test_poll_unchanged_not_parsed)
{
	struct conn		*c = conn_new_cluster(cluster());
	struct monitor_snapshot	 snap;
	struct monitor_opts	 opts;
	struct record		*r;
	char			*cause = NULL, *dir;
	unsigned long		 parses;
	uint64_t		 digest = 0;

	dir = xasprintf("%s/unchanged", tmproot);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	setenv("XDG_STATE_HOME", dir, 1);
	memset(&opts, 0, sizeof opts);
	opts.user = "root";
	opts.index = record_index_new();
	opts.digest = &digest;

	parses = monitor_parses_here();
	ck_assert_msg(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause) == 0, "poll: %s", cause);
	ck_assert_int_eq(snap.unchanged, 0);
	ck_assert_uint_eq(monitor_parses_here(), parses + 1);
	ck_assert(digest != 0);
	monitor_snapshot_free(&snap);

	/* The same answer: no parse, no rows, ok. */
	ck_assert_msg(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause) == 0, "poll: %s", cause);
	ck_assert_int_eq(snap.unchanged, 1);
	ck_assert_int_eq(snap.ok, 1);
	ck_assert_uint_eq(snap.n, 0);
	ck_assert_uint_eq(monitor_parses_here(), parses + 1);
	monitor_snapshot_free(&snap);

	/* A new record of the cluster: the same bytes, but parsed. */
	r = record_new(cluster()->name);
	r->job_name = xstrdup("unchanged-rec");
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	record_free(r);
	ck_assert_msg(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause) == 0, "poll: %s", cause);
	ck_assert_int_eq(snap.unchanged, 0);
	ck_assert_uint_eq(monitor_parses_here(), parses + 2);
	monitor_snapshot_free(&snap);

	record_index_free(opts.index);
	conn_free(c);
	free(dir);
}
END_TEST

START_TEST(test_poll_round_trips)
{
	struct conn		*c = conn_new_cluster(cluster());
	struct conn_stats	 before, after;
	struct monitor_snapshot	 snap;
	struct monitor_opts	 opts;
	struct ops_cancel	 oc;
	struct record		*r;
	struct job		 ok, bad, held;
	char			*cause = NULL, *env, *out, *err;
	size_t			 i, rows = 0;
	cJSON			*doc, *jobs, *item, *rec;
	int			 seen = 0;

	launch(c, "rt-ok", "echo fine\nprintf '{\"exit_code\": 0}\\n' > "
	    "\"$SDV_RESULTS/status.json\"", NULL, 0, &ok);
	launch(c, "rt-bad", "echo 'Traceback (most recent call last):'\n"
	    "echo 'ValueError: bad learning rate'\nexit 2", NULL, 0, &bad);
	launch(c, "rt-held", "sleep 1", NULL, 1, &held);
	wait_sacct(c, ok.id, bad.id);

	/* ONE poll: squeue, sacct, status.json, log tails, wipes. */
	conn_get_stats(c, &before);
	memset(&opts, 0, sizeof opts);
	ck_assert_msg(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause) == 0, "%s", cause);
	conn_get_stats(c, &after);
	ck_assert_msg(after.channels - before.channels <= 2,
	    "%u remote commands for one poll",
	    after.channels - before.channels);
	ck_assert_uint_eq(snap.commands, 1);
	ck_assert_uint_ge(snap.tracked, 3);
	ck_assert_ptr_null(snap.error);
	for (i = 0; i < snap.n; i++) {
		if (snap.info[i].record_id == NULL)
			continue;
		if (strcmp(snap.info[i].record_id, held.rid) == 0) {
			ck_assert_str_eq(snap.rows[i].state, "PENDING");
			ck_assert_str_eq(snap.rows[i].name, held.name);
			rows++;
		}
		if (strcmp(snap.info[i].record_id, ok.rid) == 0 ||
		    strcmp(snap.info[i].record_id, bad.rid) == 0) {
			ck_assert_msg(snap.info[i].changed == 1,
			    "%s did not change: row %s, record %s (events: %s)",
			    snap.info[i].record_id, snap.rows[i].state,
			    state_word(snap.info[i].state),
			    snap.events.n > 0 ? snap.events.v[0] : "none");
			ck_assert_int_eq(snap.info[i].wiped, 1);
			ck_assert_int_eq(snap.rows[i].finished, 1);
			rows++;
		}
	}
	ck_assert_uint_eq(rows, 3);
	monitor_snapshot_free(&snap);

	r = load(ok.rid);
	ck_assert_int_eq(r->state, RSTATE_COMPLETE);
	env = ops_env_path(r);
	ck_assert(!remote_exists(c, env));
	free(env);
	record_free(r);
	r = load(bad.rid);
	ck_assert_int_eq(r->state, RSTATE_ERROR);
	ck_assert_int_eq(r->err_class, ERR_PROGRAM);
	/* Triage read the log tail in the same round trip. */
	ck_assert_str_eq(r->err_rule, "python-exception");
	/* ... and the record quotes the line it decided on (issue 16). */
	ck_assert_str_eq(r->err_evidence, "ValueError: bad learning rate");
	record_free(r);
	r = load(held.rid);
	ck_assert_int_eq(r->state, RSTATE_PENDING);
	ck_assert_str_eq(r->native, "PENDING");
	env = ops_env_path(r);
	ck_assert(remote_exists(c, env));
	free(env);
	record_free(r);

	/* A second poll changes nothing: no duplicate history. */
	r = load(ok.rid);
	i = r->nhistory;
	record_free(r);
	ck_assert_int_eq(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause), 0);
	ck_assert_uint_eq(snap.events.n, 0);
	monitor_snapshot_free(&snap);
	r = load(ok.rid);
	ck_assert_uint_eq(r->nhistory, i);
	record_free(r);

	/* jobs: the live queue with the record, as JSON. */
	ck_assert_int_eq(run(&out, &err, "jobs --json"), 0);
	doc = cJSON_Parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	jobs = cJSON_GetObjectItem(doc, "jobs");
	for (i = 0; i < (size_t)cJSON_GetArraySize(jobs); i++) {
		item = cJSON_GetArrayItem(jobs, (int)i);
		rec = cJSON_GetObjectItem(item, "record_id");
		if (cJSON_IsString(rec) && strcmp(rec->valuestring,
		    held.rid) == 0) {
			seen = 1;
			ck_assert_str_eq(cJSON_GetObjectItem(item,
			    "job_id")->valuestring, held.sid);
			ck_assert_str_eq(cJSON_GetObjectItem(item,
			    "state")->valuestring, "PENDING");
		}
	}
	ck_assert(seen);
	cJSON_Delete(doc);
	free(out); free(err);
	ck_assert_int_eq(run(&out, &err, "jobs"), 0);
	ck_assert_ptr_nonnull(strstr(out, held.name));
	ck_assert_ptr_nonnull(strstr(out, "CLUSTER"));
	free(out); free(err);

	/* The TUI's cancel: the same function, its own source. */
	r = load(held.rid);
	ck_assert_msg(ops_cancel(c, r, held.id, "cancel:tui", &oc,
	    &cause) == 0, "%s", cause);
	ck_assert_int_eq(oc.was_live, 1);
	ck_assert_int_eq(oc.wiped, 1);
	ck_assert_int_eq(oc.changed, 1);
	ops_cancel_free(&oc);
	record_free(r);
	r = load(held.rid);
	ck_assert_int_eq(r->state, RSTATE_CANCELED);
	ck_assert_ptr_nonnull(event_from(r, "cancel:tui"));
	record_free(r);

	job_free(&ok);
	job_free(&bad);
	job_free(&held);
	conn_free(c);
}
END_TEST

START_TEST(test_unknown_after_sacct)
{
	struct conn		*c = conn_new_cluster(cluster());
	struct monitor_snapshot	 snap;
	struct monitor_opts	 opts;
	struct record		*r;
	char			*cause = NULL, *rid;

	/* A SLURM id nobody ever had. */
	r = record_new(cluster()->name);
	r->job_name = unique("ghost");
	ck_assert(record_create(r, &cause) == 0);
	rid = xstrdup(r->id);
	record_free(r);
	ck_assert(record_set_slurm_id(rid, "99999990", &cause) == 0);

	/* Within the grace period sacct's lag is no proof: unchanged. */
	memset(&opts, 0, sizeof opts);
	ck_assert_int_eq(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause), 0);
	monitor_snapshot_free(&snap);
	r = load(rid);
	ck_assert_int_eq(r->state, RSTATE_PENDING);
	record_free(r);

	sleep(2);
	opts.grace = 1;
	ck_assert_int_eq(monitor_poll(c, cluster()->name, &opts, &snap,
	    &cause), 0);
	monitor_snapshot_free(&snap);
	r = load(rid);
	ck_assert_int_eq(r->state, RSTATE_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(event_from(r, "poll")->message,
	    "sacct -S"));
	record_free(r);
	free(rid);
	conn_free(c);
}
END_TEST

/*
 * After the cluster tests, even failed ones: cancel every job of our
 * records that may still be queued and remove their job dirs.  Only jobs
 * this suite launched are touched (their ids come from our records).
 */
static void
cleanup(void)
{
	struct record_list	 list;
	struct conn		*c;
	struct conn_result	 res;
	struct buf		 b;
	char			*cause = NULL, *q;
	const char		*sid;
	size_t			 i;

	if (getenv("SLURM_HOSTNAME") == NULL ||
	    record_list(&list, &cause) != 0)
		return;
	buf_init(&b);
	buf_adds(&b, "true");
	for (i = 0; i < list.n; i++) {
		if (list.v[i]->job_name == NULL ||
		    !str_has_prefix(list.v[i]->job_name, "sdv-"))
			continue;
		sid = record_slurm_id(list.v[i]);
		if (sid != NULL && strcmp(sid, "99999990") != 0 &&
		    !state_terminal(list.v[i]->state))
			buf_printf(&b, "; scancel %ld", strtol(sid, NULL, 10));
		if (list.v[i]->job_dir != NULL &&
		    strstr(list.v[i]->job_dir, "/verbs-test/") != NULL) {
			q = shell_quote(list.v[i]->job_dir);
			buf_printf(&b, "; rm -rf %s", q);
			free(q);
		}
	}
	c = conn_new_cluster(cluster());
	if (conn_exec(c, b.data, NULL, 0, &res, &cause) == 0)
		conn_result_free(&res);
	free(cause);
	conn_free(c);
	buf_free(&b);
	record_list_free(&list);
}

static Suite *
verbs_suite(void)
{
	Suite	*s = suite_create("verbs");
	TCase	*tc;

	/* Private HOME, config and records: the real ones are never used. */
	snprintf(tmproot, sizeof tmproot, "%s", test_tmpdir());
	it_private_dirs(tmproot);

	tc = tcase_create("pure");
	tcase_add_test(tc, test_conventions);
	tcase_add_test(tc, test_sanitize);
	tcase_add_test(tc, test_reply_sections);
	tcase_add_test(tc, test_bad_args);
	suite_add_tcase(s, tc);

	tc = tcase_create("cluster");
	tcase_set_timeout(tc, 280);
	tcase_add_unchecked_fixture(tc, NULL, cleanup);
	tcase_add_test(tc, test_log_read_offsets);
	tcase_add_test(tc, test_complete_and_logs);
	tcase_add_test(tc, test_error_program);
	tcase_add_test(tc, test_cancel_sleeping);
	tcase_add_test(tc, test_follow);
	tcase_add_test(tc, test_poll_round_trips);
	tcase_add_test(tc, test_poll_unchanged_not_parsed);
	tcase_add_test(tc, test_unknown_after_sacct);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(verbs_suite)
