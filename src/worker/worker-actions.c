/*
 * The workers: what the user asks of one cluster (cancel, hold, start
 * estimate, efficiency, soonest start) and the submit threads.
 */
#include "worker-int.h"

/* --- requests ------------------------------------------------------------- */

void
do_cancel(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct record		*rec = NULL;
	struct ops_cancel	 oc;
	struct jobid		 jid;
	char			*cause = NULL;
	long			 sid;
	int			 rc;

	memset(&oc, 0, sizeof oc);
	if (jobid_parse(c->job_id, &jid) != JOBID_JOB) {
		/* An array task or pending range: sqdeck keeps no record. */
		/* scancel */
		budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
		rc = ops_cancel_task(st->conn, c->job_id, "cancel:tui", &oc,
		    &cause);
		check_new_session(st);
		if (rc != 0) {
			post_action(w, ACTION_CANCEL, c->job_id, NULL,
			    ACTION_FAILED, "%s",
			    cause);
			free(cause);
			return;
		}
		goto done;
	}
	rc = ops_find_in(records_index(w->ws), c->job_id, w->cl->name,
	    &rec, &sid, &cause);
	if (rc < 0) {
		post_action(w, ACTION_CANCEL, c->job_id, NULL,
		    ACTION_FAILED, "%s", cause);
		free(cause);
		return;
	}
	if (rec != NULL && rec->cluster != NULL &&
	    strcmp(rec->cluster, w->cl->name) != 0) {
		record_free(rec);	/* another cluster's job with this id */
		rec = NULL;
	}
	/* scancel */
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
	if (ops_cancel(st->conn, rec, sid, "cancel:tui", &oc, &cause) != 0) {
		check_new_session(st);
		post_action(w, ACTION_CANCEL, c->job_id, NULL,
		    ACTION_FAILED, "%s", cause);
		free(cause);
		record_free(rec);
		return;
	}
	check_new_session(st);
done:
	if (oc.was_live)
		post_action(w, ACTION_CANCEL, c->job_id, NULL, ACTION_DONE,
		    "cancelled %s (was %s)%s", c->name != NULL ? c->name : "",
		    oc.live_state != NULL && *oc.live_state != '\0' ?
		    oc.live_state : "queued", oc.wiped ?
		    "; secrets sidecar removed" : "");
	else
		post_action(w, ACTION_CANCEL, c->job_id, NULL, ACTION_DONE,
		    "%s had already ended: counts as cancelled",
		    c->name != NULL ? c->name : "the job");
	ops_cancel_free(&oc);
	record_free(rec);
	/* Show the end at once rather than at the next tick. */
	st->next_poll = 0;
}

