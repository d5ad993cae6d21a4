/*
 * Private to the job table (jobtable*.c): its entries and the helpers one
 * of its files calls in the other.
 */
#ifndef JOBTABLE_INT_H
#define JOBTABLE_INT_H

#include "jobtable.h"
#include "slurm.h"
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "str.h"
#include "util.h"


/* Clusters a table tells apart (struct entry's ci). */
#define JT_CI_BITS	20

/* Where the last rebuild put an entry (each a count of jobtable_hidden). */
enum jt_where {
	JW_NONE,	/* not placed yet */
	JW_SHOWN,	/* in jt->sorted */
	JW_FINISHED,
	JW_VIEW,
	JW_FILTER,
};

/*
 * A row of the table.  Its strings are the table's (jt_atom, jt_keep),
 * never freed one by one: a week of history is 193,000 rows, and six
 * copies of "c01", "gpu" and "CANCELLED" each were most of them (issue
 * 25).  A group row (jt->groups) owns its strings instead.
 */
struct entry {
	struct jobtable_row	 row;
	struct entry		*hnext;		/* hash chain */
	uint32_t		 lslot;		/* index in jt->live, if there */
	unsigned		 seen;		/* merge generation */
	/*
	 * Bits, so that an entry is 112 bytes, not 128 (220,000 of them
	 * with a week of history and 32 clusters' sacct, issue 25).
	 */
	unsigned		 ci : JT_CI_BITS;	/* index in jt->clusters */
	unsigned		 marked : 1;
	unsigned		 class : 3;	/* of row.state, cached */
	unsigned		 touched : 1;	/* in jt->touched */
	unsigned		 where : 3;	/* enum jt_where */
	unsigned		 task : 1;	/* the id is an array task */
	unsigned		 group : 1;	/* a group row (jt->groups) */
	unsigned		 inlive : 1;	/* in jt->live */
	unsigned		 wlisted : 1;	/* in jt->wlist */
	struct jobtable_widths	 widths;	/* the drawer's cache */
};
_Static_assert(JC_OTHER < 8 && JW_FILTER < 8, "entry: 3 bits each");
_Static_assert(sizeof (struct entry) <= 112, "entry: 112 bytes");

struct cinfo {
	char	*name;
	time_t	 polled;
	size_t	 running;	/* live rows by class, while counts_ok */
	size_t	 pending;
	size_t	 live;		/* rows not finished, while counts_ok */
};

/* Blocks of the table's strings: they never move and live as long as it. */
struct jt_block {
	struct jt_block	*next;
	size_t		 used;
	size_t		 size;
	char		 data[];
};

struct jobtable {
	/*
	 * The rows' strings: each value once (an atom) but the job ids,
	 * which are seldom shared and are kept as they come.  Values that
	 * no row holds any more stay until the table is freed: a poll's
	 * states and reasons are a few hundred words over a session.
	 */
	struct jt_block	 *blocks;
	struct strset	  atoms;	/* cluster, partition, state, ... */
	/* Rows are allocated in slabs of JT_SLAB, free ones on a list. */
	struct entry	 *spare;
	void		**slabs;
	size_t		  nslabs;

	size_t		  nall;		/* rows in the slabs */
	/*
	 * The rows not finished, in no order: what a poll's merge and the
	 * clusters' counts walk.  A week of history is 193,000 finished rows
	 * and a few hundred live ones; walking every row (a cache miss each)
	 * for each of 32 clusters' polls held the screen for seconds.
	 */
	struct entry	**live;
	size_t		  nlive;
	size_t		  alive;
	struct entry	**tasks;	/* rows whose id is an array task */
	size_t		  ntask;
	size_t		  atask;
	int		  members;	/* the last grouping set array_member */
	struct entry	**buckets;	/* by (cluster, id) */
	size_t		  nbuckets;
	/*
	 * Filtered and sorted, arrays folded: sorted itself (vis_own 0)
	 * unless some fold, 8 bytes a row less (issue 25).  Only a rebuild
	 * changes sorted, and it sets vis again.
	 */
	struct entry	**vis;
	size_t		  nvis;
	int		  vis_own;
	struct entry	**sorted;	/* filtered and sorted, before folding */
	size_t		  nsorted;
	/*
	 * Rows whose place may have changed since the last rebuild: the next
	 * one takes them out of sorted and puts them back where they sort
	 * now (a binary search each), unless full says every row must be
	 * filtered and sorted again (a new filter, sort or view).
	 */
	struct entry	**touched;
	size_t		  ntouched;
	size_t		  atouched;
	/*
	 * Rows taken out of the table while in sorted (a pending range whose
	 * tasks came): the next rebuild drops these pointers from sorted,
	 * never read through them (the entry may be reused by then).
	 */
	struct entry	**gone;
	size_t		  ngone;
	size_t		  agone;
	size_t		  asorted;	/* sorted's room */
	/*
	 * Rows whose cell widths were cleared since the drawer last measured
	 * (jobtable_widths_changed): a frame after a poll measures those, not
	 * the widths of every row shown; wall says every row must be.
	 */
	struct entry	**wlist;
	size_t		  nwlist;
	size_t		  awlist;
	int		  wall;
	int		  full;
	int		  counts_ok;	/* cinfo's running and pending */
	size_t		  hid_finished;	/* left out by the finished toggle */
	size_t		  hid_filter;	/* left out by the filter */
	size_t		  hid_view;	/* left out by the view */
	jobtable_view_fn  view;
	void		 *view_arg;
	int		  view_finished; /* the view ignores the toggle */
	size_t		  nshown;	/* rows shown, before arrays fold */
	struct entry	**groups;	/* array group rows of this rebuild */
	size_t		  ngroups;
	struct strv	  open;		/* open arrays, "cluster\tbase" */
	struct strv	  gmarks;	/* marked arrays, "cluster\tbase" */

	struct cinfo	 *clusters;
	size_t		  nclusters;
	unsigned	  gen;

	char		 *filter;	/* as typed */
	int		  regex;	/* filter is "/re" */
	regex_t		  re;

	enum jobtable_col sort;
	int		  reverse;
	int		  show_finished;

	size_t		  cursor;
	char		 *want_cluster;	/* select this row when it comes */
	char		 *want_id;
	char		 *cur_cluster;	/* key of the cursor row */
	char		 *cur_id;
	size_t		  top;

	/*
	 * Changes only mark the visible rows stale; they are filtered and
	 * sorted again once, when next read.  Loading 10 000 records one
	 * upsert at a time is then linear, not 10 000 sorts.
	 */
	int		  dirty;
	unsigned	  version;	/* bumped by every rebuild */
	unsigned	  changes;	/* bumped by every change */
	size_t		  nmarked;
	struct jobtable_stats stats;
};


/* jobtable.c */
char *
jt_atom(struct jobtable *jt, const char *s);
void
jt_stale(struct jobtable *jt);
void
jt_touch(struct jobtable *jt, struct entry *e);
void
jt_wstale(struct jobtable *jt, struct entry *e, unsigned cols);
struct jobtable *
jt_fresh(const struct jobtable *cjt);
char *
jt_dup0(const char *s);
const char *
jt_str0(const char *s);
void
jt_groups_free(struct jobtable *jt);
int
jt_id_cmp(const char *a, const char *b);
size_t
jt_sorted_pos(struct jobtable *jt, struct entry *e);

/* jobtable-array.c */
void
jt_strv_del(struct strv *v, const char *s);
void
jt_group(struct jobtable *jt);

#endif
