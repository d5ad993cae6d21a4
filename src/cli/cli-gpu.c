/*
 * gpu ID: the GPU use of a running job, per GPU of each of its nodes,
 * from one srun --overlap nvidia-smi step (ops_gpu); asked once, never
 * polled.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "cli.h"
#include "ops.h"
#include "record.h"
#include "state.h"

static const struct option gpu_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int
gpu_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	(void)ch;
	(void)arg;
	*(int *)ctx->opts = 1;	/* --json, its only option */
	return CLI_GO;
}

/* One GPU's object: null for a value nvidia-smi did not give. */
static cJSON *
gpu_json_one(const struct gpuuse_row *u)
{
	cJSON	*o = cJSON_CreateObject();

	cli_json_str(o, "node", u->node);
	cJSON_AddNumberToObject(o, "index", u->index);
	cli_json_str(o, "model", u->name);
	cli_json_num(o, "utilization", u->util, u->util >= 0);
	cli_json_num(o, "memory_used_mib", (double)u->used, u->used >= 0);
	cli_json_num(o, "memory_total_mib", (double)u->total, u->total >= 0);
	return o;
}

cJSON *
cli_json_gpu(const struct gpuuse_reply *g)
{
	cJSON	*o = cJSON_CreateObject(), *arr;
	size_t	 i;

	arr = cJSON_AddArrayToObject(o, "gpus");
	for (i = 0; i < g->n; i++)
		cJSON_AddItemToArray(arr, gpu_json_one(&g->v[i]));
	arr = cJSON_AddArrayToObject(o, "no_nvidia_smi");
	for (i = 0; i < g->nmissing; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(g->missing[i]));
	cli_json_str(o, "said", g->said);
	return o;
}

static void
gpu_json(const char *id, const struct cli_target *t,
    const struct gpuuse_reply *g)
{
	cJSON	*doc = cli_json_doc("gpu"), *arr;
	size_t	 i;

	cli_json_str(doc, "job_id", id);
	cli_json_str(doc, "record_id", t->rec != NULL ? t->rec->id : NULL);
	cli_json_str(doc, "cluster", t->cl->name);
	cli_json_str(doc, "name", t->rec != NULL ? t->rec->job_name : NULL);
	/* SLURM's word as squeue said it; the six words beside it. */
	cJSON_AddStringToObject(doc, "state", state_word_of(g->state));
	cli_json_str(doc, "slurm_state", g->state != NULL &&
	    *g->state != '\0' ? g->state : NULL);
	cJSON_AddBoolToObject(doc, "running", g->running);
	arr = cJSON_AddArrayToObject(doc, "gpus");
	for (i = 0; i < g->n; i++)
		cJSON_AddItemToArray(arr, gpu_json_one(&g->v[i]));
	arr = cJSON_AddArrayToObject(doc, "no_nvidia_smi");
	for (i = 0; i < g->nmissing; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(g->missing[i]));
	cli_json_str(doc, "said", g->said);
	cli_json(stdout, doc, 0);
	cJSON_Delete(doc);
}

static int
cli_gpu(struct cli_ctx *ctx)
{
	struct cli_target	*t = ctx->target;
	struct gpuuse_reply	 g;
	char			*id, *cause = NULL, *s, *text;
	int			 ret = EXIT_OK;

	if (t->rec != NULL && t->sid <= 0) {
		cli_error("gpu", "record %s has no SLURM job id: nothing was "
		    "launched", t->rec->id);
		return EXIT_USAGE;
	}
	id = t->rec != NULL || t->id.kind == JOBID_JOB ?
	    xasprintf("%ld", t->sid) : xstrdup(t->arg);
	if (ops_gpu(cli_conn(ctx, t->cl), id, &g, &cause) != 0) {
		s = ops_clean(cause);
		cli_error("gpu", "%s", s);
		free(s);
		free(cause);
		free(id);
		return EXIT_FAIL;
	}
	if (*(int *)ctx->opts)
		gpu_json(id, t, &g);
	else {
		text = gpuuse_text(&g);
		cli_printf("%s", text);
		free(text);
	}
	/* Not running, or no GPU could be read: nothing measured. */
	if (!g.running || g.n == 0)
		ret = EXIT_FAIL;
	gpuuse_free(&g);
	free(id);
	return ret;
}

const struct cli_entry cli_gpu_entry = {
	.name = "gpu",
	.usage = "[--cluster NAME] [--json] ID",
	.summary = "GPU use of a running job (nvidia-smi on its nodes, once)",
	.help = "  ID  record id or SLURM job id of a running job\n"
	    "      one srun --overlap step on each of its nodes runs "
	    "nvidia-smi;\n"
	    "      a node without nvidia-smi is named; exit 1 when no GPU "
	    "was read\n"
	    "  --json  {schema, verb, job_id, record_id, cluster, name, "
	    "state, slurm_state,\n"
	    "          running, gpus: [{node, index, model, utilization, "
	    "memory_used_mib,\n"
	    "          memory_total_mib}], no_nvidia_smi: [NODE...], said}\n",
	.shortopts = "",
	.longopts = gpu_options,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_TARGET | CLI_TASKS,
	.args_kind = CLI_ARG_ID,
	.args_min = 1,
	.args_max = 1,
	.args_few = "which job? give a record id or a SLURM job id",
	.optsize = sizeof(int),
	.option = gpu_option,
	.exec = cli_gpu,
};
