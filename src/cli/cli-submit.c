/*
 * sqdeck submit SPEC.yaml: the pipeline of submit.c, each step printed
 * as it happens.  --json prints a machine summary on stdout (the steps go
 * to stderr); --dry-run prints the rendered script on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "spec.h"
#include "submit.h"
#include "text.h"

struct cli_submit_out {
	FILE	*f;
	cJSON	*steps;
};

/* Cluster text on a terminal: the one sanitiser, newlines kept. */
static char *
clean(const char *s)
{
	if (s == NULL)
		return xstrdup("");
	return text_sanitize(s, strlen(s), TEXT_CR_LINES, NULL);
}

static void
progress(void *arg, enum submit_step step, const char *text)
{
	struct cli_submit_out	*o = arg;
	cJSON			*j;
	char			*c = clean(text);

	cli_fprintf(o->f, "  %-9s %s\n", submit_step_name(step), c);
	fflush(o->f);
	if (o->steps != NULL) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "step", submit_step_name(step));
		cJSON_AddStringToObject(j, "message", text);
		cJSON_AddItemToArray(o->steps, j);
	}
	free(c);
}

static void
print_json(const struct cluster *cl, const struct submit_result *r,
    int dry_run, cJSON *steps, const char *error)
{
	cJSON	*o = cli_json_doc("submit"), *a;
	size_t	 i;
	enum rstate st;

	cJSON_AddBoolToObject(o, "ok", error == NULL);
	cJSON_AddBoolToObject(o, "dry_run", dry_run);
	cli_json_str(o, "cluster", cl != NULL ? cl->name : NULL);
	cli_json_str(o, "record_id", r->record_id);
	cli_json_str(o, "name", r->job_name);
	cli_json_str(o, "job_dir", r->job_dir);
	cli_json_str(o, "job_id", r->slurm_id);
	/* Null before anything was queued (a dry run, a refusal). */
	if (r->state != NULL && state_from_name(r->state, &st) == 0)
		cJSON_AddStringToObject(o, "state", state_word(st));
	else
		cJSON_AddNullToObject(o, "state");
	cli_json_str(o, "slurm_state", r->native != NULL && *r->native !=
	    '\0' ? r->native : NULL);
	cli_json_str(o, "container_mode", config_container_name(r->container));
	cli_json_str(o, "image", r->image);
	cli_json_str(o, "image_sqsh", r->image_sqsh);
	cli_json_str(o, "image_action", r->image != NULL ?
	    submit_image_action_name(r->image_action) : NULL);
	cli_json_str(o, "import_job", r->import_job);
	cli_json_str(o, "sbatch_path", r->sbatch_path);
	cli_json_str(o, "env_path", r->env_path);
	a = cJSON_AddArrayToObject(o, "secrets");
	for (i = 0; i < r->secrets.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->secrets.v[i]));
	cJSON_AddBoolToObject(o, "ambiguous", r->ambiguous);
	cJSON_AddBoolToObject(o, "adopted", r->adopted);
	cJSON_AddBoolToObject(o, "resubmitted", r->resubmitted);
	cli_json_str(o, "failed_step", error != NULL ?
	    submit_step_name(r->failed_step) : NULL);
	cli_json_str(o, "error", error);
	cli_json_str(o, "script", dry_run ? r->script : NULL);
	cJSON_AddItemToObject(o, "steps", steps);
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static int
count_arg(const char *opt, const char *s, int min, int max, int *out,
    char **cause)
{
	long	l;

	if (cli_number(s, min, max, &l) != 0)
		return cause_set(cause, "--%s must be a whole number from %d "
		    "to %d, not '%s'", opt, min, max, s);
	*out = (int)l;
	return 0;
}

struct submit_args {
	int		 dry_run;
	int		 hold;
	int		 json;
	const char	*time;
	const char	*part;
	const char	*gpus;
	const char	*nodes;
	const char	*array;
};

