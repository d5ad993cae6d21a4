/*
 * The clusters pane: one line per cluster with its health and polling
 * budget, and the cluster detail.
 */
#include "ui-int.h"

static size_t
cluster_hash(const char *s)
{
	size_t	h = 5381;

	while (*s != '\0')
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* Put cluster i in the name index (open addressing, kept half empty). */
static void
cluster_index(struct ui *ui, size_t i)
{
	size_t	k, n;

	if (2 * (ui->ncl + 1) > ui->nclhash) {
		free(ui->clhash);
		ui->nclhash = ui->nclhash ? ui->nclhash * 2 : 64;
		while (2 * (ui->ncl + 1) > ui->nclhash)
			ui->nclhash *= 2;
		ui->clhash = xcalloc(ui->nclhash, sizeof *ui->clhash);
		for (n = 0; n < ui->ncl; n++) {
			if (n == i)
				continue;
			k = cluster_hash(ui->cl[n].name) % ui->nclhash;
			while (ui->clhash[k] != 0)
				k = (k + 1) % ui->nclhash;
			ui->clhash[k] = n + 1;
		}
	}
	k = cluster_hash(ui->cl[i].name) % ui->nclhash;
	while (ui->clhash[k] != 0)
		k = (k + 1) % ui->nclhash;
	ui->clhash[k] = i + 1;
}

/*
 * A cluster by name: an index, so that a board of 10 000 clusters does not
 * compare 10 000 names for every message.
 */
struct ucluster *
cluster_find(struct ui *ui, const char *name, int create)
{
	size_t	k, i;

	if (ui->nclhash > 0) {
		k = cluster_hash(name) % ui->nclhash;
		for (; (i = ui->clhash[k]) != 0; k = (k + 1) % ui->nclhash) {
			if (strcmp(ui->cl[i - 1].name, name) == 0)
				return &ui->cl[i - 1];
		}
	}
	if (!create)
		return NULL;
	if (ui->ncl == ui->acl) {
		ui->acl = ui->acl ? ui->acl * 2 : 16;
		ui->cl = xrealloc(ui->cl, ui->acl * sizeof *ui->cl);
	}
	memset(&ui->cl[ui->ncl], 0, sizeof ui->cl[ui->ncl]);
	ui->cl[ui->ncl].name = ui_san(name);
	cluster_index(ui, ui->ncl);
	return &ui->cl[ui->ncl++];
}

static int
cluster_interval(const struct ucluster *c)
{
	return config_poll_interval(c->conf);
}

/*
 * Health as drawn: a cluster reported ok whose polls stopped coming (a
 * worker stuck in a read) is stale even before the worker says so.
 */
enum cluster_health
cluster_health(const struct ucluster *c, time_t now)
{
	/* Waiting for the polling budget is not being stale. */
	if (c->health == CLUSTER_OK && c->last_ok != 0 &&
	    now - c->last_ok > 3 * cluster_interval(c) &&
	    (c->next_poll == 0 || now > c->next_poll +
	    cluster_interval(c)))
		return CLUSTER_STALE;
	return c->health;
}

const char *
health_text(const struct ucluster *c, time_t now, char *buf, size_t len)
{
	char	age[16];

	uitext_age(c->last_ok ? (long)(now - c->last_ok) : 0, age, sizeof age);
	switch (cluster_health(c, now)) {
	case CLUSTER_CONNECTING:
		snprintf(buf, len, "connecting");
		break;
	case CLUSTER_OK:
		snprintf(buf, len, "ok %s", age);
		break;
	case CLUSTER_STALE:
		if (c->last_ok)
			snprintf(buf, len, "stale %s", age);
		else
			snprintf(buf, len, "stale");
		break;
	case CLUSTER_ERROR:
		/* How old its last good snapshot is, if it ever had one. */
		if (c->last_ok)
			snprintf(buf, len, "error %s", age);
		else
			snprintf(buf, len, "error");
		break;
	}
	return buf;
}

/* "back-off 37s (slurmctld timed out)": the header while backing off. */
const char *
backoff_text(const struct ucluster *c, time_t now, char *buf, size_t len)
{
	long	left = c->next_poll > now ? (long)(c->next_poll - now) : 0;

	snprintf(buf, len, "back-off %lds (%s)", left,
	    c->fault != NULL ? c->fault : "failing");
	return buf;
}

/* The budget meter: "calls 3/20 next 4s". */
static const char *
meter_text(const struct ucluster *c, time_t now, char *buf, size_t len)
{
	long	left = c->next_poll > now ? (long)(c->next_poll - now) : 0;

	if (c->max_calls == 0)
		snprintf(buf, len, "calls -");
	else if (c->next_poll == 0)
		snprintf(buf, len, "calls %u/%u", c->calls, c->max_calls);
	else
		snprintf(buf, len, "calls %u/%u next %lds", c->calls,
		    c->max_calls, left);
	return buf;
}

/* ------------------------------------------------------------ messages */

/* Two strings alike, NULL only like NULL. */
static int
str_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static int
strv_same(const struct strv *a, const struct strv *b)
{
	size_t	i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	}
	return 1;
}

