#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>

#include "config.h"
#include "spec.h"

/*
 * The planner (README: resource defaults): spec + cluster + partition limits
 * -> the resources to ask SLURM for.  Pure: no I/O, every branch reachable
 * from a unit test.
 */

#define PLAN_UNLIMITED		(-1)	/* a partition without MaxTime */
#define PLAN_DEFAULT_NODES	1
#define PLAN_DEFAULT_GPUS	4
#define PLAN_DEFAULT_CPUS	16	/* per task */
#define PLAN_DEFAULT_MINUTES	240	/* 4 h */
#define PLAN_MAX_MINUTES	240	/* cap when the partition's is unknown */
#define PLAN_TIMEOUT_PERCENT	95	/* child timeout: 3.8 h of 4 h */
#define PLAN_GRACE_MAX		120	/* seconds from TERM to KILL, at most */

/*
 * One partition as sinfo reports it (a trailing '*' is ignored).  What a
 * node can hold is checked only when known (0: unknown), so a request no
 * node can hold is refused before SLURM queues it for ever.
 */
struct plan_limit {
	const char	*name;
	int		 max_minutes;	/* PLAN_UNLIMITED: no MaxTime */
	const char	*state;		/* sinfo %a ("up"), NULL: unknown */
	int		 nodes;		/* nodes in the partition, 0 unknown */
	int		 gres_known;	/* gpus_per_node is from sinfo GRES */
	int		 gpus_per_node;	/* most GPUs a node has (0: none) */
	int		 cpus;		/* CPUs of a node, 0 unknown */
	int		 is_default;	/* the cluster's default (sinfo '*') */
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
/* GPUs per node in a sinfo GRES string ("gpu:4", "gpu:a100:8(S:0-1)",
   several node kinds joined by ','): the most any one has; 0: none. */
int	 plan_gres_gpus(const char *gres);
/*
 * A partition for the screen and back: "gpu 4:00:00 (2 nodes, 4 GPUs
 * each, 64 CPUs each)".  plan_partition_parse fills l (name allocated in
 * *name) from such a text; "name MaxTime" alone leaves the rest unknown.
 */
char	*plan_partition_text(const char *name, const char *max_time,
	     const struct plan_limit *);
int	 plan_partition_parse(const char *text, struct plan_limit *,
	     char **name);
/* "H:MM:SS" (hours may exceed 24; SLURM accepts that). */
void	 plan_format_time(int minutes, char *, size_t);

#endif
