#ifndef SOONEST_H
#define SOONEST_H

#include <stddef.h>
#include <time.h>

#include "plan.h"

/*
 * Where a request would start soonest (issue 15.4): SLURM's own estimate,
 * "sbatch --test-only" once per partition the request fits (the planner
 * says which), all in one remote script.  Nothing is queued: --test-only
 * only asks the scheduler "sbatch: Job N to start at T using C processors
 * on nodes L in partition P".  Each try is one scheduler call.
 *
 * The command and the parser are pure; the worker runs them.
 */

#define SOONEST_MAX	16	/* partitions tried at most */

struct soonest_try {
	char	*partition;
	char	*start;		/* "2026-12-01T12:40:00", NULL: refused */
	time_t	 when;		/* start as local time, 0 unknown */
	char	*error;		/* why SLURM refused it, or NULL */
};

struct soonest {
	struct soonest_try	*v;
	size_t			 n;
};

/*
 * One script for the plans (each with its one partition).  marker is a
 * random string (slurm_sep_new() without its first byte) that starts each
 * try's section.  NULL and a cause if there is nothing to try.
 */
char	*soonest_cmd(const struct plan *const *plans, size_t n,
	     const char *marker, char **cause);
/* Its output, one try per section, in order. */
int	 soonest_parse(const char *text, const char *marker, struct soonest *,
	     char **cause);
void	 soonest_free(struct soonest *);
/*
 * "soonest: gpu now (12:40); gpu2 13:05; cpu: no node fits" against now;
 * the earliest first.  NULL if nothing was tried.
 */
char	*soonest_text(const struct soonest *, time_t now);

#endif
