#include "ops.h"
#include "array.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "jobdir.h"
#include "jobid.h"
#include "rsh.h"
#include "slurm.h"
#include "state.h"
#include "text.h"
#include "util.h"

/* --- where things live --------------------------------------------------- */

static int
empty(const char *s)
{
	return s == NULL || *s == '\0';
}

char *
ops_log_dir(const struct record *r)
{
	if (!empty(r->log_dir))
		return xstrdup(r->log_dir);
	if (empty(r->job_dir))
		return NULL;
	return jobdir_path(r->job_dir, JOBDIR_LOGS, NULL);
}

char *
ops_job_log_dir_for(const char *log_dir, const char *job_name,
    const char *slurm_id)
{
	if (empty(log_dir) || empty(job_name) || empty(slurm_id))
		return NULL;
	return jobdir_job_logs(log_dir, job_name, slurm_id);
}

char *
ops_job_log_dir(const struct record *r)
{
	char	*dir = ops_log_dir(r), *out;

	out = ops_job_log_dir_for(dir, r->job_name, record_slurm_id(r));
	free(dir);
	return out;
}

char *
ops_log_path(const struct record *r, int err)
{
	struct array_info	 ai;
	char			*dir, *out, *why = NULL;

	/* An array's own log is its first task's. */
	if (r->array != NULL) {
		if (array_parse(r->array, &ai, &why) != 0) {
			free(why);
			return NULL;
		}
		return ops_task_log_path(r, ai.first, err);
	}
	if ((dir = ops_job_log_dir(r)) == NULL)
		return NULL;
	out = jobdir_log_file(dir, err);
	free(dir);
	return out;
}

char *
ops_task_log_path(const struct record *r, int task, int err)
{
	char	*dir = ops_job_log_dir(r), *out;

	if (dir == NULL)
		return NULL;
	out = xasprintf("%s/main_%d.%s", dir, task, err ? "err" : "out");
	free(dir);
	return out;
}

char *
ops_env_path(const struct record *r)
{
	if (!empty(r->env_file))
		return xstrdup(r->env_file);
	if (empty(r->job_dir) || empty(r->id))
		return NULL;
	return jobdir_path(r->job_dir, JOBDIR_ENV, r->id);
}

char *
ops_results_dir(const struct record *r)
{
	if (empty(r->job_dir))
		return NULL;
	return jobdir_path(r->job_dir, JOBDIR_RESULTS, NULL);
}

char *
ops_status_path(const struct record *r)
{
	if (empty(r->job_dir))
		return NULL;
	return jobdir_path(r->job_dir, JOBDIR_STATUS, NULL);
}

/* --- text from the cluster ----------------------------------------------- */

char *
ops_sanitize(const char *s, size_t len, size_t *outlen)
{
	/* The TUI's sanitiser: one set of rules for every terminal. */
	return text_sanitize(s, len, TEXT_CR_LINES | TEXT_TABS, outlen);
}

char *
ops_clean(const char *s)
{
	if (empty(s))
		return xstrdup("-");
	return text_sanitize(s, strlen(s), 0, NULL);
}

/*
 * One cell padded to w display cells (0: the last column, not padded),
 * maybe coloured.  Cells, not bytes: a U+FFFD or a wide character must
 * not push the later columns right.
 */
static void
ops_table_cell(FILE *f, const char *s, int w, const char *sgr, int last)
{
	int	pad = w - (int)text_width(s);

	if (sgr != NULL)
		fprintf(f, "\033[%sm%s\033[0m", sgr, s);
	else
		fputs(s, f);
	fprintf(f, "%*s", pad > 0 ? pad : 0, "");
	fputs(last ? "\n" : "  ", f);
}

