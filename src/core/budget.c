#include "budget.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void
budget_init(struct budget *b, int min_interval, int max_calls)
{
	memset(b, 0, sizeof *b);
	b->min_interval = min_interval > 0 ? min_interval :
	    BUDGET_MIN_INTERVAL;
	b->max_calls = max_calls > 0 ? max_calls : BUDGET_MAX_CALLS;
}

void
budget_free(struct budget *b)
{
	free(b->calls);
	free(b->use);
	free(b->side);
	memset(b, 0, sizeof *b);
}

/* Drop the times of v that left the window. */
static void
window_expire(time_t *v, size_t *n, time_t now)
{
	size_t	i = 0;

	while (i < *n && v[i] <= now - BUDGET_WINDOW)
		i++;
	if (i == 0)
		return;
	memmove(v, v + i, (*n - i) * sizeof *v);
	*n -= i;
}

/* Append n calls at now to v, kept sorted. */
static time_t *
window_add(time_t *v, size_t *len, size_t *cap, time_t now, unsigned n)
{
	window_expire(v, len, now);
	while (n-- > 0) {
		if (*len == *cap) {
			*cap = *cap != 0 ? *cap * 2 : 32;
			v = xrealloc(v, *cap * sizeof *v);
		}
		/* A call never counts before an earlier one. */
		if (*len > 0 && now < v[*len - 1])
			now = v[*len - 1];
		v[(*len)++] = now;
	}
	return v;
}

/* The main window: its calls and what each was for, in step. */
static void
budget_expire(struct budget *b, time_t now)
{
	size_t	i = 0;

	while (i < b->ncalls && b->calls[i] <= now - BUDGET_WINDOW)
		i++;
	if (i == 0)
		return;
	memmove(b->calls, b->calls + i, (b->ncalls - i) * sizeof *b->calls);
	memmove(b->use, b->use + i, b->ncalls - i);
	b->ncalls -= i;
}

void
budget_spend(struct budget *b, time_t now, unsigned n, enum budget_use use)
{
	size_t	cap = b->cap;

	if (n == 0)
		return;
	budget_expire(b, now);
	b->calls = window_add(b->calls, &b->ncalls, &b->cap, now, n);
	if (b->cap != cap)
		b->use = xrealloc(b->use, b->cap);
	memset(b->use + b->ncalls - n, (int)use, n);
	b->total += n;
}

unsigned
budget_used_for(struct budget *b, time_t now, enum budget_use use)
{
	size_t	i, n = 0;

	for (i = 0; i < b->ncalls; i++) {
		if (b->calls[i] > now - BUDGET_WINDOW && b->calls[i] <= now &&
		    b->use[i] == (unsigned char)use)
			n++;
	}
	return (unsigned)n;
}

char *
budget_uses_text(struct budget *b, time_t now)
{
	static const char *const names[BUDGET_USE_N] = {
		[BUDGET_USE_POLL] = "polls",
		[BUDGET_USE_HISTORY] = "history",
		[BUDGET_USE_CLUSTER] = "partitions and GPUs",
		[BUDGET_USE_LOOKUP] = "log lookups",
		[BUDGET_USE_ACTION] = "your actions",
		[BUDGET_USE_SOONEST] = "soonest start",
	};
	unsigned	count[BUDGET_USE_N], best;
	struct buf	out;
	int		u, pick;

	for (u = 0; u < BUDGET_USE_N; u++)
		count[u] = budget_used_for(b, now, (enum budget_use)u);
	buf_init(&out);
	buf_add(&out, "", 0);
	/* Most first; a tie in the order of the enum. */
	for (;;) {
		best = 0;
		pick = -1;
		for (u = 0; u < BUDGET_USE_N; u++) {
			if (count[u] > best) {
				best = count[u];
				pick = u;
			}
		}
		if (pick < 0)
			break;
		buf_printf(&out, "%s%s %u", out.len > 0 ? ", " : "",
		    names[pick], best);
		count[pick] = 0;
	}
	return buf_steal(&out);
}

