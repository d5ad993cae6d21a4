/*
 * The jobs pane: the table from the workers' snapshots, filter, sort,
 * marks, hold/release, the cancel dialog, and end-of-job notifications.
 */
#include "ui-int.h"

/* ------------------------------------------------------- notifications */

#define NOTIFY_BELL	0x1
#define NOTIFY_OSC9	0x2	/* iTerm2, WezTerm, kitty, foot, ghostty */
#define NOTIFY_OSC777	0x4	/* VTE terminals, urxvt, foot */
#define NOTIFY_ALL	0x8	/* every job of the list, not just marked */

/*
 * What to send when a watched job ends: SQDECK_NOTIFY ("off", or a comma
 * list of bell, osc9, osc777, all), else the bell and the OSC the terminal
 * is known to show (none inside tmux or screen, which would swallow it).
 */
int
ui_notify_parse(const char *env, const char *term, const char *term_program,
    const char *vte)
{
	char	*copy, *w, *save = NULL;
	int	 f = 0;

	if (env != NULL && *env != '\0') {
		copy = xstrdup(env);
		for (w = strtok_r(copy, ", ", &save); w != NULL;
		    w = strtok_r(NULL, ", ", &save)) {
			if (strcmp(w, "bell") == 0)
				f |= NOTIFY_BELL;
			else if (strcmp(w, "osc9") == 0)
				f |= NOTIFY_OSC9;
			else if (strcmp(w, "osc777") == 0)
				f |= NOTIFY_OSC777;
			else if (strcmp(w, "all") == 0)
				f |= NOTIFY_ALL;
		}
		free(copy);
		return f;	/* "off" (or nothing known): none */
	}
	f = NOTIFY_BELL;
	if (term == NULL)
		term = "";
	if (strncmp(term, "screen", 6) == 0 || strncmp(term, "tmux", 4) == 0)
		return f;
	if (term_program != NULL && (strcmp(term_program, "iTerm.app") == 0 ||
	    strcmp(term_program, "WezTerm") == 0 ||
	    strcmp(term_program, "ghostty") == 0))
		f |= NOTIFY_OSC9;
	if (strstr(term, "kitty") != NULL || strncmp(term, "foot", 4) == 0)
		f |= NOTIFY_OSC9;
	if ((vte != NULL && *vte != '\0') ||
	    strncmp(term, "rxvt-unicode", 12) == 0)
		f |= NOTIFY_OSC777;
	return f;
}

/* The sequences for one ended job; text is already sanitised. */
char *
ui_notify_seq(int flags, const char *text)
{
	struct buf	b;

	buf_init(&b);
	buf_add(&b, "", 0);
	if (flags & NOTIFY_OSC9)
		buf_printf(&b, "\033]9;sqdeck: %s\007", text);
	if (flags & NOTIFY_OSC777)
		buf_printf(&b, "\033]777;notify;sqdeck;%s\007", text);
	return buf_steal(&b);
}

static void
notify_watch(struct ui *ui, const char *cluster, const char *id, int on)
{
	char	*key = xasprintf("%s\t%s", cluster, id);
	size_t	 i;

	for (i = 0; i < ui->notify_ids.n; i++) {
		if (strcmp(ui->notify_ids.v[i], key) == 0)
			break;
	}
	if (on && i == ui->notify_ids.n)
		strv_add(&ui->notify_ids, key);
	else if (!on && i < ui->notify_ids.n) {
		free(ui->notify_ids.v[i]);
		ui->notify_ids.v[i] = ui->notify_ids.v[--ui->notify_ids.n];
	}
	free(key);
}

/* After a snapshot: bell and desktop notification for watched jobs that
   ended; each one once. */
static void
notify_ended(struct ui *ui, const char *cluster)
{
	const struct jobtable_row	*r;
	char				*tab, *text, *seq;
	size_t				 i, clen = strlen(cluster);
	ssize_t				 w;

	for (i = 0; i < ui->notify_ids.n; /* below */) {
		tab = ui->notify_ids.v[i] + clen;
		if (strncmp(ui->notify_ids.v[i], cluster, clen) != 0 ||
		    *tab != '\t' || (r = jobtable_find(ui->jt, cluster,
		    tab + 1)) == NULL || !r->finished) {
			i++;
			continue;
		}
		text = xasprintf("%s %s %s ended: %s", r->cluster, r->id,
		    r->name != NULL ? r->name : "", r->state);
		ui_message(ui, 0, "%s", text);
		if (ui->notify & NOTIFY_BELL)
			beep();
		seq = ui_notify_seq(ui->notify, text);
		if (*seq != '\0')
			w = write(STDOUT_FILENO, seq, strlen(seq));
		(void)w;
		free(seq);
		free(text);
		free(ui->notify_ids.v[i]);
		ui->notify_ids.v[i] = ui->notify_ids.v[--ui->notify_ids.n];
	}
}

