/*
 * Submit step launch (sqdeck(1): submit): ONE round trip, sbatch --parsable
 * --hold, mkdir of <log_dir>/<name>-<id>, scontrol release; an empty or
 * garbled reply or an SSH drop is reconciled by the job's exact name, and
 * a job found that way is adopted (released with its log dir).  Retry
 * (retry.c) sends its sbatch with the same scripts.
 */
#include "submit-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "slurm.h"
#include "state.h"

/*
 * The log directory must exist before the job starts, so jobs are
 * submitted held and released after the mkdir (lib-release.sh).
 * sbatch_cmd is a command line whose values are quoted (slurm.c); the
 * script runs it with eval.
 */
char *
submit_launch_script(const char *job_dir, const char *sbatch_cmd,
    const char *log_dir, const char *job_name, const char *fault, int hold)
{
	struct buf	b;

	buf_init(&b);
	/* --hold: the log dir is made, the job stays held for the user. */
	rsh_var(&b, "hold", hold ? "1" : "0");
	rsh_var(&b, "jd", job_dir);
	rsh_var(&b, "logs", log_dir);
	rsh_var(&b, "name", job_name);
	rsh_var(&b, "cmd", sbatch_cmd);
	rsh_var(&b, "fault", fault);
	rsh_embed(&b, "lib-release.sh");
	if (fault != NULL && *fault != '\0')
		rsh_embed(&b, "lib-cut.sh");
	rsh_embed(&b, "launch.sh");
	return buf_steal(&b);
}

/*
 * The cleanup job's sbatch command line, launch.sh adds its --dependency:
 * a one-minute job on the CPU partition (the job's own when there is
 * none) that wipes the sidecar once the job has ended however it did.
 */
static char *
submit_wipe_cmd(struct submit_ctx *x)
{
	const struct preflight_partition *cpu;
	struct buf			 b, w;
	char				*name;

	if (x->nsec == 0)
		return NULL;
	cpu = preflight_find(&x->s->pf, x->s->cl->cpu_partition != NULL ?
	    x->s->cl->cpu_partition : "cpu");
	buf_init(&w);
	rsh_var(&w, "f", x->lay.env_path);
	rsh_var(&w, "n", x->res->job_name);
	rsh_embed(&w, "lib-wipe.sh");
	/*
	 * Not while a job of the same name may still read it: the job run
	 * again by SLURM (requeued), or a retry (the same script, a fresh
	 * sidecar at the same path).  No answer from squeue: the poll or
	 * cancel wipes it later, as without this job.
	 */
	buf_adds(&w, "if ids=$(squeue -h -n \"$n\" -t PENDING,RUNNING,"
	    "SUSPENDED,CONFIGURING,REQUEUED -o %i 2>/dev/null) &&\n"
	    "    [ -z \"$ids\" ]; then\n\tsd_wipe \"$f\"\nfi\n");
	name = xasprintf("%s-wipe", x->res->job_name);
	buf_init(&b);
	buf_adds(&b, "sbatch --parsable -J ");
	buf_add_quoted(&b, name);
	buf_adds(&b, " -p ");
	buf_add_quoted(&b, cpu != NULL && cpu->exists ? cpu->name :
	    x->plan.partition);
	if (x->plan.account != NULL) {
		buf_adds(&b, " -A ");
		buf_add_quoted(&b, x->plan.account);
	}
	buf_adds(&b, " -n 1 -c 1 -t 1 -o /dev/null -e /dev/null "
	    "--kill-on-invalid-dep=yes --wrap ");
	buf_add_quoted(&b, w.data);
	buf_free(&w);
	free(name);
	return buf_steal(&b);
}

/* Where a test fault cuts the one round trip (cutat of submit.sh). */
static const char *
submit_go_cut(struct submit_ctx *x)
{
	static const struct {
		const char	*point;
		const char	*before, *after;
	} at[] = {
		{ "check", "begin", "check" },
		{ "stage", "check", "stage" },
		{ "launch", "stage", "end" },
	};
	enum submit_fault_kind	 k;
	const char		*cut = NULL;
	size_t			 i;

	/* kill-before and stop-before of the three fire here, in order. */
	for (i = 0; i < sizeof at / sizeof at[0]; i++) {
		k = submit_fault_hit(&x->faults, at[i].point, 0, 1);
		if (cut == NULL && k == SUBMIT_FAULT_CUT_BEFORE)
			cut = at[i].before;
		else if (cut == NULL && k == SUBMIT_FAULT_CUT_AFTER)
			cut = at[i].after;
	}
	return cut;
}

