#ifndef UI_TEXT_H
#define UI_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "jobtable.h"

/*
 * Text for the screen, without curses (unit-tested): sanitising what the
 * cluster sends, display widths by wcwidth(3) (so the current locale's
 * LC_CTYPE must be UTF-8, as it is for ncursesw), truncation with an
 * ellipsis, and the column layout of the jobs table.
 */

#define UITEXT_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD (TEXT_REPLACEMENT) */

/* uitext_sanitize flags. */
#define UITEXT_MULTILINE	0x1	/* keep \n; a lone \r rewinds the line */

/*
 * Make untrusted bytes safe to draw (text_sanitize(), the sanitiser the
 * verbs use too): escape sequences (CSI, OSC, DCS and
 * two-byte ESC x) are removed whole; tabs become spaces to the next
 * multiple of 8; \r\n becomes \n; other control characters (C0, DEL, C1),
 * bidi overrides, non-printable code points and invalid UTF-8 become
 * U+FFFD.  Without UITEXT_MULTILINE, \n and \r become spaces.  Returns a
 * new NUL-terminated string.
 */
char	*uitext_sanitize(const char *, size_t, int flags);

/*
 * The log pane's partial last line (bytes after the last \n) is kept to
 * max bytes: a progress bar that only ever writes \r would grow it
 * forever and it is sanitised every frame.  Returns how many leading bytes
 * of s (len bytes) to drop: 0 when len <= max; else up to its last \r when
 * the rest fits (only the bar's latest state is shown anyway); else len
 * (the caller shows the bytes as a complete line and starts over).
 */
size_t	 uitext_partial_keep(const char *s, size_t len, size_t max);

/*
 * Decode one UTF-8 character of s (len bytes, len > 0); returns the bytes
 * used (at least 1) and the code point in *cp, or -1 if invalid
 * (overlong, surrogate, out of range, truncated).
 */
size_t	 uitext_decode(const char *s, size_t len, int32_t *cp);
/* Columns of a code point: 0 (combining), 1 or 2 (wide); never < 0. */
int	 uitext_cpwidth(int32_t cp);
/* Columns of a (sanitised) UTF-8 string. */
int	 uitext_width(const char *);
/*
 * Bytes of the longest prefix of s that fits in cols columns; zero-width
 * characters stay with the character before them.  *used (may be NULL)
 * gets the columns it takes.
 */
size_t	 uitext_prefix(const char *s, int cols, int *used);

/* uitext_fit flags. */
#define UITEXT_RIGHT	0x1	/* right-align (numbers) */
#define UITEXT_ASCII	0x2	/* "~" instead of "…" (non-UTF-8 terminal) */

/*
 * s made exactly cols columns wide: padded with spaces, or cut with an
 * ellipsis in the last column.  A wide character that would straddle the
 * edge is replaced by padding.  Returns a new string ("" if cols <= 0).
 */
char	*uitext_fit(const char *s, int cols, int flags);

/* Short age for the header: "now", "42s", "5m", "3h", "2d". */
void	 uitext_age(long secs, char *buf, size_t len);

/*
 * Generic column layout.  Columns start at their wanted width; when the
 * row is too wide the shrinkable ones lose width (lowest shrink order
 * first) down to their minimum, then droppable ones are hidden (lowest
 * drop order first); spare width goes to the grow column.
 */
struct uitext_col {
	int	min;		/* narrowest useful width */
	int	want;		/* what the content needs, title included */
	int	shrink;		/* 0: never below want; else order, 1 first */
	int	drop;		/* 0: never hidden; else order, 1 first */
	int	grow;		/* takes the spare width */
	int	width;		/* out: 0 when hidden */
};
/* Lay out n columns in total columns with gap spaces between shown ones;
 * returns the width used. */
int	 uitext_layout(struct uitext_col *, size_t n, int total, int gap);

/*
 * The jobs table: widths for each column given the widest cell of each
 * (want, title included) and the terminal width; 0 means hidden.  The
 * reason and then the name shrink first; id and state are kept whole;
 * nodes, reason, partition, cluster and time are hidden, in that order, only
 * when even the minimums do not fit.  Columns are separated by one space.
 */
void	 uitext_jobs_layout(int width, const int want[JT_NCOLS],
	     int out[JT_NCOLS]);

/* A pending job held by its user or an admin (SLURM: JobHeld*). */
int	 uitext_row_held(const struct jobtable_row *);
/*
 * Why a job action (act: enum jobact_kind; H is JOBACT_HOLD 0, U
 * JOBACT_RELEASE 1) leaves a row alone, or NULL when SLURM may be asked:
 * a job that ended, one that is not pending (hold), not held (release) or
 * not running (requeue, signal).  A range of pending array tasks
 * ("12_[4-9]") is asked as it is.  The text names the cluster and the
 * job; free it.
 */
char	*uitext_hold_skip(const struct jobtable_row *, int act);
/* "held", "requeued"; "holding", "requeueing": the footer's words. */
const char *uitext_act_past(int act);
const char *uitext_act_ing(int act);
/*
 * The footer once H or U on marked jobs has every answer: how many of the
 * n asked were held (released), then which failed and which were skipped
 * ("; "-joined lists, NULL or "" for none), e.g. "held 2 of 3 jobs;
 * failed 1: sdtb 14: scontrol hold failed: ...; skipped 1: sdtb 12 has
 * ended (COMPLETED): nothing to hold".  Free it.
 */
char	*uitext_hold_summary(int act, size_t ok, size_t n, size_t nfailed,
	     const char *failed, size_t nskipped, const char *skipped);

/*
 * What a cancel of marked rows did to every job, for the footer:
 * "cancelled 1 of 3 jobs: sdtb 12 (was RUNNING); already ended 1: sdtb
 * 13; failed 1: sdtb 14: why".  Free it.
 */
char	*uitext_cancel_summary(size_t n, size_t ncancelled,
	     const char *cancelled, size_t nended, const char *ended,
	     size_t nfailed, const char *failed);

/*
 * The worker's answer to a cancel of one job, sorted: 1 when it had
 * already ended, else 0 and *was (owned) is its "(was STATE)" or NULL.
 */
int	 uitext_cancel_answer(const char *message, char **was);

/*
 * What the log pane says of a pending job that has no log yet, or NULL
 * when r is not pending: "pending, held (JobHeldUser): no main.out until
 * it runs; U releases it".  Free it.
 */
char	*uitext_log_pending(const struct jobtable_row *r, const char *file);

#endif
