/* The keymap table and what is generated from it (see ui-keys.h). */
#include "ui-keys.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <string.h>

#include "util.h"

#define C(x)		UICTX_BIT(UICTX_##x)
#define PANES		UICTX_PANES
#define FN(k)		UIKEY_FN(k)
#define CTRL(c)		UIKEY_CTRL(c)

/* Order matters: help sections and hints follow it. */
const struct uikey_binding uikeys_table[] = {
	/* Every pane. */
	{ PANES, '\t', UIA_FOCUS_NEXT, "Tab" },
	{ PANES, FN(KEY_BTAB), UIA_FOCUS_PREV, "S-Tab" },
	{ PANES, '1', UIA_FOCUS_CLUSTERS, "1" },
	{ PANES, '2', UIA_FOCUS_JOBS, "2" },
	{ PANES, '3', UIA_FOCUS_LOG, "3" },
	{ PANES, 'j', UIA_DOWN, "j" },
	{ PANES, FN(KEY_DOWN), UIA_DOWN, "Down" },
	{ PANES, 'k', UIA_UP, "k" },
	{ PANES, FN(KEY_UP), UIA_UP, "Up" },
	{ PANES, FN(KEY_NPAGE), UIA_PAGE_DOWN, "PgDn" },
	{ PANES, CTRL('f'), UIA_PAGE_DOWN, "C-f" },
	{ PANES, FN(KEY_PPAGE), UIA_PAGE_UP, "PgUp" },
	{ PANES, CTRL('b'), UIA_PAGE_UP, "C-b" },
	{ PANES, 'g', UIA_TOP, "g" },
	{ PANES, FN(KEY_HOME), UIA_TOP, "Home" },
	{ PANES, 'G', UIA_BOTTOM, "G" },
	{ PANES, FN(KEY_END), UIA_BOTTOM, "End" },
	{ PANES, 'r', UIA_REFRESH, "r" },
	{ PANES, '?', UIA_HELP, "?" },
	{ PANES, FN(KEY_F(1)), UIA_HELP, "F1" },
	{ PANES, CTRL('l'), UIA_REDRAW, "C-l" },
	{ PANES, 'q', UIA_QUIT, "q" },
	{ PANES, ':', UIA_CMDLINE, ":" },
	{ PANES, '<', UIA_SPLIT_SHRINK, "<" },
	{ PANES, '>', UIA_SPLIT_GROW, ">" },
	{ PANES, '=', UIA_SPLIT_RESET, "=" },

	/* Jobs pane. */
	{ C(JOBS), '\n', UIA_DETAIL, "Enter" },
	{ C(JOBS), '\r', UIA_DETAIL, "Enter" },
	{ C(JOBS), FN(KEY_ENTER), UIA_DETAIL, "Enter" },
	{ C(JOBS), 's', UIA_SORT, "s" },
	{ C(JOBS), 'S', UIA_SORT_REVERSE, "S" },
	{ C(JOBS), 'a', UIA_TOGGLE_FINISHED, "a" },
	{ C(JOBS), 'V', UIA_VIEW_CYCLE, "V" },
	{ C(JOBS), ' ', UIA_MARK, "Space" },
	{ C(JOBS), 'c', UIA_CANCEL, "c" },
	{ C(JOBS), FN(KEY_DC), UIA_CANCEL, "Del" },
	{ C(JOBS), 'e', UIA_EDIT, "e" },
	{ C(JOBS), 'H', UIA_HOLD, "H" },
	{ C(JOBS), 'U', UIA_RELEASE, "U" },
	{ C(JOBS), 'R', UIA_REQUEUE, "R" },
	{ C(JOBS), 'K', UIA_SIGNAL, "K" },
	{ C(JOBS), 'T', UIA_TIMELIMIT, "T" },
	{ C(JOBS), 'x', UIA_SHELL, "x" },
	{ C(JOBS), 'F', UIA_FORWARD, "F" },
	{ C(JOBS), 'P', UIA_FORWARDS, "P" },
	{ C(JOBS), 'X', UIA_FORWARD_CLOSE, "X" },
	{ C(JOBS), UIKEY_ESC, UIA_INPUT_CLEAR, "Esc" },
	{ C(JOBS), FN(KEY_RIGHT), UIA_ARRAY_OPEN, "Right" },
	{ C(JOBS), '+', UIA_ARRAY_OPEN, "+" },
	{ C(JOBS), FN(KEY_LEFT), UIA_ARRAY_CLOSE, "Left" },
	{ C(JOBS), '-', UIA_ARRAY_CLOSE, "-" },
	{ C(JOBS), 'C', UIA_CLONE, "C" },

	/* The log of the selected job, from the jobs or the log pane. */
	{ C(JOBS) | C(LOG), 'o', UIA_TOGGLE_ERR, "o" },
	{ C(JOBS) | C(LOG), 'w', UIA_WRAP, "w" },
	{ C(JOBS) | C(LOG), 'f', UIA_FOLLOW, "f" },
	{ C(JOBS) | C(LOG), 'z', UIA_ZOOM, "z" },
	{ C(JOBS) | C(LOG), 'L', UIA_PAGER, "L" },
	{ C(JOBS) | C(LOG), 'Y', UIA_COPY, "Y" },

	/* Log pane: search, sideways, zoom. */
	{ C(LOG), '/', UIA_LOG_SEARCH, "/" },
	{ C(LOG), 'n', UIA_SEARCH_NEXT, "n" },
	{ C(LOG), 'N', UIA_SEARCH_PREV, "N" },
	{ C(LOG), 'h', UIA_SCROLL_LEFT, "h" },
	{ C(LOG), FN(KEY_LEFT), UIA_SCROLL_LEFT, "Left" },
	{ C(LOG), 'l', UIA_SCROLL_RIGHT, "l" },
	{ C(LOG), FN(KEY_RIGHT), UIA_SCROLL_RIGHT, "Right" },
	{ C(LOG), UIKEY_ESC, UIA_LOG_ESC, "Esc" },
	{ C(LOG), '!', UIA_FIRST_ERROR, "!" },

	/* Clusters pane. */
	{ C(CLUSTERS), '\n', UIA_DETAIL, "Enter" },
	{ C(CLUSTERS), '\r', UIA_DETAIL, "Enter" },
	{ C(CLUSTERS), FN(KEY_ENTER), UIA_DETAIL, "Enter" },

	/* The log pane has its own / and n (search): these are the others'. */
	{ C(CLUSTERS) | C(JOBS), '/', UIA_FILTER, "/" },
	{ C(CLUSTERS) | C(JOBS), 'n', UIA_NEW, "n" },

	/* Help and detail views. */
	{ C(VIEW), 'j', UIA_DOWN, "j" },
	{ C(VIEW), FN(KEY_DOWN), UIA_DOWN, "Down" },
	{ C(VIEW), 'k', UIA_UP, "k" },
	{ C(VIEW), FN(KEY_UP), UIA_UP, "Up" },
	{ C(VIEW), FN(KEY_NPAGE), UIA_PAGE_DOWN, "PgDn" },
	{ C(VIEW), ' ', UIA_PAGE_DOWN, "Space" },
	{ C(VIEW), FN(KEY_PPAGE), UIA_PAGE_UP, "PgUp" },
	{ C(VIEW), 'g', UIA_TOP, "g" },
	{ C(VIEW), FN(KEY_HOME), UIA_TOP, "Home" },
	{ C(VIEW), 'G', UIA_BOTTOM, "G" },
	{ C(VIEW), FN(KEY_END), UIA_BOTTOM, "End" },
	{ C(VIEW), 't', UIA_START_ESTIMATE, "t" },
	{ C(VIEW), 'u', UIA_GPU_USE, "u" },
	{ C(VIEW), 'q', UIA_CLOSE, "q" },
	{ C(VIEW), UIKEY_ESC, UIA_CLOSE, "Esc" },
	{ C(VIEW), '?', UIA_CLOSE, "?" },
	{ C(VIEW), '\n', UIA_CLOSE, "Enter" },
	{ C(VIEW), '\r', UIA_CLOSE, "Enter" },
	{ C(VIEW), FN(KEY_ENTER), UIA_CLOSE, "Enter" },

	/* Cancel dialog. */
	{ C(DIALOG), 'y', UIA_YES, "y" },
	{ C(DIALOG), 'n', UIA_NO, "n" },
	{ C(DIALOG), UIKEY_ESC, UIA_NO, "Esc" },
	{ C(DIALOG), 'q', UIA_NO, "q" },
	{ C(DIALOG), '\t', UIA_BUTTON_NEXT, "Tab" },
	{ C(DIALOG), FN(KEY_LEFT), UIA_BUTTON_NEXT, "Left" },
	{ C(DIALOG), FN(KEY_RIGHT), UIA_BUTTON_NEXT, "Right" },
	{ C(DIALOG), 'h', UIA_BUTTON_NEXT, "h" },
	{ C(DIALOG), 'l', UIA_BUTTON_NEXT, "l" },
	{ C(DIALOG), '\n', UIA_ACTIVATE, "Enter" },
	{ C(DIALOG), '\r', UIA_ACTIVATE, "Enter" },
	{ C(DIALOG), FN(KEY_ENTER), UIA_ACTIVATE, "Enter" },

	/* Typing: the filter, the : line and the wizard's fields. */
	{ C(FILTER) | C(WIZARD) | C(CMDLINE), FN(KEY_BACKSPACE),
	  UIA_INPUT_BACKSPACE, "Backspace" },
	{ C(FILTER) | C(WIZARD) | C(CMDLINE), 0x7f, UIA_INPUT_BACKSPACE,
	  "Backspace" },
	{ C(FILTER) | C(WIZARD) | C(CMDLINE), CTRL('h'), UIA_INPUT_BACKSPACE,
	  "C-h" },
	{ C(FILTER) | C(WIZARD) | C(CMDLINE), CTRL('u'), UIA_INPUT_KILL,
	  "C-u" },
	{ C(FILTER), '\n', UIA_INPUT_ACCEPT, "Enter" },
	{ C(FILTER), '\r', UIA_INPUT_ACCEPT, "Enter" },
	{ C(FILTER), FN(KEY_ENTER), UIA_INPUT_ACCEPT, "Enter" },
	{ C(FILTER), UIKEY_ESC, UIA_INPUT_CLEAR, "Esc" },

	/* The : command line (ui-cmdline.c lists its commands). */
	{ C(CMDLINE), '\n', UIA_CMD_RUN, "Enter" },
	{ C(CMDLINE), '\r', UIA_CMD_RUN, "Enter" },
	{ C(CMDLINE), FN(KEY_ENTER), UIA_CMD_RUN, "Enter" },
	{ C(CMDLINE), '\t', UIA_CMD_COMPLETE, "Tab" },
	{ C(CMDLINE), FN(KEY_UP), UIA_CMD_HISTORY_PREV, "Up" },
	{ C(CMDLINE), FN(KEY_DOWN), UIA_CMD_HISTORY_NEXT, "Down" },
	{ C(CMDLINE), UIKEY_ESC, UIA_CMD_CLOSE, "Esc" },

	/* Submit wizard. */
	{ C(WIZARD), '\t', UIA_WIZ_NEXT, "Tab" },
	{ C(WIZARD), FN(KEY_DOWN), UIA_WIZ_NEXT, "Down" },
	{ C(WIZARD), '\n', UIA_WIZ_NEXT, "Enter" },
	{ C(WIZARD), '\r', UIA_WIZ_NEXT, "Enter" },
	{ C(WIZARD), FN(KEY_ENTER), UIA_WIZ_NEXT, "Enter" },
	{ C(WIZARD), FN(KEY_BTAB), UIA_WIZ_PREV, "S-Tab" },
	{ C(WIZARD), FN(KEY_UP), UIA_WIZ_PREV, "Up" },
	{ C(WIZARD), FN(KEY_LEFT), UIA_CURSOR_LEFT, "Left" },
	{ C(WIZARD), FN(KEY_RIGHT), UIA_CURSOR_RIGHT, "Right" },
	{ C(WIZARD), FN(KEY_HOME), UIA_CURSOR_HOME, "Home" },
	{ C(WIZARD), CTRL('a'), UIA_CURSOR_HOME, "C-a" },
	{ C(WIZARD), FN(KEY_END), UIA_CURSOR_END, "End" },
	{ C(WIZARD), CTRL('e'), UIA_CURSOR_END, "C-e" },
	{ C(WIZARD), FN(KEY_DC), UIA_INPUT_DELETE, "Del" },
	{ C(WIZARD), CTRL('d'), UIA_INPUT_DELETE, "C-d" },
	{ C(WIZARD), UIKEY_ESC, UIA_CLOSE, "Esc" },
};
const size_t uikeys_count = sizeof uikeys_table / sizeof uikeys_table[0];

