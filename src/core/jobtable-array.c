/*
 * The job table's array jobs: task ranges ("4_[1-3,7]"), grouping a
 * job's tasks under one row, and opening or closing that group.
 */
#include "jobtable-int.h"
#include "jobid.h"
#include "str.h"

/* --- job arrays --------------------------------------------------------- */

int
jobtable_array_split(const char *id, char *base, size_t len,
    const char **task)
{
	struct jobid	j;

	jobid_parse(id, &j);
	if ((j.kind != JOBID_TASK && j.kind != JOBID_RANGE) || j.joblen >= len)
		return 0;
	memcpy(base, id, j.joblen);
	base[j.joblen] = '\0';
	*task = j.tasks;
	return 1;
}

void
jobtable_array_add(struct jobtable_array_count *c,
    const struct jobtable_row *r)
{
	const char		*task;
	char			 base[32];
	long			 n = 1;
	enum jobtable_class	 k = jobtable_state_class(r->state);

	if (jobtable_array_split(r->id, base, sizeof base, &task))
		n = jobid_ntasks(task);
	c->tasks += n;
	if ((int)k >= 0 && k <= JC_OTHER)
		c->n[k] += n;
}

void
jobtable_array_text(const struct jobtable_array_count *c, char *buf,
    size_t len)
{
	static const struct {
		enum jobtable_class	 k;
		const char		*word;
	} words[] = {
		{ JC_RUNNING, "running" },
		{ JC_PENDING, "pending" },
		{ JC_DONE, "completed" },
		{ JC_FAILED, "failed" },
		{ JC_CANCELLED, "cancelled" },
		{ JC_OTHER, "other" },
	};
	size_t	i;
	int	n, first = 1;

	n = snprintf(buf, len, "%ld task%s", c->tasks, c->tasks == 1 ? "" :
	    "s");
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (c->n[words[i].k] == 0 || n < 0 || (size_t)n >= len)
			continue;
		n += snprintf(buf + n, len - (size_t)n, "%s %ld %s",
		    first ? ":" : ",", c->n[words[i].k], words[i].word);
		first = 0;
	}
}

void
jt_strv_del(struct strv *v, const char *s)
{
	size_t	i;

	for (i = 0; i < v->n; i++) {
		if (strcmp(v->v[i], s) == 0) {
			free(v->v[i]);
			v->v[i] = v->v[--v->n];
			return;
		}
	}
}

/* A row of vis and its array, for grouping. */
struct gitem {
	struct entry	*e;
	size_t		 pos;		/* in sorted vis */
	char		 base[32];	/* "" not an array task */
	const char	*task;
	long		 group;		/* index into jt->groups, -1 none */
};

static int
size_cmp(const void *pa, const void *pb)
{
	size_t	a = *(const size_t *)pa, b = *(const size_t *)pb;

	return a < b ? -1 : a > b;
}

static int
gitem_cmp(const void *pa, const void *pb)
{
	const struct gitem	*a = pa, *b = pb;
	int			 c;

	if ((c = strcmp(a->e->row.cluster, b->e->row.cluster)) != 0)
		return c;
	if ((c = jt_id_cmp(a->base, b->base)) != 0)
		return c;
	return jt_id_cmp(a->task, b->task);
}

void
jobtable_array_summary(const struct jobtable_row *const *rows, size_t n,
    struct jobtable_row *g)
{
	const struct jobtable_row	*f = rows[0], *best_row = NULL;
	struct jobtable_array_count	 c;
	const char			*task;
	char				 text[160], base[32];
	size_t				 i;
	int				 elapsed = -1;
	int				 finished = 1, nodes = 0;
	enum jobtable_class		 best = JC_OTHER;

