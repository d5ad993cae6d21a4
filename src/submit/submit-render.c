/*
 * Submit step render (sqdeck(1): TEMPLATES): the NCCL probe or setting, the
 * exports, the sbatch script from its template, linted with the secret values
 * and checked with bash -n.
 */
#include "submit-int.h"

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "enc.h"
#include "lint.h"
#include "record.h"
#include "template.h"

/* NAME=value lines the script exports (EXTRA_ENV), no secrets. */
static void
submit_exports(struct submit_ctx *x, struct strv *sv)
{
	char	*s;
	size_t	 i;

	s = xasprintf("SQDECK_JOB_DIR=%s", x->lay.job_dir);
	strv_add(sv, s);
	free(s);
	s = xasprintf("SQDECK_RESULTS_DIR=%s", x->lay.results_dir);
	strv_add(sv, s);
	free(s);
	s = xasprintf("SQDECK_RECORD_ID=%s", x->record_id);
	strv_add(sv, s);
	free(s);
	for (i = 0; i < x->s->cl->nccl_env.n; i++)
		strv_add(sv, x->s->cl->nccl_env.v[i]);
	for (i = 0; i < x->nccl.env.n; i++)
		strv_add(sv, x->nccl.env.v[i]);
	for (i = 0; i < x->sp->nenv; i++) {
		s = xasprintf("%s=%s", x->sp->env[i].name,
		    x->sp->env[i].value != NULL ? x->sp->env[i].value : "");
		strv_add(sv, s);
		free(s);
	}
}

/*
 * bash -n, unless a script of the same shape passed it (lint_shape_key:
 * the same spec rendered again differs only in the record id's stamp).
 * Only a pass is kept, as an empty file named by the shape under the
 * state dir; a lost or stale file costs one bash -n.  *known: skipped.
 */
static int
submit_syntax(struct submit_ctx *x, const char *script, int *known,
    char **cause)
{
	struct stat	 st;
	const char	*stamp = x->record_id;
	char		*id, *state, *dir = NULL, *path = NULL, key[65];
	int		 rc;

	*known = 0;
	if (str_has_prefix(stamp, "sd-"))
		stamp += 3;
	if ((id = lint_bash_id()) != NULL &&
	    lint_shape_key(script, stamp, id, key) == 0) {
		state = path_state_dir();
		dir = xasprintf("%s/lint", state);
		free(state);
		path = xasprintf("%s/%s", dir, key);
	}
	free(id);
	if (path != NULL && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		*known = 1;
		rc = 0;
		goto out;
	}
	if ((rc = lint_bash_syntax(x->lay.sbatch_rel, script, cause)) != 0)
		goto out;
	/* A dry run writes nothing, here either. */
	if (path != NULL && !x->o->dry_run && mkdir_p(dir, 0700, NULL) == 0)
		file_write_atomic_nodirsync(path, "", 0, 0600, NULL);
out:
	free(dir);
	free(path);
	return rc;
}

