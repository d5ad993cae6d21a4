#ifndef JOBTABLE_H
#define JOBTABLE_H

#include <limits.h>
#include <stddef.h>
#include <time.h>

/*
 * The model of the jobs pane: rows from every cluster, keyed by
 * (cluster, job id).  Pure: no I/O, no curses; the UI draws what
 * jobtable_visible() returns and the workers feed jobtable_merge().
 *
 * - A snapshot replaces the rows of its cluster.  A row that was live and
 *   is missing from the newer snapshot has left the queue: it stays,
 *   marked finished (state "ENDED" unless it already had a final state),
 *   until the user hides finished rows with 'a'.
 * - A cluster that stops answering simply sends no snapshot: its rows stay
 *   as they were and jobtable_cluster_polled() tells their age.
 * - Filter: text starting with '/' is a POSIX extended regex (the rest of
 *   the text), anything else is a plain substring.  Both ignore case and
 *   are matched against "cluster id name partition state reason".  A plain
 *   text is never taken as a regex because job names and array ids are
 *   full of '.', '-', '[' and '_'.
 * - Sort: by any column, ties broken by cluster then id, so the order is
 *   the same on every refresh.
 * - The cursor is a key: after a merge, filter or sort it stays on the
 *   same (cluster, id); when that row is gone it stays at the same
 *   position.
 * - Job arrays: the tasks of one array ("12_3", "12_[4-9]") that pass the
 *   filter are grouped under a group row where the first of them sorts,
 *   closed by default; an open group shows its tasks under it in task
 *   order.  A pending range row that a snapshot no longer has is dropped
 *   (its tasks came back as rows of their own), not kept as ENDED.
 */

enum jobtable_col {
	JT_CLUSTER,
	JT_ID,
	JT_NAME,
	JT_PARTITION,
	JT_STATE,
	JT_TIME,	/* elapsed/limit */
	JT_NODES,
	JT_REASON,	/* pending reason, or the node list when running */
	JT_NCOLS
};

/*
 * One job.  Strings are owned by whoever holds the row; the table keeps
 * its own copies.  Times in seconds, -1 when unknown (limit -1 also for
 * UNLIMITED).
 */
struct jobtable_row {
	char	*cluster;
	char	*id;		/* "1234", "1234_7" */
	char	*name;
	char	*partition;
	char	*state;		/* native SLURM state: RUNNING, CANCELLED, ... */
	char	*reason;
	/*
	 * Whose job, when not the cluster's login user (a record submitted
	 * as another SLURM_USER); NULL or "": the login user's (the polls
	 * ask for that user's jobs only).  The table keeps the first given.
	 */
	char	*user;
	/*
	 * Seconds, -1 unknown (limit: none), in an int: 68 years fit, and
	 * 8 bytes less a row of a week of history (issue 25); callers clamp
	 * with jobtable_secs().
	 */
	int	 elapsed;
	int	 limit;
	int	 nodes;		/* 0 unknown */
	/*
	 * Job arrays, set by the table on the rows it shows (zero in rows
	 * given to it): a group row stands for the tasks of one array (its
	 * id is the array's job id, "12"; array_tasks counts the tasks, a
	 * pending range "12_[4-9]" counting each; reason holds the counts
	 * by state); array_member marks a task shown under an open group.
	 */
	int	 array_tasks;
	/*
	 * Flags (0 or 1) in bytes: the table holds a row per job of a week
	 * of history (237,000), 8 bytes less each is 1.9 MB (issue 25).
	 */
	unsigned char finished;	/* a final state (from sacct or a record) */
	unsigned char array_open;
	unsigned char array_member;
};

/*
 * A drawer's cache of a row's cell widths (columns on screen), kept with
 * the row: the table clears a column's bit of ok whenever that cell may
 * change (a poll that moved run times clears TIME and NODES only), so
 * measuring 190,000 rows after a poll measures only the cells it changed.
 * Widths above 255 are kept as 255.
 */
struct jobtable_widths {
	unsigned char	ok;		/* bit (1 << column): w[column] holds */
	unsigned char	w[JT_NCOLS];
};
_Static_assert(JT_NCOLS <= 8, "jobtable_widths.ok: a bit per column");

/* What a dialog pins: a job that a refresh cannot swap under it. */
struct jobtable_key {
	char	*cluster;
	char	*id;
	char	*name;
};

/* Broad classes of SLURM states, for colour and sorting. */
enum jobtable_class {
	JC_RUNNING,	/* RUNNING, COMPLETING, CONFIGURING, SUSPENDED, ... */
	JC_PENDING,	/* PENDING, REQUEUED, ... */
	JC_DONE,	/* COMPLETED */
	JC_FAILED,	/* FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ... */
	JC_CANCELLED,	/* CANCELLED, PREEMPTED, REVOKED */
	JC_OTHER,	/* ENDED (left the queue, final state unknown), unknown */
};

struct jobtable;

struct jobtable	*jobtable_create(void);
void		 jobtable_free(struct jobtable *);