void
ops_table_print(FILE *f, const char *const *head, size_t ncol,
    char *const *cells, size_t nrows, int color)
{
	char	**clean;
	size_t	 *w, i, c, len;
	int	  last;

	w = xcalloc(ncol, sizeof *w);
	clean = xcalloc(nrows * ncol + 1, sizeof *clean);
	for (c = 0; c < ncol; c++)
		w[c] = text_width(head[c]);
	for (i = 0; i < nrows * ncol; i++) {
		clean[i] = ops_clean(cells[i]);
		len = text_width(clean[i]);
		if (len > w[i % ncol])
			w[i % ncol] = len;
	}
	for (c = 0; c < ncol; c++) {
		last = c + 1 == ncol;
		ops_table_cell(f, head[c], last ? 0 : (int)w[c],
		    color ? "1" : NULL, last);
	}
	for (i = 0; i < nrows * ncol; i++) {
		c = i % ncol;
		last = c + 1 == ncol;
		ops_table_cell(f, clean[i], last ? 0 : (int)w[c],
		    color && strcmp(head[c], "STATE") == 0 ?
		    state_sgr(clean[i]) : NULL, last);
		free(clean[i]);
	}
	free(clean);
	free(w);
}

/* --- logs ------------------------------------------------------------------
   */

/*
 * The reply of the log scripts: a header line, then the bytes.  "missing",
 * "unreadable", "irregular" (a FIFO, a device or a link to one: never
 * opened), or "size SIZE OFFSET TRUNCATED".
 */
#define OPS_LOG_SIZE_MAX	(1LL << 62)
/* Seconds the reads of one log script may take (killed whole after). */
#define OPS_LOG_READ_SECONDS	"20"

int
ops_log_parse(const char *path, const struct conn_result *res, int tail,
    struct ops_log *log, char **cause)
{
	const char	*nl;
	long long	 size, off;
	int		 trunc, cut;

	nl = memchr(res->out, '\n', res->outlen);
	if (res->status != 0 || nl == NULL) {
		return cause_set(cause, "reading %s on the cluster failed "
		    "(exit %d): %s", path, res->status,
		    res->errlen != 0 ? res->err : "no output");
	}
	if (strncmp(res->out, "missing\n", 8) == 0) {
		log->missing = 1;
		return 0;
	}
	if (strncmp(res->out, "unreadable\n", 11) == 0)
		return cause_set(cause, "%s exists on the cluster but is not "
		    "readable by the SSH user", path);
	if (strncmp(res->out, "irregular\n", 10) == 0)
		return cause_set(cause, "%s on the cluster is not a regular "
		    "file (a FIFO, a device or a link to one): not read", path);
	/* Sizes past 2^62 are not files: no overflow below. */
	cut = 0;
	if (sscanf(res->out, "size %lld %lld %d %d", &size, &off, &trunc,
	    &cut) < 3 || size < 0 || off < 0 || size > OPS_LOG_SIZE_MAX ||
	    off > OPS_LOG_SIZE_MAX)
		return cause_set(cause, "reading %s: unexpected reply \"%.*s\"",
		    path, (int)(nl - res->out), res->out);
	log->size = size;
	log->truncated = trunc;
	log->cut = cut != 0;
	log->len = res->outlen - (size_t)(nl + 1 - res->out);
	log->data = xmalloc(log->len + 1);
	memcpy(log->data, nl + 1, log->len);
	log->data[log->len] = '\0';
	if (tail) {
		log->next = size;
		log->offset = size - (long long)log->len;
		if (log->offset < 0)
			log->offset = 0;
	} else {
		log->offset = off;
		log->next = off + (long long)log->len;
	}
	return 0;
}

/* Run a log script (templates/remote/log-*.sh); its reply is bounded. */
static int
log_run(struct conn *c, const char *path, const char *script, int tail,
    size_t maxout, struct ops_log *log, char **cause)
{
	struct conn_result	 res;
	char			*why = NULL;
	int			 rc;

	memset(log, 0, sizeof *log);
	rc = rsh_run_limit(c, script, 0, maxout, &res, &why);
	if (rc != 0) {
		cause_set(cause, "reading %s: %s", path, why);
		free(why);
		conn_result_free(&res);
		return -1;
	}
	rc = ops_log_parse(path, &res, tail, log, cause);
	conn_result_free(&res);
	return rc;
}