/*
 * The one round trip of a submit (sqdeck(1): submit): check.sh, the gate
 * (submit.sh), stage.sh and launch.sh in one script.  want: the image
 * lines the gate accepts; again: an earlier send may have staged.
 */
static char *
submit_go_script(struct submit_ctx *x, const char *sbatch_cmd,
    const char *want, const char *cut, const char *fault, int again,
    char **cause)
{
	struct buf	 b;
	char		*wcmd;
	size_t		 i;

	buf_init(&b);
	if (submit_stage_vars(x, &b, cause) != 0) {
		buf_free(&b);
		return NULL;
	}
	rsh_var(&b, "img", x->image_file);
	rsh_var(&b, "reg", submit_check_registry(x));
	rsh_var(&b, "want", want);
	rsh_var(&b, "cutat", cut);
	rsh_var(&b, "again", again ? "1" : "0");
	rsh_var(&b, "hold", x->o->hold ? "1" : "0");
	rsh_var(&b, "logs", x->lay.log_dir);
	rsh_var(&b, "name", x->res->job_name);
	rsh_var(&b, "cmd", sbatch_cmd);
	rsh_var(&b, "fault", fault);
	wcmd = submit_wipe_cmd(x);
	rsh_var(&b, "wcmd", wcmd);
	free(wcmd);
	buf_adds(&b, "set --");
	for (i = 0; i < x->paths.n; i++) {
		buf_adds(&b, " ");
		buf_add_quoted(&b, x->paths.v[i]);
	}
	buf_adds(&b, "\n");
	rsh_embed(&b, "lib-report.sh");
	rsh_embed(&b, "lib-cstat.sh");
	rsh_embed(&b, "lib-wipe.sh");
	rsh_embed(&b, "lib-release.sh");
	if ((cut != NULL && *cut != '\0') || (fault != NULL && *fault != '\0'))
		rsh_embed(&b, "lib-cut.sh");
	if (cut != NULL && strcmp(cut, "begin") == 0)
		buf_adds(&b, "sd_cut; exit 0\n");
	rsh_embed(&b, "check.sh");
	rsh_embed(&b, "submit.sh");
	rsh_embed(&b, "stage.sh");
	rsh_embed(&b, "launch.sh");
	return buf_steal(&b);
}

char *
submit_release_script(long id, const char *log_dir, const char *job_name)
{
	struct buf	b;
	char		num[32];

	snprintf(num, sizeof num, "%ld", id);
	buf_init(&b);
	rsh_var(&b, "logs", log_dir);
	rsh_var(&b, "name", job_name);
	rsh_var(&b, "id", num);
	rsh_embed(&b, "lib-release.sh");
	rsh_embed(&b, "release.sh");
	return buf_steal(&b);
}

