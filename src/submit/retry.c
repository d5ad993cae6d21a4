#include "retry.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobdir.h"
#include "lint.h"
#include "ops.h"
#include "remote.h"
#include "rsh.h"
#include "slurm.h"
#include "spec.h"
#include "state.h"
#include "submit.h"

enum retry_decision
retry_decide(const struct record *r, int budget, const char *retried_by,
    const char *queued, char **why)
{
	enum retry_decision	 d;
	char			*text;

	if (queued != NULL && *queued != '\0') {
		d = RETRY_REQUEUED;
		text = xasprintf("SLURM has job %s in the queue again (%s): it "
		    "is followed through its restart, not retried",
		    record_slurm_id(r) ? record_slurm_id(r) : "?", queued);
	} else if (r->state != RSTATE_ERROR) {
		d = RETRY_NOT_ERROR;
		text = xasprintf("record %s is %s: only a job that ended ERROR "
		    "is retried", r->id, state_name(r->state));
	} else if (retried_by != NULL) {
		d = RETRY_DONE;
		text = xasprintf("record %s was already retried as %s", r->id,
		    retried_by);
	} else if (r->err_class != ERR_INFRA) {
		d = RETRY_NOT_INFRA;
		text = xasprintf("not retried: a %s failure (triage rule %s) is "
		    "not the cluster's fault; fix it and submit again",
		    err_class_name(r->err_class), r->err_rule != NULL &&
		    *r->err_rule != '\0' ? r->err_rule : "none");
	} else if (r->retry_count >= budget) {
		d = RETRY_BUDGET;
		text = xasprintf("not retried: the retry budget of %d is spent "
		    "(record %s is retry %d of the chain)", budget, r->id,
		    r->retry_count);
	} else {
		d = RETRY_GO;
		text = xasprintf("INFRA failure (triage rule %s): retry %d of "
		    "%d", r->err_rule != NULL && *r->err_rule != '\0' ?
		    r->err_rule : "-", r->retry_count + 1, budget);
	}
	if (why != NULL)
		*why = text;
	else
		free(text);
	return d;
}

/* sinfo's short state says the node cannot be trusted with a job. */
static int
retry_node_bad(const char *st)
{
	static const char *bad[] = { "down", "drain", "drng", "drained",
	    "draining", "fail", "failg", "maint", "unk", "boot", "npc",
	    "inval", "futr", "pow_dn", "powered_down", "powering_down", NULL };
	size_t	n = strlen(st), i;

	if (n != 0 && strchr("*~#!%$@^-", st[n - 1]) != NULL &&
	    st[n - 1] != '-')
		return 1;	/* not responding, powering, reboot... */
	for (i = 0; bad[i] != NULL; i++) {
		if (strncmp(st, bad[i], strlen(bad[i])) == 0)
			return 1;
	}
	return 0;
}

/*
 * A list in insertion order with a hash index beside it, so that adding
 * and looking up are O(1): a partition of tens of thousands of nodes must
 * not make the retry quadratic.
 */
struct nodeset {
	struct strv	 list;
	size_t		*slot;		/* index + 1 into list, 0 = empty */
	size_t		 cap;		/* power of two */
};

static uint64_t
nodeset_hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t *
nodeset_find(const struct nodeset *ns, const char *s)
{
	size_t	i;

	if (ns->cap == 0)
		return NULL;
	for (i = nodeset_hash(s) & (ns->cap - 1);; i = (i + 1) & (ns->cap - 1)) {
		if (ns->slot[i] == 0 ||
		    strcmp(ns->list.v[ns->slot[i] - 1], s) == 0)
			return &ns->slot[i];
	}
}

static int
nodeset_has(const struct nodeset *ns, const char *s)
{
	size_t	*p = nodeset_find(ns, s);

	return p != NULL && *p != 0;
}