int
apply_jobs(struct ui *ui, struct msg_jobs *m)
{
	struct ucluster	*c;
	size_t		 i;
	unsigned	 changes = jobtable_changes(ui->jt);
	int		 flags = 0;

	if (m->cluster == NULL)
		return 0;
	/* Sanitise once here; drawing then trusts the table. */
	for (i = 0; i < m->nrows; i++) {
		ui_san_inplace(&m->rows[i].id);
		ui_san_inplace(&m->rows[i].name);
		ui_san_inplace(&m->rows[i].partition);
		ui_san_inplace(&m->rows[i].state);
		ui_san_inplace(&m->rows[i].reason);
	}
	c = cluster_find(ui, m->cluster, 1);
	/* "all": every live job of the list is watched for its end. */
	if (ui->notify & NOTIFY_ALL) {
		for (i = 0; i < m->nrows; i++) {
			const struct jobtable_row *o = jobtable_find(ui->jt,
			    c->name, m->rows[i].id);

			if (!m->rows[i].finished && (o == NULL ||
			    !o->finished))
				notify_watch(ui, c->name, m->rows[i].id, 1);
		}
	}
	jobtable_merge(ui->jt, c->name, m->rows, m->nrows, m->polled);
	notify_ended(ui, c->name);
	/* A job just submitted from the wizard: put the cursor on it. */
	if (ui->sel_id != NULL && jobtable_select(ui->jt, ui->sel_cluster,
	    ui->sel_id) == 0) {
		free(ui->sel_cluster);
		free(ui->sel_id);
		ui->sel_cluster = ui->sel_id = NULL;
		flags = UIF_REDRAW;
	}
	if (m->polled > c->last_ok)
		c->last_ok = m->polled;
	/*
	 * A poll that changed no row draws nothing: the age it resets is
	 * shown by the next second's frame (32 clusters polled every 5 s
	 * drew 6 frames a second).
	 */
	if (jobtable_changes(ui->jt) != changes)
		flags = UIF_REDRAW;
	return flags;
}

static const char *
sort_mark(const struct ui *ui, int rev)
{
	if (ui->ascii)
		return rev ? "v" : "^";
	return rev ? "\xe2\x96\xbc" : "\xe2\x96\xb2";	/* ▼ ▲ */
}

/*
 * Why the jobs pane is empty: a filter, an empty queue, a cluster still
 * connecting or one in error are four different things.
 */
static char *
empty_text(struct ui *ui)
{
	struct buf	 wait, bad;
	char		*s;
	time_t		 now = time(NULL);
	size_t		 i, nok = 0, nwait = 0, nbad = 0;

	if (jobtable_total(ui->jt) > 0)
		return xstrdup(jobtable_show_finished(ui->jt) ?
		    "no job matches the filter (Esc or / to change it)" :
		    "no job matches (/ to change the filter, a to show "
		    "finished jobs)");
	if (ui->ncl == 0)
		return xstrdup("no jobs");
	buf_init(&wait);
	buf_init(&bad);
	for (i = 0; i < ui->ncl; i++) {
		switch (cluster_health(&ui->cl[i], now)) {
		case CLUSTER_OK:
			nok++;
			break;
		case CLUSTER_CONNECTING:
			buf_printf(&wait, "%s%s", nwait++ ? ", " : "",
			    ui->cl[i].name);
			break;
		case CLUSTER_STALE:
		case CLUSTER_ERROR:
			buf_printf(&bad, "%s%s", nbad++ ? ", " : "",
			    ui->cl[i].name);
			break;
		}
	}
	if (nbad > 0 && nok == 0 && nwait == 0)
		s = xasprintf("no jobs known: %s %s not answering (1 and "
		    "Enter for why)", bad.data, nbad > 1 ? "are" : "is");
	else if (nwait > 0 && nok == 0 && nbad == 0)
		s = xasprintf("no jobs yet: connecting to %s", wait.data);
	else if (nok == ui->ncl)
		s = xstrdup("no jobs: the queue is empty and nothing "
		    "finished in the last 24 h (n for a new job)");
	else
		s = xasprintf("no jobs on the %zu cluster%s that answered%s%s"
		    "%s%s", nok, nok == 1 ? "" : "s",
		    nwait ? "; connecting to " : "", nwait ? wait.data : "",
		    nbad ? "; not answering: " : "", nbad ? bad.data : "");
	buf_free(&wait);
	buf_free(&bad);
	return s;
}

/*
 * What "N of M" leaves out, and why (issue 26.6): " (3 finished hidden
 * (a), 2 by the filter, 4 in folded arrays (+))"; "" when nothing is.
 */
static void
jobs_hidden(struct ui *ui, char *buf, size_t len)
{
	size_t	fin, fil, fold;
	int	n = 0;

	jobtable_hidden(ui->jt, &fin, &fil, &fold);
	buf[0] = '\0';
	if (fin + fil + fold == 0)
		return;
	strncat(buf, " (", len - strlen(buf) - 1);
	if (fin > 0)
		n += snprintf(buf + strlen(buf), len - strlen(buf),
		    "%zu finished hidden (a)", fin) > 0;
	if (fil > 0)
		n += snprintf(buf + strlen(buf), len - strlen(buf),
		    "%s%zu by the filter", n ? ", " : "", fil) > 0;
	if (fold > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu in "
		    "folded arrays (+)", n ? ", " : "", fold);
	strncat(buf, ")", len - strlen(buf) - 1);
}

/*
 * Widths from the widest cell of each column (visible rows), measured
 * again only when the rows changed: a key that moves the cursor over
 * 10 000 rows must not measure 80 000 cells.  Each row keeps its cells'
 * widths (jobtable_widths), cleared by the table when a cell changes: a
 * poll that changed 3 rows of 190,000 measures 3 and reads the others'
 * bytes (32 idle clusters' polls measured every cell of 28 000 rows
 * several times a second).
 */
/* Widen the columns to the cells of a row, measuring those not known. */
static void
jobs_measure_row(struct ui *ui, const struct jobtable_row *r,
    struct jobtable_widths *cw)
{
	char	cell[64];
	int	i, w;

