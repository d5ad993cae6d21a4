#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "ops.h"
#include "record.h"
#include "retry.h"

/* Without --all: records still moving, and anything touched in a day. */
#define RECENT_SECONDS (24 * 60 * 60)

/* Records are local but their text came from users and clusters. */
static char *
clean(const char *s)
{
	return ops_clean(s);
}

static int
shown(const struct record *r, const char *since)
{
	if (!state_terminal(r->state))
		return 1;
	return r->updated != NULL && strcmp(r->updated, since) >= 0;
}

static const char *const records_head[] = { "ID", "CLUSTER", "SLURM ID",
	"STATE", "JOB NAME", "UPDATED" };
static const char *const records_keys[] = { "record_id", "cluster",
	"job_id", "state", "name", "updated" };
static const int records_flags[] = { 0, CLI_COL_ONE, 0, 0, CLI_COL_FLEX, 0 };
static const struct cli_table records_tab = {
	records_head, records_keys, records_flags, 6,
	"record_id,cluster,job_id,state,name,updated"
};

static void
print_table(struct record **v, size_t n, const char *fmt, int color)
{
	enum { NCOL = 6 };
	char			**cells, **c, st[64];
	size_t			  i;

	cells = xcalloc(n * NCOL + 1, sizeof *cells);
	for (i = 0; i < n; i++) {
		c = &cells[i * NCOL];
		c[0] = clean(v[i]->id);
		c[1] = clean(v[i]->cluster);
		c[2] = clean(record_slurm_id(v[i]));
		c[3] = xstrdup(cli_state_text(v[i], st, sizeof st));
		c[4] = clean(v[i]->job_name);
		c[5] = clean(v[i]->updated);
	}
	cli_table_print(&records_tab, fmt, cells, n, color);
	for (i = 0; i < n * NCOL; i++)
		free(cells[i]);
	free(cells);
}