int
apply_cluster(struct ui *ui, struct msg_cluster *m)
{
	struct ucluster	*c;
	char		*message;
	size_t		 i;
	int		 flags = 0;

	if (m->cluster == NULL)
		return 0;
	c = cluster_find(ui, m->cluster, 1);
	/* Calls spent between polls: the meter, drawn at the next second. */
	if (m->budget_only) {
		c->calls = m->calls;
		c->max_calls = m->max_calls;
		if (m->next_poll != 0)
			c->next_poll = m->next_poll;
		free(c->uses);
		c->uses = m->uses != NULL ? ui_san(m->uses) : NULL;
		return 0;
	}
	message = ui_san(m->message);
	/*
	 * What a poll changes every time (its calls, the next poll, the last
	 * good answer) waits for the next second's frame; a new health, host,
	 * message, fault or back-off is drawn now.
	 */
	if (m->health != c->health || m->backoff != c->backoff ||
	    !str_same(message, c->message) || !str_same(m->fault, c->fault) ||
	    (m->host != NULL && !str_same(m->host, c->host)) ||
	    (m->partitions.n > 0 && !strv_same(&m->partitions,
	    &c->partitions)))
		flags = UIF_REDRAW;
	/* Say it in the footer once, not on every failed reconnect. */
	if (m->health == CLUSTER_ERROR && message != NULL &&
	    (c->said == NULL || strcmp(c->said, message) != 0)) {
		/* The first-run failure: its remedy is too long here. */
		if (strstr(message, "ssh-keyscan ") != NULL)
			ui_message(ui, 1, "%s: host key not known: 1, Enter "
			    "for the fix", c->name);
		else
			ui_message(ui, 1, "%s: %s", c->name, message);
		free(c->said);
		c->said = xstrdup(message);
	} else if (m->health == CLUSTER_OK) {
		free(c->said);
		c->said = NULL;
	}
	c->health = m->health;
	free(c->message);
	c->message = message;
	if (m->host != NULL) {
		free(c->host);
		c->host = ui_san(m->host);
	}
	if (m->partitions.n > 0) {
		strv_free(&c->partitions);
		for (i = 0; i < m->partitions.n; i++) {
			char	*p = ui_san(m->partitions.v[i]);

			strv_add(&c->partitions, p);
			free(p);
		}
	}
	if (m->last_ok > c->last_ok)
		c->last_ok = m->last_ok;
	c->calls = m->calls;
	c->max_calls = m->max_calls;
	c->next_poll = m->next_poll;
	c->backoff = m->backoff;
	free(c->fault);
	c->fault = m->fault != NULL ? ui_san(m->fault) : NULL;
	free(c->uses);
	c->uses = m->uses != NULL ? ui_san(m->uses) : NULL;
	return flags;
}

/* " 1 Clusters (36: 32 ok, 4 error)": every cluster's health at a glance. */
static void
clusters_title(struct ui *ui, time_t now, char *buf, size_t len)
{
	static const char *const names[] = {
		[CLUSTER_CONNECTING] = "connecting",
		[CLUSTER_OK] = "ok",
		[CLUSTER_STALE] = "stale",
		[CLUSTER_ERROR] = "error",
	};
	static const enum cluster_health order[] = {
		CLUSTER_OK, CLUSTER_STALE, CLUSTER_CONNECTING, CLUSTER_ERROR
	};
	size_t	count[4] = { 0, 0, 0, 0 }, i, k;
	int	n;

	for (i = 0; i < ui->ncl; i++) {
		k = (size_t)cluster_health(&ui->cl[i], now);
		if (k < 4)
			count[k]++;
	}
	n = snprintf(buf, len, " 1 Clusters (%zu", ui->ncl);
	for (i = 0, k = 0; i < 4 && ui->ncl > 1; i++) {
		if (count[order[i]] == 0 || n < 0 || (size_t)n >= len)
			continue;
		n += snprintf(buf + n, len - (size_t)n, "%s %zu %s",
		    k++ ? "," : ":", count[order[i]], names[order[i]]);
	}
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
}

