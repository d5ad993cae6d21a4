/*
 * The : command line (k9s): a one-line prompt in the footer with a history
 * (Up/Down) and Tab completion of command names.  The commands are a table
 * (tmux's cmd_entry): a name, its arguments and a body that only acts; the
 * line is parsed here, once, for every command.
 */
#include "ui-int.h"

#define CMD_HISTORY_MAX	50

enum cmd_args {
	CMD_ARGS_NONE,		/* no argument */
	CMD_ARGS_OPTIONAL,	/* zero or one (the rest of the line) */
	CMD_ARGS_ONE,		/* exactly one word or the rest of the line */
};

struct cmd_entry {
	const char	*name;
	const char	*alias;
	const char	*usage;
	enum cmd_args	 args;
	int		(*exec)(struct ui *, const char *arg);
	const char	*help;
};

static int	cmd_quit(struct ui *, const char *);
static int	cmd_view(struct ui *, const char *);
static int	cmd_filter(struct ui *, const char *);
static int	cmd_cluster(struct ui *, const char *);
static int	cmd_job(struct ui *, const char *);
static int	cmd_cancel(struct ui *, const char *);
static int	cmd_help(struct ui *, const char *);

static const struct cmd_entry cmd_table[] = {
	{ "quit", "q", "", CMD_ARGS_NONE, cmd_quit, "quit sqdeck" },
	{ "view", NULL, "all|mine|running|pending|failed", CMD_ARGS_OPTIONAL,
	  cmd_view, "the jobs pane's view (as V; none: say which)" },
	{ "filter", NULL, "[TEXT]", CMD_ARGS_OPTIONAL, cmd_filter,
	  "filter the jobs (as /; none: clear it)" },
	{ "cluster", NULL, "NAME", CMD_ARGS_ONE, cmd_cluster,
	  "focus the cluster NAME in the clusters pane" },
	{ "job", NULL, "ID", CMD_ARGS_ONE, cmd_job,
	  "select job ID, on any cluster (the view and filter make way)" },
	{ "cancel", NULL, "", CMD_ARGS_NONE, cmd_cancel,
	  "cancel the marked jobs, else the selected one (asks first)" },
	{ "help", NULL, "", CMD_ARGS_NONE, cmd_help, "every key and command" },
};
#define CMD_COUNT	(sizeof cmd_table / sizeof cmd_table[0])

/* "quit (q), view, filter, ...": the known names for a message. */
static char *
cmd_names(void)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < CMD_COUNT; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", cmd_table[i].name);
	return buf_steal(&b);
}

char *
ui_cmdline_help(void)
{
	struct buf	b;
	char		label[64];
	size_t		i;

	buf_init(&b);
	buf_adds(&b, "Commands of the : line (Tab completes a name, Up/Down "
	    "the history)\n");
	for (i = 0; i < CMD_COUNT; i++) {
		snprintf(label, sizeof label, ":%s%s%s%s%s", cmd_table[i].name,
		    cmd_table[i].alias ? " (:" : "", cmd_table[i].alias ?
		    cmd_table[i].alias : "", cmd_table[i].alias ? ")" : "",
		    "");
		buf_printf(&b, "  %-18s  %s%s%s\n", label, cmd_table[i].usage,
		    *cmd_table[i].usage ? ": " : "", cmd_table[i].help);
	}
	return buf_steal(&b);
}

static const struct cmd_entry *
cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; i < CMD_COUNT; i++) {
		if (strcmp(cmd_table[i].name, name) == 0 ||
		    (cmd_table[i].alias != NULL &&
		    strcmp(cmd_table[i].alias, name) == 0))
			return &cmd_table[i];
	}
	return NULL;
}

/* ------------------------------------------------------------ commands */

static int
cmd_quit(struct ui *ui, const char *arg)
{
	(void)ui;
	(void)arg;
	return UIF_QUIT;
}

static int
cmd_view(struct ui *ui, const char *arg)
{
	int	v;

	if (arg == NULL) {
		ui_message(ui, 0, "view: %s", ui_view_name(ui->jview));
		return UIF_REDRAW;
	}
	if ((v = ui_view_parse(arg)) < 0) {
		ui_message(ui, 1, ":view %s: no such view (all, mine, running, "
		    "pending, failed)", arg);
		return UIF_REDRAW;
	}
	ui_view_set(ui, (enum ui_view)v);
	ui->focus = PANE_JOBS;
	ui_message(ui, 0, "view: %s", ui_view_name(ui->jview));
	return UIF_REDRAW;
}

