/* ui-text: sanitising, display width, truncation, column layout. */
#include <locale.h>

#include "testutil.h"
#include "jobact.h"
#include "ui-text.h"
#include "ui-int.h"
#include "ops.h"
#include "text.h"

#define ELL	"\xe2\x80\xa6"		/* … */
#define REP	UITEXT_REPLACEMENT	/* U+FFFD */
#define CJK	"\xe6\x97\xa5\xe6\x9c\xac"	/* 日本: 2 chars, 4 columns */
#define EACUTE	"e\xcc\x81"		/* e + combining acute: 1 column */

static void
utf8_locale(void)
{
	/* wcwidth needs a UTF-8 LC_CTYPE, as the TUI sets from the user's. */
	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
}

static void
ck_sanitize(const char *in, size_t len, int flags, const char *want)
{
	char	*got = uitext_sanitize(in, len, flags);

	ck_assert_msg(strcmp(got, want) == 0, "sanitize: got '%s', want '%s'",
	    got, want);
	free(got);
}
#define SAN(in, flags, want) ck_sanitize(in, sizeof in - 1, flags, want)

START_TEST(test_sanitize_escapes)
{
	utf8_locale();
	SAN("plain text", 0, "plain text");
	SAN("", 0, "");
	/* Colours, cursor moves, title setting (OSC), DCS: removed whole. */
	SAN("\x1b[1;31mred\x1b[0m ok", 0, "red ok");
	SAN("a\x1b[2J\x1b[Hb", 0, "ab");
	SAN("\x1b]0;evil title\x07" "after", 0, "after");
	SAN("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", 0, "link");
	SAN("\x1bPq#0;2;0;0;0\x1b\\x", 0, "x");
	SAN("\x1b" "cX", 0, "X");
	SAN("\x1b(Bz", 0, "z");
	/* A cut-off sequence at the end of a chunk disappears too. */
	SAN("tail\x1b[38;5", 0, "tail");
	SAN("tail\x1b", 0, "tail");
	/* A broken CSI stops at the bad byte, which is then handled. */
	SAN("\x1b[12\x01z", 0, REP "z");
}
END_TEST

START_TEST(test_sanitize_controls)
{
	utf8_locale();
	SAN("bell\x07!", 0, "bell" REP "!");
	SAN("nul\0x", 0, "nul" REP "x");
	SAN("del\x7f", 0, "del" REP);
	SAN("bs\x08", 0, "bs" REP);
	/* C1 controls encoded in UTF-8 (U+009B is a one-char CSI). */
	SAN("c1\xc2\x9b" "2J", 0, "c1" REP "2J");
	/* Bidi override (Trojan Source). */
	SAN("x\xe2\x80\xaey", 0, "x" REP "y");
	/* Tabs to the next multiple of 8, counting display columns. */
	SAN("a\tb", 0, "a       b");
	SAN(CJK "\tb", 0, CJK "    b");
	SAN("12345678\tx", 0, "12345678        x");
	/* Lines. */
	SAN("one\ntwo", 0, "one two");
	SAN("one\ntwo", UITEXT_MULTILINE, "one\ntwo");
	SAN("dos\r\nline", UITEXT_MULTILINE, "dos\nline");
	SAN("a\n\tb", UITEXT_MULTILINE, "a\n        b");
	/* A progress bar rewrites its line: only the last state stays. */
	SAN("start\n 10%\r 50%\r100%\nend", UITEXT_MULTILINE,
	    "start\n100%\nend");
	SAN("x\ry", 0, "x y");
}
END_TEST

START_TEST(test_sanitize_utf8)
{
	utf8_locale();
	SAN("caf\xc3\xa9 " CJK " " EACUTE, 0, "caf\xc3\xa9 " CJK " " EACUTE);
	SAN("emoji \xf0\x9f\x98\x80", 0, "emoji \xf0\x9f\x98\x80");
	/* Invalid: lone continuation, overlong, surrogate, > U+10FFFF,
	 * truncated, 0xff. */
	SAN("a\x80z", 0, "a" REP "z");
	SAN("\xc0\xaf", 0, REP REP);
	SAN("\xed\xa0\x80", 0, REP REP REP);
	SAN("\xf4\x90\x80\x80", 0, REP REP REP REP);
	SAN("cut\xe6\x97", 0, "cut" REP REP);
	SAN("\xff", 0, REP);
	/* Latin-1 text is not UTF-8: every high byte replaced, nothing lost. */
	SAN("na\xefve", 0, "na" REP "ve");
	/* Unassigned code point (U+0378) is not printable. */
	SAN("\xcd\xb8", 0, REP);
}
END_TEST

