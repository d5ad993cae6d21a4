/*
 * The submit wizard as the screen shows it: its box, its keys, and the
 * requests it makes of the workers (the model is ui-wizard.c).
 */
#include "ui-int.h"

static int	wizard_soonest(struct ui *);
static void	wizard_soonest_forget(struct ui *);

/* The staged spec of a finished job arrived: the wizard opens with it. */
int
spec_fetched(struct ui *ui, struct msg_action *m)
{
	struct spec	 sp;
	char		*cause = NULL;
	const char	*text = m->message != NULL ? m->message : "";

	if (m->failed) {
		ui_message(ui, 1, "%s %s: %s", clone_fetched(ui, m) ? "clone" :
		    "resubmit", m->job_id ? m->job_id : "", text);
		return UIF_REDRAW;
	}
	if (spec_parse(text, strlen(text), "the staged spec", &sp,
	    &cause) != 0) {
		ui_message(ui, 1, "resubmit %s: %s", m->job_id ? m->job_id : "",
		    cause);
		free(cause);
		return UIF_REDRAW;
	}
	wizard_sync(ui);
	wizard_from_spec(&ui->wiz, &sp, m->cluster);
	free(ui->wiz.banner);
	ui->wiz.banner = xasprintf("resubmit of job %s on %s: edit, then "
	    "Enter on the last field for the preview", m->job_id ? m->job_id :
	    "", m->cluster ? m->cluster : "");
	ui->wiz.banner_err = 0;
	clone_fetched(ui, m);
	spec_free(&sp);
	ui->ov = OV_WIZARD;
	return UIF_REDRAW;
}

/*
 * A field being edited with the cursor inside the text: the text from
 * where the part before the cursor fits, the character under the cursor
 * in reverse.
 */
static void
draw_wizard_cursor(struct ui *ui, int y, int x, int w, const char *v,
    size_t at)
{
	char		*pre = xstrndup(v, at), *shown, *ch;
	const char	*start = v + (ui_tail_fit(pre, w - 2) - pre);
	size_t		 n = 1;
	int		 cx;

	ui_put_attr(ui, y, x, w, start, ui->styles[ST_CURSOR]);
	shown = xstrndup(start, (size_t)(v + at - start));
	cx = uitext_width(shown);
	while (((unsigned char)v[at + n] & 0xc0) == 0x80)
		n++;
	ch = xstrndup(v + at, n);
	if (cx < w)
		ui_put_attr(ui, y, x + cx, uitext_width(ch) > 1 ?
		    uitext_width(ch) : 1, ch, (ui->styles[ST_CURSOR] ^
		    A_REVERSE) | A_UNDERLINE);
	free(ch);
	free(shown);
	free(pre);
}