void
submit_launch_parse(const char *text, struct submit_launch *l)
{
	char		*copy, *line, *next, *v, *sp;
	struct buf	 out, err, msg;
	int		 release_rc = -1;

	memset(l, 0, sizeof *l);
	l->sbatch_rc = -1;
	buf_init(&out);
	buf_init(&err);
	buf_init(&msg);
	copy = xstrdup(text != NULL ? text : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!str_has_prefix(line, "sqdeck-") ||
		    (v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-sbatch-rc") == 0)
			l->sbatch_rc = atoi(v);
		else if (strcmp(line, "sqdeck-out") == 0)
			submit_addline(&out, v);
		else if (strcmp(line, "sqdeck-err") == 0)
			submit_addline(&err, v);
		else if (strcmp(line, "sqdeck-mkdir") == 0)
			l->mkdir_failed = 1;
		else if (strcmp(line, "sqdeck-release-rc") == 0)
			release_rc = atoi(v);
		else if (strcmp(line, "sqdeck-release-msg") == 0)
			submit_addline(&msg, v);
		else if (strcmp(line, "sqdeck-state") == 0 && *v != '\0') {
			/* A repeated line replaces the earlier one. */
			free(l->state);
			free(l->reason);
			l->reason = NULL;
			if ((sp = strchr(v, ' ')) != NULL) {
				*sp++ = '\0';
				l->reason = xstrdup(sp);
			}
			l->state = xstrdup(v);
		}
	}
	free(copy);
	l->out = submit_lines(&out);
	l->err = submit_lines(&err);
	l->release_msg = submit_lines(&msg);
	/*
	 * A release that fails because the job is no longer held (someone
	 * released it, or it already ended) is not a failure.
	 */
	if (release_rc == 0)
		l->released = 1;
	else if (release_rc > 0 && (l->reason == NULL ||
	    strcmp(l->reason, "JobHeldUser") != 0))
		l->released = 1;
}

void
submit_launch_free(struct submit_launch *l)
{
	free(l->out);
	free(l->err);
	free(l->release_msg);
	free(l->state);
	free(l->reason);
	memset(l, 0, sizeof *l);
}

/* Jobs named exactly name: squeue first (sacct lags), then sacct. */
static int
submit_lookup_skip(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, const long *skip, size_t nskip, long *idp, char **cause);

int
submit_lookup(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, long *idp, char **cause)
{
	return submit_lookup_skip(f, c, name, sent, NULL, 0, idp, cause);
}

int
submit_find_by_name(struct conn *c, const char *name, time_t sent,
    const long *skip, size_t nskip, long *idp, char **cause)
{
	struct submit_faults	none;

	memset(&none, 0, sizeof none);
	return submit_lookup_skip(&none, c, name, sent, skip, nskip, idp,
	    cause);
}

/* skip: ids known to be other jobs of that name (a retry chain's). */
static int
submit_lookup_skip(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, const long *skip, size_t nskip, long *idp, char **cause)
{
	struct slurm_jobs	 jobs;
	struct conn_result	 res;
	char			*cmd, *why = NULL, since[32];
	char			 sep[SLURM_SEP_SIZE];
	long			 found[8];
	size_t			 i, j, n;
	int			 sacct = 0;

	for (;;) {
		slurm_sep_new(sep, sizeof sep);
		if (!sacct)
			cmd = slurm_cmd_squeue_name(NULL, name, sep, &why);
		else {
			slurm_since(sent, since, sizeof since);
			cmd = slurm_cmd_sacct_name(name, since, NULL, sep,
			    &why);
		}
		if (cmd == NULL)
			goto fail;
		if (submit_remote_cmd(f, "reconcile", c, cmd, 1, 0, &res,
		    &why) != 0) {
			free(cmd);
			goto fail;
		}
		free(cmd);
		memset(&jobs, 0, sizeof jobs);
		if (sacct)
			slurm_parse_sacct(res.out, sep, &jobs, NULL);
		else
			slurm_parse_squeue(res.out, sep, &jobs, NULL);
		conn_result_free(&res);
		n = 0;
		for (i = 0; i < jobs.n; i++) {
			/* A placeholder row's name is not to be trusted. */
			if (jobs.v[i].placeholder || jobs.v[i].name == NULL ||
			    strcmp(jobs.v[i].name, name) != 0)
				continue;
			for (j = 0; j < nskip; j++) {
				if (skip[j] == jobs.v[i].id)
					break;
			}
			if (j < nskip)
				continue;
			for (j = 0; j < n; j++) {
				if (found[j] == jobs.v[i].id)
					break;
			}
			if (j == n && n < sizeof found / sizeof found[0])
				found[n++] = jobs.v[i].id;
		}
		slurm_jobs_free(&jobs);
		if (n > 0) {
			*idp = found[0];
			return (int)n;
		}
		if (sacct)
			return 0;
		/* sbatch may still be on its way: look again, then sacct. */
		if (time(NULL) - sent >= SUBMIT_RECONCILE_WAIT)
			sacct = 1;
		else
			sleep(2);
	}
fail:
	cause_set(cause, "%s", why);
	free(why);
	return -1;
}

static int
submit_reconcile(struct submit_ctx *x, time_t sent, long *idp, char **cause)
{
	return submit_lookup(&x->faults, x->s->conn, x->res->job_name, sent,
	    idp, cause);
}

static int
submit_adopt(struct submit_ctx *x, long id, struct submit_launch *l,
    char **cause)
{
	struct conn_result	 res;
	char			*script, *why = NULL;

	script = submit_release_script(id, x->lay.log_dir, x->res->job_name);
	if (submit_remote(&x->faults, "release", x->s->conn, script, 0, &res,
	    &why) != 0) {
		free(script);
		cause_set(cause, "job %ld: creating its log directory and "
		    "releasing it failed: %s; it is held: run 'scontrol "
		    "release %ld' after 'mkdir -p %s/%s-%ld'", id, why, id,
		    x->lay.log_dir, x->res->job_name, id);
		free(why);
		return -1;
	}
	free(script);
	submit_launch_parse(res.out, l);
	conn_result_free(&res);
	return 0;
}


/*
 * sbatch refused the job: remove the job dir staged for it (only ever the
 * one this submit made under the results root), so a refused request
 * leaves nothing behind on the cluster.  The record keeps the reason.
 */
static void
submit_unstage(struct submit_ctx *x)
{
	struct conn_result	 res;
	struct buf		 b;
	char			*why = NULL;
	size_t			 n = strlen(x->results_root);

	if (x->lay.job_dir == NULL || strncmp(x->lay.job_dir,
	    x->results_root, n) != 0 || x->lay.job_dir[n] != '/' ||
	    strstr(x->lay.job_dir + n, "/..") != NULL)
		return;
	buf_init(&b);
	rsh_var(&b, "jd", x->lay.job_dir);
	rsh_embed(&b, "unstage.sh");
	if (submit_remote(&x->faults, "unstage", x->s->conn, b.data, 0, &res,
	    &why) == 0) {
		if (res.status == 0)
			submit_say(x, SUBMIT_STEP_LAUNCH, "removed the staged "
			    "job dir %s (sbatch queued nothing)",
			    x->lay.job_dir);
		else
			submit_say(x, SUBMIT_STEP_LAUNCH, "could not remove "
			    "the staged job dir %s: %s", x->lay.job_dir,
			    res.err);
		conn_result_free(&res);
	} else {
		submit_say(x, SUBMIT_STEP_LAUNCH, "could not remove the staged "
		    "job dir %s: %s", x->lay.job_dir, why);
		free(why);
	}
	buf_free(&b);
}

/* The record of a released job: its id and state, in one write. */
static int
submit_launched(struct submit_ctx *x, long id, const struct submit_launch *l,
    char **cause)
{
	struct state_map	 m;
	enum rstate		 rs = RSTATE_PENDING;
	char			*text, *why = NULL;
	int			 rc;

	if (l->state != NULL && state_map(l->state, STATUS_MISSING, &m) == 0 &&
	    m.state != RSTATE_UNKNOWN)
		rs = m.state;
	text = xasprintf("submitted as SLURM job %ld%s%s%s", id, x->o->hold ?
	    " and left held (submit --hold: scontrol release starts it)" : "",
	    x->res->adopted ? " (adopted after an ambiguous sbatch reply)" :
	    "", x->res->resubmitted ? " (sent again after the first reply "
	    "was lost and no job existed)" : "");
	rc = record_launched(x->record_id, x->res->slurm_id, rs, l->state !=
	    NULL ? l->state : "PENDING", "submit", text, &why);
	free(text);
	if (rc != 0) {
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld was "
		    "launched but the record could not be updated: %s", id,
		    why);
		free(why);
		return -1;
	}
	free(x->res->state);
	x->res->state = xstrdup(state_name(rs));
	free(x->res->native);
	x->res->native = xstrdup(l->state != NULL ? l->state : "PENDING");
	return 0;
}

