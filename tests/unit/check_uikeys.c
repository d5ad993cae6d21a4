/* The keymap table: every binding resolves, no duplicates, help lists all. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "testutil.h"
#include "ui-keys.h"
#include "ui.h"

/* Every binding is what lookup returns for its key in each of its contexts. */
START_TEST(test_every_binding_resolves)
{
	size_t	i;
	int	c;

	ck_assert_uint_gt(uikeys_count, 40);
	for (i = 0; i < uikeys_count; i++) {
		const struct uikey_binding	*b = &uikeys_table[i];

		ck_assert_msg(b->ctxs != 0, "binding %zu has no context", i);
		ck_assert_msg(b->name != NULL && *b->name != '\0',
		    "binding %zu has no name", i);
		ck_assert_msg(b->action > UIA_NONE && b->action < UIA_COUNT,
		    "binding %s has no action", b->name);
		for (c = 0; c < UICTX_COUNT; c++) {
			if (!(b->ctxs & UICTX_BIT(c)))
				continue;
			ck_assert_msg(uikeys_lookup(c, b->key) == b->action,
			    "%s in %s is shadowed", b->name,
			    uikeys_ctx_name(c));
		}
		/* ... and ui.c has a handler for it. */
		ck_assert_msg(ui_action_implemented(b->action),
		    "no handler for the action of %s", b->name);
		ck_assert_ptr_nonnull(uikeys_describe(b->action));
	}
}
END_TEST

START_TEST(test_no_duplicate_per_context)
{
	size_t	i, j;

	for (i = 0; i < uikeys_count; i++) {
		for (j = i + 1; j < uikeys_count; j++) {
			ck_assert_msg(!(uikeys_table[i].key ==
			    uikeys_table[j].key && (uikeys_table[i].ctxs &
			    uikeys_table[j].ctxs)),
			    "%s bound twice in one context (entries %zu, %zu)",
			    uikeys_table[i].name, i, j);
		}
	}
}
END_TEST