	if (cw->ok != (1U << JT_NCOLS) - 1) {
		for (i = 0; i < JT_NCOLS; i++) {
			if (cw->ok & 1U << i)
				continue;
			if ((w = jobtable_cell_width(r, i)) < 0)
				w = uitext_width(jobtable_cell(r, i, cell,
				    sizeof cell));
			cw->w[i] = w > 255 ? 255 : w;
		}
		cw->ok = (1U << JT_NCOLS) - 1;
	}
	for (i = 0; i < JT_NCOLS; i++) {
		if (cw->w[i] > ui->want[i])
			ui->want[i] = cw->w[i];
	}
}

/*
 * Widths from the widest cell of each column (visible rows), measured
 * again only when the rows changed: a key that moves the cursor over
 * 10 000 rows must not measure 80 000 cells.  Each row keeps its cells'
 * widths (jobtable_widths), cleared by the table when a cell changes,
 * and the table lists the rows it cleared: a poll that changed 3 rows
 * of 190,000 measures 3 and reads no other row (reading every row's
 * cache after each poll was a cache miss a row, 32 clusters' polls
 * several times a second).  Every row is read after a new filter, sort
 * or view only.
 */
static void
jobs_measure(struct ui *ui)
{
	const struct jobtable_row	*r;
	struct jobtable_widths		*cw;
	unsigned			 v = jobtable_version(ui->jt);
	size_t				 n, k;
	int				 i;

	if (ui->want_ok && ui->want_version == v)
		return;
	if (jobtable_widths_changed(ui->jt, &n) || !ui->want_ok) {
		for (i = 0; i < JT_NCOLS; i++)
			ui->want[i] = uitext_width(jobtable_col_title(i));
		n = jobtable_nvisible(ui->jt);
		for (k = 0; k < n; k++) {
			cw = jobtable_widths(ui->jt, k);
			jobs_measure_row(ui, jobtable_visible(ui->jt, k), cw);
		}
	} else {
		for (k = 0; k < n; k++) {
			cw = jobtable_widths_changed_row(ui->jt, k, &r);
			jobs_measure_row(ui, r, cw);
		}
	}
	jobtable_widths_measured(ui->jt);
	ui->want_version = jobtable_version(ui->jt);
	ui->want_ok = 1;
}

static void
draw_jobs(struct ui *ui, int y, int h, time_t now)
{
	const struct jobtable_row	*r;
	char				 title[512], cell[64], fbuf[64];
	char				 hbuf[128], vbuf[96];
	const char			*filter = jobtable_filter(ui->jt);
	int				 want[JT_NCOLS], w[JT_NCOLS];
	int				 rev, i, x, row, lines;
	enum jobtable_col		 sc = jobtable_sort_col(ui->jt, &rev);
	size_t				 n = jobtable_nvisible(ui->jt), k, top;
	size_t				 nm = jobtable_nmarked(ui->jt);

	fbuf[0] = '\0';
	if (filter != NULL)
		snprintf(fbuf, sizeof fbuf, "  filter: %s", filter);
	jobs_hidden(ui, hbuf, sizeof hbuf);
	ui_view_title(ui, vbuf, sizeof vbuf);	/* V (ui-view.c) */
	/* One marker for the sort, in the title and on the column. */
	snprintf(title, sizeof title, " 2 Jobs  %zu of %zu%s%s  sort: %s%s%s%s",
	    n, jobtable_total(ui->jt), vbuf, hbuf, jobtable_col_title(sc),
	    sort_mark(ui, rev), fbuf, nm ? "  marked: " : "");
	if (nm) {
		snprintf(cell, sizeof cell, "%zu", nm);
		strncat(title, cell, sizeof title - strlen(title) - 1);
	}
	draw_title(ui, y, PANE_JOBS, title);
	lines = h - 2;
	ui->jobs_h = lines > 0 ? lines : 1;
	if (h < 2)
		return;

	jobs_measure(ui);
	memcpy(want, ui->want, sizeof want);
	want[sc]++;	/* the sort mark */
	uitext_jobs_layout(COLS - 1, want, w);

	ui_put(ui, y + 1, 0, COLS, "", ST_COLHEAD, 0);
	for (i = 0, x = 1; i < JT_NCOLS; i++) {
		if (w[i] == 0)
			continue;
		snprintf(cell, sizeof cell, "%s%s", jobtable_col_title(i),
		    (enum jobtable_col)i == sc ? sort_mark(ui, rev) : "");
		ui_put(ui, y + 1, x, w[i], cell, ST_COLHEAD,
		    i == JT_NODES ? UITEXT_RIGHT : 0);
		x += w[i] + 1;
	}
	if (lines <= 0)
		return;
	if (n == 0) {
		char	*why = empty_text(ui);

		ui_put(ui, y + 2, 2, COLS - 2, why, ST_DIM, 0);
		free(why);
		return;
	}
	top = jobtable_top(ui->jt, (size_t)lines);
	for (row = 0, k = top; row < lines && k < n; row++, k++) {
		int		cur = k == jobtable_cursor(ui->jt);
		enum style	base;

		r = jobtable_visible(ui->jt, k);
		base = r->finished ? ST_DIM : ST_NORMAL;
		if (cur && ui->focus == PANE_JOBS)
			base = ST_CURSOR;
		ui_put(ui, y + 2 + row, 0, COLS, "", base, 0);
		if (cur && ui->focus != PANE_JOBS)
			ui_put(ui, y + 2 + row, 0, 1, ">", ST_TITLE, 0);
		if (jobtable_marked(ui->jt, k))
			ui_put(ui, y + 2 + row, 0, 1, "*", base == ST_CURSOR ?
			    base : ST_FAILED, 0);
		for (i = 0, x = 1; i < JT_NCOLS; i++) {
			enum style	st = base;

			if (w[i] == 0)
				continue;
			if (i == JT_STATE && base != ST_CURSOR)
				st = state_style(r);
			ui_put(ui, y + 2 + row, x, w[i], i == JT_STATE &&
			    uitext_row_held(r) ? "HELD" :
			    jobtable_cell(r, i, cell, sizeof cell), st,
			    i == JT_NODES ? UITEXT_RIGHT : 0);
			x += w[i] + 1;
		}
	}
}

