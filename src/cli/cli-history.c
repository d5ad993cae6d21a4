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

/* history's rows over the clusters, and the records they name. */
struct history_run {
	struct record_index	*ix;	/* the records, to find logs */
	struct record		**recs;	/* read, freed at the end */
	size_t			 nrecs;
	struct hrow		*rows;
	size_t			 nrows;
};

/*
 * The record of this cluster's SLURM job, or NULL: the index says which
 * file (one read per job shown, not a read of every record).
 */
static const struct record *
history_record(struct history_run *hr, const char *cluster, long raw)
{
	struct record	*r;
	const char	*id;
	char		*why = NULL;

	if (hr->ix == NULL ||
	    (id = record_index_current(hr->ix, cluster, raw)) == NULL)
		return NULL;
	if (record_load(id, &r, &why) != 0) {
		free(why);
		return NULL;
	}
	hr->recs = xrealloc(hr->recs, (hr->nrecs + 1) * sizeof *hr->recs);
	hr->recs[hr->nrecs++] = r;
	return r;
}

struct hrow {
	const char			*cluster;
	const struct history_job	*j;
	const struct record		*rec;
	char				*log;
	const char			*log_source;
};

/* The exit status as sacct prints it, or "-". */
static const char *
history_exit(const struct history_job *j, char *buf, size_t len)
{
	if (j->exit_code < 0)
		return "-";
	snprintf(buf, len, "%d:%d", j->exit_code, j->exit_signal);
	return buf;
}

static const char *const history_head[] = {
	"CLUSTER", "JOBID", "NAME", "STATE", "EXIT", "ELAPSED", "END", "LOG"
};
static const char *const history_keys[] = {
	"cluster", "job_id", "name", "state", "exit", "elapsed", "end", "log"
};
static const int history_flags[] = {
	CLI_COL_ONE, 0, CLI_COL_FLEX, 0, 0, 0, 0, 0
};
static const struct cli_table history_tab = {
	history_head, history_keys, history_flags, 8,
	"cluster,job_id,name,state,exit,elapsed,end,log"
};

/* The table: SLURM's word without its detail ("CANCELLED by 0"). */
static void
history_table(struct hrow *rows, size_t n, const char *fmt, int color)
{
	const struct history_job *j;
	char			**cells, el[32], ex[32], st[64];
	size_t			  i, k, nc = history_tab.ncol;

	if (n == 0) {
		printf("no finished jobs in the window\n");
		return;
	}
	cells = xcalloc(n * nc, sizeof *cells);
	for (i = 0; i < n; i++) {
		j = rows[i].j;
		slurm_time_format(j->elapsed, el, sizeof el);
		state_base(j->state, st, sizeof st);
		k = i * nc;
		cells[k] = xstrdup(rows[i].cluster);
		cells[k + 1] = xstrdup(j->id);
		cells[k + 2] = xstrdup(j->name);
		cells[k + 3] = xstrdup(st);
		cells[k + 4] = xstrdup(history_exit(j, ex, sizeof ex));
		cells[k + 5] = xstrdup(el);
		/* "2026-12-01T09:12:01" as "12-01 09:12": width for NAME. */
		cells[k + 6] = strlen(j->end) >= 16 ? xasprintf("%.5s %.5s",
		    j->end + 5, j->end + 11) : xstrdup(*j->end != '\0' ?
		    j->end : "-");
		cells[k + 7] = xstrdup(rows[i].log != NULL ? rows[i].log : "-");
	}
	cli_table_print(&history_tab, fmt, cells, n, color);
	for (i = 0; i < n * nc; i++)
		free(cells[i]);
	free(cells);
}

