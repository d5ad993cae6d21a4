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
#include "util.h"


struct entry {
	struct jobtable_row	 row;
	struct entry		*hnext;		/* hash chain */
	size_t			 slot;		/* index in jt->all */
	unsigned		 seen;		/* merge generation */
	int			 marked;
	enum jobtable_class	 class;		/* of row.state, cached */
};

struct cinfo {
	char	*name;
	time_t	 polled;
};

struct jobtable {
	struct entry	**all;		/* every row, in no particular order */
	size_t		  nall;
	size_t		  aall;
	struct entry	**buckets;	/* by (cluster, id) */
	size_t		  nbuckets;
	struct entry	**vis;		/* filtered and sorted */
	size_t		  nvis;
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
	size_t		  nmarked;
	struct jobtable_stats stats;
};


/* jobtable.c */
void
jt_stale(struct jobtable *jt);
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

/* jobtable-array.c */
void
jt_strv_del(struct strv *v, const char *s);
void
jt_group(struct jobtable *jt);

#endif
