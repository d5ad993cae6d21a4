/*
 * The log pane: the followed job's log as it arrives, wrapping, sideways
 * scroll, search and zoom.
 */
#include "ui-int.h"

/* ------------------------------------------------------------ log model */

void
log_clear_text(struct ulog *l)
{
	strv_free(&l->lines);
	buf_free(&l->partial);
	l->next = 0;
	l->missing = l->done = l->got = 0;
	l->top = 0;
	l->has_match = 0;
	free(l->note);
	l->note = NULL;
}

static void
log_watch(struct ui *ui)
{
	if (ui->be == NULL || ui->be->watch_log == NULL)
		return;
	ui->be->watch_log(ui->be->arg, ui->log.cluster, ui->log.id,
	    ui->log.stream, ui->log.next);
}

/* Point the log pane at the current job if the selection moved. */
int
log_sync(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	struct ulog			*l = &ui->log;

	if (r == NULL && l->cluster == NULL)
		return 0;
	if (r != NULL && l->cluster != NULL &&
	    strcmp(r->cluster, l->cluster) == 0 && strcmp(r->id, l->id) == 0)
		return 0;
	/* o is for the job it was pressed on: the next job shows main.out. */
	if (l->cluster != NULL)
		l->stream = LOG_OUT;
	free(l->cluster);
	free(l->id);
	free(l->name);
	l->cluster = l->id = l->name = NULL;
	log_clear_text(l);
	l->follow = 1;
	l->hscroll = 0;
	if (r != NULL) {
		l->cluster = xstrdup(r->cluster);
		l->id = xstrdup(r->id);
		l->name = xstrdup(r->name);
	}
	/* A job array's group row has no log: each of its tasks has one. */
	if (r != NULL && r->array_tasks > 0) {
		l->note = xasprintf("job array %s, %d tasks: + lists them, a "
		    "task shows its own log", r->id, r->array_tasks);
		l->got = 1;
		if (ui->be != NULL && ui->be->watch_log != NULL)
			ui->be->watch_log(ui->be->arg, NULL, NULL, l->stream,
			    0);
		return UIF_REDRAW;
	}
	log_watch(ui);
	return UIF_REDRAW;
}

static void
log_add_line(struct ulog *l, const char *raw, size_t len)
{
	size_t	drop = 1000, i;

	if (l->lines.n >= LOG_MAX_LINES) {
		for (i = 0; i < drop; i++)
			free(l->lines.v[i]);
		memmove(l->lines.v, l->lines.v + drop,
		    (l->lines.n - drop) * sizeof *l->lines.v);
		l->lines.n -= drop;
		l->top = l->top > drop ? l->top - drop : 0;
		if (l->has_match && l->match < drop)
			l->has_match = 0;
		else if (l->has_match)
			l->match -= drop;
	}
	/* MULTILINE so that \r rewinds a progress bar within the line. */
	l->lines.v = xrealloc(l->lines.v, (l->lines.n + 1) * sizeof *l->lines.v);
	l->lines.v[l->lines.n++] = uitext_sanitize(raw, len, UITEXT_MULTILINE);
}

