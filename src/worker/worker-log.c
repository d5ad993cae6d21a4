/*
 * The workers: following the watched job's log (where it is, from the
 * record or scontrol, then the bytes after the last offset).
 */
#include "worker-int.h"

#include "array.h"
#include "follow.h"

/* The worker hands the follower's flags to the TUI as they are. */
_Static_assert(FOLLOW_EOF == MSG_LOG_EOF && FOLLOW_MISSING ==
    MSG_LOG_MISSING && FOLLOW_DONE == MSG_LOG_DONE, "follow.h flags");

static void	log_missing(struct wstate *, const char *);

/* --- logs ----------------------------------------------------------------- */

void
log_reset(struct wstate *st)
{
	free(st->log_id);
	free(st->log_path);
	free(st->log_fallback);
	st->log_id = st->log_path = st->log_fallback = NULL;
	st->log_ended = st->log_done = st->log_lookup = 0;
	st->log_last_flags = -1;
}

/* Take a new watch request: find the job's record and its log path. */
/* Task N of an array record: its log path from the record, 1 if so. */
static int
log_array_task(struct wstate *st, struct worker *w, const struct jobid *j)
{
	struct record	*rec = NULL;
	char		 sid[32], *cause = NULL;
	long		 n;

	snprintf(sid, sizeof sid, "%lu", j->job);
	if (ops_find_in(records_index(w->ws), sid, w->cl->name, &rec, &n,
	    &cause) != 0 || rec == NULL ||
	    rec->array == NULL || rec->cluster == NULL ||
	    strcmp(rec->cluster, w->cl->name) != 0) {
		free(cause);
		record_free(rec);
		return 0;
	}
	st->log_path = ops_task_log_path(rec, (int)strtol(j->tasks, NULL, 10),
	    st->log_stream == LOG_ERR);
	st->log_ended = state_terminal(rec->state) &&
	    !array_tasks_live(rec->array_tasks);
	record_free(rec);
	return st->log_path != NULL;
}

void
log_take(struct wstate *st, const char *id, enum log_stream stream,
    uint64_t offset)
{
	struct worker	*w = st->w;
	struct record	*rec = NULL;
	struct jobid	 jid;
	char		*cause = NULL;
	long		 sid;
	int		 rc;

	log_reset(st);
	if (id == NULL)
		return;
	st->log_id = xstrdup(id);
	st->log_stream = stream;
	st->log_next = offset > 0 ? (long long)offset : -1;
	st->next_log = 0;

	/* A task of an array sqdeck submitted: main_N.out (array.h). */
	jobid_parse(id, &jid);
	if (jid.kind == JOBID_TASK && log_array_task(st, w, &jid))
		return;
	if (jid.kind == JOBID_TASK || jid.kind == JOBID_RANGE)
		rc = 1;
	else
		rc = ops_find_in(records_index(w->ws), id, w->cl->name,
		    &rec, &sid, &cause);
	if (rc == 0 && rec->cluster != NULL &&
	    strcmp(rec->cluster, w->cl->name) != 0) {
		record_free(rec);	/* same SLURM id, another cluster */
		rec = NULL;
		rc = 1;
	}
	if (rc == 0) {
		st->log_path = ops_log_path(rec, stream == LOG_ERR);
		st->log_ended = state_terminal(rec->state);
		if (st->log_path == NULL)
			cause = xasprintf("record %s has no log path yet",
			    rec->id);
	} else if (rc == 1 || cause == NULL) {
		size_t	i;

		/*
		 * A job sqdeck did not submit: its StdOut from scontrol while
		 * SLURM knows it (asked once connected, joblog.h), else for a
		 * finished one SLURM's default log in its work dir.
		 */
		for (i = 0; i < st->nhist; i++) {
			if (strcmp(st->hist_id[i], id) == 0 &&
			    st->hist_log[i] != NULL) {
				st->log_fallback = xstrdup(st->hist_log[i]);
				break;
			}
		}
		free(cause);
		st->log_lookup = 1;
		st->log_asked = mono_now();
		record_free(rec);
		return;
	}
	record_free(rec);
	if (st->log_path != NULL) {
		free(cause);
		return;
	}
	log_missing(st, cause);
	free(cause);
}

/* Say once why there is no log; the pane shows none. */
static void
log_missing(struct wstate *st, const char *cause)
{
	struct worker	*w = st->w;
	struct msg	*m;
	const char	*id = st->log_id;

	post_action(w, ACTION_LOG, id, NULL, ACTION_FAILED, "%s", cause);
	m = msg_new(MSG_LOG);
	m->u.log.cluster = xstrdup(w->cl->name);
	m->u.log.job_id = xstrdup(id);
	m->u.log.stream = st->log_stream;
	m->u.log.flags = MSG_LOG_MISSING | MSG_LOG_DONE;
	post(w, m);
	st->log_done = 1;
}