static void
print_json(struct record **v, size_t n, const struct strv *corrupt)
{
	cJSON	*o, *a, *item;
	size_t	 i;

	o = cli_json_doc("records");
	a = cJSON_AddArrayToObject(o, "records");
	for (i = 0; i < n; i++) {
		if ((item = cli_json_record(v[i])) != NULL)
			cJSON_AddItemToArray(a, item);
	}
	a = cJSON_AddArrayToObject(o, "corrupt");
	for (i = 0; i < corrupt->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(corrupt->v[i]));
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

/* The chain as a table: #, ID, SLURM ID, STATE, RULE, RETRY OF, EXCLUDED. */
static void
print_chain_table(struct record **v, size_t n, int color)
{
	static const char *const head[] = { "#", "ID", "SLURM ID", "STATE",
			    "RULE", "RETRY OF", "EXCLUDED" };
	enum { NCOL = 7 };
	char		**cells, **c, *x, st[64];
	size_t		  i;

	cells = xcalloc(n * NCOL + 1, sizeof *cells);
	for (i = 0; i < n; i++) {
		c = &cells[i * NCOL];
		c[0] = xasprintf("%d", v[i]->retry_count);
		c[1] = clean(v[i]->id);
		c[2] = clean(record_slurm_id(v[i]));
		c[3] = xstrdup(cli_state_text(v[i], st, sizeof st));
		c[4] = clean(v[i]->err_rule);
		c[5] = clean(v[i]->retry_of);
		x = retry_inherited(v[i]);
		c[6] = clean(x);
		free(x);
	}
	ops_table_print(stdout, head, NCOL, cells, n, color);
	for (i = 0; i < n * NCOL; i++)
		free(cells[i]);
	free(cells);
}

/* The chain from the first submit through every retry (man/sqdeck.1). */
static int
print_chain(const char *id, int json, int color)
{
	struct strv	  none;
	struct record	**v, *found = NULL;
	char		 *cause = NULL;
	size_t		  n, i;
	long		  sid;
	int		  rc;

	/* A SLURM id, like the other verbs take: its record's chain. */
	if ((rc = ops_find(id, NULL, &found, &sid, &cause)) != 0) {
		if (rc == 1)
			cli_error("records", "SLURM job %ld has no sqdeck "
			    "record, so it has no retry chain", sid);
		else
			cli_error("records", "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	rc = retry_chain(found->id, &v, &n, &cause);
	record_free(found);
	if (rc != 0) {
		cli_error("records", "%s", cause);
		free(cause);
		return EXIT_USAGE;
	}
	memset(&none, 0, sizeof none);
	if (json)
		print_json(v, n, &none);
	else
		print_chain_table(v, n, color);
	for (i = 0; i < n; i++)
		record_free(v[i]);
	free(v);
	return EXIT_OK;
}

static const struct option records_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "all", no_argument, NULL, 'a' },
	{ "chain", required_argument, NULL, 'c' },
	{ "state", required_argument, NULL, 's' },
	{ "name", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

struct records_opts {
	int		 json;
	int		 all;
	const char	*chain;
	const char	*state;		/* --state LIST */
	const char	*name;		/* --name PATTERN */
	const char	*format;	/* --format COLUMNS */
};

static int
records_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct records_opts	*o = ctx->opts;
	char			*cause = NULL;

	if (ch == 'j')
		o->json = 1;
	else if (ch == 'a')
		o->all = 1;
	else if (ch == 's')
		o->state = arg;
	else if (ch == 'n')
		o->name = arg;
	else if (ch == 'F') {
		if (cli_table_format(&records_tab, arg, &cause) != 0) {
			cli_error("records", "%s", cause);
			free(cause);
			return EXIT_USAGE;
		}
		o->format = arg;
	} else
		o->chain = arg;
	return CLI_GO;
}

/* --state and --name. */
static int
records_match(const struct records_opts *o, const struct record *r)
{
	if (o->name != NULL && !cli_table_match(o->name, r->job_name != NULL ?
	    r->job_name : ""))
		return 0;
	return o->state == NULL || cli_table_state(o->state,
	    state_word(r->state), r->native);
}

static int
cli_records(struct cli_ctx *ctx)
{
	const struct records_opts *o = ctx->opts;
	struct record_list	  list;
	struct record		**v;
	char			 *cause = NULL, since[32];
	size_t			  i, n = 0;
	int			  ret;

	if (o->chain != NULL)
		return print_chain(o->chain, o->json, ctx->cli->color);
	/*
	 * Without --all only the records still moving and the recent ones
	 * are read (the run's index knows which): not a week of history.
	 */
	if ((o->all ? record_list(&list, &cause) :
	    record_index_recent(cli_rindex(ctx), time(NULL) - RECENT_SECONDS,
	    &list, &cause)) != 0) {
		cli_error("records", "%s", cause);
		free(cause);
		return EXIT_FAIL;
	}
	iso_time_fmt(time(NULL) - RECENT_SECONDS, since, sizeof since);
	v = xcalloc(list.n + 1, sizeof *v);
	for (i = 0; i < list.n; i++) {
		if ((o->all || shown(list.v[i], since)) &&
		    records_match(o, list.v[i]))
			v[n++] = list.v[i];
	}
	if (o->json)
		print_json(v, n, &list.corrupt);
	else if (n == 0 && list.corrupt.n == 0)
		cli_printf("no records%s\n", o->all ? "" :
		    " (--all shows older ones)");
	else if (n != 0)
		print_table(v, n, o->format, ctx->cli->color);
	/* Never silently: a record that does not parse is named. */
	for (i = 0; i < list.corrupt.n; i++)
		cli_error("records", "corrupt record %s", list.corrupt.v[i]);
	free(v);
	ret = list.corrupt.n != 0 ? EXIT_FAIL : EXIT_OK;
	record_list_free(&list);
	return ret;
}

const struct cli_entry cli_records_entry = {
	.name = "records",
	.usage = "[--json] [--all] [--chain ID] [--state LIST] [--name PATTERN] "
	    "[--format COLUMNS]",
	.summary = "list the local job records",
	.help = "  --all       every record (default: unfinished ones and "
	    "those updated in the last 24 h)\n"
	    "  --chain ID  the retry chain of a job (record id or "
	    "SLURM job id): the first submit, then each retry\n"
	    "  --state LIST      only these states (PENDING,RUNNING,COMPLETED,"
	    "FAILED,\n"
	    "                    CANCELLED,UNKNOWN or SLURM's own word)\n"
	    "  --name PATTERN    only job names holding PATTERN (a glob with "
	    "* ? [)\n"
	    "  --format COLUMNS  the table's columns: record_id,cluster,"
	    "job_id,state,\n"
	    "                    name,updated\n"
	    "  --json      the full records, history included (sqdeck(1): "
	    "JSON OUTPUT)\n",
	.shortopts = "jac:s:n:F:",
	.longopts = records_options,
	.flags = 0,
	.id_option = "chain",
	.columns = "record_id,cluster,job_id,state,name,updated",
	.args_many = "unexpected argument",
	.optsize = sizeof (struct records_opts),
	.option = records_option,
	.exec = cli_records,
};
