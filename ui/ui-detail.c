/*
 * The text view over the panes: help, and the job and cluster details
 * (with the start estimate and efficiency filled in when they arrive).
 */
#include "ui-int.h"

/*
 * Views (help, job and cluster details) are as wide as the terminal allows
 * and wrap their long lines, so that nothing is cut: a host-key remedy or
 * a command is read whole.  Continuation rows are indented by 2.
 */
static void
view_wrap(const struct strv *in, int cols, struct strv *out)
{
	const char	*s;
	size_t		 i, n;
	int		 first;

	for (i = 0; i < in->n; i++) {
		s = in->v[i];
		first = 1;
		do {
			int	 c = first ? cols : cols - 2;
			char	*seg;

			n = c > 0 ? uitext_prefix(s, c, NULL) : 0;
			if (n == 0)
				n = *s != '\0' ? strlen(s) : 0;
			/* At a space when there is one in the second half. */
			if (s[n] != '\0') {
				size_t	sp = n;

				while (sp > n / 2 && s[sp - 1] != ' ')
					sp--;
				if (sp > n / 2)
					n = sp;
			}
			seg = xasprintf("%s%.*s", first ? "" : "  ", (int)n, s);
			strv_add(out, seg);
			free(seg);
			s += n;
			first = 0;
		} while (*s != '\0');
	}
}

void
draw_view(struct ui *ui)
{
	struct strv	rows;
	int		h = LINES - 2, w = COLS - 4, y, x, i, inner;
	size_t		k;

	if (w > 160)
		w = 160;
	if (w < 20)
		w = COLS;
	memset(&rows, 0, sizeof rows);
	view_wrap(&ui->view, w - 4, &rows);
	ui->view_rows = rows.n;
	if ((size_t)h > rows.n + 3)
		h = (int)rows.n + 3;
	if (h < 4)
		h = LINES < 4 ? LINES : 4;
	draw_box(ui, h, w, ui->view_title, &y, &x);
	inner = h - 3;
	ui->view_h = inner > 0 ? inner : 1;
	if (rows.n > (size_t)ui->view_h &&
	    ui->view_top > rows.n - ui->view_h)
		ui->view_top = rows.n - ui->view_h;
	else if (rows.n <= (size_t)ui->view_h)
		ui->view_top = 0;
	for (i = 0, k = ui->view_top; i < inner && k < rows.n; i++, k++)
		ui_put_attr(ui, y + i, x, w - 4, rows.v[k],
		    ui->styles[ST_DIALOG]);
	ui_put_attr(ui, y + inner, x, w - 4,
	    rows.n > (size_t)inner ? "j/k PgUp/PgDn scroll, q or Esc "
	    "closes" : "q or Esc closes", ui->styles[ST_DIALOG] | A_DIM);
	strv_free(&rows);
}

/* The view's lines become text's (freed), where the view was scrolled. */
static void
view_set(struct ui *ui, char *text)
{
	strv_free(&ui->view);
	/* Split keeping empty lines (strv_split drops them). */
	for (char *p = text, *nl; p != NULL && *p != '\0'; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		strv_add(&ui->view, p);
	}
	free(text);
}

void
view_open(struct ui *ui, const char *title, char *text)
{
	detail_forget(ui);
	free(ui->view_title);
	ui->view_title = xstrdup(title);
	view_set(ui, text);
	ui->view_top = 0;
	ui->ov = OV_VIEW;
}

int
act_help(struct ui *ui)
{
	char	*keys = uikeys_help(), *cmds = ui_cmdline_help();

	/* What no key says: the view is kept, a paste is text. */
	view_open(ui, "Keys", xasprintf("The view (sort s/S, finished a, "
	    "filter /, log o and w, focus, row) is\nremembered across "
	    "restarts in $XDG_STATE_HOME/sqdeck/view.  A paste into a field is text "
	    "(cut at a line break).\nIn the log pane / searches the log "
	    "(n/N next/previous), h/l scroll sideways, z zooms.\nV's view "
	    "and the split of < and > are remembered too.\nThe "
	    "wizard's array field (0-99%%4) submits a job array; a task's "
	    "row (ID_N) shows that task's log.\n\n%s\n%s",
	    keys, cmds));
	free(keys);
	free(cmds);
	return UIF_REDRAW;
}

