/*
 * The jobs pane's views (V, :view; k9s's and htop's quick filters) and the
 * split between the jobs and the log pane (<, >, =).  A view is a row
 * predicate the job table applies before the / filter, so both combine;
 * the title says which view and how many rows it hides.
 */
#include "ui-int.h"

#define SPLIT_STEP	5	/* percent per < or > */
#define SPLIT_MIN	10
#define SPLIT_MAX	90
#define PANE_MIN_ROWS	3	/* a title, a column head or line, a row */

static const char *const view_names[VIEW_COUNT] = {
	[VIEW_ALL] = "all",
	[VIEW_MINE] = "mine",
	[VIEW_RUNNING] = "running",
	[VIEW_PENDING] = "pending",
	[VIEW_FAILED] = "failed",
};

const char *
ui_view_name(enum ui_view v)
{
	return (int)v >= 0 && v < VIEW_COUNT ? view_names[v] : "all";
}

int
ui_view_parse(const char *s)
{
	int	v;

	for (v = 0; s != NULL && v < VIEW_COUNT; v++) {
		if (strcmp(view_names[v], s) == 0)
			return v;
	}
	return -1;
}

/* Whose the login of a cluster is: its user:, else SLURM_USER, else USER. */
static int
view_is_me(struct ui *ui, const struct jobtable_row *r)
{
	struct ucluster	*c;
	const char	*u;

	/* The polls ask for the login user's jobs only: unnamed is ours. */
	if (r->user == NULL || *r->user == '\0')
		return 1;
	c = r->cluster != NULL ? cluster_find(ui, r->cluster, 0) : NULL;
	if (c != NULL && c->conf != NULL && c->conf->user != NULL)
		return strcmp(c->conf->user, r->user) == 0;
	if ((u = getenv("SLURM_USER")) != NULL && *u != '\0')
		return strcmp(u, r->user) == 0;
	return (u = getenv("USER")) != NULL && strcmp(u, r->user) == 0;
}

/* A failure, in SLURM's words or a record's (FAILED/INFRA, ERROR). */
static int
view_is_failed(const struct jobtable_row *r)
{
	const char	*s = r->state != NULL ? r->state : "";

	if (jobtable_state_class(s) == JC_FAILED)
		return 1;
	return strncmp(s, "FAILED", 6) == 0 || strncmp(s, "ERROR", 5) == 0 ||
	    strncmp(s, "OUT_OF_ME", 9) == 0;
}

static int
view_pass(const struct jobtable_row *r, void *arg)
{
	struct ui	*ui = arg;

	switch (ui->jview) {
	case VIEW_MINE:
		return view_is_me(ui, r);
	case VIEW_RUNNING:
		return !r->finished &&
		    jobtable_state_class(r->state) == JC_RUNNING;
	case VIEW_PENDING:
		return !r->finished &&
		    jobtable_state_class(r->state) == JC_PENDING;
	case VIEW_FAILED:
		return view_is_failed(r);
	default:
		return 1;
	}
}

void
ui_view_set(struct ui *ui, enum ui_view v)
{
	if ((int)v < 0 || v >= VIEW_COUNT)
		v = VIEW_ALL;
	ui->jview = v;
	/* Failed jobs are finished ones: the a toggle does not hide them. */
	jobtable_set_view(ui->jt, v == VIEW_ALL ? NULL : view_pass, ui,
	    v == VIEW_FAILED);
	jobtable_move_to(ui->jt, 0);
}

/*
 * "  view: failed (12 of 340, hides 328)": the rows shown of all and the
 * ones the view alone leaves out; "" for all.
 */
void
ui_view_title(struct ui *ui, char *buf, size_t len)
{
	buf[0] = '\0';
	if (ui->jview == VIEW_ALL)
		return;
	snprintf(buf, len, "  view: %s (%zu of %zu, hides %zu)",
	    ui_view_name(ui->jview), jobtable_nvisible(ui->jt),
	    jobtable_total(ui->jt), jobtable_hidden_view(ui->jt));
}

int
act_view_cycle(struct ui *ui)
{
	ui_view_set(ui, (ui->jview + 1) % VIEW_COUNT);
	ui_message(ui, 0, "view: %s (V: the next; :view NAME)",
	    ui_view_name(ui->jview));
	return UIF_REDRAW;
}

/*
 * Rows of the jobs pane out of avail rows for jobs and log: the split's
 * share, each pane keeping PANE_MIN_ROWS when there is room for both.
 */
int
ui_split_jobs_rows(const struct ui *ui, int avail)
{
	int	pct = ui->split > 0 ? ui->split : UI_SPLIT_DEFAULT, jh;

	jh = avail * pct / 100;
	if (avail < 2 * PANE_MIN_ROWS)
		return jh < 3 ? avail : jh;
	if (jh < PANE_MIN_ROWS)
		jh = PANE_MIN_ROWS;
	if (avail - jh < PANE_MIN_ROWS)
		jh = avail - PANE_MIN_ROWS;
	return jh;
}

static int
split_move(struct ui *ui, int delta)
{
	int	pct = ui->split > 0 ? ui->split : UI_SPLIT_DEFAULT;

	pct += delta;
	if (pct < SPLIT_MIN)
		pct = SPLIT_MIN;
	if (pct > SPLIT_MAX)
		pct = SPLIT_MAX;
	ui->split = pct;
	ui->zoom = 0;
	ui_message(ui, 0, "panes: jobs %d%%, log %d%% (< > move, = resets)",
	    pct, 100 - pct);
	return UIF_REDRAW;
}

int
act_split_shrink(struct ui *ui)
{
	return split_move(ui, -SPLIT_STEP);
}

int
act_split_grow(struct ui *ui)
{
	return split_move(ui, SPLIT_STEP);
}

int
act_split_reset(struct ui *ui)
{
	ui->split = 0;
	return split_move(ui, 0);
}