static void
draw_clusters(struct ui *ui, int y, int h, time_t now)
{
	char		 title[128], status[48], jobs[48], meter[48], *parts;
	size_t		 i, run, pend, first;
	struct buf	 b;
	int		 row, x, wn, wh, wj, ws, wm, wp;

	clusters_title(ui, now, title, sizeof title);
	draw_title(ui, y, PANE_CLUSTERS, title);
	ui->clusters_h = h - 1;
	if (h <= 1)
		return;
	if (ui->ncl == 0) {
		ui_put(ui, y + 1, 1, COLS - 1, "no cluster configured: set "
		    "SLURM_HOSTNAME and SLURM_USER, or write clusters.yaml "
		    "(see sqdeck-clusters.yaml(5))", ST_DIM, 0);
		return;
	}
	wn = 12;
	wh = 18;
	wj = 14;
	ws = 12;
	wm = 19;
	wp = COLS - (1 + wn + 1 + wh + 1 + wj + 1 + ws + 1 + wm + 1);
	if (wp < 10) {
		wh = 0;
		wp = COLS - (1 + wn + 1 + wj + 1 + ws + 1 + wm + 1);
	}
	if (wp < 10) {
		wm = 0;
		wp = COLS - (1 + wn + 1 + wj + 1 + ws + 1);
	}
	first = ui->ccur >= (size_t)(h - 1) ? ui->ccur - (h - 2) : 0;
	for (row = 1, i = first; row < h && i < ui->ncl; row++, i++) {
		const struct ucluster	*c = &ui->cl[i];
		enum cluster_health	 hl = cluster_health(c, now);
		int			 cur = (i == ui->ccur);
		enum style		 base = cur && ui->focus == PANE_CLUSTERS ?
					     ST_CURSOR : ST_NORMAL;

		ui_put(ui, y + row, 0, COLS, "", base, 0);
		jobtable_count(ui->jt, c->name, &run, &pend);
		snprintf(jobs, sizeof jobs, "%zu run %zu pend", run, pend);
		health_text(c, now, status, sizeof status);
		buf_init(&b);
		buf_add(&b, "", 0);
		if (hl == CLUSTER_ERROR && c->message != NULL)
			buf_adds(&b, c->message);
		else {
			/* sinfo's; else the configured ones, never the
			   package's defaults (another site's names). */
			const struct strv *pv = c->partitions.n > 0 ?
			    &c->partitions : (c->conf != NULL &&
			    !c->conf->partitions_default ?
			    &c->conf->partitions : NULL);

			/* Name, MaxTime and idle/total GPUs ("6/8 GPU" ends
			   the text); the rest is in the detail. */
			for (size_t k = 0; pv != NULL && k < pv->n; k++) {
				const char	*v = pv->v[k], *g;
				size_t		 len = strlen(v);

				buf_printf(&b, "%s%.*s", k ? ", " : "",
				    (int)(strcspn(v, "(") -
				    (strchr(v, '(') ? 1 : 0)), v);
				if (strchr(v, '(') == NULL || len < 6 ||
				    strcmp(v + len - 4, " GPU") != 0)
					continue;
				for (g = v + len - 4; g > v && g[-1] != ' ';
				    g--)
					/* nothing */;
				buf_printf(&b, " %s", g);
			}
		}
		parts = buf_steal(&b);
		x = 1;
		ui_put(ui, y + row, x, wn, c->name, base, 0);
		x += wn + 1;
		if (wh > 0) {
			const char	*host = c->host;

			if (host == NULL && c->conf != NULL &&
			    c->conf->hosts.n > 0)
				host = c->conf->hosts.v[0];
			ui_put(ui, y + row, x, wh, host ? host : "-",
			    base, 0);
			x += wh + 1;
		}
		ui_put(ui, y + row, x, wj, jobs, base, 0);
		x += wj + 1;
		ui_put(ui, y + row, x, ws, status,
		    base == ST_CURSOR ? base : health_style(hl) == ST_HEALTH_OK ?
		    ST_RUNNING : health_style(hl) == ST_HEALTH_WAIT ?
		    ST_PENDING : ST_FAILED, 0);
		x += ws + 1;
		/* An unreachable cluster's reason gets the meter's room. */
		if (wm > 0 && hl != CLUSTER_ERROR) {
			ui_put(ui, y + row, x, wm, meter_text(c, now, meter,
			    sizeof meter), c->backoff > 0 && base != ST_CURSOR ?
			    ST_PENDING : base, 0);
			x += wm + 1;
			ui_put(ui, y + row, x, wp, parts, base, 0);
		} else
			ui_put(ui, y + row, x, wp + (wm > 0 ? wm + 1 : 0), parts,
			    base, 0);
		free(parts);
	}
}

