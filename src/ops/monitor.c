#include "monitor.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops.h"
#include "array.h"
#include "ends.h"
#include "remote.h"
#include "rsh.h"
#include "triage.h"
#include "util.h"

#define MONITOR_RECENT	(24 * 60 * 60)
#define MONITOR_GRACE	60
#define STATUS_MAX	65536	/* bytes of status.json read */
#define LOGTAIL_MAX	16384	/* bytes of each log read for triage */

/*
 * SLURM's base state words.  Which of them end a job and which need the
 * logs is NOT decided here: state_map() says, so the remote script and
 * state.c cannot disagree.
 */
static const char *slurm_words[] = {
	"PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD",
	"RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "CONFIGURING",
	"RESIZING", "SIGNALING", "STAGE_OUT", "COMPLETED", "FAILED",
	"OUT_OF_MEMORY", "DEADLINE", "TIMEOUT", "SPECIAL_EXIT", "NODE_FAIL",
	"BOOT_FAIL", "CANCELLED", "PREEMPTED", "REVOKED",
};
#define NWORDS (sizeof slurm_words / sizeof slurm_words[0])

/* "A|B|C" of the words whose map has the wanted property. */
static char *
word_pattern(int triage)
{
	struct state_map	 m;
	struct buf		 b;
	size_t			 i;
	int			 yes;

	buf_init(&b);
	for (i = 0; i < NWORDS; i++) {
		if (state_map(slurm_words[i], STATUS_MISSING, &m) != 0)
			continue;
		yes = triage ? m.needs_triage : m.terminal;
		if (yes)
			buf_printf(&b, "%s%s", b.len != 0 ? "|" : "",
			    slurm_words[i]);
	}
	if (b.len == 0)
		buf_adds(&b, "sqdeck-none");
	return buf_steal(&b);
}

/* 1-based position of a field in SLURM_SACCT_FIELDS (for awk). */
static int
sacct_column(const char *name)
{
	const char	*p = SLURM_SACCT_FIELDS;
	size_t		 n = strlen(name);
	int		 col = 1;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		if (strncmp(p, name, n) == 0 &&
		    (p[n] == ' ' || p[n] == '%' || p[n] == '\0'))
			return col;
		while (*p != '\0' && *p != ' ')
			p++;
		col++;
	}
	return -1;
}

static long
record_sid(const struct record *r)
{
	const char	*sid = record_slurm_id(r);

	return sid != NULL ? strtol(sid, NULL, 10) : 0;
}

static void
monitor_num(struct buf *b, const char *name, long value)
{
	char	num[32];

	snprintf(num, sizeof num, "%ld", value);
	rsh_var(b, name, num);
}

