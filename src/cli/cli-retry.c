#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"
#include "retry.h"

static const char *
decision_name(enum retry_decision d)
{
	switch (d) {
	case RETRY_GO:
		return "retried";
	case RETRY_NOT_ERROR:
		return "not-error";
	case RETRY_NOT_INFRA:
		return "not-infra";
	case RETRY_BUDGET:
		return "budget-spent";
	case RETRY_DONE:
		return "already-retried";
	case RETRY_REQUEUED:
		return "requeued";
	}
	return "?";
}

static const struct option retry_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int
cli_retry(struct cli *cli, int argc, char **argv)
{
	struct config		 cfg;
	struct cluster		*cl;
	struct record		*r = NULL;
	struct conn		*c = NULL;
	struct monitor_opts	 mo;
	struct monitor_snapshot	 snap;
	struct retry_opts	 o;
	struct retry_result	 res;
	cJSON			*j;
	char			*cause = NULL, *s;
	long			 sid;
	size_t			 i;
	int			 ch, json = 0, rc, ret = EXIT_FAIL;

	while ((ch = cli_getopt(cli, &cli_retry_entry, argc, argv)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		default:
			return CLI_OPT_EXIT(ch);
		}
	}
	if (optind + 1 != argc) {
		cli_usage(&cli_retry_entry, stderr);
		return EXIT_USAGE;
	}
	if (cli_load(cli, &cfg, &cl) != 0)
		return EXIT_FAIL;
	rc = ops_find(argv[optind], cl->name, &r, &sid, &cause);
	if (rc != 0) {
		cli_error("retry", "%s", rc < 0 ? cause :
		    "that SLURM job has no record: only sqdeck's own jobs "
		    "can be retried");
		ret = EXIT_USAGE;
		goto out;
	}
	if (r->cluster != NULL && strcmp(r->cluster, cl->name) != 0 &&
	    (cl = cli_record_cluster(&cfg, r, &cause)) == NULL) {
		cli_error("retry", "record %s: %s", r->id,
		    cause);
		goto out;
	}
	c = conn_new_cluster(cl);

	/* A record still live locally: let sacct and triage say how it ended. */
	if (!state_terminal(r->state)) {
		memset(&mo, 0, sizeof mo);
		mo.user = cl->user;
		mo.source = "poll";
		if (monitor_poll(c, cl->name, &mo, &snap, &cause) != 0) {
			cli_error("retry", "%s", cause);
			monitor_snapshot_free(&snap);
			goto out;
		}
		for (i = 0; i < snap.events.n; i++) {
			s = ops_clean(snap.events.v[i]);
			if (!json)
				cli_printf("%s\n", s);
			free(s);
		}
		monitor_snapshot_free(&snap);
	}

	memset(&o, 0, sizeof o);
	o.source = "retry:cli";
	free(cause);
	cause = NULL;
	rc = retry_run(c, r->id, &o, &res, &cause);
	if (json) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "record_id", r->id);
		cJSON_AddStringToObject(j, "decision", rc < 0 ? "error" :
		    decision_name(res.decision));
		cJSON_AddStringToObject(j, "message", rc < 0 ? cause :
		    res.why != NULL ? res.why : "");
		if (res.record_id != NULL)
			cJSON_AddStringToObject(j, "retry_record_id",
			    res.record_id);
		if (res.slurm_id != NULL)
			cJSON_AddStringToObject(j, "slurm_id", res.slurm_id);
		if (res.exclude != NULL)
			cJSON_AddStringToObject(j, "exclude", res.exclude);
		if (res.note != NULL)
			cJSON_AddStringToObject(j, "note", res.note);
		if (res.inherited != NULL)
			cJSON_AddStringToObject(j, "inherited", res.inherited);
		cJSON_AddBoolToObject(j, "adopted", res.adopted);
		cJSON_AddBoolToObject(j, "resubmitted", res.resubmitted);
		cJSON_AddNumberToObject(j, "budget", res.budget);
		cli_json(stdout, j, 0);
		cJSON_Delete(j);
	} else if (rc == 0) {
		cli_printf("%s\nretry record %s: SLURM job %s (%s), same sbatch "
		    "%s, exclude %s\n", res.why, res.record_id, res.slurm_id,
		    res.state, res.sbatch_path, *res.exclude ? res.exclude :
		    "none");
		if (res.inherited != NULL)
			cli_printf("inherited from the retry chain (nodes that "
			    "failed earlier): %s\n", res.inherited);
		if (res.adopted)
			cli_printf("sbatch's reply was lost: the job was found by "
			    "its name and adopted, not submitted twice\n");
		if (res.resubmitted)
			cli_printf("sbatch's reply was lost and no job had its "
			    "name: it was submitted once more\n");
		if (res.note != NULL)
			cli_printf("note: %s\n", res.note);
	} else if (rc == 1) {
		s = ops_clean(res.why);
		cli_error("retry", "%s", s);
		free(s);
	} else {
		s = ops_clean(cause);
		cli_error("retry", "%s", s);
		free(s);
	}
	ret = rc == 0 ? EXIT_OK : EXIT_FAIL;
	retry_result_free(&res);
out:
	conn_free(c);
	record_free(r);
	free(cause);
	config_free(&cfg);
	return ret;
}

const struct cli_entry cli_retry_entry = {
	.name = "retry",
	.usage = "[--cluster NAME] [--json] ID",
	.summary = "resubmit a failed job by hand (same staged workload, bad "
	    "nodes excluded)",
	.help = "  ID  record id or SLURM job id of a job that ended ERROR "
	    "with an INFRA failure;\n"
	    "      the staged workload is submitted again as a new "
	    "record, the failed nodes excluded\n",
	.shortopts = "j",
	.longopts = retry_options,
	.flags = CLI_CLUSTER,
	.exec = cli_retry,
};
