/*
 * The polling budget (src/core/budget.c): the rolling count of scheduler
 * calls, when the next poll may run, the minimum interval, and the
 * exponential back-off on slurmctld's own failure messages (as squeue
 * prints them on the local cluster with slurmctld stopped, and as SLURM's
 * rate limiter words them).
 */
#include "testutil.h"
#include "budget.h"

START_TEST(test_defaults)
{
	struct budget	b;

	budget_init(&b, 0, 0);
	ck_assert_int_eq(b.min_interval, BUDGET_MIN_INTERVAL);
	ck_assert_int_eq(b.max_calls, BUDGET_MAX_CALLS);
	ck_assert_uint_eq(budget_used(&b, 1000), 0);
	ck_assert_int_eq(budget_when(&b, 1000, 1), 1000);
	budget_free(&b);
	budget_init(&b, 30, 4);
	ck_assert_int_eq(b.min_interval, 30);
	ck_assert_int_eq(b.max_calls, 4);
	budget_free(&b);
}
END_TEST

START_TEST(test_window)
{
	struct budget	b;

	budget_init(&b, 1, 4);
	budget_spend(&b, 100, 1, BUDGET_USE_POLL);
	budget_spend(&b, 110, 2, BUDGET_USE_POLL);
	budget_spend(&b, 120, 1, BUDGET_USE_POLL);
	ck_assert_uint_eq(budget_used(&b, 120), 4);
	ck_assert_uint_eq(b.total, 4);
	/* Full: the next call waits until the call at 100 leaves. */
	ck_assert_int_eq(budget_when(&b, 121, 1), 160);
	/* Two calls need both calls at 110 gone as well... */
	ck_assert_int_eq(budget_when(&b, 121, 2), 170);
	/* ... and a cost above the budget is capped to the whole budget. */
	ck_assert_int_eq(budget_when(&b, 121, 99), 180);
	/* The call at 100 left the window at 160. */
	ck_assert_uint_eq(budget_used(&b, 160), 3);
	ck_assert_uint_eq(budget_used(&b, 181), 0);
	ck_assert_int_eq(budget_when(&b, 181, 1), 181);
	budget_free(&b);
}
END_TEST

/* What the calls were for leaves the window with them, most first. */
START_TEST(test_uses)
{
	struct budget	b;
	char		*t;
	int		 i;

	budget_init(&b, 5, 20);
	t = budget_uses_text(&b, 100);
	ck_assert_str_eq(t, "");
	free(t);
	budget_spend(&b, 100, 2, BUDGET_USE_SOONEST);
	budget_spend(&b, 101, 1, BUDGET_USE_CLUSTER);
	for (i = 0; i < 40; i++)	/* grows the window past its first size */
		budget_spend(&b, 102 + i, 1, BUDGET_USE_POLL);
	budget_spend(&b, 150, 1, BUDGET_USE_ACTION);
	ck_assert_uint_eq(budget_used(&b, 150), 44);
	ck_assert_uint_eq(budget_used_for(&b, 150, BUDGET_USE_SOONEST), 2);
	ck_assert_uint_eq(budget_used_for(&b, 150, BUDGET_USE_LOOKUP), 0);
	t = budget_uses_text(&b, 150);
	ck_assert_str_eq(t, "polls 40, soonest start 2, partitions and GPUs 1, "
	    "your actions 1");
	free(t);
	/* A spend after the first calls left: they leave with their use. */
	budget_spend(&b, 161, 1, BUDGET_USE_HISTORY);
	ck_assert_uint_eq(budget_used_for(&b, 161, BUDGET_USE_SOONEST), 0);
	ck_assert_uint_eq(budget_used_for(&b, 161, BUDGET_USE_CLUSTER), 0);
	t = budget_uses_text(&b, 161);
	ck_assert_str_eq(t, "polls 40, history 1, your actions 1");
	free(t);
	budget_spend_side(&b, 162, 2);
	ck_assert_uint_eq(budget_used_for(&b, 162, BUDGET_USE_LOOKUP), 2);
	budget_free(&b);
}
END_TEST

