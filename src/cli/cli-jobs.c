#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "monitor.h"
#include "ops.h"
#include "pending.h"
#include "tty.h"

/* A printed row: a job, or the line of a whole array before its tasks. */
struct jline {
	const struct jobtable_row	*row;
	const struct monitor_info	*info;	/* NULL: an array line */
	struct jobtable_row		 array;	/* the array line's, owned */
	int				 task;	/* a task under its array */
};

struct jitem {
	size_t		 k;
	char		 base[32];
	const char	*task;
	long		 group;
};

static int
jitem_cmp(const void *pa, const void *pb)
{
	const struct jitem	*a = pa, *b = pb;
	unsigned long		 na, nb;
	int			 c;

	if ((c = strcmp(a->base, b->base)) != 0)
		return c;
	/* Task order: 2 before 10, a pending range after the numbers. */
	na = strtoul(a->task + (*a->task == '['), NULL, 10);
	nb = strtoul(b->task + (*b->task == '['), NULL, 10);
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(a->task, b->task);
}

/*
 * The arrays of one snapshot: it[] the array tasks sorted by array and
 * task, gof[k] the group of row k (-1: in none), a group starting at
 * gfirst[g] in it[] with gcount[g] tasks (two or more).
 */
struct jgroups {
	struct jitem	*it;
	long		*gof;
	size_t		*gfirst;
	size_t		*gcount;
	unsigned char	*done;		/* its lines are out */
};

static void
jobs_groups(const struct monitor_snapshot *s, struct jgroups *g)
{
	size_t	k, m, ng, run;

	g->it = xcalloc(s->n + 1, sizeof *g->it);
	g->gof = xcalloc(s->n + 1, sizeof *g->gof);
	g->gfirst = xcalloc(s->n + 1, sizeof *g->gfirst);
	g->gcount = xcalloc(s->n + 1, sizeof *g->gcount);
	g->done = xcalloc(s->n + 1, 1);
	for (k = 0, m = 0; k < s->n; k++) {
		g->gof[k] = -1;
		if (jobtable_array_split(s->rows[k].id, g->it[m].base,
		    sizeof g->it[m].base, &g->it[m].task))
			g->it[m++].k = k;
	}
	qsort(g->it, m, sizeof *g->it, jitem_cmp);
	for (k = 0, ng = 0; k < m; k += run) {
		for (run = 1; k + run < m && strcmp(g->it[k + run].base,
		    g->it[k].base) == 0; run++)
			/* nothing */;
		if (run < 2)
			continue;
		g->gfirst[ng] = k;
		g->gcount[ng] = run;
		while (run-- > 0)
			g->gof[g->it[k + run].k] = (long)ng;
		run = g->gcount[ng++];
	}
}

static void
jobs_groups_free(struct jgroups *g)
{
	free(g->it);
	free(g->gof);
	free(g->gfirst);
	free(g->gcount);
	free(g->done);
}

/* Group gi's lines from v[n]: the whole array, then its tasks. */
static size_t
jobs_group_lines(const struct monitor_snapshot *s, const struct jgroups *g,
    size_t gi, struct jline *v, size_t n)
{
	const struct jobtable_row	**grows;
	size_t				 t, k;

	grows = xcalloc(g->gcount[gi] + 1, sizeof *grows);
	for (t = 0; t < g->gcount[gi]; t++)
		grows[t] = &s->rows[g->it[g->gfirst[gi] + t].k];
	jobtable_array_summary(grows, g->gcount[gi], &v[n].array);
	free(grows);
	v[n].row = &v[n].array;
	n++;
	for (t = 0; t < g->gcount[gi]; t++) {
		k = g->it[g->gfirst[gi] + t].k;
		v[n].row = &s->rows[k];
		v[n].info = &s->info[k];
		v[n++].task = 1;
	}
	return n;
}

