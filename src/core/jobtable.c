#include "jobtable.h"
#include "jobid.h"
#include "slurm.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "str.h"
#include "util.h"
#include "jobtable-int.h"

static void	rebuild(struct jobtable *);

static const char *col_titles[JT_NCOLS] = {
	"CLUSTER", "JOBID", "NAME", "PARTITION", "STATE", "TIME/LIMIT",
	"NODES", "REASON"
};

/*
 * Something changed that may move any row (a filter, a sort, a view): every
 * row is filtered and sorted again when next read.
 */
void
jt_stale(struct jobtable *jt)
{
	jt->changes++;
	jt->dirty = 1;
	jt->full = 1;
	jt->counts_ok = 0;
}

/*
 * One row changed what the filter or the sort reads: only it is placed
 * again when next read (a poll that changed 3 rows of 190,000 sorts 3).
 */
void
jt_touch(struct jobtable *jt, struct entry *e)
{
	jt->changes++;
	jt->dirty = 1;
	jt->counts_ok = 0;
	jt_wstale(jt, e, ~0U);
	if (e->touched || jt->full)
		return;
	if (jt->ntouched == jt->atouched) {
		jt->atouched = jt->atouched ? jt->atouched * 2 : 64;
		jt->touched = xrealloc(jt->touched,
		    jt->atouched * sizeof *jt->touched);
	}
	jt->touched[jt->ntouched++] = e;
	e->touched = 1;
}

/* Cells of e to measure again (bits of columns), listed for the drawer. */
void
jt_wstale(struct jobtable *jt, struct entry *e, unsigned cols)
{
	e->widths.ok &= ~cols;
	if (e->wlisted || e->group || jt->wall)
		return;
	if (jt->nwlist == jt->awlist) {
		jt->awlist = jt->awlist ? jt->awlist * 2 : 64;
		jt->wlist = xrealloc(jt->wlist, jt->awlist * sizeof *jt->wlist);
	}
	jt->wlist[jt->nwlist++] = e;
	e->wlisted = 1;
}

/* Every row shown is to be measured: the list is not kept. */
static void
wall_set(struct jobtable *jt)
{
	size_t	i;

	for (i = 0; i < jt->nwlist; i++)
		jt->wlist[i]->wlisted = 0;
	jt->nwlist = 0;
	jt->wall = 1;
	/* A load of every row listed them all: not kept for a poll's few. */
	if (jt->awlist > 4096) {
		free(jt->wlist);
		jt->wlist = NULL;
		jt->awlist = 0;
	}
}

/*
 * The visible rows, up to date.  The table is a cache behind a const
 * pointer too: reading it may rebuild it.
 */
struct jobtable *
jt_fresh(const struct jobtable *cjt)
{
	struct jobtable	*jt = (struct jobtable *)cjt;

	if (jt->dirty)
		rebuild(jt);
	return jt;
}

#define JT_SLAB		1024	/* rows a slab holds */

/*
 * Every row of the table, a slab at a time; a free entry is zero (no
 * cluster).  No array of them: 8 bytes a row (issue 25).  Removing e
 * in the body is safe.
 */
#define JT_EACH(jt, e, s, k)						\
	for ((s) = 0; (s) < (jt)->nslabs; (s)++)			\
		for ((k) = 0; (k) < JT_SLAB; (k)++)			\
			if (((e) = (struct entry *)(jt)->slabs[s] + (k))	\
			    ->row.cluster == NULL)				\
				continue;					\
			else
#define JT_BLOCK	65536	/* bytes a block of strings holds */

/* A copy of s in the table's blocks. */
static char *
jt_keep(struct jobtable *jt, const char *s)
{
	struct jt_block	*b = jt->blocks;
	size_t		 len = strlen(s), size;
	char		*p;

	if (b == NULL || b->size - b->used < len + 1) {
		size = len + 1 > JT_BLOCK - sizeof *b ? len + 1 :
		    JT_BLOCK - sizeof *b;
		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = jt->blocks;
		jt->blocks = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len + 1);
	b->used += len + 1;
	return p;
}

static const char *
jt_keep_cb(void *arg, const char *s)
{
	return jt_keep(arg, s);
}

/* The table's one copy of s ("" for NULL). */
char *
jt_atom(struct jobtable *jt, const char *s)
{
	return (char *)strset_intern(&jt->atoms, s == NULL ? "" : s,
	    jt_keep_cb, jt);
}

char *
jt_dup0(const char *s)
{
	return xstrdup(s != NULL ? s : "");
}

const char *
jt_str0(const char *s)
{
	return s != NULL ? s : "";
}

void
jobtable_row_clear(struct jobtable_row *r)
{
	free(r->cluster);
	free(r->id);
	free(r->name);
	free(r->partition);
	free(r->state);
	free(r->reason);
	free(r->user);
	memset(r, 0, sizeof *r);
}

void
jobtable_key_clear(struct jobtable_key *k)
{
	free(k->cluster);
	free(k->id);
	free(k->name);
	memset(k, 0, sizeof *k);
}

/* State names as squeue -o %T and sacct print them. */
static const struct {
	const char		*name;
	enum jobtable_class	 class;
	int			 final;
} states[] = {
	{ "RUNNING", JC_RUNNING, 0 },
	{ "COMPLETING", JC_RUNNING, 0 },
	{ "CONFIGURING", JC_RUNNING, 0 },
	{ "SUSPENDED", JC_RUNNING, 0 },
	{ "STOPPED", JC_RUNNING, 0 },
	{ "SIGNALING", JC_RUNNING, 0 },
	{ "STAGE_OUT", JC_RUNNING, 0 },
	{ "RESIZING", JC_RUNNING, 0 },
	{ "PENDING", JC_PENDING, 0 },
	{ "REQUEUED", JC_PENDING, 0 },
	{ "REQUEUE_FED", JC_PENDING, 0 },
	{ "REQUEUE_HOLD", JC_PENDING, 0 },
	{ "RESV_DEL_HOLD", JC_PENDING, 0 },
	{ "SPECIAL_EXIT", JC_PENDING, 0 },
	{ "COMPLETED", JC_DONE, 1 },
	{ "FAILED", JC_FAILED, 1 },
	{ "TIMEOUT", JC_FAILED, 1 },
	{ "NODE_FAIL", JC_FAILED, 1 },
	{ "BOOT_FAIL", JC_FAILED, 1 },
	{ "OUT_OF_MEMORY", JC_FAILED, 1 },
	{ "DEADLINE", JC_FAILED, 1 },
	{ "CANCELLED", JC_CANCELLED, 1 },
	{ "PREEMPTED", JC_CANCELLED, 1 },
	{ "REVOKED", JC_CANCELLED, 1 },
	{ "ENDED", JC_OTHER, 1 },
};