int
log_apply(struct ui *ui, struct msg_log *m)
{
	struct ulog	*l = &ui->log;
	const char	*data = m->data, *nl;
	size_t		 len = m->len, skip, start;

	if (l->cluster == NULL || m->cluster == NULL || m->job_id == NULL ||
	    strcmp(m->cluster, l->cluster) != 0 ||
	    strcmp(m->job_id, l->id) != 0 || m->stream != l->stream)
		return 0;	/* an answer for a job no longer shown */
	l->got = 1;
	l->missing = (m->flags & MSG_LOG_MISSING) != 0;
	l->done = (m->flags & MSG_LOG_DONE) != 0;
	if (data == NULL || len == 0)
		return UIF_REDRAW;
	if (m->offset == 0 && l->next > 0)
		log_clear_text(l);	/* truncated or replaced: start over */
	if (m->offset < l->next) {
		skip = l->next - m->offset;	/* overlap already shown */
		if (skip >= len)
			return UIF_REDRAW;
		data += skip;
		len -= skip;
	}
	l->got = 1;
	l->next = (m->offset > l->next ? m->offset : l->next) + len;
	buf_add(&l->partial, data, len);
	start = 0;
	while ((nl = memchr(l->partial.data + start, '\n',
	    l->partial.len - start)) != NULL) {
		log_add_line(l, l->partial.data + start,
		    nl - (l->partial.data + start));
		start = nl - l->partial.data + 1;
	}
	/* \r-only output (tqdm) never ends its line: keep it bounded. */
	if ((skip = uitext_partial_keep(l->partial.data + start,
	    l->partial.len - start, LOG_MAX_PARTIAL)) != 0) {
		if (skip == l->partial.len - start)
			log_add_line(l, l->partial.data + start, skip);
		start += skip;
	}
	if (start > 0) {
		memmove(l->partial.data, l->partial.data + start,
		    l->partial.len - start);
		l->partial.len -= start;
		l->partial.data[l->partial.len] = '\0';
	}
	return UIF_REDRAW;
}

/* Display rows a line takes at width cols. */
static int
line_rows(const char *s, int cols, int wrap)
{
	int	w;

	if (!wrap || cols <= 0)
		return 1;
	w = uitext_width(s);
	return w <= cols ? 1 : (w + cols - 1) / cols;
}

/* The search's matches in a drawn segment of a log line, in reverse. */
static void
draw_log_marks(struct ui *ui, int y, const char *seg, int cols, int current)
{
	const char	*needle = ui->log.search, *p = seg;
	size_t		 nl;
	char		*pre, *hit;
	int		 x, w;

	if (needle == NULL || (nl = strlen(needle)) == 0)
		return;
	while ((p = strcasestr(p, needle)) != NULL) {
		pre = xstrndup(seg, (size_t)(p - seg));
		x = uitext_width(pre);
		free(pre);
		if (x >= cols)
			break;
		hit = xstrndup(p, nl);
		w = uitext_width(hit);
		ui_put_attr(ui, y, x, w < cols - x ? w : cols - x, hit,
		    ui->styles[current ? ST_CURSOR : ST_NORMAL] | A_REVERSE);
		free(hit);
		p += nl;
	}
}

static void
draw_log_line(struct ui *ui, int y, int ylim, const char *s, int skip,
    int current)
{
	size_t	n;
	int	cols = COLS, r = 0;

	if (!ui->log.wrap) {
		/* Scrolled sideways: the columns left of hscroll are hidden. */
		if (ui->log.hscroll > 0)
			s += uitext_prefix(s, ui->log.hscroll, NULL);
		if (skip == 0) {
			ui_put(ui, y, 0, cols, s, ST_NORMAL, 0);
			draw_log_marks(ui, y, s, cols, current);
		}
		return;
	}
	/* Wrapped: segments of at most cols columns, skipping the first. */
	do {
		char	*seg;

		n = uitext_prefix(s, cols, NULL);
		if (n == 0 && *s != '\0')
			n = strlen(s);	/* wider than the screen: give up */
		if (r >= skip) {
			if (y >= ylim)
				return;
			seg = xstrndup(s, n);
			ui_put(ui, y, 0, cols, seg, ST_NORMAL, 0);
			draw_log_marks(ui, y++, seg, cols, current);
			free(seg);
		}
		s += n;
		r++;
	} while (*s != '\0');
}

/*
 * The log pane's title; pos (or NULL) on its right.  A long job name is
 * cut to make room: the markers ([ended], [follow], [wrap], [zoom]) and
 * the position say more.
 */