/* The poll's script: templates/remote/poll.sh and its values. */
char *
monitor_script(struct record *const *tracked, size_t n, const char *user,
    const char *marker, const char *sep, char **cause)
{
	struct buf	 b, ids;
	char		*squeue, *sacct = NULL, *base, *term, *tri, *p;
	char		*paths[4];
	long		*sids = NULL;
	time_t		 oldest = time(NULL), t;
	char		 since[16];
	size_t		 i, k, start;
	uint32_t	 rnd;
	int		 idcol, stcol;

	idcol = sacct_column("JobIDRaw");
	stcol = sacct_column("State");
	if (idcol < 0 || stcol < 0) {
		cause_set(cause, "SLURM_SACCT_FIELDS lacks JobIDRaw or State");
		return NULL;
	}
	squeue = slurm_cmd_squeue(user, sep);
	if (n != 0) {
		sids = xcalloc(n, sizeof *sids);
		for (i = 0; i < n; i++) {
			sids[i] = record_sid(tracked[i]);
			t = iso_time_parse(tracked[i]->created);
			if (t != (time_t)-1 && t < oldest)
				oldest = t;
		}
		slurm_since(oldest, since, sizeof since);
		sacct = slurm_cmd_sacct(sids, n, since, user, sep, cause);
		free(sids);
		if (sacct == NULL) {
			free(squeue);
			return NULL;
		}
		/* The ids are chosen on the cluster: keep all but "-j ...". */
		p = strstr(sacct, " -j ");
		if (p == NULL) {
			cause_set(cause, "unexpected sacct command: %s", sacct);
			free(sacct);
			free(squeue);
			return NULL;
		}
		*p = '\0';
	}
	base = sacct;

	buf_init(&b);
	remote_reply_prelude(&b, marker);
	rsh_var(&b, "sq", squeue);
	rsh_var(&b, "sa", base);
	rsh_var(&b, "sep", sep);
	buf_init(&ids);
	buf_adds(&ids, "");
	for (i = 0; i < n; i++)
		buf_printf(&ids, "%s%ld", i ? " " : "", record_sid(tracked[i]));
	rsh_var(&b, "ids", ids.data);
	/* Arrays: sacct lists every task, squeue only those in the queue. */
	buf_free(&ids);
	buf_init(&ids);
	buf_adds(&ids, "");
	for (i = 0; i < n; i++) {
		if (tracked[i]->array != NULL)
			buf_printf(&ids, " %ld", record_sid(tracked[i]));
	}
	rsh_var(&b, "arr", ids.data);
	buf_free(&ids);
	monitor_num(&b, "ic", idcol);
	monitor_num(&b, "sc", stcol);
	term = word_pattern(0);
	tri = word_pattern(1);
	rsh_var(&b, "term", term);
	rsh_var(&b, "tri", tri);
	free(term);
	free(tri);
	monitor_num(&b, "rs", MONITOR_READ_SECS);
	monitor_num(&b, "rb", MONITOR_READ_BUDGET);
	monitor_num(&b, "smax", STATUS_MAX);
	monitor_num(&b, "lmax", LOGTAIL_MAX);
	/* From a random start: the read budget never starves the same jobs. */
	if (n > 1) {
		random_bytes(&rnd, sizeof rnd);
		start = (size_t)(rnd % n);
	} else
		start = 0;
	buf_adds(&b, "set --");
	for (k = 0; k < n; k++) {
		i = (start + k) % n;
		/*
		 * An array's tasks share status.json and the sidecar: none is
		 * read or wiped here (its cleanup job wipes after the last).
		 */
		memset(paths, 0, sizeof paths);
		if (tracked[i]->array == NULL) {
			paths[0] = ops_status_path(tracked[i]);
			paths[1] = ops_log_path(tracked[i], 0);
			paths[2] = ops_log_path(tracked[i], 1);
			paths[3] = ops_env_path(tracked[i]);
		}
		buf_printf(&b, " %ld", record_sid(tracked[i]));
		for (i = 0; i < 4; i++) {
			buf_adds(&b, " ");
			buf_add_quoted(&b, paths[i] != NULL ? paths[i] : "");
			free(paths[i]);
		}
	}
	buf_adds(&b, "\n");
	rsh_embed(&b, "lib-wipe.sh");
	rsh_embed(&b, "poll.sh");
	free(squeue);
	free(sacct);
	return buf_steal(&b);
}

/* --- the snapshot ----------------------------------------------------------- */

static size_t
snap_add(struct monitor_snapshot *snap)
{
	snap->rows = xrealloc(snap->rows, (snap->n + 1) * sizeof *snap->rows);
	snap->info = xrealloc(snap->info, (snap->n + 1) * sizeof *snap->info);
	memset(&snap->rows[snap->n], 0, sizeof *snap->rows);
	memset(&snap->info[snap->n], 0, sizeof *snap->info);
	snap->rows[snap->n].cluster = xstrdup(snap->cluster);
	snap->rows[snap->n].elapsed = -1;
	snap->rows[snap->n].limit = -1;
	return snap->n++;
}