/*
 * The rows in their order, except that the tasks of one array (two rows
 * or more in a cluster) come together in task order under a line for the
 * whole array with the counts by state, where the first of them was.
 */
static struct jline *
jobs_lines(const struct monitor_snapshot *snaps, size_t ns, size_t *np)
{
	const struct monitor_snapshot	*s;
	struct jline			*v;
	struct jgroups			 g;
	size_t				 i, k, n = 0, total = 0;
	long				 gi;

	for (i = 0; i < ns; i++)
		total += snaps[i].n;
	v = xcalloc(2 * total + 1, sizeof *v);
	for (i = 0; i < ns; i++) {
		s = &snaps[i];
		jobs_groups(s, &g);
		for (k = 0; k < s->n; k++) {
			if ((gi = g.gof[k]) < 0) {
				v[n].row = &s->rows[k];
				v[n++].info = &s->info[k];
			} else if (!g.done[gi]) {
				g.done[gi] = 1;
				n = jobs_group_lines(s, &g, (size_t)gi, v, n);
			}
		}
		jobs_groups_free(&g);
	}
	*np = n;
	return v;
}

static void
jobs_lines_free(struct jline *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i].info == NULL)
			jobtable_row_clear(&v[i].array);
	}
	free(v);
}

static const char *const jobs_keys[JT_NCOLS] = { "cluster", "job_id",
	"name", "partition", "state", "time", "nodes", "reason" };
static const int jobs_flags[JT_NCOLS] = { 0, 0, CLI_COL_FLEX,
	0, 0, 0, 0, 0 };
static const char *jobs_heads[JT_NCOLS];
static const struct cli_table jobs_tab = {
	jobs_heads, jobs_keys, jobs_flags, JT_NCOLS,
	"cluster,job_id,name,partition,state,time,nodes,reason"
};

static void
jobs_table(struct monitor_snapshot *snaps, size_t ns, char **causes,
    const char *fmt, int color)
{
	char		**cells, buf[64];
	struct jline	 *lines;
	size_t		  i, n = 0, r = 0, failed = 0;
	int		  c;

	for (c = 0; c < JT_NCOLS; c++)
		jobs_heads[c] = jobtable_col_title(
		    (enum jobtable_col)c);
	for (i = 0; i < ns; i++) {
		n += snaps[i].n;
		if (causes[i] != NULL)
			failed++;
	}
	if (n == 0) {
		/* An empty queue and a failed poll are not the same. */
		if (failed == ns && ns != 0)
			cli_printf("jobs unknown: the poll failed (see the error "
			    "above)\n");
		else if (failed != 0)
			cli_printf("no jobs on the clusters that answered; %zu of "
			    "%zu polls failed (see above)\n", failed, ns);
		else
			cli_printf("no jobs\n");
		return;
	}
	lines = jobs_lines(snaps, ns, &n);
	cells = xcalloc(n * JT_NCOLS, sizeof *cells);
	for (r = 0; r < n; r++) {
		const struct jobtable_row	*row = lines[r].row;

		for (c = 0; c < JT_NCOLS; c++) {
			const char	*t = jobtable_cell(row,
					    (enum jobtable_col)c, buf,
					    sizeof buf);

			if (c == JT_ID && lines[r].info == NULL)
				cells[r * JT_NCOLS + (size_t)c] = xasprintf(
				    "%s_*", row->id);	/* the whole array */
			else if (c == JT_ID && lines[r].task)
				cells[r * JT_NCOLS + (size_t)c] = xasprintf(
				    "  %s", row->id);
			else
				cells[r * JT_NCOLS + (size_t)c] = xstrdup(t);
		}
	}
	cli_table_print(&jobs_tab, fmt, cells, n, color);
	for (i = 0; i < n * JT_NCOLS; i++)
		free(cells[i]);
	free(cells);
	jobs_lines_free(lines, n);
}