static void
draw_log_title(struct ui *ui, int y, const char *pos)
{
	struct ulog	*l = &ui->log;
	const char	*file = l->stream == LOG_ERR ? "main.err" : "main.out";
	enum style	 st = ui->focus == PANE_LOG ? ST_TITLE_FOCUS : ST_TITLE;
	char		*head, *tail, *name, *title;
	int		 pw = pos != NULL ? uitext_width(pos) : 0, room;

	/* A job that ended is not followed any more: say so. */
	tail = xasprintf("%s%s%s%s%s", l->cluster != NULL ? "  " : "",
	    l->cluster != NULL ? file : "",
	    l->done ? "  [ended]" : l->follow ? "  [follow]" : "",
	    l->wrap ? "  [wrap]" : "", ui->zoom ? "  [zoom]" : "");
	if (l->cluster == NULL) {
		head = xstrdup(" 3 Log");
		name = xstrdup("");
	} else {
		head = xasprintf(" 3 Log  %s %s  ", l->cluster, l->id);
		name = xstrdup(l->name != NULL ? l->name : "");
	}
	if (pw > 0 && pw + 30 > COLS)
		pw = 0;		/* too narrow: no position */
	room = COLS - pw - 1 - uitext_width(head) - uitext_width(tail);
	if (uitext_width(name) > room) {
		char	*cut = uitext_fit(name, room > 1 ? room : 1,
			    ui->ascii ? UITEXT_ASCII : 0);

		free(name);
		name = cut;
	}
	title = xasprintf("%s%s%s", head, name, tail);
	ui_put(ui, y, 0, COLS, title, st, 0);
	if (pw > 0)
		ui_put(ui, y, COLS - pw, pw, pos, st, 0);
	free(title);
	free(head);
	free(tail);
	free(name);
}

/* Why an ended job has no log file: it never ran, or it wrote none. */
static char *
log_ended_text(struct ui *ui, const char *file)
{
	const struct jobtable_row	*r;
	const struct ulog		*l = &ui->log;

	r = jobtable_find(ui->jt, l->cluster, l->id);
	if (r != NULL && r->elapsed <= 0 &&
	    jobtable_state_class(r->state) == JC_CANCELLED)
		return xasprintf("the job was cancelled before it ran: it "
		    "has no %s", file);
	if (r != NULL && r->elapsed == 0)
		return xasprintf("the job ended (%s) before it ran: it has "
		    "no %s", r->state, file);
	return xasprintf("the job ended%s%s%s without writing %s",
	    r != NULL ? " (" : "", r != NULL ? r->state : "",
	    r != NULL ? ")" : "", file);
}

static void
draw_log(struct ui *ui, int y, int h, time_t now)
{
	struct ulog	*l = &ui->log;
	char		*partial = NULL;
	const char	*file = l->stream == LOG_ERR ? "main.err" : "main.out";
	const char	*why = NULL;
	char		*ended_text = NULL;
	size_t		 n, i, first;
	int		 rows, used, yy, skip;

	draw_log_title(ui, y, NULL);
	rows = h - 1;
	ui->log_h = rows > 0 ? rows : 1;
	if (rows <= 0)
		return;

	if (l->partial.len > 0)
		partial = uitext_sanitize(l->partial.data, l->partial.len,
		    UITEXT_MULTILINE);
	n = l->lines.n + (partial != NULL);
#define LINE(i) ((i) < l->lines.n ? l->lines.v[i] : partial)

	if (l->cluster == NULL)
		why = "select a job to see its log";
	else if (ui->be == NULL || ui->be->watch_log == NULL)
		why = "not connected: no worker reads logs";
	else if (n == 0 && l->note != NULL)
		why = l->note;
	else if (n == 0 && l->missing && l->done)
		why = ended_text = log_ended_text(ui, file);
	else if (n == 0 && l->missing)
		why = l->stream == LOG_ERR ? "main.err does not exist (yet): "
		    "waiting for log\xe2\x80\xa6" : "main.out does not exist "
		    "(yet): waiting for log\xe2\x80\xa6";
	else if (n == 0)
		why = "waiting for log\xe2\x80\xa6";
	if (why != NULL) {
		ui_put(ui, y + 1, 2, COLS - 2, why, ST_DIM, 0);
		free(ended_text);
		free(partial);
		return;
	}

	/* The end mark has a row of its own, whatever the pane's size. */
	if (l->done && l->follow && rows > 1)
		rows--;
	/* Following: the last lines that fill the pane, bottom up. */
	if (l->follow) {
		used = 0;
		first = n;
		while (first > 0 && used < rows) {
			used += line_rows(LINE(first - 1), COLS, l->wrap);
			first--;
		}
		l->top = first;
		skip = used > rows ? used - rows : 0;
	} else {
		if (l->top >= n)
			l->top = n > 0 ? n - 1 : 0;
		first = l->top;
		skip = 0;
	}
	yy = y + 1;
	for (i = first; i < n && yy < y + 1 + rows; i++) {
		int	lr = line_rows(LINE(i), COLS, l->wrap);

		draw_log_line(ui, yy, y + 1 + rows, LINE(i), skip,
		    l->has_match && l->match == i);
		yy += lr - skip;
		skip = 0;
	}
	/* Where the pane is in the log, on the title's right. */
	{
		char	pos[96];

		if (l->hscroll > 0)
			snprintf(pos, sizeof pos, "lines %zu-%zu of %zu, from "
			    "column %d ", first + 1, i, n, l->hscroll + 1);
		else
			snprintf(pos, sizeof pos, "lines %zu-%zu of %zu ",
			    first + 1, i, n);
		draw_log_title(ui, y, pos);
	}
	if (l->done && l->follow && yy < y + h)
		ui_put(ui, yy, 0, COLS, "-- end of log: the job has ended --",
		    ST_DIM, 0);
#undef LINE
	free(partial);
}