void
budget_spend_side(struct budget *b, time_t now, unsigned n)
{
	budget_spend(b, now, n, BUDGET_USE_LOOKUP);
	b->side = window_add(b->side, &b->nside, &b->side_cap, now, n);
}

int
budget_side_room(struct budget *b, time_t now, unsigned n, unsigned reserve)
{
	unsigned	max = (unsigned)b->max_calls;

	if (n > max)
		return 0;
	if (reserve > max - n)
		reserve = max - n;
	window_expire(b->side, &b->nside, now);
	return b->nside + n + reserve <= max;
}

int
budget_room(struct budget *b, time_t now, unsigned n, unsigned reserve)
{
	return budget_side_room(b, now, n, reserve) &&
	    budget_used(b, now) + n <= (unsigned)b->max_calls;
}

unsigned
budget_used(struct budget *b, time_t now)
{
	size_t	i, n = 0;

	for (i = 0; i < b->ncalls; i++) {
		if (b->calls[i] > now - BUDGET_WINDOW && b->calls[i] <= now)
			n++;
	}
	return (unsigned)n;
}

time_t
budget_when(struct budget *b, time_t want, unsigned cost)
{
	size_t	free_slots, k;

	if (b->last_poll != 0 && want < b->last_poll + b->min_interval)
		want = b->last_poll + b->min_interval;
	budget_expire(b, want);
	if (cost > (unsigned)b->max_calls)
		cost = (unsigned)b->max_calls;
	if (b->ncalls + cost <= (size_t)b->max_calls)
		return want;
	/* Wait until enough of the oldest calls leave the window. */
	free_slots = (size_t)b->max_calls - cost;
	k = b->ncalls - free_slots - 1;
	if (b->calls[k] + BUDGET_WINDOW > want)
		want = b->calls[k] + BUDGET_WINDOW;
	return want;
}

void
budget_polled(struct budget *b, time_t now)
{
	b->last_poll = now;
}

enum budget_fault
budget_classify(const char *cause)
{
	static const char *down[] = {
		"Unable to contact slurm controller",
		"Zero Bytes were transmitted or received",
		"Connection refused",	/* slurm_* "connect failure" */
		"Communication connection failure",
	};
	size_t	i;

	if (cause == NULL)
		return BUDGET_FAULT_NONE;
	if (strstr(cause, "Rate limit exceeded") != NULL)
		return BUDGET_FAULT_RATE;
	if (strstr(cause, "Socket timed out") != NULL)
		return BUDGET_FAULT_TIMEOUT;
	for (i = 0; i < sizeof down / sizeof down[0]; i++) {
		if (strstr(cause, down[i]) != NULL)
			return BUDGET_FAULT_DOWN;
	}
	return BUDGET_FAULT_NONE;
}

const char *
budget_fault_text(enum budget_fault f)
{
	switch (f) {
	case BUDGET_FAULT_NONE:
		break;
	case BUDGET_FAULT_TIMEOUT:
		return "slurmctld timed out";
	case BUDGET_FAULT_RATE:
		return "slurmctld rate limit";
	case BUDGET_FAULT_DOWN:
		return "slurmctld down";
	}
	return "";
}

int
budget_fail(struct budget *b, int interval, enum budget_fault f)
{
	int	next;

	if (interval < 1)
		interval = 1;
	if (interval < b->min_interval)
		interval = b->min_interval;
	next = b->backoff > 0 ? b->backoff * 2 : interval * 2;
	if (f == BUDGET_FAULT_RATE && next < BUDGET_RATE_BACKOFF)
		next = BUDGET_RATE_BACKOFF;
	if (next > BUDGET_BACKOFF_MAX)
		next = BUDGET_BACKOFF_MAX;
	b->backoff = next;
	b->fault = f;
	return next;
}

void
budget_ok(struct budget *b)
{
	b->backoff = 0;
	b->fault = BUDGET_FAULT_NONE;
}