static void
row_from_job(struct jobtable_row *row, const struct slurm_job *j,
    const char *state)
{
	row->id = xstrdup(j->jobid);
	row->name = xstrdup(j->name);
	row->partition = xstrdup(j->partition);
	row->state = xstrdup(state);
	row->elapsed = jobtable_secs(j->elapsed);
	row->limit = j->limit_kind == SLURM_TIME_SET ?
	    jobtable_secs(j->limit) : -1;
	row->nodes = j->nnodes > 0 ? j->nnodes : 0;
	if (*j->end == '\0' && *j->nodelist != '\0' &&
	    strcmp(j->state, "PENDING") != 0)
		row->reason = xstrdup(j->nodelist);
	else if (j->exit_code > 0 || j->exit_signal > 0)
		row->reason = xasprintf("exit %d:%d", j->exit_code,
		    j->exit_signal);
	else
		row->reason = xstrdup(strcmp(j->reason, "None") == 0 ? "" :
		    j->reason);
}

static void
row_from_record(struct jobtable_row *row, const struct record *r)
{
	const char	*sid = record_slurm_id(r);

	row->id = xstrdup(sid != NULL ? sid : r->id);
	row->name = xstrdup(r->job_name != NULL ? r->job_name : "");
	row->partition = xstrdup(r->partition != NULL ? r->partition : "");
	row->state = xstrdup(r->native != NULL && *r->native != '\0' ?
	    r->native : state_word(r->state));
	row->nodes = r->nodes > 0 ? r->nodes : 0;
	row->elapsed = r->elapsed;
	/* An ended job keeps the limit it ran under (0:25/5:00, not 0:25). */
	row->limit = jobtable_secs(record_limit(r));
	if (r->state == RSTATE_ERROR && r->err_class != ERR_NONE)
		row->reason = xasprintf("%s %s", err_class_name(r->err_class),
		    r->err_rule != NULL ? r->err_rule : "");
	else
		row->reason = xstrdup("");
	row->finished = state_terminal(r->state);
}

static void
info_from_record(struct monitor_info *info, const struct record *r)
{
	free(info->record_id);
	info->record_id = xstrdup(r->id);
	info->state = r->state;
	info->err = r->err_class;
	free(info->err_rule);
	info->err_rule = r->err_rule != NULL ? xstrdup(r->err_rule) : NULL;
}

static void
snap_error(struct monitor_snapshot *snap, const char *prefix, const char *what)
{
	char	*msg = xasprintf("%s%s", prefix, what);

	if (snap->error == NULL)
		snap->error = msg;
	else {
		char *both = xasprintf("%s; %s", snap->error, msg);

		free(snap->error);
		free(msg);
		snap->error = both;
	}
}

/* Apply one observation to a record; updates r in memory when it moved. */
static void
observe(struct monitor_snapshot *snap, struct record *r,
    struct monitor_info *info, struct ops_change *ch)
{
	char	*why = NULL;

	ch->only_live = 1;
	if (ops_record_change(r->id, ch, &why) != 0) {
		snap_error(snap, "record not updated: ", why);
		free(why);
		return;
	}
	if (!ch->changed && !ch->set_err)
		return;
	if (ch->changed) {
		strv_add(&snap->events, "");
		free(snap->events.v[snap->events.n - 1]);
		snap->events.v[snap->events.n - 1] = xasprintf("%s: %s -> %s "
		    "(%s)", r->id, state_word(ch->old), state_word(ch->state),
		    ch->message != NULL ? ch->message : "");
		r->state = ch->state;
		free(r->native);
		r->native = xstrdup(ch->native != NULL ? ch->native : "");
		info->changed = 1;
		/* An end is noted for the reaction (ends.h): no more. */
		if (state_terminal(ch->state) && r->cluster != NULL)
			ends_note(r->cluster, r->id);
	}
	if (ch->has_elapsed)
		r->elapsed = (int)ch->elapsed;
	if (ch->set_err) {
		r->err_class = ch->err;
		free(r->err_rule);
		r->err_rule = xstrdup(ch->err_rule != NULL ? ch->err_rule : "");
		free(r->err_evidence);
		r->err_evidence = ch->err_evidence != NULL ?
		    xstrdup(ch->err_evidence) : NULL;
	}
}

