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

static void
gpu_json(const char *id, const struct cluster *cl,
    const struct gpuuse_reply *g)
{
	cJSON	*doc = cJSON_CreateObject(), *arr, *o;
	size_t	 i;

	cli_json_str(doc, "id", id);
	cli_json_str(doc, "cluster", cl->name);
	cli_json_str(doc, "state", g->state);
	cJSON_AddBoolToObject(doc, "running", g->running);
	arr = cJSON_AddArrayToObject(doc, "gpus");
	for (i = 0; i < g->n; i++) {
		o = cJSON_CreateObject();
		cli_json_str(o, "node", g->v[i].node);
		cJSON_AddNumberToObject(o, "index", g->v[i].index);
		cli_json_str(o, "name", g->v[i].name);
		if (g->v[i].util >= 0)
			cJSON_AddNumberToObject(o, "utilization", g->v[i].util);
		else
			cJSON_AddNullToObject(o, "utilization");
		if (g->v[i].used >= 0)
			cJSON_AddNumberToObject(o, "memory_used_mib",
			    (double)g->v[i].used);
		else
			cJSON_AddNullToObject(o, "memory_used_mib");
		if (g->v[i].total >= 0)
			cJSON_AddNumberToObject(o, "memory_total_mib",
			    (double)g->v[i].total);
		else
			cJSON_AddNullToObject(o, "memory_total_mib");
		cJSON_AddItemToArray(arr, o);
	}
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
		gpu_json(id, t->cl, &g);
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
	    "  --json  {id, cluster, state, running, gpus: [{node, index, "
	    "name, utilization,\n"
	    "          memory_used_mib, memory_total_mib}], no_nvidia_smi: "
	    "[NODE...], said}\n",
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