int
ops_log_read(struct conn *c, const char *path, long long offset, size_t max,
    struct ops_log *log, char **cause)
{
	struct buf	b;
	char		num[32];
	int		rc;

	if (offset < 0)
		offset = 0;
	buf_init(&b);
	rsh_var(&b, "f", path);
	snprintf(num, sizeof num, "%lld", offset);
	rsh_var(&b, "o", num);
	snprintf(num, sizeof num, "%zu", max);
	rsh_var(&b, "m", num);
	rsh_var(&b, "rt", OPS_LOG_READ_SECONDS);
	rsh_embed(&b, "log-read.sh");
	/* The cap is a guard only: head -c already stops at max. */
	rc = log_run(c, path, b.data, 0, max + 4096, log, cause);
	buf_free(&b);
	return rc;
}

int
ops_log_tail(struct conn *c, const char *path, int lines, struct ops_log *log,
    char **cause)
{
	struct buf	b;
	char		num[32];
	int		rc;

	if (lines < 0)
		lines = 0;
	buf_init(&b);
	rsh_var(&b, "f", path);
	snprintf(num, sizeof num, "%d", lines);
	rsh_var(&b, "n", num);
	rsh_var(&b, "rt", OPS_LOG_READ_SECONDS);
	rsh_embed(&b, "log-tail.sh");
	/* The script sends at most the file's last MiB. */
	rc = log_run(c, path, b.data, 1, 1048576 + 4096, log, cause);
	buf_free(&b);
	return rc;
}

void
ops_log_free(struct ops_log *log)
{
	free(log->data);
	memset(log, 0, sizeof *log);
}

/* --- records ---------------------------------------------------------------
   */

struct change_arg {
	struct ops_change	*ch;
	int			 skipped;	/* nothing to write: not an error */
};

static int
change_fn(struct record *r, void *arg, char **cause)
{
	struct change_arg	*ca = arg;
	struct ops_change	*ch = ca->ch;
	struct record_event	*e;
	const char		*native = ch->native != NULL ? ch->native : "";
	int			 write = 0;

	(void)cause;
	ch->old = r->state;
	if (ch->only_live && state_terminal(r->state)) {
		ca->skipped = 1;
		return -1;
	}
	if (ch->set_err && (r->err_class != ch->err || r->err_rule == NULL ||
	    strcmp(r->err_rule, ch->err_rule != NULL ? ch->err_rule : "") !=
	    0)) {
		r->err_class = ch->err;
		free(r->err_rule);
		r->err_rule = xstrdup(ch->err_rule != NULL ? ch->err_rule : "");
		free(r->err_evidence);
		r->err_evidence = ch->err_evidence != NULL ?
		    xstrdup(ch->err_evidence) : NULL;
		write = 1;
	}
	if (ch->has_elapsed && ch->elapsed >= 0 && ch->elapsed <= 1000000000L &&
	    r->elapsed != (int)ch->elapsed) {
		r->elapsed = (int)ch->elapsed;
		write = 1;
	}
	if (ch->exit_code != NULL && (r->exit_code == NULL ||
	    strcmp(r->exit_code, ch->exit_code) != 0)) {
		free(r->exit_code);
		r->exit_code = xstrdup(ch->exit_code);
		write = 1;
	}
	if (r->state != ch->state || r->native == NULL ||
	    strcmp(r->native, native) != 0) {
		r->history = xrealloc(r->history,
		    (r->nhistory + 1) * sizeof *r->history);
		e = &r->history[r->nhistory++];
		e->time = iso_time_now();
		e->state = ch->state;
		e->native = xstrdup(native);
		e->source = xstrdup(ch->source != NULL ? ch->source : "");
		e->message = xstrdup(ch->message != NULL ? ch->message : "");
		r->state = ch->state;
		free(r->native);
		r->native = xstrdup(native);
		ch->changed = 1;
		write = 1;
	}
	if (!write)
		ca->skipped = 1;
	return write ? 0 : -1;
}