/* ------------------------------------------------------------ log search */

/*
 * The line of the next match of needle from line `from` going dir (+1,
 * -1), wrapping around; *wrapped says it passed an end.  Complete lines
 * only.  -1: none.
 */
static long
log_find(const struct ulog *l, const char *needle, size_t from, int dir,
    int *wrapped)
{
	size_t	n = l->lines.n, k, i;

	*wrapped = 0;
	if (needle == NULL || *needle == '\0' || n == 0)
		return -1;
	if (from >= n)
		from = dir > 0 ? 0 : n - 1;
	for (k = 0; k < n; k++) {
		if (dir > 0)
			i = (from + k) % n;
		else
			i = (from + n - k) % n;
		if (strcasestr(l->lines.v[i], needle) != NULL) {
			*wrapped = dir > 0 ? i < from : i > from;
			return (long)i;
		}
	}
	return -1;
}

/* Show line i of a match near the top of the pane (a line of context). */
void
log_show_match(struct ui *ui, size_t i)
{
	struct ulog	*l = &ui->log;

	l->match = i;
	l->has_match = 1;
	l->follow = 0;
	l->top = i > 0 ? i - 1 : 0;
}

/* Search from line from in dir; say where it landed. */
int
log_search_go(struct ui *ui, const char *needle, size_t from, int dir,
    int quiet)
{
	struct ulog	*l = &ui->log;
	long		 i;
	int		 wrapped;

	if ((i = log_find(l, needle, from, dir, &wrapped)) < 0) {
		l->has_match = 0;
		if (!quiet || *needle != '\0')
			ui_message(ui, 1, "log search: \"%s\" is not in the "
			    "%zu lines of %s", needle, l->lines.n,
			    l->stream == LOG_ERR ? "main.err" : "main.out");
		return UIF_REDRAW;
	}
	log_show_match(ui, (size_t)i);
	if (!quiet)
		ui_message(ui, 0, "log search: \"%s\" at line %ld of %zu%s",
		    needle, i + 1, l->lines.n, !wrapped ? "" : dir > 0 ?
		    " (passed the end, went on from the top)" :
		    " (passed the top, went on from the end)");
	return UIF_REDRAW;
}

/* The first line shown: where a new search starts. */
static size_t
log_first_shown(const struct ui *ui)
{
	return ui->log.top;
}

int
act_log_search(struct ui *ui)
{
	buf_free(&ui->input);
	buf_add(&ui->input, "", 0);
	ui->searching = 1;
	ui->log.search_from = log_first_shown(ui);
	ui->log.search_follow = ui->log.follow;
	ui->ov = OV_FILTER;
	return UIF_REDRAW;
}

