#ifndef UI_KEYS_H
#define UI_KEYS_H

#include <stddef.h>

/*
 * The keymap as data (htop's Action_setBindings): a table binding a key
 * in a focus context to an action.  ui.c maps each action to a handler
 * returning UIF_* flags; the help screen and the footer hints are
 * generated from the same table, so `?` always lists every key.  No
 * curses calls here (unit-tested); key codes are curses's.
 */

/* Where the keyboard focus is. */
enum uictx {
	UICTX_CLUSTERS,		/* the clusters pane */
	UICTX_JOBS,		/* the jobs pane */
	UICTX_LOG,		/* the log pane */
	UICTX_VIEW,		/* help or detail overlay */
	UICTX_DIALOG,		/* cancel confirmation */
	UICTX_FILTER,		/* typing a filter */
	UICTX_WIZARD,		/* submit wizard */
	UICTX_CMDLINE,		/* typing a : command */
	UICTX_COUNT
};
#define UICTX_BIT(c)	(1u << (c))
#define UICTX_PANES	(UICTX_BIT(UICTX_CLUSTERS) | UICTX_BIT(UICTX_JOBS) | \
			 UICTX_BIT(UICTX_LOG))

enum uiact {
	UIA_NONE = 0,
	UIA_QUIT,
	UIA_HELP,
	UIA_REDRAW,
	UIA_FOCUS_NEXT,
	UIA_FOCUS_PREV,
	UIA_FOCUS_CLUSTERS,
	UIA_FOCUS_JOBS,
	UIA_FOCUS_LOG,
	UIA_DOWN,
	UIA_UP,
	UIA_PAGE_DOWN,
	UIA_PAGE_UP,
	UIA_TOP,
	UIA_BOTTOM,
	UIA_FILTER,
	UIA_SORT,
	UIA_SORT_REVERSE,
	UIA_TOGGLE_FINISHED,
	UIA_DETAIL,
	UIA_CANCEL,
	UIA_MARK,
	UIA_NEW,
	UIA_EDIT,
	UIA_TOGGLE_ERR,
	UIA_WRAP,
	UIA_FOLLOW,
	UIA_REFRESH,
	UIA_CLOSE,
	UIA_YES,
	UIA_NO,
	UIA_BUTTON_NEXT,
	UIA_ACTIVATE,
	UIA_INPUT_ACCEPT,
	UIA_INPUT_CLEAR,
	UIA_INPUT_BACKSPACE,
	UIA_INPUT_KILL,
	UIA_WIZ_NEXT,
	UIA_WIZ_PREV,
	UIA_START_ESTIMATE,
	UIA_CURSOR_LEFT,
	UIA_CURSOR_RIGHT,
	UIA_CURSOR_HOME,
	UIA_CURSOR_END,
	UIA_INPUT_DELETE,
	UIA_LOG_SEARCH,
	UIA_SEARCH_NEXT,
	UIA_SEARCH_PREV,
	UIA_SCROLL_LEFT,
	UIA_SCROLL_RIGHT,
	UIA_ZOOM,
	UIA_LOG_ESC,
	UIA_HOLD,
	UIA_RELEASE,
	UIA_REQUEUE,
	UIA_SIGNAL,
	UIA_TIMELIMIT,
	UIA_GPU_USE,
	UIA_ARRAY_OPEN,
	UIA_ARRAY_CLOSE,
	UIA_SHELL,
	UIA_FORWARD,
	UIA_FORWARDS,
	UIA_FORWARD_CLOSE,
	UIA_VIEW_CYCLE,
	UIA_CMDLINE,
	UIA_CMD_RUN,
	UIA_CMD_CLOSE,
	UIA_CMD_COMPLETE,
	UIA_CMD_HISTORY_PREV,
	UIA_CMD_HISTORY_NEXT,
	UIA_SPLIT_SHRINK,
	UIA_SPLIT_GROW,
	UIA_SPLIT_RESET,
	UIA_PAGER,
	UIA_COPY,
	UIA_FIRST_ERROR,
	UIA_CLONE,
	UIA_COUNT
};

/* What a handler asks of the loop. */
#define UIF_REDRAW	0x1	/* draw again */
#define UIF_QUIT	0x2	/* leave ui_main */
#define UIF_CLEAR	0x4	/* repaint every cell (after ^L, resize) */

/* Function keys (KEY_* from curses) are kept apart from characters. */
#define UIKEY_FN(k)	(0x1000000 | (k))
#define UIKEY_CTRL(c)	((c) & 0x1f)
#define UIKEY_ESC	0x1b

struct uikey_binding {
	unsigned	 ctxs;		/* UICTX_BIT mask */
	int		 key;		/* character, UIKEY_FN(KEY_x), UIKEY_CTRL */
	enum uiact	 action;
	const char	*name;		/* as the help shows it: "j", "PgDn" */
};

extern const struct uikey_binding uikeys_table[];
extern const size_t uikeys_count;

/* The action of key in ctx, UIA_NONE if unbound. */
enum uiact	 uikeys_lookup(enum uictx, int key);
/* Help text of an action ("cancel the job (or the marked jobs)"). */
const char	*uikeys_describe(enum uiact);
/* Short footer label of an action, NULL if it has no hint. */
const char	*uikeys_hint(enum uiact);
const char	*uikeys_ctx_name(enum uictx);
/* The whole help screen, one section per group of contexts. */
char		*uikeys_help(void);
/* Footer hints for a context: "j/k move  / filter  ...". */
char		*uikeys_hints(enum uictx);

#endif