void
draw_wizard(struct ui *ui)
{
	struct wizard	*wz = &ui->wiz;
	attr_t		 dl = ui->styles[ST_DIALOG];
	int		 h = LINES - 2, w = COLS - 2, y, x, iw, i, row, lw = 16;
	int		 vw, nw, top, last;
	const char	*title, *keys;
	char		*line;

	if (w > 120)
		w = 120;
	/* The form fits in 24 lines; the preview takes what there is. */
	if (wz->page != WIZ_PREVIEW && h > WF_COUNT + 10)
		h = WF_COUNT + 10;
	if (h < 6)
		h = LINES;
	switch (wz->page) {
	case WIZ_FORM:
		title = "New job: fields";
		keys = "Tab/Enter next  S-Tab/Up back  Left/Right cursor "
		    "(cluster, partition: choose)  Enter on secrets: preview  "
		    "Esc close (kept)";
		break;
	case WIZ_PREVIEW:
		title = "New job: preview of the sbatch script (dry run)";
		keys = "Enter submit  Up/Down PgUp/PgDn scroll  Backspace/Esc "
		    "back to the fields";
		break;
	default:
		title = "New job: submitting";
		keys = wz->waiting ? "Esc hides this (the submit goes on)" :
		    "Enter or Esc closes";
		break;
	}
	draw_box(ui, h, w, title, &y, &x);
	iw = (w > COLS ? COLS : w) - 4;
	row = y;
	if (wz->page == WIZ_FORM) {
		if (wz->banner != NULL)
			row += ui_put_wrapped(ui, row, x, iw, 3, wz->banner,
			    wz->banner_err ? ui->styles[ST_MSG_ERR] :
			    dl | A_BOLD);
		vw = iw - lw - 1;
		nw = vw > 70 ? vw - 40 : vw / 2;
		if (nw < 10)
			nw = 0;
		vw -= nw;
		/* Two rows stay for the explanation; the list scrolls so
		 * that the current field is always shown. */
		last = y + h - 6;
		top = last - row < 1 ? 0 : wz->field - (last - row) + 1;
		for (i = top < 0 ? 0 : top; i < WF_COUNT && row < last;
		    i++, row++) {
			const char	*v = wz->value[i].data ?
					    wz->value[i].data : "";
			int		 cur = i == wz->field;
			char		*hint;

			ui_put_attr(ui, row, x, lw, wizard_label(i),
			    dl | (cur ? A_BOLD : 0));
			if (cur && wizard_cursor(wz) < strlen(v))
				draw_wizard_cursor(ui, row, x + lw, vw - 1, v,
				    wizard_cursor(wz));
			else {
				line = xasprintf("%s%s", ui_tail_fit(v, vw - 2),
				    cur ? "_" : "");
				ui_put_attr(ui, row, x + lw, vw - 1, line, cur ?
				    ui->styles[ST_CURSOR] : dl | A_UNDERLINE);
				free(line);
			}
			if (nw == 0)
				continue;
			if (wz->error[i] != NULL)
				line = xasprintf("! %s", wz->error[i]);
			else {
				hint = wizard_hint(wz, i);
				line = xasprintf("  %s", hint);
				free(hint);
			}
			ui_put_attr(ui, row, x + lw + vw, nw, line,
			    wz->error[i] != NULL ? ui->styles[ST_MSG_ERR] :
			    dl | A_DIM);
			free(line);
		}
		/*
		 * In full: the current field's error, else the first error of
		 * another field (what stops the preview: the row's column may
		 * be cut on a narrow terminal), else the current field's help.
		 */
		row++;
		for (i = 0; i < WF_COUNT && wz->error[i] == NULL; i++)
			;
		if (wz->error[wz->field] != NULL)
			ui_put_wrapped(ui, row, x, iw, y + h - 3 - row,
			    wz->error[wz->field], ui->styles[ST_MSG_ERR]);
		else if (i < WF_COUNT) {
			line = xasprintf("%s: %s", wizard_label(i),
			    wz->error[i]);
			ui_put_wrapped(ui, row, x, iw, y + h - 3 - row, line,
			    ui->styles[ST_MSG_ERR]);
			free(line);
		} else {
			line = wizard_hint(wz, wz->field);
			ui_put_wrapped(ui, row, x, iw, y + h - 4 - row, line,
			    dl | A_DIM);
			free(line);
		}
		/* SLURM's own estimate for the request, per partition (not
		 * while an error needs both rows: the error comes first). */
		if (wz->soonest != NULL && (i == WF_COUNT ||
		    strlen(wz->error[wz->field] != NULL ?
		    wz->error[wz->field] : wz->error[i]) +
		    (wz->error[wz->field] != NULL ? 0 :
		    strlen(wizard_label(i)) + 2) <= (size_t)iw))
			ui_put_attr(ui, y + h - 4, x, iw, wz->soonest,
			    wz->soonest_err ? ui->styles[ST_MSG_ERR] : dl);
	} else {
		const struct strv	*sv = &wz->progress;
		size_t			 k, first = 0, avail = h - 4;

		if (wz->page == WIZ_PREVIEW && !wz->waiting) {
			sv = &wz->preview;
			first = wz->preview_top;
		} else {
			if (wz->page == WIZ_PREVIEW) {
				line = xasprintf("dry run on %s\xe2\x80\xa6",
				    wizard_cluster(wz));
				ui_put_attr(ui, row++, x, iw, line, dl | A_BOLD);
				free(line);
				avail--;
			}
			if (!wz->waiting)
				avail--;
			if (sv->n > avail)
				first = sv->n - avail;
		}
		for (k = first; k < sv->n && row < y + h - 3; k++) {
			char	*t = uitext_sanitize(sv->v[k], strlen(sv->v[k]),
				    0);

			ui_put_attr(ui, row++, x, iw, t, dl);
			free(t);
		}
		if (wz->page == WIZ_PROGRESS && !wz->waiting && wz->finished) {
			line = xasprintf("submitted: SLURM job %s on %s",
			    wz->job_id ? wz->job_id : "?",
			    wz->job_cluster ? wz->job_cluster : "?");
			ui_put_attr(ui, row, x, iw, line, ui->styles[ST_MSG]);
			free(line);
		}
	}
	ui_put_attr(ui, y + h - 3, x, iw, keys, dl | A_DIM);
}