/* Each cluster asked: polled when, and whether it answered. */
static void
jobs_json_clusters(cJSON *o, struct monitor_snapshot *snaps, size_t ns,
    char **causes)
{
	cJSON	*a, *cl;
	char	 when[32];
	size_t	 i;

	a = cJSON_AddArrayToObject(o, "clusters");
	for (i = 0; i < ns; i++) {
		cl = cJSON_CreateObject();
		cJSON_AddStringToObject(cl, "name", snaps[i].cluster);
		cJSON_AddBoolToObject(cl, "ok", causes[i] == NULL);
		if (snaps[i].polled != 0) {
			iso_time_fmt(snaps[i].polled, when, sizeof when);
			cJSON_AddStringToObject(cl, "polled", when);
		} else
			cJSON_AddNullToObject(cl, "polled");
		if (causes[i] != NULL || snaps[i].error != NULL)
			cJSON_AddStringToObject(cl, "error", causes[i] != NULL ?
			    causes[i] : snaps[i].error);
		else
			cJSON_AddNullToObject(cl, "error");
		cJSON_AddItemToArray(a, cl);
	}
}

/* Why it is pending (null unless it is and SLURM says why). */
static void
jobs_json_why(cJSON *item, const struct jobtable_row *row)
{
	struct pending_why	 why;
	cJSON			*wp;

	if (!row->finished && jobtable_state_class(row->state) ==
	    JC_PENDING && pending_explain(row->reason, &why) == 0) {
		wp = cJSON_AddObjectToObject(item, "why_pending");
		cJSON_AddStringToObject(wp, "code", why.code);
		cJSON_AddStringToObject(wp, "meaning", why.sentence);
		cJSON_AddStringToObject(wp, "fix", why.fix);
	} else
		cJSON_AddNullToObject(item, "why_pending");
}

/* SLURM's word, or null for the table's own ENDED (left the queue). */
static const char *
jobs_slurm_state(const char *state)
{
	return state != NULL && state_known(state) ? state : NULL;
}

static cJSON *
jobs_json_job(const struct jobtable_row *row, const struct monitor_info *info)
{
	cJSON		*item = cJSON_CreateObject();
	const char	*task;
	char		 base[32];

	cJSON_AddStringToObject(item, "cluster", row->cluster);
	cJSON_AddStringToObject(item, "job_id", row->id);
	cli_json_str(item, "record_id", info->record_id);
	cJSON_AddStringToObject(item, "name", row->name);
	cli_json_str(item, "partition", *row->partition != '\0' ?
	    row->partition : NULL);
	/* The record knows better (status.json, triage) when there is one. */
	if (info->record_id != NULL)
		cli_json_state(item, info->state, jobs_slurm_state(row->state),
		    info->err);
	else {
		cJSON_AddStringToObject(item, "state", state_word_of(row->state));
		cli_json_str(item, "slurm_state", jobs_slurm_state(row->state));
		cJSON_AddNullToObject(item, "err_class");
	}
	cli_json_num(item, "elapsed", row->elapsed, row->elapsed >= 0);
	cli_json_num(item, "limit", row->limit, row->limit >= 0);
	cli_json_num(item, "nodes", row->nodes, row->nodes > 0);
	cli_json_str(item, "reason", *row->reason != '\0' ? row->reason :
	    NULL);
	cJSON_AddBoolToObject(item, "finished", row->finished);
	/* An array task: its array's job id and task part. */
	if (jobtable_array_split(row->id, base, sizeof base, &task)) {
		cJSON_AddStringToObject(item, "array_job_id", base);
		cJSON_AddStringToObject(item, "array_task", task);
	} else {
		cJSON_AddNullToObject(item, "array_job_id");
		cJSON_AddNullToObject(item, "array_task");
	}
	jobs_json_why(item, row);
	return item;
}