void
draw_dialog(struct ui *ui)
{
	int		 h, w = 64, y, x, i, shown;
	char		*line;
	const char	*yes = ui->ndkeys == 1 ? "[ Cancel job ]" :
			    "[ Cancel jobs ]", *no = "[ Keep ]";
	const char	*title = ui->ndkeys == 1 ? "Cancel this job?" :
			    "Cancel these jobs?";

	/* Requeue: the job is stopped and starts again from the queue. */
	if (ui->dact == JOBACT_REQUEUE + 1) {
		yes = ui->ndkeys == 1 ? "[ Requeue job ]" : "[ Requeue jobs ]";
		no = "[ Leave ]";
		title = ui->ndkeys == 1 ? "Requeue this job (stop it, start "
		    "it again)?" : "Requeue these jobs (stop, start again)?";
	}

	shown = ui->ndkeys > 6 ? 6 : (int)ui->ndkeys;
	h = 6 + shown + (ui->ndkeys > 6);
	draw_box(ui, h, w, title, &y, &x);
	if (w > COLS)
		w = COLS;
	for (i = 0; i < shown; i++) {
		line = xasprintf("%s  job %s  %s", ui->dkeys[i].cluster,
		    ui->dkeys[i].id, ui->dkeys[i].name);
		ui_put_attr(ui, y + 1 + i, x, w - 4, line,
		    ui->styles[ST_DIALOG] | A_BOLD);
		free(line);
	}
	if (ui->ndkeys > 6) {
		line = xasprintf("... and %zu more", ui->ndkeys - 6);
		ui_put_attr(ui, y + 1 + shown, x, w - 4, line,
		    ui->styles[ST_DIALOG]);
		free(line);
	}
	i = y + h - 3;
	ui_put_attr(ui, i, x + 8, (int)strlen(yes), yes, ui->dbutton == 0 ?
	    ui->styles[ST_BUTTON] | A_REVERSE : ui->styles[ST_DIALOG]);
	ui_put_attr(ui, i, x + 8 + 19, (int)strlen(no), no, ui->dbutton == 1 ?
	    ui->styles[ST_BUTTON] | A_REVERSE : ui->styles[ST_DIALOG]);
	ui_put_attr(ui, i, x + 8 + 28, 20, "y yes  n/Esc no",
	    ui->styles[ST_DIALOG] | A_DIM);
}

int
act_filter(struct ui *ui)
{
	const char	*f = jobtable_filter(ui->jt);

	buf_free(&ui->input);
	buf_add(&ui->input, "", 0);
	if (f != NULL)
		buf_adds(&ui->input, f);
	ui->focus = PANE_JOBS;
	ui->zoom = 0;
	ui->searching = 0;
	ui->ov = OV_FILTER;
	return UIF_REDRAW;
}

int
act_sort(struct ui *ui)
{
	enum jobtable_col	c = jobtable_sort_cycle(ui->jt);

	ui_message(ui, 0, "sorted by %s", jobtable_col_title(c));
	return UIF_REDRAW;
}

int
act_sort_reverse(struct ui *ui)
{
	int			rev;
	enum jobtable_col	c = jobtable_sort_col(ui->jt, &rev);

	jobtable_set_sort(ui->jt, c, !rev);
	ui_message(ui, 0, "sorted by %s, %s", jobtable_col_title(c),
	    rev ? "ascending" : "descending");
	return UIF_REDRAW;
}

int
act_toggle_finished(struct ui *ui)
{
	int	show = !jobtable_show_finished(ui->jt);

	jobtable_set_show_finished(ui->jt, show);
	ui_message(ui, 0, "finished jobs %s", show ? "shown" : "hidden");
	return UIF_REDRAW;
}

void
dialog_free(struct ui *ui)
{
	size_t	i;

	for (i = 0; i < ui->ndkeys; i++)
		jobtable_key_clear(&ui->dkeys[i]);
	free(ui->dkeys);
	ui->dkeys = NULL;
	ui->ndkeys = 0;
}

int
act_cancel(struct ui *ui)
{
	struct jobtable_key	*k;
	size_t			 n;

	if ((k = jobtable_targets(ui->jt, &n)) == NULL) {
		ui_message(ui, 1, "no job selected to cancel");
		return UIF_REDRAW;
	}
	/* Pinned now: the dialog acts on these even if rows move. */
	dialog_free(ui);
	ui->dkeys = k;
	ui->ndkeys = n;
	ui->dbutton = 1;	/* Enter alone must not kill a job */
	ui->dact = 0;
	ui->ov = OV_DIALOG;
	return UIF_REDRAW;
}

int
act_mark(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	int				 on;

	/* Marks are for c, H and U: a finished job has nothing to act on. */
	if (r != NULL && r->finished && !jobtable_marked(ui->jt,
	    jobtable_cursor(ui->jt))) {
		ui_message(ui, 1, "%s %s has ended (%s): nothing to cancel, "
		    "not marked", r->cluster, r->id, r->state);
		return UIF_REDRAW;
	}
	on = jobtable_toggle_mark(ui->jt);
	/* A marked live job is watched: its end rings (notify_ended). */
	if (r != NULL && !r->finished)
		notify_watch(ui, r->cluster, r->id, on);
	jobtable_move(ui->jt, 1);
	return UIF_REDRAW;
}