static const struct {
	const char	*describe;
	const char	*hint;		/* footer label, NULL: not shown */
	const char	*hintkeys;	/* keys shown with it, NULL: first key */
} actions[UIA_COUNT] = {
	[UIA_NONE] = { "nothing", NULL, NULL },
	[UIA_QUIT] = { "quit sqdeck", NULL, NULL },
	[UIA_HELP] = { "this help: every key", NULL, NULL },
	[UIA_REDRAW] = { "redraw the screen", NULL, NULL },
	[UIA_FOCUS_NEXT] = { "focus the next pane", "pane", NULL },
	[UIA_FOCUS_PREV] = { "focus the previous pane", NULL, NULL },
	[UIA_FOCUS_CLUSTERS] = { "focus the clusters pane", NULL, NULL },
	[UIA_FOCUS_JOBS] = { "focus the jobs pane", NULL, NULL },
	[UIA_FOCUS_LOG] = { "focus the log pane", NULL, NULL },
	[UIA_DOWN] = { "down one line", "move", "j/k" },
	[UIA_UP] = { "up one line", NULL, NULL },
	[UIA_PAGE_DOWN] = { "down one page", NULL, NULL },
	[UIA_PAGE_UP] = { "up one page", NULL, NULL },
	[UIA_TOP] = { "to the top", NULL, NULL },
	[UIA_BOTTOM] = { "to the bottom (log: follow again)", NULL, NULL },
	[UIA_FILTER] = { "filter the jobs: text, or /regex", "filter", NULL },
	[UIA_SORT] = { "sort by the next column", "sort", NULL },
	[UIA_SORT_REVERSE] = { "reverse the sort order", NULL, NULL },
	[UIA_TOGGLE_FINISHED] = { "show or hide finished jobs", "finished",
	    NULL },
	[UIA_DETAIL] = { "details of the selected job or cluster", "detail",
	    NULL },
	[UIA_CANCEL] = { "cancel the job (or every marked job; the footer "
	    "then says each one's outcome)", "cancel",
	    NULL },
	[UIA_MARK] = { "mark or unmark the job (c, H, U, R, K and T act on "
	    "every marked job; its end notifies)", "mark", NULL },
	[UIA_NEW] = { "submit a new job (wizard)", "new", NULL },
	[UIA_EDIT] = { "edit the job and submit it again", NULL, NULL },
	[UIA_TOGGLE_ERR] = { "log: switch between main.out and main.err",
	    "out/err", NULL },
	[UIA_WRAP] = { "log: wrap long lines", "wrap", NULL },
	[UIA_FOLLOW] = { "log: follow the end of the file", "follow", NULL },
	[UIA_REFRESH] = { "poll the clusters now", "refresh", NULL },
	[UIA_CLOSE] = { "close", "close", NULL },
	[UIA_YES] = { "yes: cancel (or requeue) the job(s)", "yes", NULL },
	[UIA_NO] = { "no: leave the job(s) alone", "no", NULL },
	[UIA_BUTTON_NEXT] = { "switch between the buttons", NULL, NULL },
	[UIA_ACTIVATE] = { "press the highlighted button", NULL, NULL },
	[UIA_INPUT_ACCEPT] = { "keep this filter", "keep", NULL },
	[UIA_INPUT_CLEAR] = { "clear the filter and leave", "clear", NULL },
	[UIA_INPUT_BACKSPACE] = { "delete the last character", NULL, NULL },
	[UIA_INPUT_KILL] = { "delete the whole text", NULL, NULL },
	[UIA_WIZ_NEXT] = { "next field", "next", NULL },
	[UIA_WIZ_PREV] = { "previous field", "previous", NULL },
	[UIA_START_ESTIMATE] = { "job detail: why pending, with squeue "
	    "--start's estimate", "start estimate", NULL },
	[UIA_CURSOR_LEFT] = { "cursor left (cluster, partition: the "
	    "previous choice)", NULL, NULL },
	[UIA_CURSOR_RIGHT] = { "cursor right (cluster, partition: the next "
	    "choice)", NULL, NULL },
	[UIA_CURSOR_HOME] = { "cursor to the start of the field", NULL,
	    NULL },
	[UIA_CURSOR_END] = { "cursor to the end of the field", NULL, NULL },
	[UIA_INPUT_DELETE] = { "delete the character under the cursor", NULL,
	    NULL },
	[UIA_LOG_SEARCH] = { "search the log: text, ignoring case (Enter "
	    "finds it)", "search", NULL },
	[UIA_SEARCH_NEXT] = { "next match of the search (wraps around)",
	    "next/prev", "n/N" },
	[UIA_SEARCH_PREV] = { "previous match of the search", NULL, NULL },
	[UIA_SCROLL_LEFT] = { "scroll left half a screen (lines not wrapped)",
	    "sideways", "h/l" },
	[UIA_SCROLL_RIGHT] = { "scroll right half a screen (lines not "
	    "wrapped)", NULL, NULL },
	[UIA_ZOOM] = { "log: zoom to the full screen, or back", "zoom",
	    NULL },
	[UIA_LOG_ESC] = { "leave the zoom, forget the search", NULL, NULL },
	[UIA_HOLD] = { "hold the pending job, or every marked one "
	    "(scontrol hold; STATE says HELD)", NULL, NULL },
	[UIA_RELEASE] = { "release the held job, or every marked one "
	    "(scontrol release)", NULL, NULL },
	[UIA_REQUEUE] = { "requeue the running job, or every marked one, "
	    "after a yes (scontrol requeue: it starts again)", NULL, NULL },
	[UIA_SIGNAL] = { "send a signal (typed, USR1 offered) to the "
	    "running job's steps, or every marked one's (scancel --signal)",
	    NULL, NULL },
	[UIA_GPU_USE] = { "job detail: GPU use of the running job, per GPU "
	    "(nvidia-smi on its nodes, once)", "GPU use", NULL },
	[UIA_TIMELIMIT] = { "lower the time limit (typed: 30, 1:00:00) of "
	    "the job, or every marked one; only an admin raises one",
	    NULL, NULL },
	[UIA_ARRAY_OPEN] = { "job array: list its tasks under it ([+]ID "
	    "row; c on it cancels the whole array, on a task that task)",
	    "tasks", "+/-" },
	[UIA_SHELL] = { "a shell in the running job's own container (its "
	    "files, mounts, job dir); exit comes back here", "shell", NULL },
	[UIA_FORWARD] = { "forward a port of the running job's node to "
	    "127.0.0.1 (typed: 6006, 16006:6006, 6006 NODE)", "forward",
	    NULL },
	[UIA_FORWARDS] = { "list the open forwards (they close when sqdeck "
	    "quits or their job ends)", NULL, NULL },
	[UIA_FORWARD_CLOSE] = { "close the newest forward of the selected "
	    "job", NULL, NULL },
	[UIA_PAGER] = { "log: the whole log (64 MiB at most) in $PAGER, "
	    "else less, else more; quitting it comes back here", "pager",
	    NULL },
	[UIA_COPY] = { "copy to the clipboard (OSC 52): the job id; again: "
	    "its job dir, its log path", "copy", NULL },
	[UIA_FIRST_ERROR] = { "jump to the first error line (triage's rules, "
	    "then Error, Traceback, ...); again: the next one", "error",
	    NULL },
	[UIA_CLONE] = { "clone: the submit wizard filled from the job's spec "
	    "(any state; sqdeck jobs only), its name suffixed", NULL, NULL },
	[UIA_ARRAY_CLOSE] = { "job array: fold its tasks into one row with "
	    "the counts by state", NULL, NULL },
	[UIA_VIEW_CYCLE] = { "view: all, mine, running, pending, failed, "
	    "all (with the / filter; the title says view: and what it "
	    "hides)", "view", NULL },
	[UIA_CMDLINE] = { "command line (:q, :view, :filter, :cluster, :job, "
	    ":cancel, :help; Tab completes)", NULL, NULL },
	[UIA_CMD_RUN] = { "run the command", "run", NULL },
	[UIA_CMD_CLOSE] = { "leave the command line", "leave", NULL },
	[UIA_CMD_COMPLETE] = { "complete the command's name (again: the "
	    "next)", "complete", NULL },
	[UIA_CMD_HISTORY_PREV] = { "the previous command of the history",
	    "history", "Up/Down" },
	[UIA_CMD_HISTORY_NEXT] = { "the next command of the history", NULL,
	    NULL },
	[UIA_SPLIT_SHRINK] = { "panes: the jobs pane smaller, the log "
	    "larger (kept across restarts)", NULL, NULL },
	[UIA_SPLIT_GROW] = { "panes: the jobs pane larger, the log "
	    "smaller", NULL, NULL },
	[UIA_SPLIT_RESET] = { "panes: back to the default split", NULL,
	    NULL },
};

