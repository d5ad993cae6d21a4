/* The jobs pane model: merge, selection, filter, sort, marks, scale. */
#include <malloc.h>
#include <time.h>

#include "testutil.h"
#include "jobtable.h"
#include "jobid.h"
#include "util.h"

static struct jobtable_row
row(const char *id, const char *name, const char *state)
{
	struct jobtable_row	r;

	memset(&r, 0, sizeof r);
	r.id = (char *)id;
	r.name = (char *)name;
	r.partition = (char *)"gpu";
	r.state = (char *)state;
	r.elapsed = 65;
	r.limit = 4 * 3600;
	r.nodes = 1;
	r.reason = (char *)"";
	return r;
}

/* Add "cluster/id" to a list joined by spaces (a jobtable_row_fn too). */
static void
add_row(const struct jobtable_row *r, void *arg)
{
	struct buf	*b = arg;

	buf_printf(b, "%s%s/%s", b->len ? " " : "", r->cluster, r->id);
}

/* The visible rows, as add_row lists them. */
static char *
order(const struct jobtable *jt)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < jobtable_nvisible(jt); i++)
		add_row(jobtable_visible(jt, i), &b);
	return buf_steal(&b);
}

/* The rows jobtable_foreach_row visits, with its count and marked. */
static char *
walked(const struct jobtable *jt, size_t want_n, int want_marked)
{
	struct buf	b;
	int		m = -1;

	buf_init(&b);
	buf_add(&b, "", 0);
	ck_assert_uint_eq(jobtable_foreach_row(jt, add_row, &b, &m), want_n);
	ck_assert_int_eq(m, want_marked);
	return buf_steal(&b);
}

#define ck_text(got, want) do {						\
	char	*got_ = (got);						\
	ck_assert_str_eq(got_, want);					\
	free(got_);							\
} while (0)
#define ck_order(jt, want)	ck_text(order(jt), want)
#define ck_walk(jt, n, marked, want) ck_text(walked(jt, n, marked), want)

START_TEST(test_merge_replaces_cluster)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[3], b[2];
	size_t			 run, pend;

	a[0] = row("10", "train", "RUNNING");
	a[1] = row("11", "eval", "PENDING");
	a[2] = row("12", "prep", "RUNNING");
	b[0] = row("10", "other", "PENDING");
	b[1] = row("5", "x", "RUNNING");
	jobtable_merge(jt, "alpha", a, 3, 1000);
	jobtable_merge(jt, "beta", b, 2, 1001);
	ck_assert_uint_eq(jobtable_total(jt), 5);
	/* Same id on two clusters: two rows, ordered by id then cluster. */
	ck_order(jt, "beta/5 alpha/10 beta/10 alpha/11 alpha/12");
	jobtable_count(jt, "alpha", &run, &pend);
	ck_assert_uint_eq(run, 2);
	ck_assert_uint_eq(pend, 1);
	jobtable_count(jt, NULL, &run, &pend);
	ck_assert_uint_eq(run, 3);
	ck_assert_uint_eq(pend, 2);
	ck_assert_int_eq(jobtable_cluster_polled(jt, "beta"), 1001);
	ck_assert_int_eq(jobtable_cluster_polled(jt, "gamma"), 0);

	/* alpha's next snapshot: 11 started, 12 left the queue, 13 is new. */
	a[0] = row("10", "train", "RUNNING");
	a[1] = row("11", "eval", "RUNNING");
	a[2] = row("13", "new", "PENDING");
	jobtable_merge(jt, "alpha", a, 3, 1005);
	ck_order(jt, "beta/5 alpha/10 beta/10 alpha/11 alpha/12 alpha/13");
	ck_assert_int_eq(jobtable_cluster_polled(jt, "alpha"), 1005);
	/* 12 stays, finished, its final state unknown. */
	jobtable_select(jt, "alpha", "12");
	ck_assert_str_eq(jobtable_current(jt)->state, "ENDED");
	ck_assert_int_eq(jobtable_current(jt)->finished, 1);
	jobtable_select(jt, "alpha", "11");
	ck_assert_str_eq(jobtable_current(jt)->state, "RUNNING");
	ck_assert_int_eq(jobtable_current(jt)->finished, 0);
	/* beta untouched by alpha's snapshot. */
	jobtable_select(jt, "beta", "10");
	ck_assert_str_eq(jobtable_current(jt)->name, "other");
	ck_assert_int_eq(jobtable_current(jt)->finished, 0);

	/* A final state from sacct is kept as is. */
	a[0] = row("10", "train", "COMPLETED");
	jobtable_merge(jt, "alpha", a, 1, 1010);
	jobtable_select(jt, "alpha", "10");
	ck_assert_str_eq(jobtable_current(jt)->state, "COMPLETED");
	ck_assert_int_eq(jobtable_current(jt)->finished, 1);
	/* 13 vanished pending: ENDED; 12 stays ENDED, not touched twice. */
	jobtable_select(jt, "alpha", "13");
	ck_assert_str_eq(jobtable_current(jt)->state, "ENDED");
	jobtable_count(jt, "alpha", &run, &pend);
	ck_assert_uint_eq(run + pend, 0);

	/* Hide finished (a): only beta's live rows remain. */
	jobtable_set_show_finished(jt, 0);
	ck_order(jt, "beta/5 beta/10");
	jobtable_set_show_finished(jt, 1);
	ck_assert_uint_eq(jobtable_nvisible(jt), 6);

	/* A stale cluster sends nothing: its rows and poll time stay. */
	jobtable_merge(jt, "alpha", a, 1, 1020);
	ck_assert_int_eq(jobtable_cluster_polled(jt, "beta"), 1001);
	jobtable_select(jt, "beta", "5");
	ck_assert_str_eq(jobtable_current(jt)->state, "RUNNING");

	jobtable_forget(jt, "alpha");
	ck_order(jt, "beta/5 beta/10");
	jobtable_free(jt);
}
END_TEST

START_TEST(test_upsert_and_set_state)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 r = row("7", "rec", "COMPLETED");

	/* A record: finished row that a snapshot without it must not touch. */
	r.cluster = (char *)"alpha";
	jobtable_upsert(jt, &r);
	ck_assert_int_eq(jobtable_current(jt)->finished, 1);
	jobtable_merge(jt, "alpha", NULL, 0, 5);
	ck_assert_str_eq(jobtable_current(jt)->state, "COMPLETED");

	r = row("8", "live", "RUNNING");
	jobtable_merge(jt, "alpha", &r, 1, 6);
	ck_assert_int_eq(jobtable_set_state(jt, "alpha", "8", "CANCELLED"), 0);
	ck_assert_int_eq(jobtable_set_state(jt, "alpha", "99", "CANCELLED"), -1);
	jobtable_select(jt, "alpha", "8");
	ck_assert_str_eq(jobtable_current(jt)->state, "CANCELLED");
	ck_assert_int_eq(jobtable_current(jt)->finished, 1);
	/* Rows without an id are ignored. */
	r = row("", "bad", "RUNNING");
	r.cluster = (char *)"alpha";
	jobtable_upsert(jt, &r);
	ck_assert_uint_eq(jobtable_total(jt), 2);
	jobtable_free(jt);
}
END_TEST