static void
strv_add_new(struct nodeset *ns, const char *s)
{
	size_t	*p, i, old;
	size_t	*oslot;

	if (nodeset_has(ns, s))
		return;
	if ((ns->list.n + 1) * 2 > ns->cap) {
		oslot = ns->slot;
		old = ns->cap;
		ns->cap = ns->cap == 0 ? 64 : ns->cap * 2;
		ns->slot = xcalloc(ns->cap, sizeof *ns->slot);
		for (i = 0; i < old; i++) {
			if (oslot[i] == 0)
				continue;
			p = nodeset_find(ns, ns->list.v[oslot[i] - 1]);
			*p = oslot[i];
		}
		free(oslot);
	}
	strv_add(&ns->list, s);
	*nodeset_find(ns, s) = ns->list.n;
}

static void
nodeset_free(struct nodeset *ns)
{
	strv_free(&ns->list);
	free(ns->slot);
	memset(ns, 0, sizeof *ns);
}

static char *
strv_join(const struct strv *sv)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_adds(&b, "");
	for (i = 0; i < sv->n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", sv->v[i]);
	return buf_steal(&b);
}

/* "NODE STATE" lines of sinfo -N: every node, and the bad ones. */
static void
retry_sinfo_nodes(const char *sinfo, struct nodeset *all,
    struct nodeset *bad)
{
	char	*copy, *line, *next, *sp;

	copy = xstrdup(sinfo != NULL ? sinfo : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		str_trim(line);
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp++ = '\0';
		str_trim(sp);
		strv_add_new(all, line);
		if (retry_node_bad(sp))
			strv_add_new(bad, line);
	}
	free(copy);
}

/* Would excluding out leave no node of the partition? */
static int
retry_covers(const struct nodeset *all, const struct nodeset *out)
{
	size_t	i;

	for (i = 0; i < all->list.n; i++) {
		if (!nodeset_has(out, all->list.v[i]))
			return 0;
	}
	return all->list.n != 0;
}

char *
retry_exclude(const char *failed, const char *sinfo, const char *inherited,
    char **note)
{
	struct strv	 nodes, inh;
	struct nodeset	 all, badset, out;
	char		*s;
	size_t		 i;

	memset(&nodes, 0, sizeof nodes);
	memset(&all, 0, sizeof all);
	memset(&badset, 0, sizeof badset);
	memset(&out, 0, sizeof out);
	memset(&inh, 0, sizeof inh);
	if (note != NULL)
		*note = NULL;
	if (failed != NULL)
		slurm_nodelist_expand(failed, &nodes, NULL);
	retry_sinfo_nodes(sinfo, &all, &badset);

	/* The failing nodes of the job, else all of its nodes. */
	for (i = 0; i < nodes.n; i++) {
		if (nodeset_has(&badset, nodes.v[i]))
			strv_add_new(&out, nodes.v[i]);
	}
	if (out.list.n == 0) {
		for (i = 0; i < nodes.n; i++)
			strv_add_new(&out, nodes.v[i]);
	}
	if (inherited != NULL)
		strv_split(&inh, inherited, ',');
	for (i = 0; i < inh.n; i++)
		strv_add_new(&out, inh.v[i]);

	/* Never exclude the whole partition: the job could not run. */
	if (retry_covers(&all, &out)) {
		nodeset_free(&out);
		for (i = 0; i < nodes.n; i++) {
			if (nodeset_has(&badset, nodes.v[i]))
				strv_add_new(&out, nodes.v[i]);
		}
		if (out.list.n == all.list.n) {
			nodeset_free(&out);
			if (note != NULL)
				*note = xstrdup("every node of the partition "
				    "is failing: no node is excluded");
		} else if (note != NULL)
			*note = xasprintf("excluding every node the job had "
			    "would leave none in the partition: only the "
			    "failing ones are excluded%s", out.list.n == 0 ?
			    " (none is failing now)" : "");
	}
	s = strv_join(&out.list);
	strv_free(&nodes);
	nodeset_free(&all);
	nodeset_free(&badset);
	nodeset_free(&out);
	strv_free(&inh);
	return s;
}

char *
retry_inherited(const struct record *r)
{
	const char	*m, *p;
	size_t		 i, n;

	for (i = r->nhistory; i > 0; i--) {
		m = r->history[i - 1].message;
		if (m == NULL || r->history[i - 1].source == NULL ||
		    !str_has_prefix(r->history[i - 1].source, "retry"))
			continue;
		if ((p = strstr(m, "exclude=")) == NULL)
			continue;
		p += strlen("exclude=");
		n = strcspn(p, " ;)");
		return xstrndup(p, n);
	}
	return NULL;
}