/* Free the strings of a row (not the row itself). */
void		 jobtable_row_clear(struct jobtable_row *);
/* Seconds for a row's elapsed or limit: past INT_MAX (68 years) that. */
static inline int
jobtable_secs(long secs)
{
	return secs > INT_MAX ? INT_MAX : secs < INT_MIN ? INT_MIN : (int)secs;
}
/* Free the strings of a key. */
void		 jobtable_key_clear(struct jobtable_key *);

enum jobtable_class jobtable_state_class(const char *state);
/* Whether a SLURM state is final (the job will not run again). */
int		 jobtable_state_final(const char *state);

/*
 * Replace the rows of cluster by a snapshot (copied; the caller keeps
 * rows).  Rows of the cluster absent from it stay, marked finished.
 */
void		 jobtable_merge(struct jobtable *, const char *cluster,
		     const struct jobtable_row *rows, size_t n, time_t polled);
/* Insert or update one row without touching the others (records). */
void		 jobtable_upsert(struct jobtable *, const struct jobtable_row *);
/* Change a row's state (e.g. after a cancel); 0, or -1 if no such row. */
int		 jobtable_set_state(struct jobtable *, const char *cluster,
		     const char *id, const char *state);
/* Drop every row of a cluster. */
void		 jobtable_forget(struct jobtable *, const char *cluster);

/* The row of (cluster, id), shown or not; NULL if none. */
const struct jobtable_row *jobtable_find(const struct jobtable *,
		     const char *cluster, const char *id);
/*
 * Put the cursor on (cluster, id) as soon as a snapshot brings that row
 * (the row selected before a restart); a move of the cursor cancels it.
 */
void		 jobtable_select_later(struct jobtable *, const char *cluster,
		     const char *id);
/* Time of the last snapshot of cluster, 0 if none. */
time_t		 jobtable_cluster_polled(const struct jobtable *,
		     const char *cluster);
/* Count the live rows of cluster (all clusters if NULL). */
void		 jobtable_count(const struct jobtable *, const char *cluster,
		     size_t *running, size_t *pending);
/* Every row, shown or not. */
size_t		 jobtable_total(const struct jobtable *);
/*
 * Why rows are not shown ("663 of 666"): hidden by the finished toggle,
 * by the filter, and folded into array group rows (tasks less groups).
 */
void		 jobtable_hidden(const struct jobtable *, size_t *finished,
		     size_t *filtered, size_t *folded);

/* NULL or "" clears it.  A bad regex returns -1 and keeps the old one. */
int		 jobtable_set_filter(struct jobtable *, const char *,
		     char **cause);
const char	*jobtable_filter(const struct jobtable *);
void		 jobtable_set_sort(struct jobtable *, enum jobtable_col,
		     int reverse);
/* Next sort column (wraps); returns it. */
enum jobtable_col jobtable_sort_cycle(struct jobtable *);
enum jobtable_col jobtable_sort_col(const struct jobtable *, int *reverse);
void		 jobtable_set_show_finished(struct jobtable *, int);
int		 jobtable_show_finished(const struct jobtable *);

/*
 * A view (the TUI's V: mine, running, failed, ...): rows fn says no to are
 * not shown, counted apart (jobtable_hidden_view).  With all_finished the
 * finished toggle is not applied (a view of failed jobs shows them).
 * fn NULL: every row.
 */
typedef int	(*jobtable_view_fn)(const struct jobtable_row *, void *arg);
void		 jobtable_set_view(struct jobtable *, jobtable_view_fn,
		     void *arg, int all_finished);
size_t		 jobtable_hidden_view(const struct jobtable *);

/* The rows to draw, filtered and sorted. */
size_t		 jobtable_nvisible(const struct jobtable *);
const struct jobtable_row *jobtable_visible(const struct jobtable *, size_t);
int		 jobtable_marked(const struct jobtable *, size_t);

/* The cursor; NULL row when nothing is visible. */
size_t		 jobtable_cursor(const struct jobtable *);
const struct jobtable_row *jobtable_current(const struct jobtable *);
/* Move by delta rows, clamped. */
void		 jobtable_move(struct jobtable *, long delta);
/* Move to an index, clamped (SIZE_MAX: the last row). */
void		 jobtable_move_to(struct jobtable *, size_t);
/* Put the cursor on (cluster, id); -1 if it is not visible. */
int		 jobtable_select(struct jobtable *, const char *cluster,
		     const char *id);
/*
 * First visible row for a window of height rows so that the cursor is on
 * screen, moving the remembered top as little as possible.
 */
size_t		 jobtable_top(struct jobtable *, size_t height);

/* Toggle the mark of the current row (Space); returns the new mark. */
int		 jobtable_toggle_mark(struct jobtable *);
void		 jobtable_clear_marks(struct jobtable *);
/* Number of marked rows (visible or not). */
size_t		 jobtable_nmarked(const struct jobtable *);
/*
 * The one row-walk of every action on rows (cancel, hold, release; as
 * htop's MainPanel_foreachRow): fn is called for each marked row in
 * table order (the visible order) if any visible row is marked, else for
 * the current row, else never (nothing visible).  Marked rows that the
 * filter hides are not acted on.  Returns the number of rows visited;
 * *marked (if not NULL) says whether they were the marked ones.  fn must
 * not change the table.
 */