/* The keys issue 5 asks for, where it asks for them. */
START_TEST(test_issue_keys)
{
	static const struct {
		enum uictx	ctx;
		int		key;
		enum uiact	action;
	} want[] = {
		{ UICTX_JOBS, '\t', UIA_FOCUS_NEXT },
		{ UICTX_LOG, '\t', UIA_FOCUS_NEXT },
		{ UICTX_CLUSTERS, '1', UIA_FOCUS_CLUSTERS },
		{ UICTX_LOG, '2', UIA_FOCUS_JOBS },
		{ UICTX_JOBS, '3', UIA_FOCUS_LOG },
		{ UICTX_JOBS, 'j', UIA_DOWN },
		{ UICTX_JOBS, UIKEY_FN(KEY_DOWN), UIA_DOWN },
		{ UICTX_JOBS, 'k', UIA_UP },
		{ UICTX_LOG, UIKEY_FN(KEY_UP), UIA_UP },
		{ UICTX_LOG, UIKEY_FN(KEY_PPAGE), UIA_PAGE_UP },
		{ UICTX_JOBS, UIKEY_FN(KEY_NPAGE), UIA_PAGE_DOWN },
		{ UICTX_JOBS, 'g', UIA_TOP },
		{ UICTX_LOG, 'G', UIA_BOTTOM },
		{ UICTX_JOBS, UIKEY_FN(KEY_HOME), UIA_TOP },
		{ UICTX_LOG, UIKEY_FN(KEY_END), UIA_BOTTOM },
		{ UICTX_JOBS, '/', UIA_FILTER },
		{ UICTX_JOBS, 's', UIA_SORT },
		{ UICTX_JOBS, 'a', UIA_TOGGLE_FINISHED },
		{ UICTX_JOBS, '\n', UIA_DETAIL },
		{ UICTX_JOBS, 'c', UIA_CANCEL },
		{ UICTX_JOBS, UIKEY_FN(KEY_DC), UIA_CANCEL },
		{ UICTX_JOBS, ' ', UIA_MARK },
		{ UICTX_JOBS, 'n', UIA_NEW },
		{ UICTX_CLUSTERS, 'n', UIA_NEW },
		{ UICTX_JOBS, 'e', UIA_EDIT },
		{ UICTX_LOG, 'o', UIA_TOGGLE_ERR },
		{ UICTX_LOG, 'w', UIA_WRAP },
		{ UICTX_LOG, 'f', UIA_FOLLOW },
		{ UICTX_JOBS, 'r', UIA_REFRESH },
		{ UICTX_CLUSTERS, '?', UIA_HELP },
		{ UICTX_JOBS, 'q', UIA_QUIT },
		{ UICTX_DIALOG, 'y', UIA_YES },
		{ UICTX_DIALOG, UIKEY_ESC, UIA_NO },
		{ UICTX_DIALOG, '\n', UIA_ACTIVATE },
		{ UICTX_VIEW, UIKEY_ESC, UIA_CLOSE },
		{ UICTX_VIEW, 'q', UIA_CLOSE },
		{ UICTX_FILTER, '\n', UIA_INPUT_ACCEPT },
		{ UICTX_FILTER, UIKEY_ESC, UIA_INPUT_CLEAR },
		{ UICTX_FILTER, 0x7f, UIA_INPUT_BACKSPACE },
		{ UICTX_WIZARD, '\t', UIA_WIZ_NEXT },
		{ UICTX_WIZARD, UIKEY_ESC, UIA_CLOSE },
		/* Issue 18 item 13: the log pane's search, sideways, zoom. */
		{ UICTX_LOG, '/', UIA_LOG_SEARCH },
		{ UICTX_LOG, 'n', UIA_SEARCH_NEXT },
		{ UICTX_LOG, 'N', UIA_SEARCH_PREV },
		{ UICTX_LOG, 'l', UIA_SCROLL_RIGHT },
		{ UICTX_LOG, UIKEY_FN(KEY_LEFT), UIA_SCROLL_LEFT },
		{ UICTX_LOG, 'z', UIA_ZOOM },
		{ UICTX_JOBS, 'z', UIA_ZOOM },
		/* Issue 26, reached for: pager, copy, first error, clone. */
		{ UICTX_JOBS, 'L', UIA_PAGER },
		{ UICTX_LOG, 'L', UIA_PAGER },
		{ UICTX_JOBS, 'Y', UIA_COPY },
		{ UICTX_LOG, 'Y', UIA_COPY },
		{ UICTX_LOG, '!', UIA_FIRST_ERROR },
		{ UICTX_JOBS, 'C', UIA_CLONE },
	};
	size_t	i;

	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_msg(uikeys_lookup(want[i].ctx, want[i].key) ==
		    want[i].action, "key %d in %s", want[i].key,
		    uikeys_ctx_name(want[i].ctx));
}
END_TEST

/* Inputs take letters as text; a dialog does not quit the program. */
START_TEST(test_unbound)
{
	ck_assert_int_eq(uikeys_lookup(UICTX_FILTER, 'q'), UIA_NONE);
	/* The : line takes letters as text: q, V, < are typed, not run. */
	ck_assert_int_eq(uikeys_lookup(UICTX_CMDLINE, 'q'), UIA_NONE);
	ck_assert_int_eq(uikeys_lookup(UICTX_CMDLINE, 'V'), UIA_NONE);
	ck_assert_int_eq(uikeys_lookup(UICTX_CMDLINE, '<'), UIA_NONE);
	ck_assert_int_eq(uikeys_lookup(UICTX_JOBS, 'V'), UIA_VIEW_CYCLE);
	ck_assert_int_eq(uikeys_lookup(UICTX_LOG, ':'), UIA_CMDLINE);
	ck_assert_int_eq(uikeys_lookup(UICTX_CLUSTERS, '>'), UIA_SPLIT_GROW);
	ck_assert_int_eq(uikeys_lookup(UICTX_CMDLINE, '\t'),
	    UIA_CMD_COMPLETE);
	ck_assert_int_eq(uikeys_lookup(UICTX_FILTER, 'j'), UIA_NONE);
	ck_assert_int_eq(uikeys_lookup(UICTX_WIZARD, 'q'), UIA_NONE);
	ck_assert_int_eq(uikeys_lookup(UICTX_FILTER, '/'), UIA_NONE);
	ck_assert_int_ne(uikeys_lookup(UICTX_DIALOG, 'q'), UIA_QUIT);
	ck_assert_int_eq(uikeys_lookup(UICTX_JOBS, 'Z'), UIA_NONE);
	/* A function key is not the character with the same number. */
	ck_assert_int_eq(uikeys_lookup(UICTX_JOBS, KEY_DC), UIA_NONE);
	/* Enter in a dialog must not be "yes" by itself. */
	ck_assert_int_ne(uikeys_lookup(UICTX_DIALOG, '\n'), UIA_YES);
	/* Cancel needs the jobs pane: not from the log. */
	ck_assert_int_eq(uikeys_lookup(UICTX_LOG, 'c'), UIA_NONE);
}
END_TEST