static int
act_search_step(struct ui *ui, int dir)
{
	struct ulog	*l = &ui->log;
	size_t		 from;

	if (l->search == NULL) {
		ui_message(ui, 1, "n/N: search the log with / first");
		return UIF_REDRAW;
	}
	if (l->has_match)
		from = dir > 0 ? l->match + 1 : (l->match > 0 ? l->match - 1 :
		    (l->lines.n > 0 ? l->lines.n - 1 : 0));
	else
		from = log_first_shown(ui);
	return log_search_go(ui, l->search, from, dir, 0);
}

int
act_search_next(struct ui *ui)
{
	return act_search_step(ui, 1);
}

int
act_search_prev(struct ui *ui)
{
	return act_search_step(ui, -1);
}

/* Sideways by half a screen, not past the widest line. */
static int
act_scroll(struct ui *ui, int dir)
{
	struct ulog	*l = &ui->log;
	int		 step = COLS / 2 > 1 ? COLS / 2 : 1, widest = 0, w;
	size_t		 i;

	if (l->wrap) {
		ui_message(ui, 1, "h/l scroll sideways when lines are not "
		    "wrapped: w unwraps them");
		return UIF_REDRAW;
	}
	if (dir < 0) {
		l->hscroll = l->hscroll > step ? l->hscroll - step : 0;
		return UIF_REDRAW;
	}
	for (i = 0; i < l->lines.n; i++) {
		if ((w = uitext_width(l->lines.v[i])) > widest)
			widest = w;
	}
	if (l->hscroll + step < widest)
		l->hscroll += step;
	return UIF_REDRAW;
}

int
act_scroll_left(struct ui *ui)
{
	return act_scroll(ui, -1);
}

int
act_scroll_right(struct ui *ui)
{
	return act_scroll(ui, 1);
}

int
act_zoom(struct ui *ui)
{
	ui->zoom = !ui->zoom;
	if (ui->zoom)
		ui->focus = PANE_LOG;
	return UIF_REDRAW;
}

int
act_log_esc(struct ui *ui)
{
	if (!ui->zoom && ui->log.search == NULL)
		return 0;
	ui->zoom = 0;
	free(ui->log.search);
	ui->log.search = NULL;
	ui->log.has_match = 0;
	return UIF_REDRAW;
}

int
act_toggle_err(struct ui *ui)
{
	struct ulog	*l = &ui->log;

	l->stream = l->stream == LOG_OUT ? LOG_ERR : LOG_OUT;
	log_clear_text(l);
	l->follow = 1;
	if (l->cluster != NULL)
		log_watch(ui);
	ui_message(ui, 0, "log: %s", l->stream == LOG_ERR ? "main.err" :
	    "main.out");
	return UIF_REDRAW;
}

int
act_wrap(struct ui *ui)
{
	ui->log.wrap = !ui->log.wrap;
	ui->log.hscroll = 0;
	return UIF_REDRAW;
}

int
act_follow(struct ui *ui)
{
	ui->log.follow = !ui->log.follow;
	if (!ui->log.follow) {
		size_t	n = ui->log.lines.n;

		ui->log.top = n > (size_t)ui->log_h ? n - ui->log_h : 0;
	}
	return UIF_REDRAW;
}

static void
log_move(struct ui *ui, long delta)
{
	struct ulog	*l = &ui->log;
	size_t		 n = l->lines.n + (l->partial.len > 0);

	if (delta > 0 && l->follow)
		return;
	l->follow = 0;	/* scrolling up stops following */
	if (delta < 0)
		l->top = (size_t)-delta > l->top ? 0 : l->top + delta;
	else if (l->top + delta + (size_t)ui->log_h >= n)
		l->follow = 1;	/* back at the end */
	else
		l->top += delta;
}

static void
log_top(struct ui *ui)
{
	ui->log.follow = 0;
	ui->log.top = 0;
}

static void
log_bottom(struct ui *ui)
{
	ui->log.follow = 1;
}

static int
log_height(const struct ui *ui)
{
	return ui->log_h;
}

const struct pane_ops	pane_log = {
	.ctx = UICTX_LOG,
	.draw = draw_log,
	.move_by = log_move,
	.top = log_top,
	.bottom = log_bottom,
	.height = log_height,
};