START_TEST(test_selection_kept)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[4];

	a[0] = row("1", "a", "RUNNING");
	a[1] = row("2", "b", "RUNNING");
	a[2] = row("3", "c", "RUNNING");
	a[3] = row("4", "d", "RUNNING");
	jobtable_merge(jt, "x", a, 4, 1);
	ck_assert_uint_eq(jobtable_cursor(jt), 0);
	jobtable_move(jt, 2);
	ck_assert_str_eq(jobtable_current(jt)->id, "3");

	/* Rows before it appear: the cursor follows the job, not the index. */
	a[0] = row("0", "z", "RUNNING");
	a[1] = row("1", "a", "RUNNING");
	a[2] = row("3", "c", "RUNNING");
	jobtable_set_sort(jt, JT_ID, 0);
	jobtable_merge(jt, "x", a, 3, 2);
	ck_assert_str_eq(jobtable_current(jt)->id, "3");
	ck_assert_uint_eq(jobtable_cursor(jt), 3);	/* 0 1 2(ENDED) 3 */

	/* Re-sorting moves the row: the cursor goes with it. */
	jobtable_set_sort(jt, JT_ID, 1);
	ck_order(jt, "x/4 x/3 x/2 x/1 x/0");
	ck_assert_str_eq(jobtable_current(jt)->id, "3");

	/* The row disappears from view: the cursor stays at its place. */
	jobtable_set_show_finished(jt, 0);
	ck_order(jt, "x/3 x/1 x/0");
	ck_assert_str_eq(jobtable_current(jt)->id, "3");
	jobtable_set_filter(jt, "z", NULL);
	ck_order(jt, "x/0");
	ck_assert_str_eq(jobtable_current(jt)->id, "0");
	/* ... and the cursor now belongs to the row it landed on. */
	jobtable_set_filter(jt, NULL, NULL);
	ck_assert_str_eq(jobtable_current(jt)->id, "0");
	ck_assert_uint_eq(jobtable_cursor(jt), 2);

	/* Cursor at the last row and the last row vanishes: clamp. */
	jobtable_move_to(jt, SIZE_MAX);
	ck_assert_str_eq(jobtable_current(jt)->id, "0");
	a[0] = row("3", "c", "RUNNING");
	jobtable_merge(jt, "x", a, 1, 3);
	ck_order(jt, "x/3");
	ck_assert_uint_eq(jobtable_cursor(jt), 0);

	/* Nothing visible: no current row, moves are harmless. */
	jobtable_set_filter(jt, "nothing-matches", NULL);
	ck_assert_uint_eq(jobtable_nvisible(jt), 0);
	ck_assert_ptr_null(jobtable_current(jt));
	jobtable_move(jt, 1);
	jobtable_move(jt, -1);
	ck_assert_ptr_null(jobtable_current(jt));
	ck_assert_int_eq(jobtable_toggle_mark(jt), 0);
	jobtable_free(jt);
}
END_TEST

START_TEST(test_move_and_top)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[20];
	char			 ids[20][8];
	int			 i;

	for (i = 0; i < 20; i++) {
		snprintf(ids[i], sizeof ids[i], "%d", i);
		a[i] = row(ids[i], "n", "PENDING");
	}
	jobtable_merge(jt, "x", a, 20, 1);
	jobtable_move(jt, -5);
	ck_assert_uint_eq(jobtable_cursor(jt), 0);
	jobtable_move(jt, 7);
	ck_assert_uint_eq(jobtable_cursor(jt), 7);
	ck_assert_uint_eq(jobtable_top(jt, 5), 3);	/* cursor on the last line */
	jobtable_move(jt, -6);
	ck_assert_uint_eq(jobtable_top(jt, 5), 1);
	jobtable_move(jt, 100);
	ck_assert_uint_eq(jobtable_cursor(jt), 19);
	ck_assert_uint_eq(jobtable_top(jt, 5), 15);
	/* A taller window shows everything from the top. */
	ck_assert_uint_eq(jobtable_top(jt, 40), 0);
	jobtable_move_to(jt, 0);
	ck_assert_uint_eq(jobtable_top(jt, 5), 0);
	ck_assert_int_eq(jobtable_select(jt, "x", "12"), 0);
	ck_assert_uint_eq(jobtable_cursor(jt), 12);
	ck_assert_int_eq(jobtable_select(jt, "y", "12"), -1);
	jobtable_free(jt);
}
END_TEST

START_TEST(test_filter)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[4];
	char			*cause = NULL;

	a[0] = row("100", "resnet.train", "RUNNING");
	a[1] = row("101", "resnet-eval", "PENDING");
	a[1].reason = (char *)"Priority";
	a[2] = row("102_[1-4]", "array", "PENDING");
	a[3] = row("103", "bert", "RUNNING");
	a[3].partition = (char *)"cpu";
	jobtable_merge(jt, "alpha", a, 4, 1);

	/* Substring, case-insensitive, over every column. */
	ck_assert_int_eq(jobtable_set_filter(jt, "RESNET", &cause), 0);
	ck_order(jt, "alpha/100 alpha/101");
	jobtable_set_filter(jt, "priority", NULL);
	ck_order(jt, "alpha/101");
	jobtable_set_filter(jt, "cpu", NULL);
	ck_order(jt, "alpha/103");
	jobtable_set_filter(jt, "alpha", NULL);
	ck_assert_uint_eq(jobtable_nvisible(jt), 4);
	/* Regex characters in plain text are literal. */
	jobtable_set_filter(jt, "[1-4]", NULL);
	ck_order(jt, "alpha/102_[1-4]");
	jobtable_set_filter(jt, "resnet.t", NULL);
	ck_order(jt, "alpha/100");
	ck_assert_str_eq(jobtable_filter(jt), "resnet.t");

	/* A leading '/' makes a POSIX extended regex. */
	jobtable_set_filter(jt, "/resnet.(train|eval)", NULL);
	ck_order(jt, "alpha/100 alpha/101");
	jobtable_set_filter(jt, "/^alpha 10[03] ", NULL);
	ck_order(jt, "alpha/100 alpha/103");
	jobtable_set_filter(jt, "/running", NULL);
	ck_order(jt, "alpha/100 alpha/103");

	/* A bad regex is refused and the previous filter stays. */
	ck_assert_int_eq(jobtable_set_filter(jt, "/(unclosed", &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "(unclosed"));
	free(cause);
	ck_assert_str_eq(jobtable_filter(jt), "/running");
	ck_order(jt, "alpha/100 alpha/103");

	jobtable_set_filter(jt, "", NULL);
	ck_assert_ptr_null(jobtable_filter(jt));
	ck_assert_uint_eq(jobtable_nvisible(jt), 4);
	jobtable_free(jt);
}
END_TEST

/*
 * Issue 26.6: the first screen is the user's live jobs, then the finished
 * ones newest first, not last week's jobs by ascending id; "N of M" says
 * what it leaves out.
 */