static const char *ctx_names[UICTX_COUNT] = {
	[UICTX_CLUSTERS] = "clusters pane",
	[UICTX_JOBS] = "jobs pane",
	[UICTX_LOG] = "log pane",
	[UICTX_VIEW] = "help and detail views",
	[UICTX_DIALOG] = "cancel and requeue dialog",
	[UICTX_FILTER] = "filter input",
	[UICTX_WIZARD] = "submit wizard",
	[UICTX_CMDLINE] = "command line (:)",
};

enum uiact
uikeys_lookup(enum uictx ctx, int key)
{
	size_t	i;

	for (i = 0; i < uikeys_count; i++) {
		if ((uikeys_table[i].ctxs & UICTX_BIT(ctx)) &&
		    uikeys_table[i].key == key)
			return uikeys_table[i].action;
	}
	return UIA_NONE;
}

const char *
uikeys_describe(enum uiact a)
{
	return (int)a >= 0 && a < UIA_COUNT ? actions[a].describe : NULL;
}

const char *
uikeys_hint(enum uiact a)
{
	return (int)a >= 0 && a < UIA_COUNT ? actions[a].hint : NULL;
}

const char *
uikeys_ctx_name(enum uictx c)
{
	return (int)c >= 0 && c < UICTX_COUNT ? ctx_names[c] : "";
}