/* Job arrays in the jobs list: open or fold the array of the cursor. */
static int
array_open(struct ui *ui, int open)
{
	if (jobtable_array_open(ui->jt, open) != 0) {
		ui_message(ui, 0, "not a job array: +/- open and fold the "
		    "tasks of an array ([+]ID rows)");
		return UIF_REDRAW;
	}
	log_sync(ui);
	return UIF_REDRAW;
}

int
act_array_open(struct ui *ui)
{
	return array_open(ui, 1);
}

int
act_array_close(struct ui *ui)
{
	return array_open(ui, 0);
}

/*
 * H and U: what the walk (jobtable_foreach_row) gives to hold or release,
 * each row checked as a single row always was; a task whose array's row
 * is asked too is left to it.
 */
struct hold_walk {
	int			 release;	/* enum jobact_kind */
	struct jobtable_key	*keys;		/* asked of the workers */
	size_t			 nkeys;
	struct buf		 skipped;	/* why, "; "-joined */
	size_t			 nskipped;
	char			*skip1;		/* the last reason, whole */
};

static int
hold_has_array(const struct hold_walk *hw, const char *cluster,
    const char *base)
{
	size_t	i;

	for (i = 0; i < hw->nkeys; i++) {
		if (strcmp(hw->keys[i].cluster, cluster) == 0 &&
		    strcmp(hw->keys[i].id, base) == 0)
			return 1;
	}
	return 0;
}

static void
hold_visit(const struct jobtable_row *r, void *arg)
{
	struct hold_walk	*hw = arg;
	struct jobtable_key	*k;
	const char		*task;
	char			*why, base[64];

	why = uitext_hold_skip(r, hw->release);
	if (why == NULL && jobtable_array_split(r->id, base, sizeof base,
	    &task) && hold_has_array(hw, r->cluster, base))
		why = xasprintf("%s %s: its array's row %s is marked too "
		    "(the whole array)", r->cluster, r->id, base);
	if (why != NULL) {
		buf_printf(&hw->skipped, "%s%s", hw->nskipped++ ? "; " : "",
		    why);
		free(hw->skip1);
		hw->skip1 = why;
		return;
	}
	hw->keys = xrealloc(hw->keys, (hw->nkeys + 1) * sizeof *hw->keys);
	k = &hw->keys[hw->nkeys++];
	k->cluster = xstrdup(r->cluster);
	k->id = xstrdup(r->id);
	k->name = xstrdup(r->name != NULL ? r->name : "");
}

/* Forget the answers a hold on marked rows still waits for. */
void
hold_batch_free(struct ui *ui)
{
	strv_free(&ui->hb.wait);
	buf_free(&ui->hb.failed);
	free(ui->hb.skipped);
	memset(&ui->hb, 0, sizeof ui->hb);
}

/*
 * An answer to a hold on marked rows: counted, and the footer says the
 * sum once every job answered.  0 if m is not one of them (it is then
 * shown as any answer is).
 */
int
hold_batch_answer(struct ui *ui, const struct msg_action *m)
{
	struct hold_batch	*hb = &ui->hb;
	char			*key, *text;
	size_t			 i;

	if (m->kind != ACTION_HOLD || !m->done || m->cluster == NULL ||
	    m->job_id == NULL || hb->wait.n == 0)
		return 0;
	key = xasprintf("%s\t%s", m->cluster, m->job_id);
	for (i = 0; i < hb->wait.n && strcmp(hb->wait.v[i], key) != 0; i++)
		;
	free(key);
	if (i == hb->wait.n)
		return 0;
	free(hb->wait.v[i]);
	hb->wait.v[i] = hb->wait.v[--hb->wait.n];
	hb->wait.v[hb->wait.n] = NULL;
	if (m->failed)
		buf_printf(&hb->failed, "%s%s %s: %s", hb->nfailed++ ? "; " :
		    "", m->cluster, m->job_id, m->message != NULL ?
		    m->message : "failed");
	else
		hb->ok++;
	if (hb->wait.n > 0) {
		ui_message(ui, 0, "%s %zu jobs\xe2\x80\xa6 %zu of %zu "
		    "answered", uitext_act_ing(hb->release), hb->n,
		    hb->n - hb->wait.n, hb->n);
		return 1;
	}
	text = uitext_hold_summary(hb->release, hb->ok, hb->n, hb->nfailed,
	    hb->failed.data, hb->nskipped, hb->skipped);
	ui_message(ui, hb->nfailed > 0, "%s", text);
	free(text);
	hold_batch_free(ui);
	return 1;
}

/* Marked jobs asked: each answers on its own, the footer sums them up. */
static void
hold_batch_start(struct ui *ui, const struct hold_walk *hw)
{
	size_t	i;

	hold_batch_free(ui);
	ui->hb.release = hw->release;
	ui->hb.n = hw->nkeys;
	for (i = 0; i < hw->nkeys; i++) {
		char	*key = xasprintf("%s\t%s", hw->keys[i].cluster,
			    hw->keys[i].id);

		strv_add(&ui->hb.wait, key);
		free(key);
	}
	ui->hb.nskipped = hw->nskipped;
	ui->hb.skipped = xstrdup(hw->skipped.data);
	buf_init(&ui->hb.failed);
	buf_add(&ui->hb.failed, "", 0);
	ui_message(ui, 0, "%s %zu job%s\xe2\x80\xa6%s%s",
	    uitext_act_ing(hw->release), hw->nkeys, hw->nkeys == 1 ? "" : "s",
	    hw->nskipped ? " skipped: " : "", hw->skipped.data);
	/* As after a cancel: the marks were for this action. */
	jobtable_clear_marks(ui->jt);
}