/* One row as JSON, with the record and the log it names. */
static cJSON *
history_item(const struct hrow *row)
{
	const struct history_job	*j = row->j;
	cJSON				*item = cJSON_CreateObject();
	char				 ex[32];

	cJSON_AddStringToObject(item, "cluster", row->cluster);
	cJSON_AddStringToObject(item, "job_id", j->id);
	cJSON_AddNumberToObject(item, "job_id_raw", (double)j->raw);
	cli_json_str(item, "record_id", row->rec != NULL ? row->rec->id :
	    NULL);
	cJSON_AddStringToObject(item, "name", j->name);
	cli_json_str(item, "partition", *j->partition != '\0' ?
	    j->partition : NULL);
	/* The record's verdict when there is one (status.json, triage). */
	if (row->rec != NULL)
		cli_json_state(item, row->rec->state, j->state,
		    row->rec->err_class);
	else {
		cJSON_AddStringToObject(item, "state", state_word_of(j->state));
		cli_json_str(item, "slurm_state", *j->state != '\0' ?
		    j->state : NULL);
		cJSON_AddNullToObject(item, "err_class");
	}
	cli_json_str(item, "exit", j->exit_code >= 0 ? history_exit(j, ex,
	    sizeof ex) : NULL);
	if (j->exit_code >= 0)
		cJSON_AddNumberToObject(item, "exit_code", j->exit_code);
	else
		cJSON_AddNullToObject(item, "exit_code");
	cli_json_num(item, "elapsed", (double)j->elapsed, j->elapsed >= 0);
	cli_json_num(item, "limit", (double)j->limit, j->limit >= 0);
	cli_json_str(item, "end", *j->end != '\0' ? j->end : NULL);
	cli_json_str(item, "workdir", *j->workdir != '\0' ? j->workdir :
	    NULL);
	cli_json_str(item, "log", row->log);
	cli_json_str(item, "log_source", row->log != NULL ? row->log_source :
	    NULL);
	return item;
}