static int
cmd_filter(struct ui *ui, const char *arg)
{
	char	*cause = NULL;

	if (jobtable_set_filter(ui->jt, arg, &cause) != 0) {
		ui_message(ui, 1, ":filter: %s", cause);
		free(cause);
		return UIF_REDRAW;
	}
	jobtable_move_to(ui->jt, 0);
	ui->focus = PANE_JOBS;
	ui_message(ui, 0, arg != NULL ? "filter: %s" : "filter cleared%s",
	    arg != NULL ? arg : "");
	return UIF_REDRAW;
}

static int
cmd_cluster(struct ui *ui, const char *arg)
{
	struct buf	b;
	size_t		i;

	for (i = 0; i < ui->ncl; i++) {
		if (strcmp(ui->cl[i].name, arg) == 0) {
			ui->ccur = i;
			ui->focus = PANE_CLUSTERS;
			ui->zoom = 0;
			ui_message(ui, 0, "cluster %s (Enter: its detail)",
			    arg);
			return UIF_REDRAW;
		}
	}
	buf_init(&b);
	for (i = 0; i < ui->ncl && i < 8; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", ui->cl[i].name);
	ui_message(ui, 1, ":cluster %s: no such cluster (%s%s)", arg,
	    b.data != NULL ? b.data : "none configured",
	    ui->ncl > 8 ? ", ..." : "");
	buf_free(&b);
	return UIF_REDRAW;
}

/* The cluster of the first row with this id, shown or not; NULL: none. */
static const char *
cmd_job_cluster(struct ui *ui, const char *id)
{
	size_t	i;

	for (i = 0; i < ui->ncl; i++) {
		if (jobtable_find(ui->jt, ui->cl[i].name, id) != NULL)
			return ui->cl[i].name;
	}
	return NULL;
}

/*
 * What hid the row, undone one at a time (the view, the filter, the a
 * toggle) until it shows; the footer says what made way.
 */
static int
cmd_job(struct ui *ui, const char *arg)
{
	const char	*cl = cmd_job_cluster(ui, arg), *why = "";

	if (cl == NULL) {
		ui_message(ui, 1, ":job %s: no such job on any cluster", arg);
		return UIF_REDRAW;
	}
	if (jobtable_select(ui->jt, cl, arg) != 0 && ui->jview != VIEW_ALL) {
		ui_view_set(ui, VIEW_ALL);
		why = " (view: all)";
	}
	if (jobtable_select(ui->jt, cl, arg) != 0 &&
	    jobtable_filter(ui->jt) != NULL) {
		jobtable_set_filter(ui->jt, NULL, NULL);
		why = " (the filter cleared)";
	}
	if (jobtable_select(ui->jt, cl, arg) != 0 &&
	    !jobtable_show_finished(ui->jt)) {
		jobtable_set_show_finished(ui->jt, 1);
		why = " (finished jobs shown)";
	}
	if (jobtable_select(ui->jt, cl, arg) != 0) {
		ui_message(ui, 1, ":job %s: on %s, in a folded array (+ opens "
		    "it)", arg, cl);
		return UIF_REDRAW;
	}
	ui->focus = PANE_JOBS;
	ui->zoom = 0;
	ui_message(ui, 0, "job %s on %s%s", arg, cl, why);
	return UIF_REDRAW;
}

static int
cmd_cancel(struct ui *ui, const char *arg)
{
	(void)arg;
	ui->focus = PANE_JOBS;
	return act_cancel(ui);
}

static int
cmd_help(struct ui *ui, const char *arg)
{
	(void)arg;
	return act_help(ui);
}

/* ------------------------------------------------------------ the line */

static void
cmd_history_add(struct ui *ui, const char *line)
{
	struct strv	*h = &ui->cmd_hist;
	size_t		 i;

	if (*line == '\0' || (h->n > 0 && strcmp(h->v[h->n - 1], line) == 0))
		return;
	if (h->n >= CMD_HISTORY_MAX) {
		free(h->v[0]);
		for (i = 1; i < h->n; i++)
			h->v[i - 1] = h->v[i];
		h->v[--h->n] = NULL;
	}
	strv_add(h, line);
}

/* Split ":name rest" into the name and its argument; run it. */
static int
cmd_exec(struct ui *ui, char *line)
{
	const struct cmd_entry	*ce;
	char			*name, *arg, *names;

	name = str_trim(line);
	if (*name == ':')
		name = str_trim(name + 1);
	if (*name == '\0')
		return UIF_REDRAW;
	arg = name + strcspn(name, " \t");
	if (*arg != '\0')
		*arg++ = '\0';
	arg = str_trim(arg);
	if ((ce = cmd_find(name)) == NULL) {
		names = cmd_names();
		ui_message(ui, 1, "unknown command :%s (known: %s)", name,
		    names);
		free(names);
		return UIF_REDRAW;
	}
	if (ce->args == CMD_ARGS_NONE && *arg != '\0') {
		ui_message(ui, 1, ":%s takes no argument", ce->name);
		return UIF_REDRAW;
	}
	if (ce->args == CMD_ARGS_ONE && *arg == '\0') {
		ui_message(ui, 1, ":%s needs %s", ce->name, ce->usage);
		return UIF_REDRAW;
	}
	return ce->exec(ui, *arg != '\0' ? arg : NULL);
}

static void
cmd_reset_tab(struct ui *ui)
{
	free(ui->cmd_stem);
	ui->cmd_stem = NULL;
	ui->cmd_tab = 0;
}

static void
cmd_set_input(struct ui *ui, const char *s)
{
	buf_free(&ui->input);
	buf_add(&ui->input, "", 0);
	buf_adds(&ui->input, s);
}

int
act_cmdline(struct ui *ui)
{
	cmd_set_input(ui, "");
	cmd_reset_tab(ui);
	ui->cmd_pos = ui->cmd_hist.n;
	ui->ov = OV_CMDLINE;
	return UIF_REDRAW;
}

int
act_cmd_run(struct ui *ui)
{
	char	*line = xstrdup(ui->input.data != NULL ? ui->input.data : "");
	int	 flags;

	ui->ov = OV_NONE;
	buf_free(&ui->input);
	cmd_reset_tab(ui);
	cmd_history_add(ui, str_trim(line));
	flags = cmd_exec(ui, line);
	free(line);
	return flags | UIF_REDRAW;
}

int
act_cmd_close(struct ui *ui)
{
	ui->ov = OV_NONE;
	buf_free(&ui->input);
	cmd_reset_tab(ui);
	return UIF_REDRAW;
}

/*
 * Tab: the first command whose name starts with what was typed (before
 * any blank); Tab again the next one, in table order.  An exact name gets
 * its blank; none matching says so.
 */
int
act_cmd_complete(struct ui *ui)
{
	const char	*typed = ui->input.data != NULL ? ui->input.data : "";
	size_t		 i, n, nmatch = 0, want;
	const char	*pick = NULL;

	if (strchr(typed, ' ') != NULL)
		return 0;	/* an argument: nothing to complete */
	if (ui->cmd_stem == NULL)
		ui->cmd_stem = xstrdup(typed);
	n = strlen(ui->cmd_stem);
	for (i = 0; i < CMD_COUNT; i++) {
		if (strncmp(cmd_table[i].name, ui->cmd_stem, n) == 0)
			nmatch++;
	}
	if (nmatch == 0) {
		ui_message(ui, 1, "no command starts with '%s'", ui->cmd_stem);
		cmd_reset_tab(ui);
		return UIF_REDRAW;
	}
	want = ui->cmd_tab++ % nmatch;
	for (i = 0; i < CMD_COUNT; i++) {
		if (strncmp(cmd_table[i].name, ui->cmd_stem, n) != 0)
			continue;
		if (want-- == 0) {
			pick = cmd_table[i].name;
			break;
		}
	}
	cmd_set_input(ui, pick);
	if (nmatch == 1) {
		buf_adds(&ui->input, " ");
		cmd_reset_tab(ui);
	}
	return UIF_REDRAW;
}

int
act_cmd_history_prev(struct ui *ui)
{
	if (ui->cmd_pos == 0 || ui->cmd_hist.n == 0)
		return 0;
	ui->cmd_pos--;
	cmd_set_input(ui, ui->cmd_hist.v[ui->cmd_pos]);
	cmd_reset_tab(ui);
	return UIF_REDRAW;
}

int
act_cmd_history_next(struct ui *ui)
{
	if (ui->cmd_pos >= ui->cmd_hist.n)
		return 0;
	ui->cmd_pos++;
	cmd_set_input(ui, ui->cmd_pos < ui->cmd_hist.n ?
	    ui->cmd_hist.v[ui->cmd_pos] : "");
	cmd_reset_tab(ui);
	return UIF_REDRAW;
}

void
ui_cmdline_type(struct ui *ui, const char *mb, size_t n)
{
	buf_add(&ui->input, mb, n);
	cmd_reset_tab(ui);
}

/* ":view fa█" on row y, the end of a long line kept in view. */
void
ui_cmdline_draw(struct ui *ui, int y)
{
	const char	*s = ui->input.data != NULL ? ui->input.data : "";
	char		*line;
	int		 lw;

	line = xasprintf(":%s", ui_tail_fit(s, COLS > 3 ? COLS - 3 : 1));
	ui_put(ui, y, 0, COLS, line, ST_NORMAL, 0);
	lw = uitext_width(line);
	if (lw < COLS)
		ui_put(ui, y, lw, 1, " ", ST_CURSOR, 0);
	free(line);
}

void
ui_cmdline_free(struct ui *ui)
{
	strv_free(&ui->cmd_hist);
	cmd_reset_tab(ui);
}