#define SUBMIT_GO_SENT	0	/* a reply: staged, launch.sh's answer */
#define SUBMIT_GO_AGAIN	1	/* send again: the image is known now */
#define SUBMIT_GO_LOST	2	/* no reply: a job may exist */

/*
 * The cleanup job, said: launch.sh sends its sbatch after the reply, so
 * that the submit waits for one sbatch, not two; its answer stays in the
 * job dir (sbatch/.wipe.*).  A refusal costs nothing the poll and cancel
 * do not do anyway (they wipe the sidecar too).
 */
static void
submit_wipejob_say(struct submit_ctx *x, const char *out)
{
	const char	*p;
	char		*line;

	if ((p = strstr(out, "\nsqdeck-wipejob=")) == NULL)
		return;
	p += strlen("\nsqdeck-wipejob=");
	line = xstrndup(p, strcspn(p, "\n"));
	if (str_has_prefix(line, "queued "))
		submit_say(x, SUBMIT_STEP_LAUNCH, "cleanup job %s-wipe "
		    "(afterany:%s, wipes the secrets file once the job has "
		    "ended, however it ends) sent after the reply; its answer "
		    "in %s/sbatch/.wipe.*", x->res->job_name, line + 7,
		    x->lay.job_dir);
	free(line);
}

/*
 * The gate's answer (submit.sh).  SUBMIT_GO_SENT: it passed, stage.sh and
 * launch.sh ran; SUBMIT_GO_AGAIN: the image step validated (or converted)
 * the image, *want is what the gate takes now; -1: failed, nothing staged
 * by this send.
 */