/* Each array (two rows or more) once, with its counts by state. */
static void
jobs_json_arrays(cJSON *o, struct monitor_snapshot *snaps, size_t ns)
{
	const struct jobtable_row	*row;
	struct jline			*lines;
	cJSON				*a, *item;
	size_t				 i, n;

	a = cJSON_AddArrayToObject(o, "arrays");
	lines = jobs_lines(snaps, ns, &n);
	for (i = 0; i < n; i++) {
		struct jobtable_array_count	 c;
		size_t				 t;
		cJSON				*cn;

		if (lines[i].info != NULL)
			continue;
		memset(&c, 0, sizeof c);
		for (t = i + 1; t < n && lines[t].task; t++)
			jobtable_array_add(&c, lines[t].row);
		row = lines[i].row;
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "cluster", row->cluster);
		cJSON_AddStringToObject(item, "job_id", row->id);
		cJSON_AddStringToObject(item, "name", row->name);
		cJSON_AddStringToObject(item, "state", state_word_of(row->state));
		cli_json_str(item, "slurm_state", jobs_slurm_state(row->state));
		cJSON_AddNumberToObject(item, "tasks", (double)c.tasks);
		cn = cJSON_AddObjectToObject(item, "counts");
		cJSON_AddNumberToObject(cn, "running", (double)c.n[JC_RUNNING]);
		cJSON_AddNumberToObject(cn, "pending", (double)c.n[JC_PENDING]);
		cJSON_AddNumberToObject(cn, "completed", (double)c.n[JC_DONE]);
		cJSON_AddNumberToObject(cn, "failed", (double)c.n[JC_FAILED]);
		cJSON_AddNumberToObject(cn, "cancelled",
		    (double)c.n[JC_CANCELLED]);
		cJSON_AddNumberToObject(cn, "other", (double)c.n[JC_OTHER]);
		cJSON_AddStringToObject(item, "summary", row->reason);
		cJSON_AddNumberToObject(item, "rows", (double)(t - i - 1));
		cJSON_AddItemToArray(a, item);
	}
	jobs_lines_free(lines, n);
}