typedef void	(*jobtable_row_fn)(const struct jobtable_row *, void *arg);
size_t		 jobtable_foreach_row(const struct jobtable *,
		     jobtable_row_fn fn, void *arg, int *marked);
/*
 * The targets of an action as pinned keys: the rows jobtable_foreach_row
 * visits.  Returns an allocated array of keys (free each with
 * jobtable_key_clear, then the array), count in *n; NULL if there is
 * nothing.
 */
struct jobtable_key *jobtable_targets(const struct jobtable *, size_t *n);

/*
 * Bumped whenever the visible rows are rebuilt (any change of rows,
 * filter, sort): what a drawer may cache per version, e.g. column widths.
 */
unsigned	 jobtable_version(const struct jobtable *);
/*
 * Bumped by every change of rows, filter, sort or view, without
 * rebuilding: whether a snapshot changed anything to draw.
 */
unsigned	 jobtable_changes(const struct jobtable *);

/*
 * The width cache of visible row i (see struct jobtable_widths); NULL
 * past the end.
 */
struct jobtable_widths *jobtable_widths(const struct jobtable *, size_t i);
/*
 * The rows whose widths were cleared since jobtable_widths_measured: 1
 * when every visible row is to be measured (a new filter, sort or view,
 * the first frame), else 0 and *n rows to measure, each given by
 * jobtable_widths_changed_row (a poll that changed 3 rows of 190,000
 * lists 3, and the array group rows).  A column may stay wider than its
 * widest cell until the next full measure.
 */
int		 jobtable_widths_changed(const struct jobtable *, size_t *n);
struct jobtable_widths *jobtable_widths_changed_row(const struct jobtable *,
		     size_t i, const struct jobtable_row **row);
void		 jobtable_widths_measured(struct jobtable *);

/* Work done so far, for tests that the table stays linear at scale. */
struct jobtable_stats {
	unsigned long	rebuilds;	/* filter + sort of every row */
	unsigned long	updates;	/* only the changed rows placed again */
	unsigned long	placed;		/* rows so placed, in all */
	unsigned long	compares;	/* row comparisons while sorting */
	/*
	 * Rows read one by one by a walk over the table (a full sort's
	 * filter, the counts, the rows that left the queue, the arrays):
	 * a cache miss each over a week of history, so a poll's merge and
	 * the frame after it must not walk every row.
	 */
	unsigned long	visits;
};
void		 jobtable_get_stats(const struct jobtable *,
		     struct jobtable_stats *);

/* --- job arrays --------------------------------------------------------- */

/*
 * An array task id (JOBID_TASK or JOBID_RANGE of jobid.h): "12_3" or
 * "12_[4-9,11%2]" gives 1, the array's job id ("12") in base and the task
 * part ("3", "[4-9,11%2]") in *task.  0 for any other id (base and *task
 * untouched).  jobid_ntasks() counts the tasks of a task part.
 */
int		 jobtable_array_split(const char *id, char *base, size_t len,
		     const char **task);

/* Tasks of an array by state class, for the group row and the CLI. */
struct jobtable_array_count {
	long	tasks;
	long	n[JC_OTHER + 1];	/* by enum jobtable_class */
};
void		 jobtable_array_add(struct jobtable_array_count *,
		     const struct jobtable_row *);
/* "6 tasks: 2 running, 3 pending, 1 completed" (nonzero classes only). */
void		 jobtable_array_text(const struct jobtable_array_count *,
		     char *buf, size_t len);
/*
 * The group row of the tasks rows[0..n) of one array (n >= 1): its job id,
 * the first task's name, partition and limit, the state that matters most
 * (running, else pending, else failed, cancelled, completed), the longest
 * elapsed, the counts in reason.  Free it with jobtable_row_clear().
 */
void		 jobtable_array_summary(const struct jobtable_row *const *rows,
		     size_t n, struct jobtable_row *out);
/*
 * Open (1), close (0) or toggle (-1) the array of the cursor row, a group
 * row or one of its tasks; closing puts the cursor on the group row.
 * Returns 0, or -1 if the cursor is on no array.
 */
int		 jobtable_array_open(struct jobtable *, int open);

/* Text of a cell, e.g. "1:02:03/4:00:00" for JT_TIME. */
const char	*jobtable_cell(const struct jobtable_row *, enum jobtable_col,
		     char *buf, size_t len);
const char	*jobtable_col_title(enum jobtable_col);
/* squeue-style duration: "5:03", "1:02:03", "2-01:02:03", "-" if < 0. */
void		 jobtable_fmt_duration(long secs, char *buf, size_t len);
/*
 * Columns of the cell jobtable_cell would write, counted without writing
 * it, for the number columns (JT_TIME, JT_NODES); -1 for the others.
 */
int		 jobtable_cell_width(const struct jobtable_row *,
		     enum jobtable_col);

#endif