/* "label       value", the value sanitised (it comes from a file). */
static void
detail_field(struct buf *b, const char *label, const char *v)
{
	char	*t;

	if (v == NULL || *v == '\0')
		return;
	t = ui_san(v);
	buf_printf(b, "%-12s%s\n", label, t);
	free(t);
}

/* A command over its own lines, each under the label's column. */
static void
detail_command(struct buf *b, const char *cmd)
{
	char	*copy, *line, *next, *t;
	int	 first = 1;

	if (cmd == NULL || *cmd == '\0')
		return;
	copy = xstrdup(cmd);
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (next == NULL && *line == '\0')
			break;		/* the block's final newline */
		t = ui_san(line);
		buf_printf(b, "%-12s%s\n", first ? "command" : "", t);
		free(t);
		first = 0;
	}
	free(copy);
}

static void
detail_record(struct buf *b, const struct record *rec, int reading)
{
	size_t	i;
	char	*t;

	if (reading) {
		buf_adds(b, "\nRecord\n  (reading the local record)\n");
		return;
	}
	if (rec == NULL) {
		buf_adds(b, "\nNo local record: not submitted from this "
		    "machine.\n");
		return;
	}
	buf_adds(b, "\nRecord\n");
	detail_field(b, "id", rec->id);
	detail_field(b, "state", state_word(rec->state));
	detail_field(b, "array", rec->array);
	detail_field(b, "tasks", rec->array_tasks);
	detail_field(b, "image", rec->image);
	detail_field(b, "action", rec->action);
	detail_field(b, "job dir", rec->job_dir);
	detail_field(b, "log dir", rec->log_dir);
	detail_field(b, "spec", rec->spec_path);
	detail_field(b, "retry of", rec->retry_of);
	detail_field(b, "created", rec->created);
	buf_adds(b, "\nHistory\n");
	for (i = 0; i < rec->nhistory; i++) {
		const struct record_event	*e = &rec->history[i];
		char				*st;

		t = xasprintf("%s  %-8s %s %s %s", e->time ? e->time : "",
		    state_word(e->state), e->native ? e->native : "",
		    e->source ? e->source : "", e->message ? e->message : "");
		st = ui_san(t);
		buf_printf(b, "  %s\n", st);
		free(st);
		free(t);
	}
}

/*
 * A job's detail: how it ended (exit code, run time), what it asked for
 * and (ended, from sacct: efficiency_got) what it used, the command, and
 * the triage rule with its evidence; then the record and its history.
 * The record comes from the records thread (detail_got): until it does,
 * reading is set and the view says so; err is why it could not be read.
 */
