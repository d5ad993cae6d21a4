/*
 * The submit pipeline (sqdeck(1): submit): the table of steps and its walk, the
 * session, the remote-script transport and the test faults.  Each step
 * is in its own file (submit-int.h lists them); see submit.h for the
 * order and jobdir.h for the layout.
 *
 * Every remote step is ONE script (from templates/remote/) sent on
 * stdin of "/bin/sh -s", wrapped in braces so sh parses it whole before
 * running it; its values are quoted assignments before it.  Payloads that carry
 * secrets (the sidecar, the registry key) are inside that script and only
 * ever reach builtins (assignment, printf) and pipes.
 */
#include "submit-int.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "state.h"
#include "template.h"

static const char *submit_steps[SUBMIT_NSTEPS] = {
	"preflight", "check", "image", "secrets", "record", "render", "stage",
	"launch"
};

const char *
submit_step_name(enum submit_step s)
{
	return (s < SUBMIT_NSTEPS) ? submit_steps[s] : "?";
}

const char *
submit_image_action_name(enum submit_image_action a)
{
	switch (a) {
	case SUBMIT_IMAGE_SQSH:
		return "sqsh";
	case SUBMIT_IMAGE_CACHED:
		return "cached";
	case SUBMIT_IMAGE_CONVERTED:
		return "converted";
	case SUBMIT_IMAGE_WOULD_CONVERT:
		return "would-convert";
	}
	return "?";
}

/* --- session ------------------------------------------------------------- */

void
submit_session_init(struct submit_session *s, struct conn *c,
    const struct cluster *cl)
{
	memset(s, 0, sizeof *s);
	s->conn = c;
	s->cl = cl;
	s->pf_age = -1;
}

int
submit_preflight(struct submit_session *s, int *cached, char **cause)
{
	struct buf	 b;
	char		*why = NULL;
	size_t		 i;

	if (cached != NULL)
		*cached = s->have_pf;
	if (s->have_pf)
		return 0;
	preflight_free(&s->pf);
	if (preflight_run_cached(s->conn, s->cl, &s->pf, PREFLIGHT_REUSE,
	    &s->pf_age, NULL, &why) != 0) {
		cause_set(cause, "preflight: %s", why);
		free(why);
		return -1;
	}
	if (!s->pf.ok) {
		buf_init(&b);
		buf_printf(&b, "preflight of cluster %s failed:", s->cl->name);
		for (i = 0; i < s->pf.problems.n; i++)
			buf_printf(&b, "\n  - %s", s->pf.problems.v[i]);
		buf_adds(&b, "\n(run 'sqdeck preflight' for the details)");
		cause_set(cause, "%s", b.data);
		buf_free(&b);
		return -1;
	}
	s->have_pf = 1;
	return 0;
}

/*
 * A reused preflight (PREFLIGHT_REUSE) may predate a change on the cluster
 * (a partition an admin just made): before a step refuses on what it says,
 * ask the cluster again.  0 and the same answer if it was fresh already.
 */
int
submit_preflight_refresh(struct submit_session *s, char **cause)
{
	if (s->pf_age < 0)
		return 0;
	s->have_pf = 0;
	preflight_free(&s->pf);
	memset(&s->pf, 0, sizeof s->pf);
	if (preflight_run_cached(s->conn, s->cl, &s->pf, 0, &s->pf_age, NULL,
	    cause) != 0 || !s->pf.ok) {
		if (cause != NULL && *cause == NULL)
			cause_set(cause, "preflight of cluster %s failed "
			    "(run 'sqdeck preflight' for the details)",
			    s->cl->name);
		return -1;
	}
	s->have_pf = 1;
	return 0;
}

void
submit_session_free(struct submit_session *s)
{
	preflight_free(&s->pf);
	s->have_pf = 0;
	s->pf_age = -1;
}

/* --- pure parts ---------------------------------------------------------- */

char *
submit_job_name(const char *prefix, const char *record_id)
{
	if (prefix == NULL || *prefix == '\0')
		prefix = "sqdeck";
	if (str_has_prefix(record_id, "sd-"))
		record_id += 3;
	return xasprintf("%s-%s", prefix, record_id);
}


/* --- remote scripts ------------------------------------------------------ */

/* --- test hooks (SQDECK_TEST_FAULT, see submit.h) ---------------------- */

static const char *submit_fault_points[] = {
	"preflight", "check", "image", "record", "render", "stage", "launch",
	"reconcile", "release", "wipe", "recover", NULL
};