/*
 * Issue 26.11: no label runs into its text: a line is a heading, "  " a
 * label and two spaces then text, or a continuation under the text.
 */
START_TEST(test_help_columns)
{
	char		*help = uikeys_help(), *line, *nl;

	for (line = help; line != NULL && *line != '\0'; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (*line == '\0' || *line != ' ')
			continue;	/* blank or a heading */
		/* The text after two spaces at least; continuations under
		   the text (column 22). */
		if (line[2] != ' ')
			ck_assert_msg(strstr(line + 2, "  ") != NULL,
			    "help line runs together: '%s'", line);
		else
			ck_assert_msg(strncmp(line, "                      ",
			    22) == 0 && line[22] != ' ', "help continuation "
			    "out of its column: '%s'", line);
		ck_assert_msg(strstr(line, "4s the") == NULL &&
		    strstr(line, ") in the header") == NULL,
		    "help line runs together: '%s'", line);
	}
	free(help);
}
END_TEST

START_TEST(test_help_lists_everything)
{
	char	*help = uikeys_help(), *p;
	size_t	 i;
	int	 a;

	for (i = 0; i < uikeys_count; i++) {
		const struct uikey_binding	*b = &uikeys_table[i];
		char				*line = NULL;

		/* The key name and its description on one line. */
		for (p = help; (p = strstr(p, uikeys_describe(b->action)))
		    != NULL; p++) {
			const char	*bol = p;

			while (bol > help && bol[-1] != '\n')
				bol--;
			line = xstrndup(bol, p - bol);
			if (strstr(line, b->name) != NULL)
				break;
			free(line);
			line = NULL;
		}
		ck_assert_msg(line != NULL, "help has no line with %s for '%s'",
		    b->name, uikeys_describe(b->action));
		free(line);
	}
	/* Every section heading. */
	ck_assert_ptr_nonnull(strstr(help, "Every pane\n"));
	ck_assert_ptr_nonnull(strstr(help, "Jobs pane\n"));
	ck_assert_ptr_nonnull(strstr(help, "Jobs pane and log pane\n"));
	ck_assert_ptr_nonnull(strstr(help, "Cancel and requeue dialog\n"));
	ck_assert_ptr_nonnull(strstr(help, "Submit wizard\n"));
	/* Logins (issue 28): Duo and the bastion are explained. */
	ck_assert_ptr_nonnull(strstr(help, "Duo's menu and passcode"));
	ck_assert_ptr_nonnull(strstr(help, "a bastion (jump:, ProxyJump)"));
	/* Keys bound three times (\n, \r, KEY_ENTER) are listed once. */
	ck_assert_ptr_null(strstr(help, "Enter, Enter"));
	ck_assert_ptr_nonnull(strstr(help, "c, Del "));
	ck_assert_ptr_nonnull(strstr(help, "j, Down "));
	for (a = UIA_NONE + 1; a < UIA_COUNT; a++)
		ck_assert_ptr_nonnull(uikeys_describe(a));
	ck_assert_ptr_null(uikeys_describe(UIA_COUNT));
	free(help);
}
END_TEST

