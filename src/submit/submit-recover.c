/*
 * Interrupted submits (see submit.h): the record and its lock file, made
 * before anything is written for the job (sqdeck(1): JOB RECORDS AND STATES),
 * and the recover that finishes a submit that was killed or cut off, by its
 * record's history.
 */
#include "submit-int.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enc.h"
#include "record.h"
#include "state.h"

static char *
submit_lock_path(const char *record_id)
{
	char	*dir = record_dir(), *path;

	path = xasprintf("%s/.submit-%s.lock", dir, record_id);
	free(dir);
	return path;
}

/*
 * Held from before the record exists to the end of the submit: a lock
 * file that is there and free belongs to an interrupted submit.  So it
 * is made locked, with its content, under another name (one the scan of
 * submit_locked_ids() skips) and only then linked to its own: a parallel
 * submit's recovery that took a just-created file for a free one held its
 * lock for a moment, and this submit's flock failed (EWOULDBLOCK, seen by
 * tests/compat/run: 18 submits at once, one per job and release).
 */
static int
submit_lock(struct submit_ctx *x, char **cause)
{
	char	*dir = record_dir(), *text, *tmp;
	int	 fd;

	if (mkdir_p(dir, 0700, cause) != 0) {
		free(dir);
		return -1;
	}
	free(dir);
	x->lockpath = submit_lock_path(x->record_id);
	tmp = xasprintf("%s.new", x->lockpath);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		cause_set(cause, "cannot create the lock file %s: %s",
		    x->lockpath, strerror(errno));
		goto fail;
	}
	text = xasprintf("spec %s\nsecrets %zu\n", x->spec_sha, x->nsec);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		cause_set(cause, "cannot write the lock file %s: %s",
		    x->lockpath, strerror(errno));
		free(text);
		goto fail;
	}
	free(text);
	/* link, not rename: a file already there is an error, not replaced. */
	if (link(tmp, x->lockpath) != 0) {
		cause_set(cause, "cannot create the lock file %s: %s",
		    x->lockpath, strerror(errno));
		goto fail;
	}
	unlink(tmp);
	free(tmp);
	x->lockfd = fd;
	return 0;

fail:
	if (fd >= 0) {
		unlink(tmp);
		close(fd);
	}
	free(tmp);
	free(x->lockpath);
	x->lockpath = NULL;
	return -1;
}

/* 5. Record before anything is written for the job (sqdeck(1): JOB RECORDS AND
   STATES). */
