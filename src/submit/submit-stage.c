/*
 * Submit step stage (sqdeck(1): IMAGES AND STORAGE), part of the one round
 * trip: the job dir with specs/ env/ meta/ sbatch/ logs/ results/ files/
 * and the mode-600 sidecar, written by the login node's shell (or, with
 * supporting files, from a tar stream, base64 in the script).
 */
#include "submit-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "enc.h"

static void
json_add_strv(cJSON *o, const char *key, const struct strv *sv)
{
	cJSON	*a = cJSON_AddArrayToObject(o, key);
	size_t	 i;

	for (i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
}

static char *
json_done(cJSON *o)
{
	char	*s = cJSON_PrintUnformatted(o), *out;

	out = xasprintf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(o);
	return out;
}

/* specs/spec.json: the spec (names of secrets only). */
static char *
submit_spec_json(const struct spec *sp)
{
	cJSON	*o = cJSON_CreateObject(), *a, *m;
	size_t	 i;

	cJSON_AddStringToObject(o, "name", sp->name ? sp->name : "sqdeck");
	cJSON_AddStringToObject(o, "image", sp->image);
	cJSON_AddStringToObject(o, "command", sp->command);
	if (sp->network_arch != NULL)
		cJSON_AddStringToObject(o, "network_arch", sp->network_arch);
	if (sp->action != NULL)
		cJSON_AddStringToObject(o, "action", sp->action);
	json_add_strv(o, "datasets", &sp->datasets);
	a = cJSON_AddArrayToObject(o, "mounts");
	for (i = 0; i < sp->nmounts; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "src", sp->mounts[i].src);
		cJSON_AddStringToObject(m, "dst", sp->mounts[i].dst);
		cJSON_AddBoolToObject(m, "ro", sp->mounts[i].ro);
		cJSON_AddItemToArray(a, m);
	}
	json_add_strv(o, "secrets", &sp->secrets);
	cJSON_AddBoolToObject(o, "force_reconvert", sp->force_reconvert);
	return json_done(o);
}

/* env/env.json: what the job's environment gets (no secret values). */
static char *
submit_env_json(struct submit_ctx *x, const struct strv *exports)
{
	cJSON	*o = cJSON_CreateObject();

	json_add_strv(o, "env", exports);
	json_add_strv(o, "secret_names", &x->res->secrets);
	cJSON_AddStringToObject(o, "secrets_file", x->nsec ?
	    x->lay.env_path : "");
	return json_done(o);
}

/* meta/meta.json: where and how it was submitted. */
static char *
submit_meta_json(struct submit_ctx *x)
{
	cJSON		*o = cJSON_CreateObject(), *p;
	char		 stamp[32];
	time_t		 t = time(NULL);

	iso_time_fmt(t, stamp, sizeof stamp);
	cJSON_AddStringToObject(o, "record_id", x->record_id);
	cJSON_AddStringToObject(o, "cluster", x->s->cl->name);
	cJSON_AddStringToObject(o, "login_node", x->s->pf.login_host ?
	    x->s->pf.login_host : "");
	cJSON_AddStringToObject(o, "job_name", x->res->job_name);
	cJSON_AddStringToObject(o, "job_dir", x->lay.job_dir);
	cJSON_AddStringToObject(o, "results_root", x->results_root);
	cJSON_AddStringToObject(o, "image", x->res->image);
	cJSON_AddStringToObject(o, "image_sqsh", x->res->image_sqsh);
	cJSON_AddStringToObject(o, "image_action",
	    submit_image_action_name(x->res->image_action));
	cJSON_AddStringToObject(o, "container_mode",
	    config_container_name(x->res->container));
	cJSON_AddStringToObject(o, "submitted", stamp);
	cJSON_AddStringToObject(o, "sqdeck", PACKAGE_VERSION);
	p = cJSON_AddObjectToObject(o, "plan");
	cJSON_AddStringToObject(p, "partition", x->plan.partition);
	cJSON_AddNumberToObject(p, "nodes", x->plan.nodes);
	cJSON_AddNumberToObject(p, "gpus_per_node", x->plan.gpus_per_node);
	cJSON_AddNumberToObject(p, "gpus", x->plan.gpus);
	cJSON_AddNumberToObject(p, "cpus_per_task", x->plan.cpus_per_task);
	cJSON_AddStringToObject(p, "time", x->plan.time_str);
	cJSON_AddBoolToObject(p, "exclusive", x->plan.exclusive);
	cJSON_AddBoolToObject(p, "requeue", x->plan.requeue);
	return json_done(o);
}

/* One file stage.sh's shell writes: fnN (its path in jd), ftN (text). */
static void
submit_stage_text(struct buf *sh, size_t *n, const char *name,
    const char *text)
{
	char	var[32];

	snprintf(var, sizeof var, "fn%zu", *n);
	rsh_var(sh, var, name);
	snprintf(var, sizeof var, "ft%zu", *n);
	rsh_var(sh, var, text);
	(*n)++;
}