START_TEST(test_first_screen)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[6];
	size_t			 fin, fil, fold;
	char			 cell[64];

	a[0] = row("3", "old", "COMPLETED");
	a[1] = row("4", "old", "FAILED");
	a[2] = row("700", "new", "PENDING");
	a[3] = row("701", "new", "RUNNING");
	a[4] = row("702", "new", "COMPLETED");
	a[5] = row("650", "mid", "RUNNING");
	a[0].finished = a[1].finished = a[4].finished = 1;
	jobtable_merge(jt, "x", a, 6, 1);
	jobtable_set_sort(jt, JT_STATE, 0);
	ck_order(jt, "x/701 x/650 x/700 x/702 x/4 x/3");
	jobtable_hidden(jt, &fin, &fil, &fold);
	ck_assert_uint_eq(fin + fil + fold, 0);
	jobtable_free(jt);

	/* Issue 26.11: a finished row drops the reason it waited for. */
	jt = jobtable_create();
	a[4].reason = (char *)"JobHeldUser";
	a[2].reason = (char *)"JobHeldUser";
	jobtable_merge(jt, "x", a, 6, 1);
	ck_assert_str_eq(jobtable_cell(jobtable_find(jt, "x", "702"),
	    JT_REASON, cell, sizeof cell), "");
	ck_assert_str_eq(jobtable_cell(jobtable_find(jt, "x", "700"),
	    JT_REASON, cell, sizeof cell), "JobHeldUser");
	/* ... but keeps its exit code (a history row's "exit 3:0"). */
	a[4].reason = (char *)"exit 3:0";
	jobtable_merge(jt, "x", a, 6, 2);
	ck_assert_str_eq(jobtable_cell(jobtable_find(jt, "x", "702"),
	    JT_REASON, cell, sizeof cell), "exit 3:0");
	a[4].reason = NULL;
	jobtable_set_sort(jt, JT_STATE, 0);
	/* Issue 26.11: the row selected before a restart, when it comes. */
	jobtable_free(jt);
	jt = jobtable_create();
	jobtable_set_sort(jt, JT_STATE, 0);
	jobtable_select_later(jt, "x", "700");
	jobtable_merge(jt, "x", a, 2, 1);	/* not yet there */
	ck_assert_str_eq(jobtable_current(jt)->id, "4");
	jobtable_merge(jt, "x", a, 6, 2);
	ck_assert_str_eq(jobtable_current(jt)->id, "700");
	/* Once found, a new snapshot keeps the cursor on it as usual. */
	jobtable_move(jt, 1);
	jobtable_merge(jt, "x", a, 6, 3);
	ck_assert_str_eq(jobtable_current(jt)->id, "702");
	/* A move before it came cancels the wish. */
	jobtable_free(jt);
	jt = jobtable_create();
	jobtable_set_sort(jt, JT_STATE, 0);
	jobtable_select_later(jt, "x", "3");
	jobtable_merge(jt, "x", a + 2, 4, 1);
	jobtable_move(jt, 1);
	jobtable_merge(jt, "x", a, 6, 2);
	ck_assert_str_ne(jobtable_current(jt)->id, "3");
	jobtable_set_show_finished(jt, 0);
	ck_assert_int_eq(jobtable_set_filter(jt, "new", NULL), 0);
	ck_order(jt, "x/701 x/700");
	jobtable_hidden(jt, &fin, &fil, &fold);
	ck_assert_uint_eq(fin, 3);
	ck_assert_uint_eq(fil, 1);
	ck_assert_uint_eq(fold, 0);
	jobtable_free(jt);
}
END_TEST

START_TEST(test_sort)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[5];
	int			 rev;

	a[0] = row("9", "b", "PENDING");
	a[1] = row("10", "a", "RUNNING");
	a[2] = row("100", "b", "COMPLETED");
	a[3] = row("11", "b", "RUNNING");
	a[4] = row("2", "c", "FAILED");
	a[0].elapsed = 0;
	a[1].elapsed = 500;
	a[2].elapsed = 30;
	a[3].elapsed = 500;
	a[4].elapsed = 7;
	a[3].nodes = 4;
	jobtable_merge(jt, "x", a, 5, 1);

	/* Ids by number, not by text. */
	ck_assert_int_eq(jobtable_sort_col(jt, &rev), JT_ID);
	ck_assert_int_eq(rev, 0);
	ck_order(jt, "x/2 x/9 x/10 x/11 x/100");
	/* Equal names: ties by id, the same on every rebuild. */
	jobtable_set_sort(jt, JT_NAME, 0);
	ck_order(jt, "x/10 x/9 x/11 x/100 x/2");
	jobtable_merge(jt, "x", a, 5, 2);
	ck_order(jt, "x/10 x/9 x/11 x/100 x/2");
	/* Reverse flips the key, not the tie-break. */
	jobtable_set_sort(jt, JT_NAME, 1);
	ck_order(jt, "x/2 x/9 x/11 x/100 x/10");
	/* State: live classes first, each newest first (issue 26.6). */
	jobtable_set_sort(jt, JT_STATE, 0);
	ck_order(jt, "x/11 x/10 x/9 x/100 x/2");
	jobtable_set_sort(jt, JT_TIME, 0);
	ck_order(jt, "x/9 x/2 x/100 x/10 x/11");
	jobtable_set_sort(jt, JT_NODES, 1);
	ck_order(jt, "x/11 x/2 x/9 x/10 x/100");

	/* s cycles through every column and wraps. */
	jobtable_set_sort(jt, JT_CLUSTER, 0);
	ck_assert_int_eq(jobtable_sort_cycle(jt), JT_ID);
	ck_assert_int_eq(jobtable_sort_cycle(jt), JT_NAME);
	jobtable_set_sort(jt, JT_REASON, 0);
	ck_assert_int_eq(jobtable_sort_cycle(jt), JT_CLUSTER);
	jobtable_free(jt);
}
END_TEST

START_TEST(test_marks_and_targets)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[3];
	struct jobtable_key	*k;
	size_t			 n, i;

	a[0] = row("1", "one", "RUNNING");
	a[1] = row("2", "two", "RUNNING");
	a[2] = row("3", "three", "PENDING");
	jobtable_merge(jt, "x", a, 3, 1);

	/* Nothing marked: the target is the current row. */
	jobtable_move_to(jt, 1);
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(k[0].cluster, "x");
	ck_assert_str_eq(k[0].id, "2");
	ck_assert_str_eq(k[0].name, "two");
	/* Pinned: a refresh that renames or drops the job leaves the key. */
	a[1] = row("2", "renamed", "RUNNING");
	jobtable_merge(jt, "x", a, 2, 2);
	ck_assert_str_eq(k[0].name, "two");
	jobtable_key_clear(&k[0]);
	free(k);

	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	jobtable_move_to(jt, 2);
	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	ck_assert_uint_eq(jobtable_nmarked(jt), 2);
	ck_assert(jobtable_marked(jt, 1) && jobtable_marked(jt, 2));
	ck_assert(!jobtable_marked(jt, 0));
	/* Marks survive a refresh (they belong to the job). */
	jobtable_merge(jt, "x", a, 3, 3);
	ck_assert_uint_eq(jobtable_nmarked(jt), 2);
	jobtable_move_to(jt, 0);
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(k[0].id, "2");
	ck_assert_str_eq(k[1].id, "3");
	for (i = 0; i < n; i++)
		jobtable_key_clear(&k[i]);
	free(k);
	/* Hidden marked rows are not acted on. */
	jobtable_set_filter(jt, "one", NULL);
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(k[0].id, "1");
	jobtable_key_clear(&k[0]);
	free(k);
	jobtable_set_filter(jt, NULL, NULL);
	jobtable_move_to(jt, 1);
	ck_assert_int_eq(jobtable_toggle_mark(jt), 0);
	ck_assert_uint_eq(jobtable_nmarked(jt), 1);
	jobtable_clear_marks(jt);
	ck_assert_uint_eq(jobtable_nmarked(jt), 0);

	jobtable_set_filter(jt, "none", NULL);
	ck_assert_ptr_null(jobtable_targets(jt, &n));
	ck_assert_uint_eq(n, 0);
	jobtable_free(jt);
}
END_TEST

