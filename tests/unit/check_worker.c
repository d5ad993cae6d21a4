/*
 * The worker layer (src/worker/worker.c): the pure backoff rules, and what a
 * worker says about a cluster it cannot reach (a real refused connection
 * on loopback, port 1: no mock) -- requests fail at once instead of
 * waiting, and stopping joins every thread.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <poll.h>
#include <time.h>

#include "testutil.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"
#include "worker.h"
#include "util.h"

START_TEST(test_rate_limited)
{
	ck_assert_int_eq(worker_rate_limited(NULL), 0);
	ck_assert_int_eq(worker_rate_limited(""), 0);
	ck_assert_int_eq(worker_rate_limited("squeue: error: Invalid user"), 0);
	/* slurmctld's wording, wherever it is in the message. */
	ck_assert_int_eq(worker_rate_limited("squeue: error: slurm_load_jobs "
	    "error: Rate limit exceeded, please retry momentarily"), 1);
	ck_assert_int_eq(worker_rate_limited("Rate limit exceeded"), 1);
	ck_assert_int_eq(worker_rate_limited("rate limit"), 0);
}
END_TEST

START_TEST(test_backoff)
{
	int	b, i, prev;

	/* The first failure waits two intervals, then doubling. */
	ck_assert_int_eq(worker_backoff(0, 5, 0), 10);
	ck_assert_int_eq(worker_backoff(10, 5, 0), 20);
	ck_assert_int_eq(worker_backoff(20, 5, 0), 40);
	/* Capped. */
	ck_assert_int_eq(worker_backoff(40, 5, 0), WORKER_BACKOFF_MAX);
	/* Never answered: grows past a minute, to a quarter of an hour. */
	ck_assert_int_eq(worker_unreach_backoff(0, 5, 0), 10);
	ck_assert_int_eq(worker_unreach_backoff(40, 5, 0), 80);
	ck_assert_int_eq(worker_unreach_backoff(640, 5, 0), WORKER_UNREACH_MAX);
	ck_assert_int_eq(worker_unreach_backoff(WORKER_UNREACH_MAX, 5, 1),
	    WORKER_UNREACH_MAX);
	ck_assert_int_eq(worker_backoff(WORKER_BACKOFF_MAX, 5, 0),
	    WORKER_BACKOFF_MAX);
	/* A nonsense interval counts as one second. */
	ck_assert_int_eq(worker_backoff(0, 0, 0), 2);
	ck_assert_int_eq(worker_backoff(0, -3, 0), 2);
	/* Throttled: at least WORKER_RATE_BACKOFF, still capped. */
	ck_assert_int_eq(worker_backoff(0, 2, 1), WORKER_RATE_BACKOFF);
	ck_assert_int_eq(worker_backoff(20, 2, 1), 40);
	ck_assert_int_eq(worker_backoff(50, 2, 1), WORKER_BACKOFF_MAX);
	/* A long interval is not shortened by the cap's doubling. */
	ck_assert_int_eq(worker_backoff(0, 45, 0), WORKER_BACKOFF_MAX);

	/* Never decreasing, always ending at the cap. */
	for (b = 0, prev = 0, i = 0; i < 20; i++) {
		b = worker_backoff(b, 1, 0);
		ck_assert_int_ge(b, prev);
		prev = b;
	}
	ck_assert_int_eq(b, WORKER_BACKOFF_MAX);
}
END_TEST

START_TEST(test_start_text)
{
	char	*t;

	t = worker_start_text("2026-11-29T17:02:00", "Resources");
	ck_assert_str_eq(t, "why pending: Resources; squeue --start "
	    "estimate: 2026-11-29T17:02:00");
	free(t);
	t = worker_start_text(NULL, "JobHeldUser");
	ck_assert_str_eq(t, "why pending: JobHeldUser; squeue --start "
	    "estimate: none (N/A: SLURM has no start time for it)");
	free(t);
	t = worker_start_text(NULL, NULL);
	ck_assert_str_eq(t, "not pending any more: squeue has no start "
	    "estimate for it");
	free(t);
	t = worker_start_text("2026-11-29T17:02:00", "");
	ck_assert_str_eq(t, "why pending: (none); squeue --start estimate: "
	    "2026-11-29T17:02:00");
	free(t);
}
END_TEST

