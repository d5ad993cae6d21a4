/*
 * Drawing primitives: styles, clipped text, the header, footer and boxes,
 * and the frame that lays the panes out.
 */
#include "ui-int.h"

char *
ui_san(const char *s)
{
	return s == NULL ? NULL : uitext_sanitize(s, strlen(s), 0);
}

/*
 * Printable ASCII is what the sanitiser leaves as it is: such a string (a
 * poll's ids, names and states, nearly always) is kept, not copied.
 */
void
ui_san_inplace(char **sp)
{
	char			*s = *sp;
	const unsigned char	*p;

	if (s == NULL)
		return;
	for (p = (const unsigned char *)s; *p >= 0x20 && *p < 0x7f; p++)
		/* nothing */;
	if (*p != '\0') {
		*sp = ui_san(s);
		free(s);
	}
}

enum style
health_style(enum cluster_health h)
{
	switch (h) {
	case CLUSTER_OK:
		return ST_HEALTH_OK;
	case CLUSTER_CONNECTING:
	case CLUSTER_STALE:
		return ST_HEALTH_WAIT;
	case CLUSTER_ERROR:
		break;
	}
	return ST_HEALTH_BAD;
}

enum style
state_style(const struct jobtable_row *r)
{
	switch (jobtable_state_class(r->state)) {
	case JC_RUNNING:
		return ST_RUNNING;
	case JC_PENDING:
		return ST_PENDING;
	case JC_DONE:
		return ST_DONE;
	case JC_FAILED:
		return ST_FAILED;
	case JC_CANCELLED:
		return ST_CANCELLED;
	case JC_OTHER:
		break;
	}
	return ST_OTHER;
}

/* ------------------------------------------------------------ drawing */

