/*
 * The second-factor dialog (see ui-login.h).
 */
#include "ui-login.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui-keys.h"
#include "ui-text.h"

#define LOGIN_INPUT_MAX	256
#define LOGIN_PROMPTS	16

static struct {
	struct askq	*q;
	struct ask_view	 v;		/* v.id 0: closed */
	size_t		 cur;		/* prompt being answered */
	char		 input[LOGIN_INPUT_MAX];
	size_t		 len;
	char		*answers[LOGIN_PROMPTS];
} L;

void
ui_login_init(struct askq *q)
{
	L.q = q;
}

static void
login_wipe_input(void)
{
	explicit_bzero(L.input, sizeof L.input);
	L.len = 0;
}

static void
login_close(void)
{
	size_t	i;

	for (i = 0; i < LOGIN_PROMPTS; i++) {
		conn_wipe(L.answers[i]);
		L.answers[i] = NULL;
	}
	login_wipe_input();
	askq_view_free(&L.v);
	L.cur = 0;
}

int
ui_login_poll(void)
{
	unsigned	id;

	if (L.q == NULL)
		return 0;
	id = askq_first(L.q);
	if (id == L.v.id)
		return 0;
	/* Ours was answered, cancelled or timed out; show the next. */
	login_close();
	if (id != 0 && (!askq_current(L.q, &L.v) || L.v.n > LOGIN_PROMPTS))
		askq_cancel(L.q, L.v.id), login_close();
	return UIF_REDRAW;
}

int
ui_login_active(void)
{
	return L.v.id != 0;
}

const char *
ui_login_cluster(void)
{
	return L.v.id != 0 ? L.v.cluster : NULL;
}

int
ui_login_key(int key)
{
	if (L.v.id == 0)
		return 0;
	switch (key) {
	case UIKEY_ESC:
		askq_cancel(L.q, L.v.id);
		login_close();
		return UIF_REDRAW;
	case '\n':
	case '\r':
	case UIKEY_FN(KEY_ENTER):
		if (L.cur < L.v.n) {
			L.answers[L.cur++] = xstrndup(L.input, L.len);
			login_wipe_input();
		}
		if (L.cur >= L.v.n) {
			/* Taken (and wiped) whether or not it still waits. */
			askq_answer(L.q, L.v.id, L.answers, L.v.n);
			login_close();
		}
		return UIF_REDRAW;
	case UIKEY_CTRL('u'):
		login_wipe_input();
		return UIF_REDRAW;
	case 0x7f:
	case 0x08:
	case UIKEY_FN(KEY_BACKSPACE):
		/* Drop one UTF-8 character. */
		while (L.len > 0 &&
		    ((unsigned char)L.input[--L.len] & 0xc0) == 0x80)
			L.input[L.len] = '\0';
		L.input[L.len] = '\0';
		return UIF_REDRAW;
	}
	if (key >= 0x20 && key < 0x110000 && key != 0x7f &&
	    L.len + 4 < sizeof L.input) {
		/* UTF-8 of one code point. */
		if (key < 0x80)
			L.input[L.len++] = (char)key;
		else if (key < 0x800) {
			L.input[L.len++] = (char)(0xc0 | key >> 6);
			L.input[L.len++] = (char)(0x80 | (key & 0x3f));
		} else if (key < 0x10000) {
			L.input[L.len++] = (char)(0xe0 | key >> 12);
			L.input[L.len++] = (char)(0x80 | (key >> 6 & 0x3f));
			L.input[L.len++] = (char)(0x80 | (key & 0x3f));
		} else {
			L.input[L.len++] = (char)(0xf0 | key >> 18);
			L.input[L.len++] = (char)(0x80 | (key >> 12 & 0x3f));
			L.input[L.len++] = (char)(0x80 | (key >> 6 & 0x3f));
			L.input[L.len++] = (char)(0x80 | (key & 0x3f));
		}
		L.input[L.len] = '\0';
	}
	return UIF_REDRAW;
}

/* One line of (sanitised) text inside the box. */
static void
login_line(int y, int x, int w, const char *s, attr_t a, int ascii)
{
	char	*clean, *fit;

	clean = uitext_sanitize(s, strlen(s), 0);
	fit = uitext_fit(clean, w, ascii ? UITEXT_ASCII : 0);
	attron(a);
	mvaddstr(y, x, fit);
	attroff(a);
	free(fit);
	free(clean);
}

/* Server text may have several lines: one box line each (at most 4). */
static int
login_text(int y, int x, int w, const char *s, attr_t a, int ascii)
{
	char	*copy = xstrdup(s), *p = copy, *nl;
	int	 n = 0;

	while (*p != '\0' && n < 4) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		login_line(y + n++, x, w, p, a, ascii);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	free(copy);
	return n;
}

static int
login_count_lines(const char *s)
{
	int	n = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (n = 1; *s != '\0'; s++) {
		if (*s == '\n' && s[1] != '\0')
			n++;
	}
	return n > 4 ? 4 : n;
}

void
ui_login_draw(int y, int ascii)
{
	const struct conn_prompt	*p;
	struct buf			 b;
	char				*title, *shown;
	int				 w, h, x, row, i, field;
	size_t				 k;

	if (L.v.id == 0)
		return;
	p = &L.v.prompts[L.cur < L.v.n ? L.cur : 0];
	w = COLS - 4 > 72 ? 72 : COLS - 4;
	if (w < 20)
		w = COLS;
	h = 2 + login_count_lines(L.v.name) +
	    login_count_lines(L.v.instruction) + (L.v.note != NULL) + 1 + 1;
	if (y + h > LINES)
		y = LINES - h > 0 ? LINES - h : 0;
	x = COLS > w ? 2 : 0;
	for (row = 0; row < h; row++) {
		move(y + row, x);
		for (i = 0; i < w; i++)
			addch(row == 0 || row == h - 1 ? ACS_HLINE :
			    (i == 0 || i == w - 1) ? ACS_VLINE : ' ');
	}
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	title = xasprintf(" %s: second factor ", L.v.cluster);
	shown = uitext_sanitize(title, strlen(title), 0);
	field = uitext_width(shown);
	login_line(y, x + 2, field < w - 4 ? field : w - 4, shown, A_BOLD,
	    ascii);
	free(shown);
	free(title);
	row = y + 1;
	if (*L.v.name != '\0')
		row += login_text(row, x + 2, w - 4, L.v.name, A_BOLD, ascii);
	if (*L.v.instruction != '\0')
		row += login_text(row, x + 2, w - 4, L.v.instruction, 0,
		    ascii);
	if (L.v.note != NULL)
		login_line(row++, x + 2, w - 4, L.v.note, A_BOLD, ascii);
	/* The prompt as the server wrote it, then what is typed. */
	buf_init(&b);
	buf_adds(&b, p->text);
	if (p->echo)
		buf_add(&b, L.input, L.len);
	else {
		for (k = 0; k < L.len; k++) {
			if (((unsigned char)L.input[k] & 0xc0) != 0x80)
				buf_adds(&b, "*");
		}
	}
	shown = uitext_sanitize(b.data, b.len, 0);
	field = uitext_width(shown);
	login_line(row, x + 2, w - 4, shown, 0, ascii);
	if (field < w - 4)
		mvaddch(row, x + 2 + field, '_' | A_BLINK);
	explicit_bzero(b.data, b.len);
	buf_free(&b);
	free(shown);
	row++;
	login_line(row, x + 2, w - 4, "Enter send  Esc cancel  "
	    "(the other clusters keep working)", A_DIM, ascii);
}
