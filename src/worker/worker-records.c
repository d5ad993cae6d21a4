/*
 * The workers: the local records, read in a thread of their own so that
 * the screen's thread never waits for the disk.  It answers the screen's
 * first load (every record as a row) and each detail view (one record,
 * found through an index that re-reads only the files that changed).
 */
#include "worker-int.h"

static void
records_index_take(void *arg)
{
	pthread_mutex_lock(arg);
}

static void
records_index_give(void *arg)
{
	pthread_mutex_unlock(arg);
}

/*
 * The one index of the local records, shared by the records thread and
 * every cluster's polls: 32 clusters with a week of history kept 32
 * copies of it and read every file 32 times (issue 25).
 */
struct record_index *
records_index(struct workers *ws)
{
	struct record_index	*ix;

	pthread_mutex_lock(&ws->lock);
	if (ws->rindex == NULL) {
		pthread_mutex_init(&ws->rindex_lock, NULL);
		ws->rindex = record_index_new();
		record_index_set_lock(ws->rindex, records_index_take,
		    records_index_give, &ws->rindex_lock);
	}
	ix = ws->rindex;
	pthread_mutex_unlock(&ws->lock);
	return ix;
}

/* When every thread that used it is gone. */
void
records_index_free(struct workers *ws)
{
	if (ws->rindex == NULL)
		return;
	record_index_free(ws->rindex);
	pthread_mutex_destroy(&ws->rindex_lock);
	ws->rindex = NULL;
}

void
rreq_free(struct rreq *r)
{
	free(r->cluster);
	free(r->job_id);
	free(r);
}

/*
 * Rows a message carries: the screen applies what fits in a few ms a
 * turn and reads the keys between (4096 rows a batch took the screen
 * 10-40 ms each on a loaded machine).
 */
#define RECORDS_BATCH	1024

/* A load in progress: the batch being filled. */
struct records_load {
	struct workers		*ws;
	struct msg		*m;
	size_t			 nrows;
	size_t			 norphan;
};

/*
 * Wait (bounded) until the screen took what was posted: a week of history
 * goes as 189 batches, not 193,000 rows in the queue at once.  The polls'
 * messages of 32 clusters come meanwhile: a queue of two is taken.
 */
static void
records_pace(struct workers *ws)
{
	struct timespec	ts = { 0, 2 * 1000 * 1000 };
	int		i;

	for (i = 0; i < 1000 && !ws->quit && msgq_length(ws->q) > 2; i++)
		nanosleep(&ts, NULL);
}

static void
records_flush(struct records_load *l)
{
	if (l->m == NULL)
		return;
	workers_post(l->ws, l->m);
	l->m = NULL;
	records_pace(l->ws);
}

/* Whether the configuration has the cluster (ops_orphan_why's test). */
static int
records_known(const struct config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nclusters; i++) {
		if (strcmp(cfg->clusters[i].name, name) == 0)
			return 1;
	}
	return 0;
}

/*
 * A record as the jobs pane shows it before any poll.  A record of a
 * cluster the configuration does not have is never polled: its row says
 * so (its detail, how to fix it).
 */
static void
records_row(const struct record_brief *b, void *arg)
{
	struct records_load	*l = arg;
	const struct config	*cfg = l->ws->cfg;
	struct msg_records	*mr;
	struct jobtable_row	*r;
	char			*t;

	if (b->sid == NULL || b->cluster == NULL)
		return;
	if (l->m == NULL) {
		l->m = msg_new(MSG_RECORDS);
		l->m->u.records.rows = xcalloc(RECORDS_BATCH,
		    sizeof *l->m->u.records.rows);
		l->m->u.records.more = 1;
	}
	mr = &l->m->u.records;
	r = &mr->rows[mr->nrows++];
	r->cluster = xstrdup(b->cluster);
	r->id = xstrdup(b->sid);
	r->name = xstrdup(b->name);
	r->partition = xstrdup(b->partition);
	r->state = xstrdup(b->state);
	if (cfg != NULL && !records_known(cfg, b->cluster)) {
		t = ops_clean(b->cluster);
		r->reason = xasprintf("(record) not polled: no cluster %s in "
		    "the configuration", t);
		free(t);
		l->norphan++;
	} else
		r->reason = xstrdup("(record)");
	/* What the record knows of how long it ran, and its limit. */
	r->elapsed = jobtable_secs(b->elapsed);
	r->limit = jobtable_secs(b->limit);
	r->nodes = b->nodes;
	r->finished = b->terminal;
	/* Whose job: the TUI's "mine" view (V) tells another user's apart. */
	if (b->user != NULL)
		r->user = xstrdup(b->user);
	l->nrows++;
	if (mr->nrows == RECORDS_BATCH)
		records_flush(l);
}

/*
 * Every record as a row, from the index (no file is read twice: the polls
 * share it), in batches; the last message says what the footer shows.
 */
