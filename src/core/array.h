#ifndef ARRAY_H
#define ARRAY_H

/*
 * A job array as sbatch --array takes it (sqdeck(1): ARRAYS): a comma list
 * of indices and ranges, a range with a step ("0-15:4"), and an optional
 * "%N" throttle (at most N tasks running at once): "0-99%4", "1,3,5-7".
 * Pure: the spec, the wizard and the poll (squeue's pending "[2-3%2]")
 * share it.
 */

#define ARRAY_TASKS_MAX		10000	/* tasks in one array */
#define ARRAY_INDEX_MAX		4000000	/* SLURM's MaxArraySize ceiling - 1 */
#define ARRAY_SPEC_MAX		256	/* characters of the value */

struct array_info {
	int	ntasks;		/* distinct task indices */
	int	first;		/* lowest index */
	int	last;		/* highest index */
	int	throttle;	/* %N, 0: none */
};

/*
 * Check s; fill *ai (may be NULL).  On error -1 and *cause names the
 * limit or the part that is wrong.
 */
int	 array_parse(const char *s, struct array_info *ai, char **cause);
/*
 * Call fn for every task index of a valid s, lowest first, each once;
 * stops early when fn returns non-zero.  Returns the tasks visited, -1
 * for an invalid s.
 */
int	 array_each(const char *s, int (*fn)(int, void *), void *arg);

#endif

#include "state.h"

/*
 * The tasks of one array as squeue and sacct show them: "12_3" (a task
 * that started), "12_[4-9%2]" (tasks still pending, squeue and sacct
 * alike).  Fed row by row, sacct's first and squeue's last (the fresher).
 */
struct array_status {
	int		*idx;		/* task indices, lowest first */
	enum rstate	*st;		/* UNKNOWN: not seen yet */
	size_t		 n;
};

int	 array_status_init(struct array_status *, const char *spec);
void	 array_status_free(struct array_status *);
/* One row: sid the array's id ("12"); rows of other jobs are ignored. */
void	 array_status_row(struct array_status *, const char *sid,
	     const char *jobid, const char *slurm_state);
/*
 * The array's state: RUNNING while any task runs; PENDING while any is
 * pending; a task not seen when others were was cancelled pending (it
 * leaves the range, in neither squeue nor sacct); once all ended,
 * COMPLETE only when every task completed, else FAILED (ERROR) when any
 * failed, else CANCELED.  UNKNOWN when no task was seen.  *summary:
 * "2 running, 1 pending, 1 failed (task 3)"; *tasks: "0=COMPLETED
 * 1=RUNNING ..." (state_word per task, for the record); both allocated.
 */
enum rstate array_status_verdict(struct array_status *,
	     char **summary, char **tasks);
/* The failed task indices, "3,7" (allocated; "" when none). */
char	*array_status_failed(const struct array_status *);
/* jobid is a pending range of array sid: "12_[2-3%2]". */
int	 array_row_is_range(const char *sid, const char *jobid);
/* A record's tasks ("0=RUNNING 1=COMPLETED") still have one queued. */
int	 array_tasks_live(const char *tasks);
/* The tasks a record kept (array_status_verdict's *tasks) back in. */
int	 array_status_load(struct array_status *, const char *spec,
	     const char *tasks);