/* The detail view's "why pending": squeue --start for one job. */
void
do_start(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	char			*cmd, *cause = NULL, *when = NULL;
	char			*reason = NULL, *text, *why, sep[SLURM_SEP_SIZE];
	char			*dcmd, *rtext = NULL;
	long			 id = strtol(c->job_id, NULL, 10);

	memset(&res, 0, sizeof res);
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = slurm_cmd_start(id, sep, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	/* A job slurmctld forgot: "Invalid job id specified", exit 1. */
	if (res.status != 0 && (res.err == NULL ||
	    strstr(res.err, "Invalid job id") == NULL)) {
		cause = xasprintf("squeue --start failed: %s", res.err != NULL &&
		    *res.err != '\0' ? res.err : "no message");
		goto fail;
	}
	if (res.status == 0 && slurm_parse_start(res.out, sep, &when, &reason,
	    &cause) < 0)
		goto fail;
	/* Waiting for other jobs: which ones, and how each stands. */
	if (reason != NULL && strstr(reason, "Dependency") != NULL &&
	    (dcmd = slurm_cmd_dependency(id, NULL)) != NULL) {
		struct conn_result	 dres;
		char			*dep = NULL;

		memset(&dres, 0, sizeof dres);
		budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
		if (conn_exec(st->conn, dcmd, NULL, 0, &dres, NULL) == 0 &&
		    dres.status == 0 &&
		    (dep = slurm_parse_dependency(dres.out)) != NULL)
			rtext = xasprintf("%s, waits for %s", reason, dep);
		free(dep);
		free(dcmd);
		conn_result_free(&dres);
	}
	text = worker_start_text(when, rtext != NULL ? rtext : reason);
	free(rtext);
	/* The reason in words, and what the user can do (pending.h). */
	if ((why = pending_text(reason)) != NULL) {
		char	*both = xasprintf("%s. %s", text, why);

		free(text);
		free(why);
		text = both;
	}
	post_action(w, ACTION_START, c->job_id, NULL, ACTION_DONE, "%s", text);
	free(text);
	goto out;
fail:
	post_action(w, ACTION_START, c->job_id, NULL,
	    ACTION_FAILED, "%s", cause);
out:
	check_new_session(st);
	conn_result_free(&res);
	free(cmd);
	free(cause);
	free(when);
	free(reason);
}

/* What the footer says of one job an action was done to. */
static char *
act_done_text(const struct wcmd *c)
{
	switch (c->act) {
	case JOBACT_HOLD:
		return xstrdup("held: it stays pending until released (U)");
	case JOBACT_RELEASE:
		return xstrdup("released: it may start when SLURM schedules "
		    "it");
	case JOBACT_REQUEUE:
		return xstrdup("requeued: it is pending again");
	case JOBACT_SIGNAL:
	case JOBACT_SIGNAL_BATCH:
		return xasprintf("sent SIG%s%s", c->value != NULL ? c->value :
		    "", c->act == JOBACT_SIGNAL_BATCH ? " to its batch shell" :
		    "");
	case JOBACT_TIME:
		return xasprintf("time limit now %s", c->value != NULL ?
		    c->value : "");
	}
	return xstrdup("done");
}

/*
 * H, U, R, K and T in the jobs pane: the action on every job of the
 * request (this cluster's marked rows) in one remote command (ops_act),
 * each job answered on its own.
 */
void
do_hold(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct jobact_reply	 r;
	char			*cause = NULL, *text, *why;
	size_t			 i;

	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
	if (ops_act(st->conn, c->act, c->value, &c->ids, &r, &cause) != 0) {
		for (i = 0; i < c->ids.n; i++)
			post_action(w, ACTION_HOLD, c->ids.v[i], NULL,
			    ACTION_FAILED, "%s", cause);
		free(cause);
		check_new_session(st);
		return;
	}
	check_new_session(st);
	text = act_done_text(c);
	for (i = 0; i < r.n; i++) {
		if (r.v[i].rc == 0) {
			post_action(w, ACTION_HOLD, r.v[i].id, NULL,
			    ACTION_DONE, "%s", text);
			continue;
		}
		why = jobact_explain(c->act, r.v[i].id, r.v[i].words);
		post_action(w, ACTION_HOLD, r.v[i].id, NULL, ACTION_FAILED,
		    "%s", why);
		free(why);
	}
	/* A job the reply left out (the script cut short) still answers. */
	for (i = 0; i < c->ids.n; i++) {
		size_t	k;

		for (k = 0; k < r.n && strcmp(r.v[k].id, c->ids.v[i]) != 0;
		    k++)
			;
		if (k == r.n)
			post_action(w, ACTION_HOLD, c->ids.v[i], NULL,
			    ACTION_FAILED, "no answer from the cluster");
	}
	free(text);
	jobact_free(&r);
	st->next_poll = 0;	/* show the new reasons at once */
}

/* u in the detail view: the job's GPU use, one srun step a node. */
void
do_gpu(struct wstate *st, struct wcmd *c)
{
	struct gpuuse_reply	 g;
	char			*cause = NULL, *text;

	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
	if (ops_gpu(st->conn, c->job_id, &g, &cause) != 0) {
		check_new_session(st);
		post_action(st->w, ACTION_GPU, c->job_id, NULL, ACTION_FAILED,
		    "%s", cause);
		free(cause);
		return;
	}
	check_new_session(st);
	text = gpuuse_text(&g);
	post_action(st->w, ACTION_GPU, c->job_id, NULL, ACTION_DONE, "%s",
	    text);
	free(text);
	gpuuse_free(&g);
}

/* The detail view's efficiency of an ended job: one sacct (eff.h). */
void
do_eff(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	struct eff		 e;
	char			*cmd, *cause = NULL, *text;
	long			 id = strtol(c->job_id, NULL, 10);

	memset(&res, 0, sizeof res);
	memset(&e, 0, sizeof e);
	if ((cmd = eff_cmd(id, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), 1, BUDGET_USE_ACTION);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	if (res.status != 0) {
		cause = xasprintf("sacct failed (exit %d)", res.status);
		goto fail;
	}
	if (eff_parse(res.out, id, &e, &cause) != 0)
		goto fail;
	text = eff_text(&e);
	/* "label\ttext" lines: the detail view puts each under its label. */
	post_action(w, ACTION_EFFICIENCY, c->job_id, NULL, ACTION_DONE,
	    "%s%s%susage\t%s%s%s", e.exit_code != NULL ? "exit code\t" : "",
	    e.exit_code != NULL ? e.exit_code : "", e.exit_code != NULL ?
	    "\n" : "", text, e.hint != NULL ? "\nhint\t" : "",
	    e.hint != NULL ? e.hint : "");
	free(text);
	goto out;
fail:
	post_action(w, ACTION_EFFICIENCY, c->job_id, NULL,
	    ACTION_FAILED, "%s", cause);
out:
	check_new_session(st);
	conn_result_free(&res);
	eff_free(&e);
	free(cmd);
	free(cause);
}

/*
 * The wizard's "where would it start soonest": the request planned for
 * each partition sinfo listed, and one sbatch --test-only per partition it
 * fits (soonest.h), in one remote script.
 */
void
do_soonest(struct wstate *st, struct wcmd *c)
{
	struct worker		*w = st->w;
	struct conn_result	 res;
	struct spec		 sp;
	struct plan		*plans;
	const struct plan	**pp;
	struct plan_limit	 lim;
	struct soonest		 so;
	struct buf		 skipped;
	char			*cmd = NULL, *cause = NULL, *name, *why, *text;
	char			*mt, sep[SLURM_SEP_SIZE];
	size_t			 i, n = 0;
	long			 min;

	memset(&res, 0, sizeof res);
	memset(&so, 0, sizeof so);
	buf_init(&skipped);
	buf_add(&skipped, "", 0);
	plans = xcalloc(st->parts.n + 1, sizeof *plans);
	pp = xcalloc(st->parts.n + 1, sizeof *pp);
	for (i = 0; i < st->parts.n && n < SOONEST_MAX; i++) {
		name = why = NULL;
		if (plan_partition_parse(st->parts.v[i], &lim, &name) != 0) {
			free(name);
			continue;
		}
		lim.name = name;
		/* "name MaxTime (what a node holds)", as the wizard reads it. */
		mt = xstrndup(st->parts.v[i] + strlen(name) + 1,
		    strcspn(st->parts.v[i] + strlen(name) + 1, " "));
		if (slurm_maxtime_minutes(mt, &min, &why) != 0) {
			free(why);
			why = NULL;
			min = -1;
		}
		free(mt);
		lim.max_minutes = min < 0 ? PLAN_UNLIMITED : (int)min;
		spec_init(&sp);
		sp.partition = xstrdup(name);
		sp.nodes = c->res[0];
		sp.gpus = c->res[1];
		sp.gpus_per_node = c->res[2];
		sp.cpus = c->res[3];
		sp.time_minutes = c->res[4];
		if (plan_make(&sp, w->cl, &lim, 1, &plans[n], &why) == 0)
			pp[n] = &plans[n], n++;
		else {
			/* "gpu: no node has 8 GPUs" -- said, not tried. */
			buf_printf(&skipped, "; %s: %s", name, why != NULL ?
			    why : "does not fit");
			plan_free(&plans[n]);
			memset(&plans[n], 0, sizeof plans[n]);
		}
		free(why);
		spec_free(&sp);
		free(name);
	}
	if (n == 0) {
		cause = xasprintf("no partition of %s fits the request%s%s",
		    w->cl->name, st->parts.n == 0 ? " (partitions not known "
		    "yet)" : "", skipped.data);
		goto fail;
	}
	/*
	 * At most one estimate every WORKER_SOONEST_SECONDS, the latest
	 * request kept meanwhile (a wizard whose every change asked again
	 * went 10 calls over the budget and starved the polls).  Its calls
	 * are counted but not refused by the budget: the polls fill the
	 * budget at default settings and it would never be asked.
	 */
	if (mono_now() < st->soonest_next) {
		/* Kept (the latest request only) and asked when it fits. */
		st->soonest_wait = 1;
		memcpy(st->soonest_res, c->res, sizeof st->soonest_res);
		goto out;
	}
	st->soonest_wait = 0;
	st->soonest_next = mono_now() + WORKER_SOONEST_SECONDS;
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = soonest_cmd(pp, n, sep + 1, &cause)) == NULL)
		goto fail;
	budget_spend(&st->budget, mono_now(), (unsigned)n,
	    BUDGET_USE_SOONEST);
	if (conn_exec(st->conn, cmd, NULL, 0, &res, &cause) != 0)
		goto fail;
	if (soonest_parse(res.out, sep + 1, &so, &cause) != 0)
		goto fail;
	text = soonest_text(&so, time(NULL));
	post_action(w, ACTION_SOONEST, NULL, NULL, ACTION_DONE, "%s%s",
	    text != NULL ? text : "no answer", skipped.data);
	free(text);
	goto out;
fail:
	post_action(w, ACTION_SOONEST, NULL, NULL, ACTION_FAILED, "%s", cause);
out:
	check_new_session(st);
	for (i = 0; i < n; i++)
		plan_free(&plans[i]);
	free(plans);
	free(pp);
	buf_free(&skipped);
	soonest_free(&so);
	conn_result_free(&res);
	free(cmd);
	free(cause);
}