char *
retry_inherited_chain(const struct record *r)
{
	struct record	**v;
	struct nodeset	 all;
	struct strv	 one;
	char		*x, *s = NULL;
	size_t		 n, i, k, upto;

	if (retry_chain(r->id, &v, &n, NULL) != 0)
		return retry_inherited(r);
	memset(&all, 0, sizeof all);
	/* Only up to r: a later retry's exclusions are not r's past. */
	for (upto = 0; upto < n; upto++) {
		if (strcmp(v[upto]->id, r->id) == 0)
			break;
	}
	for (i = 0; i < n && i <= upto; i++) {
		if ((x = retry_inherited(v[i])) == NULL)
			continue;
		memset(&one, 0, sizeof one);
		strv_split(&one, x, ',');
		for (k = 0; k < one.n; k++) {
			if (strcmp(one.v[k], "none") != 0)
				strv_add_new(&all, one.v[k]);
		}
		strv_free(&one);
		free(x);
	}
	for (i = 0; i < n; i++)
		record_free(v[i]);
	free(v);
	if (all.list.n != 0)
		s = strv_join(&all.list);
	nodeset_free(&all);
	return s;
}

/* Keep the chain's records, free the rest of the list. */
static void
retry_chain_keep(struct record_list *list, struct record **v, size_t n)
{
	size_t	i, j;
	int	keep;

	for (i = 0; i < list->n; i++) {
		keep = 0;
		for (j = 0; j < n; j++)
			keep |= v[j] == list->v[i];
		if (!keep)
			record_free(list->v[i]);
	}
	free(list->v);
	list->v = NULL;
	list->n = 0;
	record_list_free(list);
}

int
retry_chain(const char *id, struct record ***out, size_t *np, char **cause)
{
	struct record_list	 list;
	struct record		**v = NULL, *cur = NULL;
	size_t			 n = 0, i, guard;
	const char		*root;
	int			 found;

	*out = NULL;
	*np = 0;
	if (record_list(&list, cause) != 0)
		return -1;
	for (i = 0; i < list.n; i++) {
		if (strcmp(list.v[i]->id, id) == 0)
			cur = list.v[i];
	}
	if (cur == NULL) {
		record_list_free(&list);
		return cause_set(cause, "no record %s (see 'sqdeck records "
		    "--all')", id);
	}
	/* Back to the first submit. */
	for (guard = 0; cur->retry_of != NULL && guard < list.n; guard++) {
		found = 0;
		for (i = 0; i < list.n; i++) {
			if (strcmp(list.v[i]->id, cur->retry_of) == 0) {
				cur = list.v[i];
				found = 1;
				break;
			}
		}
		if (!found)
			break;
	}
	/* Then forward: the record that retries each one. */
	for (guard = 0; cur != NULL && guard <= list.n; guard++) {
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = cur;
		root = cur->id;
		cur = NULL;
		for (i = 0; i < list.n; i++) {
			if (list.v[i]->retry_of != NULL &&
			    strcmp(list.v[i]->retry_of, root) == 0) {
				cur = list.v[i];
				break;
			}
		}
	}
	retry_chain_keep(&list, v, n);
	*out = v;
	*np = n;
	return 0;
}

/* --- the remote part -------------------------------------------------------
   */

#define RETRY_MAXOUT	(8 * 1024 * 1024)	/* bytes of the whole reply */

/* The reply holds the job's own files: never read it unbounded. */
static int
retry_sh(struct conn *c, const char *body, struct conn_result *res,
    char **cause)
{
	return rsh_run_limit(c, body, 0, RETRY_MAXOUT, res, cause);
}