/*
 * What the log lookups leave to the polls (budget.h): a minute of them at
 * this cluster's interval and the slow tick's two, but never more than
 * half the budget.  Browsing other users' jobs then gets at least half
 * (5 lookups a minute by default), the queue still refreshes every 15 s
 * at worst, and a waiting lookup within that share goes before the next
 * poll (worker.c).
 */
unsigned
log_lookup_reserve(struct wstate *st)
{
	unsigned	reserve;

	reserve = (unsigned)((BUDGET_WINDOW + st->interval - 1) /
	    st->interval) + 2;
	if (reserve > (unsigned)st->budget.max_calls / 2)
		reserve = (unsigned)st->budget.max_calls / 2;
	return reserve;
}

/*
 * A job sqdeck did not submit and accounting has not listed as ended: its
 * StdOut/StdErr from squeue, patterns (%A_%a ...) resolved.  One
 * scheduler call when the watch starts, none while it is followed.
 */
void
log_lookup(struct wstate *st)
{
	char	*cause = NULL;
	int	 ended;

	/* Only once the selection rests on it (LOG_LOOKUP_SETTLE). */
	if (mono_now() < st->log_asked + LOG_LOOKUP_SETTLE)
		return;
	/* Scheduler calls (squeue, then sacct): the budget, like a poll. */
	if (!budget_room(&st->budget, mono_now(), LOG_LOOKUP_CALLS,
	    log_lookup_reserve(st)))
		return;
	st->log_lookup = 0;
	budget_spend_side(&st->budget, mono_now(), LOG_LOOKUP_CALLS);
	if (follow_foreign_path(st->conn, st->log_id, st->log_stream ==
	    LOG_ERR, &st->log_path, &ended, &cause) != 0) {
		/* Accounting's default, if that is all there is. */
		if (st->log_fallback != NULL) {
			st->log_path = st->log_fallback;
			st->log_fallback = NULL;
			st->log_ended = 1;
			goto out;
		}
		free(cause);
		cause = xasprintf("not submitted by sqdeck and SLURM no longer "
		    "knows it: its log path is not known");
		goto fail;
	}
	/* Only accounting knows it: over, however the poll saw it. */
	if (ended)
		st->log_ended = 1;
	if (strcmp(st->log_path, "/dev/null") == 0) {
		/* sbatch -o /dev/null: nothing will ever be there. */
		free(st->log_path);
		st->log_path = NULL;
		cause = xasprintf("not submitted by sqdeck, and its %s goes "
		    "to /dev/null (sbatch %s /dev/null): there is no log to "
		    "show", st->log_stream == LOG_ERR ? "stderr" : "output",
		    st->log_stream == LOG_ERR ? "-e" : "-o");
		goto fail;
	}
	goto out;
fail:
	log_missing(st, cause);
out:
	check_new_session(st);
	free(cause);
}

void
do_log(struct wstate *st)
{
	struct worker	*w = st->w;
	struct follow	 f;
	struct ops_log	 log;
	struct msg	*m;
	char		*cause = NULL;
	int		 flags;

	st->next_log = mono_now() + WORKER_LOG_SECONDS;
	follow_init(&f, st->log_path, st->log_next, WORKER_LOG_LINES,
	    WORKER_LOG_CHUNK);
	f.tail_late = 1;
	f.ended = st->log_ended;
	flags = follow_read(st->conn, &f, &log, &cause);
	check_new_session(st);
	if (flags < 0) {
		/* The poll reports the cluster's health; just try again. */
		free(cause);
		ops_log_free(&log);
		return;
	}
	st->log_next = f.next;
	st->log_done = f.done;	/* flags are MSG_LOG_* (follow.h) */
	if (log.len > 0 || flags != st->log_last_flags) {
		m = msg_new(MSG_LOG);
		m->u.log.cluster = xstrdup(w->cl->name);
		m->u.log.job_id = xstrdup(st->log_id);
		m->u.log.stream = st->log_stream;
		m->u.log.offset = (uint64_t)(log.offset > 0 ? log.offset : 0);
		m->u.log.len = log.len;
		m->u.log.data = log.data;	/* given away */
		log.data = NULL;
		m->u.log.flags = flags;
		post(w, m);
	}
	st->log_last_flags = flags;
	ops_log_free(&log);
}