/* The wizard sees the clusters as the panes do (pointers refreshed). */
void
wizard_sync(struct ui *ui)
{
	size_t	i;

	free(ui->wcl);
	ui->wcl = xcalloc(ui->ncl + 1, sizeof *ui->wcl);
	for (i = 0; i < ui->ncl; i++) {
		ui->wcl[i].name = ui->cl[i].name;
		ui->wcl[i].conf = ui->cl[i].conf;
		ui->wcl[i].partitions = &ui->cl[i].partitions;
	}
	wizard_set_clusters(&ui->wiz, ui->wcl, ui->ncl);
}

int
act_new(struct ui *ui)
{
	const char	*cl = NULL;

	if (ui->be == NULL || ui->be->submit == NULL) {
		ui_message(ui, 1, "new job: not connected (no worker to "
		    "submit through)");
		return UIF_REDRAW;
	}
	if (ui->ncl > 0)
		cl = ui->cl[ui->ccur].name;
	wizard_sync(ui);
	wizard_open(&ui->wiz, cl, 0);
	ui->ov = OV_WIZARD;
	return UIF_REDRAW | wizard_soonest(ui);
}

int
act_edit(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);

	if (r == NULL)
		ui_message(ui, 1, "no job selected");
	else if (!r->finished)
		ui_message(ui, 1, "job %s is %s: e resubmits a finished job",
		    r->id, r->state);
	else if (ui->be == NULL || ui->be->fetch_spec == NULL)
		ui_message(ui, 1, "resubmit: not connected (no worker)");
	else {
		char	*cause = NULL;

		if (ui->be->fetch_spec(ui->be->arg, r->cluster, r->id,
		    &cause) != 0) {
			ui_message(ui, 1, "resubmit %s: %s", r->id, cause);
			free(cause);
		} else
			ui_message(ui, 0, "reading the spec of job %s\xe2\x80"
			    "\xa6", r->id);
	}
	return UIF_REDRAW;
}

/* What the wizard asks for after a key. */
static int
wizard_request(struct ui *ui, enum wizard_req r)
{
	struct spec	 sp;
	char		*cause = NULL;
	int		 submit = r == WREQ_SUBMIT;
	/* Enter on the preview: the job it showed, by its record id. */
	const char	*rid = submit && ui->wiz.page == WIZ_PREVIEW ?
			    ui->wiz.preview_rid : NULL;

	switch (r) {
	case WREQ_NONE:
		return 0;
	case WREQ_REDRAW:
		return UIF_REDRAW;
	case WREQ_CLOSE:
		ui->ov = OV_NONE;
		wizard_soonest_forget(ui);
		return UIF_REDRAW;
	case WREQ_PREVIEW:
	case WREQ_SUBMIT:
		break;
	}
	if (wizard_build(&ui->wiz, &sp, &cause) != 0 ||
	    ui->be->submit(ui->be->arg, wizard_cluster(&ui->wiz),
	    wizard_user(&ui->wiz), &sp, !submit, rid, &cause) != 0) {
		wizard_failed(&ui->wiz, cause);
		free(cause);
	} else
		wizard_start(&ui->wiz, submit);
	spec_free(&sp);
	return UIF_REDRAW;
}