	memset(&c, 0, sizeof c);
	memset(g, 0, sizeof *g);
	for (i = 0; i < n; i++) {
		const struct jobtable_row	*r = rows[i];

		jobtable_array_add(&c, r);
		if (r->elapsed > elapsed)
			elapsed = r->elapsed;
		if (!r->finished) {
			finished = 0;
			nodes += r->nodes > 0 ? r->nodes : 0;
		}
	}
	/* The state that matters most: running, pending, else the worst. */
	if (c.n[JC_RUNNING])
		best = JC_RUNNING;
	else if (c.n[JC_PENDING])
		best = JC_PENDING;
	else if (c.n[JC_FAILED])
		best = JC_FAILED;
	else if (c.n[JC_CANCELLED])
		best = JC_CANCELLED;
	else if (c.n[JC_DONE])
		best = JC_DONE;
	for (i = 0; i < n && best_row == NULL; i++) {
		if (jobtable_state_class(rows[i]->state) == best)
			best_row = rows[i];
	}
	jobtable_array_text(&c, text, sizeof text);
	if (!jobtable_array_split(f->id, base, sizeof base, &task))
		snprintf(base, sizeof base, "%s", jt_str0(f->id));
	g->cluster = jt_dup0(f->cluster);
	g->id = xstrdup(base);
	g->name = jt_dup0(f->name);
	g->partition = jt_dup0(f->partition);
	g->state = jt_dup0(best_row != NULL ? best_row->state : f->state);
	g->reason = xstrdup(text);
	g->elapsed = elapsed;
	g->limit = f->limit;
	g->nodes = nodes;
	g->finished = finished;
	g->array_tasks = c.tasks > INT32_MAX ? INT32_MAX : (int)c.tasks;
}

/* The group row of the tasks items[0..n). */
static struct entry *
group_new(struct jobtable *jt, struct gitem *items, size_t n)
{
	const struct jobtable_row	**rows;
	struct entry			*g = xcalloc(1, sizeof *g);
	char				*key;
	size_t				 i;

	rows = xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++)
		rows[i] = &items[i].e->row;
	jobtable_array_summary(rows, n, &g->row);
	free(rows);
	g->class = jobtable_state_class(g->row.state);
	key = xasprintf("%s\t%s", g->row.cluster, g->row.id);
	g->row.array_open = strv_has(&jt->open, key);
	g->marked = strv_has(&jt->gmarks, key);
	free(key);
	return g;
}

/*
 * Put the tasks of each array (two or more shown) under a group row, at
 * the place of the first of them in the sort; open groups list their
 * tasks after it in task order.  The tasks come from their own list and
 * find their places by a binary search: no walk over every row shown
 * (a cache miss each over a week of history, on every frame after a poll).
 */