static char *
detail_job(struct ui *ui, const struct jobtable_row *r,
    const struct record *rec, const char *err, int reading)
{
	struct buf		 b, ask;
	struct pending_why	 why;
	char			 e[32], l[32], *cause = NULL;
	int			 nodes;

	buf_init(&b);
	if (err != NULL)
		buf_printf(&b, "records: %s\n\n", err);
	jobtable_fmt_duration(r->elapsed, e, sizeof e);
	jobtable_fmt_duration(r->limit, l, sizeof l);
	buf_printf(&b, "cluster     %s\n", r->cluster);
	buf_printf(&b, "job id      %s\n", r->id);
	buf_printf(&b, "name        %s\n", r->name);
	buf_printf(&b, "partition   %s\n", r->partition);
	/* The list's word (HELD) here too (issue 26.11). */
	buf_printf(&b, "state       %s%s\n", uitext_row_held(r) ? "HELD" :
	    r->state, uitext_row_held(r) ? " (pending, on hold)" :
	    r->finished ? " (finished)" : "");
	if (rec != NULL)
		detail_field(&b, "exit code", rec->exit_code);
	if (r->elapsed >= 0)
		buf_printf(&b, "run time    %s of %s\n", e,
		    r->limit < 0 ? "no limit" : l);
	/* What it asked for: the record knows; squeue gives the nodes. */
	nodes = rec != NULL && rec->nodes > 0 ? rec->nodes : r->nodes;
	buf_init(&ask);
	buf_add(&ask, "", 0);
	if (nodes > 0)
		buf_printf(&ask, "%d node%s", nodes, nodes == 1 ? "" : "s");
	if (rec != NULL) {
		buf_printf(&ask, "%s%d GPU%s", ask.len ? ", " : "", rec->gpus,
		    rec->gpus == 1 ? "" : "s");
		if (rec->cpus > 0)
			buf_printf(&ask, ", %d CPU%s per task", rec->cpus,
			    rec->cpus == 1 ? "" : "s");
		if (rec->time_limit != NULL)
			buf_printf(&ask, ", time %s", rec->time_limit);
	} else if (r->limit >= 0)
		buf_printf(&ask, "%stime %s", ask.len ? ", " : "", l);
	detail_field(&b, "asked", ask.data);
	buf_free(&ask);
	if (rec != NULL && ui->cfg != NULL &&
	    (cause = ops_orphan_why(ui->cfg, rec)) != NULL) {
		detail_field(&b, "not polled", cause);
		free(cause);
		cause = NULL;
	}
	if (rec != NULL) {
		detail_command(&b, rec->command);
		if (rec->err_class != ERR_NONE)
			detail_field(&b, "failure",
			    err_class_name(rec->err_class));
		detail_field(&b, "triage rule", rec->err_rule);
		detail_field(&b, "evidence", rec->err_evidence);
	}
	if (r->reason != NULL && *r->reason != '\0')
		buf_printf(&b, "%-12s%s\n", jobtable_state_class(r->state) ==
		    JC_PENDING ? "why pending" : "reason", r->reason);
	if (jobtable_state_class(r->state) == JC_PENDING &&
	    pending_explain(r->reason, &why) == 0) {
		buf_printf(&b, "%-12s%s\n", "meaning", why.sentence);
		/* Here the key does it: U releases (issue 26.11). */
		if (strcmp(why.code, "JobHeldUser") == 0)
			buf_printf(&b, "%-12s%s\n", "what to do", "Press U "
			    "to release it (or c to cancel it).");
		else
			buf_printf(&b, "%-12s%s\n", "what to do", why.fix);
	}
	detail_record(&b, rec, reading);
	return buf_steal(&b);
}

int
act_detail(struct ui *ui)
{
	const struct jobtable_row	*r;
	char				*t, *cause = NULL;
	int				 reading;

	if (ui->focus == PANE_CLUSTERS) {
		if (ui->ncl == 0)
			return 0;
		t = xasprintf("Cluster %s", ui->cl[ui->ccur].name);
		view_open(ui, t, detail_cluster(ui, &ui->cl[ui->ccur]));
		free(t);
		return UIF_REDRAW;
	}
	if ((r = jobtable_current(ui->jt)) == NULL) {
		ui_message(ui, 1, "no job selected");
		return UIF_REDRAW;
	}
	t = xasprintf("Job %s on %s", r->id, r->cluster);
	reading = ui->be != NULL && ui->be->detail != NULL;
	view_open(ui, t, detail_job(ui, r, NULL, NULL, reading));
	free(t);
	ui->detail_cluster = xstrdup(r->cluster);
	ui->detail_id = xstrdup(r->id);
	/* Its record: read by the records thread, never here. */
	if (reading && ui->be->detail(ui->be->arg, r->cluster, r->id,
	    &cause) != 0) {
		view_set(ui, detail_job(ui, r, NULL, cause, 0));
		free(cause);
		cause = NULL;
	}
	/* An ended job: how it used what it asked for (one sacct). */
	if (r->finished && ui->be != NULL && ui->be->efficiency != NULL) {
		if (ui->be->efficiency(ui->be->arg, r->cluster, r->id,
		    &cause) != 0)
			free(cause);	/* an array task: not asked */
	}
	return UIF_REDRAW;
}