/*
 * The one row-walk of cancel, hold and release (README, Terminal UI: "Space
 * marks several jobs"): the marked rows in the table's order, not in the
 * order they were marked; none marked, the cursor's row; no row, nothing.
 */
START_TEST(test_foreach_row)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[4], b[1];
	static const char *const xs[4][3] = {
		{ "10", "one", "PENDING" }, { "11", "two", "PENDING" },
		{ "12", "three", "RUNNING" }, { "13", "four", "PENDING" },
	};
	size_t			 i;

	/* Empty table: nothing visited, and no marks said. */
	ck_walk(jt, 0, 0, "");

	for (i = 0; i < 4; i++)
		a[i] = row(xs[i][0], xs[i][1], xs[i][2]);
	b[0] = row("20", "five", "PENDING");
	jobtable_merge(jt, "x", a, 4, 1);
	jobtable_merge(jt, "y", b, 1, 1);
	ck_order(jt, "x/10 x/11 x/12 x/13 y/20");

	/* No mark: the current row alone. */
	jobtable_move_to(jt, 2);
	ck_walk(jt, 1, 0, "x/12");

	/* Marked bottom-up and across clusters: visited top-down. */
	jobtable_move_to(jt, 4);
	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	jobtable_move_to(jt, 3);
	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	jobtable_move_to(jt, 0);
	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	jobtable_move_to(jt, 1);	/* the cursor's row is not marked */
	ck_walk(jt, 3, 1, "x/10 x/13 y/20");

	/* The table's order is the sort's: reversed, so is the walk. */
	jobtable_set_sort(jt, JT_ID, 1);
	ck_order(jt, "y/20 x/13 x/12 x/11 x/10");
	ck_walk(jt, 3, 1, "y/20 x/13 x/10");
	jobtable_set_sort(jt, JT_ID, 0);

	/* Marked rows the filter hides are not acted on: the current row. */
	ck_assert_int_eq(jobtable_set_filter(jt, "three", NULL), 0);
	ck_walk(jt, 1, 0, "x/12");
	ck_assert_int_eq(jobtable_set_filter(jt, "/^(x 1[0-2]|y)", NULL), 0);
	ck_order(jt, "x/10 x/11 x/12 y/20");
	ck_walk(jt, 2, 1, "x/10 y/20");
	jobtable_set_filter(jt, NULL, NULL);

	/* The keys of an action are the same rows. */
	{
		struct jobtable_key	*k;
		size_t			 n;

		k = jobtable_targets(jt, &n);
		ck_assert_uint_eq(n, 3);
		ck_assert_str_eq(k[0].id, "10");
		ck_assert_str_eq(k[1].id, "13");
		ck_assert_str_eq(k[2].cluster, "y");
		ck_assert_str_eq(k[2].name, "five");
		for (i = 0; i < n; i++)
			jobtable_key_clear(&k[i]);
		free(k);
	}

	/* Marks cleared: the current row again; nothing visible: nothing. */
	jobtable_clear_marks(jt);
	jobtable_move_to(jt, 3);
	ck_walk(jt, 1, 0, "x/13");
	ck_assert_int_eq(jobtable_set_filter(jt, "nomatch", NULL), 0);
	ck_walk(jt, 0, 0, "");
	jobtable_free(jt);
}
END_TEST

/*
 * jobtable_cell_width counts what jobtable_cell writes for the number
 * columns, at every boundary of the duration's forms (M:SS, H:MM:SS,
 * D-HH:MM:SS, "-") and of the digits, with and without a limit.
 */
START_TEST(test_cell_width)
{
	static const long secs[] = { -5, -1, 0, 1, 59, 60, 599, 600, 3599,
	    3600, 35999, 36000, 86399, 86400, 863999, 864000, 8640000,
	    86400000L * 100, 2147483647L };
	static const int nodes[] = { -1, 0, 1, 9, 10, 99, 100, 12345 };
	struct jobtable_row	 r;
	char			 buf[64];
	size_t			 i, j;

	memset(&r, 0, sizeof r);
	for (i = 0; i < sizeof secs / sizeof secs[0]; i++) {
		for (j = 0; j < sizeof secs / sizeof secs[0] + 1; j++) {
			r.elapsed = jobtable_secs(secs[i]);
			r.limit = j < sizeof secs / sizeof secs[0] ?
			    jobtable_secs(secs[j]) : -1;
			/* A limit of -1 is "none": its cell is the elapsed. */
			jobtable_cell(&r, JT_TIME, buf, sizeof buf);
			ck_assert_msg(jobtable_cell_width(&r, JT_TIME) ==
			    (int)strlen(buf), "elapsed %d limit %d: \"%s\" "
			    "is %zu, said %d", r.elapsed, r.limit, buf,
			    strlen(buf), jobtable_cell_width(&r, JT_TIME));
		}
	}
	for (i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		r.nodes = nodes[i];
		ck_assert_int_eq(jobtable_cell_width(&r, JT_NODES),
		    (int)strlen(jobtable_cell(&r, JT_NODES, buf, sizeof buf)));
	}
	ck_assert_int_eq(jobtable_cell_width(&r, JT_NAME), -1);
	ck_assert_int_eq(jobtable_cell_width(&r, JT_STATE), -1);
}
END_TEST