/* The JSON of history --json: the clusters asked (taken) and the rows. */
static void
history_json(struct hrow *rows, size_t n, cJSON *clusters)
{
	cJSON	*o, *a;
	size_t	 i;

	o = cli_json_doc("history");
	cJSON_AddItemToObject(o, "clusters", clusters);
	a = cJSON_AddArrayToObject(o, "jobs");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, history_item(&rows[i]));
	/* A job name is the cluster's bytes: cli_json makes them UTF-8. */
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static const struct option history_options[] = {
	{ "days", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "state", required_argument, NULL, 's' },
	{ "name", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

struct history_opts {
	long		 days;	/* 0: the cluster's history_days */
	int		 json;
	const char	*state;	/* --state LIST */
	const char	*name;	/* --name PATTERN */
	const char	*format; /* --format COLUMNS */
};

static int
history_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct history_opts	*o = ctx->opts;

	char			*cause = NULL;

	if (ch == 'j')
		o->json = 1;
	else if (ch == 's')
		o->state = arg;
	else if (ch == 'n')
		o->name = arg;
	else if (ch == 'F') {
		if (cli_table_format(&history_tab, arg, &cause) != 0) {
			cli_error("history", "%s", cause);
			free(cause);
			return EXIT_USAGE;
		}
		o->format = arg;
	} else if (cli_number(arg, 1, 365, &o->days) != 0) {
		cli_error("history", "--days '%s': give a number of days from "
		    "1 to 365", arg);
		return EXIT_USAGE;
	}
	return CLI_GO;
}


/* --state and --name: is this job shown?  Its state as --json says it
   (the record's verdict when there is one), or SLURM's word. */
static int
history_shown(const struct history_opts *o, const struct history_job *j,
    const struct record *rec)
{
	if (o->name != NULL && !cli_table_match(o->name, j->name))
		return 0;
	return o->state == NULL || cli_table_state(o->state, rec != NULL ?
	    state_word(rec->state) : state_word_of(j->state), j->state);
}

static void
history_rows(struct history_run *hr, const struct cluster *cl,
    const struct history *h, const struct history_opts *o)
{
	const struct record	*rec;
	struct hrow		*r;
	size_t			 k;

	for (k = 0; k < h->n; k++) {
		rec = history_record(hr, cl->name, h->v[k].raw);
		if (!history_shown(o, &h->v[k], rec))
			continue;
		hr->rows = xrealloc(hr->rows, (hr->nrows + 1) *
		    sizeof *hr->rows);
		r = &hr->rows[hr->nrows++];
		r->cluster = cl->name;
		r->j = &h->v[k];
		r->rec = rec;
		r->log = r->rec != NULL ? ops_log_path(r->rec, 0) : NULL;
		r->log_source = "record";
		if (r->log == NULL) {
			r->log = history_default_log(r->j);
			r->log_source = "default";
		}
	}
}

/* One sacct on a cluster into h: 0, or -1 with a cause. */
static int
history_fetch(const struct cluster *cl, int days, struct history *h,
    char **cause)
{
	struct conn_result	 res;
	struct conn		*c = conn_new_cluster(cl);
	char			*cmd, *s, sep[SLURM_SEP_SIZE];
	int			 ret = -1;

	memset(&res, 0, sizeof res);
	slurm_sep_new(sep, sizeof sep);
	if ((cmd = history_cmd(cl->user, days, time(NULL), sep, cause)) ==
	    NULL || conn_exec(c, cmd, NULL, 0, &res, cause) != 0)
		goto out;
	if (res.status != 0) {
		*cause = xasprintf("sacct failed (exit %d): %s", res.status,
		    res.err != NULL ? res.err : "");
		goto out;
	}
	ret = 0;
	if (history_parse(res.out, sep, h, cause) != 0) {
		/* What parsed is shown; the rest is said. */
		s = ops_clean(*cause);
		cli_error("history", "cluster %s: %s", cl->name, s);
		free(s);
		free(*cause);
		*cause = NULL;
	}
out:
	free(cmd);
	conn_result_free(&res);
	conn_free(c);
	return ret;
}

static int
cli_history(struct cli_ctx *ctx)
{
	const struct history_opts *o = ctx->opts;
	struct history_run	 hr;
	struct history		*hs;
	struct cluster		*cl;
	cJSON			*clusters, *co;
	char			*cause = NULL, *s;
	size_t			 i;
	int			 d, ret = EXIT_OK;

	memset(&hr, 0, sizeof hr);
	/* Without records every log is SLURM's default one. */
	hr.ix = cli_rindex(ctx);
	if (record_index_refresh(hr.ix, NULL, &cause) != 0) {
		free(cause);
		hr.ix = NULL;
	}
	hs = xcalloc(ctx->cfg.nclusters + 1, sizeof *hs);
	clusters = cJSON_CreateArray();
	for (i = 0; i < ctx->cfg.nclusters; i++) {
		cl = &ctx->cfg.clusters[i];
		if (ctx->cli->cluster != NULL && cl != ctx->cl)
			continue;
		d = o->days > 0 ? (int)o->days : cl->history_days;
		co = cJSON_CreateObject();
		cJSON_AddStringToObject(co, "name", cl->name);
		cJSON_AddNumberToObject(co, "days", d > 0 ? d : HISTORY_DAYS);
		cJSON_AddItemToArray(clusters, co);
		cause = NULL;
		if (history_fetch(cl, d, &hs[i], &cause) == 0) {
			cJSON_AddNullToObject(co, "error");
			history_rows(&hr, cl, &hs[i], o);
			continue;
		}
		s = ops_clean(cause);
		cli_error("history", "cluster %s: %s", cl->name, s);
		cJSON_AddStringToObject(co, "error", s);
		free(s);
		free(cause);
		ret = EXIT_FAIL;
	}
	if (o->json)
		history_json(hr.rows, hr.nrows, clusters);
	else {
		history_table(hr.rows, hr.nrows, o->format, ctx->cli->color);
		cJSON_Delete(clusters);
	}
	for (i = 0; i < hr.nrows; i++)
		free(hr.rows[i].log);
	free(hr.rows);
	for (i = 0; i < ctx->cfg.nclusters; i++)
		history_free(&hs[i]);
	free(hs);
	for (i = 0; i < hr.nrecs; i++)
		record_free(hr.recs[i]);
	free(hr.recs);
	return ret;
}

const struct cli_entry cli_history_entry = {
	.name = "history",
	.usage = "[--cluster NAME] [--days N] [--state LIST] [--name PATTERN] "
	    "[--format COLUMNS] [--json]",
	.summary = "your jobs that ended recently, from accounting (sacct)",
	.help = "  your jobs that ended in the last N days (default: the "
	    "cluster's\n"
	    "  history_days, 7), from accounting (one sacct per "
	    "cluster), whether\n"
	    "  sqdeck submitted them or not, with state, exit code, "
	    "elapsed time and log\n"
	    "  --days N          the window in days (1-365)\n"
	    "  --state LIST      only these states (COMPLETED,FAILED,"
	    "CANCELLED or\n"
	    "                    SLURM's: TIMEOUT,OUT_OF_MEMORY...)\n"
	    "  --name PATTERN    only names holding PATTERN (a glob with * ? "
	    "[)\n"
	    "  --format COLUMNS  the table's columns: cluster,job_id,name,"
	    "state,\n"
	    "                    exit,elapsed,end,log\n"
	    "  --json            as JSON (sqdeck(1): JSON OUTPUT)\n",
	.shortopts = "d:js:n:F:",
	.longopts = history_options,
	.flags = CLI_CLUSTER | CLI_CONFIG,
	.columns = "cluster,job_id,name,state,exit,elapsed,end,log",
	.args_many = "unexpected argument",
	.optsize = sizeof (struct history_opts),
	.option = history_option,
	.exec = cli_history,
};