static int
submit_go_gate(struct submit_ctx *x, const struct conn_result *res,
    char **want, char **cause)
{
	const char	*g;
	char		*why = NULL, *text;

	submit_check_free(&x->ck);
	if (submit_check_parse(res->out, x->paths.n, &x->ck, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_CHECK, cause, "%s (exit %d%s%.200s)",
		    why, res->status, res->errlen ? ", stderr: " : "", res->err);
		free(why);
		return -1;
	}
	if ((g = strstr(res->out, "\nsqdeck-gate=")) == NULL) {
		return submit_fail(x, SUBMIT_STEP_CHECK, cause, "the check on "
		    "the login node stopped before its answer (exit %d%s%.200s)",
		    res->status, res->errlen ? ", stderr: " : "", res->err);
	}
	g += strlen("\nsqdeck-gate=");
	submit_check_say(x);
	if (str_has_prefix(g, "ok\n")) {
		if (x->img.kind == IMAGE_SQSH || x->res->import_job == NULL)
			submit_say(x, SUBMIT_STEP_IMAGE, "%s: %s %s (%" PRIu64
			    " bytes, squashfs 4.0; size, header, owner and "
			    "modes as validated before)", x->res->image,
			    x->img.kind == IMAGE_SQSH ? "the image file" :
			    "reusing the cached", x->image_file,
			    x->ck.image_size);
		return SUBMIT_GO_SENT;
	}
	if (str_has_prefix(g, "check\n")) {
		if (submit_check_missing(x, cause) != 0)
			return -1;
		return submit_fail(x, SUBMIT_STEP_CHECK, cause, "the check on "
		    "the login node refused a path it did not name");
	}
	/* The image is not known to be good: the image step decides. */
	if (++x->gates > 2)
		return submit_fail(x, SUBMIT_STEP_IMAGE, cause, "the image "
		    "file %s changed on the cluster while it was checked; try "
		    "again", x->image_file);
	submit_fault_hit(&x->faults, "image", 0, 0);
	x->point = "image";
	if (submit_step_image(x, cause) != 0) {
		x->point = NULL;
		return -1;
	}
	x->point = NULL;
	submit_fault_hit(&x->faults, "image", 1, 0);
	free(*want);
	if (x->res->import_job != NULL)
		*want = xstrdup("-");	/* converted and validated just now */
	else {
		text = submit_imgok_text(res->out);
		submit_imgok_save(x, text);
		*want = text;
	}
	return SUBMIT_GO_AGAIN;
}

/*
 * One send of the one round trip: check, gate, stage, launch.  The
 * connection's failure is SUBMIT_GO_LOST (*msg says it); a reply is
 * SUBMIT_GO_SENT (res to free) or SUBMIT_GO_AGAIN; -1 failed.
 */