int
submit_step_record(struct submit_ctx *x, char **cause)
{
	struct record	*r;
	char		*why = NULL, hex[65];
	size_t		 i;
	int		 rc;

	r = record_new(x->s->cl->name);
	r->id = xstrdup(x->record_id);
	r->image = xstrdup(x->res->image);
	r->network_arch = x->sp->network_arch ? xstrdup(x->sp->network_arch) :
	    NULL;
	r->action = x->sp->action ? xstrdup(x->sp->action) : NULL;
	r->results_root = xstrdup(x->results_root);
	r->job_dir = xstrdup(x->lay.job_dir);
	r->job_name = xstrdup(x->res->job_name);
	r->log_dir = xstrdup(x->lay.log_dir);
	r->partition = xstrdup(x->plan.partition);
	r->spec_path = xstrdup(x->lay.spec_path);
	r->nodes = x->plan.nodes;
	r->gpus = x->plan.gpus;
	r->cpus = x->plan.cpus_per_task;
	r->command = x->sp->command != NULL ? xstrdup(x->sp->command) : NULL;
	r->time_limit = xstrdup(x->plan.time_str);
	r->array = x->sp->array != NULL ? xstrdup(x->sp->array) : NULL;
	if (x->s->cl->hosts.n > 0)
		r->host = xstrdup(x->s->cl->hosts.v[0]);
	r->user = x->s->cl->user != NULL ? xstrdup(x->s->cl->user) : NULL;
	r->port = x->s->cl->port;
	/* A retry takes these from here, never from the staged spec. */
	for (i = 0; i < x->sp->secrets.n; i++)
		strv_add(&r->secrets, x->sp->secrets.v[i]);
	/* What a retry may run again: this file only (README: Security). */
	if (x->res->script != NULL) {
		enc_sha256_hex(x->res->script, strlen(x->res->script), hex);
		r->sbatch_sha256 = xstrdup(hex);
	}
	r->retry_budget = x->sp->retry_budget;
	r->retry_known = 1;
	if (x->sp->secrets.n != 0)
		r->env_file = xstrdup(x->lay.env_path);
	if (submit_lock(x, &why) != 0) {
		record_free(r);
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "cannot open the "
		    "local record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	rc = record_create(r, &why);
	record_free(r);
	if (rc != 0) {
		/* No record, no launch. */
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "cannot open the "
		    "local record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	x->record_open = 1;
	x->res->state = xstrdup(state_name(RSTATE_PENDING));
	submit_say(x, SUBMIT_STEP_RECORD, "record %s opened (PENDING)",
	    x->record_id);
	return 0;
}


void
submit_spec_sha(const struct spec *sp, const char *cluster, char out[65])
{
	struct buf	b;

	buf_init(&b);
	buf_printf(&b, "%s\n", cluster != NULL ? cluster : "");
	if (spec_write(sp, &b, NULL) != 0) {
		/* Nothing to match on: no re-run will resume it. */
		out[0] = '\0';
		buf_free(&b);
		return;
	}
	enc_sha256_hex(b.data, b.len, out);
	buf_free(&b);
}

static void
submit_rsay(const struct submit_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
submit_rsay(const struct submit_opts *o, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	if (o == NULL || o->progress == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	o->progress(o->arg, SUBMIT_STEP_RECORD, text);
	free(text);
}

/*
 * Finish one interrupted submit from what its history says; 0 when
 * nothing is left to do, -1 when it is left and may have a job, -2 when
 * only its sidecar is left.  found: the record references its job.
 */
static int
submit_recover_one(struct submit_faults *f, struct conn *c,
    const struct submit_opts *o, const struct record *r, size_t nsec,
    int *found)
{
	const struct record_event	*mark = NULL, *launch = NULL;
	struct submit_launch		 l;
	struct conn_result		 res;
	struct state_map		 m;
	enum rstate			 rs;
	const char			*src;
	char				*env = NULL, *why = NULL, *text = NULL;
	char				*script, ids[32];
	long				 id = 0;
	time_t				 t;
	size_t				 i;
	int				 n, rc = -1;

	*found = 0;
	for (i = 0; i < r->nhistory; i++) {
		src = r->history[i].source;
		if (src != NULL && (strcmp(src, "submit") == 0 ||
		    str_has_prefix(src, "submit:")))
			mark = &r->history[i];
		if (src != NULL && strcmp(src, "submit:launch") == 0)
			launch = &r->history[i];
	}
	/*
	 * It ended (a recover may have adopted its job) but was stopped
	 * before it removed its lock file: its job is still the submit's.
	 */
	if (mark != NULL && strcmp(mark->source, "submit") == 0) {
		*found = record_slurm_id(r) != NULL;
		return 0;
	}
	submit_fault_hit(f, "recover", 0, 0);
	if (r->job_dir != NULL)
		env = jobdir_path(r->job_dir, JOBDIR_ENV, r->id);

	if (mark != NULL && strcmp(mark->source, "submit:unwiped") == 0)
		goto wipe;
	if (mark != NULL && strcmp(mark->source, "submit:release") == 0 &&
	    record_slurm_id(r) != NULL) {
		if (state_terminal(r->state)) {
			rc = 0;		/* cancelled meanwhile */
			goto out;
		}
		id = strtol(record_slurm_id(r), NULL, 10);
		goto release;
	}
	if (launch == NULL) {
		/* Stopped before sbatch was sent: no job can exist. */
		text = xstrdup("the submit was interrupted before sbatch: "
		    "nothing was queued; submit again");
		goto none;
	}
	t = iso_time_parse(launch->time);
	n = submit_lookup(f, c, r->job_name, t != (time_t)-1 ? t : time(NULL),
	    &id, &why);
	if (n < 0) {
		submit_rsay(o, "record %s: looking up job %s failed (%s); "
		    "left for the next submit", r->id, r->job_name, why);
		goto out;
	}
	if (n > 1) {
		text = xasprintf("%d jobs are named %s: cancel all but one "
		    "(scancel) and adopt it by hand", n, r->job_name);
		record_transition(r->id, RSTATE_UNKNOWN, "",
		    "submit:reconcile", text, NULL);
		submit_rsay(o, "record %s: %s", r->id, text);
		goto out;
	}
	if (n == 0) {
		text = xasprintf("the submit was interrupted after sbatch "
		    "was sent, but no job named %s exists (squeue, then sacct "
		    "-S): nothing was queued; submit again", r->job_name);
		goto none;
	}
	snprintf(ids, sizeof ids, "%ld", id);
	if (record_set_slurm_id(r->id, ids, &why) != 0) {
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}

release:
	/* Held jobs are released with their log dir, as submit does. */
	script = submit_release_script(id, r->log_dir != NULL ? r->log_dir :
	    "", r->job_name != NULL ? r->job_name : "");
	if (submit_remote(f, "release", c, script, 0, &res, &why) != 0) {
		free(script);
		text = xasprintf("SLURM job %ld exists but could not be "
		    "released: %s", id, why);
		record_transition(r->id, RSTATE_UNKNOWN, "", "submit:release",
		    text, NULL);
		submit_rsay(o, "record %s: %s; left for the next submit",
		    r->id, text);
		goto out;
	}
	free(script);
	submit_launch_parse(res.out, &l);
	conn_result_free(&res);
	if (l.mkdir_failed) {
		submit_launch_free(&l);
		text = xasprintf("SLURM job %ld was cancelled: its log "
		    "directory could not be created", id);
		goto none;
	}
	if (!l.released) {
		text = xasprintf("SLURM job %ld is held and could not be "
		    "released: %s", id, l.release_msg != NULL ? l.release_msg :
		    "no answer from scontrol");
		record_transition(r->id, RSTATE_UNKNOWN, "", "submit:release",
		    text, NULL);
		submit_rsay(o, "record %s: %s", r->id, text);
		submit_launch_free(&l);
		goto out;
	}
	rs = RSTATE_PENDING;
	if (l.state != NULL && state_map(l.state, STATUS_MISSING, &m) == 0 &&
	    m.state != RSTATE_UNKNOWN)
		rs = m.state;
	text = xasprintf("adopted SLURM job %ld after an interrupted submit "
	    "(found by its exact name)", id);
	if (record_transition(r->id, rs, l.state != NULL ? l.state :
	    "PENDING", "submit", text, &why) != 0) {
		submit_launch_free(&l);
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}
	submit_rsay(o, "record %s (interrupted submit): %s, %s", r->id, text,
	    l.state != NULL ? l.state : "PENDING");
	submit_launch_free(&l);
	*found = 1;
	rc = 0;
	goto out;

none:
	if (record_transition(r->id, RSTATE_ERROR, "", nsec != 0 ?
	    "submit:unwiped" : "submit", text, &why) != 0) {
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}
	record_set_err(r->id, ERR_CONFIG, "interrupted", NULL);
	submit_rsay(o, "record %s (interrupted submit): %s", r->id, text);
	if (nsec == 0) {
		rc = 0;
		goto out;
	}
wipe:
	/* From here no job can exist: only the sidecar may be left. */
	rc = -2;
	if (env == NULL || submit_rm_sidecar(f, c, env) != 0) {
		submit_rsay(o, "record %s: its secrets file could not be "
		    "removed yet; left for the next submit", r->id);
		goto out;
	}
	free(text);
	text = xasprintf("secrets file %s removed", env);
	if (record_transition(r->id, RSTATE_ERROR, "", "submit", text,
	    &why) != 0)
		goto out;
	submit_rsay(o, "record %s: %s", r->id, text);
	rc = 0;
out:
	submit_fault_hit(f, "recover", 1, 0);
	free(why);
	free(text);
	free(env);
	return rc;
}

static int
submit_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The records with a submit lock file (only submits leave them), oldest
 * first (ids start with their time): no record is read to find them.
 */
static int
submit_locked_ids(struct strv *ids, char **cause)
{
	DIR		*d;
	struct dirent	*de;
	char		*id;
	size_t		 n;

	memset(ids, 0, sizeof *ids);
	if (record_dir_open(&d, cause) != 0)
		return -1;
	if (d == NULL)
		return 0;	/* nothing recorded yet */
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (!str_has_prefix(de->d_name, ".submit-") ||
		    !str_has_suffix(de->d_name, ".lock") || n <= 13)
			continue;
		id = xstrndup(de->d_name + 8, n - 13);
		strv_add(ids, id);
		free(id);
	}
	closedir(d);
	if (ids->n > 1)
		qsort(ids->v, ids->n, sizeof *ids->v, submit_cmp_str);
	return 0;
}

int
submit_recover_f(struct submit_session *s, const struct submit_opts *o,
    struct submit_faults *f, const char *spec_sha, char **resume,
    char **blocked, char **cause)
{
	struct strv		 ids;
	struct record		*r;
	struct stat		 sb;
	char			*path, *why = NULL, buf[256], sha[65];
	size_t			 i, nsec;
	ssize_t			 len;
	int			 fd, found, done = 0, rc, same;

	if (resume != NULL)
		*resume = NULL;
	if (blocked != NULL)
		*blocked = NULL;
	if (submit_locked_ids(&ids, &why) != 0) {
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	for (i = 0; i < ids.n; i++) {
		/* A held lock is a live submit's. */
		path = submit_lock_path(ids.v[i]);
		if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0) {
			free(path);
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &sb) != 0 ||
		    sb.st_nlink == 0) {
			close(fd);
			free(path);
			continue;
		}
		len = read(fd, buf, sizeof buf - 1);
		buf[len > 0 ? len : 0] = '\0';
		sha[0] = '\0';
		nsec = 1;	/* unknown: remove it to be sure */
		if (sscanf(buf, "spec %64s secrets %zu", sha, &nsec) < 1)
			sha[0] = '\0';
		/* Read under its lock: another process may have done it. */
		if (record_load(ids.v[i], &r, &why) != 0 ||
		    r->cluster == NULL || strcmp(r->cluster, s->cl->name) != 0) {
			free(why);
			why = NULL;
			record_free(r);
			close(fd);
			free(path);
			continue;
		}
		rc = submit_recover_one(f, s->conn, o, r, nsec, &found);
		if (rc == 0) {
			unlink(path);
			done++;
		}
		same = spec_sha != NULL && *spec_sha != '\0' &&
		    strcmp(sha, spec_sha) == 0;
		if (same && found && resume != NULL) {
			free(*resume);
			*resume = xstrdup(r->id);
		}
		/* Its job may exist: submitting this spec again could
		   make two (sqdeck(1): submit). */
		if (same && rc == -1 && blocked != NULL && *blocked == NULL)
			*blocked = xstrdup(r->id);
		record_free(r);
		close(fd);
		free(path);
	}
	strv_free(&ids);
	return done;
}

int
submit_recover(struct submit_session *s, const struct submit_opts *o,
    const char *spec_sha, char **resume, char **blocked, char **cause)
{
	return submit_recover_f(s, o, NULL, spec_sha, resume, blocked, cause);
}

/* A re-run whose interrupted submit had queued the job: that is it. */
static int
submit_resume(struct submit_ctx *x, const char *id, char **cause)
{
	struct jobdir		 l;
	struct record		*r;
	char			*why = NULL;

	if (record_load(id, &r, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "%s", why);
		free(why);
		return -1;
	}
	jobdir_make(&l, r->results_root != NULL ? r->results_root :
	    x->results_root, r->job_name, r->id);
	free(x->res->record_id);
	x->res->record_id = xstrdup(r->id);
	free(x->res->job_name);
	x->res->job_name = xstrdup(r->job_name);
	free(x->res->job_dir);
	x->res->job_dir = xstrdup(r->job_dir != NULL ? r->job_dir : l.job_dir);
	free(x->res->sbatch_path);
	x->res->sbatch_path = xstrdup(l.sbatch_path);
	free(x->res->env_path);
	x->res->env_path = x->nsec != 0 ? xstrdup(l.env_path) : NULL;
	x->res->slurm_id = xstrdup(record_slurm_id(r));
	x->res->state = xstrdup(state_name(r->state));
	x->res->native = xstrdup(r->native != NULL ? r->native : "");
	x->res->ambiguous = 1;
	x->res->adopted = 1;
	x->res->resumed = 1;
	submit_say(x, SUBMIT_STEP_LAUNCH, "an earlier submit of this spec "
	    "(record %s) was interrupted after sbatch; its SLURM job %s is "
	    "this submit: not submitting it again", r->id,
	    record_slurm_id(r));
	jobdir_free(&l);
	record_free(r);
	return 0;
}


/* Finish interrupted submits first; one of this spec may be it. */
int
submit_step_recover(struct submit_ctx *x, char **cause)
{
	char	*resume = NULL, *blocked = NULL, *why = NULL;
	int	 n, rc = SUBMIT_NEXT;

	n = submit_recover_f(x->s, x->o, &x->faults, x->spec_sha, &resume,
	    &blocked, &why);
	if (n < 0) {
		submit_say(x, SUBMIT_STEP_RECORD, "warning: interrupted "
		    "submits not checked: %s", why);
		free(why);
	} else
		x->res->recovered = n;
	if (resume != NULL)
		rc = submit_resume(x, resume, cause) == 0 ? SUBMIT_DONE : -1;
	else if (blocked != NULL) {
		rc = submit_fail(x, SUBMIT_STEP_RECORD, cause, "an earlier "
		    "submit of this spec (record %s) was interrupted after "
		    "sbatch and whether its job exists could not be checked "
		    "now; nothing was submitted, so that there are never two: "
		    "submit again when the cluster answers", blocked);
	}
	free(resume);
	free(blocked);
	return rc;
}