/* t in a job's detail: squeue --start for it, in its cluster's worker. */
int
act_start_estimate(struct ui *ui)
{
	char	*cause = NULL;

	if (ui->detail_id == NULL) {
		ui_message(ui, 1, "t: open a job's detail (Enter) first");
		return UIF_REDRAW;
	}
	if (ui->be == NULL || ui->be->start_estimate == NULL) {
		ui_message(ui, 1, "start estimate: not connected (no worker)");
		return UIF_REDRAW;
	}
	if (ui->be->start_estimate(ui->be->arg, ui->detail_cluster,
	    ui->detail_id, &cause) != 0) {
		ui_message(ui, 1, "start estimate of %s: %s", ui->detail_id,
		    cause);
		free(cause);
		return UIF_REDRAW;
	}
	ui_message(ui, 0, "asking %s for the start estimate of job %s\xe2\x80"
	    "\xa6", ui->detail_cluster, ui->detail_id);
	return UIF_REDRAW;
}

/* Whether m is about the job whose detail is open. */
static int
detail_shown(const struct ui *ui, const struct msg_action *m)
{
	return ui->ov == OV_VIEW && ui->detail_id != NULL &&
	    m->cluster != NULL && m->job_id != NULL &&
	    strcmp(m->cluster, ui->detail_cluster) == 0 &&
	    strcmp(m->job_id, ui->detail_id) == 0;
}

/* The start estimate, just below the job's fields, above the record. */
static void
start_show(struct ui *ui)
{
	char	*line;
	size_t	 k;

	line = xasprintf("%-12s%s%s", "start", ui->detail_start_failed ?
	    "cannot ask: " : "", ui->detail_start);
	for (k = 0; k < ui->view.n && *ui->view.v[k] != '\0'; k++)
		/* nothing */;
	strv_add(&ui->view, "");
	free(ui->view.v[ui->view.n - 1]);
	memmove(ui->view.v + k + 1, ui->view.v + k,
	    (ui->view.n - 1 - k) * sizeof *ui->view.v);
	ui->view.v[k] = line;
}

/* The estimate came: into the detail view if it still shows that job. */
int
start_estimated(struct ui *ui, struct msg_action *m)
{
	char	*t;

	t = ui_san(m->message != NULL ? m->message : "");
	if (detail_shown(ui, m)) {
		free(ui->detail_start);
		ui->detail_start = xstrdup(t);
		ui->detail_start_failed = m->failed;
		start_show(ui);
		ui->view_top = 0;
	}
	ui_message(ui, m->failed, "%s %s: %s", m->cluster ? m->cluster : "",
	    m->job_id ? m->job_id : "", t);
	free(t);
	return UIF_REDRAW;
}

/* The view's line labelled label ("label       ..."), or view.n. */
static size_t
view_find_label(const struct ui *ui, const char *label)
{
	size_t	k, n = strlen(label);

	for (k = 0; k < ui->view.n && *ui->view.v[k] != '\0'; k++) {
		if (strncmp(ui->view.v[k], label, n) == 0 &&
		    ui->view.v[k][n] == ' ')
			return k;
	}
	return ui->view.n;
}

/* Insert line at k of the view (it takes line). */
static void
view_insert(struct ui *ui, size_t k, char *line)
{
	strv_add(&ui->view, "");
	free(ui->view.v[ui->view.n - 1]);
	memmove(ui->view.v + k + 1, ui->view.v + k,
	    (ui->view.n - 1 - k) * sizeof *ui->view.v);
	ui->view.v[k] = line;
}

/*
 * What sacct says of an ended job ("label\ttext" lines: exit code, usage,
 * hint), each in its place in the detail view: the exit code under the
 * state (sacct's replaces the record's), usage and hint under asked.
 */
/* The efficiency's "label\tvalue" lines, each in its place in the view. */
static void
eff_show(struct ui *ui, const char *lines)
{
	char	*copy, *p, *nl, *tab, *label, *text;
	size_t	 k, at;

	copy = xstrdup(lines);
	for (p = copy; p != NULL && *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if ((tab = strchr(p, '\t')) == NULL)
			continue;
		*tab++ = '\0';
		label = ui_san(p);
		text = ui_san(tab);
		if ((k = view_find_label(ui, label)) < ui->view.n) {
			free(ui->view.v[k]);
			ui->view.v[k] = xasprintf("%-12s%s", label, text);
		} else {
			/* After the line it belongs under, else at the end. */
			at = view_find_label(ui, strcmp(label, "exit code") == 0 ?
			    "state" : strcmp(label, "hint") == 0 ? "usage" :
			    "asked");
			if (at == ui->view.n)
				at = view_find_label(ui, "run time");
			if (at < ui->view.n)
				at++;
			else {
				for (at = 0; at < ui->view.n &&
				    *ui->view.v[at] != '\0'; at++)
					/* nothing */;
			}
			view_insert(ui, at, xasprintf("%-12s%s", label,
			    text));
		}
		free(label);
		free(text);
	}
	free(copy);
}