int
submit_faults_parse(const char *value, struct submit_faults *f, char **cause)
{
	static const struct {
		const char		*word;
		enum submit_fault_kind	 kind;
	} kinds[] = {
		{ "cut-before", SUBMIT_FAULT_CUT_BEFORE },
		{ "cut-after", SUBMIT_FAULT_CUT_AFTER },
		{ "kill-before", SUBMIT_FAULT_KILL_BEFORE },
		{ "kill-after", SUBMIT_FAULT_KILL_AFTER },
		{ "kill", SUBMIT_FAULT_KILL_AFTER },
		{ "stop-before", SUBMIT_FAULT_STOP_BEFORE },
		{ "stop-after", SUBMIT_FAULT_STOP_AFTER },
	};
	char	*copy, *item, *next, *colon;
	size_t	 i, k;
	int	 rc = -1;

	memset(f, 0, sizeof *f);
	if (value == NULL || *value == '\0')
		return 0;
	copy = xstrdup(value);
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		if (strcmp(item, "after-sbatch") == 0) {
			f->launch = "after-sbatch";
			continue;
		}
		if (strcmp(item, "empty-reply") == 0) {
			f->launch = "empty-reply";
			continue;
		}
		if ((colon = strchr(item, ':')) == NULL)
			goto bad;
		*colon++ = '\0';
		for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			if (strcmp(item, kinds[k].word) == 0)
				break;
		}
		for (i = 0; submit_fault_points[i] != NULL; i++) {
			if (strcmp(colon, submit_fault_points[i]) == 0)
				break;
		}
		if (k == sizeof kinds / sizeof kinds[0] ||
		    submit_fault_points[i] == NULL || f->n == SUBMIT_FAULT_MAX) {
			colon[-1] = ':';
			goto bad;
		}
		f->v[f->n].kind = kinds[k].kind;
		snprintf(f->v[f->n].point, sizeof f->v[f->n].point, "%s", colon);
		f->n++;
	}
	rc = 0;
	goto out;
bad:
	cause_set(cause, "SQDECK_TEST_FAULT: \"%s\" is not a fault (a "
	    "comma list of after-sbatch, empty-reply, or "
	    "cut-before|cut-after|kill-before|kill-after|kill|stop-before|"
	    "stop-after:POINT, at most %d)", item, SUBMIT_FAULT_MAX);
out:
	free(copy);
	return rc;
}

/*
 * Point reached (after: done): SIGKILL or SIGSTOP ourselves if asked.
 * From a remote command (remote set), returns the cut to apply to it.
 */
enum submit_fault_kind
submit_fault_hit(struct submit_faults *f, const char *point, int after,
    int remote)
{
	enum submit_fault_kind	 cut = 0, k;
	size_t			 i;

	for (i = 0; f != NULL && i < f->n; i++) {
		if (f->v[i].fired || strcmp(f->v[i].point, point) != 0)
			continue;
		k = f->v[i].kind;
		if (after != (k == SUBMIT_FAULT_KILL_AFTER ||
		    k == SUBMIT_FAULT_STOP_AFTER))
			continue;
		if (!remote && (k == SUBMIT_FAULT_CUT_BEFORE ||
		    k == SUBMIT_FAULT_CUT_AFTER))
			continue;
		f->v[i].fired = 1;
		if (k == SUBMIT_FAULT_KILL_BEFORE || k == SUBMIT_FAULT_KILL_AFTER)
			raise(SIGKILL);
		else if (k == SUBMIT_FAULT_STOP_BEFORE ||
		    k == SUBMIT_FAULT_STOP_AFTER)
			raise(SIGSTOP);
		else
			cut = k;
	}
	return cut;
}

/* Drop the connection between two commands (the next one reconnects). */
static void
submit_cut_now(struct conn *c)
{
	struct conn_result	res;
	struct buf		b;

	buf_init(&b);
	rsh_embed(&b, "lib-cut.sh");
	buf_adds(&b, "sd_cut; exit 0\n");
	if (rsh_run(c, b.data, 0, &res, NULL) == 0)
		conn_result_free(&res);
	buf_free(&b);
}

/*
 * rsh_run with the faults of point applied; plain: body is one command
 * run as is (conn_exec) when there is no cut.
 */
int
submit_remote_cmd(struct submit_faults *f, const char *point, struct conn *c,
    const char *body, int plain, int timeout, struct conn_result *res,
    char **cause)
{
	enum submit_fault_kind	 cut;
	struct buf		 b;
	int			 rc;

	cut = submit_fault_hit(f, point, 0, 1);
	if (cut == 0 && plain)
		rc = conn_exec(c, body, NULL, 0, res, cause);
	else if (cut == 0)
		rc = rsh_run(c, body, timeout, res, cause);
	else {
		/* The work is done (or not at all); the reply never comes. */
		buf_init(&b);
		rsh_embed(&b, "lib-cut.sh");
		if (cut == SUBMIT_FAULT_CUT_BEFORE)
			buf_adds(&b, "sd_cut; exit 0\n");
		buf_adds(&b, "(\n");
		buf_adds(&b, body);
		buf_adds(&b, "\n) >/dev/null 2>&1\nsd_cut; exit 0\n");
		rc = rsh_run(c, b.data, timeout, res, cause);
		memset(b.data, 0, b.len);
		buf_free(&b);
	}
	submit_fault_hit(f, point, 1, 1);
	return rc;
}

