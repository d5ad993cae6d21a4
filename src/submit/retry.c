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
strv_has(const struct nodeset *ns, const char *s)
{
	size_t	*p = nodeset_find(ns, s);

	return p != NULL && *p != 0;
}

static void
strv_add_new(struct nodeset *ns, const char *s)
{
	size_t	*p, i, old;
	size_t	*oslot;

	if (strv_has(ns, s))
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

char *
retry_exclude(const char *failed, const char *sinfo, const char *inherited,
    char **note)
{
	struct strv	 nodes, inh;
	struct nodeset	 all, badset, out;
	char		*copy, *line, *next, *sp, *s;
	size_t		 i;
	int		 covers;

	memset(&nodes, 0, sizeof nodes);
	memset(&all, 0, sizeof all);
	memset(&badset, 0, sizeof badset);
	memset(&out, 0, sizeof out);
	memset(&inh, 0, sizeof inh);
	if (note != NULL)
		*note = NULL;
	if (failed != NULL)
		slurm_nodelist_expand(failed, &nodes, NULL);
	copy = xstrdup(sinfo != NULL ? sinfo : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		str_trim(line);
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp++ = '\0';
		str_trim(sp);
		strv_add_new(&all, line);
		if (retry_node_bad(sp))
			strv_add_new(&badset, line);
	}
	free(copy);

	/* The failing nodes of the job, else all of its nodes. */
	for (i = 0; i < nodes.n; i++) {
		if (strv_has(&badset, nodes.v[i]))
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
	covers = all.list.n != 0;
	for (i = 0; i < all.list.n; i++) {
		if (!strv_has(&out, all.list.v[i]))
			covers = 0;
	}
	if (covers) {
		nodeset_free(&out);
		for (i = 0; i < nodes.n; i++) {
			if (strv_has(&badset, nodes.v[i]))
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
	/* Keep the chain's records, free the rest. */
	for (i = 0; i < list.n; i++) {
		size_t	j;
		int	keep = 0;

		for (j = 0; j < n; j++)
			keep |= v[j] == list.v[i];
		if (!keep)
			record_free(list.v[i]);
	}
	free(list.v);
	list.v = NULL;
	list.n = 0;
	record_list_free(&list);
	*out = v;
	*np = n;
	return 0;
}

/* --- the remote part ------------------------------------------------------- */

#define RETRY_MAXOUT	(8 * 1024 * 1024)	/* bytes of the whole reply */

static int
retry_sh(struct conn *c, const char *body, struct conn_result *res,
    char **cause)
{
	struct buf	b;
	int		rc;

	/* On stdin inside braces: a secret in it is never in an argv. */
	buf_init(&b);
	buf_adds(&b, "{\n");
	buf_adds(&b, body);
	buf_adds(&b, "\n} </dev/null\n");
	/* The reply holds the job's own files: never read it unbounded. */
	rc = conn_exec_limit(c, "/bin/sh -s", b.data, b.len, 0, RETRY_MAXOUT,
	    res, cause);
	memset(b.data, 0, b.len);
	buf_free(&b);
	return rc;
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

int
retry_run(struct conn *c, const char *record_id, const struct retry_opts *o,
    struct retry_result *res, char **cause)
{
	static const struct retry_opts	 none;
	struct record			*old = NULL, *nr = NULL;
	struct conn_result		 cr;
	struct slurm_jobs		 jobs;
	struct slurm_job		*j;
	struct submit_launch		 l;
	struct buf			 sh, side;
	struct lint_secret		*sec = NULL;
	const char			*(*get)(const char *, void *);
	const char			*source, *v;
	struct remote_reply		 rep;
	char				 marker[REMOTE_MARKER_SIZE];
	char				 since[16], *why = NULL;
	char				 sep[SLURM_SEP_SIZE];
	char				*cmd = NULL, *text = NULL, *sinfo = NULL;
	char				*queued = NULL;
	char				*root = NULL, *env_path = NULL;
	char				*retried = NULL, *inh = NULL, *msg;
	char				*script, *sbatch;
	enum slurm_submit		 verdict;
	struct submit_faults		 faults;
	time_t				 sent;
	int				 ssh_failed, n;
	long				 sid, newid = 0;
	size_t				 i, nsec = 0;
	int				 rc = -1;

	o = o != NULL ? o : &none;
	source = o->source != NULL ? o->source : "retry";
	memset(res, 0, sizeof *res);
	memset(&jobs, 0, sizeof jobs);
	memset(&l, 0, sizeof l);
	memset(&cr, 0, sizeof cr);
	res->budget = SPEC_RETRY_BUDGET;

	if (record_load(record_id, &old, cause) != 0)
		return -1;
	if (record_slurm_id(old) == NULL || old->job_dir == NULL ||
	    old->job_name == NULL || old->log_dir == NULL) {
		cause_set(cause, "record %s has no SLURM job or job directory: "
		    "it never ran, so there is nothing staged to submit again",
		    old->id);
		goto out;
	}
	/*
	 * The secret names and the budget come from the record written at
	 * submit time.  The staged spec is the job's to rewrite: reading
	 * "secrets:" back from it would let a workload pick which local
	 * variables are sent to the cluster.
	 */
	if (!old->retry_known) {
		cause_set(cause, "record %s was written by an older sqdeck and "
		    "does not hold its spec's secret names and retry budget: "
		    "it is not retried; submit the spec again", old->id);
		goto out;
	}
	res->budget = old->retry_budget;
	sid = strtol(record_slurm_id(old), NULL, 10);
	root = retry_root_id(old);
	res->sbatch_path = jobdir_path(old->job_dir, JOBDIR_SBATCH, root);
	env_path = jobdir_path(old->job_dir, JOBDIR_ENV, root);

	/* 1. What SLURM says, in one round trip. */
	remote_marker(marker, sizeof marker);
	slurm_since(time(NULL) - 7 * 24 * 3600, since, sizeof since);
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = slurm_cmd_sacct(&sid, 1, since, NULL, sep, &why)) == NULL)
		goto fail_why;
	buf_init(&sh);
	buf_adds(&sh, "LC_ALL=C; export LC_ALL\n");
	remote_reply_prelude(&sh, marker);
	buf_printf(&sh, "sec sacct\n%s 2>&1\nsec squeue\n"
	    "squeue -h -j %ld -o %%T 2>/dev/null\nsec sinfo\nsinfo -h -N -p ",
	    cmd, sid);
	buf_add_quoted(&sh, old->partition != NULL ? old->partition : "");
	buf_adds(&sh, " -o '%N %t' 2>&1\nsec sbatch\ntest -f ");
	buf_add_quoted(&sh, res->sbatch_path);
	buf_adds(&sh, " && echo present\nsec end\n");
	free(cmd);
	cmd = NULL;
	if (retry_sh(c, sh.data, &cr, &why) != 0) {
		buf_free(&sh);
		goto fail_why;
	}
	buf_free(&sh);
	/* No section at all: every answer below is missing. */
	remote_reply_parse(cr.out, cr.outlen, marker, "the retry", &rep,
	    NULL);
	text = remote_reply_text(&rep, "sacct", NULL);
	slurm_parse_sacct(text != NULL ? text : "", sep, &jobs, NULL);
	j = slurm_jobs_find(&jobs, sid);
	queued = remote_reply_text(&rep, "squeue", NULL);
	if (queued != NULL)
		str_trim(queued);
	sinfo = remote_reply_text(&rep, "sinfo", NULL);
	free(text);
	text = remote_reply_text(&rep, "sbatch", NULL);
	remote_reply_free(&rep);

	/* 2. The rules. */
	retried = retry_existing(old->id);
	res->decision = retry_decide(old, res->budget, retried, queued,
	    &res->why);
	if (res->decision != RETRY_GO) {
		rc = 1;
		goto out;
	}
	if (text == NULL || strstr(text, "present") == NULL) {
		cause_set(cause, "%s is gone from the cluster: the staged "
		    "workload cannot be submitted again; submit the spec anew",
		    res->sbatch_path);
		goto out;
	}
	/* Every node that failed earlier in the chain stays excluded. */
	inh = retry_inherited_chain(old);
	if (inh != NULL)
		res->inherited = xstrdup(inh);
	res->exclude = retry_exclude(j != NULL ? j->nodelist : NULL, sinfo,
	    inh, &res->note);

	/* 3. Secrets again: the sidecar was wiped when the job ended (R8). */
	get = o->secret != NULL ? o->secret : retry_getenv;
	buf_init(&side);
	if (old->secrets.n != 0) {
		sec = xcalloc(old->secrets.n, sizeof *sec);
		for (i = 0; i < old->secrets.n; i++) {
			v = get(old->secrets.v[i], o->arg);
			if (v == NULL || *v == '\0') {
				buf_free(&side);
				cause_set(cause, "secret %s of the spec is not "
				    "set in this environment: export it and "
				    "run 'sqdeck retry %s' (values go only "
				    "over SSH stdin)", old->secrets.v[i],
				    old->id);
				goto out;
			}
			sec[nsec].name = old->secrets.v[i];
			sec[nsec++].value = v;
		}
		if (submit_sidecar(sec, nsec, &text, &why) != 0) {
			buf_free(&side);
			goto fail_why;
		}
		buf_adds(&side, "umask 077\nprintf '%s' ");
		buf_add_quoted(&side, text);
		buf_adds(&side, " >");
		buf_add_quoted(&side, env_path);
		buf_adds(&side, " && chmod 600 -- ");
		buf_add_quoted(&side, env_path);
		buf_adds(&side, "\n");
		memset(text, 0, strlen(text));
		free(text);
		text = NULL;
	}

	/* 4. The new record before the launch (R12). */
	nr = record_new_retry(old);
	if (record_create(nr, &why) != 0) {
		buf_free(&side);
		cause_set(cause, "cannot open the retry's record, so nothing "
		    "is launched: %s", why);
		free(why);
		goto out;
	}
	res->record_id = xstrdup(nr->id);
	msg = xasprintf("retry %d of %d of %s (SLURM job %ld, %s, rule %s); "
	    "exclude=%s%s%s", nr->retry_count, res->budget, old->id, sid,
	    old->native != NULL && *old->native ? old->native : "ERROR",
	    old->err_rule != NULL ? old->err_rule : "-", *res->exclude ?
	    res->exclude : "none", res->inherited != NULL ?
	    "; inherited from the chain: " : "", res->inherited != NULL ?
	    res->inherited : "");
	record_transition(nr->id, RSTATE_PENDING, "", source, msg, NULL);
	free(msg);

	/* 5. The same sbatch file, the failed nodes excluded. */
	buf_init(&sh);
	buf_adds(&sh, "sbatch --parsable --hold");
	if (*res->exclude != '\0') {
		buf_adds(&sh, " --exclude=");
		buf_add_quoted(&sh, res->exclude);
	}
	buf_adds(&sh, " -J ");
	buf_add_quoted(&sh, old->job_name);
	buf_adds(&sh, " ");
	buf_add_quoted(&sh, res->sbatch_path);
	sbatch = buf_steal(&sh);
	/* The test hook of submit.h: empty-reply, after-sbatch. */
	memset(&faults, 0, sizeof faults);
	if (submit_faults_parse(getenv("SQDECK_TEST_FAULT"), &faults,
	    &why) != 0) {
		free(sbatch);
		memset(side.data != NULL ? side.data : "", 0, side.len);
		buf_free(&side);
		goto fail_new;
	}
	script = submit_launch_script(old->job_dir, sbatch, old->log_dir,
	    old->job_name, faults.launch, 0);
	buf_adds(&side, script);
	free(script);
	conn_result_free(&cr);
	sent = time(NULL);
	ssh_failed = retry_sh(c, side.data, &cr, &why) != 0;
	if (!ssh_failed) {
		submit_launch_parse(cr.out, &l);
		msg = NULL;
		verdict = l.sbatch_rc == -1 ? SLURM_SUBMIT_AMBIGUOUS :
		    slurm_parse_sbatch(l.out, l.err, &newid, &msg);
	} else {
		verdict = SLURM_SUBMIT_AMBIGUOUS;
		msg = why;
		why = NULL;
	}
	if (verdict == SLURM_SUBMIT_AMBIGUOUS) {
		/*
		 * R15: the reply was lost, the job may be queued.  Look it up
		 * by its exact name, as submit does, leaving out the chain's
		 * own earlier jobs (same name); adopt it, or send once more
		 * when there is none.
		 */
		n = retry_reconcile(c, old, sent, &newid, &why);
		if (n < 0 || n > 1) {
			free(sbatch);
			if (n > 1) {
				free(why);
				why = xasprintf("sbatch gave no usable answer "
				    "(%s) and %d jobs are named %s: check "
				    "'squeue --me -n %s' and cancel the extra "
				    "ones", msg != NULL ? msg : "no reply", n,
				    old->job_name, old->job_name);
			}
			free(msg);
			memset(side.data, 0, side.len);
			buf_free(&side);
			goto fail_new;
		}
		free(msg);
		msg = NULL;
		submit_launch_free(&l);
		memset(&l, 0, sizeof l);
		conn_result_free(&cr);
		if (n == 1) {
			res->adopted = 1;
			script = submit_release_script(newid, old->log_dir,
			    old->job_name);
		} else {
			res->resubmitted = 1;
			script = submit_launch_script(old->job_dir, sbatch,
			    old->log_dir, old->job_name, NULL, 0);
		}
		if (retry_sh(c, script, &cr, &why) != 0) {
			free(script);
			free(sbatch);
			memset(side.data, 0, side.len);
			buf_free(&side);
			msg = xasprintf("SSH failed while %s the retry (%s); "
			    "check 'squeue --me -n %s'", n == 1 ? "releasing" :
			    "submitting again", why, old->job_name);
			free(why);
			why = msg;
			goto fail_new;
		}
		free(script);
		submit_launch_parse(cr.out, &l);
		if (n == 0) {
			verdict = l.sbatch_rc == -1 ? SLURM_SUBMIT_AMBIGUOUS :
			    slurm_parse_sbatch(l.out, l.err, &newid, &msg);
		} else
			verdict = SLURM_SUBMIT_OK;
	}
	free(sbatch);
	memset(side.data, 0, side.len);
	buf_free(&side);
	if (verdict != SLURM_SUBMIT_OK) {
		/* R15: never resubmit blindly; the user checks by name. */
		why = xasprintf("sbatch %s: %s; check 'squeue --me -n %s' "
		    "before retrying again", verdict == SLURM_SUBMIT_ERROR ?
		    "refused the retry" : "gave no usable answer", l.sbatch_rc
		    == -1 || msg == NULL ? "the launch script stopped early" :
		    msg,
		    old->job_name);
		free(msg);
		goto fail_new;
	}
	free(msg);
	res->slurm_id = xasprintf("%ld", newid);
	if (record_set_slurm_id(nr->id, res->slurm_id, &why) != 0)
		goto fail_new;
	if (l.mkdir_failed || !l.released) {
		why = xasprintf("job %ld: %s", newid, l.mkdir_failed ?
		    "could not create its log directory (cancelled)" :
		    "is held and could not be released");
		goto fail_new;
	}
	{
		struct state_map	m;
		enum rstate		rs = RSTATE_PENDING;

		if (l.state != NULL && state_map(l.state, STATUS_MISSING,
		    &m) == 0 && m.state != RSTATE_UNKNOWN)
			rs = m.state;
		msg = xasprintf("%s SLURM job %ld (retry of %s, "
		    "exclude=%s%s%s)", res->adopted ? "sbatch's reply was lost; found by name "
		    "and adopted" : res->resubmitted ? "sbatch's reply was "
		    "lost and no job had the name; submitted again as" :
		    "submitted as", newid, old->id, *res->exclude ?
		    res->exclude : "none", res->inherited != NULL ?
		    "; inherited from the chain: " : "",
		    res->inherited != NULL ? res->inherited : "");
		record_transition(nr->id, rs, l.state != NULL ? l.state :
		    "PENDING", source, msg, NULL);
		free(msg);
		res->state = xstrdup(state_name(rs));
	}
	msg = xasprintf("retried as %s (SLURM job %ld)", nr->id, newid);
	record_transition(old->id, old->state, old->native, source, msg, NULL);
	free(msg);
	rc = 0;
	goto out;

fail_new:
	record_transition(nr->id, RSTATE_ERROR, "", source, why, NULL);
	record_set_err(nr->id, ERR_INFRA, "retry-launch", NULL);
	res->state = xstrdup(state_name(RSTATE_ERROR));
fail_why:
	cause_set(cause, "%s", why);
	free(why);
out:
	free(sec);
	free(cmd);
	free(text);
	free(sinfo);
	free(queued);
	free(root);
	free(env_path);
	free(retried);
	free(inh);
	slurm_jobs_free(&jobs);
	submit_launch_free(&l);
	conn_result_free(&cr);
	record_free(old);
	record_free(nr);
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
