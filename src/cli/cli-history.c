#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "history.h"
#include "ops.h"
#include "record.h"
#include "slurm.h"

/* The record of this cluster's SLURM job, or NULL. */
static const struct record *
history_record(const struct record_list *list, const char *cluster, long raw)
{
	const char	*sid;
	size_t		 i;

	for (i = 0; i < list->n; i++) {
		const struct record *r = list->v[i];

		if (r->cluster == NULL || strcmp(r->cluster, cluster) != 0 ||
		    (sid = record_slurm_id(r)) == NULL)
			continue;
		if (strtol(sid, NULL, 10) == raw)
			return r;
	}
	return NULL;
}

struct hrow {
	const char			*cluster;
	const struct history_job	*j;
	const struct record		*rec;
	char				*log;
	const char			*log_source;
};

static void
history_print(struct hrow *rows, size_t n, int json, cJSON *clusters)
{
	static const char *const head[] = {
		"CLUSTER", "JOBID", "NAME", "STATE", "EXIT", "ELAPSED", "END",
		"LOG"
	};
	cJSON		*o, *a, *item;
	char		**cells, el[32], ex[32], *s;
	size_t		  i, k, nc = sizeof head / sizeof head[0];

	if (!json) {
		if (n == 0) {
			printf("no finished jobs in the window\n");
			return;
		}
		cells = xcalloc(n * nc, sizeof *cells);
		for (i = 0; i < n; i++) {
			const struct history_job *j = rows[i].j;

			slurm_time_format(j->elapsed, el, sizeof el);
			if (j->exit_code >= 0)
				snprintf(ex, sizeof ex, "%d:%d", j->exit_code,
				    j->exit_signal);
			else
				snprintf(ex, sizeof ex, "-");
			k = i * nc;
			cells[k] = xstrdup(rows[i].cluster);
			cells[k + 1] = xstrdup(j->id);
			cells[k + 2] = xstrdup(j->name);
			cells[k + 3] = xstrdup(j->state);
			cells[k + 4] = xstrdup(ex);
			cells[k + 5] = xstrdup(el);
			cells[k + 6] = xstrdup(*j->end != '\0' ? j->end : "-");
			cells[k + 7] = xstrdup(rows[i].log != NULL ?
			    rows[i].log : "-");
		}
		ops_table_print(stdout, head, nc, cells, n);
		for (i = 0; i < n * nc; i++)
			free(cells[i]);
		free(cells);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "clusters", clusters);
	a = cJSON_AddArrayToObject(o, "jobs");
	for (i = 0; i < n; i++) {
		const struct history_job *j = rows[i].j;

		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "cluster", rows[i].cluster);
		cJSON_AddStringToObject(item, "id", j->id);
		cJSON_AddNumberToObject(item, "id_raw", (double)j->raw);
		cJSON_AddStringToObject(item, "name", j->name);
		cJSON_AddStringToObject(item, "partition", j->partition);
		cJSON_AddStringToObject(item, "state", j->state);
		if (j->exit_code >= 0) {
			snprintf(ex, sizeof ex, "%d:%d", j->exit_code,
			    j->exit_signal);
			cJSON_AddStringToObject(item, "exit", ex);
			cJSON_AddNumberToObject(item, "exit_code",
			    j->exit_code);
		} else {
			cJSON_AddNullToObject(item, "exit");
			cJSON_AddNullToObject(item, "exit_code");
		}
		cJSON_AddNumberToObject(item, "elapsed", (double)j->elapsed);
		cJSON_AddNumberToObject(item, "limit", (double)j->limit);
		if (*j->end != '\0')
			cJSON_AddStringToObject(item, "end", j->end);
		else
			cJSON_AddNullToObject(item, "end");
		cJSON_AddStringToObject(item, "workdir", j->workdir);
		if (rows[i].rec != NULL)
			cJSON_AddStringToObject(item, "record",
			    rows[i].rec->id);
		else
			cJSON_AddNullToObject(item, "record");
		if (rows[i].log != NULL) {
			cJSON_AddStringToObject(item, "log", rows[i].log);
			cJSON_AddStringToObject(item, "log_source",
			    rows[i].log_source);
		} else {
			cJSON_AddNullToObject(item, "log");
			cJSON_AddNullToObject(item, "log_source");
		}
		cJSON_AddItemToArray(a, item);
	}
	s = cJSON_Print(o);
	printf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(o);
}

