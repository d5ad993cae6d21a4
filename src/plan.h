#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>

#include "config.h"
#include "spec.h"

/*
 * The planner (R3): spec + cluster + partition limits -> the resources to
 * ask SLURM for.  Pure: no I/O, every branch reachable from a unit test.
 */

#define PLAN_UNLIMITED		(-1)	/* a partition without MaxTime */
#define PLAN_DEFAULT_NODES	1
#define PLAN_DEFAULT_GPUS	4
#define PLAN_DEFAULT_CPUS	16	/* per task */
#define PLAN_DEFAULT_MINUTES	240	/* 4 h */
#define PLAN_MAX_MINUTES	240	/* cap when the partition's is unknown */
#define PLAN_TIMEOUT_PERCENT	95	/* child timeout: 3.8 h of 4 h */
#define PLAN_GRACE_MAX		120	/* seconds from TERM to KILL, at most */

/* One partition as sinfo reports it (a trailing '*' is ignored). */
struct plan_limit {
	const char	*name;
	int		 max_minutes;	/* PLAN_UNLIMITED: no MaxTime */
	const char	*state;		/* sinfo %a ("up"), NULL: unknown */
};

struct plan {
	char	*partition;		/* one, or a list: "a,b" for -p */
	char	*account;		/* NULL: no --account */
	int	 nodes;
	int	 gpus_per_node;		/* 0: CPU-only job */
	int	 gpus;			/* total */
	int	 cpus_per_task;
	int	 time_minutes;
	char	 time_str[32];		/* "H:MM:SS" for --time */
	int	 timeout_seconds;	/* child-process timeout */
	int	 grace_seconds;		/* TERM to KILL: half the margin */
	int	 max_minutes;		/* the cap applied, or PLAN_UNLIMITED */
	int	 exclusive;		/* whole nodes */
	int	 requeue;
	int	 multinode;		/* nodes > 1 */
	int	 sqsh;			/* convert the image to .sqsh first */
	int	 retry_budget;
	char	*note;			/* an adjustment to show, or NULL */
};

/*
 * limits NULL: partition limits unknown, time is capped at 4 h.  spec and
 * cluster may be NULL (all defaults).
 */
int	 plan_make(const struct spec *, const struct cluster *,
	     const struct plan_limit *limits, size_t nlimits, struct plan *,
	     char **cause);
void	 plan_free(struct plan *);
/* "H:MM:SS" (hours may exceed 24; SLURM accepts that). */
void	 plan_format_time(int minutes, char *, size_t);

#endif