static void
in_queue(struct monitor_snapshot *snap, const struct slurm_job *j,
    struct record *r, const char *source)
{
	struct state_map	 m;
	struct ops_change	 ch;
	size_t			 i;
	char			*msg;

	state_map(j->state, STATUS_MISSING, &m);
	i = snap_add(snap);
	row_from_job(&snap->rows[i], j, m.native[0] != '\0' ? m.native :
	    j->state);
	/*
	 * A word we do not know (a newer release's EXPEDITING) is shown as
	 * it is; squeue still lists the job, so it is in the queue.
	 */
	snap->info[i].state = m.state == RSTATE_UNKNOWN && m.raw[0] != '\0' ?
	    RSTATE_PENDING : m.state;
	if (r == NULL)
		return;
	info_from_record(&snap->info[i], r);
	/* A word we do not know says nothing about the record: keep it. */
	if (state_map(j->state, STATUS_MISSING, &m) != 0 ||
	    m.state == RSTATE_UNKNOWN)
		return;
	if (m.state == RSTATE_PENDING)
		msg = xasprintf("squeue: %s (%s)", m.raw, j->reason);
	else if (*j->nodelist != '\0')
		msg = xasprintf("squeue: %s on %s", m.raw, j->nodelist);
	else
		msg = xasprintf("squeue: %s", m.raw);
	memset(&ch, 0, sizeof ch);
	ch.state = m.state;
	ch.native = m.native;
	ch.source = source;
	ch.message = msg;
	observe(snap, r, &snap->info[i], &ch);
	free(msg);
	snap->info[i].state = r->state;
}