int
efficiency_got(struct ui *ui, struct msg_action *m)
{
	if (!detail_shown(ui, m))
		return 0;	/* closed meanwhile: nothing to say */
	if (m->failed)
		return 0;	/* e.g. sacct does not know it (yet) */
	free(ui->detail_eff);
	ui->detail_eff = xstrdup(m->message != NULL ? m->message : "");
	eff_show(ui, ui->detail_eff);
	return UIF_REDRAW;
}

/* u in a job's detail: its GPU use, nvidia-smi once on each node. */
int
act_gpu_use(struct ui *ui)
{
	char	*cause = NULL;

	if (ui->detail_id == NULL) {
		ui_message(ui, 1, "u: open a job's detail (Enter) first");
		return UIF_REDRAW;
	}
	if (ui->be == NULL || ui->be->gpu == NULL) {
		ui_message(ui, 1, "GPU use: not connected (no worker)");
		return UIF_REDRAW;
	}
	if (ui->be->gpu(ui->be->arg, ui->detail_cluster, ui->detail_id,
	    &cause) != 0) {
		ui_message(ui, 1, "GPU use of %s: %s", ui->detail_id, cause);
		free(cause);
		return UIF_REDRAW;
	}
	ui_message(ui, 0, "asking nvidia-smi on the nodes of job %s\xe2\x80"
	    "\xa6", ui->detail_id);
	return UIF_REDRAW;
}

/* Its answer: a "gpu" line each, at the end of the detail view. */
int
gpu_got(struct ui *ui, struct msg_action *m)
{
	char	*copy, *p, *nl, *l;

	if (!detail_shown(ui, m))
		return 0;
	copy = xstrdup(m->message != NULL ? m->message : "");
	for (p = copy; p != NULL && *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		l = ui_san(p);
		view_insert(ui, ui->view.n, xasprintf("%-12s%s%s", "gpu",
		    m->failed ? "cannot ask: " : "", l));
		free(l);
	}
	free(copy);
	ui_message(ui, m->failed, "GPU use of job %s: %s", m->job_id,
	    m->failed ? "failed (the detail view says why)" : "in the detail "
	    "view");
	return UIF_REDRAW;
}

void
detail_forget(struct ui *ui)
{
	free(ui->detail_cluster);
	free(ui->detail_id);
	ui->detail_cluster = ui->detail_id = NULL;
	free(ui->detail_eff);
	free(ui->detail_start);
	ui->detail_eff = ui->detail_start = NULL;
}

/*
 * The job's record arrived from the records thread (its JSON; none: not
 * launched from here): the view is built again with it, keeping where it
 * was scrolled and what the start estimate and efficiency said meanwhile.
 */
int
detail_got(struct ui *ui, struct msg_action *m)
{
	const struct jobtable_row	*r;
	struct record			*rec = NULL;
	char				*cause = NULL;
	const char			*err = NULL;

	if (!detail_shown(ui, m) || (r = jobtable_find(ui->jt, m->cluster,
	    m->job_id)) == NULL)
		return 0;	/* closed meanwhile */
	if (m->failed)
		err = m->message != NULL ? m->message : "cannot read";
	else if (m->message != NULL && record_from_json(m->message,
	    strlen(m->message), "the record", &rec, &cause) != 0)
		err = cause;
	view_set(ui, detail_job(ui, r, rec, err, 0));
	record_free(rec);
	free(cause);
	if (ui->detail_start != NULL)
		start_show(ui);
	if (ui->detail_eff != NULL)
		eff_show(ui, ui->detail_eff);
	return UIF_REDRAW;
}