void
jt_group(struct jobtable *jt)
{
	struct gitem	*items;
	struct entry	**out, *e;
	size_t		*gfirst, *gcount;	/* by group: run in items */
	long		*gof;		/* by item, in vis order: group */
	size_t		*pos;		/* by item, in vis order */
	unsigned char	*done;
	size_t		 i, k, n = 0, nout = 0, run, at;
	long		 g;

	jt_groups_free(jt);
	/* A member before: shown as one again unless grouped below. */
	for (i = 0; jt->members && i < jt->ntask; i++) {
		if (jt->tasks[i]->row.array_member) {
			jt->tasks[i]->row.array_member = 0;
			/* Its id was indented. */
			jt_wstale(jt, jt->tasks[i], ~0U);
		}
	}
	jt->members = 0;
	if (jt->ntask < 2)
		return;
	items = xcalloc(jt->ntask + 1, sizeof *items);
	jt->stats.visits += jt->ntask;
	for (i = 0; i < jt->ntask; i++) {
		e = jt->tasks[i];
		if (e->where != JW_SHOWN ||
		    !jobtable_array_split(e->row.id, items[n].base,
		    sizeof items[n].base, &items[n].task))
			continue;
		items[n].e = e;
		items[n].group = -1;
		n++;
	}
	if (n < 2) {
		free(items);
		return;
	}
	qsort(items, n, sizeof *items, gitem_cmp);
	gfirst = xcalloc(n + 1, sizeof *gfirst);
	gcount = xcalloc(n + 1, sizeof *gcount);
	jt->groups = xcalloc(n + 1, sizeof *jt->groups);
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && strcmp(items[i + run].base,
		    items[i].base) == 0 && strcmp(items[i + run].e->row.cluster,
		    items[i].e->row.cluster) == 0; run++)
			/* nothing */;
		if (run < 2)
			continue;
		gfirst[jt->ngroups] = i;
		gcount[jt->ngroups] = run;
		for (k = 0; k < run; k++)
			items[i + k].group = (long)jt->ngroups;
		jt->groups[jt->ngroups] = group_new(jt, &items[i], run);
		jt->ngroups++;
	}
	if (jt->ngroups == 0) {
		free(gfirst);
		free(gcount);
		free(items);
		return;
	}
	/* The grouped tasks' places in vis (sorted's copy), in that order. */
	pos = xcalloc(n + 1, sizeof *pos);
	gof = xcalloc(n + 1, sizeof *gof);
	for (i = 0, k = 0; i < n; i++) {
		if (items[i].group < 0)
			continue;
		items[i].pos = jt_sorted_pos(jt, items[i].e);
		pos[k++] = items[i].pos;
	}
	qsort(pos, k, sizeof *pos, size_cmp);
	for (i = 0; i < n; i++) {
		if (items[i].group < 0)
			continue;
		gof[(size_t *)bsearch(&items[i].pos, pos, k, sizeof *pos,
		    size_cmp) - pos] = items[i].group;
	}
	out = xcalloc(jt->nvis + jt->ngroups + 1, sizeof *out);
	done = xcalloc(jt->ngroups + 1, 1);
	for (i = 0, at = 0; i < k; i++) {
		memcpy(out + nout, jt->vis + at, (pos[i] - at) * sizeof *out);
		nout += pos[i] - at;
		at = pos[i] + 1;
		g = gof[i];
		if (done[g])
			continue;
		done[g] = 1;
		out[nout++] = jt->groups[g];
		if (!jt->groups[g]->row.array_open)
			continue;
		for (run = 0; run < gcount[g]; run++) {
			e = items[gfirst[g] + run].e;
			e->row.array_member = 1;
			jt_wstale(jt, e, ~0U);
			out[nout++] = e;
			jt->members = 1;
		}
	}
	memcpy(out + nout, jt->vis + at, (jt->nvis - at) * sizeof *out);
	nout += jt->nvis - at;
	if (jt->vis_own)
		free(jt->vis);
	jt->vis = out;
	jt->vis_own = 1;
	jt->nvis = nout;
	free(done);
	free(gfirst);
	free(gcount);
	free(gof);
	free(pos);
	free(items);
}

int
jobtable_array_open(struct jobtable *jt, int open)
{
	const struct jobtable_row	*r;
	const char			*task;
	char				 base[32], *key;
	int				 was;

	jt_fresh(jt);
	if (jt->cursor >= jt->nvis)
		return -1;
	r = &jt->vis[jt->cursor]->row;
	if (r->array_tasks > 0)
		snprintf(base, sizeof base, "%s", r->id);
	else if (!r->array_member ||
	    !jobtable_array_split(r->id, base, sizeof base, &task))
		return -1;
	key = xasprintf("%s\t%s", r->cluster, base);
	was = strv_has(&jt->open, key);
	if (open < 0)
		open = !was;
	if (open && !was)
		strv_add(&jt->open, key);
	else if (!open && was)
		jt_strv_del(&jt->open, key);
	/* Closing from a task: the cursor goes to its group row. */
	if (!open) {
		free(jt->cur_id);
		jt->cur_id = xstrdup(base);
	}
	free(key);
	/* The order stays: only the groups are folded again. */
	jt->dirty = 1;
	jt_fresh(jt);
	return 0;
}
