#ifndef BUDGET_H
#define BUDGET_H

#include <stddef.h>
#include <time.h>

/*
 * The polling budget of one cluster (issue 15.1): sites cap calls to
 * slurmctld (SLURM's own rate limiter, or a rule such as "one squeue a
 * minute"), so every squeue, sacct, sinfo and scancel sqdeck runs on a
 * cluster is counted here, and a poll waits until
 *
 *   - min_interval seconds have passed since the last poll (also when the
 *     user asks for a poll now), and
 *   - one more call fits in max_calls per rolling minute.
 *
 * When slurmctld times out, says "Rate limit exceeded" or cannot be
 * reached, the next poll backs off exponentially (doubling from twice the
 * poll interval, at least BUDGET_RATE_BACKOFF after a rate limit, at most
 * BUDGET_BACKOFF_MAX); the first answer resets it.  Reading a log file is
 * not a scheduler call and is never counted.  Pure: times are whatever
 * clock the caller passes (the workers use the monotonic clock).
 */

#define BUDGET_WINDOW		60	/* seconds of the rolling count */
#define BUDGET_MIN_INTERVAL	5	/* default min_poll_interval */
#define BUDGET_MAX_CALLS	20	/* default max_scheduler_calls */
#define BUDGET_BACKOFF_MAX	300	/* seconds */
#define BUDGET_RATE_BACKOFF	30	/* at least this after a rate limit */

enum budget_fault {
	BUDGET_FAULT_NONE,	/* not the scheduler's fault (or no fault) */
	BUDGET_FAULT_TIMEOUT,	/* "Socket timed out": slurmctld too slow */
	BUDGET_FAULT_RATE,	/* "Rate limit exceeded" */
	BUDGET_FAULT_DOWN,	/* slurmctld cannot be reached */
};

/* What a counted call was for (the cluster detail's "budget" line). */
enum budget_use {
	BUDGET_USE_POLL,	/* the queue's poll: squeue, sacct of the left */
	BUDGET_USE_HISTORY,	/* the slow tick's sacct, a lost job's */
	BUDGET_USE_CLUSTER,	/* sinfo: partitions, GPUs */
	BUDGET_USE_LOOKUP,	/* a log lookup of a job sqdeck did not submit */
	BUDGET_USE_ACTION,	/* what the user asked: cancel, hold, ... */
	BUDGET_USE_SOONEST,	/* the wizard's soonest start (--test-only) */
	BUDGET_USE_N
};

struct budget {
	int			 min_interval;
	int			 max_calls;
	time_t			*calls;		/* when each counted call ran */
	unsigned char		*use;		/* and for what (budget_use) */
	size_t			 ncalls;
	size_t			 cap;
	time_t			*side;		/* the lookups' among them */
	size_t			 nside;
	size_t			 side_cap;
	time_t			 last_poll;	/* 0: none yet */
	int			 backoff;	/* seconds, 0: none */
	enum budget_fault	 fault;		/* why, while backoff > 0 */
	unsigned long		 total;		/* calls ever counted */
};

/* 0 or less takes the default. */
void	 budget_init(struct budget *, int min_interval, int max_calls);
void	 budget_free(struct budget *);
/* Count n scheduler calls made at now, for use. */
void	 budget_spend(struct budget *, time_t now, unsigned n,
	    enum budget_use use);
/* Calls in the last BUDGET_WINDOW seconds before now. */
unsigned budget_used(struct budget *, time_t now);
/* Of them, those made for use. */
unsigned budget_used_for(struct budget *, time_t now, enum budget_use use);
/*
 * What they were for, most first: "polls 14, soonest start 4, user
 * actions 2"; "" when none (owned by the caller).
 */
char	*budget_uses_text(struct budget *, time_t now);
/*
 * The earliest time at or after want when a poll of cost calls may run:
 * min_interval after the last poll, and when cost more calls fit.
 */
time_t	 budget_when(struct budget *, time_t want, unsigned cost);
/*
 * The log lookup of a job sqdeck did not submit: n scheduler calls that
 * are not the poll's.  budget_room says whether they may run at now:
 * they fit in max_calls, and the lookups' calls of the window leave
 * reserve calls a minute to the polls (the worker passes what its
 * polls and the slow tick spend in a minute), so browsing other users'
 * jobs never holds the queue's refresh back.  budget_spend_side counts
 * them (in the total too).
 */
int	 budget_room(struct budget *, time_t now, unsigned n, unsigned reserve);
/*
 * The lookups' share alone (budget_room without the rolling count): a
 * poll that would take the slots a waiting lookup within its share needs
 * waits for them too (budget_when with n more), so a busy poll interval
 * never starves the lookups.
 */
int	 budget_side_room(struct budget *, time_t now, unsigned n,
	    unsigned reserve);
void	 budget_spend_side(struct budget *, time_t now, unsigned n);
/* A poll started at now. */
void	 budget_polled(struct budget *, time_t now);

/* Whether a failure (SLURM's or the connection's message) is the scheduler's. */
enum budget_fault budget_classify(const char *cause);
/* "slurmctld timed out" ...; "" for NONE. */
const char *budget_fault_text(enum budget_fault);
/*
 * A scheduler fault: the next back-off in seconds (also kept in b), for a
 * cluster polled every interval seconds.
 */
int	 budget_fail(struct budget *, int interval, enum budget_fault);
/* The scheduler answered: back to the normal interval. */
void	 budget_ok(struct budget *);

#endif