static const char *
retry_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* The first record of the chain names the sbatch file and the sidecar. */
static char *
retry_root_id(const struct record *r)
{
	struct record	*cur = NULL, *next;
	char		*id = xstrdup(r->id), *parent;
	int		 guard;

	parent = r->retry_of != NULL ? xstrdup(r->retry_of) : NULL;
	for (guard = 0; parent != NULL && guard < 100; guard++) {
		if (record_load(parent, &next, NULL) != 0) {
			/* The file is gone: its id is still the root's. */
			free(id);
			id = parent;
			parent = NULL;
			break;
		}
		free(id);
		id = parent;
		parent = next->retry_of != NULL ? xstrdup(next->retry_of) :
		    NULL;
		record_free(cur);
		cur = next;
	}
	free(parent);
	record_free(cur);
	return id;
}

/* An existing retry of r, or NULL. */
static char *
retry_existing(const char *id)
{
	struct record_list	 list;
	char			*found = NULL;
	size_t			 i;

	if (record_list(&list, NULL) != 0)
		return NULL;
	for (i = 0; i < list.n && found == NULL; i++) {
		if (list.v[i]->retry_of != NULL &&
		    strcmp(list.v[i]->retry_of, id) == 0)
			found = xstrdup(list.v[i]->id);
	}
	record_list_free(&list);
	return found;
}

/*
 * A retry's job has its chain's name: look it up by name, the chain's
 * earlier jobs left out.  Returns how many were found, -1 on error.
 */
static int
retry_reconcile(struct conn *c, const struct record *old, time_t sent,
    long *idp, char **cause)
{
	struct record	**v;
	long		*skip = NULL;
	size_t		 n, i, k, nskip = 0;
	int		 rc;

	if (retry_chain(old->id, &v, &n, cause) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i]->slurm_ids.n; k++) {
			skip = xrealloc(skip, (nskip + 1) * sizeof *skip);
			skip[nskip++] = strtol(v[i]->slurm_ids.v[k], NULL, 10);
		}
		record_free(v[i]);
	}
	free(v);
	rc = submit_find_by_name(c, old->job_name, sent, skip, nskip, idp,
	    cause);
	free(skip);
	return rc;
}

/* --- the steps of a retry ------------------------------------------------- */

/* What the steps of one retry share. */
struct retry_ctx {
	struct conn		*c;
	const struct retry_opts	*o;
	struct retry_result	*res;
	const char		*source;
	struct record		*old, *nr;
	int			 opened;	/* nr is on disk */
	long			 sid, newid;
	char			*env_path;
	struct slurm_jobs	 jobs;		/* sacct's row of the job */
	char			*nodes;		/* its nodes, from that row */
	char			*queued, *sinfo, *present;
	struct buf		 side;		/* sidecar + launch script */
	char			*sbatch;	/* the sbatch command line */
	struct submit_launch	 l;
	struct conn_result	 cr;
	enum slurm_submit	 verdict;
	char			*msg;		/* sbatch's words, or SSH's */
	time_t			 sent;		/* when sbatch was sent */
	const char		*id;		/* the record to retry */
	char			*why;
};

/* The record to retry, and where its staged files are. */
static int
retry_step_load(struct retry_ctx *x)
{
	struct record	*old;
	char		*root;

	if (record_load(x->id, &x->old, &x->why) != 0)
		return -1;
	old = x->old;
	if (record_slurm_id(old) == NULL || old->job_dir == NULL ||
	    old->job_name == NULL || old->log_dir == NULL) {
		x->why = xasprintf("record %s has no SLURM job or job "
		    "directory: it never ran, so there is nothing staged to "
		    "submit again", old->id);
		return -1;
	}
	/*
	 * The secret names and the budget come from the record written at
	 * submit time.  The staged spec is the job's to rewrite: reading
	 * "secrets:" back from it would let a workload pick which local
	 * variables are sent to the cluster.
	 */
	/*
	 * An array is never retried (auto or by hand): its tasks ended each
	 * their own way and the shared sidecar is wiped after the last.
	 */
	if (old->array != NULL) {
		x->why = xasprintf("record %s is a job array (%s): arrays are "
		    "not retried; submit the spec again with array: set to "
		    "the failed tasks (sqdeck status %s lists them)", old->id,
		    old->array, old->id);
		return -1;
	}
	if (!old->retry_known) {
		x->why = xasprintf("record %s was written by an older sqdeck "
		    "and does not hold its spec's secret names and retry "
		    "budget: it is not retried; submit the spec again",
		    old->id);
		return -1;
	}
	/*
	 * The staged sbatch file runs outside the container, and the job dir
	 * is writable inside it: it is run again only with the hash it had
	 * when it was rendered here.
	 */
	if (old->sbatch_sha256 == NULL || strlen(old->sbatch_sha256) != 64 ||
	    old->sbatch_sha256[strspn(old->sbatch_sha256,
	    "0123456789abcdef")] != '\0') {
		x->why = xasprintf("record %s does not hold the SHA-256 of its "
		    "sbatch file (written by an older sqdeck): the file in the "
		    "job dir, which the job can rewrite, is not run again; "
		    "submit the spec again", old->id);
		return -1;
	}
	x->res->budget = old->retry_budget;
	x->sid = strtol(record_slurm_id(old), NULL, 10);
	root = retry_root_id(old);
	x->res->sbatch_path = jobdir_path(old->job_dir, JOBDIR_SBATCH, root);
	x->env_path = jobdir_path(old->job_dir, JOBDIR_ENV, root);
	free(root);
	return 0;
}