START_TEST(test_hints)
{
	char	*h;

	h = uikeys_hints(UICTX_JOBS);
	/* The pane's own keys come first. */
	ck_assert_msg(strncmp(h, "Enter detail", 12) == 0, "%s", h);
	ck_assert_ptr_nonnull(strstr(h, "c cancel"));
	ck_assert_ptr_nonnull(strstr(h, "/ filter"));
	ck_assert_ptr_nonnull(strstr(h, "j/k move"));
	/* Each action once, even with several keys. */
	ck_assert_ptr_null(strstr(strstr(h, "cancel") + 1, "cancel"));
	free(h);

	h = uikeys_hints(UICTX_DIALOG);
	ck_assert_ptr_nonnull(strstr(h, "y yes"));
	ck_assert_ptr_nonnull(strstr(h, "n no"));
	ck_assert_ptr_null(strstr(h, "cancel"));
	free(h);

	h = uikeys_hints(UICTX_FILTER);
	ck_assert_ptr_nonnull(strstr(h, "Enter keep"));
	ck_assert_ptr_nonnull(strstr(h, "Esc clear"));
	free(h);
}
END_TEST

/* Notifications (issue 15.7): off where the terminal would not show them. */
START_TEST(test_notify)
{
	char	*seq;

	/* Bell only inside tmux/screen and on unknown terminals. */
	ck_assert_int_eq(ui_notify_parse(NULL, "tmux-256color", "iTerm.app",
	    "7600"), 0x1);
	ck_assert_int_eq(ui_notify_parse(NULL, "xterm-256color", NULL, NULL),
	    0x1);
	ck_assert_int_eq(ui_notify_parse(NULL, NULL, NULL, NULL), 0x1);
	/* OSC 9 where it is shown, OSC 777 on VTE and urxvt. */
	ck_assert_int_eq(ui_notify_parse(NULL, "xterm-256color", "iTerm.app",
	    NULL), 0x3);
	ck_assert_int_eq(ui_notify_parse(NULL, "xterm-kitty", NULL, NULL),
	    0x3);
	ck_assert_int_eq(ui_notify_parse(NULL, "xterm-256color", NULL,
	    "7600"), 0x5);
	ck_assert_int_eq(ui_notify_parse("", "rxvt-unicode-256color", NULL,
	    NULL), 0x5);
	/* SQDECK_NOTIFY decides alone. */
	ck_assert_int_eq(ui_notify_parse("off", "xterm-kitty", NULL, NULL), 0);
	ck_assert_int_eq(ui_notify_parse("osc9,all", "screen", NULL, NULL),
	    0x2 | 0x8);
	ck_assert_int_eq(ui_notify_parse("bell, osc777", NULL, NULL, NULL),
	    0x5);
	seq = ui_notify_seq(0x1 | 0x2 | 0x4, "sdtb 12 x ended: COMPLETED");
	ck_assert_str_eq(seq, "\033]9;sqdeck: sdtb 12 x ended: COMPLETED\007"
	    "\033]777;notify;sqdeck;sdtb 12 x ended: COMPLETED\007");
	free(seq);
	seq = ui_notify_seq(0x1, "t");
	ck_assert_str_eq(seq, "");
	free(seq);
}
END_TEST

static Suite *
uikeys_suite(void)
{
	Suite	*s = suite_create("uikeys");
	TCase	*tc = tcase_create("uikeys");

	tcase_add_test(tc, test_every_binding_resolves);
	tcase_add_test(tc, test_no_duplicate_per_context);
	tcase_add_test(tc, test_issue_keys);
	tcase_add_test(tc, test_unbound);
	tcase_add_test(tc, test_help_lists_everything);
	tcase_add_test(tc, test_help_columns);
	tcase_add_test(tc, test_hints);
	tcase_add_test(tc, test_notify);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(uikeys_suite)