/* Index into states[] by the first word, '+' dropped ("CANCELLED by 1"). */
static int
state_find(const char *state)
{
	size_t	i, n;

	if (state == NULL)
		return -1;
	n = strcspn(state, " +");
	for (i = 0; i < sizeof states / sizeof states[0]; i++) {
		if (strlen(states[i].name) == n &&
		    strncasecmp(states[i].name, state, n) == 0)
			return (int)i;
	}
	return -1;
}

enum jobtable_class
jobtable_state_class(const char *state)
{
	int	i = state_find(state);

	return i < 0 ? JC_OTHER : states[i].class;
}

int
jobtable_state_final(const char *state)
{
	int	i = state_find(state);

	return i < 0 ? 0 : states[i].final;
}

struct jobtable *
jobtable_create(void)
{
	struct jobtable	*jt = xcalloc(1, sizeof *jt);

	jt->nbuckets = 64;
	jt->buckets = xcalloc(jt->nbuckets, sizeof *jt->buckets);
	jt->sort = JT_ID;
	jt->show_finished = 1;
	jt->full = 1;
	jt->wall = 1;
	return jt;
}

/* A zeroed row from the slabs. */
static struct entry *
entry_new(struct jobtable *jt)
{
	struct entry	*e, *slab;
	size_t		 i;

	if (jt->spare == NULL) {
		slab = xcalloc(JT_SLAB, sizeof *slab);
		jt->slabs = xrealloc(jt->slabs,
		    (jt->nslabs + 1) * sizeof *jt->slabs);
		jt->slabs[jt->nslabs++] = slab;
		for (i = JT_SLAB; i > 0; i--) {
			slab[i - 1].hnext = jt->spare;
			jt->spare = &slab[i - 1];
		}
	}
	e = jt->spare;
	jt->spare = e->hnext;
	memset(e, 0, sizeof *e);
	return e;
}

/* Back to the slabs: its strings are the table's. */
static void
entry_free(struct jobtable *jt, struct entry *e)
{
	memset(e, 0, sizeof *e);
	e->hnext = jt->spare;
	jt->spare = e;
}

/* Keep jt->live the rows not finished, and their clusters' counts stale. */
static void
live_sync(struct jobtable *jt, struct entry *e)
{
	if (!e->row.finished && !e->inlive) {
		if (jt->nlive == jt->alive) {
			jt->alive = jt->alive ? jt->alive * 2 : 64;
			jt->live = xrealloc(jt->live,
			    jt->alive * sizeof *jt->live);
		}
		e->lslot = (uint32_t)jt->nlive;
		jt->live[jt->nlive++] = e;
		e->inlive = 1;
	} else if (e->row.finished && e->inlive) {
		jt->live[e->lslot] = jt->live[--jt->nlive];
		jt->live[e->lslot]->lslot = e->lslot;
		e->inlive = 0;
	} else
		return;
	jt->counts_ok = 0;
}

void
jt_groups_free(struct jobtable *jt)
{
	size_t	i;

	for (i = 0; i < jt->ngroups; i++) {
		jobtable_row_clear(&jt->groups[i]->row);
		free(jt->groups[i]);
	}
	free(jt->groups);
	jt->groups = NULL;
	jt->ngroups = 0;
}

void
jobtable_free(struct jobtable *jt)
{
	struct jt_block	*b;
	size_t		 i;

	if (jt == NULL)
		return;
	free(jt->want_cluster);
	free(jt->want_id);
	for (i = 0; i < jt->nslabs; i++)
		free(jt->slabs[i]);
	free(jt->slabs);
	while ((b = jt->blocks) != NULL) {
		jt->blocks = b->next;
		free(b);
	}
	strset_free(&jt->atoms);
	for (i = 0; i < jt->nclusters; i++)
		free(jt->clusters[i].name);
	free(jt->clusters);
	free(jt->live);
	free(jt->buckets);
	if (jt->vis_own)
		free(jt->vis);
	free(jt->sorted);
	free(jt->touched);
	free(jt->gone);
	free(jt->tasks);
	free(jt->wlist);
	jt_groups_free(jt);
	strv_free(&jt->open);
	strv_free(&jt->gmarks);
	if (jt->regex)
		regfree(&jt->re);
	free(jt->filter);
	free(jt->cur_cluster);
	free(jt->cur_id);
	free(jt);
}