int
submit_step_render(struct submit_ctx *x, char **cause)
{
	const struct strv	*exports = &x->exports;
	struct template_vars	 tv;
	struct buf		 extra, names, owners;
	size_t			 i;
	const char		*tmpl;
	char			*lines = NULL, *mounts, *out = NULL;
	char			*why = NULL;
	char			*dep = spec_dependency(x->sp);
	int			 pyxis = x->res->container == CONTAINER_PYXIS;
	int			 known;

	template_vars_init(&tv);
	buf_init(&extra);
	if (template_sbatch_line(&extra, "export", "ALL", &why) != 0 ||
	    (x->plan.account != NULL && template_sbatch_line(&extra,
	    "account", x->plan.account, &why) != 0) ||
	    (x->plan.exclusive && template_sbatch_line(&extra, "exclusive",
	    NULL, &why) != 0) ||
	    (dep != NULL && template_sbatch_line(&extra, "dependency", dep,
	    &why) != 0) ||
	    template_export_lines(exports, &lines, &why) != 0)
		goto fail;
	template_set(&tv, "JOB_NAME", x->res->job_name);
	template_set(&tv, "PARTITION", x->plan.partition);
	template_setf(&tv, "NUM_NODES", "%d", x->plan.nodes);
	template_setf(&tv, "NUM_GPUS", "%d", x->plan.gpus_per_node);
	template_setf(&tv, "CPUS_PER_TASK", "%d", x->plan.cpus_per_task);
	template_set(&tv, "TIME", x->plan.time_str);
	template_set(&tv, "LOG_DIR", x->lay.log_dir);
	template_set(&tv, "REQUEUE", x->plan.requeue ? "1" : "0");
	template_set(&tv, "ARRAY", x->sp->array != NULL ? x->sp->array : "");
	template_set(&tv, "LOG_FILE", x->sp->array != NULL ? "1" : "0");
	template_set(&tv, "SBATCH_EXTRA", extra.data != NULL ? extra.data : "");
	/* Mode none: no container, the command runs on the node itself. */
	template_set(&tv, "IMAGE", pyxis ? x->res->image_sqsh : "");
	/* A cached image is checked again at job start: whose it may be. */
	buf_init(&owners);
	if (pyxis && x->img.kind == IMAGE_REGISTRY) {
		buf_adds(&owners, ".");
		for (i = 0; i < x->s->cl->image_cache_owners.n; i++)
			buf_printf(&owners, " %s",
			    x->s->cl->image_cache_owners.v[i]);
	}
	template_set(&tv, "IMAGE_OWNERS", owners.data != NULL ?
	    owners.data : "");
	buf_free(&owners);
	mounts = spec_mounts_string(x->sp);
	template_set(&tv, "CONTAINER_MOUNTS", pyxis ? mounts : "");
	free(mounts);
	/*
	 * Pyxis mounts the job dir at the same path and starts the step
	 * there; its --container-mounts list cannot carry ',' or ':'.
	 */
	if (pyxis && strpbrk(x->lay.job_dir, ",:") != NULL) {
		why = xasprintf("job dir %s contains ',' or ':', which Pyxis "
		    "--container-mounts cannot carry: choose a results_root "
		    "without them", x->lay.job_dir);
		goto fail;
	}
	template_set(&tv, "JOB_DIR", x->lay.job_dir);
	template_set(&tv, "COMMAND", x->sp->command);
	template_set(&tv, "ENV_FILE", x->nsec ? x->lay.env_path : "");
	/* The only names the job's script takes from the sidecar. */
	buf_init(&names);
	buf_add(&names, "", 0);
	for (i = 0; i < x->nsec; i++)
		buf_printf(&names, "%s%s", i ? " " : "", x->sec[i].name);
	template_set(&tv, "SECRET_NAMES", names.data);
	buf_free(&names);
	template_set(&tv, "RESULTS_DIR", x->lay.results_dir);
	template_set(&tv, "EXTRA_ENV", lines);
	template_set(&tv, "PRE_STEP", x->nccl.pre_step != NULL ?
	    x->nccl.pre_step : "");
	template_setf(&tv, "PROGRAM_TIMEOUT", "%d", x->plan.timeout_seconds);
	template_setf(&tv, "PROGRAM_GRACE", "%d", x->plan.grace_seconds);
	tmpl = template_sbatch_name(x->plan.nodes);
	if (template_render_embedded(tmpl, &tv, &out, &why) != 0)
		goto fail;
	/* No secret value, no token pattern, no xtrace, valid bash. */
	if (lint_script(x->lay.sbatch_rel, out, x->sec, x->nsec, &why) != 0 ||
	    submit_syntax(x, out, &known, &why) != 0)
		goto fail;
	free(lines);
	free(dep);
	buf_free(&extra);
	template_vars_free(&tv);
	x->res->script = out;
	submit_say(x, SUBMIT_STEP_RENDER, "%s from %s: lint clean, bash -n "
	    "%s (%zu bytes)", x->lay.sbatch_path, tmpl, known ? "skipped: a "
	    "script of the same shape passed it before" : "ok", strlen(out));
	return 0;
fail:
	free(out);
	free(lines);
	free(dep);
	buf_free(&extra);
	template_vars_free(&tv);
	submit_fail(x, SUBMIT_STEP_RENDER, cause, "%s", why);
	free(why);
	return -1;
}

/* Probe NCCL first, or use the setting that worked before. */
int
submit_step_nccl(struct submit_ctx *x, char **cause)
{
	char	*why = NULL;

	if (nccl_prepare(x->o->dry_run ? NULL : x->s->conn, x->s->cl,
	    x->plan.partition, x->res->image, x->plan.nodes,
	    x->plan.gpus_per_node, x->plan.time_minutes, &x->nccl,
	    &why) != 0) {
		submit_fail(x, SUBMIT_STEP_RENDER, cause, "%s", why);
		free(why);
		return -1;
	}
	if (x->nccl.cached)
		submit_say(x, SUBMIT_STEP_RENDER, "NCCL: cached setting %s, "
		    "no probe", x->nccl.setting);
	else if (x->nccl.probe)
		submit_say(x, SUBMIT_STEP_RENDER, "NCCL: the job probes an "
		    "all-reduce first, at most %d s in all (%d%% of "
		    "its time, at least %d s), in the container the job then "
		    "uses", x->nccl.budget, NCCL_PROBE_BUDGET_PERCENT,
		    NCCL_PROBE_BUDGET_MIN);
	submit_exports(x, &x->exports);
	return SUBMIT_NEXT;
}

/* The job probes NCCL: its result is learnt once it ran (nccl.h). */
int
submit_step_pending(struct submit_ctx *x, char **cause)
{
	char	*why = NULL;

	(void)cause;
	if (x->nccl.probe && nccl_pending_add(x->record_id, x->s->cl->name,
	    x->plan.partition, x->res->image, &why) != 0) {
		/* Only learning is lost: the job itself is fine. */
		submit_say(x, SUBMIT_STEP_RECORD, "warning: %s", why);
		free(why);
	}
	return SUBMIT_NEXT;
}