/*
 * H, U, R, K and T: a job action on the marked jobs, else the selected one
 * (value: the signal or the time limit); one remote command a cluster.
 */
static int
job_action(struct ui *ui, int release, const char *value)
{
	struct hold_walk	 hw;
	const char		*verb = jobact_word(release);
	const char		*ing = uitext_act_ing(release);
	char			*cause = NULL;
	size_t			 i, n;
	int			 marked, rc;

	memset(&hw, 0, sizeof hw);
	hw.release = release;
	buf_init(&hw.skipped);
	buf_add(&hw.skipped, "", 0);
	n = jobtable_foreach_row(ui->jt, hold_visit, &hw, &marked);
	if (n == 0)
		ui_message(ui, 1, "no job selected to %s", verb);
	else if (hw.nkeys == 0 && !marked)
		ui_message(ui, 1, "%s", hw.skip1);
	else if (hw.nkeys == 0)
		ui_message(ui, 1, "nothing to %s of the %zu marked jobs: %s",
		    verb, n, hw.skipped.data);
	else if (ui->be == NULL || (ui->be->act == NULL &&
	    (ui->be->hold == NULL || release > JOBACT_RELEASE)))
		ui_message(ui, 1, "%s: not connected (no worker)", verb);
	else {
		if (ui->be->act != NULL)
			rc = ui->be->act(ui->be->arg, hw.keys, hw.nkeys,
			    release, value, &cause);
		else
			rc = ui->be->hold(ui->be->arg, hw.keys, hw.nkeys,
			    release, &cause);
		if (rc != 0) {
			if (marked)
				ui_message(ui, 1, "%s: %s", verb, cause);
			else
				ui_message(ui, 1, "%s %s: %s", verb,
				    hw.keys[0].id, cause);
			free(cause);
		} else if (!marked)
			ui_message(ui, 0, "%s %s %s\xe2\x80\xa6", ing,
			    hw.keys[0].cluster, hw.keys[0].id);
		else
			hold_batch_start(ui, &hw);
	}
	for (i = 0; i < hw.nkeys; i++)
		jobtable_key_clear(&hw.keys[i]);
	free(hw.keys);
	buf_free(&hw.skipped);
	free(hw.skip1);
	return UIF_REDRAW;
}

int
act_hold(struct ui *ui)
{
	return job_action(ui, JOBACT_HOLD, NULL);
}

int
act_release(struct ui *ui)
{
	return job_action(ui, JOBACT_RELEASE, NULL);
}

/* R: what would be requeued is shown, and asked, first. */
int
act_requeue(struct ui *ui)
{
	struct hold_walk	 hw;
	size_t			 n;
	int			 marked;

	memset(&hw, 0, sizeof hw);
	hw.release = JOBACT_REQUEUE;
	buf_init(&hw.skipped);
	buf_add(&hw.skipped, "", 0);
	n = jobtable_foreach_row(ui->jt, hold_visit, &hw, &marked);
	(void)n;
	(void)marked;
	if (hw.nkeys == 0) {
		free(hw.keys);
		buf_free(&hw.skipped);
		free(hw.skip1);
		/* Said by the walk again: no job, or why each is skipped. */
		return job_action(ui, JOBACT_REQUEUE, NULL);
	}
	dialog_free(ui);
	ui->dkeys = hw.keys;
	ui->ndkeys = hw.nkeys;
	ui->dbutton = 1;	/* Enter alone must not stop a job */
	ui->dact = JOBACT_REQUEUE + 1;
	ui->ov = OV_DIALOG;
	buf_free(&hw.skipped);
	free(hw.skip1);
	return UIF_REDRAW;
}

/* K and T: the value is typed in the footer, then the action goes. */
static int
prompt_open(struct ui *ui, int act, const char *offer)
{
	struct hold_walk	 hw;
	size_t			 i, n;
	int			 marked;

	memset(&hw, 0, sizeof hw);
	hw.release = act;
	buf_init(&hw.skipped);
	buf_add(&hw.skipped, "", 0);
	n = jobtable_foreach_row(ui->jt, hold_visit, &hw, &marked);
	for (i = 0; i < hw.nkeys; i++)
		jobtable_key_clear(&hw.keys[i]);
	free(hw.keys);
	buf_free(&hw.skipped);
	free(hw.skip1);
	/* Nothing to act on: said now, not after typing. */
	if (n == 0 || hw.nkeys == 0)
		return job_action(ui, act, NULL);
	buf_free(&ui->input);
	buf_add(&ui->input, "", 0);
	buf_adds(&ui->input, offer);
	ui->searching = 0;
	ui->prompt = act + 1;
	ui->ov = OV_FILTER;
	return UIF_REDRAW;
}

int
act_signal(struct ui *ui)
{
	return prompt_open(ui, JOBACT_SIGNAL, "USR1");
}

int
act_timelimit(struct ui *ui)
{
	return prompt_open(ui, JOBACT_TIME, "");
}