/* FNV-1a over "cluster\0id". */
static size_t
key_hash(const char *cluster, const char *id)
{
	uint64_t		 h = 1469598103934665603ULL;
	const unsigned char	*p;

	for (p = (const unsigned char *)cluster; *p != '\0'; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h = (h ^ 0) * 1099511628211ULL;
	for (p = (const unsigned char *)id; *p != '\0'; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (size_t)h;
}

static struct entry *
lookup(const struct jobtable *jt, const char *cluster, const char *id)
{
	struct entry	*e;

	e = jt->buckets[key_hash(cluster, id) % jt->nbuckets];
	for (; e != NULL; e = e->hnext) {
		if (strcmp(e->row.cluster, cluster) == 0 &&
		    strcmp(e->row.id, id) == 0)
			return e;
	}
	return NULL;
}

static void
hash_insert(struct jobtable *jt, struct entry *e)
{
	size_t	b = key_hash(e->row.cluster, e->row.id) % jt->nbuckets;

	e->hnext = jt->buckets[b];
	jt->buckets[b] = e;
}

static void
hash_remove(struct jobtable *jt, struct entry *e)
{
	struct entry	**pp;

	pp = &jt->buckets[key_hash(e->row.cluster, e->row.id) % jt->nbuckets];
	for (; *pp != NULL; pp = &(*pp)->hnext) {
		if (*pp == e) {
			*pp = e->hnext;
			return;
		}
	}
}

static void
hash_grow(struct jobtable *jt)
{
	struct entry	*e;
	size_t		 s, k;

	/* Twice, not four times: 220,000 rows held 2 MB of buckets. */
	if (jt->nall < jt->nbuckets * 2)
		return;
	free(jt->buckets);
	jt->nbuckets *= 2;
	jt->buckets = xcalloc(jt->nbuckets, sizeof *jt->buckets);
	JT_EACH(jt, e, s, k)
		hash_insert(jt, e);
}

/* *dst becomes the table's copy of src ("" for NULL), unless it is that. */
static int
set_str(struct jobtable *jt, char **dst, const char *src)
{
	if (src == NULL)
		src = "";
	if (*dst != NULL && strcmp(*dst, src) == 0)
		return 0;
	*dst = jt_atom(jt, src);
	return 1;
}

/* What entry_set changed: nothing, values only, or what orders rows. */
#define SET_VALUES	0x1	/* elapsed, limit, nodes */
#define SET_KEYS	0x2	/* what the filter or the sort may read */

/* Copy src's fields into e's row; the cluster and id (the key) stay. */
static int
entry_set(struct jobtable *jt, struct entry *e, const struct jobtable_row *src)
{
	int	ch = 0, fin;

	/* A poll repeats most rows as they were: no copy then. */
	if (set_str(jt, &e->row.name, src->name) |
	    set_str(jt, &e->row.partition, src->partition) |
	    set_str(jt, &e->row.state, src->state) |
	    set_str(jt, &e->row.reason, src->reason))
		ch |= SET_KEYS;
	if (e->row.elapsed != src->elapsed || e->row.limit != src->limit ||
	    e->row.nodes != src->nodes)
		ch |= SET_VALUES;
	e->row.elapsed = src->elapsed;
	e->row.limit = src->limit;
	e->row.nodes = src->nodes;
	fin = src->finished || jobtable_state_final(src->state);
	if (fin != e->row.finished)
		ch |= SET_KEYS;
	e->row.finished = fin;
	live_sync(jt, e);
	if (ch & SET_KEYS)
		e->class = jobtable_state_class(e->row.state);
	if (ch & SET_KEYS)
		jt_wstale(jt, e, ~0U);
	else if (ch & SET_VALUES)
		jt_wstale(jt, e, 1U << JT_TIME | 1U << JT_NODES);
	return ch;
}

static struct cinfo *cluster_info(struct jobtable *, const char *, int);
static void	counts_fresh(struct jobtable *);
static void	unplace(struct jobtable *, struct entry *);

static struct entry *
entry_add(struct jobtable *jt, const char *cluster, const struct jobtable_row *src)
{
	struct entry	*e = entry_new(jt);
	char		 base[32];
	const char	*task;

	e->row.cluster = jt_atom(jt, cluster);
	e->row.id = jt_keep(jt, jt_str0(src->id));
	e->ci = (unsigned)(cluster_info(jt, e->row.cluster, 1) - jt->clusters);
	/* The id never changes: whether it is an array task neither. */
	e->task = jobtable_array_split(e->row.id, base, sizeof base, &task);
	if (e->task) {
		if (jt->ntask == jt->atask) {
			jt->atask = jt->atask ? jt->atask * 2 : 16;
			jt->tasks = xrealloc(jt->tasks,
			    jt->atask * sizeof *jt->tasks);
		}
		jt->tasks[jt->ntask++] = e;
	}
	if (src->user != NULL && *src->user != '\0')
		e->row.user = jt_atom(jt, src->user);
	(void)entry_set(jt, e, src);
	e->class = jobtable_state_class(e->row.state);
	jt->nall++;
	hash_insert(jt, e);
	hash_grow(jt);
	jt_touch(jt, e);
	return e;
}

/* sorted and touched may hold the entry: every row is placed again. */
static void
entry_remove(struct jobtable *jt, struct entry *e)
{
	size_t	i;

	if (e->touched) {
		for (i = 0; i < jt->ntouched; i++) {
			if (jt->touched[i] == e) {
				jt->touched[i] = jt->touched[--jt->ntouched];
				break;
			}
		}
	}
	/*
	 * Not a full re-sort (193,000 rows for a range that started): its
	 * pointer leaves sorted at the next rebuild.
	 */
	if (!jt->full && e->where == JW_SHOWN) {
		if (jt->ngone == jt->agone) {
			jt->agone = jt->agone ? jt->agone * 2 : 16;
			jt->gone = xrealloc(jt->gone,
			    jt->agone * sizeof *jt->gone);
		}
		jt->gone[jt->ngone++] = e;
	}
	unplace(jt, e);
	jt->changes++;
	jt->dirty = 1;
	jt->counts_ok = 0;
	if (e->marked)
		jt->nmarked--;
	for (i = 0; e->wlisted && i < jt->nwlist; i++) {
		if (jt->wlist[i] == e) {
			jt->wlist[i] = jt->wlist[--jt->nwlist];
			break;
		}
	}
	/* Rare (a range that started, forget): a search is enough. */
	for (i = 0; e->task && i < jt->ntask; i++) {
		if (jt->tasks[i] == e) {
			jt->tasks[i] = jt->tasks[--jt->ntask];
			break;
		}
	}
	e->row.finished = 1;	/* out of jt->live */
	live_sync(jt, e);
	hash_remove(jt, e);
	jt->nall--;
	entry_free(jt, e);
}

static struct cinfo *
cluster_info(struct jobtable *jt, const char *name, int create)
{
	size_t	i;

	for (i = 0; i < jt->nclusters; i++) {
		if (strcmp(jt->clusters[i].name, name) == 0)
			return &jt->clusters[i];
	}
	if (!create)
		return NULL;
	if (jt->nclusters == (size_t)1 << JT_CI_BITS) {
		fprintf(stderr, "sqdeck: more than %zu clusters\n", jt->nclusters);
		abort();
	}
	jt->clusters = xrealloc(jt->clusters,
	    (jt->nclusters + 1) * sizeof *jt->clusters);
	memset(&jt->clusters[jt->nclusters], 0, sizeof *jt->clusters);
	jt->clusters[jt->nclusters].name = xstrdup(name);
	return &jt->clusters[jt->nclusters++];
}

const struct jobtable_row *
jobtable_find(const struct jobtable *jt, const char *cluster, const char *id)
{
	struct entry	*e;

	if (cluster == NULL || id == NULL || jt->nbuckets == 0)
		return NULL;
	e = lookup(jt, cluster, id);
	return e != NULL ? &e->row : NULL;
}

void
jobtable_merge(struct jobtable *jt, const char *cluster,
    const struct jobtable_row *rows, size_t n, time_t polled)
{
	struct entry	*e;
	struct jobid	 jid;
	size_t		 i;
	unsigned	 ci;
	size_t		 live = 0;
	int		 ch, values = 0;
	int		 by_value = jt->sort == JT_TIME || jt->sort == JT_NODES;

	jt->gen++;
	ci = (unsigned)(cluster_info(jt, cluster, 1) - jt->clusters);
	/*
	 * A poll that repeats the rows as they were costs no filter and no
	 * sort (32 clusters with a week of history each re-sorted 190,000
	 * rows several times a second); a row that changed is placed again
	 * alone; one that only moved run times moves only when the rows are
	 * ordered by them, else the drawer just sees a new version.
	 */
	for (i = 0; i < n; i++) {
		if (rows[i].id == NULL || *rows[i].id == '\0')
			continue;
		e = lookup(jt, cluster, rows[i].id);
		if (e == NULL)
			e = entry_add(jt, cluster, &rows[i]);
		else if ((ch = entry_set(jt, e, &rows[i])) & SET_KEYS ||
		    ((ch & SET_VALUES) && by_value))
			jt_touch(jt, e);
		else if (ch & SET_VALUES)
			values = 1;
		if (e->seen != jt->gen && !e->row.finished)
			live++;
		e->seen = jt->gen;
	}
	/*
	 * Live rows that left the queue: keep them, finished.  None when the
	 * snapshot has every live row of the cluster (an idle poll): no walk
	 * over the other clusters' rows then.
	 */
	counts_fresh(jt);
	/* Backwards: a row taken out of jt->live refills its slot. */
	for (i = jt->nlive; jt->clusters[ci].live != live && i > 0; i--) {
		e = jt->live[i - 1];
		jt->stats.visits++;
		if (e->seen == jt->gen || e->ci != ci)
			continue;
		/* A pending range ("12_[4-9]"): its tasks have rows now. */
		if (jobid_parse(e->row.id, &jid) == JOBID_RANGE) {
			entry_remove(jt, e);
			continue;
		}
		e->row.finished = 1;
		live_sync(jt, e);
		if (!jobtable_state_final(e->row.state)) {
			e->row.state = jt_atom(jt, "ENDED");
			e->class = JC_OTHER;
		}
		jt_touch(jt, e);
	}
	jt->clusters[ci].polled = polled;
	if (values) {
		jt->version++;
		jt->changes++;
	}
}

void
jobtable_upsert(struct jobtable *jt, const struct jobtable_row *r)
{
	struct entry	*e;

	if (r->cluster == NULL || r->id == NULL || *r->id == '\0')
		return;
	e = lookup(jt, r->cluster, r->id);
	if (e == NULL)
		entry_add(jt, r->cluster, r);
	else if (entry_set(jt, e, r) != 0)
		jt_touch(jt, e);
}

int
jobtable_set_state(struct jobtable *jt, const char *cluster, const char *id,
    const char *state)
{
	struct entry	*e = lookup(jt, cluster, id);

	if (e == NULL)
		return -1;
	e->row.state = jt_atom(jt, state);
	e->class = jobtable_state_class(e->row.state);
	if (jobtable_state_final(state))
		e->row.finished = 1;
	live_sync(jt, e);
	jt_touch(jt, e);
	return 0;
}

void
jobtable_forget(struct jobtable *jt, const char *cluster)
{
	struct entry	*e;
	size_t		 s, k;

	JT_EACH(jt, e, s, k) {
		if (strcmp(e->row.cluster, cluster) == 0)
			entry_remove(jt, e);
	}
	jt_stale(jt);
}

time_t
jobtable_cluster_polled(const struct jobtable *jt, const char *cluster)
{
	size_t	i;

	for (i = 0; i < jt->nclusters; i++) {
		if (strcmp(jt->clusters[i].name, cluster) == 0)
			return jt->clusters[i].polled;
	}
	return 0;
}

/*
 * Counted for every cluster in one walk, again only after a change: the
 * clusters pane asks for each of 36 clusters on every frame.
 */
static void
counts_fresh(struct jobtable *jt)
{
	struct cinfo	*c;
	size_t		 i;

	if (jt->counts_ok)
		return;
	for (i = 0; i < jt->nclusters; i++) {
		c = &jt->clusters[i];
		c->running = c->pending = c->live = 0;
	}
	jt->stats.visits += jt->nlive;
	for (i = 0; i < jt->nlive; i++) {
		c = &jt->clusters[jt->live[i]->ci];
		c->live++;
		if (jt->live[i]->class == JC_RUNNING)
			c->running++;
		else if (jt->live[i]->class == JC_PENDING)
			c->pending++;
	}
	jt->counts_ok = 1;
}

void
jobtable_count(const struct jobtable *cjt, const char *cluster,
    size_t *running, size_t *pending)
{
	struct jobtable	*jt = (struct jobtable *)cjt;
	struct cinfo	*c;
	size_t		 i;

	counts_fresh(jt);
	*running = *pending = 0;
	for (i = 0; i < jt->nclusters; i++) {
		c = &jt->clusters[i];
		if (cluster != NULL && strcmp(c->name, cluster) != 0)
			continue;
		*running += c->running;
		*pending += c->pending;
	}
}

size_t
jobtable_total(const struct jobtable *jt)
{
	return jt->nall;
}

void
jobtable_hidden(const struct jobtable *cjt, size_t *finished,
    size_t *filtered, size_t *folded)
{
	struct jobtable	*jt = jt_fresh(cjt);

	*finished = jt->hid_finished;
	*filtered = jt->hid_filter;
	*folded = jt->nshown > jt->nvis ? jt->nshown - jt->nvis : 0;
}

int
jobtable_set_filter(struct jobtable *jt, const char *text, char **cause)
{
	regex_t	re;
	char	err[256];
	int	rc;

	if (text != NULL && *text == '/') {
		rc = regcomp(&re, text + 1, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (rc != 0) {
			regerror(rc, &re, err, sizeof err);
			return cause_set(cause, "bad regex '%s': %s", text + 1,
			    err);
		}
	}
	if (jt->regex)
		regfree(&jt->re);
	jt->regex = 0;
	free(jt->filter);
	jt->filter = NULL;
	if (text != NULL && *text != '\0') {
		jt->filter = xstrdup(text);
		if (*text == '/') {
			jt->re = re;
			jt->regex = 1;
		}
	}
	jt_stale(jt);
	return 0;
}

const char *
jobtable_filter(const struct jobtable *jt)
{
	return jt->filter;
}

void
jobtable_set_sort(struct jobtable *jt, enum jobtable_col col, int reverse)
{
	if ((int)col < 0 || col >= JT_NCOLS)
		col = JT_ID;
	jt->sort = col;
	jt->reverse = reverse;
	jt_stale(jt);
}

enum jobtable_col
jobtable_sort_cycle(struct jobtable *jt)
{
	jobtable_set_sort(jt, (jt->sort + 1) % JT_NCOLS, jt->reverse);
	return jt->sort;
}

enum jobtable_col
jobtable_sort_col(const struct jobtable *jt, int *reverse)
{
	if (reverse != NULL)
		*reverse = jt->reverse;
	return jt->sort;
}

void
jobtable_set_show_finished(struct jobtable *jt, int show)
{
	jt->show_finished = show != 0;
	jt_stale(jt);
}

int
jobtable_show_finished(const struct jobtable *jt)
{
	return jt->show_finished;
}

void
jobtable_set_view(struct jobtable *jt, jobtable_view_fn fn, void *arg,
    int all_finished)
{
	jt->view = fn;
	jt->view_arg = arg;
	jt->view_finished = fn != NULL && all_finished;
	jt_stale(jt);
}

size_t
jobtable_hidden_view(const struct jobtable *cjt)
{
	return jt_fresh(cjt)->hid_view;
}

/* Whether a row passes the view, the filter and the finished toggle. */
static int
row_shown(const struct jobtable *jt, const struct entry *e)
{
	const struct jobtable_row	*r = &e->row;
	struct buf			 b;
	int				 ok;

	if (r->finished && !jt->show_finished && !(jt->view != NULL &&
	    jt->view_finished))
		return 0;
	if (jt->view != NULL && !jt->view(r, jt->view_arg))
		return 0;
	if (jt->filter == NULL)
		return 1;
	buf_init(&b);
	buf_printf(&b, "%s %s %s %s %s %s", r->cluster, r->id, r->name,
	    r->partition, r->state, r->reason);
	if (jt->regex)
		ok = regexec(&jt->re, b.data, 0, NULL, 0) == 0;
	else
		ok = strcasestr(b.data, jt->filter) != NULL;
	buf_free(&b);
	return ok;
}

/* Job ids by number first: "99" < "100", "7_2" < "7_10". */
int
jt_id_cmp(const char *a, const char *b)
{
	unsigned long long	 na, nb;
	char			*ea, *eb;

	for (;;) {
		na = strtoull(a, &ea, 10);
		nb = strtoull(b, &eb, 10);
		if (ea != a && eb != b) {
			if (na != nb)
				return na < nb ? -1 : 1;
			a = ea;
			b = eb;
		}
		if (*a != *b || *a == '\0')
			break;
		a++;
		b++;
	}
	return strcmp(a, b);
}

static int
long_cmp(long a, long b)
{
	return a < b ? -1 : a > b;
}

static int
row_cmp(const void *pa, const void *pb, void *arg)
{
	struct jobtable			*jt = arg;
	const struct entry		*ea = *(struct entry *const *)pa;
	const struct entry		*eb = *(struct entry *const *)pb;
	const struct jobtable_row	*a = &ea->row, *b = &eb->row;
	int				 c = 0;

	jt->stats.compares++;
	switch (jt->sort) {
	case JT_CLUSTER:
		c = strcmp(a->cluster, b->cluster);
		break;
	case JT_ID:
		c = jt_id_cmp(a->id, b->id);
		break;
	case JT_NAME:
		c = strcmp(a->name, b->name);
		break;
	case JT_PARTITION:
		c = strcmp(a->partition, b->partition);
		break;
	case JT_STATE:
		/*
		 * Live jobs first (running, pending), then the finished ones,
		 * each newest first (issue 26.6): what the user just did is
		 * on the first screen, last week's jobs below it.
		 */
		c = (a->finished != 0) - (b->finished != 0);
		if (c == 0 && !a->finished)
			c = (int)ea->class - (int)eb->class;
		if (c == 0 && !a->finished)
			c = strcmp(a->state, b->state);
		if (c == 0)
			c = -jt_id_cmp(a->id, b->id);
		break;
	case JT_TIME:
		c = long_cmp(a->elapsed, b->elapsed);
		break;
	case JT_NODES:
		c = long_cmp(a->nodes, b->nodes);
		break;
	case JT_REASON:
		c = strcmp(a->reason, b->reason);
		break;
	case JT_NCOLS:
		break;
	}
	if (jt->reverse)
		c = -c;
	/* The key breaks ties: the same order on every refresh. */
	if (c == 0)
		c = strcmp(a->cluster, b->cluster);
	if (c == 0)
		c = jt_id_cmp(a->id, b->id);
	return c;
}

static void
set_cursor_key(struct jobtable *jt)
{
	free(jt->cur_cluster);
	free(jt->cur_id);
	jt->cur_cluster = jt->cur_id = NULL;
	if (jt->cursor < jt->nvis) {
		jt->cur_cluster = xstrdup(jt->vis[jt->cursor]->row.cluster);
		jt->cur_id = xstrdup(jt->vis[jt->cursor]->row.id);
	}
}

/* Where a row goes now; counts it in jobtable_hidden if not shown. */
static int
place(struct jobtable *jt, struct entry *e)
{
	if (row_shown(jt, e))
		e->where = JW_SHOWN;
	else if (e->row.finished && !jt->show_finished &&
	    !(jt->view != NULL && jt->view_finished)) {
		e->where = JW_FINISHED;
		jt->hid_finished++;
	} else if (jt->view != NULL && !jt->view(&e->row, jt->view_arg)) {
		e->where = JW_VIEW;
		jt->hid_view++;
	} else {
		e->where = JW_FILTER;
		jt->hid_filter++;
	}
	return e->where == JW_SHOWN;
}

/* Take back what place() counted. */
static void
unplace(struct jobtable *jt, struct entry *e)
{
	switch (e->where) {
	case JW_FINISHED:
		jt->hid_finished--;
		break;
	case JW_VIEW:
		jt->hid_view--;
		break;
	case JW_FILTER:
		jt->hid_filter--;
		break;
	default:
		break;
	}
	e->where = JW_NONE;
}

/* Filter and sort every row. */
static void
sort_all(struct jobtable *jt)
{
	struct entry	*e;
	size_t		 i, s, k;

	jt->stats.rebuilds++;
	for (i = 0; i < jt->ntouched; i++)
		jt->touched[i]->touched = 0;
	jt->ntouched = 0;
	/* A load of every row touched them all: not kept for a poll's few. */
	if (jt->atouched > 4096) {
		free(jt->touched);
		jt->touched = NULL;
		jt->atouched = 0;
	}
	jt->full = 0;
	jt->ngone = 0;
	wall_set(jt);
	jt->asorted = jt->nall + 1;
	jt->sorted = xrealloc(jt->sorted, jt->asorted * sizeof *jt->sorted);
	jt->nsorted = jt->hid_finished = jt->hid_filter = jt->hid_view = 0;
	jt->stats.visits += jt->nall;
	JT_EACH(jt, e, s, k) {
		if (place(jt, e))
			jt->sorted[jt->nsorted++] = e;
	}
	qsort_r(jt->sorted, jt->nsorted, sizeof *jt->sorted, row_cmp, jt);
}

/* A set of row pointers, by address (open addressing, no read through them). */
struct pset {
	struct entry	**v;
	size_t		  mask;
};

static size_t
pset_hash(const struct entry *e, size_t mask)
{
	uint64_t	h = (uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 17) & mask;
}

static void
pset_init(struct pset *ps, size_t n)
{
	size_t	size = 16;

	while (size < 2 * n)
		size *= 2;
	ps->v = xcalloc(size, sizeof *ps->v);
	ps->mask = size - 1;
}

static void
pset_add(struct pset *ps, struct entry *e)
{
	size_t	i = pset_hash(e, ps->mask);

	while (ps->v[i] != NULL && ps->v[i] != e)
		i = (i + 1) & ps->mask;
	ps->v[i] = e;
}

static int
pset_has(const struct pset *ps, const struct entry *e)
{
	size_t	i = pset_hash(e, ps->mask);

	while (ps->v[i] != NULL) {
		if (ps->v[i] == e)
			return 1;
		i = (i + 1) & ps->mask;
	}
	return 0;
}

/*
 * The touched rows only: their old places and the rows gone leave sorted
 * in one pass over its pointers (a set by address: no row is read, which
 * for 193,000 rows was a cache miss each), they are filtered again,
 * sorted among themselves, and each put back where a binary search says
 * (k rows of n cost k log n comparisons and one move of n pointers, in
 * place).
 */
static void
sort_touched(struct jobtable *jt)
{
	struct entry	**ins;
	struct pset	  drop;
	size_t		  i, j, nins = 0, ndrop = 0, lo, hi, mid, *at, end;

	jt->stats.updates++;
	jt->stats.placed += jt->ntouched;
	for (i = 0; i < jt->ntouched; i++)
		ndrop += jt->touched[i]->where == JW_SHOWN;
	if (ndrop + jt->ngone > 0) {
		pset_init(&drop, ndrop + jt->ngone);
		for (i = 0; i < jt->ntouched; i++) {
			if (jt->touched[i]->where == JW_SHOWN)
				pset_add(&drop, jt->touched[i]);
		}
		for (i = 0; i < jt->ngone; i++)
			pset_add(&drop, jt->gone[i]);
		for (i = 0, j = 0; i < jt->nsorted; i++) {
			if (!pset_has(&drop, jt->sorted[i]))
				jt->sorted[j++] = jt->sorted[i];
		}
		jt->nsorted = j;
		free(drop.v);
	}
	jt->ngone = 0;
	ins = xcalloc(jt->ntouched + 1, sizeof *ins);
	for (i = 0; i < jt->ntouched; i++) {
		jt->touched[i]->touched = 0;
		unplace(jt, jt->touched[i]);
		if (place(jt, jt->touched[i]))
			ins[nins++] = jt->touched[i];
	}
	jt->ntouched = 0;
	if (nins == 0) {
		free(ins);
		return;
	}
	qsort_r(ins, nins, sizeof *ins, row_cmp, jt);
	/* Where each goes among the rows that stay (nondecreasing). */
	at = xcalloc(nins, sizeof *at);
	for (i = 0, lo = 0; i < nins; i++) {
		hi = jt->nsorted;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (row_cmp(&jt->sorted[mid], &ins[i], jt) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		at[i] = lo;
	}
	if (jt->nsorted + nins + 1 > jt->asorted) {
		jt->asorted = (jt->nsorted + nins + 1) * 5 / 4;
		jt->sorted = xrealloc(jt->sorted,
		    jt->asorted * sizeof *jt->sorted);
	}
	/* From the back: each run moves once, by the rows that go before. */
	end = jt->nsorted;
	for (i = nins; i > 0; i--) {
		memmove(jt->sorted + at[i - 1] + i, jt->sorted + at[i - 1],
		    (end - at[i - 1]) * sizeof *jt->sorted);
		jt->sorted[at[i - 1] + i - 1] = ins[i - 1];
		end = at[i - 1];
	}
	jt->nsorted += nins;
	free(at);
	free(ins);
}

/* Where a row of sorted is in it: a binary search, no walk. */
size_t
jt_sorted_pos(struct jobtable *jt, struct entry *e)
{
	size_t	lo = 0, hi = jt->nsorted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (row_cmp(&jt->sorted[mid], &e, jt) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Recompute the visible rows and put the cursor back on its key. */
static void
rebuild(struct jobtable *jt)
{
	char		 base[32];
	const char	*task;
	size_t		 i;

	jt->dirty = 0;
	jt->version++;
	/* Placing more than half the rows again costs more than a sort. */
	if (jt->full || jt->ntouched > jt->nsorted / 2)
		sort_all(jt);
	else if (jt->ntouched > 0 || jt->ngone > 0)
		sort_touched(jt);
	/* sorted itself, unless arrays fold: no copy of 193,000 pointers. */
	if (jt->vis_own)
		free(jt->vis);
	jt->vis = jt->sorted;
	jt->vis_own = 0;
	jt->nvis = jt->nshown = jt->nsorted;
	jt_group(jt);

	/* The row selected before a restart, once a snapshot brings it. */
	if (jt->want_cluster != NULL) {
		for (i = 0; i < jt->nvis; i++) {
			if (strcmp(jt->vis[i]->row.id, jt->want_id) == 0 &&
			    strcmp(jt->vis[i]->row.cluster,
			    jt->want_cluster) == 0) {
				free(jt->want_cluster);
				free(jt->want_id);
				jt->want_cluster = jt->want_id = NULL;
				jt->cursor = i;
				set_cursor_key(jt);
				return;
			}
		}
	}

	if (jt->cur_cluster != NULL) {
		/* Most often the cursor's row did not move. */
		if (jt->cursor < jt->nvis &&
		    strcmp(jt->vis[jt->cursor]->row.id, jt->cur_id) == 0 &&
		    strcmp(jt->vis[jt->cursor]->row.cluster,
		    jt->cur_cluster) == 0)
			return;
		for (i = 0; i < jt->nvis; i++) {
			if (strcmp(jt->vis[i]->row.id, jt->cur_id) == 0 &&
			    strcmp(jt->vis[i]->row.cluster,
			    jt->cur_cluster) == 0) {
				jt->cursor = i;
				return;
			}
		}
		/* A task of a closed array: its group row. */
		if (jobtable_array_split(jt->cur_id, base, sizeof base,
		    &task)) {
			for (i = 0; i < jt->nvis; i++) {
				if (jt->vis[i]->row.array_tasks > 0 &&
				    strcmp(jt->vis[i]->row.id, base) == 0 &&
				    strcmp(jt->vis[i]->row.cluster,
				    jt->cur_cluster) == 0) {
					jt->cursor = i;
					set_cursor_key(jt);
					return;
				}
			}
		}
	}
	/* The row is gone (or there was none): stay at the same place. */
	if (jt->cursor >= jt->nvis)
		jt->cursor = jt->nvis > 0 ? jt->nvis - 1 : 0;
	set_cursor_key(jt);
}

size_t
jobtable_nvisible(const struct jobtable *jt)
{
	return jt_fresh(jt)->nvis;
}

const struct jobtable_row *
jobtable_visible(const struct jobtable *cjt, size_t i)
{
	struct jobtable	*jt = jt_fresh(cjt);

	return i < jt->nvis ? &jt->vis[i]->row : NULL;
}

int
jobtable_marked(const struct jobtable *cjt, size_t i)
{
	struct jobtable	*jt = jt_fresh(cjt);

	return i < jt->nvis ? jt->vis[i]->marked : 0;
}

size_t
jobtable_cursor(const struct jobtable *jt)
{
	return jt_fresh(jt)->cursor;
}

const struct jobtable_row *
jobtable_current(const struct jobtable *jt)
{
	return jobtable_visible(jt, jt_fresh(jt)->cursor);
}

unsigned
jobtable_changes(const struct jobtable *jt)
{
	return jt->changes;
}

struct jobtable_widths *
jobtable_widths(const struct jobtable *cjt, size_t i)
{
	struct jobtable	*jt = jt_fresh(cjt);

	return i < jt->nvis ? &jt->vis[i]->widths : NULL;
}

int
jobtable_widths_changed(const struct jobtable *cjt, size_t *n)
{
	struct jobtable	*jt = jt_fresh(cjt);
	size_t		 i, k;

	if (jt->wall) {
		*n = 0;
		return 1;
	}
	/* Rows not shown wait: a row that comes back was touched. */
	for (i = 0, k = 0; i < jt->nwlist; i++) {
		if (jt->wlist[i]->where == JW_SHOWN)
			jt->wlist[k++] = jt->wlist[i];
		else
			jt->wlist[i]->wlisted = 0;
	}
	jt->nwlist = k;
	*n = jt->nwlist + jt->ngroups;
	return 0;
}

struct jobtable_widths *
jobtable_widths_changed_row(const struct jobtable *cjt, size_t i,
    const struct jobtable_row **row)
{
	struct jobtable	*jt = (struct jobtable *)cjt;
	struct entry	*e;

	if (i < jt->nwlist)
		e = jt->wlist[i];
	else if (i - jt->nwlist < jt->ngroups)
		e = jt->groups[i - jt->nwlist];
	else
		return NULL;
	*row = &e->row;
	return &e->widths;
}

void
jobtable_widths_measured(struct jobtable *jt)
{
	size_t	i;

	for (i = 0; i < jt->nwlist; i++)
		jt->wlist[i]->wlisted = 0;
	jt->nwlist = 0;
	jt->wall = 0;
}

unsigned
jobtable_version(const struct jobtable *jt)
{
	return jt_fresh(jt)->version;
}

void
jobtable_get_stats(const struct jobtable *jt, struct jobtable_stats *st)
{
	*st = jt->stats;
}

void
jobtable_move_to(struct jobtable *jt, size_t i)
{
	jt_fresh(jt);
	/* The user moved: a row still awaited is not wanted any more. */
	free(jt->want_cluster);
	free(jt->want_id);
	jt->want_cluster = jt->want_id = NULL;
	if (jt->nvis == 0)
		i = 0;
	else if (i >= jt->nvis)
		i = jt->nvis - 1;
	jt->cursor = i;
	set_cursor_key(jt);
}

void
jobtable_move(struct jobtable *jt, long delta)
{
	jt_fresh(jt);
	if (delta < 0 && (size_t)-delta > jt->cursor)
		jobtable_move_to(jt, 0);
	else if (delta > 0 && (size_t)delta >= jt->nvis - jt->cursor)
		jobtable_move_to(jt, SIZE_MAX);
	else
		jobtable_move_to(jt, jt->cursor + delta);
}

void
jobtable_select_later(struct jobtable *jt, const char *cluster,
    const char *id)
{
	free(jt->want_cluster);
	free(jt->want_id);
	jt->want_cluster = xstrdup(cluster);
	jt->want_id = xstrdup(id);
	jt->dirty = 1;
	jt->changes++;
}

int
jobtable_select(struct jobtable *jt, const char *cluster, const char *id)
{
	size_t	i;

	jt_fresh(jt);
	for (i = 0; i < jt->nvis; i++) {
		if (strcmp(jt->vis[i]->row.cluster, cluster) == 0 &&
		    strcmp(jt->vis[i]->row.id, id) == 0) {
			jobtable_move_to(jt, i);
			return 0;
		}
	}
	return -1;
}

size_t
jobtable_top(struct jobtable *jt, size_t height)
{
	jt_fresh(jt);
	if (height == 0)
		return jt->cursor;
	if (jt->cursor < jt->top)
		jt->top = jt->cursor;
	else if (jt->cursor >= jt->top + height)
		jt->top = jt->cursor - height + 1;
	/* No empty space below the last row when rows could fill it. */
	if (jt->top + height > jt->nvis)
		jt->top = jt->nvis > height ? jt->nvis - height : 0;
	return jt->top;
}

int
jobtable_toggle_mark(struct jobtable *jt)
{
	struct entry	*e;

	jt_fresh(jt);
	if (jt->cursor >= jt->nvis)
		return 0;
	e = jt->vis[jt->cursor];
	e->marked = !e->marked;
	if (e->marked)
		jt->nmarked++;
	else
		jt->nmarked--;
	/* A group row is rebuilt each time: its mark is kept by key. */
	if (e->row.array_tasks > 0) {
		char	*key = xasprintf("%s\t%s", e->row.cluster, e->row.id);

		if (e->marked)
			strv_add(&jt->gmarks, key);
		else
			jt_strv_del(&jt->gmarks, key);
		free(key);
	}
	return e->marked;
}

void
jobtable_clear_marks(struct jobtable *jt)
{
	struct entry	*e;
	size_t		 i, s, k;

	JT_EACH(jt, e, s, k)
		e->marked = 0;
	for (i = 0; i < jt->ngroups; i++)
		jt->groups[i]->marked = 0;
	strv_free(&jt->gmarks);
	jt->nmarked = 0;
}

size_t
jobtable_nmarked(const struct jobtable *jt)
{
	return jt->nmarked;
}

size_t
jobtable_foreach_row(const struct jobtable *cjt, jobtable_row_fn fn,
    void *arg, int *marked)
{
	struct jobtable	*jt = jt_fresh(cjt);
	size_t		 i, n = 0;

	for (i = 0; i < jt->nvis; i++) {
		if (jt->vis[i]->marked) {
			fn(&jt->vis[i]->row, arg);
			n++;
		}
	}
	if (marked != NULL)
		*marked = n > 0;
	if (n == 0 && jt->cursor < jt->nvis) {
		fn(&jt->vis[jt->cursor]->row, arg);
		n = 1;
	}
	return n;
}

/* The keys of the rows visited, grown as they come. */
struct key_list {
	struct jobtable_key	*v;
	size_t			 n;
};

static void
key_add(const struct jobtable_row *r, void *arg)
{
	struct key_list		*l = arg;
	struct jobtable_key	*k;

	l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	k = &l->v[l->n++];
	k->cluster = xstrdup(r->cluster);
	k->id = xstrdup(r->id);
	k->name = xstrdup(r->name);
}

struct jobtable_key *
jobtable_targets(const struct jobtable *jt, size_t *n)
{
	struct key_list	l = { NULL, 0 };

	jobtable_foreach_row(jt, key_add, &l, NULL);
	*n = l.n;
	return l.v;
}

void
jobtable_fmt_duration(long secs, char *buf, size_t len)
{
	slurm_time_format(secs, buf, len);
}

/* Digits of n >= 0 in base 10. */
static int
jt_digits(long n)
{
	int	d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Length of jobtable_fmt_duration's text, formats aside. */
static int
jt_duration_width(long secs)
{
	if (secs < 0)
		return 1;			/* "-" */
	if (secs >= 86400)
		return jt_digits(secs / 86400) + 9;	/* "D-HH:MM:SS" */
	if (secs >= 3600)
		return jt_digits(secs / 3600) + 6;	/* "H:MM:SS" */
	return jt_digits(secs / 60) + 3;		/* "M:SS" */
}

/*
 * A poll moves every running row's elapsed time: measuring its cell by
 * writing it (three snprintf) was most of a frame's CPU after a poll of
 * 10,000 rows (make bench, figure 5).  check_jobtable test_cell_width
 * holds it to the text's width.
 */
int
jobtable_cell_width(const struct jobtable_row *r, enum jobtable_col col)
{
	switch (col) {
	case JT_TIME:
		if (r->limit < 0)
			return jt_duration_width(r->elapsed);
		return jt_duration_width(r->elapsed) + 1 +
		    jt_duration_width(r->limit);
	case JT_NODES:
		return r->nodes <= 0 ? 0 : jt_digits(r->nodes);
	default:
		return -1;
	}
}

const char *
jobtable_cell(const struct jobtable_row *r, enum jobtable_col col, char *buf,
    size_t len)
{
	char	e[32], l[32];

	switch (col) {
	case JT_CLUSTER:
		return jt_str0(r->cluster);
	case JT_ID:
		/* "[+]12" closed, "[-]12" open; its tasks indented. */
		if (r->array_tasks > 0) {
			snprintf(buf, len, "[%c]%s", r->array_open ? '-' : '+',
			    jt_str0(r->id));
			return buf;
		}
		if (r->array_member) {
			snprintf(buf, len, "  %s", jt_str0(r->id));
			return buf;
		}
		return jt_str0(r->id);
	case JT_NAME:
		return jt_str0(r->name);
	case JT_PARTITION:
		return jt_str0(r->partition);
	case JT_STATE:
		return jt_str0(r->state);
	case JT_TIME:
		jobtable_fmt_duration(r->elapsed, e, sizeof e);
		if (r->limit < 0)
			snprintf(buf, len, "%s", e);
		else {
			jobtable_fmt_duration(r->limit, l, sizeof l);
			snprintf(buf, len, "%s/%s", e, l);
		}
		return buf;
	case JT_NODES:
		if (r->nodes <= 0)
			return "";
		snprintf(buf, len, "%d", r->nodes);
		return buf;
	case JT_REASON:
		/*
		 * A pending reason outlives the wait in the last snapshot
		 * (JobHeldUser on a COMPLETED row, issue 26.11): a finished
		 * job has none, but keeps its exit code (history's "exit
		 * 3:0").  An array's group row keeps its counts.
		 */
		if (r->finished && r->array_tasks == 0 && (r->reason == NULL ||
		    strncmp(r->reason, "exit ", 5) != 0))
			return "";
		return jt_str0(r->reason);
	case JT_NCOLS:
		break;
	}
	return "";
}

const char *
jobtable_col_title(enum jobtable_col col)
{
	return (int)col >= 0 && col < JT_NCOLS ? col_titles[col] : "";
}