static void
left_queue(struct monitor_snapshot *snap, struct slurm_jobs *acct,
    const struct remote_reply *rep, struct record *r, long grace,
    const char *since, const char *source)
{
	const struct remote_section	*st, *out, *err;
	struct slurm_job		*j;
	struct state_map		 m;
	struct ops_change		 ch;
	struct triage_input		 ti;
	struct triage_result		 tr;
	enum status_verdict		 verdict = STATUS_MISSING;
	struct buf			 logs;
	char				 sid[32], exitbuf[32], *msg = NULL;
	char				 printed[32] = "";
	char				*evidence;
	size_t				 i;
	time_t				 t;

	snprintf(sid, sizeof sid, "%ld", record_sid(r));
	i = snap_add(snap);
	info_from_record(&snap->info[i], r);
	if (remote_reply_find(rep, "wiped", sid) != NULL)
		snap->info[i].wiped = 1;
	memset(&ch, 0, sizeof ch);
	ch.source = source;
	j = acct != NULL ? slurm_jobs_find(acct, record_sid(r)) : NULL;
	if (j == NULL) {
		row_from_record(&snap->rows[i], r);
		if (acct == NULL)
			return;	/* sacct failed: that proves nothing */
		/* sacct lags sbatch: give a new job time to show up. */
		t = iso_time_parse(r->updated);
		if (t != (time_t)-1 && time(NULL) - t < grace)
			return;
		msg = xasprintf("job %s is in neither squeue nor sacct -S %s",
		    sid, since);
		ch.state = RSTATE_UNKNOWN;
		ch.native = "";
		ch.message = msg;
		observe(snap, r, &snap->info[i], &ch);
		goto done;
	}

	/* Its files could not be read in time: decide at a later poll. */
	if (remote_reply_find(rep, "stuck", sid) != NULL ||
	    remote_reply_find(rep, "skipped", sid) != NULL) {
		free(snap->rows[i].id);
		row_from_job(&snap->rows[i], j, j->state);
		msg = xasprintf("job %s: its files on the cluster could not be "
		    "read in time (a FIFO or a hung file system?): polled "
		    "again", sid);
		snap_error(snap, "", msg);
		goto done;
	}
	if ((st = remote_reply_find(rep, "status", sid)) != NULL)
		verdict = state_status_verdict(st->data, st->len);
	state_map(j->state, verdict, &m);
	free(snap->rows[i].id);
	row_from_job(&snap->rows[i], j, m.native[0] != '\0' ? m.native :
	    j->state);
	snap->rows[i].finished = m.terminal;
	/* The placeholder row's state may still say PENDING: wait. */
	if (m.state == RSTATE_UNKNOWN || (j->placeholder && !m.terminal))
		goto done;
	/* What sacct printed, when it is not what is kept. */
	if (j->exit_folded)
		snprintf(printed, sizeof printed, " (sacct: %d:%d)",
		    j->exit_code + 128, j->exit_signal);
	if (m.needs_status)
		msg = xasprintf("sacct: %s, exit %d:%d%s, status.json: %s",
		    m.raw, j->exit_code, j->exit_signal, printed,
		    status_verdict_name(verdict));
	else
		msg = xasprintf("sacct: %s, exit %d:%d%s", m.raw, j->exit_code,
		    j->exit_signal, printed);
	ch.state = m.state;
	ch.native = m.native;
	ch.message = msg;
	if (m.terminal) {
		ch.has_elapsed = j->elapsed >= 0;
		ch.elapsed = j->elapsed;
		if (j->exit_code >= 0) {
			snprintf(exitbuf, sizeof exitbuf, "%d:%d",
			    j->exit_code, j->exit_signal);
			ch.exit_code = exitbuf;
		}
	}
	if (m.state == RSTATE_ERROR) {
		buf_init(&logs);
		if ((out = remote_reply_find(rep, "out", sid)) != NULL)
			buf_add(&logs, out->data, out->len);
		if ((err = remote_reply_find(rep, "err", sid)) != NULL) {
			buf_adds(&logs, "\n");
			buf_add(&logs, err->data, err->len);
		}
		memset(&ti, 0, sizeof ti);
		ti.state = j->state;
		ti.has_exit = j->exit_code >= 0;
		ti.exit_code = j->exit_code;
		ti.exit_signal = j->exit_signal;
		ti.log = logs.data;
		ti.loglen = logs.len;
		triage_classify(&ti, &tr);
		ch.set_err = 1;
		ch.err = tr.class;
		ch.err_rule = tr.rule != NULL ? tr.rule->name : "";
		evidence = triage_evidence(&tr);
		ch.err_evidence = evidence;
		observe(snap, r, &snap->info[i], &ch);
		free(evidence);
		buf_free(&logs);
	} else
		observe(snap, r, &snap->info[i], &ch);
done:
	free(msg);
	snap->info[i].state = r->state;
	snap->info[i].err = r->err_class;
	if (r->state == RSTATE_UNKNOWN) {
		free(snap->rows[i].state);
		snap->rows[i].state = xstrdup("UNKNOWN");
	}
}

/*
 * A tracked array (array.h): its tasks from sacct, then squeue (the
 * fresher), summed up into the record's one state; the task rows stay
 * rows of their own.
 */