/* Enter on a typed value: the action on the same rows. */
static int
prompt_accept(struct ui *ui)
{
	int	act = ui->prompt - 1;
	char	*v = xstrdup(ui->input.data != NULL ? ui->input.data : "");

	ui->prompt = 0;
	ui->ov = OV_NONE;
	buf_free(&ui->input);
	str_trim(v);
	job_action(ui, act, v);
	free(v);
	return UIF_REDRAW;
}

/* Forget the answers a cancel of marked rows still waits for. */
void
cancel_batch_free(struct ui *ui)
{
	strv_free(&ui->cb.wait);
	buf_free(&ui->cb.cancelled);
	buf_free(&ui->cb.ended);
	buf_free(&ui->cb.failed);
	memset(&ui->cb, 0, sizeof ui->cb);
}

/*
 * An answer to a cancel of marked rows: each job's outcome is kept and
 * the footer says them all once every job answered (one answer's line
 * used to be overwritten by the next).  0 if m is not one of them.
 */
int
cancel_batch_answer(struct ui *ui, const struct msg_action *m)
{
	struct cancel_batch	*cb = &ui->cb;
	char			*key, *was, *text;
	size_t			 i;

	if (m->kind != ACTION_CANCEL || !m->done || m->cluster == NULL ||
	    m->job_id == NULL || cb->wait.n == 0)
		return 0;
	key = xasprintf("%s\t%s", m->cluster, m->job_id);
	for (i = 0; i < cb->wait.n && strcmp(cb->wait.v[i], key) != 0; i++)
		;
	free(key);
	if (i == cb->wait.n)
		return 0;
	free(cb->wait.v[i]);
	cb->wait.v[i] = cb->wait.v[--cb->wait.n];
	cb->wait.v[cb->wait.n] = NULL;
	if (m->failed)
		buf_printf(&cb->failed, "%s%s %s: %s", cb->nfailed++ ? "; " :
		    "", m->cluster, m->job_id, m->message != NULL ?
		    m->message : "failed");
	else if (uitext_cancel_answer(m->message, &was))
		buf_printf(&cb->ended, "%s%s %s", cb->nended++ ? ", " : "",
		    m->cluster, m->job_id);
	else {
		buf_printf(&cb->cancelled, "%s%s %s%s%s", cb->ncancelled++ ?
		    ", " : "", m->cluster, m->job_id, was != NULL ? " " : "",
		    was != NULL ? was : "");
		free(was);
	}
	if (cb->wait.n > 0) {
		ui_message(ui, 0, "cancelling %zu jobs\xe2\x80\xa6 %zu of %zu "
		    "answered", cb->n, cb->n - cb->wait.n, cb->n);
		return 1;
	}
	text = uitext_cancel_summary(cb->n, cb->ncancelled,
	    cb->cancelled.data, cb->nended, cb->ended.data, cb->nfailed,
	    cb->failed.data);
	ui_message(ui, cb->nfailed > 0, "%s", text);
	free(text);
	cancel_batch_free(ui);
	return 1;
}

/* Marked jobs to cancel: each answers on its own, the footer sums up. */
static void
cancel_batch_start(struct ui *ui)
{
	size_t	i;

	cancel_batch_free(ui);
	ui->cb.n = ui->ndkeys;
	for (i = 0; i < ui->ndkeys; i++) {
		char	*key = xasprintf("%s\t%s", ui->dkeys[i].cluster,
			    ui->dkeys[i].id);

		strv_add(&ui->cb.wait, key);
		free(key);
	}
	buf_init(&ui->cb.cancelled);
	buf_add(&ui->cb.cancelled, "", 0);
	buf_init(&ui->cb.ended);
	buf_add(&ui->cb.ended, "", 0);
	buf_init(&ui->cb.failed);
	buf_add(&ui->cb.failed, "", 0);
}

int
act_yes(struct ui *ui)
{
	char	*cause = NULL;
	size_t	 i;

	ui->ov = OV_NONE;
	if (ui->dact != 0) {
		/* The same walk as the dialog's: the marks are unchanged. */
		ui->dact = 0;
		dialog_free(ui);
		return job_action(ui, JOBACT_REQUEUE, NULL);
	}
	if (ui->be == NULL || ui->be->cancel == NULL) {
		ui_message(ui, 1, "cancel %s%s on %s: not connected (no worker)",
		    ui->dkeys[0].id, ui->ndkeys > 1 ? " and others" : "",
		    ui->dkeys[0].cluster);
	} else if (ui->be->cancel(ui->be->arg, ui->dkeys, ui->ndkeys,
	    &cause) != 0) {
		ui_message(ui, 1, "cancel: %s", cause);
		free(cause);
	} else {
		/*
		 * Their end is the cancel's answer: no second word of it (a
		 * marked job's "ended: CANCELLED" took the place of the
		 * cancel's summary in a CI run, tests/tui/actions).
		 */
		for (i = 0; i < ui->ndkeys; i++)
			notify_watch(ui, ui->dkeys[i].cluster,
			    ui->dkeys[i].id, 0);
		if (ui->ndkeys == 1)
			ui_message(ui, 0, "cancelling %s %s (%s)\xe2\x80\xa6",
			    ui->dkeys[0].cluster, ui->dkeys[0].id,
			    ui->dkeys[0].name);
		else {
			cancel_batch_start(ui);
			ui_message(ui, 0, "cancelling %zu jobs\xe2\x80\xa6",
			    ui->ndkeys);
		}
		jobtable_clear_marks(ui->jt);
	}
	dialog_free(ui);
	return UIF_REDRAW;
}

int
act_no(struct ui *ui)
{
	ui->ov = OV_NONE;
	dialog_free(ui);
	ui_message(ui, 0, ui->dact != 0 ? "nothing requeued" :
	    "nothing cancelled");
	ui->dact = 0;
	return UIF_REDRAW;
}