/* --- submit ---------------------------------------------------------------- */

static void
submit_progress(void *arg, enum submit_step step, const char *text)
{
	post_action(arg, ACTION_SUBMIT, NULL, submit_step_name(step),
	    ACTION_PROGRESS, "%s",
	    text != NULL ? text : "");
}

/*
 * The same pipeline as `sqdeck submit`, in a thread of its own with its
 * own connection (one conn per thread): a submit may wait in the queue for
 * its image conversion (srun on the CPU partition) for a long time, and
 * the cluster's polls and logs must go on meanwhile.
 */
struct submit_job {
	struct worker	*w;
	struct wcmd	*c;
};

void *
submit_main(void *arg)
{
	struct submit_job	*sj = arg;
	struct worker		*w = sj->w;
	struct workers		*ws = w->ws;
	struct wcmd		*c = sj->c;
	struct conn		*conn = NULL;
	struct submit_session	 sess;
	struct spec		 sp;
	struct submit_opts	 o;
	struct submit_result	 r;
	struct cluster		 as;
	char			*cause = NULL;

	free(sj);
	if (spec_parse(c->spec_yaml, strlen(c->spec_yaml), "wizard", &sp,
	    &cause) != 0) {
		post_action(w, ACTION_SUBMIT, NULL, "spec",
		    ACTION_FAILED, "%s", cause);
		free(cause);
		goto out;
	}
	/* Another login user: the same cluster, hosts and auth rules. */
	as = *w->cl;
	if (c->user != NULL)
		as.user = c->user;
	conn = conn_new_cluster(&as);
	submit_session_init(&sess, conn, &as);
	memset(&o, 0, sizeof o);
	o.dry_run = c->dry_run;
	o.record_id = c->record_id;
	o.progress = submit_progress;
	o.arg = w;
	if (submit_run(&sess, &sp, &o, &r, &cause) != 0) {
		post_action(w, ACTION_SUBMIT, r.slurm_id,
		    submit_step_name(r.failed_step), ACTION_FAILED, "%s",
		    cause);
		free(cause);
	} else if (c->dry_run)
		post_action(w, ACTION_SUBMIT, r.record_id, "preview",
		    ACTION_DONE, "%s",
		    r.script != NULL ? r.script : "");
	else
		post_action(w, ACTION_SUBMIT, r.slurm_id, "launch", ACTION_DONE,
		    "submitted %s as SLURM job %s (record %s, %s)",
		    r.job_name, r.slurm_id, r.record_id, r.state);
	submit_result_free(&r);
	submit_session_free(&sess);
	spec_free(&sp);
out:
	conn_free(conn);
	pthread_mutex_lock(&ws->lock);
	if (!c->dry_run)
		w->poll_now = 1;	/* show the new job at once */
	ws->nsubmits--;
	pthread_cond_broadcast(&ws->cond);
	pthread_cond_broadcast(&ws->exited);
	pthread_mutex_unlock(&ws->lock);
	wcmd_free(c);
	return NULL;
}

void
submit_spawn(struct worker *w, struct wcmd *c)
{
	struct workers		*ws = w->ws;
	struct submit_job	*sj;
	pthread_attr_t		 attr;
	pthread_t		 t;
	int			 err;

	pthread_mutex_lock(&ws->lock);
	if (ws->quit) {
		pthread_mutex_unlock(&ws->lock);
		wcmd_free(c);
		return;
	}
	ws->nsubmits++;
	pthread_mutex_unlock(&ws->lock);
	sj = xcalloc(1, sizeof *sj);
	sj->w = w;
	sj->c = c;
	/* Detached; workers_stop() waits for nsubmits instead of joining.
	 * It inherits this thread's mask: signals stay blocked. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, submit_main, sj);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		post_action(w, ACTION_SUBMIT, NULL, NULL,
		    ACTION_FAILED, "cannot start the "
		    "submit: %s", strerror(err));
		free(sj);
		wcmd_free(c);
		pthread_mutex_lock(&ws->lock);
		ws->nsubmits--;
		pthread_mutex_unlock(&ws->lock);
	}
}