static int
submit_go_send(struct submit_ctx *x, int attempt, char **want,
    struct conn_result *res, time_t *sent, char **msg, char **cause)
{
	static const char	*points[] = { "check", "stage", "launch" };
	const char		*cut = NULL;
	char			*cmd, *script, *why = NULL;
	size_t			 i;
	int			 rc, first;

	/*
	 * The test faults go with the first send that can pass the gate:
	 * one without validated image lines stops after the check.
	 */
	first = attempt == 0 && !x->go_faults && **want != '\0';

	if ((cmd = slurm_cmd_sbatch(x->lay.sbatch_path, x->res->job_name, 1,
	    &why)) == NULL) {
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "%s", why);
		free(why);
		return -1;
	}
	if (first) {
		x->go_faults = 1;
		cut = submit_go_cut(x);
	}
	script = submit_go_script(x, cmd, *want, cut, first ?
	    x->faults.launch : NULL, attempt > 0, cause);
	free(cmd);
	if (script == NULL)
		return -1;
	/* Once sent, the stage may have written the sidecar (reply or not). */
	x->staged = 1;
	*sent = time(NULL);
	rc = submit_remote(&x->faults, "go", x->s->conn, script, 0, res, &why);
	memset(script, 0, strlen(script));
	free(script);
	if (rc != 0) {
		/* kill-after and stop-after: its reply is lost, or back. */
		for (i = 0; first && i < sizeof points / sizeof points[0]; i++)
			submit_fault_hit(&x->faults, points[i], 1, 1);
		*msg = xasprintf("SSH failed during the submit's round trip: %s",
		    why);
		free(why);
		return SUBMIT_GO_LOST;
	}
	if (first && strstr(res->out, "\nsqdeck-gate=ok\n") != NULL) {
		for (i = 0; i < sizeof points / sizeof points[0]; i++)
			submit_fault_hit(&x->faults, points[i], 1, 1);
	}
	rc = submit_go_gate(x, res, want, cause);
	if (rc != SUBMIT_GO_SENT) {
		conn_result_free(res);
		if (attempt == 0) {
			/* Nothing was staged or launched by any send. */
			x->staged = 0;
			x->discard = rc < 0;
		}
		return rc;
	}
	if (submit_stage_parse(x, res->out, res->status, res->err,
	    cause) != 0) {
		conn_result_free(res);
		return -1;
	}
	return SUBMIT_GO_SENT;
}