static const struct option history_options[] = {
	{ "days", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int
cli_history(struct cli *cli, int argc, char **argv)
{
	struct config		 cfg;
	struct cluster		*one = NULL, *cl;
	struct history		*hs = NULL;
	struct record_list	 list;
	struct conn_result	 res;
	struct conn		*c;
	struct hrow		*rows = NULL;
	cJSON			*clusters, *co;
	char			*cause = NULL, *cmd, *s;
	char			 sep[SLURM_SEP_SIZE];
	size_t			 i, k, nrows = 0;
	long			 days = 0;
	int			 ch, json = 0, ret = EXIT_OK, d;

	while ((ch = cli_getopt(cli, &cli_history_entry, argc, argv)) != -1) {
		switch (ch) {
		case 'd':
			if (cli_number(optarg, 1, 365, &days) != 0) {
				cli_error("history", "--days "
				    "'%s': give a number of days from 1 to "
				    "365", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		default:
			return CLI_OPT_EXIT(ch);
		}
	}
	if (optind != argc) {
		cli_error("history", "unexpected argument '%s'",
		    argv[optind]);
		cli_usage(&cli_history_entry, stderr);
		return EXIT_USAGE;
	}
	if (cli_load(cli, &cfg, &one) != 0)
		return EXIT_FAIL;
	memset(&list, 0, sizeof list);
	if (record_list(&list, &cause) != 0) {
		/* Without records every log is SLURM's default one. */
		free(cause);
		cause = NULL;
	}
	hs = xcalloc(cfg.nclusters + 1, sizeof *hs);
	clusters = cJSON_CreateArray();
	for (i = 0; i < cfg.nclusters; i++) {
		cl = &cfg.clusters[i];
		if (cli->cluster != NULL && cl != one)
			continue;
		d = days > 0 ? (int)days : cl->history_days;
		co = cJSON_CreateObject();
		cJSON_AddStringToObject(co, "name", cl->name);
		cJSON_AddNumberToObject(co, "days", d > 0 ? d : HISTORY_DAYS);
		cJSON_AddItemToArray(clusters, co);
		memset(&res, 0, sizeof res);
		c = conn_new_cluster(cl);
		slurm_sep_new(sep, sizeof sep);
		if ((cmd = history_cmd(cl->user, d, time(NULL), sep, &cause)) ==
		    NULL || conn_exec(c, cmd, NULL, 0, &res, &cause) != 0)
			goto failed;
		if (res.status != 0) {
			cause = xasprintf("sacct failed (exit %d): %s",
			    res.status, res.err != NULL ? res.err : "");
			goto failed;
		}
		if (history_parse(res.out, sep, &hs[i], &cause) != 0) {
			s = ops_clean(cause);
			cli_error("history", "cluster %s: %s",
			    cl->name, s);
			free(s);
			free(cause);
			cause = NULL;
		}
		cJSON_AddNullToObject(co, "error");
		for (k = 0; k < hs[i].n; k++) {
			struct hrow *r;

			rows = xrealloc(rows, (nrows + 1) * sizeof *rows);
			r = &rows[nrows++];
			r->cluster = cl->name;
			r->j = &hs[i].v[k];
			r->rec = history_record(&list, cl->name, r->j->raw);
			r->log = r->rec != NULL ? ops_log_path(r->rec, 0) :
			    NULL;
			r->log_source = "record";
			if (r->log == NULL) {
				r->log = history_default_log(r->j);
				r->log_source = "default";
			}
		}
		goto next;
failed:
		s = ops_clean(cause);
		cli_error("history", "cluster %s: %s", cl->name,
		    s);
		cJSON_AddStringToObject(co, "error", s);
		free(s);
		free(cause);
		cause = NULL;
		ret = EXIT_FAIL;
next:
		free(cmd);
		cmd = NULL;
		conn_result_free(&res);
		conn_free(c);
	}
	history_print(rows, nrows, json, clusters);
	if (!json)
		cJSON_Delete(clusters);
	for (k = 0; k < nrows; k++)
		free(rows[k].log);
	free(rows);
	for (i = 0; i < cfg.nclusters; i++)
		history_free(&hs[i]);
	free(hs);
	record_list_free(&list);
	config_free(&cfg);
	return ret;
}

const struct cli_entry cli_history_entry = {
	.name = "history",
	.usage = "[--cluster NAME] [--days N] [--json]",
	.summary = "your jobs that ended recently, from accounting (sacct)",
	.help = "  your jobs that ended in the last N days (default: the "
	    "cluster's\n"
	    "  history_days, 7), from accounting (one sacct per "
	    "cluster), whether\n"
	    "  sqdeck submitted them or not, with state, exit code, "
	    "elapsed time and log\n"
	    "  --days N  the window in days (1-365)\n"
	    "  --json    as JSON\n",
	.shortopts = "d:j",
	.longopts = history_options,
	.flags = CLI_CLUSTER,
	.exec = cli_history,
};