int
ops_record_change(const char *id, struct ops_change *ch, char **cause)
{
	struct change_arg	 ca;
	char			*why = NULL;

	ch->changed = 0;
	ch->old = RSTATE_UNKNOWN;
	ca.ch = ch;
	ca.skipped = 0;
	if (record_update(id, change_fn, &ca, &why) == 0)
		return 0;
	/* change_fn aborts when there is nothing to write. */
	if (ca.skipped) {
		free(why);
		return 0;
	}
	cause_set(cause, "%s", why != NULL ? why : "record update failed");
	free(why);
	return -1;
}

static int
has_slurm_id(const struct record *r, const char *sid)
{
	size_t	i;

	for (i = 0; i < r->slurm_ids.n; i++) {
		if (strcmp(r->slurm_ids.v[i], sid) == 0)
			return 1;
	}
	return 0;
}

/*
 * ops_find through the caller's index: the newest record of the job, of
 * cluster first, read alone (main read every record for one id).
 */
static int
find_indexed(struct record_index *ix, const char *arg, const char *cluster,
    struct record **rp)
{
	const char	*id = NULL;
	char		*why = NULL;
	int		 pass;

	for (pass = 0; pass < 2 && id == NULL; pass++) {
		if (pass == 0 && cluster == NULL)
			continue;
		id = record_index_newest(ix, pass == 0 ? cluster : NULL, arg,
		    &why);
		if (why != NULL) {
			free(why);
			return -1;	/* the full list says why */
		}
	}
	if (id == NULL)
		return 1;
	if (record_load(id, rp, &why) != 0) {
		free(why);
		return -1;		/* gone meanwhile: the full list */
	}
	return 0;
}

int
ops_find(const char *arg, const char *cluster, struct record **rp,
    long *slurm_id, char **cause)
{
	return ops_find_in(NULL, arg, cluster, rp, slurm_id, cause);
}

int
ops_find_in(struct record_index *ix, const char *arg, const char *cluster,
    struct record **rp, long *slurm_id, char **cause)
{
	struct record_list	 list;
	struct record		*found = NULL;
	struct jobid		 j;
	const char		*sid;
	char			*why = NULL;
	size_t			 i;
	int			 pass;

	*rp = NULL;
	*slurm_id = 0;
	if (arg == NULL || *arg == '\0')
		return cause_set(cause, "empty job id");
	jobid_parse(arg, &j);
	if (j.kind == JOBID_BAD && arg[j.joblen] == '\0')
		return cause_set(cause, "'%s' is not a SLURM job id", arg);
	/* Records and the queue know jobs by number. */
	if (j.kind == JOBID_SLUID)
		return cause_set(cause, "'%s' is a SLUID (SLURM 26.05): give "
		    "the job's number (squeue -j %s -o %%A, or sacct -j %s "
		    "-X -n -o JobIDRaw)", arg, arg, arg);
	/* An array task has no record either: record_load says so. */
	if (j.kind != JOBID_JOB) {
		if (record_load(arg, rp, &why) != 0) {
			cause_set(cause, "%s", why);
			free(why);
			return -1;
		}
		sid = record_slurm_id(*rp);
		if (sid != NULL)
			*slurm_id = strtol(sid, NULL, 10);
		return 0;
	}
	*slurm_id = (long)j.job;
	if (ix != NULL && (pass = find_indexed(ix, arg, cluster, rp)) >= 0)
		return pass;
	if (record_list(&list, &why) != 0) {
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	/* The newest record wins: SLURM ids are reused after a reset. */
	for (pass = 0; pass < 2 && found == NULL; pass++) {
		for (i = list.n; i > 0; i--) {
			struct record	*r = list.v[i - 1];

			if (pass == 0 && (cluster == NULL ||
			    r->cluster == NULL || strcmp(r->cluster, cluster)))
				continue;
			if (has_slurm_id(r, arg)) {
				found = r;
				list.v[i - 1] = NULL;
				break;
			}
		}
	}
	for (i = 0; i < list.n; i++)
		record_free(list.v[i]);
	list.n = 0;
	record_list_free(&list);
	*rp = found;
	return found != NULL ? 0 : 1;
}

/* --- records of a cluster the configuration no longer names ----------------
   */

static int
config_has(const struct config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nclusters; i++) {
		if (strcmp(cfg->clusters[i].name, name) == 0)
			return 1;
	}
	return 0;
}