static void
array_observe(struct monitor_snapshot *snap, const struct slurm_jobs *queue,
    const struct slurm_jobs *acct, struct record *r, const char *source)
{
	struct array_status	 as;
	struct ops_change	 ch;
	char			 sid[32], *summary, *tasks, *msg, *why = NULL;
	enum rstate		 st;
	size_t			 i;
	int			 pass;

	i = snap_add(snap);
	row_from_record(&snap->rows[i], r);
	info_from_record(&snap->info[i], r);
	if (array_status_init(&as, r->array) != 0)
		return;
	snprintf(sid, sizeof sid, "%ld", record_sid(r));
	/* Ranges first: a row of one task is more precise. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; acct != NULL && i < acct->n; i++) {
			if (array_row_is_range(sid, acct->v[i].jobid) == !pass)
				array_status_row(&as, sid, acct->v[i].jobid,
				    acct->v[i].state);
		}
		for (i = 0; i < queue->n; i++) {
			if (array_row_is_range(sid, queue->v[i].jobid) == !pass)
				array_status_row(&as, sid, queue->v[i].jobid,
				    queue->v[i].state);
		}
	}
	st = array_status_verdict(&as, &summary, &tasks);
	array_status_free(&as);
	/* Nothing seen (sacct lags sbatch, or failed): decide later. */
	if (st != RSTATE_UNKNOWN) {
		if (r->array_tasks == NULL || strcmp(r->array_tasks, tasks)) {
			if (record_set(r->id, "array_tasks", tasks, &why) != 0) {
				snap_error(snap, "record not updated: ", why);
				free(why);
			} else {
				free(r->array_tasks);
				r->array_tasks = xstrdup(tasks);
			}
		}
		msg = xasprintf("array %s: %s", sid, summary);
		memset(&ch, 0, sizeof ch);
		ch.state = st;
		ch.native = state_word(st);
		ch.source = source;
		ch.message = msg;
		observe(snap, r, &snap->info[snap->n - 1], &ch);
		free(msg);
		snap->info[snap->n - 1].state = r->state;
	}
	free(summary);
	free(tasks);
}

/* jobid ("12_3", "12_[4-9]") is a task of array record r. */
static int
monitor_task_of(const struct record *r, const char *jobid)
{
	char	sid[32];
	size_t	len;

	len = (size_t)snprintf(sid, sizeof sid, "%ld_", record_sid(r));
	return strncmp(jobid, sid, len) == 0;
}

/* Poll answers this thread parsed (monitor_parses_here). */
static _Thread_local unsigned long	monitor_parses;

unsigned long
monitor_parses_here(void)
{
	return monitor_parses;
}

/*
 * What a poll's answer depends on: the script (the tracked jobs and
 * their files), the records read (a local change), and the answer.
 */
static uint64_t
monitor_digest(const char *script, const struct record_list *list,
    const char *out, size_t outlen, const char *marker, const char *sep)
{
	uint64_t	h = SLURM_DIGEST_INIT;
	size_t		i;

	h = slurm_digest(h, script, strlen(script), marker, sep);
	for (i = 0; i < list->n; i++) {
		const struct record	*r = list->v[i];

		h = slurm_digest(h, r->id, strlen(r->id), marker, sep);
		if (r->updated != NULL)
			h = slurm_digest(h, r->updated, strlen(r->updated),
			    marker, sep);
		h = (h ^ (uint64_t)r->state) * 1099511628211ULL;
	}
	return slurm_digest(h, out != NULL ? out : "", outlen, marker, sep);
}