START_TEST(test_cells_and_states)
{
	struct jobtable_row	r = row("42", "n", "RUNNING");
	char			buf[64];

	jobtable_fmt_duration(0, buf, sizeof buf);
	ck_assert_str_eq(buf, "0:00");
	jobtable_fmt_duration(65, buf, sizeof buf);
	ck_assert_str_eq(buf, "1:05");
	jobtable_fmt_duration(3600 + 62, buf, sizeof buf);
	ck_assert_str_eq(buf, "1:01:02");
	jobtable_fmt_duration(2 * 86400 + 3600, buf, sizeof buf);
	ck_assert_str_eq(buf, "2-01:00:00");
	jobtable_fmt_duration(-1, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");

	ck_assert_str_eq(jobtable_cell(&r, JT_TIME, buf, sizeof buf),
	    "1:05/4:00:00");
	r.limit = -1;
	ck_assert_str_eq(jobtable_cell(&r, JT_TIME, buf, sizeof buf), "1:05");
	ck_assert_str_eq(jobtable_cell(&r, JT_NODES, buf, sizeof buf), "1");
	r.nodes = 0;
	ck_assert_str_eq(jobtable_cell(&r, JT_NODES, buf, sizeof buf), "");
	ck_assert_str_eq(jobtable_cell(&r, JT_ID, buf, sizeof buf), "42");
	ck_assert_str_eq(jobtable_cell(&r, JT_CLUSTER, buf, sizeof buf), "");
	ck_assert_str_eq(jobtable_col_title(JT_STATE), "STATE");
	ck_assert_str_eq(jobtable_col_title(JT_NCOLS), "");

	ck_assert_int_eq(jobtable_state_class("RUNNING"), JC_RUNNING);
	ck_assert_int_eq(jobtable_state_class("COMPLETING"), JC_RUNNING);
	ck_assert_int_eq(jobtable_state_class("PENDING"), JC_PENDING);
	ck_assert_int_eq(jobtable_state_class("COMPLETED"), JC_DONE);
	ck_assert_int_eq(jobtable_state_class("OUT_OF_MEMORY"), JC_FAILED);
	/* sacct decorations: "CANCELLED by 123", "CANCELLED+". */
	ck_assert_int_eq(jobtable_state_class("CANCELLED by 1234"), JC_CANCELLED);
	ck_assert_int_eq(jobtable_state_class("CANCELLED+"), JC_CANCELLED);
	ck_assert_int_eq(jobtable_state_class("CANCELLEDX"), JC_OTHER);
	ck_assert_int_eq(jobtable_state_class(NULL), JC_OTHER);
	ck_assert(jobtable_state_final("TIMEOUT"));
	ck_assert(!jobtable_state_final("RUNNING"));
	ck_assert(!jobtable_state_final("WEIRD"));
}
END_TEST

/* 10 000 rows on 4 clusters: merge, filter, sort, move stay fast. */
START_TEST(test_ten_thousand)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	*a;
	char			(*ids)[16];
	const char		*cl[4] = { "a", "b", "c", "d" };
	int			 i, c, round;

	/* Work, not time, is bounded in test_linear_work. */
	a = xcalloc(2500, sizeof *a);
	ids = xcalloc(2500, sizeof *ids);
	for (round = 0; round < 5; round++) {
		for (c = 0; c < 4; c++) {
			for (i = 0; i < 2500; i++) {
				/* Each round drops 100 jobs and adds 100. */
				snprintf(ids[i], sizeof ids[i], "%d",
				    round * 100 + i);
				a[i] = row(ids[i], i % 3 ? "train" : "eval",
				    i % 2 ? "RUNNING" : "PENDING");
				a[i].elapsed = i;
			}
			jobtable_merge(jt, cl[c], a, 2500, round);
		}
	}
	ck_assert_uint_eq(jobtable_total(jt), 4 * (2500 + 400));
	jobtable_set_show_finished(jt, 0);
	ck_assert_uint_eq(jobtable_nvisible(jt), 10000);
	jobtable_select(jt, "c", "1234");
	jobtable_set_sort(jt, JT_TIME, 1);
	ck_assert_str_eq(jobtable_current(jt)->id, "1234");
	ck_assert_str_eq(jobtable_current(jt)->cluster, "c");
	jobtable_set_filter(jt, "eval", NULL);
	ck_assert_uint_eq(jobtable_nvisible(jt), 4 * 834);
	jobtable_set_filter(jt, "/^b 9[0-9]{2} ", NULL);
	ck_assert_uint_eq(jobtable_nvisible(jt), 100);
	jobtable_set_filter(jt, NULL, NULL);
	jobtable_move_to(jt, SIZE_MAX);
	ck_assert_uint_eq(jobtable_cursor(jt), 9999);
	free(a);
	free(ids);
	jobtable_free(jt);
}
END_TEST

/*
 * Work, not time: loading 10 000 records one upsert at a time sorts once
 * (it sorted after every upsert, 10 000 sorts: 34 s under ASan), and
 * cursor moves, marks and reads sort nothing.
 */
START_TEST(test_linear_work)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_stats	 s0, s1;
	struct jobtable_row	 r, *a;
	char			 (*ids)[16], name[32];
	unsigned		 v;
	size_t			 i, n = 10000;
	/* n log2 n comparisons for one sort, with room to spare. */
	unsigned long		 sortmax = 2 * n * 14;

	ids = xcalloc(n, sizeof *ids);
	a = xcalloc(n, sizeof *a);
	jobtable_get_stats(jt, &s0);
	for (i = 0; i < n; i++) {
		snprintf(ids[i], sizeof ids[i], "%zu", 900000 + (i * 7919) % n);
		snprintf(name, sizeof name, "rec-%zu", i);
		r = row(ids[i], name, "CANCELLED");
		r.cluster = (char *)"alpha";
		jobtable_upsert(jt, &r);
	}
	ck_assert_uint_eq(jobtable_nvisible(jt), n);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds - s0.rebuilds, 1);
	ck_assert_msg(s1.compares - s0.compares <= sortmax,
	    "%lu comparisons to load %zu rows", s1.compares - s0.compares, n);
	/* Sorted by id despite the scrambled insertion order. */
	ck_assert_str_eq(jobtable_visible(jt, 0)->id, "900000");
	ck_assert_str_eq(jobtable_visible(jt, n - 1)->id, "909999");

	/* Reading, moving and marking: no sort at all. */
	v = jobtable_version(jt);
	s0 = s1;
	for (i = 0; i < 1000; i++) {
		jobtable_move(jt, i % 2 ? -1 : 3);
		(void)jobtable_current(jt);
		(void)jobtable_top(jt, 40);
	}
	jobtable_toggle_mark(jt);
	ck_assert_uint_eq(jobtable_nmarked(jt), 1);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
	ck_assert_uint_eq(s1.compares, s0.compares);
	ck_assert_uint_eq(jobtable_version(jt), v);

	/* A poll of 10 000 live rows over them: one sort per snapshot. */
	for (i = 0; i < n; i++)
		a[i] = row(ids[i], "live", "RUNNING");
	jobtable_merge(jt, "alpha", a, n, 1);
	jobtable_merge(jt, "beta", a, n, 1);
	ck_assert_uint_eq(jobtable_nvisible(jt), 2 * n);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_le(s1.rebuilds - s0.rebuilds, 2);
	ck_assert_uint_le(s1.compares - s0.compares, 2 * 2 * sortmax);
	ck_assert_uint_ne(jobtable_version(jt), v);
	/* The mark and the cursor's key survived. */
	ck_assert_uint_eq(jobtable_nmarked(jt), 1);

	/*
	 * The same snapshot again (an idle cluster's next poll): no filter,
	 * no sort, no new version (32 clusters with a week of history each
	 * re-sorted 190,000 rows on every poll).
	 */
	s0 = s1;
	v = jobtable_version(jt);
	jobtable_merge(jt, "alpha", a, n, 2);
	(void)jobtable_nvisible(jt);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
	ck_assert_uint_eq(jobtable_version(jt), v);
	/* Run times moved: a new version to draw, still no sort by id... */
	for (i = 0; i < n; i++)
		a[i].elapsed = 66;
	jobtable_merge(jt, "alpha", a, n, 3);
	ck_assert_uint_ne(jobtable_version(jt), v);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
	ck_assert_int_eq(jobtable_visible(jt, 0)->elapsed, 66);
	/*
	 * ... and one state changed: that row alone is placed again, a
	 * binary search among 20 000 (the whole table was filtered and
	 * sorted: 20 000 x 14 comparisons, 32 clusters' polls several times
	 * a second).
	 */
	a[0].state = (char *)"COMPLETING";
	jobtable_merge(jt, "alpha", a, n, 4);
	(void)jobtable_nvisible(jt);
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
	ck_assert_uint_eq(s1.updates, s0.updates + 1);
	ck_assert_uint_eq(s1.placed, s0.placed + 1);
	ck_assert_msg(s1.compares - s0.compares <= 2 * 16,
	    "%lu comparisons to place 1 row", s1.compares - s0.compares);
	free(a);
	free(ids);
	jobtable_free(jt);
}
END_TEST