START_TEST(test_min_interval)
{
	struct budget	b;

	budget_init(&b, 30, 100);
	budget_polled(&b, 1000);
	budget_spend(&b, 1000, 1, BUDGET_USE_POLL);
	/* A "poll now" right after a poll still waits min_interval. */
	ck_assert_int_eq(budget_when(&b, 1001, 1), 1030);
	ck_assert_int_eq(budget_when(&b, 1045, 1), 1045);
	budget_free(&b);
}
END_TEST

START_TEST(test_many_calls)
{
	struct budget	b;
	time_t		t;
	unsigned	max = 0, u;

	/* A poll every second for ten minutes never exceeds the budget. */
	budget_init(&b, 1, 20);
	for (t = 1; t < 600; t++) {
		if (budget_when(&b, t, 1) > t)
			continue;
		budget_polled(&b, t);
		budget_spend(&b, t, 1, BUDGET_USE_POLL);
		u = budget_used(&b, t);
		if (u > max)
			max = u;
	}
	ck_assert_uint_eq(max, 20);
	/* 20 a minute over ten minutes: about 200 calls, not 600. */
	ck_assert_uint_le(b.total, 10 * 20);
	ck_assert_uint_ge(b.total, 9 * 20);
	budget_free(&b);
}
END_TEST

/*
 * An operator browsing other users' jobs: a log lookup (2 calls) is asked
 * for every `every` seconds and waits until it may run, while the queue
 * is polled every `iv` seconds (1 call), as worker.c does it: the lookup
 * first if budget_room says so, then the poll, which waits for room for a
 * waiting lookup within its share too.  reserve 0 and no room kept is the
 * rule before (a lookup whenever 2 calls fit).
 */
struct browse {
	time_t		poll_gap;	/* longest between two polls */
	time_t		lookup_wait;	/* longest a lookup waited */
	unsigned	lookups;
};

static struct browse
browse(int iv, int every, unsigned reserve, int keep_room)
{
	struct budget	b;
	struct browse	r = { 0, 0, 0 };
	time_t		t, last = 0, asked = 0;
	unsigned	cost;
	int		waiting = 0;

	budget_init(&b, iv, 20);
	for (t = 1; t < 600; t++) {
		if (t % every == 0 && !waiting) {
			waiting = 1;
			asked = t;
		}
		if (waiting && budget_room(&b, t, 2, reserve)) {
			budget_spend_side(&b, t, 2);
			r.lookups++;
			waiting = 0;
			if (t - asked > r.lookup_wait)
				r.lookup_wait = t - asked;
		}
		cost = 1;
		if (keep_room && waiting && budget_side_room(&b, t, 2, reserve))
			cost += 2;
		if (budget_when(&b, t, cost) > t)
			continue;
		budget_polled(&b, t);
		budget_spend(&b, t, 1, BUDGET_USE_POLL);
		if (last != 0 && t - last > r.poll_gap)
			r.poll_gap = t - last;
		last = t;
		ck_assert_uint_le(budget_used(&b, t), 20);
	}
	budget_free(&b);
	return r;
}

START_TEST(test_lookups_leave_room)
{
	struct budget	b;
	struct browse	r;

	/*
	 * A lookup asked every second, polls every 5 s, half the budget
	 * kept for the polls (what worker-log.c keeps with the defaults):
	 * the queue refreshes every 15 s at worst, the lookups get the
	 * other half (5 a minute).
	 */
	r = browse(5, 1, 10, 1);
	ck_assert_msg(r.poll_gap <= 15, "a poll waited %ld s for the "
	    "lookups", (long)r.poll_gap);
	ck_assert_uint_ge(r.lookups, 9 * 5);
	ck_assert_uint_le(r.lookups, 10 * 5 + 5);
	/* The rule before: the lookups took the minute ("calls 20/20 next
	   47s" in the TUI while a just-submitted job did not show). */
	r = browse(5, 1, 0, 0);
	ck_assert_int_ge(r.poll_gap, 30);

	/*
	 * Polls every 2 s want more than the budget: a lookup asked every
	 * 30 s waits only for room, not for the polls to leave 2 calls free
	 * at once (30 s and more before).
	 */
	r = browse(2, 30, 10, 1);
	ck_assert_msg(r.lookup_wait <= 5, "a lookup waited %ld s",
	    (long)r.lookup_wait);
	r = browse(2, 30, 0, 0);
	ck_assert_int_ge(r.lookup_wait, 20);

	/* A budget below the lookup's cost plus the reserve: what is left. */
	budget_init(&b, 5, 4);
	ck_assert_int_eq(budget_room(&b, 1, 2, 14), 1);
	budget_spend_side(&b, 1, 2);
	ck_assert_uint_eq(budget_used(&b, 1), 2);
	ck_assert_int_eq(budget_room(&b, 2, 2, 14), 0);
	ck_assert_int_eq(budget_side_room(&b, 2, 2, 14), 0);
	ck_assert_int_eq(budget_room(&b, 61, 2, 14), 1);
	ck_assert_int_eq(budget_room(&b, 1, 5, 0), 0);
	budget_free(&b);
}
END_TEST