/* What SLURM says, in one round trip (templates/remote/retry-look.sh). */
static int
retry_step_look(struct retry_ctx *x)
{
	struct remote_reply	 rep;
	struct slurm_job	*j;
	struct buf		 sh;
	char			 marker[REMOTE_MARKER_SIZE], num[32];
	char			 since[16], sep[SLURM_SEP_SIZE];
	char			*cmd, *text;
	int			 rc;

	remote_marker(marker, sizeof marker);
	slurm_since(time(NULL) - 7 * 24 * 3600, since, sizeof since);
	slurm_sep_new(sep, sizeof sep);
	cmd = slurm_cmd_sacct(&x->sid, 1, since, NULL, sep, &x->why);
	if (cmd == NULL)
		return -1;
	buf_init(&sh);
	remote_reply_prelude(&sh, marker);
	rsh_var(&sh, "sa", cmd);
	snprintf(num, sizeof num, "%ld", x->sid);
	rsh_var(&sh, "sid", num);
	rsh_var(&sh, "part", x->old->partition);
	rsh_var(&sh, "sbf", x->res->sbatch_path);
	rsh_embed(&sh, "retry-look.sh");
	free(cmd);
	rc = retry_sh(x->c, sh.data, &x->cr, &x->why);
	buf_free(&sh);
	if (rc != 0)
		return -1;
	/* No section at all: every answer below is missing. */
	remote_reply_parse(x->cr.out, x->cr.outlen, marker, "the retry", &rep,
	    NULL);
	text = remote_reply_text(&rep, "sacct", NULL);
	slurm_parse_sacct(text != NULL ? text : "", sep, &x->jobs, NULL);
	free(text);
	j = slurm_jobs_find(&x->jobs, x->sid);
	if (j != NULL && j->nodelist != NULL)
		x->nodes = xstrdup(j->nodelist);
	x->queued = remote_reply_text(&rep, "squeue", NULL);
	if (x->queued != NULL)
		str_trim(x->queued);
	x->sinfo = remote_reply_text(&rep, "sinfo", NULL);
	x->present = remote_reply_text(&rep, "sbatch", NULL);
	remote_reply_free(&rep);
	return 0;
}

/* The rules; then the nodes to leave out. */
static int
retry_step_decide(struct retry_ctx *x)
{
	struct retry_result	*res = x->res;
	char			*retried, *inh;

	retried = retry_existing(x->old->id);
	res->decision = retry_decide(x->old, res->budget, retried, x->queued,
	    &res->why);
	free(retried);
	if (res->decision != RETRY_GO)
		return 1;
	if (x->present == NULL || strstr(x->present, "present") == NULL) {
		x->why = xasprintf("%s is gone from the cluster (or is not a "
		    "regular file): the staged workload cannot be submitted "
		    "again; submit the spec anew", res->sbatch_path);
		return -1;
	}
	/* "present", then sha256sum's "HEX  -". */
	if (strstr(x->present, x->old->sbatch_sha256) == NULL) {
		x->why = xasprintf("%s is not the file sqdeck submitted (its "
		    "SHA-256 differs from the one in record %s): something "
		    "rewrote it in the job dir, so it is not run; submit the "
		    "spec anew", res->sbatch_path, x->old->id);
		return -1;
	}
	/* Every node that failed earlier in the chain stays excluded. */
	inh = retry_inherited_chain(x->old);
	if (inh != NULL)
		res->inherited = xstrdup(inh);
	res->exclude = retry_exclude(x->nodes, x->sinfo, inh, &res->note);
	free(inh);
	return 0;
}