/* The visible rows as "cluster id" lines, and the hidden counts. */
static char *
vis_text(struct jobtable *jt)
{
	struct buf	b;
	size_t		i, fin, fil, fold;
	char		*s;

	buf_init(&b);
	jobtable_hidden(jt, &fin, &fil, &fold);
	buf_printf(&b, "hidden %zu %zu %zu\n", fin, fil, fold);
	for (i = 0; i < jobtable_nvisible(jt); i++)
		buf_printf(&b, "%s %s %s\n", jobtable_visible(jt, i)->cluster,
		    jobtable_visible(jt, i)->id, jobtable_visible(jt, i)->state);
	s = xstrdup(b.data);
	buf_free(&b);
	return s;
}

/*
 * Rows placed again one by one end where a full sort puts them, under
 * every sort, with a filter and finished rows hidden, arrays folded: the
 * order after a few polls is compared with the same table sorted anew.
 */
START_TEST(test_touched_order)
{
	static const char *const states[] = { "RUNNING", "PENDING",
	    "COMPLETED", "FAILED", "CANCELLED", "COMPLETING" };
	struct jobtable		*jt = jobtable_create();
	struct jobtable_stats	 s0, s1;
	struct jobtable_row	*a;
	char			 (*ids)[16], (*names)[32], *t1, *t2;
	size_t			 i, n = 3000, m, g = 0;
	int			 col, round, fin;

	ids = xcalloc(n, sizeof *ids);
	names = xcalloc(n, sizeof *names);
	a = xcalloc(n, sizeof *a);
	for (i = 0; i < n; i++) {
		/* Every 10th an array task: 7 arrays of tasks. */
		if (i % 10 == 0)
			snprintf(ids[i], sizeof ids[i], "%zu_%zu",
			    5000 + i % 7, i);
		else
			snprintf(ids[i], sizeof ids[i], "%zu",
			    7000 + (i * 7919) % n);
		snprintf(names[i], sizeof names[i], "job-%zu", (i * 31) % 97);
		a[i] = row(ids[i], names[i], states[i % 6]);
		a[i].elapsed = (long)(i % 13);
	}
	for (col = 0; col < JT_NCOLS; col++) {
		for (fin = 0; fin < 2; fin++) {
			jobtable_set_sort(jt, col, col % 2);
			jobtable_set_show_finished(jt, fin);
			jobtable_set_filter(jt, col == JT_NAME ? "job-1" : NULL,
			    NULL);
			m = n - col * 100;	/* some rows leave: ENDED */
			jobtable_merge(jt, "alpha", a, m, 1);
			jobtable_merge(jt, "beta", a, n, 1);
			(void)jobtable_nvisible(jt);
			jobtable_get_stats(jt, &s0);
			for (round = 1; round <= 3; round++) {
				g++;
				for (i = (size_t)round; i < n; i += 97) {
					a[i].state = (char *)states[(i + g) %
					    6];
					a[i].elapsed += 100 * round;
				}
				jobtable_merge(jt, round % 2 ? "alpha" : "beta",
				    a, m, (time_t)round + 1);
				(void)jobtable_nvisible(jt);
			}
			(void)jobtable_array_open(jt, 1);
			jobtable_get_stats(jt, &s1);
			ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
			ck_assert_uint_ge(s1.updates, s0.updates + 1);
			t1 = vis_text(jt);
			jobtable_set_sort(jt, col, col % 2);	/* all again */
			t2 = vis_text(jt);
			jobtable_get_stats(jt, &s0);
			ck_assert_uint_eq(s0.rebuilds, s1.rebuilds + 1);
			ck_assert_msg(strcmp(t1, t2) == 0, "sort %d, finished "
			    "%s: the rows placed one by one are not where a "
			    "sort puts them", col, fin ? "shown" : "hidden");
			free(t1);
			free(t2);
			jobtable_forget(jt, "alpha");
			jobtable_forget(jt, "beta");
		}
	}
	free(a);
	free(names);
	free(ids);
	jobtable_free(jt);
}
END_TEST

/*
 * A week of history (finished rows of 32 clusters) and 32 clusters' polls
 * over it: a poll's merge and the frame after it read the live rows and
 * the ones it changed, never every row (issue 25: each of them walked the
 * 193,000 rows, a cache miss each, for the counts, the rows that left the
 * queue and the arrays, and a pending range that started re-sorted them
 * all: the screen held keys for seconds).  The rows still end where a
 * full sort puts them.
 */
START_TEST(test_poll_over_history)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_stats	 s0, s1;
	struct jobtable_row	 r, a[8];
	char			 cluster[16], id[16], name[32], *t1, *t2;
	const struct jobtable_row *wr;
	size_t			 i, n = 50000, run, pend, nw;
	int			 c, poll;

	jobtable_set_sort(jt, JT_STATE, 0);
	memset(&r, 0, sizeof r);
	r.cluster = cluster;
	r.id = id;
	r.name = name;
	r.partition = (char *)"gpu";
	r.state = (char *)"CANCELLED";
	r.reason = (char *)"(record)";
	r.elapsed = r.limit = -1;
	r.finished = 1;
	for (i = 0; i < n; i++) {
		snprintf(cluster, sizeof cluster, "c%02zu", 1 + i % 32);
		snprintf(id, sizeof id, "%zu", 900000 + i);
		snprintf(name, sizeof name, "train-%zu", i % 977);
		jobtable_upsert(jt, &r);
	}
	ck_assert_uint_eq(jobtable_nvisible(jt), n);
	/* The first frame measures every row; then none is listed. */
	ck_assert_int_eq(jobtable_widths_changed(jt, &nw), 1);
	jobtable_widths_measured(jt);
	ck_assert_int_eq(jobtable_widths_changed(jt, &nw), 0);
	ck_assert_uint_eq(nw, 0);
	jobtable_get_stats(jt, &s0);
	for (poll = 0; poll < 4; poll++) {
		for (c = 1; c <= 32; c++) {
			snprintf(cluster, sizeof cluster, "c%02d", c);
			/* A running job, one that starts, an array's range. */
			a[0] = row("100", "run", "RUNNING");
			a[0].elapsed = 60 * poll;
			a[1] = row("101", "wait", poll < 2 ? "PENDING" :
			    "RUNNING");
			a[2] = row("102_[3-9]", "arr", "PENDING");
			a[3] = row("102_1", "arr", "RUNNING");
			a[4] = row("102_2", "arr", "RUNNING");
			/* The range leaves at the third poll: its tasks run. */
			jobtable_merge(jt, cluster, a, poll < 2 ? 5 : 2,
			    (time_t)poll + 1);
			(void)jobtable_nvisible(jt);	/* the frame */
			jobtable_count(jt, NULL, &run, &pend);
			/*
			 * The drawer measures the rows the poll changed (at
			 * most the 5 it sent, and the group rows, made anew
			 * by each frame: one array a cluster), not the 50,000
			 * shown.
			 */
			ck_assert_int_eq(jobtable_widths_changed(jt, &nw), 0);
			ck_assert_uint_le(nw, 5 + 32);
			for (i = 0; i < nw; i++)
				ck_assert_ptr_nonnull(
				    jobtable_widths_changed_row(jt, i, &wr));
			jobtable_widths_measured(jt);
		}
	}
	jobtable_get_stats(jt, &s1);
	ck_assert_uint_eq(s1.rebuilds, s0.rebuilds);
	ck_assert_msg(s1.visits - s0.visits <= 4 * 32 * 32 * 8,
	    "%lu rows read by 128 polls of 32 clusters over %zu rows",
	    s1.visits - s0.visits, n);
	ck_assert_uint_eq(run, 32 * 2);
	ck_assert_uint_eq(pend, 0);
	/* The range rows are gone; the tasks 102_1 and 102_2 ENDED. */
	ck_assert_uint_eq(jobtable_total(jt), n + 32 * 4);
	ck_assert_ptr_null(jobtable_find(jt, "c07", "102_[3-9]"));
	ck_assert_str_eq(jobtable_find(jt, "c07", "102_1")->state, "ENDED");
	t1 = vis_text(jt);
	jobtable_set_sort(jt, JT_STATE, 0);	/* all again */
	t2 = vis_text(jt);
	ck_assert_msg(strcmp(t1, t2) == 0, "rows placed one by one are not "
	    "where a sort puts them");
	free(t1);
	free(t2);
	jobtable_free(jt);
}
END_TEST