/* Section title for a context mask: "every pane", "jobs pane and log pane". */
static void
section_title(struct buf *b, unsigned mask)
{
	int	c, first = 1;

	if (mask == UICTX_PANES) {
		buf_adds(b, "Every pane");
		return;
	}
	for (c = 0; c < UICTX_COUNT; c++) {
		if (!(mask & UICTX_BIT(c)))
			continue;
		if (first) {
			buf_printf(b, "%c%s", ctx_names[c][0] - 'a' + 'A',
			    ctx_names[c] + 1);
			first = 0;
		} else
			buf_printf(b, " and %s", ctx_names[c]);
	}
}

/* Whether name already appears as a whole item in the ", " list. */
static int
list_has(const char *list, const char *name)
{
	size_t		 n = strlen(name);
	const char	*p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * What the screen shows, label and text (continued lines indented): a
 * label never runs into its text (issue 26.11).
 */
static const char *const shows[][2] = {
	{ "calls 3/20 next 4s", "the clusters pane's polling budget: "
	  "calls in the last minute\nof max_scheduler_calls, next poll in; "
	  "Enter: what for" },
	{ "back-off 37s (...)", "in the header: slurmctld timed out, "
	  "rate-limited us or\nis down; polls wait longer each time until it "
	  "answers" },
	{ "6/8 GPU", "beside a partition: idle and total GPUs (sinfo GRES)" },
	{ "663 of 666 (...)", "the jobs pane's title: rows shown of all, and "
	  "why the\nothers are not (finished hidden, the filter, folded "
	  "arrays)" },
	{ "finished rows", "include jobs from sacct (history_days, default "
	  "7), also\nthose not submitted by sqdeck (log: SLURM's -o path)" },
	{ "why pending", "the detail view explains the reason and what to "
	  "do" },
	{ "Dependency", "REASON of a job waiting for others (the wizard's "
	  "after field,\nthe spec's after:); DependencyNeverSatisfied: one "
	  "ended so\nthat it never starts" },
	{ "usage / hint", "the detail view of an ended job: CPU, memory and "
	  "time\nused of what it asked for, and what to ask for next time" },
	{ "lines 1-20 of 300", "the log pane's title: the lines shown (and "
	  "the column when\nscrolled sideways with h/l); [zoom]: z made it "
	  "the whole screen" },
	{ "(record) not polled", "a record of a cluster the configuration "
	  "does not have:\nits detail view says how to fix it" },
	{ "Space (a live job)", "watches it: its end rings the bell and "
	  "sends a desktop\nnotification where the terminal shows one "
	  "(SQDECK_NOTIFY)" },
	{ "second factor", "a dialog at the cluster's row asks the server's "
	  "prompt (TOTP,\nDuo's menu and passcode); a bastion (jump:, "
	  "ProxyJump) that\nfails is named in the row; sqdeck -v: where each "
	  "login\nsetting came from (~/.ssh/config:line)" },
};

#define HELP_LABEL	18	/* label column; text starts 2 after it */

/* "  label  text": two spaces at least, whatever the label's length. */
static void
help_line(struct buf *out, const char *label, const char *text)
{
	const char	*p, *nl;

	buf_printf(out, "  %-*s  ", HELP_LABEL, label);
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		buf_printf(out, "%.*s\n%*s", (int)(nl - p), p, HELP_LABEL + 4,
		    "");
	buf_printf(out, "%s\n", p);
}

char *
uikeys_help(void)
{
	struct buf	 out, keys;
	unsigned	 done[64];
	size_t		 ndone = 0, i, j, k;
	unsigned	 mask;
	enum uiact	 seen[UIA_COUNT];
	size_t		 nseen;

	buf_init(&out);
	for (i = 0; i < uikeys_count; i++) {
		mask = uikeys_table[i].ctxs;
		for (k = 0; k < ndone && done[k] != mask; k++)
			;
		if (k < ndone)
			continue;
		done[ndone++] = mask;

		if (out.len > 0)
			buf_adds(&out, "\n");
		section_title(&out, mask);
		buf_adds(&out, "\n");
		/* One line per action, its keys in table order. */
		nseen = 0;
		for (j = i; j < uikeys_count; j++) {
			enum uiact	a = uikeys_table[j].action;

			if (uikeys_table[j].ctxs != mask)
				continue;
			for (k = 0; k < nseen && seen[k] != a; k++)
				;
			if (k < nseen)
				continue;
			seen[nseen++] = a;
			buf_init(&keys);
			buf_add(&keys, "", 0);
			for (k = j; k < uikeys_count; k++) {
				if (uikeys_table[k].ctxs != mask ||
				    uikeys_table[k].action != a ||
				    list_has(keys.data, uikeys_table[k].name))
					continue;
				buf_printf(&keys, "%s%s", keys.len ? ", " : "",
				    uikeys_table[k].name);
			}
			help_line(&out, keys.data, actions[a].describe);
			buf_free(&keys);
		}
	}
	if (out.len > 0)
		buf_adds(&out, "\n");
	buf_adds(&out, "Typing a filter\n");
	help_line(&out, "any character", "goes into the filter: plain text "
	    "matches anywhere in\nthe row, ignoring case; a leading / makes "
	    "it a regex");
	buf_adds(&out, "\nWhat the screen shows\n");
	for (i = 0; i < sizeof shows / sizeof shows[0]; i++)
		help_line(&out, shows[i][0], shows[i][1]);
	return buf_steal(&out);
}

char *
uikeys_hints(enum uictx ctx)
{
	struct buf	 b;
	enum uiact	 seen[UIA_COUNT];
	size_t		 nseen = 0, i, k;
	enum uiact	 a;
	int		 pass;

	buf_init(&b);
	buf_add(&b, "", 0);
	/* This context's own keys first, then the ones of every pane. */
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < uikeys_count; i++) {
		if (!(uikeys_table[i].ctxs & UICTX_BIT(ctx)) ||
		    (uikeys_table[i].ctxs == UICTX_PANES) != pass)
			continue;
		a = uikeys_table[i].action;
		if (actions[a].hint == NULL)
			continue;
		for (k = 0; k < nseen && seen[k] != a; k++)
			;
		if (k < nseen)
			continue;
		seen[nseen++] = a;
		buf_printf(&b, "%s%s %s", b.len ? "  " : "",
		    actions[a].hintkeys != NULL ? actions[a].hintkeys :
		    uikeys_table[i].name, actions[a].hint);
	}
	return buf_steal(&b);
}