START_TEST(test_decode)
{
	int32_t	cp;

	ck_assert_uint_eq(uitext_decode("A", 1, &cp), 1);
	ck_assert_int_eq(cp, 'A');
	ck_assert_uint_eq(uitext_decode("\xc3\xa9", 2, &cp), 2);
	ck_assert_int_eq(cp, 0xe9);
	ck_assert_uint_eq(uitext_decode(CJK, 6, &cp), 3);
	ck_assert_int_eq(cp, 0x65e5);
	ck_assert_uint_eq(uitext_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	ck_assert_int_eq(cp, 0x1f600);
	/* Truncated by len even though the bytes follow in memory. */
	ck_assert_uint_eq(uitext_decode("\xc3\xa9", 1, &cp), 1);
	ck_assert_int_eq(cp, -1);
	ck_assert_uint_eq(uitext_decode("\xe0\x80\x80", 3, &cp), 1);
	ck_assert_int_eq(cp, -1);
}
END_TEST

START_TEST(test_width)
{
	utf8_locale();
	ck_assert_int_eq(uitext_width(""), 0);
	ck_assert_int_eq(uitext_width("abc"), 3);
	ck_assert_int_eq(uitext_width(CJK), 4);
	ck_assert_int_eq(uitext_width(EACUTE), 1);
	ck_assert_int_eq(uitext_width("\xf0\x9f\x98\x80"), 2);
	ck_assert_int_eq(uitext_width(ELL), 1);
	ck_assert_int_eq(uitext_width(REP), 1);
	ck_assert_int_eq(uitext_cpwidth(-1), 1);

	int	used;
	ck_assert_uint_eq(uitext_prefix("abcdef", 3, &used), 3);
	ck_assert_int_eq(used, 3);
	/* A wide char does not fit in the last column. */
	ck_assert_uint_eq(uitext_prefix("a" CJK, 2, &used), 1);
	ck_assert_int_eq(used, 1);
	ck_assert_uint_eq(uitext_prefix("a" CJK, 3, &used), 4);
	ck_assert_int_eq(used, 3);
	/* The combining mark stays with its letter. */
	ck_assert_uint_eq(uitext_prefix(EACUTE "x", 1, &used), 3);
	ck_assert_int_eq(used, 1);
	ck_assert_uint_eq(uitext_prefix("abc", 0, NULL), 0);
}
END_TEST

static void
ck_fit(const char *s, int cols, int flags, const char *want)
{
	char	*got = uitext_fit(s, cols, flags);

	ck_assert_msg(strcmp(got, want) == 0, "fit('%s', %d): got '%s', "
	    "want '%s'", s, cols, got, want);
	if (cols > 0)
		ck_assert_int_eq(uitext_width(got), cols);
	free(got);
}

START_TEST(test_fit)
{
	utf8_locale();
	ck_fit("abc", 5, 0, "abc  ");
	ck_fit("abc", 5, UITEXT_RIGHT, "  abc");
	ck_fit("abc", 3, 0, "abc");
	ck_fit("abcdef", 4, 0, "abc" ELL);
	ck_fit("abcdef", 4, UITEXT_ASCII, "abc~");
	ck_fit("abcdef", 1, 0, ELL);
	ck_fit("abc", 0, 0, "");
	ck_fit("abc", -3, 0, "");
	ck_fit("", 2, 0, "  ");
	/* CJK: 日本x is 5 columns; in 4, 日 + hole + … */
	ck_fit(CJK "x", 4, 0, "\xe6\x97\xa5 " ELL);
	ck_fit(CJK "x", 5, 0, CJK "x");
	ck_fit(CJK "xy", 5, 0, CJK ELL);
	ck_fit(EACUTE EACUTE EACUTE, 2, 0, EACUTE ELL);
	ck_fit(EACUTE, 3, UITEXT_RIGHT, "  " EACUTE);
}
END_TEST

START_TEST(test_age)
{
	char	buf[16];

	uitext_age(0, buf, sizeof buf);
	ck_assert_str_eq(buf, "now");
	uitext_age(-5, buf, sizeof buf);
	ck_assert_str_eq(buf, "now");
	uitext_age(42, buf, sizeof buf);
	ck_assert_str_eq(buf, "42s");
	uitext_age(300, buf, sizeof buf);
	ck_assert_str_eq(buf, "5m");
	uitext_age(3 * 3600 + 5, buf, sizeof buf);
	ck_assert_str_eq(buf, "3h");
	uitext_age(2 * 86400, buf, sizeof buf);
	ck_assert_str_eq(buf, "2d");
}
END_TEST

START_TEST(test_layout_generic)
{
	struct uitext_col	c[3];
	int			used;

	memset(c, 0, sizeof c);
	c[0] = (struct uitext_col){ .min = 5, .want = 10 };
	c[1] = (struct uitext_col){ .min = 3, .want = 20, .shrink = 1, .grow = 1 };
	c[2] = (struct uitext_col){ .min = 4, .want = 8, .shrink = 2, .drop = 1 };
	/* Fits: the grow column takes the rest. */
	used = uitext_layout(c, 3, 50, 1);
	ck_assert_int_eq(used, 50);
	ck_assert_int_eq(c[0].width, 10);
	ck_assert_int_eq(c[1].width, 30);
	ck_assert_int_eq(c[2].width, 8);
	/* Too wide: shrink order 1 first. */
	used = uitext_layout(c, 3, 30, 1);
	ck_assert_int_eq(used, 30);
	ck_assert_int_eq(c[1].width, 10);
	ck_assert_int_eq(c[2].width, 8);
	/* Then order 2. */
	used = uitext_layout(c, 3, 20, 1);
	ck_assert_int_eq(used, 20);
	ck_assert_int_eq(c[1].width, 3);
	ck_assert_int_eq(c[2].width, 5);
	/* Then drop, and the freed space goes back to the others. */
	used = uitext_layout(c, 3, 15, 1);
	ck_assert_int_eq(c[2].width, 0);
	ck_assert_int_eq(c[0].width, 10);
	ck_assert_int_eq(c[1].width, 4);
	ck_assert_int_eq(used, 15);
	/* Nothing left to give: minimums, wider than the screen. */
	used = uitext_layout(c, 3, 5, 1);
	ck_assert_int_eq(c[0].width, 10);
	ck_assert_int_eq(c[1].width, 3);
	ck_assert_int_gt(used, 5);
}
END_TEST

/* Typical wants: what 3 clusters of training jobs look like. */
static const int typical[JT_NCOLS] = {
	[JT_CLUSTER] = 8, [JT_ID] = 7, [JT_NAME] = 28, [JT_PARTITION] = 9,
	[JT_STATE] = 10, [JT_TIME] = 17, [JT_NODES] = 5, [JT_REASON] = 30,
};

static int
row_width(const int w[JT_NCOLS])
{
	int	i, used = 0, shown = 0;

	for (i = 0; i < JT_NCOLS; i++) {
		if (w[i] > 0) {
			used += w[i];
			shown++;
		}
	}
	return used + shown - 1;
}

START_TEST(test_jobs_layout)
{
	int	w[JT_NCOLS];

	/* Wide terminal: everything at its want, reason takes the rest. */
	uitext_jobs_layout(200, typical, w);
	ck_assert_int_eq(w[JT_NAME], 28);
	ck_assert_int_eq(w[JT_ID], 7);
	ck_assert_int_eq(row_width(w), 200);

	/* 80 columns: reason then name shrink; id, state, time whole. */
	uitext_jobs_layout(80, typical, w);
	ck_assert_int_eq(row_width(w), 80);
	ck_assert_int_eq(w[JT_ID], 7);
	ck_assert_int_eq(w[JT_STATE], 10);
	ck_assert_int_eq(w[JT_TIME], 17);
	ck_assert_int_eq(w[JT_CLUSTER], 8);
	ck_assert_int_eq(w[JT_PARTITION], 9);
	ck_assert_int_eq(w[JT_REASON], 6);
	ck_assert_int_ge(w[JT_NAME], 8);
	ck_assert_int_lt(w[JT_NAME], 28);

	/* 60 columns: nodes hidden rather than the time cut. */
	uitext_jobs_layout(60, typical, w);
	ck_assert_int_le(row_width(w), 60);
	ck_assert_int_eq(w[JT_ID], 7);
	ck_assert_int_eq(w[JT_STATE], 10);
	ck_assert_int_ge(w[JT_NAME], 8);
	ck_assert_int_eq(w[JT_NODES], 0);
	ck_assert_int_eq(w[JT_TIME], 17);

	/* 40 columns: id, name and state survive. */
	uitext_jobs_layout(40, typical, w);
	ck_assert_int_le(row_width(w), 40);
	ck_assert_int_eq(w[JT_ID], 7);
	ck_assert_int_eq(w[JT_STATE], 10);
	ck_assert_int_ge(w[JT_NAME], 8);

	/* Caps: an absurd name does not push everything off. */
	int	huge[JT_NCOLS];
	memcpy(huge, typical, sizeof huge);
	huge[JT_NAME] = 500;
	huge[JT_STATE] = 40;	/* "CANCELLED by 123456789 ..." */
	uitext_jobs_layout(200, huge, w);
	ck_assert_int_eq(w[JT_NAME], 40);
	ck_assert_int_eq(w[JT_STATE], 13);
	ck_assert_int_eq(row_width(w), 200);
}
END_TEST

/*
 * H and U (man sqdeck, TERMINAL UI): which rows are left alone and why, the
 * same words for the selected row as for each marked one, and the sum the
 * footer gives once every marked job answered.
 */
static struct jobtable_row
hrow(const char *id, const char *state, const char *reason, int finished)
{
	struct jobtable_row	r;

	memset(&r, 0, sizeof r);
	r.cluster = (char *)"sdtb";
	r.id = (char *)id;
	r.state = (char *)state;
	r.reason = (char *)reason;
	r.finished = finished;
	return r;
}

static void
ck_skip(struct jobtable_row r, int release, const char *want)
{
	char	*got = uitext_hold_skip(&r, release);

	if (want == NULL)
		ck_assert_msg(got == NULL, "skipped: %s", got);
	else {
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
	}
	free(got);
}

START_TEST(test_hold_skip)
{
	char	*s;

	ck_skip(hrow("101", "PENDING", "Priority", 0), 0, NULL);
	ck_skip(hrow("101", "PENDING", "JobHeldUser", 0), 1, NULL);
	ck_skip(hrow("12_3", "PENDING", "Resources", 0), 0, NULL);
	ck_skip(hrow("102", "COMPLETED", "", 1), 0,
	    "sdtb 102 has ended (COMPLETED): nothing to hold");
	ck_skip(hrow("102", "CANCELLED", "", 1), 1,
	    "sdtb 102 has ended (CANCELLED): nothing to release");
	ck_skip(hrow("103", "RUNNING", "sdn1", 0), 0,
	    "sdtb 103 is RUNNING: SLURM holds only pending jobs");
	ck_skip(hrow("104", "PENDING", "Priority", 0), 1,
	    "sdtb 104 is not held (PENDING, Priority): nothing to release");
	ck_skip(hrow("104", "PENDING", NULL, 0), 1,
	    "sdtb 104 is not held (PENDING): nothing to release");
	/* scontrol hold takes a range of tasks as it is (issue 27). */
	ck_skip(hrow("12_[4-9%2]", "PENDING", "JobArrayTaskLimit", 0), 0,
	    NULL);
	ck_skip(hrow("105", "PENDING", "Priority", 0), JOBACT_REQUEUE,
	    "sdtb 105 is PENDING: only a running job can be requeued");
	ck_skip(hrow("105", "PENDING", "Priority", 0), JOBACT_SIGNAL,
	    "sdtb 105 is PENDING: only a running job can be signalled");
	ck_skip(hrow("106", "RUNNING", "sdn1", 0), JOBACT_SIGNAL, NULL);
	ck_skip(hrow("106", "RUNNING", "sdn1", 0), JOBACT_REQUEUE, NULL);
	ck_skip(hrow("106", "RUNNING", "sdn1", 0), JOBACT_TIME, NULL);
	ck_skip(hrow("12_[4-9]", "PENDING", "Priority", 0), JOBACT_TIME,
	    NULL);
	ck_skip(hrow("107", "COMPLETED", "", 1), JOBACT_TIME,
	    "sdtb 107 has ended (COMPLETED): its time limit no longer "
	    "applies");
	ck_assert_int_eq(uitext_row_held(&(struct jobtable_row){ .state =
	    (char *)"PENDING", .reason = (char *)"JobHeldAdmin" }), 1);
	ck_assert_int_eq(uitext_row_held(&(struct jobtable_row){ .state =
	    (char *)"RUNNING", .reason = (char *)"JobHeldAdmin" }), 0);

	s = uitext_hold_summary(0, 3, 3, 0, "", 0, "");
	ck_assert_str_eq(s, "held 3 jobs");
	free(s);
	s = uitext_hold_summary(1, 1, 1, 0, NULL, 0, NULL);
	ck_assert_str_eq(s, "released 1 job");
	free(s);
	s = uitext_hold_summary(0, 1, 2, 1, "sdtb 105: scontrol hold failed: "
	    "Invalid job id specified", 1, "sdtb 103 is RUNNING: SLURM holds "
	    "only pending jobs");
	ck_assert_str_eq(s, "held 1 of 2 jobs; failed 1: sdtb 105: scontrol "
	    "hold failed: Invalid job id specified; skipped 1: sdtb 103 is "
	    "RUNNING: SLURM holds only pending jobs");
	free(s);
	s = uitext_hold_summary(JOBACT_REQUEUE, 2, 2, 0, NULL, 0, NULL);
	ck_assert_str_eq(s, "requeued 2 jobs");
	free(s);
}
END_TEST

/*
 * NO_COLOR (or a terminal without colours): every style is attributes
 * only, no colour pair, and the ones that stand out still do (reverse or
 * bold).  styles_init touches no terminal when colour is off.
 */
START_TEST(test_styles_mono)
{
	struct ui	*ui = xcalloc(1, sizeof *ui);
	int		 i;

	ui->color = 0;
	styles_init(ui);
	for (i = 0; i < ST_COUNT; i++)
		ck_assert_msg((ui->styles[i] & A_COLOR) == 0, "style %d", i);
	ck_assert(ui->styles[ST_CURSOR] & A_REVERSE);
	ck_assert(ui->styles[ST_HEADER] & A_REVERSE);
	ck_assert(ui->styles[ST_FAILED] & A_BOLD);
	ck_assert(ui->styles[ST_MSG_ERR] & (A_REVERSE | A_BOLD));
	free(ui);
}
END_TEST

/*
 * The CLI's tables pad by display cells (issue 26 item 12): a U+FFFD is
 * three bytes and one cell, a CJK character two cells; the columns after
 * them start where the heading's do.
 */
/* Issue 26.11: a cancel of marked rows says every job's outcome. */
/* Issue 26.12: a held pending array is pending in the log pane, not ended. */
START_TEST(test_log_pending)
{
	struct jobtable_row	r = { .cluster = (char *)"sdtb",
				    .id = (char *)"12_[0-3]",
				    .state = (char *)"PENDING",
				    .reason = (char *)"JobHeldUser" };
	char			*s;

	s = uitext_log_pending(&r, "main.out");
	ck_assert_str_eq(s, "pending, held (JobHeldUser): no main.out until "
	    "it runs; U releases it");
	free(s);
	r.reason = (char *)"Resources";
	s = uitext_log_pending(&r, "main.err");
	ck_assert_str_eq(s, "pending (Resources): no main.err until it "
	    "starts");
	free(s);
	r.reason = NULL;
	s = uitext_log_pending(&r, "main.out");
	ck_assert_str_eq(s, "pending: no main.out until it starts");
	free(s);
	r.state = (char *)"COMPLETED";
	ck_assert_ptr_null(uitext_log_pending(&r, "main.out"));
	r.state = (char *)"PENDING";
	r.array_tasks = 4;	/* a group row: its note says more */
	ck_assert_ptr_null(uitext_log_pending(&r, "main.out"));
	ck_assert_ptr_null(uitext_log_pending(NULL, "main.out"));
}
END_TEST

START_TEST(test_cancel_summary)
{
	char	*s, *was;

	ck_assert_int_eq(uitext_cancel_answer("cancelled train (was RUNNING)",
	    &was), 0);
	ck_assert_str_eq(was, "(was RUNNING)");
	free(was);
	/* A name with the words of the other answer in it. */
	ck_assert_int_eq(uitext_cancel_answer("cancelled x had already ended: "
	    "counts as cancelled (was PENDING); secrets sidecar removed",
	    &was), 0);
	ck_assert_str_eq(was, "(was PENDING)");
	free(was);
	ck_assert_int_eq(uitext_cancel_answer("cancelled (was x) (was "
	    "RUNNING) had already ended: counts as cancelled", &was), 1);
	ck_assert_ptr_null(was);
	ck_assert_int_eq(uitext_cancel_answer(NULL, &was), 0);
	ck_assert_ptr_null(was);

	s = uitext_cancel_summary(2, 2, "sdtb 12 (was RUNNING), sdtb 13 "
	    "(was PENDING)", 0, "", 0, "");
	ck_assert_str_eq(s, "cancelled 2 jobs: sdtb 12 (was RUNNING), sdtb 13 "
	    "(was PENDING)");
	free(s);
	s = uitext_cancel_summary(3, 1, "sdtb 12 (was RUNNING)", 1, "b 13", 1,
	    "sdtb 14: scancel: Invalid job id specified");
	ck_assert_str_eq(s, "cancelled 1 of 3 jobs: sdtb 12 (was RUNNING); "
	    "already ended 1: b 13; failed 1: sdtb 14: scancel: Invalid job "
	    "id specified");
	free(s);
	s = uitext_cancel_summary(2, 0, "", 2, "sdtb 12, sdtb 13", 0, NULL);
	ck_assert_str_eq(s, "cancelled 0 of 2 jobs; already ended 2: sdtb 12, "
	    "sdtb 13");
	free(s);
}
END_TEST

START_TEST(test_cli_table_cells)
{
	static const char *const head[] = { "NAME", "STATE" };
	char	*cells[] = { "a" REP "b", "RUNNING", CJK, "PENDING",
			     "plain", "FAILED" };
	char	*out = NULL, *line, *save;
	size_t	 len = 0, used;
	FILE	*f;

	utf8_locale();
	ck_assert_uint_eq(text_width("a" REP "b"), 3);
	ck_assert_uint_eq(text_width(CJK), 4);
	ck_assert_uint_eq(text_width(EACUTE), 1);
	ck_assert_uint_eq(text_width("x\xffy"), 3);	/* invalid: one cell */
	/* Never half a character: 日 fits in 3 cells, 本 does not. */
	ck_assert_uint_eq(text_fit(CJK, 3, &used), 3);
	ck_assert_uint_eq(used, 2);
	ck_assert_uint_eq(text_fit("a" REP "b", 2, &used), 4);
	ck_assert_uint_eq(used, 2);

	f = open_memstream(&out, &len);
	ops_table_print(f, head, 2, cells, 3, 0);
	fclose(f);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		const char	*st = strrchr(line, ' ') + 1;
		char		 pre[64];

		/* What comes before STATE's column is 7 cells wide. */
		snprintf(pre, sizeof pre, "%.*s", (int)(st - line), line);
		ck_assert_msg(text_width(pre) == 7, "'%s': %zu cells before "
		    "the state", line, text_width(pre));
	}
	free(out);
}
END_TEST

static Suite *
uitext_suite(void)
{
	Suite	*s = suite_create("uitext");
	TCase	*tc = tcase_create("uitext");

	tcase_add_test(tc, test_sanitize_escapes);
	tcase_add_test(tc, test_sanitize_controls);
	tcase_add_test(tc, test_sanitize_utf8);
	tcase_add_test(tc, test_decode);
	tcase_add_test(tc, test_width);
	tcase_add_test(tc, test_fit);
	tcase_add_test(tc, test_age);
	tcase_add_test(tc, test_layout_generic);
	tcase_add_test(tc, test_jobs_layout);
	tcase_add_test(tc, test_styles_mono);
	tcase_add_test(tc, test_hold_skip);
	tcase_add_test(tc, test_cli_table_cells);
	tcase_add_test(tc, test_cancel_summary);
	tcase_add_test(tc, test_log_pending);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(uitext_suite)