int
monitor_poll(struct conn *c, const char *cluster,
    const struct monitor_opts *opts, struct monitor_snapshot *snap,
    char **cause)
{
	struct monitor_opts		 dflt;
	struct record_list		 list;
	struct record			**tracked = NULL;
	struct conn_result		 res;
	struct remote_reply		 rep;
	const struct remote_section	*sq, *sa;
	struct slurm_jobs		 queue, acct;
	char				 marker[32], since[16], *script = NULL;
	char				 sep[SLURM_SEP_SIZE];
	char				*why = NULL, *text;
	const char			*source;
	size_t				 i, k, ntracked = 0;
	unsigned char			*seen = NULL;
	time_t				 recent_since, t, oldest;
	long				 recent, grace;
	int				 rc = -1, have_acct = 0;
	uint64_t			 digest = 0;
	char				*gone;

	memset(snap, 0, sizeof *snap);
	memset(&list, 0, sizeof list);
	memset(&res, 0, sizeof res);
	memset(&rep, 0, sizeof rep);
	memset(&queue, 0, sizeof queue);
	memset(&acct, 0, sizeof acct);
	if (opts == NULL) {
		memset(&dflt, 0, sizeof dflt);
		opts = &dflt;
	}
	source = opts->source != NULL ? opts->source : "poll";
	recent = opts->recent != 0 ? opts->recent : MONITOR_RECENT;
	grace = opts->grace > 0 ? opts->grace : MONITOR_GRACE;
	snap->cluster = xstrdup(cluster);

	if ((opts->index != NULL ? record_index_select(opts->index, cluster,
	    recent < 0 ? (time_t)-1 : time(NULL) - recent, &list, &why) :
	    record_list(&list, &why)) != 0) {
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	tracked = xcalloc(list.n + 1, sizeof *tracked);
	oldest = time(NULL);
	for (i = 0; i < list.n; i++) {
		struct record *r = list.v[i];

		/* An ended array (cancelled) is asked until its tasks end. */
		if (r->cluster == NULL || strcmp(r->cluster, cluster) != 0 ||
		    record_sid(r) <= 0 || (state_terminal(r->state) &&
		    !(r->array != NULL && array_tasks_live(r->array_tasks))))
			continue;
		tracked[ntracked++] = r;
		t = iso_time_parse(r->created);
		if (t != (time_t)-1 && t < oldest)
			oldest = t;
	}
	snap->tracked = ntracked;
	slurm_since(oldest, since, sizeof since);
	seen = xcalloc(ntracked + 1, 1);

	slurm_sep_new(sep, sizeof sep);
	if (remote_marker(marker, sizeof marker) != 0 ||
	    (script = monitor_script(tracked, ntracked, opts->user, marker,
	    sep, cause)) == NULL)
		goto fallback;
	snap->commands++;
	snap->sched_calls++;	/* squeue, even if its answer is lost */
	if (rsh_run_limit(c, script, 0, CONN_MAXOUT, &res, &why) != 0) {
		cause_set(cause, "poll of %s: %s", cluster, why);
		goto fallback;
	}
	snap->polled = time(NULL);
	/*
	 * The same answer as the last poll's changes nothing: no parse, no
	 * row, no message (32 idle clusters parsed and sent every row of
	 * theirs every 5 s).  Not when a tracked job left the queue (sacct
	 * was asked): whether it is lost depends on the time too.
	 */
	if (opts->digest != NULL) {
		gone = xasprintf("\n%s sacct ", marker);
		digest = monitor_digest(script, &list, res.out, res.outlen,
		    marker, sep);
		if (res.status == 0 && digest == *opts->digest &&
		    (res.out == NULL || strstr(res.out, gone) == NULL)) {
			free(gone);
			snap->ok = 1;
			snap->unchanged = 1;
			rc = 0;
			goto out;
		}
		free(gone);
		*opts->digest = 0;
	}
	monitor_parses++;
	if (remote_reply_parse(res.out, res.outlen, marker, "the poll",
	    &rep, &why) != 0) {
		cause_set(cause, "poll of %s: %s (exit %d: %s)", cluster, why,
		    res.status, res.errlen != 0 ? res.err : "");
		goto fallback;
	}
	sq = remote_reply_find(&rep, "squeue", NULL);
	if (sq == NULL || strcmp(sq->arg, "0") != 0) {
		text = sq != NULL ? ops_sanitize(sq->data, sq->len, NULL) :
		    xstrdup("no answer");
		cause_set(cause, "squeue on %s failed: %s", cluster,
		    str_trim(text));
		free(text);
		goto fallback;
	}
	text = xstrndup(sq->data, sq->len);
	if (slurm_parse_squeue(text, sep, &queue, &why) != 0) {
		snap_error(snap, "", why);
		free(why);
		why = NULL;
	}
	free(text);
	snap->ok = 1;

	sa = remote_reply_find(&rep, "sacct", NULL);
	if (sa != NULL)
		snap->sched_calls++;
	if (sa != NULL && strcmp(sa->arg, "0") == 0) {
		text = xstrndup(sa->data, sa->len);
		if (slurm_parse_sacct(text, sep, &acct, &why) != 0) {
			snap_error(snap, "", why);
			free(why);
			why = NULL;
		}
		free(text);
		have_acct = 1;
	} else if (sa != NULL) {
		text = ops_sanitize(sa->data, sa->len, NULL);
		snap_error(snap, "sacct failed: ", str_trim(text));
		free(text);
	}
	if (!rep.complete)
		snap_error(snap, "", "the poll reply was cut short");

	/* Every job of the user in the queue, tracked or not. */
	for (i = 0; i < queue.n; i++) {
		struct record *r = NULL;

		for (k = 0; k < ntracked; k++) {
			if (tracked[k]->array != NULL && monitor_task_of(
			    tracked[k], queue.v[i].jobid))
				break;
			if (tracked[k]->array == NULL &&
			    record_sid(tracked[k]) == queue.v[i].id) {
				r = tracked[k];
				seen[k] = 1;
				break;
			}
		}
		in_queue(snap, &queue.v[i], r, source);
	}
	/* Arrays: their tasks summed up. */
	for (k = 0; k < ntracked; k++) {
		if (tracked[k]->array == NULL)
			continue;
		seen[k] = 1;
		array_observe(snap, &queue, have_acct ? &acct : NULL,
		    tracked[k], source);
	}
	/* Tracked jobs that left it: sacct says how they ended. */
	for (k = 0; k < ntracked; k++) {
		if (seen[k])
			continue;
		/* No sacct section at all: the script found none missing. */
		left_queue(snap, have_acct ? &acct : NULL, &rep, tracked[k],
		    grace, since, source);
	}
	rc = 0;
	/* Only an answer taken whole stands for the next one. */
	if (opts->digest != NULL && snap->error == NULL && rep.complete &&
	    !have_acct)
		*opts->digest = digest;
	goto finished;

fallback:
	free(why);
	why = NULL;
	for (k = 0; k < ntracked; k++) {
		i = snap_add(snap);
		row_from_record(&snap->rows[i], tracked[k]);
		info_from_record(&snap->info[i], tracked[k]);
	}
finished:
	/* Finished records of this cluster, newest last. */
	recent_since = recent < 0 ? 0 : time(NULL) - recent;
	for (i = 0; i < list.n; i++) {
		struct record	*r = list.v[i];
		int		 dup = 0;

		if (r->cluster == NULL || strcmp(r->cluster, cluster) != 0 ||
		    !state_terminal(r->state))
			continue;
		for (k = 0; k < ntracked; k++) {
			if (tracked[k] == r)
				dup = 1;	/* ended in this poll: has a row */
		}
		t = iso_time_parse(r->updated);
		if (dup || (recent >= 0 && (t == (time_t)-1 ||
		    t < recent_since)))
			continue;
		k = snap_add(snap);
		row_from_record(&snap->rows[k], r);
		info_from_record(&snap->info[k], r);
	}
out:
	free(why);
	free(seen);
	free(script);
	free(tracked);
	slurm_jobs_free(&queue);
	slurm_jobs_free(&acct);
	remote_reply_free(&rep);
	conn_result_free(&res);
	record_list_free(&list);
	return rc;
}

void
monitor_snapshot_free(struct monitor_snapshot *snap)
{
	size_t	i;

	for (i = 0; i < snap->n; i++) {
		jobtable_row_clear(&snap->rows[i]);
		free(snap->info[i].record_id);
		free(snap->info[i].err_rule);
	}
	free(snap->rows);
	free(snap->info);
	free(snap->cluster);
	free(snap->error);
	strv_free(&snap->events);
	memset(snap, 0, sizeof *snap);
}