/*
 * stage.sh's variables: jd, envf and the files.  Without supporting files
 * every file is text (no NUL: a quoted assignment carries it), written by
 * the shell into folders one mkdir makes: no base64, no tar on the login
 * node.  A spec's supporting files may hold any byte: then a tar of the
 * job dir's folders and files and the sidecar (base64 needs no quoting:
 * this is the quoted assignment).  Wiped once the script is sent (the
 * caller's part).
 */
int
submit_stage_vars(struct submit_ctx *x, struct buf *sh, char **cause)
{
	static const char *const dirs[] = { "specs/", "env/", "meta/",
	    "sbatch/", "logs/", "results/", "files/" };
	struct buf	 tar, yaml;
	char		*text[3], *why = NULL, *sidecar = NULL, num[32];
	size_t		 i, n = 0;

	buf_init(&yaml);
	if (spec_write(x->sp, &yaml, &why) != 0) {
		buf_free(&yaml);
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "%s", why);
		free(why);
		return -1;
	}
	if (x->nsec != 0 && submit_sidecar(x->sec, x->nsec, &sidecar,
	    &why) != 0) {
		buf_free(&yaml);
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "%s", why);
		free(why);
		return -1;
	}
	buf_add(&yaml, "", 0);
	text[0] = submit_spec_json(x->sp);
	text[1] = submit_env_json(x, &x->exports);
	text[2] = submit_meta_json(x);
	rsh_var(sh, "jd", x->lay.job_dir);
	rsh_var(sh, "envf", x->nsec ? x->lay.env_rel : "");
	if (x->sp->nfiles == 0) {
		submit_stage_text(sh, &n, "specs/spec.yaml", yaml.data);
		submit_stage_text(sh, &n, "specs/spec.json", text[0]);
		submit_stage_text(sh, &n, "env/env.json", text[1]);
		submit_stage_text(sh, &n, "meta/meta.json", text[2]);
		submit_stage_text(sh, &n, x->lay.sbatch_rel, x->res->script);
		if (sidecar != NULL)
			submit_stage_text(sh, &n, x->lay.env_rel, sidecar);
		snprintf(num, sizeof num, "%zu", n);
		rsh_var(sh, "nfiles", num);
	} else {
		/* stage.sh makes the job dir only; tar makes the rest. */
		buf_init(&tar);
		for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
			enc_tar_add(&tar, dirs[i], NULL, 0, 0700);
		enc_tar_add(&tar, "specs/spec.yaml", yaml.data, yaml.len,
		    0644);
		enc_tar_add(&tar, "specs/spec.json", text[0], strlen(text[0]),
		    0644);
		enc_tar_add(&tar, "env/env.json", text[1], strlen(text[1]),
		    0644);
		enc_tar_add(&tar, "meta/meta.json", text[2], strlen(text[2]),
		    0644);
		enc_tar_add(&tar, x->lay.sbatch_rel, x->res->script,
		    strlen(x->res->script), 0644);
		for (i = 0; i < x->sp->nfiles; i++)
			enc_tar_add(&tar, x->members[i], x->files[i].data,
			    x->files[i].len, 0644);
		if (sidecar != NULL)
			enc_tar_add(&tar, x->lay.env_rel, sidecar,
			    strlen(sidecar), 0600);
		enc_tar_end(&tar);
		buf_adds(sh, "payload='");
		enc_base64(sh, tar.data, tar.len);
		buf_adds(sh, "'\n");
		memset(tar.data, 0, tar.len);
		buf_free(&tar);
	}
	if (sidecar != NULL) {
		memset(sidecar, 0, strlen(sidecar));
		free(sidecar);
	}
	for (i = 0; i < 3; i++)
		free(text[i]);
	buf_free(&yaml);
	return 0;
}

/* stage.sh's answer: 0 when the job dir and the sidecar are in place. */
int
submit_stage_parse(struct submit_ctx *x, const char *out, int status,
    const char *err, char **cause)
{
	const char	*p;
	char		*text;

	if ((p = strstr(out, "\nsqdeck-stage-error=")) != NULL) {
		p += strlen("\nsqdeck-stage-error=");
		text = xstrndup(p, strcspn(p, "\n"));
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "staging into %s: %s",
		    x->lay.job_dir, text);
		free(text);
		return -1;
	}
	if (strstr(out, "\nsqdeck-stage=ok\n") == NULL) {
		return submit_fail(x, SUBMIT_STEP_STAGE, cause, "staging into "
		    "%s did not finish (exit %d%s%.300s)", x->lay.job_dir,
		    status, err != NULL && *err != '\0' ? ", stderr: " : "",
		    err != NULL ? err : "");
	}
	submit_say(x, SUBMIT_STEP_STAGE, "%s: specs/spec.yaml, specs/spec.json, "
	    "env/env.json, meta/meta.json, %s%s%s, %zu supporting file%s "
	    "(sha256 checked)", x->lay.job_dir, x->lay.sbatch_rel, x->nsec ?
	    ", " : "", x->nsec ? "secrets sidecar (mode 600)" : "",
	    x->sp->nfiles, x->sp->nfiles == 1 ? "" : "s");
	return 0;
}