static void __attribute__((format(printf, 2, 3)))
said_add(struct strv *said, const char *fmt, ...)
{
	va_list	 ap;
	char	*t;

	va_start(ap, fmt);
	t = xvasprintf(fmt, ap);
	va_end(ap);
	strv_add(said, t);
	free(t);
}

/* The record was made on c: same login host, user and port. */
static int
same_place(const struct cluster *c, const struct record *r)
{
	size_t	i;
	int	host = 0;

	for (i = 0; i < c->hosts.n; i++) {
		if (strcmp(c->hosts.v[i], r->host) == 0)
			host = 1;
	}
	if (!host)
		return 0;
	if ((c->user == NULL) != (r->user == NULL) ||
	    (c->user != NULL && strcmp(c->user, r->user) != 0))
		return 0;
	return (c->port > 0 ? c->port : 22) == (r->port > 0 ? r->port : 22);
}

static size_t
adopt(const struct config *cfg, struct record_index *ix, const char *file,
    struct strv *said)
{
	struct record_list	 list;
	const struct cluster	*to;
	char			*why = NULL, *old;
	size_t			 i, k, nmatch, moved = 0, left = 0;
	int			 marked = ix == NULL;

	/*
	 * A CLI start lists the records only when some may wait (see
	 * record_adopt_begin); the TUI's index has them all already.
	 */
	if (config_has(cfg, "default"))
		return 0;	/* "default" is a cluster of this config */
	if (marked && !record_adopt_begin())
		return 0;
	memset(&list, 0, sizeof list);
	if ((ix != NULL ? record_index_select(ix, "default", (time_t)-1,
	    &list, &why) : record_list(&list, &why)) != 0) {
		free(why);
		if (marked)
			record_adopt_end(1);	/* look again next time */
		return 0;
	}
	for (i = 0; i < list.n; i++) {
		const struct record	*r = list.v[i];

		/*
		 * Only the implicit name: a record of a named cluster stays
		 * (another config file, -c, must not take it over).
		 */
		if (r->cluster == NULL || strcmp(r->cluster, "default") != 0 ||
		    config_has(cfg, r->cluster) || empty(r->host))
			continue;
		to = NULL;
		for (k = nmatch = 0; k < cfg->nclusters; k++) {
			if (same_place(&cfg->clusters[k], r)) {
				to = &cfg->clusters[k];
				nmatch++;
			}
		}
		if (nmatch != 1) {
			left++;		/* another config may have it */
			continue;	/* none, or ambiguous: ops_orphan_why */
		}
		old = ops_clean(r->cluster);
		if (file != NULL) {
			said_add(said, "record %s (job %s) of cluster %s has "
			    "the host, user and port of cluster %s in %s; not "
			    "moved, as that file is not your configuration "
			    "(-c): without -c it is moved to a cluster of "
			    "yours", r->id, record_slurm_id(r) != NULL ?
			    record_slurm_id(r) : "-", old, to->name, file);
			left++;
		} else if (record_set(r->id, "cluster", to->name, &why) != 0) {
			left++;
			said_add(said, "record %s of cluster %s: cannot move "
			    "it to %s (same host and user): %s", r->id, old,
			    to->name, why);
			free(why);
			why = NULL;
		} else {
			said_add(said, "record %s (job %s) was made under "
			    "cluster %s, which the configuration no longer "
			    "has: moved to %s (same host %s and user)", r->id,
			    record_slurm_id(r) != NULL ? record_slurm_id(r) :
			    "-", old, to->name, r->host);
			moved++;
		}
		free(old);
	}
	record_list_free(&list);
	if (marked)
		record_adopt_end(left);
	return moved;
}