int
submit_step_launch(struct submit_ctx *x, char **cause)
{
	struct submit_launch	 l;
	struct conn_result	 res;
	enum slurm_submit	 v;
	const char		*fault = x->faults.launch;
	char			*why = NULL, *msg = NULL, *id_s, *want;
	long			 id = 0;
	time_t			 sent;
	int			 attempt, n;

	memset(&l, 0, sizeof l);
	/* The image lines validated before: the gate may pass at once. */
	if ((want = submit_imgok_load(x)) == NULL)
		want = xstrdup("");
	/* From here a job may exist: an interrupted submit looks it up. */
	msg = xasprintf("sending sbatch (job name %s)", x->res->job_name);
	if (record_transition(x->record_id, RSTATE_PENDING, "",
	    "submit:launch", msg, &why) != 0) {
		free(msg);
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "cannot update the "
		    "record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	free(msg);
	msg = NULL;
	for (attempt = 0; attempt < 2; attempt++) {
		submit_launch_free(&l);
		n = submit_go_send(x, attempt, &want, &res, &sent, &msg,
		    cause);
		if (n < 0)
			goto fail;
		if (n == SUBMIT_GO_AGAIN) {
			attempt--;
			continue;
		}
		if (n == SUBMIT_GO_LOST) {
			/* The job may or may not be queued. */
			v = SLURM_SUBMIT_AMBIGUOUS;
		} else {
			submit_launch_parse(res.out, &l);
			submit_wipejob_say(x, res.out);
			conn_result_free(&res);
			if (attempt == 0 && fault != NULL &&
			    strcmp(fault, "after-sbatch") == 0) {
				/* TEST HOOK fallback: no sshd was found. */
				conn_disconnect(x->s->conn);
				v = SLURM_SUBMIT_AMBIGUOUS;
				msg = xstrdup("connection dropped (test hook)");
			} else if (l.sbatch_rc == -1) {
				v = SLURM_SUBMIT_AMBIGUOUS;
				msg = xstrdup("the launch script stopped before "
				    "reporting sbatch's answer");
			} else
				v = slurm_parse_sbatch(l.out, l.err, &id, &msg);
		}

		if (v == SLURM_SUBMIT_ERROR) {
			/* Nothing was queued: what was staged is litter. */
			submit_unstage(x);
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "sbatch "
			    "refused the job: %s", msg);
			free(msg);
			goto fail;
		}
		if (v == SLURM_SUBMIT_OK) {
			free(msg);
			msg = NULL;
			if (!l.released && !l.mkdir_failed) {
				submit_launch_free(&l);
				if (submit_adopt(x, id, &l, &why) != 0)
					goto fail_held;
			}
			break;
		}

		/* Never resubmit blindly. */
		x->res->ambiguous = 1;
		submit_say(x, SUBMIT_STEP_LAUNCH, "AMBIGUOUS: %s; looking the "
		    "job up by its exact name %s", msg, x->res->job_name);
		free(msg);
		msg = NULL;
		n = submit_reconcile(x, sent, &id, &why);
		if (n < 0) {
			x->unresolved = "submit:reconcile";
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "the sbatch "
			    "reply was lost and the lookup by name failed (%s): "
			    "job %s may or may not exist; check with "
			    "'squeue --me -n %s' before submitting again", why,
			    x->res->job_name, x->res->job_name);
			free(why);
			goto fail;
		}
		if (n > 1) {
			x->unresolved = "submit:reconcile";
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "%d jobs are "
			    "named %s: cancel all but one (scancel) and adopt "
			    "it by hand", n, x->res->job_name);
			goto fail;
		}
		if (n == 1) {
			x->res->adopted = 1;
			submit_say(x, SUBMIT_STEP_LAUNCH, "found exactly one job "
			    "named %s: adopting SLURM job %ld", x->res->job_name,
			    id);
			if (submit_adopt(x, id, &l, &why) != 0)
				goto fail_held;
			break;
		}
		if (attempt == 1) {
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "sbatch gave no "
			    "usable answer twice and no job named %s exists",
			    x->res->job_name);
			goto fail;
		}
		x->res->resubmitted = 1;
		submit_say(x, SUBMIT_STEP_LAUNCH, "no job named %s exists "
		    "(squeue, then sacct after %d s): safe to submit again",
		    x->res->job_name, SUBMIT_RECONCILE_WAIT);
	}

	if (l.mkdir_failed) {
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld: could not "
		    "create %s/%s-%ld, so the job was cancelled (SLURM would "
		    "fail it with 0:53)", id, x->lay.log_dir, x->res->job_name,
		    id);
		goto fail;
	}
	id_s = xasprintf("%ld", id);
	x->res->slurm_id = id_s;
	if (!l.released) {
		if (record_set_slurm_id(x->record_id, id_s, &why) != 0) {
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld was "
			    "launched but the record could not be updated: %s",
			    id, why);
			free(why);
			goto fail;
		}
		x->unresolved = "submit:release";
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld is held and "
		    "could not be released: %s", id, l.release_msg != NULL ?
		    l.release_msg : "no answer from scontrol");
		goto fail;
	}
	if (submit_launched(x, id, &l, cause) != 0)
		goto fail;
	submit_say(x, SUBMIT_STEP_LAUNCH, "SLURM job %ld (%s), %s; logs in "
	    "%s/%s-%ld/", id, x->res->job_name, x->res->native,
	    x->lay.log_dir, x->res->job_name, id);
	submit_launch_free(&l);
	free(want);
	return 0;

fail_held:
	/* The job exists but is held: the record says which (recover). */
	x->res->slurm_id = xasprintf("%ld", id);
	if (record_set_slurm_id(x->record_id, x->res->slurm_id, NULL) == 0)
		x->unresolved = "submit:release";
	else
		x->unresolved = "submit:reconcile";
	submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "%s", why);
	free(why);
fail:
	submit_launch_free(&l);
	free(want);
	return -1;
}