static void
records_load(struct workers *ws, struct record_index *ix, struct strv *said)
{
	struct records_load	 l;
	struct msg_records	*mr;
	struct strv		 corrupt;
	char			*cause = NULL;

	memset(&l, 0, sizeof l);
	memset(&corrupt, 0, sizeof corrupt);
	l.ws = ws;
	if (record_index_rows(ix, &corrupt, records_row, &l, &cause) != 0) {
		records_flush(&l);
		l.m = msg_new(MSG_RECORDS);
		l.m->u.records.message = xasprintf("records: %s", cause);
		l.m->u.records.error = 1;
		free(cause);
		workers_post(ws, l.m);
		strv_free(&corrupt);
		return;
	}
	if (l.m == NULL)
		l.m = msg_new(MSG_RECORDS);
	mr = &l.m->u.records;
	mr->more = 0;
	if (corrupt.n > 0) {
		mr->message = xasprintf("%zu unreadable record(s): %s",
		    corrupt.n, corrupt.v[0]);
		mr->error = 1;
	} else if (l.norphan > 0) {
		mr->message = xasprintf("%zu record(s) of a cluster the "
		    "configuration does not have are not polled: Enter on "
		    "one says how to fix it", l.norphan);
		mr->error = 1;
	} else if (said->n > 0)
		mr->message = xasprintf("%s%s", said->v[0], said->n > 1 ?
		    " (and others: sqdeck records)" : "");
	strv_free(said);
	strv_free(&corrupt);
	workers_post(ws, l.m);
}

/* One job's record, for its detail view. */
static void
records_detail(struct workers *ws, struct record_index *ix,
    const struct rreq *q)
{
	struct msg		*m = msg_new(MSG_ACTION);
	struct msg_action	*a = &m->u.action;
	struct record		*rec;
	const char		*id;
	char			*cause = NULL;

	a->kind = ACTION_DETAIL;
	a->cluster = xstrdup(q->cluster);
	a->job_id = xstrdup(q->job_id);
	a->done = 1;
	if (record_index_refresh(ix, NULL, &cause) != 0)
		goto fail;
	if ((id = record_index_find(ix, q->cluster, q->job_id)) == NULL) {
		workers_post(ws, m);	/* no record: not launched here */
		return;
	}
	if (record_load(id, &rec, &cause) != 0)
		goto fail;
	a->message = record_to_json(rec);
	record_free(rec);
	workers_post(ws, m);
	return;
fail:
	a->failed = 1;
	a->message = cause;
	workers_post(ws, m);
}

void *
records_main(void *arg)
{
	struct workers		*ws = arg;
	struct record_index	*ix = records_index(ws);
	struct strv		 said;
	struct rreq		*list, *r;
	int			 adopt;

	memset(&said, 0, sizeof said);
	pthread_mutex_lock(&ws->lock);
	adopt = ws->adopting;
	pthread_mutex_unlock(&ws->lock);
	if (adopt) {
		/* Before any poll: records of a cluster name now gone. */
		if (ws->cfg != NULL && ws->cfg->nclusters > 0)
			ops_adopt_index(ws->cfg, ix, &said);
		pthread_mutex_lock(&ws->lock);
		ws->adopting = 0;
		pthread_cond_broadcast(&ws->cond);
		pthread_mutex_unlock(&ws->lock);
	}
	pthread_mutex_lock(&ws->lock);
	while (!ws->quit) {
		if ((list = ws->rreqs) == NULL) {
			pthread_cond_wait(&ws->cond, &ws->lock);
			continue;
		}
		ws->rreqs = NULL;
		ws->rtail = &ws->rreqs;
		pthread_mutex_unlock(&ws->lock);
		while ((r = list) != NULL) {
			list = r->next;
			if (r->cluster == NULL)
				records_load(ws, ix, &said);
			else
				records_detail(ws, ix, r);
			rreq_free(r);
		}
		pthread_mutex_lock(&ws->lock);
	}
	ws->rexited = 1;
	pthread_cond_broadcast(&ws->exited);
	pthread_mutex_unlock(&ws->lock);
	strv_free(&said);
	return NULL;
}

static int
records_ask(struct workers *ws, const char *cluster, const char *job_id,
    char **cause)
{
	struct rreq	*r;

	if (ws == NULL || !ws->rstarted)
		return cause_set(cause, "the local records are not read here");
	r = xcalloc(1, sizeof *r);
	r->cluster = cluster != NULL ? xstrdup(cluster) : NULL;
	r->job_id = job_id != NULL ? xstrdup(job_id) : NULL;
	pthread_mutex_lock(&ws->lock);
	*ws->rtail = r;
	ws->rtail = &r->next;
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

int
workers_records(struct workers *ws, char **cause)
{
	return records_ask(ws, NULL, NULL, cause);
}

int
workers_detail(struct workers *ws, const char *cluster, const char *job_id,
    char **cause)
{
	if (cluster == NULL || job_id == NULL)
		return cause_set(cause, "no job");
	return records_ask(ws, cluster, job_id, cause);
}