size_t
ops_adopt(const struct config *cfg, struct strv *said)
{
	return adopt(cfg, NULL, NULL, said);
}

size_t
ops_adopt_index(const struct config *cfg, struct record_index *ix,
    struct strv *said)
{
	return adopt(cfg, ix, NULL, said);
}

void
ops_adopt_look(const struct config *cfg, const char *file, struct strv *said)
{
	char	*f = ops_clean(file);

	adopt(cfg, NULL, f, said);
	free(f);
}

char *
ops_orphan_why(const struct config *cfg, const struct record *r)
{
	char	*name, *host, *user, *why;
	size_t	 k, nmatch = 0;

	if (r->cluster == NULL || config_has(cfg, r->cluster))
		return NULL;
	name = ops_clean(r->cluster);
	if (empty(r->host)) {
		why = xasprintf("it was made under cluster '%s', which the "
		    "configuration does not have, before records kept their "
		    "host, so it cannot be matched by host: add a cluster "
		    "named '%s' (its hosts and user) to clusters.yaml, or "
		    "set SQDECK_CLUSTER=%s with SLURM_HOSTNAME and SLURM_USER",
		    name, name, name);
		free(name);
		return why;
	}
	for (k = 0; k < cfg->nclusters; k++)
		nmatch += same_place(&cfg->clusters[k], r);
	host = ops_clean(r->host);
	user = ops_clean(r->user != NULL ? r->user : "(ssh default)");
	if (nmatch > 1)
		why = xasprintf("it was made under cluster '%s' (host %s, "
		    "user %s), which the configuration does not have, and "
		    "%zu configured clusters have that host and user: name "
		    "one of them '%s' in clusters.yaml", name, host, user,
		    nmatch, name);
	else
		why = xasprintf("it was made under cluster '%s' (host %s, "
		    "user %s), which the configuration does not have: add a "
		    "cluster named '%s' with that host and user to "
		    "clusters.yaml", name, host, user, name);
	free(host);
	free(user);
	free(name);
	return why;
}

/* --- cancel
   ------------------------------------------------------------------ */