static void
jobs_json(struct monitor_snapshot *snaps, size_t ns, char **causes)
{
	cJSON	*o = cli_json_doc("jobs"), *a;
	size_t	 i, k;

	jobs_json_clusters(o, snaps, ns, causes);
	a = cJSON_AddArrayToObject(o, "jobs");
	for (i = 0; i < ns; i++) {
		for (k = 0; k < snaps[i].n; k++)
			cJSON_AddItemToArray(a, jobs_json_job(
			    &snaps[i].rows[k], &snaps[i].info[k]));
	}
	jobs_json_arrays(o, snaps, ns);
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static const struct option jobs_options[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "json", no_argument, NULL, 'j' },
	{ "state", required_argument, NULL, 's' },
	{ "name", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

struct jobs_opts {
	int		 all;
	int		 json;
	const char	*state;		/* --state LIST */
	const char	*name;		/* --name PATTERN */
	const char	*format;	/* --format COLUMNS */
};

static int
jobs_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct jobs_opts	*o = ctx->opts;
	char			*cause = NULL;

	if (ch == 'a')
		o->all = 1;
	else if (ch == 's')
		o->state = arg;
	else if (ch == 'n')
		o->name = arg;
	else if (ch == 'F') {
		if (cli_table_format(&jobs_tab, arg, &cause) != 0) {
			cli_error("jobs", "%s", cause);
			free(cause);
			return EXIT_USAGE;
		}
		o->format = arg;
	} else
		o->json = 1;
	return CLI_GO;
}

/*
 * --state and --name: the rows left out of a snapshot (its rows and
 * infos moved down over them), before the arrays are grouped.
 */
static void
jobs_filter(const struct jobs_opts *o, struct monitor_snapshot *s)
{
	size_t	k, n = 0;
	int	keep;

	for (k = 0; k < s->n; k++) {
		const struct jobtable_row	*r = &s->rows[k];
		const char			*w;

		w = s->info[k].record_id != NULL ? state_word(s->info[k].state) :
		    state_word_of(r->state);
		keep = (o->name == NULL || cli_table_match(o->name, r->name)) &&
		    (o->state == NULL || cli_table_state(o->state, w,
		    r->state));
		if (!keep) {
			jobtable_row_clear(&s->rows[k]);
			free(s->info[k].record_id);
			free(s->info[k].err_rule);
			continue;
		}
		if (n != k) {
			s->rows[n] = s->rows[k];
			s->info[n] = s->info[k];
		}
		n++;
	}
	s->n = n;
}

/*
 * The clusters are polled side by side, JOBS_THREADS at most at once: one
 * after another, 32 clusters took the sum of their round trips, and each
 * host that never answers its connect_timeout.  What each poll has to say
 * is said after all of them, in the configuration's order, as before.
 */
#define JOBS_THREADS	16

struct jpoll {
	struct cli_ctx		*ctx;
	struct cluster		*cl;
	int			 all;
	struct monitor_snapshot	 snap;
	char			*cause;	/* for the table or JSON */
	char			*said;	/* the error line, cleaned */
	unsigned long		 reads;	/* records read on another thread */
};

struct jpool {
	struct jpoll		*v;
	size_t			 n, next;
	pthread_mutex_t		 lock;
};

static pthread_mutex_t	jobs_tty_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t	jobs_index_lock = PTHREAD_MUTEX_INITIALIZER;

/* The records index is shared by the polls (record_index_set_lock). */
static void
jobs_index_take(void *arg)
{
	pthread_mutex_lock(arg);
}

static void
jobs_index_give(void *arg)
{
	pthread_mutex_unlock(arg);
}

/* A login's questions on the terminal, one cluster's at a time. */
static int
jobs_prompt(void *arg, const char *cluster, const char *name,
    const char *instruction, const char *note,
    const struct conn_prompt *pv, size_t n, char **answers, char **cause)
{
	int	rc;

	pthread_mutex_lock(&jobs_tty_lock);
	rc = tty_prompt(arg, cluster, name, instruction, note, pv, n, answers,
	    cause);
	pthread_mutex_unlock(&jobs_tty_lock);
	return rc;
}

/* One poll (one remote command) of a cluster; what went wrong in p->said. */
static void
jobs_poll(struct jpoll *p)
{
	struct monitor_opts	 opts;
	struct conn		*c;
	char			*s;

	memset(&opts, 0, sizeof opts);
	opts.user = p->cl->user;
	opts.recent = p->all ? -1 : 0;
	opts.index = cli_rindex(p->ctx);	/* made before the threads */
	c = conn_new_cluster(p->cl);
	conn_set_prompt(c, jobs_prompt, NULL);
	if (monitor_poll(c, p->cl->name, &opts, &p->snap, &p->cause) != 0)
		p->said = ops_clean(p->cause);
	else if (p->snap.error != NULL) {
		s = ops_clean(p->snap.error);
		p->said = xasprintf("cluster %s: %s", p->cl->name, s);
		free(s);
	}
	conn_free(c);
}

/* Polls until none is left; a thread's record reads are kept per poll. */
static void
jobs_polls(struct jpool *pool, int thread)
{
	unsigned long	before;
	size_t		i;

	for (;;) {
		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->n)
			return;
		before = record_reads_here();
		jobs_poll(&pool->v[i]);
		if (thread)
			pool->v[i].reads = record_reads_here() - before;
	}
}

static void *
jobs_worker(void *arg)
{
	jobs_polls(arg, 1);
	return NULL;
}

