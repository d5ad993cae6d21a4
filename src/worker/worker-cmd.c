/*
 * The workers' API for the UI thread: each call queues a request for a
 * cluster's worker and returns at once.
 */
#include "worker-int.h"

static struct worker *
worker_find(struct workers *ws, const char *cluster)
{
	size_t	i;

	for (i = 0; i < ws->n; i++) {
		if (strcmp(ws->v[i].cl->name, cluster) == 0)
			return &ws->v[i];
	}
	return NULL;
}

void
workers_poll_now(struct workers *ws, const char *cluster)
{
	size_t	i;

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < ws->n; i++) {
		if (cluster == NULL || strcmp(ws->v[i].cl->name, cluster) == 0)
			ws->v[i].poll_now = 1;
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

void
workers_watch_log(struct workers *ws, const char *cluster, const char *job_id,
    enum log_stream stream, uint64_t offset)
{
	size_t	i;

	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < ws->n; i++) {
		struct worker	*w = &ws->v[i];
		int		 mine = cluster != NULL && job_id != NULL &&
				     strcmp(w->cl->name, cluster) == 0;

		if (!mine && w->log_id == NULL)
			continue;
		free(w->log_id);
		w->log_id = mine ? xstrdup(job_id) : NULL;
		w->log_stream = stream;
		w->log_offset = offset;
		w->log_gen++;
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

static void
queue_cmd(struct worker *w, struct wcmd *c)
{
	*w->cmdtail = c;
	w->cmdtail = &c->next;
}

/* Queue a command for a worker and wake the workers. */
static void
post_cmd(struct workers *ws, struct worker *w, struct wcmd *c)
{
	pthread_mutex_lock(&ws->lock);
	queue_cmd(w, c);
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
}

int
workers_cancel(struct workers *ws, const struct jobtable_key *keys, size_t n,
    char **cause)
{
	struct wcmd	*c;
	size_t		 i;

	/* All or nothing: check every cluster before queueing any. */
	for (i = 0; i < n; i++) {
		if (worker_find(ws, keys[i].cluster) == NULL)
			return cause_set(cause, "cluster %s is not in the "
			    "configuration: its job %s cannot be cancelled "
			    "from here", keys[i].cluster, keys[i].id);
	}
	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < n; i++) {
		c = xcalloc(1, sizeof *c);
		c->type = WCMD_CANCEL;
		c->job_id = xstrdup(keys[i].id);
		c->name = keys[i].name != NULL ? xstrdup(keys[i].name) : NULL;
		queue_cmd(worker_find(ws, keys[i].cluster), c);
	}
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

int
workers_submit(struct workers *ws, const char *cluster, const struct spec *sp,
    int dry_run, char **cause)
{
	return workers_submit_as(ws, cluster, NULL, sp, dry_run, cause);
}

int
workers_submit_as(struct workers *ws, const char *cluster, const char *user,
    const struct spec *sp, int dry_run, char **cause)
{
	return workers_submit_rec(ws, cluster, user, sp, dry_run, NULL, cause);
}

int
workers_submit_rec(struct workers *ws, const char *cluster, const char *user,
    const struct spec *sp, int dry_run, const char *record_id, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;
	struct buf	 b;

	if ((w = worker_find(ws, cluster)) == NULL)
		return cause_set(cause, "cluster %s is not in the "
		    "configuration", cluster);
	/* A deep copy the worker owns: the spec as YAML, parsed back there. */
	buf_init(&b);
	if (spec_write(sp, &b, cause) != 0) {
		buf_free(&b);
		return -1;
	}
	c = xcalloc(1, sizeof *c);
	c->type = WCMD_SUBMIT;
	c->spec_yaml = buf_steal(&b);
	c->user = user != NULL ? xstrdup(user) : NULL;
	c->dry_run = dry_run;
	c->record_id = record_id != NULL ? xstrdup(record_id) : NULL;
	post_cmd(ws, w, c);
	return 0;
}

/* A command for cluster's worker; NULL and a cause if it has none. */
static struct wcmd *
cmd_new(struct workers *ws, const char *cluster, enum wcmd_type type,
    const char *job_id, struct worker **wp, char **cause)
{
	struct wcmd	*c;

	if ((*wp = worker_find(ws, cluster)) == NULL) {
		cause_set(cause, "cluster %s is not in the configuration",
		    cluster);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->type = type;
	c->job_id = job_id != NULL ? xstrdup(job_id) : NULL;
	return c;
}

int
workers_fetch_spec(struct workers *ws, const char *cluster, const char *job_id,
    char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if ((c = cmd_new(ws, cluster, WCMD_SPEC, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

/* A request about one plain job id (what says who refuses the others). */
static int
post_plain_job(struct workers *ws, const char *cluster, const char *job_id,
    enum wcmd_type type, const char *what, char **cause)
{
	struct worker	*w;
	struct wcmd	*c;
	struct jobid	 jid;

	if (worker_find(ws, cluster) != NULL &&
	    jobid_parse(job_id, &jid) != JOBID_JOB)
		return cause_set(cause, "job %s: %s takes a plain job id",
		    job_id, what);
	if ((c = cmd_new(ws, cluster, type, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_start_estimate(struct workers *ws, const char *cluster,
    const char *job_id, char **cause)
{
	return post_plain_job(ws, cluster, job_id, WCMD_START,
	    "squeue --start", cause);
}

/* "123", an array task "123_4" or pending tasks "123_[4-9]" (jobid.h). */
static int
hold_id_ok(const char *id)
{
	struct jobid	jid;

	jobid_parse(id, &jid);
	return jobid_slurm(&jid);
}

int
workers_hold(struct workers *ws, const struct jobtable_key *keys, size_t n,
    int release, char **cause)
{
	return workers_act(ws, keys, n, release ? JOBACT_RELEASE :
	    JOBACT_HOLD, NULL, cause);
}

int
workers_act(struct workers *ws, const struct jobtable_key *keys, size_t n,
    int act, const char *value, char **cause)
{
	struct worker	*w, **ws_of;
	struct wcmd	**cs;
	char		*v = NULL;
	size_t		 i, j, nc = 0;

	/* All or nothing: check every key and the value before queueing. */
	for (i = 0; i < n; i++) {
		if (worker_find(ws, keys[i].cluster) == NULL)
			return cause_set(cause, "cluster %s is not in the "
			    "configuration", keys[i].cluster);
		if (!hold_id_ok(keys[i].id))
			return cause_set(cause, "job %s: scontrol %s takes a "
			    "job id", keys[i].id, jobact_word(act));
	}
	if ((act == JOBACT_SIGNAL || act == JOBACT_SIGNAL_BATCH) &&
	    jobact_signal(value, &v, cause) != 0)
		return -1;
	if (act == JOBACT_TIME) {
		if (jobact_time(value, cause) != 0)
			return -1;
		v = xstrdup(value);
	}
	/* One request per cluster, its ids in the order given. */
	ws_of = xcalloc(n + 1, sizeof *ws_of);
	cs = xcalloc(n + 1, sizeof *cs);
	for (i = 0; i < n; i++) {
		w = worker_find(ws, keys[i].cluster);
		for (j = 0; j < nc && ws_of[j] != w; j++)
			;
		if (j == nc) {
			ws_of[nc] = w;
			cs[nc] = xcalloc(1, sizeof *cs[nc]);
			cs[nc]->type = WCMD_HOLD;
			cs[nc]->release = act == JOBACT_RELEASE;
			cs[nc]->act = act;
			cs[nc]->value = v != NULL ? xstrdup(v) : NULL;
			nc++;
		}
		strv_add(&cs[j]->ids, keys[i].id);
	}
	free(v);
	pthread_mutex_lock(&ws->lock);
	for (j = 0; j < nc; j++)
		queue_cmd(ws_of[j], cs[j]);
	pthread_cond_broadcast(&ws->cond);
	pthread_mutex_unlock(&ws->lock);
	free(ws_of);
	free(cs);
	return 0;
}

int
workers_gpu(struct workers *ws, const char *cluster, const char *job_id,
    char **cause)
{
	struct worker	*w;
	struct wcmd	*c;
	struct jobid	 jid;

	jobid_parse(job_id, &jid);
	if (worker_find(ws, cluster) != NULL && jid.kind != JOBID_JOB &&
	    jid.kind != JOBID_TASK)
		return cause_set(cause, "job %s: nvidia-smi is asked of one "
		    "running job", job_id);
	if ((c = cmd_new(ws, cluster, WCMD_GPU, job_id, &w, cause)) == NULL)
		return -1;
	post_cmd(ws, w, c);
	return 0;
}

int
workers_efficiency(struct workers *ws, const char *cluster,
    const char *job_id, char **cause)
{
	return post_plain_job(ws, cluster, job_id, WCMD_EFF, "efficiency",
	    cause);
}

int
workers_soonest(struct workers *ws, const char *cluster, const struct spec *sp,
    char **cause)
{
	struct worker	*w;
	struct wcmd	*c;

	if ((c = cmd_new(ws, cluster, WCMD_SOONEST, NULL, &w, cause)) == NULL)
		return -1;
	if (sp == NULL) {
		c->res[0] = -1;		/* forget the one waiting */
		post_cmd(ws, w, c);
		return 0;
	}
	c->res[0] = sp->nodes;
	c->res[1] = sp->gpus;
	c->res[2] = sp->gpus_per_node;
	c->res[3] = sp->cpus;
	c->res[4] = sp->time_minutes;
	post_cmd(ws, w, c);
	return 0;
}