/* Wait for the next message of a type, freeing the others; NULL on timeout. */
static struct msg *
next_msg(struct msgq *q, enum msg_type type, int timeout_ms)
{
	static struct msg	*pending;
	struct pollfd		 pfd;
	struct msg		*m;
	struct timespec		 t0, t1;
	int			 left = timeout_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		while ((m = pending) != NULL) {
			pending = m->next;
			m->next = NULL;
			if (m->type == type)
				return m;
			msg_free(m);
		}
		if (left <= 0)
			return NULL;
		pfd.fd = msgq_fd(q);
		pfd.events = POLLIN;
		poll(&pfd, 1, left);
		pending = msgq_take_all(q);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = timeout_ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000);
	}
}

START_TEST(test_refused_cluster)
{
	struct config		 cfg;
	struct cluster		 cl;
	struct msgq		*q;
	struct workers		*ws;
	struct msg		*m;
	struct jobtable_key	 k, rk;
	struct spec		 sp;
	char			*cause = NULL;
	int			 errors = 0, connecting = 0;

	setenv("HOME", test_tmpdir(), 1);	/* no real ~/.ssh */
	memset(&cl, 0, sizeof cl);
	cl.name = (char *)"refusing";
	strv_add(&cl.hosts, "127.0.0.1");
	cl.user = (char *)"nobody";
	cl.port = 1;
	cl.connect_timeout = 2;
	cl.command_timeout = 2;
	cl.poll_interval = 1;
	memset(&cfg, 0, sizeof cfg);
	cfg.clusters = &cl;
	cfg.nclusters = 1;

	q = msgq_create(NULL);
	ck_assert_ptr_nonnull(q);
	ws = workers_start(&cfg, q, &cause);
	ck_assert_ptr_nonnull(ws);

	/* It says it connects, then why it cannot. */
	while ((m = next_msg(q, MSG_CLUSTER, 5000)) != NULL) {
		ck_assert_str_eq(m->u.cluster.cluster, "refusing");
		if (m->u.cluster.health == CLUSTER_CONNECTING)
			connecting++;
		if (m->u.cluster.health == CLUSTER_ERROR) {
			ck_assert_ptr_nonnull(m->u.cluster.message);
			ck_assert_msg(strstr(m->u.cluster.message,
			    "refused") != NULL, "%s", m->u.cluster.message);
			ck_assert_int_eq(m->u.cluster.last_ok, 0);
			errors++;
		}
		msg_free(m);
		if (errors > 0)
			break;
	}
	ck_assert_int_ge(connecting, 1);
	ck_assert_int_eq(errors, 1);

	/* A request to a cluster that is down fails at once, saying so. */
	k.cluster = (char *)"refusing";
	k.id = (char *)"123";
	k.name = (char *)"job";
	ck_assert_int_eq(workers_cancel(ws, &k, 1, &cause), 0);
	m = next_msg(q, MSG_ACTION, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->u.action.kind, ACTION_CANCEL);
	ck_assert_int_eq(m->u.action.done, 1);
	ck_assert_int_eq(m->u.action.failed, 1);
	ck_assert_str_eq(m->u.action.job_id, "123");
	ck_assert_str_eq(m->u.action.message, "refusing is not connected: "
	    "try again when its state is ok");
	msg_free(m);
	ck_assert_int_eq(workers_start_estimate(ws, "refusing", "123",
	    &cause), 0);
	m = next_msg(q, MSG_ACTION, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->u.action.kind, ACTION_START);
	ck_assert_ptr_null(m->u.action.step);
	ck_assert_int_eq(m->u.action.failed, 1);
	msg_free(m);

	/*
	 * H on marked rows: one request for the cluster carrying both ids,
	 * and each job answers on its own (the footer sums them up).
	 */
	{
		struct jobtable_key	hk[2] = {
			{ (char *)"refusing", (char *)"123", (char *)"a" },
			{ (char *)"refusing", (char *)"124_2", (char *)"b" },
		};
		static const struct {
			const char	*cluster, *id;
			int		 release;
			const char	*why;
		} bad[] = {
			{ "refusing", "124_x", 1, "job 124_x: scontrol "
			    "release takes a job id" },
			{ "nowhere", "125", 0, "cluster nowhere is not in the "
			    "configuration" },
		};
		int			got123 = 0, got124 = 0;
		size_t			i;

		ck_assert_int_eq(workers_hold(ws, hk, 2, 0, &cause), 0);
		while ((m = next_msg(q, MSG_ACTION, 5000)) != NULL) {
			ck_assert_int_eq(m->u.action.kind, ACTION_HOLD);
			ck_assert_int_eq(m->u.action.failed, 1);
			ck_assert_str_eq(m->u.action.cluster, "refusing");
			got123 += strcmp(m->u.action.job_id, "123") == 0;
			got124 += strcmp(m->u.action.job_id, "124_2") == 0;
			msg_free(m);
			if (got123 + got124 == 2)
				break;
		}
		ck_assert_int_eq(got123, 1);
		ck_assert_int_eq(got124, 1);
		/* All or nothing: a range or an unknown cluster queues none. */
		for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			hk[1].cluster = (char *)bad[i].cluster;
			hk[1].id = (char *)bad[i].id;
			ck_assert_int_eq(workers_hold(ws, hk, 2, bad[i].release,
			    &cause), -1);
			ck_assert_str_eq(cause, bad[i].why);
			free(cause);
			cause = NULL;
		}
		ck_assert_ptr_null(next_msg(q, MSG_ACTION, 1500));
	}

	/* Unknown clusters are refused before anything is queued. */
	k.cluster = (char *)"nowhere";
	ck_assert_int_eq(workers_cancel(ws, &k, 1, &cause), -1);
	ck_assert_str_eq(cause, "cluster nowhere is not in the configuration: "
	    "its job 123 cannot be cancelled from here");
	free(cause);
	cause = NULL;
	spec_init(&sp);
	ck_assert_int_eq(workers_submit(ws, "nowhere", &sp, 1, &cause), -1);
	ck_assert_str_eq(cause, "cluster nowhere is not in the configuration");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(workers_fetch_spec(ws, "nowhere", "1", &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(workers_start_estimate(ws, "nowhere", "1", &cause),
	    -1);
	free(cause);
	cause = NULL;
	/* Only plain ids have a start estimate. */
	ck_assert_int_eq(workers_start_estimate(ws, "refusing", "12_3",
	    &cause), -1);
	ck_assert_str_eq(cause, "job 12_3: squeue --start takes a plain job "
	    "id");
	free(cause);
	cause = NULL;
	/* Hold takes what scontrol takes: a task or a pending range too. */
	rk.cluster = (char *)"refusing";
	rk.id = (char *)"12_x";
	ck_assert_int_eq(workers_hold(ws, &rk, 1, 0, &cause), -1);
	ck_assert_str_eq(cause, "job 12_x: scontrol hold takes a job id");
	free(cause);
	cause = NULL;
	rk.id = (char *)"12_[4-9]";
	ck_assert_int_eq(workers_hold(ws, &rk, 1, 1, &cause), 0);
	m = next_msg(q, MSG_ACTION, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->u.action.kind, ACTION_HOLD);
	ck_assert_str_eq(m->u.action.job_id, "12_[4-9]");
	ck_assert_int_eq(m->u.action.failed, 1);
	msg_free(m);

	/* Stopping joins the thread (not stuck: refused at once). */
	ck_assert_int_eq(workers_stop(ws, 3000), 0);
	msgq_destroy(q);
	strv_free(&cl.hosts);
	/* No workers at all is fine too. */
	ck_assert_int_eq(workers_stop(NULL, 10), 0);
}
END_TEST

/*
 * The poll's reply marker is never in an argv on the login node (issue
 * 24: `ps` showed `timeout ... sh -c ... rd "$N"` to every local user, who
 * could then forge a section in a file the poll reads).  The poll script
 * runs here with stand-ins: squeue (no job), sacct (job 5 FAILED), and a
 * tail that prints the command line of its parent (the timeout process of
 * rd) and its own.
 */
START_TEST(test_poll_marker_not_in_argv)
{
	const char	*dir = test_tmpdir();
	struct record	*r, *tracked[1];
	char		 marker[32], *script, *cause = NULL, *path, *cmd;
	char		*out = NULL, *logp;
	FILE		*f;

	ck_assert(strncmp(SLURM_SACCT_FIELDS, "JobID JobIDRaw State", 20) ==
	    0);
	r = record_new("c");
	r->id = xstrdup("sd-x");
	r->job_name = xstrdup("j");
	r->job_dir = xstrdup(dir);
	r->created = xstrdup("2026-12-01T00:00:00Z");
	strv_add(&r->slurm_ids, "5");
	tracked[0] = r;
	ck_assert_int_eq(remote_marker(marker, sizeof marker), 0);
	script = monitor_script(tracked, 1, "u", marker, "|", &cause);
	ck_assert_msg(script != NULL, "%s", cause);
	logp = ops_log_path(r, 0);
	path = xasprintf("mkdir -p \"$(dirname '%s')\" && echo hi >'%s' && "
	    "mkdir -p %s/bin", logp, logp, dir);
	ck_assert_int_eq(system(path), 0);
	free(path);
	path = xasprintf("%s/bin/squeue", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\nexit 0\n");
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	path = xasprintf("%s/bin/sacct", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\necho '5|5|FAILED|1:0|None|n1|gpu|0:01|0:10|1|"
	    "x|x|x|j'\n");
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	path = xasprintf("%s/bin/tail", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\nprintf 'PARENT '; tr '\\0' ' ' "
	    "</proc/$PPID/cmdline; echo; printf 'SELF %%s\\n' \"$*\"\n");
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	path = xasprintf("%s/poll.sh", dir);
	ck_assert_int_eq(file_write_atomic(path, script, strlen(script), 0600,
	    &cause), 0);
	cmd = xasprintf("PATH=%s/bin:$PATH sh %s >%s/poll.out 2>&1", dir,
	    path, dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(path);
	path = xasprintf("%s/poll.out", dir);
	ck_assert_int_eq(file_read(path, &out, NULL, &cause), 0);
	/* The file was read, under its section... */
	cmd = xasprintf("\n%s out 5\nPARENT ", marker);
	ck_assert_msg(strstr(out, cmd) != NULL, "%s", out);
	free(cmd);
	ck_assert_msg(strstr(out, "SELF -c") != NULL, "%s", out);
	/* ... and no process had the marker in its command line. */
	ck_assert_msg(strstr(strstr(out, "PARENT "), marker) == NULL ||
	    strstr(strstr(out, "PARENT "), marker) > strstr(out, "SELF "),
	    "marker in an argv: %s", out);
	ck_assert_msg(strstr(strstr(out, "SELF "), marker) == NULL ||
	    strstr(strstr(out, "SELF "), marker) > strchr(strstr(out,
	    "SELF "), '\n'), "marker in tail's argv: %s", out);
	free(out);
	free(path);
	free(logp);
	free(script);
	record_free(r);
}
END_TEST

/*
 * The records thread (issue 17): it answers the screen's first load and
 * its detail views, so the calling thread reads no record file.
 */
START_TEST(test_records_thread)
{
	struct config	 cfg;
	struct msgq	*q = msgq_create(NULL);
	struct workers	*ws;
	struct record	*r;
	struct msg	*m;
	char		*cause = NULL, *id;
	unsigned long	 before = record_reads_here();

	setenv("XDG_STATE_HOME", test_tmpdir(), 1);
	r = record_new("polar");
	r->job_name = xstrdup("rec-job");
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	ck_assert_int_eq(record_set_slurm_id(id, "4242", &cause), 0);
	before = record_reads_here();

	memset(&cfg, 0, sizeof cfg);
	/* Without the flag there is no records thread: said, not hung. */
	ws = workers_start(&cfg, q, &cause);
	ck_assert_int_eq(workers_records(ws, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(workers_stop(ws, 1000), 0);

	ws = workers_start_flags(&cfg, q, WORKERS_RECORDS, &cause);
	ck_assert_ptr_nonnull(ws);
	ck_assert_int_eq(workers_records(ws, &cause), 0);
	m = next_msg(q, MSG_RECORDS, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->u.records.nrows, 1);
	ck_assert_str_eq(m->u.records.rows[0].cluster, "polar");
	ck_assert_str_eq(m->u.records.rows[0].id, "4242");
	ck_assert_str_eq(m->u.records.rows[0].name, "rec-job");
	/* No cluster polar in the configuration: never polled. */
	ck_assert_str_eq(m->u.records.rows[0].reason, "(record) not polled: "
	    "no cluster polar in the configuration");
	ck_assert_str_eq(m->u.records.message, "1 record(s) of a cluster the "
	    "configuration does not have are not polled: Enter on one says "
	    "how to fix it");
	msg_free(m);

	ck_assert_int_eq(workers_detail(ws, "polar", "4242", &cause), 0);
	m = next_msg(q, MSG_ACTION, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->u.action.kind, ACTION_DETAIL);
	ck_assert_int_eq(m->u.action.done, 1);
	ck_assert_int_eq(m->u.action.failed, 0);
	ck_assert_ptr_nonnull(m->u.action.message);
	ck_assert_ptr_nonnull(strstr(m->u.action.message, id));
	msg_free(m);
	/* No record of that job: done, no message. */
	ck_assert_int_eq(workers_detail(ws, "polar", "999", &cause), 0);
	m = next_msg(q, MSG_ACTION, 5000);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->u.action.kind, ACTION_DETAIL);
	ck_assert_int_eq(m->u.action.failed, 0);
	ck_assert_ptr_null(m->u.action.message);
	msg_free(m);
	ck_assert_int_eq(workers_stop(ws, 1000), 0);
	/* Everything was read by the records thread, nothing here. */
	ck_assert_uint_eq(record_reads_here(), before);
	msgq_destroy(q);
	free(id);
}
END_TEST

/*
 * A poll's refresh of the record index skips the listing and its stat a
 * file while the records directory has not changed (20,000 records were
 * 20,000 stats a poll for each of 32 clusters: 80 % of a CPU), and lists
 * it again once a record is written.
 */
START_TEST(test_index_unchanged_dir)
{
	struct record_index	*ix;
	struct record		*r;
	char			*cause = NULL, *id;
	unsigned long		 before;

	setenv("XDG_STATE_HOME", test_tmpdir(), 1);
	r = record_new("polar");
	r->job_name = xstrdup("idx-job");
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	/* A directory changed under 2 s ago is listed each time. */
	sleep(2);
	ix = record_index_new();
	before = record_reads_here();
	ck_assert_int_eq(record_index_refresh(ix, NULL, &cause), 0);
	ck_assert_uint_gt(record_reads_here(), before);
	ck_assert_uint_eq(record_index_size(ix), 1);
	before = record_reads_here();
	ck_assert_int_eq(record_index_refresh(ix, NULL, &cause), 0);
	ck_assert_uint_eq(record_reads_here(), before);
	ck_assert_uint_eq(record_index_size(ix), 1);
	ck_assert_ptr_null(record_index_find(ix, "polar", "4242"));
	/* A write is a rename: the directory moved, it is listed. */
	ck_assert_int_eq(record_set_slurm_id(id, "4242", &cause), 0);
	before = record_reads_here();
	ck_assert_int_eq(record_index_refresh(ix, NULL, &cause), 0);
	ck_assert_uint_gt(record_reads_here(), before);
	ck_assert_ptr_nonnull(record_index_find(ix, "polar", "4242"));
	record_index_free(ix);
	free(id);
}
END_TEST

START_TEST(test_no_clusters)
{
	struct config	 cfg;
	struct msgq	*q = msgq_create(NULL);
	struct workers	*ws;
	char		*cause = NULL;

	memset(&cfg, 0, sizeof cfg);
	ws = workers_start(&cfg, q, &cause);
	ck_assert_ptr_nonnull(ws);
	workers_poll_now(ws, NULL);
	workers_watch_log(ws, NULL, NULL, LOG_OUT, 0);
	ck_assert_uint_eq(msgq_length(q), 0);
	ck_assert_int_eq(workers_stop(ws, 1000), 0);
	msgq_destroy(q);
}
END_TEST

/* Threads of this process, from /proc/self/task. */
static size_t
count_threads(void)
{
	DIR		*d = opendir("/proc/self/task");
	struct dirent	*e;
	size_t		 n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Many clusters, few threads: 2000 clusters that refuse the connection
 * (each a real connect to loopback port 1) are all served by the bounded
 * pool -- every one says why it cannot connect -- and the process never has
 * more than the pool's threads besides its own.  Before the pool it had
 * one thread per cluster (2001 here).
 */
START_TEST(test_pool_bounded)
{
	enum { NCL = 2000 };
	struct config	 cfg;
	struct cluster	*cl;
	struct msgq	*q;
	struct workers	*ws;
	struct msg	*list, *m;
	struct pollfd	 pfd;
	unsigned char	*said;
	char		*cause = NULL;
	size_t		 i, nsaid = 0, base, most = 0, nt;
	int		 rounds = 0;

	setenv("HOME", test_tmpdir(), 1);
	base = count_threads();
	cl = xcalloc(NCL, sizeof *cl);
	for (i = 0; i < NCL; i++) {
		cl[i].name = xasprintf("c%zu", i);
		strv_add(&cl[i].hosts, "127.0.0.1");
		cl[i].user = (char *)"nobody";
		cl[i].port = 1;
		cl[i].connect_timeout = 2;
		cl[i].command_timeout = 2;
		cl[i].poll_interval = 5;
	}
	memset(&cfg, 0, sizeof cfg);
	cfg.clusters = cl;
	cfg.nclusters = NCL;
	said = xcalloc(NCL, 1);
	q = msgq_create(NULL);
	ck_assert_uint_eq(workers_pool_size(NCL), WORKER_POOL_MAX);
	ck_assert_uint_eq(workers_pool_size(3), 3);
	ws = workers_start(&cfg, q, &cause);
	ck_assert_ptr_nonnull(ws);
	while (nsaid < NCL && rounds++ < 2000) {
		pfd.fd = msgq_fd(q);
		pfd.events = POLLIN;
		poll(&pfd, 1, 100);
		nt = count_threads();
		if (nt > most)
			most = nt;
		list = msgq_take_all(q);
		for (m = list; m != NULL; m = m->next) {
			if (m->type != MSG_CLUSTER ||
			    m->u.cluster.health != CLUSTER_ERROR)
				continue;
			i = strtoul(m->u.cluster.cluster + 1, NULL, 10);
			ck_assert_uint_lt(i, NCL);
			if (!said[i]++)
				nsaid++;
		}
		msg_free_list(list);
	}
	ck_assert_uint_eq(nsaid, NCL);
	ck_assert_msg(most <= base + WORKER_POOL_MAX, "%zu threads for %d "
	    "clusters (pool %d, %zu before)", most, NCL, WORKER_POOL_MAX,
	    base);
	ck_assert_int_eq(workers_stop(ws, 5000), 0);
	ck_assert_uint_eq(count_threads(), base);
	msgq_destroy(q);
	for (i = 0; i < NCL; i++) {
		free(cl[i].name);
		strv_free(&cl[i].hosts);
	}
	free(cl);
	free(said);
}
END_TEST

static Suite *
worker_suite(void)
{
	Suite	*s = suite_create("worker");
	TCase	*tc = tcase_create("worker");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rate_limited);
	tcase_add_test(tc, test_backoff);
	tcase_add_test(tc, test_start_text);
	tcase_add_test(tc, test_refused_cluster);
	tcase_add_test(tc, test_no_clusters);
	tcase_add_test(tc, test_records_thread);
	tcase_add_test(tc, test_index_unchanged_dir);
	tcase_add_test(tc, test_poll_marker_not_in_argv);
	tcase_add_test(tc, test_pool_bounded);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(worker_suite)