/* --time, --partition, --gpus, --nodes beat the spec; then it is checked. */
static int
overrides(struct spec *sp, const struct submit_args *o, char **cause)
{
	const char	*t = o->time, *p = o->part, *g = o->gpus, *n = o->nodes;
	char		*why = NULL;
	int		 v;

	if (t != NULL) {
		if (spec_parse_time_exact(t, &v, &sp->time_seconds,
		    &why) != 0) {
			cause_set(cause, "--time: %s", why);
			free(why);
			return -1;
		}
		sp->time_minutes = v;
	}
	if (p != NULL) {
		free(sp->partition);
		sp->partition = xstrdup(p);
	}
	if (g != NULL) {
		if (count_arg("gpus", g, 0, SPEC_GPUS_MAX, &v, cause) != 0)
			return -1;
		sp->gpus = v;
	}
	if (n != NULL) {
		if (count_arg("nodes", n, 1, SPEC_NODES_MAX, &v, cause) != 0)
			return -1;
		sp->nodes = v;
	}
	if (o->array != NULL) {
		free(sp->array);
		sp->array = xstrdup(o->array);
	}
	if ((t != NULL || p != NULL || g != NULL || n != NULL ||
	    o->array != NULL) &&
	    spec_validate(sp, &why) != 0) {
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	return 0;
}

static const struct option submit_options[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ "hold", no_argument, NULL, 'H' },
	{ "json", no_argument, NULL, 'j' },
	{ "time", required_argument, NULL, 't' },
	{ "partition", required_argument, NULL, 'p' },
	{ "gpus", required_argument, NULL, 'G' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "array", required_argument, NULL, 'A' },
	{ NULL, 0, NULL, 0 }
};

static int
submit_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct submit_args	*o = ctx->opts;

	switch (ch) {
	case 'n':
		o->dry_run = 1;
		break;
	case 'H':
		o->hold = 1;
		break;
	case 'j':
		o->json = 1;
		break;
	case 't':
		o->time = arg;
		break;
	case 'p':
		o->part = arg;
		break;
	case 'G':
		o->gpus = arg;
		break;
	case 'N':
		o->nodes = arg;
		break;
	case 'A':
		o->array = arg;
		break;
	}
	return CLI_GO;
}

/* What a dry run rendered, or where the submitted job is. */
static void
submit_said(const struct submit_result *r, int dry_run)
{
	size_t	i;

	if (!dry_run) {
		cli_printf("\nsubmitted: record %s, SLURM job %s (%s)\n",
		    r->record_id, r->slurm_id, r->state);
		cli_printf("  job dir  %s\n", r->job_dir);
		cli_printf("  status   sqdeck status %s\n", r->record_id);
		cli_printf("  logs     sqdeck logs %s\n", r->record_id);
		return;
	}
	cli_fputs(r->script, stdout);
	cli_fprintf(stderr, "dry run: rendered %s; nothing was written on the "
	    "cluster and no record was opened\n", r->sbatch_path);
	if (r->env_path == NULL)
		return;
	cli_fprintf(stderr, "the secrets file %s would hold the values of:",
	    r->env_path);
	for (i = 0; i < r->secrets.n; i++)
		cli_fprintf(stderr, " %s", r->secrets.v[i]);
	cli_fprintf(stderr, "\n");
}

/*
 * A dry run renders past an unset secret but exits as the real submit
 * would (issue 26.12): scripts check it first.  NULL: all are set.
 */