/* Secrets again: the sidecar was wiped when the job ended. */
static int
retry_step_secrets(struct retry_ctx *x)
{
	const char		*(*get)(const char *, void *);
	const struct strv	*names = &x->old->secrets;
	struct lint_secret	*sec;
	const char		*v;
	char			*text = NULL;
	size_t			 i;
	int			 rc;

	if (names->n == 0)
		return 0;
	get = x->o->secret != NULL ? x->o->secret : retry_getenv;
	sec = xcalloc(names->n, sizeof *sec);
	for (i = 0; i < names->n; i++) {
		v = get(names->v[i], x->o->arg);
		if (v == NULL || *v == '\0') {
			x->why = xasprintf("secret %s of the spec is not set "
			    "in this environment: export it and run 'sqdeck "
			    "retry %s' (values go only over SSH stdin)",
			    names->v[i], x->old->id);
			free(sec);
			return -1;
		}
		sec[i].name = names->v[i];
		sec[i].value = v;
	}
	rc = submit_sidecar(sec, names->n, &text, &x->why);
	free(sec);
	if (rc != 0)
		return -1;
	rsh_var(&x->side, "side", text);
	rsh_var(&x->side, "sidef", x->env_path);
	rsh_embed(&x->side, "sidecar.sh");
	memset(text, 0, strlen(text));
	free(text);
	return 0;
}

/* The new record before the launch (README: a record before sbatch). */
static int
retry_step_record(struct retry_ctx *x)
{
	struct retry_result	*res = x->res;
	struct record		*old = x->old;
	char			*why = NULL, *msg;

	x->nr = record_new_retry(old);
	if (record_create(x->nr, &why) != 0) {
		x->why = xasprintf("cannot open the retry's record, so nothing "
		    "is launched: %s", why);
		free(why);
		return -1;
	}
	x->opened = 1;
	res->record_id = xstrdup(x->nr->id);
	msg = xasprintf("retry %d of %d of %s (SLURM job %ld, %s, rule %s); "
	    "exclude=%s%s%s", x->nr->retry_count, res->budget, old->id, x->sid,
	    old->native != NULL && *old->native ? old->native : "ERROR",
	    old->err_rule != NULL ? old->err_rule : "-", *res->exclude ?
	    res->exclude : "none", res->inherited != NULL ?
	    "; inherited from the chain: " : "", res->inherited != NULL ?
	    res->inherited : "");
	record_transition(x->nr->id, RSTATE_PENDING, "", x->source, msg, NULL);
	free(msg);
	return 0;
}