int
submit_remote(struct submit_faults *f, const char *point, struct conn *c,
    const char *body, int timeout, struct conn_result *res, char **cause)
{
	return submit_remote_cmd(f, point, c, body, 0, timeout, res, cause);
}

int
submit_xremote(struct submit_ctx *x, const char *body, int timeout,
    struct conn_result *res, char **cause)
{
	return submit_remote(&x->faults, x->point, x->s->conn, body, timeout,
	    res, cause);
}

/* --- progress and failure ------------------------------------------------ */

void
submit_say(struct submit_ctx *x, enum submit_step step, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	if (x->o->progress == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	x->o->progress(x->o->arg, step, text);
	free(text);
}

/* Record the failing step; a record already opened goes to ERROR. */
int
submit_fail(struct submit_ctx *x, enum submit_step step, char **cause,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*text, *why = NULL;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	x->res->failed = 1;
	x->res->failed_step = step;
	if (x->record_open && x->unresolved != NULL) {
		/* A job may exist: the next submit looks it up (recover). */
		record_transition(x->record_id, RSTATE_UNKNOWN, "",
		    x->unresolved, text, &why);
		free(why);
		free(x->res->state);
		x->res->state = xstrdup(state_name(RSTATE_UNKNOWN));
	} else if (x->record_open) {
		/* Until the sidecar is removed, recover has work left. */
		if (record_transition(x->record_id, RSTATE_ERROR, "",
		    x->staged && x->nsec != 0 ? "submit:unwiped" : "submit",
		    text, &why) == 0)
			record_set_err(x->record_id, ERR_CONFIG,
			    submit_step_name(step), NULL);
		free(why);
		free(x->res->state);
		x->res->state = xstrdup(state_name(RSTATE_ERROR));
	}
	cause_set(cause, "%s", text);
	free(text);
	return -1;
}

void
submit_addline(struct buf *b, const char *line)
{
	/* Appended in place: a long enroot log stays linear. */
	if (b->len != 0)
		buf_add(b, "\n", 1);
	buf_adds(b, line);
}

/* The lines gathered, or NULL for none. */
char *
submit_lines(struct buf *b)
{
	if (b->len == 0) {
		buf_free(b);
		return NULL;
	}
	return buf_steal(b);
}


/* --- the walk ------------------------------------------------------------ */

#define SP_DRY		0x1	/* runs in a dry run too */
#define SP_KILL		0x2	/* kill-/stop-before:POINT as it starts,
				   -after once it succeeded */
#define SP_CUT		0x4	/* the same and cut-before/-after:POINT drop
				   the connection around it (after: always) */
#define SP_REMOTE	0x8	/* its round trip applies POINT's cuts */
#define SP_DRYONLY	0x10	/* runs in a dry run only */

struct submit_stepdef {
	const char	*point;		/* SQDECK_TEST_FAULT point, or NULL */
	int		 flags;
	int		 (*run)(struct submit_ctx *, char **);
};

/*
 * The submit, in order.  Local work comes first: nothing remote for a
 * spec that cannot run, and a warm submit is then ONE round trip (launch:
 * check, gate, stage, sbatch --hold, log dir, release; submit-launch.c).
 * A dry run checks and stops after render: no recover, no record, no
 * remote write (and its render has no fault point).  Points used inside
 * a step, per command: check, stage, launch (the one round trip's parts),
 * image (when it converts), reconcile, release, unstage, wipe (launch)
 * and recover (each record finished).
 */
static const struct submit_stepdef submit_table[] = {
	{ NULL,		SP_DRY,			submit_step_local },
	{ NULL,		SP_DRY,			submit_step_values },
	{ NULL,		SP_DRY,			submit_step_files },
	{ "preflight",	SP_DRY | SP_CUT,	submit_step_preflight },
	{ NULL,		SP_DRY,			submit_step_plan },
	{ NULL,		0,			submit_step_recover },
	{ "check",	SP_DRYONLY | SP_REMOTE,	submit_step_check },
	{ "image",	SP_DRYONLY | SP_KILL | SP_REMOTE, submit_step_image },
	{ NULL,		0,			submit_step_where },
	{ NULL,		SP_DRY,			submit_step_secrets },
	{ NULL,		SP_DRY,			submit_step_nccl },
	{ NULL,		SP_DRYONLY,		submit_step_render },
	/* Rendered first: the record is created with the script's hash. */
	{ "render",	SP_KILL,		submit_step_render },
	{ "record",	SP_KILL,		submit_step_record },
	{ NULL,		0,			submit_step_pending },
	/* One round trip: check, stage, launch (their points inside). */
	{ NULL,		0,			submit_step_launch },
};

static int
submit_walk(struct submit_ctx *x, char **cause)
{
	const struct submit_stepdef	*d;
	enum submit_fault_kind		 cut = 0;
	size_t				 i;
	int				 rc = SUBMIT_NEXT;

	for (i = 0; i < sizeof submit_table / sizeof submit_table[0]; i++) {
		d = &submit_table[i];
		if (x->o->dry_run ? !(d->flags & (SP_DRY | SP_DRYONLY)) :
		    (d->flags & SP_DRYONLY) != 0)
			continue;
		x->point = d->flags & SP_REMOTE ? d->point : NULL;
		if (d->flags & SP_KILL)
			submit_fault_hit(&x->faults, d->point, 0, 0);
		if (d->flags & SP_CUT) {
			cut = submit_fault_hit(&x->faults, d->point, 0, 1);
			if (cut == SUBMIT_FAULT_CUT_BEFORE)
				submit_cut_now(x->s->conn);
		}
		rc = d->run(x, cause);
		if (d->flags & SP_CUT) {
			if (cut == SUBMIT_FAULT_CUT_AFTER)
				submit_cut_now(x->s->conn);
			submit_fault_hit(&x->faults, d->point, 1, 1);
		}
		if ((d->flags & SP_KILL) && rc == SUBMIT_NEXT)
			submit_fault_hit(&x->faults, d->point, 1, 0);
		if (rc != SUBMIT_NEXT)
			break;
	}
	return rc < 0 ? -1 : 0;
}

/* A failed submit's sidecar is wiped; the lock file stays if unresolved. */
static void
submit_end(struct submit_ctx *x, int rc)
{
	size_t	i;
	int	left = 0;

	if (rc != 0 && x->staged && submit_wipe(x) != 0)
		left = 1;
	/* Refused before anything was written remotely: no record either. */
	if (rc != 0 && x->discard && x->record_open && !x->staged &&
	    x->unresolved == NULL && record_discard(x->record_id, NULL) == 0) {
		x->record_open = 0;
		free(x->res->state);
		x->res->state = NULL;
	}
	if (x->lockfd >= 0) {
		/* Unresolved: the lock file tells the next submit (recover). */
		if (x->unresolved == NULL && !left)
			unlink(x->lockpath);
		close(x->lockfd);
	}
	free(x->lockpath);
	submit_check_free(&x->ck);
	strv_free(&x->paths);
	strv_free(&x->what);
	strv_free(&x->exports);
	free(x->image_file);
	free(x->sec);
	nccl_job_free(&x->nccl);
	for (i = 0; x->files != NULL && i < x->sp->nfiles; i++) {
		buf_free(&x->files[i]);
		free(x->members[i]);
	}
	free(x->files);
	free(x->members);
	free(x->record_id);
	free(x->results_root);
	jobdir_free(&x->lay);
	plan_free(&x->plan);
	image_free(&x->img);
}

int
submit_run(struct submit_session *s, const struct spec *sp,
    const struct submit_opts *o, struct submit_result *res, char **cause)
{
	static const struct submit_opts	 none;
	struct submit_ctx		 x;
	char				*why = NULL;
	int				 rc = -1;

	memset(res, 0, sizeof *res);
	memset(&x, 0, sizeof x);
	x.lockfd = -1;
	x.s = s;
	x.sp = sp;
	x.o = o != NULL ? o : &none;
	x.res = res;
	if (submit_faults_parse(getenv("SQDECK_TEST_FAULT"), &x.faults,
	    &why) != 0) {
		submit_fail(&x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
	} else
		rc = submit_walk(&x, cause);
	submit_end(&x, rc);
	return rc;
}

void
submit_result_free(struct submit_result *r)
{
	free(r->record_id);
	free(r->job_name);
	free(r->job_dir);
	free(r->sbatch_path);
	free(r->env_path);
	free(r->slurm_id);
	free(r->state);
	free(r->native);
	free(r->image);
	free(r->image_sqsh);
	free(r->import_job);
	free(r->script);
	strv_free(&r->secrets);
	memset(r, 0, sizeof *r);
}