int
act_button_next(struct ui *ui)
{
	ui->dbutton = !ui->dbutton;
	return UIF_REDRAW;
}

/* Apply the filter as typed; a half-typed regex keeps the old one. */
void
filter_live(struct ui *ui)
{
	char	*cause = NULL;

	/* A job action's value is only read on Enter. */
	if (ui->prompt != 0)
		return;
	/* A log search finds as it is typed, from where it started. */
	if (ui->searching) {
		log_search_go(ui, ui->input.data ? ui->input.data : "",
		    ui->log.search_from, 1, 1);
		return;
	}

	if (jobtable_set_filter(ui->jt, ui->input.data, &cause) != 0) {
		ui_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	if (ui->msg_err)
		ui->msg_time = 0;
	/* The cursor goes to the first match (top of the list). */
	jobtable_move_to(ui->jt, 0);
}

int
act_input_accept(struct ui *ui)
{
	if (ui->prompt == UI_PROMPT_FORWARD)
		return ui_enter_forward_accept(ui);
	if (ui->prompt != 0)
		return prompt_accept(ui);
	if (ui->searching) {
		ui->searching = 0;
		ui->ov = OV_NONE;
		free(ui->log.search);
		ui->log.search = NULL;
		if (ui->input.data == NULL || *ui->input.data == '\0')
			return UIF_REDRAW;
		ui->log.search = xstrdup(ui->input.data);
		return log_search_go(ui, ui->log.search, ui->log.search_from,
		    1, 0);
	}
	filter_live(ui);
	ui->ov = OV_NONE;
	return UIF_REDRAW;
}

int
act_input_clear(struct ui *ui)
{
	/* From the jobs pane, Esc clears an applied filter; else nothing. */
	if (ui->ov == OV_NONE && jobtable_filter(ui->jt) == NULL)
		return 0;
	if (ui->prompt != 0) {
		ui_message(ui, 0, "nothing %s", ui->prompt - 1 == JOBACT_TIME ?
		    "changed" : "sent");
		ui->prompt = 0;
		ui->ov = OV_NONE;
		buf_free(&ui->input);
		return UIF_REDRAW;
	}
	if (ui->searching) {
		/* Esc while typing a log search: no search, back where it was. */
		ui->searching = 0;
		ui->ov = OV_NONE;
		buf_free(&ui->input);
		ui->log.has_match = 0;
		ui->log.top = ui->log.search_from;
		ui->log.follow = ui->log.search_follow;
		log_search_unsay(ui);
		return UIF_REDRAW;
	}
	jobtable_set_filter(ui->jt, NULL, NULL);
	buf_free(&ui->input);
	ui->ov = OV_NONE;
	return UIF_REDRAW;
}

int
act_input_backspace(struct ui *ui)
{
	struct buf	*b = &ui->input;

	/* Back over UTF-8 continuation bytes to the start of a character. */
	while (b->len > 0) {
		b->len--;
		if (((unsigned char)b->data[b->len] & 0xc0) != 0x80)
			break;
	}
	if (b->data != NULL)
		b->data[b->len] = '\0';
	if (ui->ov == OV_FILTER)
		filter_live(ui);
	return UIF_REDRAW;
}

int
act_input_kill(struct ui *ui)
{
	if (ui->input.data != NULL) {
		ui->input.len = 0;
		ui->input.data[0] = '\0';
	}
	if (ui->ov == OV_FILTER)
		filter_live(ui);
	return UIF_REDRAW;
}

/*
 * The local records, read by the workers' records thread: the jobs this
 * machine launched, finished or not, with their last known state.  A row
 * squeue or sacct already gave is fresher and stays; a live record of a
 * cluster already polled left its queue, as jobtable_merge would say.
 */
int
apply_records(struct ui *ui, struct msg_records *m)
{
	struct jobtable_row	*r;
	size_t			 i;

	for (i = 0; i < m->nrows; i++) {
		r = &m->rows[i];
		ui_san_inplace(&r->cluster);
		ui_san_inplace(&r->id);
		ui_san_inplace(&r->name);
		ui_san_inplace(&r->partition);
		ui_san_inplace(&r->state);
		ui_san_inplace(&r->reason);
		if (jobtable_find(ui->jt, r->cluster, r->id) != NULL)
			continue;
		if (!r->finished &&
		    jobtable_cluster_polled(ui->jt, r->cluster) != 0) {
			r->finished = 1;
			if (!jobtable_state_final(r->state)) {
				free(r->state);
				r->state = xstrdup("ENDED");
			}
		}
		jobtable_upsert(ui->jt, r);
	}
	/* A config error said first stays in the footer. */
	if (m->message != NULL && !ui->config_error)
		ui_message(ui, m->error, "%s", m->message);
	return UIF_REDRAW;
}

static void
jobs_move(struct ui *ui, long delta)
{
	jobtable_move(ui->jt, delta);
}

static void
jobs_top(struct ui *ui)
{
	jobtable_move_to(ui->jt, 0);
}

static void
jobs_bottom(struct ui *ui)
{
	jobtable_move_to(ui->jt, SIZE_MAX);
}

static int
jobs_height(const struct ui *ui)
{
	return ui->jobs_h;
}

const struct pane_ops	pane_jobs = {
	.ctx = UICTX_JOBS,
	.draw = draw_jobs,
	.move_by = jobs_move,
	.top = jobs_top,
	.bottom = jobs_bottom,
	.height = jobs_height,
};