/* The same sbatch file (checked), the failed nodes excluded. */
static int
retry_step_launch(struct retry_ctx *x)
{
	struct submit_faults	 faults;
	struct buf		 sh;
	char			*script;

	/*
	 * The file is copied to a private dir and its copy run only with the
	 * record's hash (sbatch-copy.sh): a rewrite after the look above is
	 * not run either.
	 */
	buf_init(&sh);
	rsh_var(&sh, "sbf", x->res->sbatch_path);
	rsh_var(&sh, "sbh", x->old->sbatch_sha256);
	rsh_embed(&sh, "sbatch-copy.sh");
	buf_adds(&sh, "sbatch --parsable --hold");
	if (*x->res->exclude != '\0') {
		buf_adds(&sh, " --exclude=");
		buf_add_quoted(&sh, x->res->exclude);
	}
	buf_adds(&sh, " -J ");
	buf_add_quoted(&sh, x->old->job_name);
	buf_adds(&sh, " \"$sbc\"\n");
	x->sbatch = buf_steal(&sh);
	/* The test hook of submit.h: empty-reply, after-sbatch. */
	memset(&faults, 0, sizeof faults);
	if (submit_faults_parse(getenv("SQDECK_TEST_FAULT"), &faults,
	    &x->why) != 0)
		return -1;
	script = submit_launch_script(x->old->job_dir, x->sbatch,
	    x->old->log_dir, x->old->job_name, faults.launch, 0);
	buf_adds(&x->side, script);
	free(script);
	conn_result_free(&x->cr);
	x->sent = time(NULL);
	if (retry_sh(x->c, x->side.data, &x->cr, &x->why) != 0) {
		x->verdict = SLURM_SUBMIT_AMBIGUOUS;
		x->msg = x->why;
		x->why = NULL;
		return 0;
	}
	submit_launch_parse(x->cr.out, &x->l);
	x->verdict = x->l.sbatch_rc == -1 ? SLURM_SUBMIT_AMBIGUOUS :
	    slurm_parse_sbatch(x->l.out, x->l.err, &x->newid, &x->msg);
	return 0;
}

/*
 * The reply was lost, the job may be queued (README, "Submit"): look it
 * up by its exact name, as submit does, leaving out the chain's own
 * earlier jobs (same name); adopt it, or send once more when there is
 * none.
 */
static int
retry_step_reconcile(struct retry_ctx *x)
{
	struct record	*old = x->old;
	char		*script;
	int		 n;

	if (x->verdict != SLURM_SUBMIT_AMBIGUOUS)
		return 0;
	n = retry_reconcile(x->c, old, x->sent, &x->newid, &x->why);
	if (n < 0)
		return -1;
	if (n > 1) {
		free(x->why);
		x->why = xasprintf("sbatch gave no usable answer (%s) and %d "
		    "jobs are named %s: check 'squeue --me -n %s' and cancel "
		    "the extra ones", x->msg != NULL ? x->msg : "no reply", n,
		    old->job_name, old->job_name);
		return -1;
	}
	free(x->msg);
	x->msg = NULL;
	submit_launch_free(&x->l);
	memset(&x->l, 0, sizeof x->l);
	conn_result_free(&x->cr);
	if (n == 1) {
		x->res->adopted = 1;
		script = submit_release_script(x->newid, old->log_dir,
		    old->job_name);
	} else {
		x->res->resubmitted = 1;
		script = submit_launch_script(old->job_dir, x->sbatch,
		    old->log_dir, old->job_name, NULL, 0);
	}
	if (retry_sh(x->c, script, &x->cr, &x->why) != 0) {
		free(script);
		script = xasprintf("SSH failed while %s the retry (%s); check "
		    "'squeue --me -n %s'", n == 1 ? "releasing" :
		    "submitting again", x->why, old->job_name);
		free(x->why);
		x->why = script;
		return -1;
	}
	free(script);
	submit_launch_parse(x->cr.out, &x->l);
	if (n == 0)
		x->verdict = x->l.sbatch_rc == -1 ? SLURM_SUBMIT_AMBIGUOUS :
		    slurm_parse_sbatch(x->l.out, x->l.err, &x->newid, &x->msg);
	else
		x->verdict = SLURM_SUBMIT_OK;
	return 0;
}

/* sbatch's verdict, then the job's id and its release. */
static int
retry_step_verdict(struct retry_ctx *x)
{
	if (x->verdict != SLURM_SUBMIT_OK) {
		/* Never resubmit blindly; the user checks by name. */
		x->why = xasprintf("sbatch %s: %s; check 'squeue --me -n %s' "
		    "before retrying again", x->verdict == SLURM_SUBMIT_ERROR ?
		    "refused the retry" : "gave no usable answer",
		    x->l.sbatch_rc == -1 || x->msg == NULL ?
		    "the launch script stopped early" : x->msg,
		    x->old->job_name);
		return -1;
	}
	x->res->slurm_id = xasprintf("%ld", x->newid);
	if (record_set_slurm_id(x->nr->id, x->res->slurm_id, &x->why) != 0)
		return -1;
	if (x->l.mkdir_failed || !x->l.released) {
		x->why = xasprintf("job %ld: %s", x->newid, x->l.mkdir_failed ?
		    "could not create its log directory (cancelled)" :
		    "is held and could not be released");
		return -1;
	}
	return 0;
}