void
styles_init(struct ui *ui)
{
	static const struct {
		short	fg, bg;
		attr_t	attr;	/* with colour */
		attr_t	mono;	/* NO_COLOR or no colours */
	} def[ST_COUNT] = {
		[ST_NORMAL] =	   { -1, -1, A_NORMAL, A_NORMAL },
		[ST_HEADER] =	   { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE },
		[ST_TITLE_FOCUS] = { COLOR_BLACK, COLOR_CYAN, A_BOLD,
				     A_REVERSE | A_BOLD },
		[ST_TITLE] =	   { COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[ST_COLHEAD] =	   { -1, -1, A_BOLD | A_UNDERLINE,
				     A_BOLD | A_UNDERLINE },
		[ST_CURSOR] =	   { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
		[ST_RUNNING] =	   { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[ST_PENDING] =	   { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
		[ST_DONE] =	   { COLOR_BLUE, -1, A_BOLD, A_DIM },
		[ST_FAILED] =	   { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[ST_CANCELLED] =   { COLOR_MAGENTA, -1, A_NORMAL, A_DIM },
		[ST_OTHER] =	   { -1, -1, A_DIM, A_DIM },
		[ST_HEALTH_OK] =   { COLOR_GREEN, COLOR_BLUE, A_BOLD, A_REVERSE },
		[ST_HEALTH_WAIT] = { COLOR_YELLOW, COLOR_BLUE, A_BOLD,
				     A_REVERSE },
		[ST_HEALTH_BAD] =  { COLOR_WHITE, COLOR_RED, A_BOLD,
				     A_REVERSE | A_BOLD | A_UNDERLINE },
		[ST_MSG_ERR] =	   { COLOR_WHITE, COLOR_RED, A_BOLD,
				     A_REVERSE | A_BOLD },
		[ST_MSG] =	   { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[ST_DIM] =	   { -1, -1, A_DIM, A_DIM },
		[ST_DIALOG] =	   { COLOR_WHITE, COLOR_BLUE, A_NORMAL,
				     A_REVERSE },
		[ST_BUTTON] =	   { COLOR_BLACK, COLOR_WHITE, A_BOLD,
				     A_BOLD | A_UNDERLINE },
	};
	int	i;

	for (i = 0; i < ST_COUNT; i++) {
		if (!ui->color) {
			ui->styles[i] = def[i].mono;
			continue;
		}
		if (def[i].fg == -1 && def[i].bg == -1) {
			ui->styles[i] = def[i].attr;
			continue;
		}
		init_pair((short)(i + 1), def[i].fg, def[i].bg);
		ui->styles[i] = COLOR_PAIR(i + 1) | def[i].attr;
	}
}

/* Draw s fitted to exactly w columns at (y, x), clipped to the screen. */
void
ui_put(struct ui *ui, int y, int x, int w, const char *s, enum style st,
    int flags)
{
	char	*f;

	if (y < 0 || y >= LINES || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	f = uitext_fit(s, w, flags | (ui->ascii ? UITEXT_ASCII : 0));
	attrset(ui->styles[st]);
	mvaddstr(y, x, f);
	attrset(A_NORMAL);
	free(f);
}

void
ui_put_attr(struct ui *ui, int y, int x, int w, const char *s, attr_t a)
{
	char	*f;

	if (y < 0 || y >= LINES || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	f = uitext_fit(s, w, ui->ascii ? UITEXT_ASCII : 0);
	attrset(a);
	mvaddstr(y, x, f);
	attrset(A_NORMAL);
	free(f);
}

static void
draw_header(struct ui *ui, time_t now)
{
	char		 clock[16], status[48], seg[256];
	struct tm	 tm;
	int		 x, w, cw;
	size_t		 i;

	localtime_r(&now, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	ui_put(ui, 0, 0, COLS, " sqdeck", ST_HEADER, 0);
	cw = (int)strlen(clock) + 1;
	ui_put(ui, 0, COLS - cw, cw, clock, ST_HEADER, 0);
	x = 11;
	for (i = 0; i < ui->ncl; i++) {
		const struct ucluster	*c = &ui->cl[i];
		enum cluster_health	 h = cluster_health(c, now);

		health_text(c, now, status, sizeof status);
		if (c->backoff > 0 && c->fault != NULL)
			backoff_text(c, now, status, sizeof status);
		snprintf(seg, sizeof seg, " %s %s ", c->name, status);
		w = uitext_width(seg);
		if (x + 1 + w > COLS - cw - 1) {
			snprintf(seg, sizeof seg, " +%zu", ui->ncl - i);
			ui_put(ui, 0, x, (int)strlen(seg), seg, ST_HEADER, 0);
			break;
		}
		ui_put(ui, 0, x + 1, w, seg, health_style(h), 0);
		x += 1 + w;
	}
}

void
draw_title(struct ui *ui, int y, enum pane p, const char *text)
{
	ui_put(ui, y, 0, COLS, text, ui->focus == p ? ST_TITLE_FOCUS : ST_TITLE,
	    0);
}

enum uictx
current_ctx(const struct ui *ui)
{
	switch (ui->ov) {
	case OV_VIEW:
		return UICTX_VIEW;
	case OV_DIALOG:
		return UICTX_DIALOG;
	case OV_FILTER:
		return UICTX_FILTER;
	case OV_WIZARD:
		return UICTX_WIZARD;
	case OV_CMDLINE:
		return UICTX_CMDLINE;
	case OV_NONE:
		break;
	}
	return ui_panes[ui->focus]->ctx;
}

static void
draw_footer(struct ui *ui, time_t now)
{
	int	 y = LINES - 1, age = (int)(now - ui->msg_time);
	char	*hints, *line;

	if (ui->ov == OV_CMDLINE) {
		ui_cmdline_draw(ui, y);
		return;
	}
	if (ui->ov == OV_FILTER) {
		int	lw;

		if (ui->prompt == UI_PROMPT_FORWARD)
			line = xasprintf("%s: %s", ui_enter_prompt(),
			    ui->input.data ? ui->input.data : "");
		else if (ui->prompt != 0)
			line = xasprintf("%s (Enter: send, Esc: no): %s",
			    ui->prompt - 1 == JOBACT_TIME ? "new time limit "
			    "(30, 1:00:00; only lower)" : "signal to the job's "
			    "steps", ui->input.data ? ui->input.data : "");
		else
			line = xasprintf("%s/%s", ui->searching ?
			    "search the log: " : "", ui->input.data ?
			    ui->input.data : "");
		ui_put(ui, y, 0, COLS, line, ST_NORMAL, 0);
		lw = uitext_width(line);
		if (lw < COLS)
			ui_put(ui, y, lw, 1, " ", ST_CURSOR, 0);
		/* A regex that does not compile (yet) is said beside it. */
		if (ui->msg != NULL && ui->msg_err && age < ERR_SECONDS &&
		    lw + 3 < COLS)
			ui_put(ui, y, lw + 3, COLS - lw - 3, ui->msg, ST_MSG_ERR, 0);
		free(line);
		return;
	}
	if (ui->msg != NULL && age < (ui->msg_err ? ERR_SECONDS : MSG_SECONDS)) {
		hints = NULL;
		line = xstrdup(ui->msg);
	} else {
		hints = uikeys_hints(current_ctx(ui));
		line = xasprintf(" %s", hints);
	}
	/* Help and quit stay visible however narrow the screen. */
	if (ui->ov == OV_NONE) {
		const char	*right = "? help  q quit ";
		int		 rw = (int)strlen(right);

		int		 avail = COLS - rw - 2;

		/* A long message is cut with "…", never over the hints. */
		if (hints == NULL && avail > 1 && uitext_width(line) > avail) {
			size_t	n = uitext_prefix(line, avail - 1, NULL);
			char	*cut = xasprintf("%.*s%s", (int)n, line,
				    ui->ascii ? ">" : "\xe2\x80\xa6");

			free(line);
			line = cut;
		}
		ui_put(ui, y, 0, COLS - rw - 1, "", ST_NORMAL, 0);
		ui_put(ui, y, 0, hints == NULL ? uitext_width(line) : COLS - rw - 1,
		    line, hints != NULL ? ST_DIM : ui->msg_err ? ST_MSG_ERR :
		    ST_MSG, 0);
		ui_put(ui, y, COLS - rw, rw, right, ST_TITLE, 0);
	} else
		ui_put(ui, y, 0, COLS, line, hints != NULL ? ST_DIM :
		    ui->msg_err ? ST_MSG_ERR : ST_MSG, 0);
	free(hints);
	free(line);
}

/* A centred box with a frame; returns its inner geometry. */
void
draw_box(struct ui *ui, int h, int w, const char *title, int *py, int *px)
{
	int	y, x, i;
	attr_t	a = ui->styles[ST_DIALOG];

	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	y = (LINES - h) / 2;
	x = (COLS - w) / 2;
	for (i = 0; i < h; i++)
		ui_put(ui, y + i, x, w, "", ST_DIALOG, 0);
	attrset(a);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	if (title != NULL) {
		char	*t = xasprintf(" %s ", title);
		int	 tw = uitext_width(t);

		if (tw > w - 4)
			tw = w - 4;
		ui_put_attr(ui, y, x + 2, tw, t, a | A_BOLD);
		free(t);
	}
	*py = y + 1;
	*px = x + 2;
}

/* The end of s that fits in cols columns (what is being typed). */
const char *
ui_tail_fit(const char *s, int cols)
{
	while (*s != '\0' && uitext_width(s) > cols) {
		s++;
		while (((unsigned char)*s & 0xc0) == 0x80)
			s++;
	}
	return s;
}

/* Put a long message over up to n lines of width w; returns lines used. */
int
ui_put_wrapped(struct ui *ui, int y, int x, int w, int n, const char *s,
    attr_t a)
{
	int	used = 0;
	size_t	len;

	while (*s != '\0' && used < n && w > 0) {
		char	*part;

		len = uitext_prefix(s, w, NULL);
		if (len == 0)
			break;
		/* Cut at a blank when one is near the end. */
		if (s[len] != '\0') {
			size_t	k = len;

			while (k > len / 2 && s[k] != ' ')
				k--;
			if (k > len / 2)
				len = k + 1;
		}
		part = xstrndup(s, len);
		ui_put_attr(ui, y + used, x, w, part, a);
		free(part);
		s += len;
		used++;
	}
	return used;
}

void
ui_draw(struct ui *ui)
{
	time_t	now = time(NULL);
	int	avail, ch, jh, lh, y, hs[NPANES];
	size_t	p;

	erase();
	draw_header(ui, now);
	avail = LINES - 2;
	/* Clusters: one line each, at most a quarter of the screen. */
	ch = 1 + (ui->ncl > 0 ? (int)ui->ncl : 1);
	if (ch > 1 + avail / 4)
		ch = 1 + (avail / 4 > 0 ? avail / 4 : 0);
	if (avail - ch < 6)
		ch = avail >= 7 ? 1 : 0;
	/* < and > move the split (ui-view.c), minimum rows kept. */
	jh = ui_split_jobs_rows(ui, avail - ch);
	lh = avail - ch - jh;
	/* z: the log alone between the header and the footer. */
	if (ui->zoom) {
		ch = jh = 0;
		lh = avail;
	}
	hs[PANE_CLUSTERS] = ch;
	hs[PANE_JOBS] = jh;
	hs[PANE_LOG] = lh;
	for (p = 0, y = 1; p < NPANES; y += hs[p++]) {
		if (hs[p] > 0)
			ui_panes[p]->draw(ui, y, hs[p], now);
	}
	draw_footer(ui, now);
	if (ui->ov == OV_VIEW)
		draw_view(ui);
	else if (ui->ov == OV_DIALOG)
		draw_dialog(ui);
	else if (ui->ov == OV_WIZARD)
		draw_wizard(ui);
	/* Under the clusters, so every cluster's line stays in view. */
	if (ui_login_active())
		ui_login_draw(clusters_end_y(ui), ui->ascii);
	wnoutrefresh(stdscr);
	doupdate();
}