static enum wizard_keyname
wizard_keyname(int key)
{
	switch (key) {
	case '\n':
	case '\r':
	case UIKEY_FN(KEY_ENTER):
		return WK_ENTER;
	case UIKEY_FN(KEY_LEFT):
		return WK_LEFT;
	case UIKEY_FN(KEY_RIGHT):
		return WK_RIGHT;
	case UIKEY_FN(KEY_PPAGE):
		return WK_PAGE_UP;
	case UIKEY_FN(KEY_NPAGE):
		return WK_PAGE_DOWN;
	}
	return WK_OTHER;
}

/*
 * The wizard closed, or asks another cluster now: the estimate that waits
 * for its turn on the last one asked is forgotten there (a closed wizard's
 * went on spending the polling budget: tests/budget/run).
 */
static void
wizard_soonest_forget(struct ui *ui)
{
	const char	*cl = wizard_soonest_cluster(&ui->wiz);
	char		*cause = NULL;

	if (cl == NULL)
		return;
	if (ui->be != NULL && ui->be->soonest != NULL)
		(void)ui->be->soonest(ui->be->arg, cl, NULL, &cause);
	free(cause);
	wizard_soonest_forgot(&ui->wiz);
}

/*
 * On moving between fields: when the request changed, ask SLURM where it
 * would start soonest (one sbatch --test-only per partition it fits).
 */
static int
wizard_soonest(struct ui *ui)
{
	struct spec	 sp;
	const char	*cl = wizard_cluster(&ui->wiz), *last;
	char		*cause = NULL;

	spec_init(&sp);
	if (ui->ov != OV_WIZARD || ui->be == NULL || ui->be->soonest == NULL ||
	    !wizard_soonest_want(&ui->wiz, &sp)) {
		spec_free(&sp);
		return 0;
	}
	last = wizard_soonest_cluster(&ui->wiz);
	if (last != NULL && cl != NULL && strcmp(last, cl) != 0)
		wizard_soonest_forget(ui);
	if (ui->be->soonest(ui->be->arg, cl, &sp, &cause) == 0)
		wizard_soonest_asked(&ui->wiz, cl);
	free(cause);
	spec_free(&sp);
	return UIF_REDRAW;
}

/* Every key of the wizard context goes to the wizard's model. */
int
wizard_input(struct ui *ui, enum uiact a, int key)
{
	char		mb[8];
	mbstate_t	ps;
	size_t		n;
	int		flags;

	wizard_sync(ui);
	if (a == UIA_NONE && key >= 0x20 && key != 0x7f &&
	    !(key & UIKEY_FN(0))) {
		memset(&ps, 0, sizeof ps);
		n = wcrtomb(mb, (wchar_t)key, &ps);
		if (n != (size_t)-1)
			wizard_type(&ui->wiz, mb, n);
		return UIF_REDRAW;
	}
	flags = wizard_request(ui, wizard_key(&ui->wiz, a,
	    wizard_keyname(key)));
	return flags | wizard_soonest(ui);
}

int
act_wiz_next(struct ui *ui)
{
	return wizard_input(ui, UIA_WIZ_NEXT, '\t');
}

int
act_wiz_prev(struct ui *ui)
{
	return wizard_input(ui, UIA_WIZ_PREV, UIKEY_FN(KEY_BTAB));
}

int
act_cursor_left(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_LEFT, UIKEY_FN(KEY_LEFT));
}

int
act_cursor_right(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_RIGHT, UIKEY_FN(KEY_RIGHT));
}

int
act_cursor_home(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_HOME, UIKEY_FN(KEY_HOME));
}

int
act_cursor_end(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_END, UIKEY_FN(KEY_END));
}

int
act_input_delete(struct ui *ui)
{
	return wizard_input(ui, UIA_INPUT_DELETE, UIKEY_FN(KEY_DC));
}