START_TEST(test_classify)
{
	ck_assert_int_eq(budget_classify(NULL), BUDGET_FAULT_NONE);
	ck_assert_int_eq(budget_classify("squeue on sdtb failed: squeue: "
	    "error: Invalid user: nobody"), BUDGET_FAULT_NONE);
	/* squeue's words with slurmctld stopped (SIGSTOP), and refused. */
	ck_assert_int_eq(budget_classify("squeue on sdtb failed: "
	    "slurm_load_jobs error: Socket timed out on send/recv operation"),
	    BUDGET_FAULT_TIMEOUT);
	ck_assert_int_eq(budget_classify("slurm_load_jobs error: Unable to "
	    "contact slurm controller (connect failure)"), BUDGET_FAULT_DOWN);
	ck_assert_int_eq(budget_classify("squeue: error: slurm_load_jobs "
	    "error: Rate limit exceeded, please retry momentarily"),
	    BUDGET_FAULT_RATE);
	ck_assert_str_eq(budget_fault_text(BUDGET_FAULT_TIMEOUT),
	    "slurmctld timed out");
	ck_assert_str_eq(budget_fault_text(BUDGET_FAULT_NONE), "");
}
END_TEST

START_TEST(test_backoff)
{
	struct budget	b;
	int		i, prev = 0, next = 0;

	budget_init(&b, 5, 20);
	/* Doubling from two intervals... */
	ck_assert_int_eq(budget_fail(&b, 5, BUDGET_FAULT_TIMEOUT), 10);
	ck_assert_int_eq(budget_fail(&b, 5, BUDGET_FAULT_TIMEOUT), 20);
	ck_assert_int_eq(budget_fail(&b, 5, BUDGET_FAULT_DOWN), 40);
	ck_assert_int_eq(b.fault, BUDGET_FAULT_DOWN);
	/* ... capped, never decreasing ... */
	for (i = 0; i < 20; i++) {
		next = budget_fail(&b, 5, BUDGET_FAULT_TIMEOUT);
		ck_assert_int_ge(next, prev);
		prev = next;
	}
	ck_assert_int_eq(next, BUDGET_BACKOFF_MAX);
	/* ... and the first answer resets it. */
	budget_ok(&b);
	ck_assert_int_eq(b.backoff, 0);
	ck_assert_int_eq(b.fault, BUDGET_FAULT_NONE);
	ck_assert_int_eq(budget_fail(&b, 5, BUDGET_FAULT_TIMEOUT), 10);
	budget_ok(&b);
	/* A rate limit waits at least BUDGET_RATE_BACKOFF. */
	ck_assert_int_eq(budget_fail(&b, 2, BUDGET_FAULT_RATE),
	    BUDGET_RATE_BACKOFF);
	budget_ok(&b);
	/* The interval is never taken below min_interval. */
	ck_assert_int_eq(budget_fail(&b, 1, BUDGET_FAULT_TIMEOUT), 10);
	budget_free(&b);
}
END_TEST

static Suite *
budget_suite(void)
{
	Suite	*s = suite_create("budget");
	TCase	*tc = tcase_create("budget");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_uses);
	tcase_add_test(tc, test_min_interval);
	tcase_add_test(tc, test_many_calls);
	tcase_add_test(tc, test_lookups_leave_room);
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_backoff);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(budget_suite)