/*
 * A queue that moves as a real one does, poll after poll: jobs come with
 * growing ids, start, leave (ENDED), ranges split into tasks, with the
 * sort by id the test of tests/tui/run reads; after every poll the rows
 * are where a full sort puts them.
 */
START_TEST(test_queue_moves)
{
	static const char *const states[] = { "PENDING", "RUNNING",
	    "RUNNING", "COMPLETING" };
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 a[64];
	char			 ids[64][24], *t1, *t2;
	unsigned		 seed = 7;
	size_t			 i, n;
	int			 poll, col, next = 1000, first = 1000;

	for (col = 0; col < JT_NCOLS; col++) {
		jobtable_set_sort(jt, col, 0);
		for (poll = 0; poll < 60; poll++) {
			/* A window of live ids that slides: some leave. */
			first += (int)(rand_r(&seed) % 3);
			next += 1 + (int)(rand_r(&seed) % 3);
			n = 0;
			for (i = 0; (int)i < next - first && n < 60; i++) {
				if (rand_r(&seed) % 5 == 0)
					continue;
				if ((first + (int)i) % 11 == 0)
					snprintf(ids[n], sizeof ids[n], "%d_%s",
					    first + (int)i, poll % 2 ?
					    "[2-5]" : "1");
				else
					snprintf(ids[n], sizeof ids[n], "%d",
					    first + (int)i);
				a[n] = row(ids[n], "q", states[(i + (size_t)
				    poll) % 4]);
				a[n].nodes = (int)(rand_r(&seed) % 3);
				a[n].elapsed = poll;
				n++;
			}
			jobtable_merge(jt, poll % 3 ? "alpha" : "beta", a, n,
			    (time_t)poll + 1);
			t1 = vis_text(jt);
			jobtable_set_sort(jt, col, 0);	/* all again */
			t2 = vis_text(jt);
			ck_assert_msg(strcmp(t1, t2) == 0, "sort %d poll %d: "
			    "rows not where a sort puts them:\n%s\nvs\n%s",
			    col, poll, t1, t2);
			free(t1);
			free(t2);
		}
	}
	jobtable_free(jt);
}
END_TEST