/* The first screen row under the clusters' lines. */
int
clusters_end_y(struct ui *ui)
{
	size_t	h = ui->clusters_h > 0 ? (size_t)ui->clusters_h : 0;

	return 2 + (int)(ui->ncl < h ? ui->ncl : h);
}

char *
detail_cluster(struct ui *ui, const struct ucluster *c)
{
	struct buf	 b;
	char		 st[48];
	size_t		 i, run, pend;
	time_t		 now = time(NULL);

	buf_init(&b);
	buf_printf(&b, "cluster     %s\n", c->name);
	buf_printf(&b, "state       %s\n", health_text(c, now, st, sizeof st));
	if (c->message != NULL) {
		const char	*fix = strstr(c->message, "ssh-keyscan ");

		buf_printf(&b, "message     %s\n", c->message);
		/* The remedy alone on its last lines, to copy as it is. */
		if (fix != NULL)
			buf_printf(&b, "\nto trust the host key, after checking "
			    "its fingerprint, run:\n\n%s\n\n", fix);
	}
	buf_printf(&b, "host        %s\n", c->host ? c->host : "-");
	if (c->conf != NULL) {
		buf_adds(&b, "login hosts ");
		for (i = 0; i < c->conf->hosts.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "",
			    c->conf->hosts.v[i]);
		buf_printf(&b, "\nuser        %s\n", c->conf->user ?
		    c->conf->user : "(from ~/.ssh/config or $USER)");
		if (c->conf->port)
			buf_printf(&b, "port        %d\n", c->conf->port);
		buf_printf(&b, "poll        every %d s\n", cluster_interval(c));
	}
	/* Who spent the polling budget, when a poll waits for it. */
	if (c->max_calls > 0)
		buf_printf(&b, "budget      %u of %u scheduler calls in the last "
		    "minute%s%s%s\n", c->calls, c->max_calls,
		    c->uses != NULL && *c->uses != '\0' ? ": " : "",
		    c->uses != NULL ? c->uses : "",
		    c->calls >= c->max_calls ? " (polls wait for it)" : "");
	buf_adds(&b, "partitions  ");
	if (c->partitions.n > 0) {
		for (i = 0; i < c->partitions.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", c->partitions.v[i]);
	} else if (c->conf != NULL && c->conf->partitions_default) {
		buf_adds(&b, "none configured: the cluster's own, from sinfo, "
		    "once it answers");
	} else if (c->conf != NULL) {
		for (i = 0; i < c->conf->partitions.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "",
			    c->conf->partitions.v[i]);
		buf_adds(&b, " (configured)");
	}
	jobtable_count(ui->jt, c->name, &run, &pend);
	buf_printf(&b, "\njobs        %zu running, %zu pending\n", run, pend);
	return buf_steal(&b);
}

static void
clusters_move(struct ui *ui, long delta)
{
	if (ui->ncl == 0)
		return;
	if (delta < 0)
		ui->ccur = (size_t)-delta > ui->ccur ? 0 : ui->ccur + delta;
	else
		ui->ccur = ui->ccur + delta >= ui->ncl ? ui->ncl - 1 :
		    ui->ccur + delta;
}

static void
clusters_top(struct ui *ui)
{
	ui->ccur = 0;
}

static void
clusters_bottom(struct ui *ui)
{
	ui->ccur = ui->ncl > 0 ? ui->ncl - 1 : 0;
}

static int
clusters_height(const struct ui *ui)
{
	return ui->clusters_h;
}

const struct pane_ops	pane_clusters = {
	.ctx = UICTX_CLUSTERS,
	.draw = draw_clusters,
	.move_by = clusters_move,
	.top = clusters_top,
	.bottom = clusters_bottom,
	.height = clusters_height,
};