/* Every poll of pool, on up to JOBS_THREADS threads (none for one). */
static void
jobs_poll_all(struct jpool *pool)
{
	pthread_t	tid[JOBS_THREADS];
	size_t		i, nt = pool->n < JOBS_THREADS ? pool->n : JOBS_THREADS;
	size_t		started = 0;

	pthread_mutex_init(&pool->lock, NULL);
	if (nt > 1) {
		for (i = 0; i < nt; i++) {
			if (pthread_create(&tid[i], NULL, jobs_worker,
			    pool) != 0)
				break;
			started++;
		}
	}
	jobs_polls(pool, 0);	/* the rest here, and all of them if alone */
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	/* The verb's count of record reads (SQDECK_TEST_RECORD_READS). */
	for (i = 0; i < pool->n; i++)
		record_reads_add(pool->v[i].reads);
	pthread_mutex_destroy(&pool->lock);
}

static int
cli_jobs(struct cli_ctx *ctx)
{
	const struct jobs_opts	*o = ctx->opts;
	struct config		*cfg = &ctx->cfg;
	struct monitor_snapshot	*snaps;
	struct jpool		 pool;
	char			**causes;
	size_t			 i, ns = 0;
	int			 ret = EXIT_OK;

	memset(&pool, 0, sizeof pool);
	pool.v = xcalloc(cfg->nclusters + 1, sizeof *pool.v);
	for (i = 0; i < cfg->nclusters; i++) {
		if (ctx->cli->cluster != NULL && &cfg->clusters[i] != ctx->cl)
			continue;
		pool.v[pool.n].ctx = ctx;
		pool.v[pool.n].cl = &cfg->clusters[i];
		pool.v[pool.n].all = o->all;
		pool.n++;
	}
	if (pool.n > 1)
		record_index_set_lock(cli_rindex(ctx), jobs_index_take,
		    jobs_index_give, &jobs_index_lock);
	jobs_poll_all(&pool);
	if (pool.n > 1)
		record_index_set_lock(cli_rindex(ctx), NULL, NULL, NULL);
	snaps = xcalloc(pool.n + 1, sizeof *snaps);
	causes = xcalloc(pool.n + 1, sizeof *causes);
	for (i = 0; i < pool.n; i++) {
		if (pool.v[i].said != NULL) {
			cli_error("jobs", "%s", pool.v[i].said);
			free(pool.v[i].said);
			ret = EXIT_FAIL;
		}
		snaps[ns] = pool.v[i].snap;
		causes[ns] = pool.v[i].cause;
		jobs_filter(o, &snaps[ns]);
		ns++;
	}
	free(pool.v);
	if (o->json)
		jobs_json(snaps, ns, causes);
	else
		jobs_table(snaps, ns, causes, o->format, ctx->cli->color);
	for (i = 0; i < ns; i++) {
		monitor_snapshot_free(&snaps[i]);
		free(causes[i]);
	}
	free(snaps);
	free(causes);
	return ret;
}

const struct cli_entry cli_jobs_entry = {
	.name = "jobs",
	.usage = "[--cluster NAME] [--all] [--state LIST] [--name PATTERN] "
	    "[--format COLUMNS] [--json]",
	.summary = "the live queue of your jobs plus recent records",
	.help = "  every job of yours in the queue of each cluster (or of "
	    "--cluster),\n"
	    "  plus the sqdeck records that finished in the last 24 h\n"
	    "  --all             every finished record, however old\n"
	    "  --state LIST      only these states (PENDING,RUNNING,COMPLETED,"
	    "FAILED,\n"
	    "                    CANCELLED,UNKNOWN or SLURM's own word)\n"
	    "  --name PATTERN    only names holding PATTERN (a glob with * ? "
	    "[)\n"
	    "  --format COLUMNS  the table's columns: cluster,job_id,name,"
	    "partition,\n"
	    "                    state,time,nodes,reason\n"
	    "  --json            as JSON (sqdeck(1): JSON OUTPUT)\n",
	.shortopts = "ajs:n:F:",
	.longopts = jobs_options,
	.flags = CLI_CLUSTER | CLI_CONFIG,
	.columns = "cluster,job_id,name,partition,state,time,nodes,reason",
	.args_many = "unexpected argument",
	.optsize = sizeof (struct jobs_opts),
	.option = jobs_option,
	.exec = cli_jobs,
};
