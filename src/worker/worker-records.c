/*
 * The workers: the local records, read in a thread of their own so that
 * the screen's thread never waits for the disk.  It answers the screen's
 * first load (every record as a row) and each detail view (one record,
 * found through an index that re-reads only the files that changed).
 */
#include "worker-int.h"

void
rreq_free(struct rreq *r)
{
	free(r->cluster);
	free(r->job_id);
	free(r);
}

/* A record as the jobs pane shows it before any poll. */
static int
records_row(const struct config *cfg, const struct record *rec,
    struct jobtable_row *r)
{
	const char	*sid = record_slurm_id(rec);
	char		*why, *t;
	int		 orphan = 0;

	if (sid == NULL || rec->cluster == NULL)
		return -1;
	memset(r, 0, sizeof *r);
	r->cluster = xstrdup(rec->cluster);
	r->id = xstrdup(sid);
	r->name = xstrdup(rec->job_name != NULL ? rec->job_name : "");
	r->partition = xstrdup(rec->partition != NULL ? rec->partition : "");
	r->state = xstrdup(rec->native != NULL && *rec->native != '\0' ?
	    rec->native : state_word(rec->state));
	why = cfg != NULL ? ops_orphan_why(cfg, rec) : NULL;
	if (why != NULL) {
		t = ops_clean(rec->cluster);
		r->reason = xasprintf("(record) not polled: no cluster %s in "
		    "the configuration", t);
		free(t);
		free(why);
		orphan = 1;
	} else
		r->reason = xstrdup("(record)");
	/* What the record knows of how long it ran, and its limit. */
	r->elapsed = rec->elapsed >= 0 ? rec->elapsed : -1;
	r->limit = record_limit(rec);
	r->nodes = rec->nodes;
	r->finished = state_terminal(rec->state);
	/* Whose job: the TUI's "mine" view (V) tells another user's apart. */
	if (rec->user != NULL && *rec->user != '\0')
		r->user = xstrdup(rec->user);
	return orphan;
}

/*
 * Every record as a row.  A record of a cluster the configuration does
 * not have is never polled: its row says so (its detail, how to fix it).
 */
static void
records_load(struct workers *ws, struct record_index *ix, struct strv *said)
{
	struct msg		*m = msg_new(MSG_RECORDS);
	struct msg_records	*mr = &m->u.records;
	struct record_list	 list;
	char			*cause = NULL;
	size_t			 i, norphan = 0;
	int			 rc;

	if (record_index_refresh(ix, &list, &cause) != 0) {
		mr->message = xasprintf("records: %s", cause);
		mr->error = 1;
		free(cause);
		workers_post(ws, m);
		return;
	}
	mr->rows = xcalloc(list.n + 1, sizeof *mr->rows);
	for (i = 0; i < list.n; i++) {
		if ((rc = records_row(ws->cfg, list.v[i],
		    &mr->rows[mr->nrows])) < 0)
			continue;
		norphan += rc;
		mr->nrows++;
	}
	if (list.corrupt.n > 0) {
		mr->message = xasprintf("%zu unreadable record(s): %s",
		    list.corrupt.n, list.corrupt.v[0]);
		mr->error = 1;
	} else if (norphan > 0) {
		mr->message = xasprintf("%zu record(s) of a cluster the "
		    "configuration does not have are not polled: Enter on "
		    "one says how to fix it", norphan);
		mr->error = 1;
	} else if (said->n > 0)
		mr->message = xasprintf("%s%s", said->v[0], said->n > 1 ?
		    " (and others: sqdeck records)" : "");
	strv_free(said);
	record_list_free(&list);
	workers_post(ws, m);
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
	struct record_index	*ix = record_index_new();
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
			ops_adopt(ws->cfg, &said);
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
	record_index_free(ix);
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