static char *
dry_missing(const struct submit_result *r)
{
	struct buf	 b;
	const char	*v;
	size_t		 i;

	buf_init(&b);
	for (i = 0; i < r->secrets.n; i++) {
		v = getenv(r->secrets.v[i]);
		if (v == NULL || *v == '\0')
			buf_printf(&b, "%s%s", b.len ? ", " : "",
			    r->secrets.v[i]);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

/* submit's steps on the cluster: the exit status. */
static int
submit_go(struct cli_ctx *ctx, struct spec *sp)
{
	const struct submit_args *a = ctx->opts;
	struct cli_submit_out	 out;
	struct submit_session	 s;
	struct submit_opts	 o;
	struct submit_result	 r;
	char			*cause = NULL, *msg;
	int			 ret = EXIT_OK;

	/* stdout carries only the script or the JSON in those modes. */
	out.f = (a->json || a->dry_run) ? stderr : stdout;
	out.steps = cJSON_CreateArray();
	memset(&o, 0, sizeof o);
	o.dry_run = a->dry_run;
	o.hold = a->hold;
	o.progress = progress;
	o.arg = &out;
	cli_fprintf(out.f, "submit %s to cluster %s%s\n", ctx->argv[0],
	    ctx->cl->name, a->dry_run ? " (dry run)" : "");
	submit_session_init(&s, ctx->conn, ctx->cl);
	if (submit_run(&s, sp, &o, &r, &cause) != 0) {
		msg = clean(cause);
		cli_error(NULL, "submit failed at step %s: %s",
		    submit_step_name(r.failed_step), msg);
		if (r.record_id != NULL && r.state != NULL)
			cli_fprintf(stderr, "record %s is %s\n", r.record_id,
			    r.state);
		free(msg);
		ret = EXIT_FAIL;
	} else {
		if (!a->json)
			submit_said(&r, a->dry_run);
		if (a->dry_run && (msg = dry_missing(&r)) != NULL) {
			cause = xasprintf("not set in this environment: %s; a "
			    "real submit stops there (export before "
			    "submitting)", msg);
			cli_error(NULL, "dry run: %s", cause);
			free(msg);
			ret = EXIT_FAIL;
		}
	}
	if (a->json)
		print_json(ctx->cl, &r, a->dry_run, out.steps,
		    ret == EXIT_OK ? NULL : cause);
	else
		cJSON_Delete(out.steps);
	free(cause);
	submit_result_free(&r);
	submit_session_free(&s);
	return ret;
}

static int
cli_submit(struct cli_ctx *ctx)
{
	struct spec	 sp;
	char		*cause = NULL;
	int		 ret = EXIT_USAGE;

	if (spec_load(ctx->argv[0], &sp, &cause) != 0) {
		cli_error("submit", "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	if (overrides(&sp, ctx->opts, &cause) != 0) {
		cli_error("submit", "%s", cause);
		free(cause);
		goto out;
	}
	/* The spec's cluster, unless --cluster says otherwise. */
	if (ctx->cli->cluster == NULL && sp.cluster != NULL)
		ctx->cli->cluster = sp.cluster;
	if (cli_need(ctx, CLI_CONFIG | CLI_CONN) != CLI_GO)
		ret = EXIT_FAIL;
	else
		ret = submit_go(ctx, &sp);
out:
	spec_free(&sp);
	return ret;
}

const struct cli_entry cli_submit_entry = {
	.name = "submit",
	.usage = "SPEC.yaml [--cluster NAME] [--dry-run] [--hold] [--json]\n"
	    "                     [--time T] [--partition P[,P...]] "
	    "[--gpus N] [--nodes N]\n"
	    "                     [--array 0-99%4]",
	.summary = "stage and launch a job (preflight, image, secrets, sbatch)",
	.help = "  --time T, --partition P, --gpus N, --nodes N\n"
	    "             override the spec's time (4h, 90m, 6:00:00), "
	    "partition(s), GPUs, nodes\n"
	    "  --array A  a job array (the spec's array:): 0-99%4 runs "
	    "tasks 0 to 99, at most 4 at once; 0-15:4 steps, 1,3,5 lists; "
	    "each task logs main_TASK.out, logs ID_TASK reads it\n"
	    "  --dry-run  check and render only: print the job script; "
	    "no record, no conversion, nothing written on the cluster\n"
	    "  --hold     leave the job held: it starts on scontrol "
	    "release ID\n"
	    "  --json     a machine summary on stdout (steps on "
	    "stderr)\n"
	    "Secrets listed in the spec are read from this "
	    "environment.\n",
	.shortopts = "n",
	.longopts = submit_options,
	.flags = CLI_CLUSTER,	/* the config after the spec: cli_need() */
	.args_kind = CLI_ARG_FILE,
	.args_min = 1,
	.args_max = 1,
	.optsize = sizeof (struct submit_args),
	.option = submit_option,
	.exec = cli_submit,
};