static int
cancel_id(struct conn *c, const struct record *r, const char *slurm_id,
    const char *source, struct ops_cancel *oc, char **cause)
{
	struct conn_result	 res;
	struct state_map	 m;
	struct ops_change	 ch;
	struct buf		 b;
	char			*env = NULL, *why = NULL, *line, *p;
	char			*msg, *sp;
	long			 ran = -1;
	int			 rc = -1, scancel_rc = -1, sent;

	memset(oc, 0, sizeof *oc);
	memset(&res, 0, sizeof res);
	if (r != NULL)
		env = ops_env_path(r);

	/* One round trip: was it live, scancel, wipe the sidecar. */
	buf_init(&b);
	rsh_var(&b, "j", slurm_id);
	rsh_var(&b, "e", env);
	rsh_embed(&b, "lib-wipe.sh");
	rsh_embed(&b, "cancel.sh");
	sent = rsh_run_limit(c, b.data, 0, CONN_MAXOUT, &res, &why);
	buf_free(&b);
	if (sent != 0) {
		cause_set(cause, "scancel %s: %s", slurm_id, why);
		goto out;
	}
	if (res.status != 0 || strncmp(res.out, "live ", 5) != 0) {
		cause_set(cause, "scancel %s: the cluster answered "
		    "unexpectedly (exit %d): %s", slurm_id, res.status,
		    res.errlen != 0 ? res.err : res.out);
		goto out;
	}
	line = res.out + 5;
	p = strchr(line, '\n');
	oc->live_state = xstrndup(line, p != NULL ? (size_t)(p - line) :
	    strlen(line));
	str_trim(oc->live_state);
	/* "RUNNING 1:23": the state, then how long it has run. */
	if ((sp = strchr(oc->live_state, ' ')) != NULL) {
		*sp++ = '\0';
		if (slurm_time_parse(sp, &ran) != SLURM_TIME_SET)
			ran = -1;
	}
	if (p != NULL && strncmp(p + 1, "acct ", 5) == 0) {
		line = p + 6;
		p = strchr(line, '\n');
		oc->acct_state = xstrndup(line, p != NULL ?
		    (size_t)(p - line) : strlen(line));
		str_trim(oc->acct_state);
	}
	if (p != NULL && strncmp(p + 1, "wiped ", 6) == 0) {
		oc->wiped = p[7] == '1';
		p = strchr(p + 1, '\n');
	}
	if (p != NULL && sscanf(p + 1, "rc %d", &scancel_rc) == 1)
		p = strchr(p + 1, '\n');
	if (scancel_rc != 0) {
		msg = xstrdup(p != NULL ? p + 1 : "");
		str_trim(msg);
		cause_set(cause, "scancel %s failed: %s", slurm_id,
		    *msg != '\0' ? msg : "no message");
		free(msg);
		goto out;
	}
	state_map(oc->live_state, STATUS_MISSING, &m);
	oc->was_live = *oc->live_state != '\0' && !m.terminal;
	oc->forgotten = *oc->live_state == '\0';
	/*
	 * Not found counts as cancelled (sqdeck(1): cancel) for a job someone
	 * knew: its record, or SLURM's accounting.  An id nobody knew is a
	 * typo.
	 */
	if (oc->forgotten && r == NULL && (oc->acct_state == NULL ||
	    *oc->acct_state == '\0')) {
		cause_set(cause, "no such job %s: no record here, not in "
		    "squeue and not in SLURM's accounting (sacct): check the "
		    "id (sqdeck jobs, sqdeck records)", slurm_id);
		goto out;
	}

	if (r != NULL && oc->was_live) {
		memset(&ch, 0, sizeof ch);
		ch.state = RSTATE_CANCELED;
		ch.native = "CANCELLED";
		ch.source = source != NULL ? source : "cancel";
		msg = xasprintf("scancel %s (was %s)", slurm_id,
		    oc->live_state);
		ch.message = msg;
		ch.only_live = 1;
		ch.has_elapsed = ran >= 0;
		ch.elapsed = ran;
		if (ops_record_change(r->id, &ch, &why) != 0) {
			cause_set(cause, "job %s was cancelled but its record "
			    "could not be updated: %s", slurm_id, why);
			free(msg);
			goto out;
		}
		free(msg);
		oc->changed = ch.changed;
	}
	rc = 0;
out:
	if (rc != 0)
		ops_cancel_free(oc);
	free(why);
	free(env);
	conn_result_free(&res);
	return rc;
}

int
ops_cancel(struct conn *c, const struct record *r, long slurm_id,
    const char *source, struct ops_cancel *oc, char **cause)
{
	char	id[32];

	memset(oc, 0, sizeof *oc);
	if (slurm_id <= 0 || slurm_id > (long)UINT32_MAX)
		return cause_set(cause, "invalid SLURM job id %ld", slurm_id);
	snprintf(id, sizeof id, "%ld", slurm_id);
	return cancel_id(c, r, id, source, oc, cause);
}

int
ops_cancel_task(struct conn *c, const char *id, const char *source,
    struct ops_cancel *oc, char **cause)
{
	struct jobid	j;

	memset(oc, 0, sizeof *oc);
	jobid_parse(id, &j);
	if (j.kind != JOBID_TASK && j.kind != JOBID_RANGE)
		return cause_set(cause, "invalid array task id '%s': give "
		    "JOBID_TASK, e.g. 12_3 or 12_[4-9]", id);
	return cancel_id(c, NULL, id, source, oc, cause);
}

void
ops_cancel_free(struct ops_cancel *oc)
{
	free(oc->live_state);
	free(oc->acct_state);
	memset(oc, 0, sizeof *oc);
}