/* Both records say what happened. */
static int
retry_step_note(struct retry_ctx *x)
{
	struct retry_result	*res = x->res;
	struct state_map	 m;
	enum rstate		 rs = RSTATE_PENDING;
	char			*msg;

	if (x->l.state != NULL && state_map(x->l.state, STATUS_MISSING,
	    &m) == 0 && m.state != RSTATE_UNKNOWN)
		rs = m.state;
	msg = xasprintf("%s SLURM job %ld (retry of %s, exclude=%s%s%s)",
	    res->adopted ? "sbatch's reply was lost; found by name and "
	    "adopted" : res->resubmitted ? "sbatch's reply was lost and no "
	    "job had the name; submitted again as" : "submitted as",
	    x->newid, x->old->id, *res->exclude ? res->exclude : "none",
	    res->inherited != NULL ? "; inherited from the chain: " : "",
	    res->inherited != NULL ? res->inherited : "");
	record_transition(x->nr->id, rs, x->l.state != NULL ? x->l.state :
	    "PENDING", x->source, msg, NULL);
	free(msg);
	res->state = xstrdup(state_name(rs));
	msg = xasprintf("retried as %s (SLURM job %ld)", x->nr->id, x->newid);
	record_transition(x->old->id, x->old->state, x->old->native,
	    x->source, msg, NULL);
	free(msg);
	return 0;
}

/*
 * A retry, in order, as submit walks its table (submit.c): each step
 * returns 0 to go on, 1 when the rules say no (not an error), -1 with
 * why set.
 */
static int (*const retry_steps[])(struct retry_ctx *) = {
	retry_step_load,
	retry_step_look,
	retry_step_decide,
	retry_step_secrets,
	retry_step_record,
	retry_step_launch,
	retry_step_reconcile,
	retry_step_verdict,
	retry_step_note,
};

static void
retry_ctx_free(struct retry_ctx *x)
{
	/* The sidecar's text was in the script: scrub our copy. */
	if (x->side.data != NULL)
		memset(x->side.data, 0, x->side.len);
	buf_free(&x->side);
	free(x->env_path);
	free(x->nodes);
	free(x->queued);
	free(x->sinfo);
	free(x->present);
	free(x->sbatch);
	free(x->msg);
	free(x->why);
	slurm_jobs_free(&x->jobs);
	submit_launch_free(&x->l);
	conn_result_free(&x->cr);
	record_free(x->old);
	record_free(x->nr);
}

int
retry_run(struct conn *c, const char *record_id, const struct retry_opts *o,
    struct retry_result *res, char **cause)
{
	static const struct retry_opts	 none;
	struct retry_ctx		 x;
	size_t				 i;
	int				 rc = 0;

	memset(res, 0, sizeof *res);
	res->budget = SPEC_RETRY_BUDGET;
	memset(&x, 0, sizeof x);
	x.c = c;
	x.o = o != NULL ? o : &none;
	x.source = x.o->source != NULL ? x.o->source : "retry";
	x.res = res;
	x.id = record_id;
	buf_init(&x.side);
	for (i = 0; rc == 0 && i < sizeof retry_steps / sizeof retry_steps[0];
	    i++)
		rc = retry_steps[i](&x);
	if (rc < 0 && x.opened) {
		record_transition(x.nr->id, RSTATE_ERROR, "", x.source, x.why,
		    NULL);
		record_set_err(x.nr->id, ERR_INFRA, "retry-launch", NULL);
		res->state = xstrdup(state_name(RSTATE_ERROR));
	}
	if (rc < 0)
		cause_set(cause, "%s", x.why);
	retry_ctx_free(&x);
	return rc;
}

void
retry_result_free(struct retry_result *r)
{
	free(r->why);
	free(r->record_id);
	free(r->slurm_id);
	free(r->state);
	free(r->exclude);
	free(r->note);
	free(r->inherited);
	free(r->sbatch_path);
	memset(r, 0, sizeof *r);
}