START_TEST(test_array_ids)
{
	char		 base[32];
	const char	*task = NULL;

	ck_assert_int_eq(jobtable_array_split("12_3", base, sizeof base,
	    &task), 1);
	ck_assert_str_eq(base, "12");
	ck_assert_str_eq(task, "3");
	ck_assert_int_eq(jobtable_array_split("12_[4-9,11%2]", base,
	    sizeof base, &task), 1);
	ck_assert_str_eq(task, "[4-9,11%2]");
	ck_assert_int_eq(jobid_ntasks(task), 7);
	ck_assert_int_eq(jobid_ntasks("[1-9:2]"), 5);
	ck_assert_int_eq(jobid_ntasks("3"), 1);
	/* Not array ids: plain, heterogeneous, record ids, junk. */
	ck_assert_int_eq(jobtable_array_split("12", base, sizeof base, &task),
	    0);
	ck_assert_int_eq(jobtable_array_split("12+0", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("r_2026", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("12_", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("12_[4-", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("12_[9-4]", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("12_3x", base, sizeof base,
	    &task), 0);
	ck_assert_int_eq(jobtable_array_split("12_4-5", base, sizeof base,
	    &task), 0);
}
END_TEST

/*
 * squeue lists an array as its started tasks plus one row for the pending
 * rest: they are one closed group row with the counts, openable, and each
 * task (or the whole array through the group row) is a cancel target.
 */
START_TEST(test_array_group)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 r[5];
	struct jobtable_key	*k;
	const struct jobtable_row *g;
	char			 cell[64];
	size_t			 n;

	r[0] = row("12_1", "arr", "RUNNING");
	r[1] = row("12_2", "arr", "COMPLETED");
	r[2] = row("12_[3-6%2]", "arr", "PENDING");
	r[3] = row("11", "solo", "RUNNING");
	r[4] = row("13_1", "lone", "RUNNING");	/* one task: no group */
	jobtable_merge(jt, "a", r, 5, 1);
	ck_order(jt, "a/11 a/12 a/13_1");
	g = jobtable_visible(jt, 1);
	ck_assert_int_eq(g->array_tasks, 6);
	ck_assert_int_eq(g->array_open, 0);
	ck_assert_str_eq(g->state, "RUNNING");
	ck_assert_str_eq(g->name, "arr");
	ck_assert_str_eq(g->reason, "6 tasks: 1 running, 4 pending, "
	    "1 completed");
	ck_assert_int_eq(g->finished, 0);
	ck_assert_str_eq(jobtable_cell(g, JT_ID, cell, sizeof cell), "[+]12");

	/* Open it from the group row: tasks follow in task order. */
	jobtable_move_to(jt, 1);
	ck_assert_int_eq(jobtable_array_open(jt, 1), 0);
	ck_order(jt, "a/11 a/12 a/12_1 a/12_2 a/12_[3-6%2] a/13_1");
	g = jobtable_visible(jt, 1);
	ck_assert_str_eq(jobtable_cell(g, JT_ID, cell, sizeof cell), "[-]12");
	ck_assert_str_eq(jobtable_cell(jobtable_visible(jt, 2), JT_ID, cell,
	    sizeof cell), "  12_1");
	/* A refresh keeps it open and the cursor on its row. */
	jobtable_move_to(jt, 3);
	ck_assert_str_eq(jobtable_current(jt)->id, "12_2");
	jobtable_merge(jt, "a", r, 5, 2);
	ck_assert_str_eq(jobtable_current(jt)->id, "12_2");
	/* One task is a target of its own. */
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(k[0].id, "12_2");
	jobtable_key_clear(&k[0]);
	free(k);
	/* Closing from a task puts the cursor on the group row. */
	ck_assert_int_eq(jobtable_array_open(jt, 0), 0);
	ck_order(jt, "a/11 a/12 a/13_1");
	ck_assert_str_eq(jobtable_current(jt)->id, "12");
	/* The group row is the whole array: scancel 12. */
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(k[0].id, "12");
	ck_assert_str_eq(k[0].name, "arr");
	jobtable_key_clear(&k[0]);
	free(k);
	/* Its mark survives a refresh. */
	ck_assert_int_eq(jobtable_toggle_mark(jt), 1);
	jobtable_merge(jt, "a", r, 5, 3);
	ck_assert_int_eq(jobtable_marked(jt, 1), 1);
	ck_assert_uint_eq(jobtable_nmarked(jt), 1);
	k = jobtable_targets(jt, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(k[0].id, "12");
	jobtable_key_clear(&k[0]);
	free(k);
	jobtable_clear_marks(jt);
	ck_assert_int_eq(jobtable_marked(jt, 1), 0);
	/* Not an array: nothing to open. */
	jobtable_move_to(jt, 0);
	ck_assert_int_eq(jobtable_array_open(jt, -1), -1);

	/* Task 3 starts: the range row goes (not "ENDED"), 3 has its row. */
	r[2] = row("12_3", "arr", "RUNNING");
	r[3] = row("12_[4-6%2]", "arr", "PENDING");
	jobtable_merge(jt, "a", r, 5, 4);
	ck_assert_ptr_null(jobtable_find(jt, "a", "12_[3-6%2]"));
	ck_order(jt, "a/11 a/12 a/13_1");	/* 11 left: ENDED */
	ck_assert_str_eq(jobtable_visible(jt, 1)->reason, "6 tasks: "
	    "2 running, 3 pending, 1 completed");
	/* A filter that matches one task leaves it alone: no group. */
	ck_assert_int_eq(jobtable_set_filter(jt, "12_3", NULL), 0);
	ck_order(jt, "a/12_3");
	jobtable_free(jt);
}
END_TEST

/* A view (V): rows it refuses are hidden and counted apart; "failed"
   shows finished rows that the a toggle hides; the filter still applies. */
static int
view_failed(const struct jobtable_row *r, void *arg)
{
	(void)arg;
	return jobtable_state_class(r->state) == JC_FAILED;
}

static int
view_mine(const struct jobtable_row *r, void *arg)
{
	return r->user == NULL || strcmp(r->user, arg) == 0;
}

START_TEST(test_view)
{
	struct jobtable		*jt = jobtable_create();
	struct jobtable_row	 rows[4];
	size_t			 fin, fil, fold;

	rows[0] = row("1", "train-a", "RUNNING");
	rows[1] = row("2", "train-b", "FAILED");
	rows[2] = row("3", "eval-c", "TIMEOUT");
	rows[3] = row("4", "eval-d", "PENDING");
	jobtable_merge(jt, "c", rows, 4, 100);
	jobtable_set_sort(jt, JT_ID, 0);
	jobtable_set_view(jt, view_failed, NULL, 1);
	ck_order(jt, "c/2 c/3");
	ck_assert_uint_eq(jobtable_hidden_view(jt), 2);
	jobtable_set_show_finished(jt, 0);
	ck_order(jt, "c/2 c/3");
	jobtable_set_filter(jt, "eval", NULL);
	ck_order(jt, "c/3");
	jobtable_hidden(jt, &fin, &fil, &fold);
	ck_assert_uint_eq(fil, 1);
	ck_assert_uint_eq(jobtable_hidden_view(jt), 2);
	/* Without all_finished the a toggle applies first. */
	jobtable_set_view(jt, view_failed, NULL, 0);
	ck_order(jt, "");
	jobtable_set_view(jt, NULL, NULL, 0);
	jobtable_set_filter(jt, NULL, NULL);
	jobtable_set_show_finished(jt, 1);
	ck_order(jt, "c/1 c/2 c/3 c/4");
	ck_assert_uint_eq(jobtable_hidden_view(jt), 0);

	/* A row's user is kept: "mine" hides another user's record. */
	rows[0] = row("9", "other", "COMPLETED");
	rows[0].cluster = (char *)"c";
	rows[0].user = (char *)"alice";
	jobtable_upsert(jt, &rows[0]);
	ck_assert_str_eq(jobtable_find(jt, "c", "9")->user, "alice");
	jobtable_set_view(jt, view_mine, (void *)"bob", 0);
	ck_order(jt, "c/1 c/2 c/3 c/4");
	ck_assert_uint_eq(jobtable_hidden_view(jt), 1);
	jobtable_set_view(jt, view_mine, (void *)"alice", 0);
	ck_order(jt, "c/1 c/2 c/3 c/4 c/9");
	jobtable_free(jt);
}
END_TEST

#if TEST_HEAP_SIZES
/*
 * Issue 25: a week of history (193,000 rows) within the TUI's 64 MB.  A
 * history row costs the table its entry and its id: the cluster,
 * partition, state and reason that thousands of rows share are kept
 * once, as are repeated names (main copied six strings into every row,
 * ~420 bytes a row).  mallinfo2 counts what the table holds; a malloc
 * it does not see (a sanitizer's) leaves nothing to measure.  An entry
 * of 144 bytes (a byte per flag) made 194 bytes a row; 128 (bits, and
 * the row's flags in bytes) made 178 (fails the bound); 112 (run times
 * in ints, the cluster's index a bit field), no array of every row (the
 * slabs are walked) and the shown rows' array the sorted one unless
 * arrays fold make 140.
 */
START_TEST(test_history_compact)
{
	struct jobtable		*jt;
	struct jobtable_row	 r;
	size_t			 used0;
	char			 cluster[16], id[16], name[32];
	int			 measure;
	size_t			 i, n = 20000;

	measure = test_heap_measurable();
	used0 = test_heap_used();
	jt = jobtable_create();
	memset(&r, 0, sizeof r);
	r.cluster = cluster;
	r.id = id;
	r.name = name;
	r.partition = (char *)"gpu";
	r.state = (char *)"CANCELLED";
	r.reason = (char *)"(record)";
	r.elapsed = r.limit = -1;
	r.nodes = 1;
	r.finished = 1;
	for (i = 0; i < n; i++) {
		snprintf(cluster, sizeof cluster, "c%02zu", 1 + i % 32);
		snprintf(id, sizeof id, "%zu", 900000 + i);
		snprintf(name, sizeof name, "bench-train-%zu", i % 977);
		jobtable_upsert(jt, &r);
	}
	ck_assert_uint_eq(jobtable_nvisible(jt), n);	/* sorted, drawn */
	test_heap_per(measure, used0, n, 144, "history row");
	jobtable_free(jt);
}
END_TEST
#endif

static Suite *
jobtable_suite(void)
{
	Suite	*s = suite_create("jobtable");
	TCase	*tc = tcase_create("jobtable");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_merge_replaces_cluster);
	tcase_add_test(tc, test_upsert_and_set_state);
	tcase_add_test(tc, test_selection_kept);
	tcase_add_test(tc, test_move_and_top);
	tcase_add_test(tc, test_cell_width);
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_sort);
	tcase_add_test(tc, test_first_screen);
	tcase_add_test(tc, test_marks_and_targets);
	tcase_add_test(tc, test_foreach_row);
	tcase_add_test(tc, test_cells_and_states);
	tcase_add_test(tc, test_ten_thousand);
	tcase_add_test(tc, test_linear_work);
	tcase_add_test(tc, test_touched_order);
	tcase_add_test(tc, test_poll_over_history);
	tcase_add_test(tc, test_queue_moves);
	tcase_add_test(tc, test_array_ids);
	tcase_add_test(tc, test_array_group);
	tcase_add_test(tc, test_view);
#if TEST_HEAP_SIZES
	tcase_add_test(tc, test_history_compact);
#endif
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(jobtable_suite)
