/*
 * The ncurses shell: one thread (this one) owns the terminal.  It sleeps
 * in poll() on stdin, the message queue's wake pipe and a self-pipe fed by
 * signal handlers, applies what arrived to its models (jobtable, clusters,
 * log), and redraws once per wake-up with wnoutrefresh + doupdate.
 *
 * The terminal is restored on every way out: q, SIGTERM/SIGINT/SIGHUP
 * (self-pipe, then a normal return), exit() (atexit) and crashes (the
 * handler calls endwin, then re-raises with the previous handler).
 */
#include "ui.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "cli.h"
#include "ops.h"
#include "pending.h"
#include "record.h"
#include "slurm.h"
#include "state.h"
#include "ui-keys.h"
#include "ui-text.h"
#include "ui-wizard.h"
#include "ui-login.h"
#include "askq.h"
#include "conn.h"
#include "util.h"
#include "worker.h"

#define LOG_MAX_LINES	5000	/* older lines are dropped */
#define LOG_MAX_PARTIAL	8192	/* bytes of the line still being written */
#define MSG_SECONDS	10	/* footer messages fade after this */
#define ERR_SECONDS	30
#define UI_STOP_MS	1200	/* wait for the workers at exit at most */

enum pane {
	PANE_CLUSTERS,
	PANE_JOBS,
	PANE_LOG,
	NPANES
};

enum overlay {
	OV_NONE,
	OV_VIEW,	/* help or detail text */
	OV_DIALOG,	/* cancel confirmation */
	OV_FILTER,	/* typing a filter in the footer */
	OV_WIZARD,	/* submit wizard */
};

enum style {
	ST_NORMAL,
	ST_HEADER,
	ST_TITLE_FOCUS,
	ST_TITLE,
	ST_COLHEAD,
	ST_CURSOR,
	ST_RUNNING,
	ST_PENDING,
	ST_DONE,
	ST_FAILED,
	ST_CANCELLED,
	ST_OTHER,
	ST_HEALTH_OK,
	ST_HEALTH_WAIT,
	ST_HEALTH_BAD,
	ST_MSG_ERR,
	ST_MSG,
	ST_DIM,
	ST_DIALOG,
	ST_BUTTON,
	ST_COUNT
};

struct ucluster {
	char			*name;
	const struct cluster	*conf;		/* NULL if not in the config */
	enum cluster_health	 health;
	char			*message;
	char			*host;
	struct strv		 partitions;
	time_t			 last_ok;
	char			*said;		/* last error put in the footer */
	/* The polling budget, as the worker last said (budget.h). */
	unsigned		 calls;
	unsigned		 max_calls;
	time_t			 next_poll;	/* wall clock, 0: unknown */
	int			 backoff;
	char			*fault;
};

struct ulog {
	char		*cluster;	/* job shown; NULL: none */
	char		*id;
	char		*name;
	enum log_stream	 stream;
	struct strv	 lines;		/* sanitised, complete lines */
	struct buf	 partial;	/* raw bytes after the last \n */
	uint64_t	 next;		/* offset of the next byte expected */
	int		 missing;
	int		 done;
	int		 got;		/* any answer from the worker */
	char		*note;		/* why there is no log (worker) */
	int		 follow;
	int		 wrap;
	size_t		 top;		/* first line shown when not following */
	int		 hscroll;	/* columns hidden on the left (no wrap) */
	char		*search;	/* what / found last, NULL: none */
	size_t		 match;		/* its line, if has_match */
	int		 has_match;
	size_t		 search_from;	/* where the typed search started */
	int		 search_follow;	/* and whether it followed then */
};

struct ui {
	struct config			*cfg;
	struct msgq			*q;
	const struct ui_backend		*be;

	struct ucluster			*cl;
	size_t				 ncl;
	size_t				 acl;	/* allocated */
	size_t				*clhash; /* index + 1 by name, 0 free */
	size_t				 nclhash;
	size_t				 ccur;

	struct jobtable			*jt;
	/* Notifications (notify_init): what to send, and the jobs watched
	   for their end as "cluster\tid". */
	int				 notify;
	struct strv			 notify_ids;
	enum pane			 focus;
	enum overlay			 ov;
	struct ulog			 log;

	char				*view_title;
	struct strv			 view;
	size_t				 view_top;
	char				*detail_cluster; /* the job shown */
	char				*detail_id;

	struct jobtable_key		*dkeys;	/* pinned dialog targets */
	size_t				 ndkeys;
	int				 dbutton; /* 0: cancel them, 1: keep */

	struct buf			 input;	/* filter being typed */

	struct wizard			 wiz;
	struct wizard_cluster		*wcl;	/* what the wizard sees */
	char				*sel_cluster;	/* select when it shows */
	char				*sel_id;

	char				*msg;
	int				 msg_err;
	time_t				 msg_time;

	int				 color;
	int				 ascii;	/* not a UTF-8 locale */
	attr_t				 styles[ST_COUNT];
	int				 want[JT_NCOLS]; /* widest cells */
	unsigned			 want_version;	/* of the table */
	int				 want_ok;
	int				 jobs_h;	/* rows of the last draw */
	int				 log_h;
	int				 clusters_h;
	int				 view_h;
	size_t				 view_rows;	/* wrapped, last draw */
	int				 zoom;	/* the log pane fills the screen */
	int				 searching; /* the input is a log search */
	int				 pasting;	/* inside a bracketed paste */
	int				 paste_cut;	/* it had a control char */
};

/* ------------------------------------------------------------ signals */

static int			 sig_fds[2] = { -1, -1 };
static volatile sig_atomic_t	 curses_on;
static struct sigaction		 crash_old[32];
static const int		 crash_sigs[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT
};
static const int		 quit_sigs[] = { SIGTERM, SIGINT, SIGHUP };

static void
sig_to_pipe(int sig)
{
	int		saved = errno;
	unsigned char	b = (unsigned char)sig;

	/* Non-blocking: a full pipe already holds a wake-up. */
	(void)!write(sig_fds[1], &b, 1);
	errno = saved;
}

static void
sig_crash(int sig)
{
	/* Not async-signal-safe, but the process is dying: get the tty back. */
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
	sigaction(sig, &crash_old[sig], NULL);
	raise(sig);
}

/* Bracketed paste (xterm): a paste comes between these two keys. */
#define PASTE_ON	"\033[?2004h"
#define PASTE_OFF	"\033[?2004l"
#define KEY_PASTE_BEGIN	(KEY_MAX + 1)
#define KEY_PASTE_END	(KEY_MAX + 2)

static void
ui_restore(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
		/* write(2): this also runs from the crash handler. */
		if (write(STDOUT_FILENO, PASTE_OFF, sizeof PASTE_OFF - 1) < 0)
			return;
	}
}

static int
signals_setup(char **cause)
{
	struct sigaction	sa;
	size_t			i;
	int			fl, k;

	if (pipe(sig_fds) != 0)
		return cause_set(cause, "pipe: %s", strerror(errno));
	for (k = 0; k < 2; k++) {
		fl = fcntl(sig_fds[k], F_GETFL);
		fcntl(sig_fds[k], F_SETFL, fl | O_NONBLOCK);
		fcntl(sig_fds[k], F_SETFD, FD_CLOEXEC);
	}
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = sig_to_pipe;
	/* Before initscr: ncurses leaves handlers that are not SIG_DFL alone. */
	for (i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = sig_crash;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof crash_sigs / sizeof crash_sigs[0]; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[crash_sigs[i]]);
	return 0;
}

static void
signals_reset(void)
{
	struct sigaction	sa;
	size_t			i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	for (i = 0; i < sizeof crash_sigs / sizeof crash_sigs[0]; i++)
		sigaction(crash_sigs[i], &crash_old[crash_sigs[i]], NULL);
	close(sig_fds[0]);
	close(sig_fds[1]);
	sig_fds[0] = sig_fds[1] = -1;
}

/* ------------------------------------------------------------ helpers */

static void __attribute__((format(printf, 3, 4)))
ui_message(struct ui *ui, int err, const char *fmt, ...)
{
	va_list	 ap;
	char	*raw;

	va_start(ap, fmt);
	raw = xvasprintf(fmt, ap);
	va_end(ap);
	free(ui->msg);
	/* Messages quote the cluster: never draw its control characters. */
	ui->msg = uitext_sanitize(raw, strlen(raw), 0);
	free(raw);
	ui->msg_err = err;
	ui->msg_time = time(NULL);
}

static char *
san(const char *s)
{
	return s == NULL ? NULL : uitext_sanitize(s, strlen(s), 0);
}

static void
san_inplace(char **sp)
{
	char	*s = *sp;

	if (s != NULL) {
		*sp = san(s);
		free(s);
	}
}

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
static struct ucluster *
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
	ui->cl[ui->ncl].name = san(name);
	cluster_index(ui, ui->ncl);
	return &ui->cl[ui->ncl++];
}

static int
cluster_interval(const struct ucluster *c)
{
	return (c->conf != NULL && c->conf->poll_interval > 0) ?
	    c->conf->poll_interval : 5;
}

/*
 * Health as drawn: a cluster reported ok whose polls stopped coming (a
 * worker stuck in a read) is stale even before the worker says so.
 */
static enum cluster_health
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

static const char *
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
static const char *
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

static enum style
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

static enum style
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

/* A pending job held by its user or an admin (SLURM: JobHeld*). */
static int
row_held(const struct jobtable_row *r)
{
	return jobtable_state_class(r->state) == JC_PENDING &&
	    r->reason != NULL && strncmp(r->reason, "JobHeld", 7) == 0;
}

/* ------------------------------------------------------------ log model */

static void
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
static int
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

static int
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

/* ------------------------------------------------------------ messages */

static int
apply_cluster(struct ui *ui, struct msg_cluster *m)
{
	struct ucluster	*c;
	char		*message;
	size_t		 i;

	if (m->cluster == NULL)
		return 0;
	c = cluster_find(ui, m->cluster, 1);
	message = san(m->message);
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
		c->host = san(m->host);
	}
	if (m->partitions.n > 0) {
		strv_free(&c->partitions);
		for (i = 0; i < m->partitions.n; i++) {
			char	*p = san(m->partitions.v[i]);

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
	c->fault = m->fault != NULL ? san(m->fault) : NULL;
	return UIF_REDRAW;
}

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

static int
apply_jobs(struct ui *ui, struct msg_jobs *m)
{
	struct ucluster	*c;
	size_t		 i;

	if (m->cluster == NULL)
		return 0;
	/* Sanitise once here; drawing then trusts the table. */
	for (i = 0; i < m->nrows; i++) {
		san_inplace(&m->rows[i].id);
		san_inplace(&m->rows[i].name);
		san_inplace(&m->rows[i].partition);
		san_inplace(&m->rows[i].state);
		san_inplace(&m->rows[i].reason);
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
	}
	if (m->polled > c->last_ok)
		c->last_ok = m->polled;
	return UIF_REDRAW;
}

static void	wizard_sync(struct ui *);
static int	start_estimated(struct ui *, struct msg_action *);
static int	efficiency_got(struct ui *, struct msg_action *);
static int	wizard_soonest(struct ui *);

/* The staged spec of a finished job arrived: the wizard opens with it. */
static int
spec_fetched(struct ui *ui, struct msg_action *m)
{
	struct spec	 sp;
	char		*cause = NULL;
	const char	*text = m->message != NULL ? m->message : "";

	if (m->failed) {
		ui_message(ui, 1, "resubmit %s: %s", m->job_id ? m->job_id : "",
		    text);
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
	spec_free(&sp);
	ui->ov = OV_WIZARD;
	return UIF_REDRAW;
}

static int
apply_action(struct ui *ui, struct msg_action *m)
{
	const char	*cl = m->cluster != NULL ? m->cluster : "";
	const char	*step = m->step != NULL ? m->step : "";

	if (m->kind == ACTION_SUBMIT && wizard_action(&ui->wiz, m)) {
		if (m->done && !m->failed && m->job_id != NULL &&
		    m->cluster != NULL) {
			free(ui->sel_cluster);
			free(ui->sel_id);
			ui->sel_cluster = xstrdup(m->cluster);
			ui->sel_id = xstrdup(m->job_id);
		}
		if (ui->ov == OV_WIZARD)
			return UIF_REDRAW;	/* the wizard shows it */
	}
	if (m->step != NULL && strcmp(m->step, "spec") == 0 && m->done)
		return spec_fetched(ui, m);
	if (m->step != NULL && strcmp(m->step, "efficiency") == 0 && m->done)
		return efficiency_got(ui, m);
	if (m->step != NULL && strcmp(m->step, "start") == 0 && m->done)
		return start_estimated(ui, m);
	if (m->step != NULL && strcmp(m->step, "soonest") == 0 && m->done) {
		char	*t = san(m->message);

		wizard_soonest_got(&ui->wiz, t, m->failed);
		free(t);
		return UIF_REDRAW;
	}
	/* The worker says why a job has no log: the pane shows it. */
	if (m->step != NULL && strcmp(m->step, "log") == 0 &&
	    ui->log.cluster != NULL && m->cluster != NULL &&
	    m->job_id != NULL && strcmp(m->cluster, ui->log.cluster) == 0 &&
	    strcmp(m->job_id, ui->log.id) == 0) {
		free(ui->log.note);
		ui->log.note = san(m->message);
		return UIF_REDRAW;
	}
	if (m->done && !m->failed && m->kind == ACTION_CANCEL &&
	    m->cluster != NULL && m->job_id != NULL)
		jobtable_set_state(ui->jt, m->cluster, m->job_id, "CANCELLED");
	ui_message(ui, m->done && m->failed, "%s%s%s%s%s%s%s", cl,
	    m->job_id ? " " : "", m->job_id ? m->job_id : "",
	    *cl || m->job_id ? ": " : "", step, *step ? ": " : "",
	    m->message != NULL ? m->message : (m->done ? "done" : "..."));
	return UIF_REDRAW;
}

static int
apply_messages(struct ui *ui)
{
	struct msg	*list, *m;
	int		 flags = 0;

	list = msgq_take_all(ui->q);
	for (m = list; m != NULL; m = m->next) {
		switch (m->type) {
		case MSG_CLUSTER:
			flags |= apply_cluster(ui, &m->u.cluster);
			break;
		case MSG_JOBS:
			flags |= apply_jobs(ui, &m->u.jobs);
			break;
		case MSG_LOG:
			flags |= log_apply(ui, &m->u.log);
			break;
		case MSG_ACTION:
			flags |= apply_action(ui, &m->u.action);
			break;
		}
	}
	msg_free_list(list);	/* the receiver frees */
	return flags;
}

/* ------------------------------------------------------------ drawing */

static void
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
static void
put(struct ui *ui, int y, int x, int w, const char *s, enum style st,
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

static void
put_attr(struct ui *ui, int y, int x, int w, const char *s, attr_t a)
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
	put(ui, 0, 0, COLS, " sqdeck", ST_HEADER, 0);
	cw = (int)strlen(clock) + 1;
	put(ui, 0, COLS - cw, cw, clock, ST_HEADER, 0);
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
			put(ui, 0, x, (int)strlen(seg), seg, ST_HEADER, 0);
			break;
		}
		put(ui, 0, x + 1, w, seg, health_style(h), 0);
		x += 1 + w;
	}
}

static void
draw_title(struct ui *ui, int y, enum pane p, const char *text)
{
	put(ui, y, 0, COLS, text, ui->focus == p ? ST_TITLE_FOCUS : ST_TITLE,
	    0);
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
		put(ui, y + 1, 1, COLS - 1, "no cluster configured: set "
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

		put(ui, y + row, 0, COLS, "", base, 0);
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
		put(ui, y + row, x, wn, c->name, base, 0);
		x += wn + 1;
		if (wh > 0) {
			const char	*host = c->host;

			if (host == NULL && c->conf != NULL &&
			    c->conf->hosts.n > 0)
				host = c->conf->hosts.v[0];
			put(ui, y + row, x, wh, host ? host : "-",
			    base, 0);
			x += wh + 1;
		}
		put(ui, y + row, x, wj, jobs, base, 0);
		x += wj + 1;
		put(ui, y + row, x, ws, status,
		    base == ST_CURSOR ? base : health_style(hl) == ST_HEALTH_OK ?
		    ST_RUNNING : health_style(hl) == ST_HEALTH_WAIT ?
		    ST_PENDING : ST_FAILED, 0);
		x += ws + 1;
		/* An unreachable cluster's reason gets the meter's room. */
		if (wm > 0 && hl != CLUSTER_ERROR) {
			put(ui, y + row, x, wm, meter_text(c, now, meter,
			    sizeof meter), c->backoff > 0 && base != ST_CURSOR ?
			    ST_PENDING : base, 0);
			x += wm + 1;
			put(ui, y + row, x, wp, parts, base, 0);
		} else
			put(ui, y + row, x, wp + (wm > 0 ? wm + 1 : 0), parts,
			    base, 0);
		free(parts);
	}
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

static void
draw_jobs(struct ui *ui, int y, int h)
{
	const struct jobtable_row	*r;
	char				 title[512], cell[64], fbuf[64];
	const char			*filter = jobtable_filter(ui->jt);
	int				 want[JT_NCOLS], w[JT_NCOLS];
	int				 rev, i, x, row, lines;
	enum jobtable_col		 sc = jobtable_sort_col(ui->jt, &rev);
	size_t				 n = jobtable_nvisible(ui->jt), k, top;
	size_t				 nm = jobtable_nmarked(ui->jt);

	fbuf[0] = '\0';
	if (filter != NULL)
		snprintf(fbuf, sizeof fbuf, "  filter: %s", filter);
	/* One marker for the sort, in the title and on the column. */
	snprintf(title, sizeof title, " 2 Jobs  %zu of %zu  sort: %s%s%s%s%s",
	    n, jobtable_total(ui->jt), jobtable_col_title(sc),
	    sort_mark(ui, rev),
	    jobtable_show_finished(ui->jt) ? "" : "  finished hidden",
	    fbuf, nm ? "  marked: " : "");
	if (nm) {
		snprintf(cell, sizeof cell, "%zu", nm);
		strncat(title, cell, sizeof title - strlen(title) - 1);
	}
	draw_title(ui, y, PANE_JOBS, title);
	lines = h - 2;
	ui->jobs_h = lines > 0 ? lines : 1;
	if (h < 2)
		return;

	/*
	 * Widths from the widest cell of each column (visible rows), measured
	 * again only when the rows changed: a key that moves the cursor over
	 * 10 000 rows must not measure 80 000 cells.
	 */
	if (!ui->want_ok || ui->want_version != jobtable_version(ui->jt)) {
		for (i = 0; i < JT_NCOLS; i++)
			ui->want[i] = uitext_width(jobtable_col_title(i));
		for (k = 0; k < n; k++) {
			r = jobtable_visible(ui->jt, k);
			for (i = 0; i < JT_NCOLS; i++) {
				int	cw = uitext_width(jobtable_cell(r, i,
					    cell, sizeof cell));

				if (cw > ui->want[i])
					ui->want[i] = cw;
			}
		}
		ui->want_version = jobtable_version(ui->jt);
		ui->want_ok = 1;
	}
	memcpy(want, ui->want, sizeof want);
	want[sc]++;	/* the sort mark */
	uitext_jobs_layout(COLS - 1, want, w);

	put(ui, y + 1, 0, COLS, "", ST_COLHEAD, 0);
	for (i = 0, x = 1; i < JT_NCOLS; i++) {
		if (w[i] == 0)
			continue;
		snprintf(cell, sizeof cell, "%s%s", jobtable_col_title(i),
		    (enum jobtable_col)i == sc ? sort_mark(ui, rev) : "");
		put(ui, y + 1, x, w[i], cell, ST_COLHEAD,
		    i == JT_NODES ? UITEXT_RIGHT : 0);
		x += w[i] + 1;
	}
	if (lines <= 0)
		return;
	if (n == 0) {
		char	*why = empty_text(ui);

		put(ui, y + 2, 2, COLS - 2, why, ST_DIM, 0);
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
		put(ui, y + 2 + row, 0, COLS, "", base, 0);
		if (cur && ui->focus != PANE_JOBS)
			put(ui, y + 2 + row, 0, 1, ">", ST_TITLE, 0);
		if (jobtable_marked(ui->jt, k))
			put(ui, y + 2 + row, 0, 1, "*", base == ST_CURSOR ?
			    base : ST_FAILED, 0);
		for (i = 0, x = 1; i < JT_NCOLS; i++) {
			enum style	st = base;

			if (w[i] == 0)
				continue;
			if (i == JT_STATE && base != ST_CURSOR)
				st = state_style(r);
			put(ui, y + 2 + row, x, w[i], i == JT_STATE &&
			    row_held(r) ? "HELD" :
			    jobtable_cell(r, i, cell, sizeof cell), st,
			    i == JT_NODES ? UITEXT_RIGHT : 0);
			x += w[i] + 1;
		}
	}
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
		put_attr(ui, y, x, w < cols - x ? w : cols - x, hit,
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
			put(ui, y, 0, cols, s, ST_NORMAL, 0);
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
			put(ui, y, 0, cols, seg, ST_NORMAL, 0);
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
	put(ui, y, 0, COLS, title, st, 0);
	if (pw > 0)
		put(ui, y, COLS - pw, pw, pos, st, 0);
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
draw_log(struct ui *ui, int y, int h)
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
		put(ui, y + 1, 2, COLS - 2, why, ST_DIM, 0);
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
		put(ui, yy, 0, COLS, "-- end of log: the job has ended --",
		    ST_DIM, 0);
#undef LINE
	free(partial);
}

static enum uictx
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
	case OV_NONE:
		break;
	}
	switch (ui->focus) {
	case PANE_CLUSTERS:
		return UICTX_CLUSTERS;
	case PANE_LOG:
		return UICTX_LOG;
	default:
		return UICTX_JOBS;
	}
}

static void
draw_footer(struct ui *ui, time_t now)
{
	int	 y = LINES - 1, age = (int)(now - ui->msg_time);
	char	*hints, *line;

	if (ui->ov == OV_FILTER) {
		int	lw;

		line = xasprintf("%s/%s", ui->searching ? "search the log: " :
		    "", ui->input.data ? ui->input.data : "");
		put(ui, y, 0, COLS, line, ST_NORMAL, 0);
		lw = uitext_width(line);
		if (lw < COLS)
			put(ui, y, lw, 1, " ", ST_CURSOR, 0);
		/* A regex that does not compile (yet) is said beside it. */
		if (ui->msg != NULL && ui->msg_err && age < ERR_SECONDS &&
		    lw + 3 < COLS)
			put(ui, y, lw + 3, COLS - lw - 3, ui->msg, ST_MSG_ERR, 0);
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
		put(ui, y, 0, COLS - rw - 1, "", ST_NORMAL, 0);
		put(ui, y, 0, hints == NULL ? uitext_width(line) : COLS - rw - 1,
		    line, hints != NULL ? ST_DIM : ui->msg_err ? ST_MSG_ERR :
		    ST_MSG, 0);
		put(ui, y, COLS - rw, rw, right, ST_TITLE, 0);
	} else
		put(ui, y, 0, COLS, line, hints != NULL ? ST_DIM :
		    ui->msg_err ? ST_MSG_ERR : ST_MSG, 0);
	free(hints);
	free(line);
}

/* A centred box with a frame; returns its inner geometry. */
static void
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
		put(ui, y + i, x, w, "", ST_DIALOG, 0);
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
		put_attr(ui, y, x + 2, tw, t, a | A_BOLD);
		free(t);
	}
	*py = y + 1;
	*px = x + 2;
}

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

static void
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
		put_attr(ui, y + i, x, w - 4, rows.v[k],
		    ui->styles[ST_DIALOG]);
	put_attr(ui, y + inner, x, w - 4,
	    rows.n > (size_t)inner ? "j/k PgUp/PgDn scroll, q or Esc "
	    "closes" : "q or Esc closes", ui->styles[ST_DIALOG] | A_DIM);
	strv_free(&rows);
}

static void
draw_dialog(struct ui *ui)
{
	int		 h, w = 64, y, x, i, shown;
	char		*line;
	const char	*yes = ui->ndkeys == 1 ? "[ Cancel job ]" :
			    "[ Cancel jobs ]", *no = "[ Keep ]";

	shown = ui->ndkeys > 6 ? 6 : (int)ui->ndkeys;
	h = 6 + shown + (ui->ndkeys > 6);
	draw_box(ui, h, w, ui->ndkeys == 1 ? "Cancel this job?" :
	    "Cancel these jobs?", &y, &x);
	if (w > COLS)
		w = COLS;
	for (i = 0; i < shown; i++) {
		line = xasprintf("%s  job %s  %s", ui->dkeys[i].cluster,
		    ui->dkeys[i].id, ui->dkeys[i].name);
		put_attr(ui, y + 1 + i, x, w - 4, line,
		    ui->styles[ST_DIALOG] | A_BOLD);
		free(line);
	}
	if (ui->ndkeys > 6) {
		line = xasprintf("... and %zu more", ui->ndkeys - 6);
		put_attr(ui, y + 1 + shown, x, w - 4, line,
		    ui->styles[ST_DIALOG]);
		free(line);
	}
	i = y + h - 3;
	put_attr(ui, i, x + 8, (int)strlen(yes), yes, ui->dbutton == 0 ?
	    ui->styles[ST_BUTTON] | A_REVERSE : ui->styles[ST_DIALOG]);
	put_attr(ui, i, x + 8 + 18, (int)strlen(no), no, ui->dbutton == 1 ?
	    ui->styles[ST_BUTTON] | A_REVERSE : ui->styles[ST_DIALOG]);
	put_attr(ui, i, x + 8 + 28, 20, "y yes  n/Esc no",
	    ui->styles[ST_DIALOG] | A_DIM);
}

/* The end of s that fits in cols columns (what is being typed). */
static const char *
tail_fit(const char *s, int cols)
{
	while (*s != '\0' && uitext_width(s) > cols) {
		s++;
		while (((unsigned char)*s & 0xc0) == 0x80)
			s++;
	}
	return s;
}

/* Put a long message over up to n lines of width w; returns lines used. */
static int
put_wrapped(struct ui *ui, int y, int x, int w, int n, const char *s,
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
		put_attr(ui, y + used, x, w, part, a);
		free(part);
		s += len;
		used++;
	}
	return used;
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
	const char	*start = v + (tail_fit(pre, w - 2) - pre);
	size_t		 n = 1;
	int		 cx;

	put_attr(ui, y, x, w, start, ui->styles[ST_CURSOR]);
	shown = xstrndup(start, (size_t)(v + at - start));
	cx = uitext_width(shown);
	while (((unsigned char)v[at + n] & 0xc0) == 0x80)
		n++;
	ch = xstrndup(v + at, n);
	if (cx < w)
		put_attr(ui, y, x + cx, uitext_width(ch) > 1 ?
		    uitext_width(ch) : 1, ch, (ui->styles[ST_CURSOR] ^
		    A_REVERSE) | A_UNDERLINE);
	free(ch);
	free(shown);
	free(pre);
}

static void
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
			row += put_wrapped(ui, row, x, iw, 3, wz->banner,
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

			put_attr(ui, row, x, lw, wizard_label(i),
			    dl | (cur ? A_BOLD : 0));
			if (cur && wizard_cursor(wz) < strlen(v))
				draw_wizard_cursor(ui, row, x + lw, vw - 1, v,
				    wizard_cursor(wz));
			else {
				line = xasprintf("%s%s", tail_fit(v, vw - 2),
				    cur ? "_" : "");
				put_attr(ui, row, x + lw, vw - 1, line, cur ?
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
			put_attr(ui, row, x + lw + vw, nw, line,
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
			put_wrapped(ui, row, x, iw, y + h - 3 - row,
			    wz->error[wz->field], ui->styles[ST_MSG_ERR]);
		else if (i < WF_COUNT) {
			line = xasprintf("%s: %s", wizard_label(i),
			    wz->error[i]);
			put_wrapped(ui, row, x, iw, y + h - 3 - row, line,
			    ui->styles[ST_MSG_ERR]);
			free(line);
		} else {
			line = wizard_hint(wz, wz->field);
			put_wrapped(ui, row, x, iw, y + h - 4 - row, line,
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
			put_attr(ui, y + h - 4, x, iw, wz->soonest,
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
				put_attr(ui, row++, x, iw, line, dl | A_BOLD);
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

			put_attr(ui, row++, x, iw, t, dl);
			free(t);
		}
		if (wz->page == WIZ_PROGRESS && !wz->waiting && wz->finished) {
			line = xasprintf("submitted: SLURM job %s on %s",
			    wz->job_id ? wz->job_id : "?",
			    wz->job_cluster ? wz->job_cluster : "?");
			put_attr(ui, row, x, iw, line, ui->styles[ST_MSG]);
			free(line);
		}
	}
	put_attr(ui, y + h - 3, x, iw, keys, dl | A_DIM);
}

/* The first screen row under the clusters' lines. */
static int
clusters_end_y(struct ui *ui)
{
	size_t	h = ui->clusters_h > 0 ? (size_t)ui->clusters_h : 0;

	return 2 + (int)(ui->ncl < h ? ui->ncl : h);
}

static void
draw(struct ui *ui)
{
	time_t	now = time(NULL);
	int	avail, ch, jh, lh, y;

	erase();
	draw_header(ui, now);
	avail = LINES - 2;
	/* Clusters: one line each, at most a quarter of the screen. */
	ch = 1 + (ui->ncl > 0 ? (int)ui->ncl : 1);
	if (ch > 1 + avail / 4)
		ch = 1 + (avail / 4 > 0 ? avail / 4 : 0);
	if (avail - ch < 6)
		ch = avail >= 7 ? 1 : 0;
	jh = (avail - ch) * 55 / 100;
	if (jh < 3)
		jh = avail - ch;
	lh = avail - ch - jh;
	/* z: the log alone between the header and the footer. */
	if (ui->zoom) {
		ch = jh = 0;
		lh = avail;
	}
	y = 1;
	if (ch > 0)
		draw_clusters(ui, y, ch, now);
	y += ch;
	if (jh > 0)
		draw_jobs(ui, y, jh);
	y += jh;
	if (lh > 0)
		draw_log(ui, y, lh);
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

/* ------------------------------------------------------------ actions */

static void	detail_forget(struct ui *);

static void
view_open(struct ui *ui, const char *title, char *text)
{
	detail_forget(ui);
	strv_free(&ui->view);
	free(ui->view_title);
	ui->view_title = xstrdup(title);
	/* Split keeping empty lines (strv_split drops them). */
	for (char *p = text, *nl; p != NULL && *p != '\0'; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		strv_add(&ui->view, p);
	}
	free(text);
	ui->view_top = 0;
	ui->ov = OV_VIEW;
}

static int
act_quit(struct ui *ui)
{
	(void)ui;
	return UIF_QUIT;
}

static int
act_help(struct ui *ui)
{
	char	*keys = uikeys_help();

	/* What no key says: the view is kept, a paste is text. */
	view_open(ui, "Keys", xasprintf("The view (sort s/S, finished a, "
	    "filter /, log o and w) is remembered across restarts in\n"
	    "$XDG_STATE_HOME/sqdeck/view.  A paste into a field is text "
	    "(cut at a line break).\nIn the log pane / searches the log "
	    "(n/N next/previous), h/l scroll sideways, z zooms.\n\n%s",
	    keys));
	free(keys);
	return UIF_REDRAW;
}

static int
act_redraw(struct ui *ui)
{
	(void)ui;
	return UIF_REDRAW | UIF_CLEAR;
}

static int
act_focus_next(struct ui *ui)
{
	ui->zoom = 0;
	ui->focus = (ui->focus + 1) % NPANES;
	return UIF_REDRAW;
}

static int
act_focus_prev(struct ui *ui)
{
	ui->zoom = 0;
	ui->focus = (ui->focus + NPANES - 1) % NPANES;
	return UIF_REDRAW;
}

static int
act_focus_clusters(struct ui *ui)
{
	ui->zoom = 0;	/* the pane is to be seen */
	ui->focus = PANE_CLUSTERS;
	return UIF_REDRAW;
}

static int
act_focus_jobs(struct ui *ui)
{
	ui->zoom = 0;	/* the pane is to be seen */
	ui->focus = PANE_JOBS;
	return UIF_REDRAW;
}

static int
act_focus_log(struct ui *ui)
{
	ui->focus = PANE_LOG;
	return UIF_REDRAW;
}

/* Move in whatever has the focus; SSIZE_MAX-ish deltas mean the ends. */
static int
move_by(struct ui *ui, long delta)
{
	struct ulog	*l = &ui->log;
	size_t		 n;

	if (ui->ov == OV_VIEW) {
		if (delta < 0)
			ui->view_top = (size_t)-delta > ui->view_top ? 0 :
			    ui->view_top + delta;
		else
			ui->view_top = ui->view_top + delta > ui->view_rows ?
			    ui->view_rows : ui->view_top + delta;
		return UIF_REDRAW;
	}
	switch (ui->focus) {
	case PANE_CLUSTERS:
		if (ui->ncl == 0)
			break;
		if (delta < 0)
			ui->ccur = (size_t)-delta > ui->ccur ? 0 :
			    ui->ccur + delta;
		else
			ui->ccur = ui->ccur + delta >= ui->ncl ? ui->ncl - 1 :
			    ui->ccur + delta;
		break;
	case PANE_JOBS:
		jobtable_move(ui->jt, delta);
		break;
	case PANE_LOG:
		n = l->lines.n + (l->partial.len > 0);
		if (delta > 0 && l->follow)
			break;
		if (l->follow) {
			l->follow = 0;	/* scrolling up stops following */
		}
		if (delta < 0)
			l->top = (size_t)-delta > l->top ? 0 : l->top + delta;
		else if (l->top + delta + (size_t)ui->log_h >= n) {
			l->follow = 1;	/* back at the end */
		} else
			l->top += delta;
		break;
	case NPANES:
		break;
	}
	return UIF_REDRAW;
}

static long
page(struct ui *ui)
{
	int	h;

	if (ui->ov == OV_VIEW)
		h = ui->view_h;
	else if (ui->focus == PANE_LOG)
		h = ui->log_h;
	else if (ui->focus == PANE_CLUSTERS)
		h = ui->clusters_h;
	else
		h = ui->jobs_h;
	return h > 1 ? h - 1 : 1;
}

static int
act_down(struct ui *ui)
{
	return move_by(ui, 1);
}

static int
act_up(struct ui *ui)
{
	return move_by(ui, -1);
}

static int
act_page_down(struct ui *ui)
{
	return move_by(ui, page(ui));
}

static int
act_page_up(struct ui *ui)
{
	return move_by(ui, -page(ui));
}

static int
act_top(struct ui *ui)
{
	if (ui->ov == OV_VIEW)
		ui->view_top = 0;
	else if (ui->focus == PANE_JOBS)
		jobtable_move_to(ui->jt, 0);
	else if (ui->focus == PANE_CLUSTERS)
		ui->ccur = 0;
	else {
		ui->log.follow = 0;
		ui->log.top = 0;
	}
	return UIF_REDRAW;
}

static int
act_bottom(struct ui *ui)
{
	if (ui->ov == OV_VIEW)
		ui->view_top = SIZE_MAX / 2;	/* clamped when drawn */
	else if (ui->focus == PANE_JOBS)
		jobtable_move_to(ui->jt, SIZE_MAX);
	else if (ui->focus == PANE_CLUSTERS)
		ui->ccur = ui->ncl > 0 ? ui->ncl - 1 : 0;
	else
		ui->log.follow = 1;
	return UIF_REDRAW;
}

static int
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
static void
log_show_match(struct ui *ui, size_t i)
{
	struct ulog	*l = &ui->log;

	l->match = i;
	l->has_match = 1;
	l->follow = 0;
	l->top = i > 0 ? i - 1 : 0;
}

/* Search from line from in dir; say where it landed. */
static int
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

static int
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

static int
act_search_next(struct ui *ui)
{
	return act_search_step(ui, 1);
}

static int
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

static int
act_scroll_left(struct ui *ui)
{
	return act_scroll(ui, -1);
}

static int
act_scroll_right(struct ui *ui)
{
	return act_scroll(ui, 1);
}

static int
act_zoom(struct ui *ui)
{
	ui->zoom = !ui->zoom;
	if (ui->zoom)
		ui->focus = PANE_LOG;
	return UIF_REDRAW;
}

static int
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

static int
act_sort(struct ui *ui)
{
	enum jobtable_col	c = jobtable_sort_cycle(ui->jt);

	ui_message(ui, 0, "sorted by %s", jobtable_col_title(c));
	return UIF_REDRAW;
}

static int
act_sort_reverse(struct ui *ui)
{
	int			rev;
	enum jobtable_col	c = jobtable_sort_col(ui->jt, &rev);

	jobtable_set_sort(ui->jt, c, !rev);
	ui_message(ui, 0, "sorted by %s, %s", jobtable_col_title(c),
	    rev ? "ascending" : "descending");
	return UIF_REDRAW;
}

static int
act_toggle_finished(struct ui *ui)
{
	int	show = !jobtable_show_finished(ui->jt);

	jobtable_set_show_finished(ui->jt, show);
	ui_message(ui, 0, "finished jobs %s", show ? "shown" : "hidden");
	return UIF_REDRAW;
}

/* The local record of a job (matched by cluster and any of its SLURM ids). */
static const struct record *
detail_find_record(const struct record_list *list,
    const struct jobtable_row *r)
{
	size_t	i, k;

	for (i = 0; i < list->n; i++) {
		if (list->v[i]->cluster == NULL ||
		    strcmp(list->v[i]->cluster, r->cluster) != 0)
			continue;
		for (k = 0; k < list->v[i]->slurm_ids.n; k++) {
			if (strcmp(list->v[i]->slurm_ids.v[k], r->id) == 0)
				return list->v[i];
		}
	}
	return NULL;
}

/* "label       value", the value sanitised (it comes from a file). */
static void
detail_field(struct buf *b, const char *label, const char *v)
{
	char	*t;

	if (v == NULL || *v == '\0')
		return;
	t = san(v);
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
		t = san(line);
		buf_printf(b, "%-12s%s\n", first ? "command" : "", t);
		free(t);
		first = 0;
	}
	free(copy);
}

static void
detail_record(struct buf *b, const struct record *rec)
{
	size_t	i;
	char	*t;

	if (rec == NULL) {
		buf_adds(b, "\nNo local record: not submitted from this "
		    "machine.\n");
		return;
	}
	buf_adds(b, "\nRecord\n");
	detail_field(b, "id", rec->id);
	detail_field(b, "state", state_word(rec->state));
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
		st = san(t);
		buf_printf(b, "  %s\n", st);
		free(st);
		free(t);
	}
}

/*
 * A job's detail: how it ended (exit code, run time), what it asked for
 * and (ended, from sacct: efficiency_got) what it used, the command, and
 * the triage rule with its evidence; then the record and its history.
 */
static char *
detail_job(struct ui *ui, const struct jobtable_row *r)
{
	struct buf		 b, ask;
	struct pending_why	 why;
	struct record_list	 list;
	const struct record	*rec = NULL;
	char			 e[32], l[32], *cause = NULL;
	int			 nodes;

	memset(&list, 0, sizeof list);
	buf_init(&b);
	if (record_list(&list, &cause) != 0) {
		buf_printf(&b, "records: %s\n\n", cause);
		free(cause);
	} else
		rec = detail_find_record(&list, r);
	jobtable_fmt_duration(r->elapsed, e, sizeof e);
	jobtable_fmt_duration(r->limit, l, sizeof l);
	buf_printf(&b, "cluster     %s\n", r->cluster);
	buf_printf(&b, "job id      %s\n", r->id);
	buf_printf(&b, "name        %s\n", r->name);
	buf_printf(&b, "partition   %s\n", r->partition);
	buf_printf(&b, "state       %s%s\n", r->state,
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
		buf_printf(&b, "%-12s%s\n", "what to do", why.fix);
	}
	detail_record(&b, rec);
	record_list_free(&list);
	return buf_steal(&b);
}

static char *
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

static int
act_detail(struct ui *ui)
{
	const struct jobtable_row	*r;
	char				*t;

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
	view_open(ui, t, detail_job(ui, r));
	free(t);
	ui->detail_cluster = xstrdup(r->cluster);
	ui->detail_id = xstrdup(r->id);
	/* An ended job: how it used what it asked for (one sacct). */
	if (r->finished && ui->be != NULL && ui->be->efficiency != NULL) {
		char	*cause = NULL;

		if (ui->be->efficiency(ui->be->arg, r->cluster, r->id,
		    &cause) != 0)
			free(cause);	/* an array task: not asked */
	}
	return UIF_REDRAW;
}

/* t in a job's detail: squeue --start for it, in its cluster's worker. */
static int
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

/* The estimate came: into the detail view if it still shows that job. */
static int
start_estimated(struct ui *ui, struct msg_action *m)
{
	char	*t, *line;
	size_t	 k;

	t = san(m->message != NULL ? m->message : "");
	if (ui->ov == OV_VIEW && ui->detail_id != NULL &&
	    m->cluster != NULL && m->job_id != NULL &&
	    strcmp(m->cluster, ui->detail_cluster) == 0 &&
	    strcmp(m->job_id, ui->detail_id) == 0) {
		line = xasprintf("%-12s%s%s", "start", m->failed ?
		    "cannot ask: " : "", t);
		/* Just below the job's fields, above the record. */
		for (k = 0; k < ui->view.n && *ui->view.v[k] != '\0'; k++)
			/* nothing */;
		strv_add(&ui->view, "");
		free(ui->view.v[ui->view.n - 1]);
		memmove(ui->view.v + k + 1, ui->view.v + k,
		    (ui->view.n - 1 - k) * sizeof *ui->view.v);
		ui->view.v[k] = line;
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
static int
efficiency_got(struct ui *ui, struct msg_action *m)
{
	char	*copy, *p, *nl, *tab, *label, *text;
	size_t	 k, at;

	if (ui->ov != OV_VIEW || ui->detail_id == NULL || m->cluster == NULL ||
	    m->job_id == NULL || strcmp(m->cluster, ui->detail_cluster) != 0 ||
	    strcmp(m->job_id, ui->detail_id) != 0)
		return 0;	/* closed meanwhile: nothing to say */
	if (m->failed)
		return 0;	/* e.g. sacct does not know it (yet) */
	copy = xstrdup(m->message != NULL ? m->message : "");
	for (p = copy; p != NULL && *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if ((tab = strchr(p, '\t')) == NULL)
			continue;
		*tab++ = '\0';
		label = san(p);
		text = san(tab);
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
	return UIF_REDRAW;
}

static void
dialog_free(struct ui *ui)
{
	size_t	i;

	for (i = 0; i < ui->ndkeys; i++)
		jobtable_key_clear(&ui->dkeys[i]);
	free(ui->dkeys);
	ui->dkeys = NULL;
	ui->ndkeys = 0;
}

static int
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
	ui->ov = OV_DIALOG;
	return UIF_REDRAW;
}

static int
act_mark(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	int				 on;

	/* Marks are for a batch cancel: a finished job has nothing to stop. */
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

static int
act_array_open(struct ui *ui)
{
	return array_open(ui, 1);
}

static int
act_array_close(struct ui *ui)
{
	return array_open(ui, 0);
}

/* The wizard sees the clusters as the panes do (pointers refreshed). */
static void
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

static int
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

static int
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

/* H and U: scontrol hold or release the selected job. */
static int
act_hold_release(struct ui *ui, int release)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	const char			*verb = release ? "release" : "hold";
	char				*cause = NULL;

	if (r == NULL)
		ui_message(ui, 1, "no job selected to %s", verb);
	else if (r->finished)
		ui_message(ui, 1, "%s %s has ended (%s): nothing to %s", r->cluster,
		    r->id, r->state, verb);
	else if (!release && jobtable_state_class(r->state) != JC_PENDING)
		ui_message(ui, 1, "%s %s is %s: SLURM holds only pending jobs",
		    r->cluster, r->id, r->state);
	else if (release && !row_held(r))
		ui_message(ui, 1, "%s %s is not held (%s%s%s): nothing to "
		    "release", r->cluster, r->id, r->state, r->reason != NULL &&
		    *r->reason != '\0' ? ", " : "", r->reason != NULL ?
		    r->reason : "");
	else if (ui->be == NULL || ui->be->hold == NULL)
		ui_message(ui, 1, "%s: not connected (no worker)", verb);
	else if (ui->be->hold(ui->be->arg, r->cluster, r->id, release,
	    &cause) != 0) {
		ui_message(ui, 1, "%s %s: %s", verb, r->id, cause);
		free(cause);
	} else
		ui_message(ui, 0, "%s %s %s\xe2\x80\xa6", release ? "releasing" :
		    "holding", r->cluster, r->id);
	return UIF_REDRAW;
}

static int
act_hold(struct ui *ui)
{
	return act_hold_release(ui, 0);
}

static int
act_release(struct ui *ui)
{
	return act_hold_release(ui, 1);
}

static int
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

static int
act_wrap(struct ui *ui)
{
	ui->log.wrap = !ui->log.wrap;
	ui->log.hscroll = 0;
	return UIF_REDRAW;
}

static int
act_follow(struct ui *ui)
{
	ui->log.follow = !ui->log.follow;
	if (!ui->log.follow) {
		size_t	n = ui->log.lines.n;

		ui->log.top = n > (size_t)ui->log_h ? n - ui->log_h : 0;
	}
	return UIF_REDRAW;
}

static int
act_refresh(struct ui *ui)
{
	const char	*cl = NULL;

	if (ui->focus == PANE_CLUSTERS && ui->ncl > 0)
		cl = ui->cl[ui->ccur].name;
	if (ui->be == NULL || ui->be->poll_now == NULL) {
		ui_message(ui, 1, "refresh: not connected (no worker)");
		return UIF_REDRAW;
	}
	ui->be->poll_now(ui->be->arg, cl);
	ui_message(ui, 0, "refreshing %s\xe2\x80\xa6", cl ? cl : "every cluster");
	return UIF_REDRAW;
}

static void
detail_forget(struct ui *ui)
{
	free(ui->detail_cluster);
	free(ui->detail_id);
	ui->detail_cluster = ui->detail_id = NULL;
}

static int
act_close(struct ui *ui)
{
	ui->ov = OV_NONE;
	strv_free(&ui->view);
	detail_forget(ui);
	return UIF_REDRAW;
}

static int
act_yes(struct ui *ui)
{
	char	*cause = NULL;

	ui->ov = OV_NONE;
	if (ui->be == NULL || ui->be->cancel == NULL) {
		ui_message(ui, 1, "cancel %s%s on %s: not connected (no worker)",
		    ui->dkeys[0].id, ui->ndkeys > 1 ? " and others" : "",
		    ui->dkeys[0].cluster);
	} else if (ui->be->cancel(ui->be->arg, ui->dkeys, ui->ndkeys,
	    &cause) != 0) {
		ui_message(ui, 1, "cancel: %s", cause);
		free(cause);
	} else {
		if (ui->ndkeys == 1)
			ui_message(ui, 0, "cancelling %s %s (%s)\xe2\x80\xa6",
			    ui->dkeys[0].cluster, ui->dkeys[0].id,
			    ui->dkeys[0].name);
		else
			ui_message(ui, 0, "cancelling %zu jobs\xe2\x80\xa6",
			    ui->ndkeys);
		jobtable_clear_marks(ui->jt);
	}
	dialog_free(ui);
	return UIF_REDRAW;
}

static int
act_no(struct ui *ui)
{
	ui->ov = OV_NONE;
	dialog_free(ui);
	ui_message(ui, 0, "nothing cancelled");
	return UIF_REDRAW;
}

static int
act_button_next(struct ui *ui)
{
	ui->dbutton = !ui->dbutton;
	return UIF_REDRAW;
}

static int
act_activate(struct ui *ui)
{
	return ui->dbutton == 0 ? act_yes(ui) : act_no(ui);
}

/* Apply the filter as typed; a half-typed regex keeps the old one. */
static void
filter_live(struct ui *ui)
{
	char	*cause = NULL;

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

static int
act_input_accept(struct ui *ui)
{
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

static int
act_input_clear(struct ui *ui)
{
	/* From the jobs pane, Esc clears an applied filter; else nothing. */
	if (ui->ov == OV_NONE && jobtable_filter(ui->jt) == NULL)
		return 0;
	if (ui->searching) {
		/* Esc while typing a log search: no search, back where it was. */
		ui->searching = 0;
		ui->ov = OV_NONE;
		buf_free(&ui->input);
		ui->log.has_match = 0;
		ui->log.top = ui->log.search_from;
		ui->log.follow = ui->log.search_follow;
		return UIF_REDRAW;
	}
	jobtable_set_filter(ui->jt, NULL, NULL);
	buf_free(&ui->input);
	ui->ov = OV_NONE;
	return UIF_REDRAW;
}

static int
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

static int
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

/* What the wizard asks for after a key. */
static int
wizard_request(struct ui *ui, enum wizard_req r)
{
	struct spec	 sp;
	char		*cause = NULL;
	int		 submit = r == WREQ_SUBMIT;

	switch (r) {
	case WREQ_NONE:
		return 0;
	case WREQ_REDRAW:
		return UIF_REDRAW;
	case WREQ_CLOSE:
		ui->ov = OV_NONE;
		return UIF_REDRAW;
	case WREQ_PREVIEW:
	case WREQ_SUBMIT:
		break;
	}
	if (wizard_build(&ui->wiz, &sp, &cause) != 0 ||
	    ui->be->submit(ui->be->arg, wizard_cluster(&ui->wiz),
	    wizard_user(&ui->wiz), &sp, !submit, &cause) != 0) {
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
 * On moving between fields: when the request changed, ask SLURM where it
 * would start soonest (one sbatch --test-only per partition it fits).
 */
static int
wizard_soonest(struct ui *ui)
{
	struct spec	 sp;
	char		*cause = NULL;

	spec_init(&sp);
	if (ui->ov != OV_WIZARD || ui->be == NULL || ui->be->soonest == NULL ||
	    !wizard_soonest_want(&ui->wiz, &sp)) {
		spec_free(&sp);
		return 0;
	}
	if (ui->be->soonest(ui->be->arg, wizard_cluster(&ui->wiz), &sp,
	    &cause) == 0)
		wizard_soonest_asked(&ui->wiz);
	free(cause);
	spec_free(&sp);
	return UIF_REDRAW;
}

/* Every key of the wizard context goes to the wizard's model. */
static int
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

static int
act_wiz_next(struct ui *ui)
{
	return wizard_input(ui, UIA_WIZ_NEXT, '\t');
}

static int
act_wiz_prev(struct ui *ui)
{
	return wizard_input(ui, UIA_WIZ_PREV, UIKEY_FN(KEY_BTAB));
}

static int
act_cursor_left(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_LEFT, UIKEY_FN(KEY_LEFT));
}

static int
act_cursor_right(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_RIGHT, UIKEY_FN(KEY_RIGHT));
}

static int
act_cursor_home(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_HOME, UIKEY_FN(KEY_HOME));
}

static int
act_cursor_end(struct ui *ui)
{
	return wizard_input(ui, UIA_CURSOR_END, UIKEY_FN(KEY_END));
}

static int
act_input_delete(struct ui *ui)
{
	return wizard_input(ui, UIA_INPUT_DELETE, UIKEY_FN(KEY_DC));
}

static int (*const handlers[UIA_COUNT])(struct ui *) = {
	[UIA_QUIT] = act_quit,
	[UIA_HELP] = act_help,
	[UIA_REDRAW] = act_redraw,
	[UIA_FOCUS_NEXT] = act_focus_next,
	[UIA_FOCUS_PREV] = act_focus_prev,
	[UIA_FOCUS_CLUSTERS] = act_focus_clusters,
	[UIA_FOCUS_JOBS] = act_focus_jobs,
	[UIA_FOCUS_LOG] = act_focus_log,
	[UIA_DOWN] = act_down,
	[UIA_UP] = act_up,
	[UIA_PAGE_DOWN] = act_page_down,
	[UIA_PAGE_UP] = act_page_up,
	[UIA_TOP] = act_top,
	[UIA_BOTTOM] = act_bottom,
	[UIA_FILTER] = act_filter,
	[UIA_SORT] = act_sort,
	[UIA_SORT_REVERSE] = act_sort_reverse,
	[UIA_TOGGLE_FINISHED] = act_toggle_finished,
	[UIA_DETAIL] = act_detail,
	[UIA_CANCEL] = act_cancel,
	[UIA_MARK] = act_mark,
	[UIA_NEW] = act_new,
	[UIA_EDIT] = act_edit,
	[UIA_TOGGLE_ERR] = act_toggle_err,
	[UIA_WRAP] = act_wrap,
	[UIA_FOLLOW] = act_follow,
	[UIA_REFRESH] = act_refresh,
	[UIA_CLOSE] = act_close,
	[UIA_YES] = act_yes,
	[UIA_NO] = act_no,
	[UIA_BUTTON_NEXT] = act_button_next,
	[UIA_ACTIVATE] = act_activate,
	[UIA_INPUT_ACCEPT] = act_input_accept,
	[UIA_INPUT_CLEAR] = act_input_clear,
	[UIA_INPUT_BACKSPACE] = act_input_backspace,
	[UIA_INPUT_KILL] = act_input_kill,
	[UIA_WIZ_NEXT] = act_wiz_next,
	[UIA_WIZ_PREV] = act_wiz_prev,
	[UIA_START_ESTIMATE] = act_start_estimate,
	[UIA_CURSOR_LEFT] = act_cursor_left,
	[UIA_CURSOR_RIGHT] = act_cursor_right,
	[UIA_CURSOR_HOME] = act_cursor_home,
	[UIA_CURSOR_END] = act_cursor_end,
	[UIA_INPUT_DELETE] = act_input_delete,
	[UIA_LOG_SEARCH] = act_log_search,
	[UIA_SEARCH_NEXT] = act_search_next,
	[UIA_SEARCH_PREV] = act_search_prev,
	[UIA_SCROLL_LEFT] = act_scroll_left,
	[UIA_SCROLL_RIGHT] = act_scroll_right,
	[UIA_ZOOM] = act_zoom,
	[UIA_LOG_ESC] = act_log_esc,
	[UIA_HOLD] = act_hold,
	[UIA_RELEASE] = act_release,
	[UIA_ARRAY_OPEN] = act_array_open,
	[UIA_ARRAY_CLOSE] = act_array_close,
};

int
ui_action_implemented(int a)
{
	return a > UIA_NONE && a < UIA_COUNT && handlers[a] != NULL;
}

static int
ui_key(struct ui *ui, int key)
{
	enum uictx	ctx = current_ctx(ui);
	enum uiact	a = uikeys_lookup(ctx, key);
	char		mb[8];
	mbstate_t	ps;
	size_t		n;

	if (ctx == UICTX_WIZARD)
		return wizard_input(ui, a, key);
	if (a != UIA_NONE && handlers[a] != NULL)
		return handlers[a](ui);
	/* Unbound printable characters are text in an input. */
	if (ctx == UICTX_FILTER && key >= 0x20 && key != 0x7f &&
	    !(key & UIKEY_FN(0))) {
		memset(&ps, 0, sizeof ps);
		n = wcrtomb(mb, (wchar_t)key, &ps);
		if (n != (size_t)-1) {
			buf_add(&ui->input, mb, n);
			filter_live(ui);
		}
		return UIF_REDRAW;
	}
	return 0;
}

/* ------------------------------------------------------------ the view */

/*
 * The view survives a restart (like htop's rc): sort, its direction,
 * finished rows shown or not, the filter, out/err and wrap, in
 * $XDG_STATE_HOME/sqdeck/view, one "key value" a line.  A line that does
 * not parse is skipped: the view is a convenience, never an error.
 */
static char *
view_path(void)
{
	char	*dir = path_state_dir(), *p;

	p = xasprintf("%s/view", dir);
	free(dir);
	return p;
}

static void
view_load(struct ui *ui)
{
	char	*path = view_path(), *text = NULL, *line, *next, *v;
	int	 c, rev = 0, col = -1;

	if (file_read(path, &text, NULL, NULL) != 0) {
		free(path);
		return;
	}
	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((v = strchr(line, ' ')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sort") == 0) {
			for (c = 0; c < JT_NCOLS; c++) {
				if (strcmp(jobtable_col_title(c), v) == 0)
					col = c;
			}
		} else if (strcmp(line, "reverse") == 0)
			rev = strcmp(v, "1") == 0;
		else if (strcmp(line, "finished") == 0)
			jobtable_set_show_finished(ui->jt, strcmp(v, "0") != 0);
		else if (strcmp(line, "stream") == 0)
			ui->log.stream = strcmp(v, "err") == 0 ? LOG_ERR :
			    LOG_OUT;
		else if (strcmp(line, "wrap") == 0)
			ui->log.wrap = strcmp(v, "1") == 0;
		else if (strcmp(line, "filter") == 0 && *v != '\0')
			jobtable_set_filter(ui->jt, v, NULL);
	}
	if (col >= 0)
		jobtable_set_sort(ui->jt, (enum jobtable_col)col, rev);
	free(text);
	free(path);
}

static void
view_save(struct ui *ui)
{
	struct buf	 b;
	const char	*f = jobtable_filter(ui->jt), *p;
	char		*path = view_path(), *dir, *slash, *tmp;
	int		 rev, fd, ok;
	enum jobtable_col col = jobtable_sort_col(ui->jt, &rev);

	buf_init(&b);
	buf_printf(&b, "sort %s\nreverse %d\nfinished %d\nstream %s\n"
	    "wrap %d\n", jobtable_col_title(col), rev != 0,
	    jobtable_show_finished(ui->jt) != 0,
	    ui->log.stream == LOG_ERR ? "err" : "out", ui->log.wrap != 0);
	if (f != NULL && *f != '\0') {
		for (p = f; *p != '\0' && (unsigned char)*p >= 0x20; p++)
			;
		if (*p == '\0')
			buf_printf(&b, "filter %s\n", f);
	}
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		(void)mkdir_p(dir, 0700, NULL);
	}
	/*
	 * temp + rename, no fsync: a convenience must not slow the quit
	 * (q is bounded while a cluster hangs) on a loaded disk.
	 */
	tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1) {
		ok = write(fd, b.data, b.len) == (ssize_t)b.len;
		if (close(fd) != 0)
			ok = 0;
		if (!ok || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(tmp);
	free(dir);
	free(path);
	buf_free(&b);
}

/* ------------------------------------------------------------ main loop */

static void
ui_resize(void)
{
	struct winsize	ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
}

/*
 * A paste goes into the field or filter being typed, as text.  Fields are
 * one line: a line break or other control character in a paste is
 * refused, and the rest of the paste with it, so that nothing pasted can
 * act as Enter or land in the next field.  Outside an input a paste is
 * ignored (pasted letters are not commands).
 */
static int
paste_mark(struct ui *ui, int begin)
{
	int	flags = 0;

	if (begin) {
		ui->pasting = 1;
		ui->paste_cut = 0;
		return 0;
	}
	ui->pasting = 0;
	if (ui->paste_cut) {
		if (ui->ov == OV_WIZARD) {
			free(ui->wiz.banner);
			ui->wiz.banner = xstrdup("the paste had a line break or "
			    "control character: a field takes one line, so "
			    "the paste was cut there (the rest was dropped)");
			ui->wiz.banner_err = 1;
		}
		ui_message(ui, 1, "paste cut at a line break or control "
		    "character: fields take one line");
		flags = UIF_REDRAW;
	}
	ui->paste_cut = 0;
	return flags;
}

static int
paste_char(struct ui *ui, int c)
{
	char		mb[8];
	mbstate_t	ps;
	size_t		n;

	if (ui->paste_cut)
		return 0;
	if (ui->ov != OV_WIZARD && ui->ov != OV_FILTER)
		return 0;
	if (ui->ov == OV_WIZARD && ui->wiz.page != WIZ_FORM)
		return 0;
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
		ui->paste_cut = 1;
		return UIF_REDRAW;
	}
	memset(&ps, 0, sizeof ps);
	n = wcrtomb(mb, (wchar_t)c, &ps);
	if (n == (size_t)-1)
		return 0;
	if (ui->ov == OV_WIZARD) {
		wizard_sync(ui);
		wizard_type(&ui->wiz, mb, n);
	} else {
		buf_add(&ui->input, mb, n);
		filter_live(ui);
	}
	return UIF_REDRAW;
}

static int
read_keys(struct ui *ui)
{
	wint_t	wc;
	int	r, flags = 0, key;

	while ((r = get_wch(&wc)) != ERR) {
		if (r == KEY_CODE_YES && wc == KEY_RESIZE) {
			flags |= UIF_REDRAW | UIF_CLEAR;
			continue;
		}
		if (r == KEY_CODE_YES && (wc == KEY_PASTE_BEGIN ||
		    wc == KEY_PASTE_END)) {
			flags |= paste_mark(ui, wc == KEY_PASTE_BEGIN);
			continue;
		}
		if (ui->pasting) {
			flags |= paste_char(ui, r == KEY_CODE_YES ? -1 :
			    (int)wc);
			continue;
		}
		key = r == KEY_CODE_YES ? UIKEY_FN((int)wc) : (int)wc;
		/* The second-factor dialog takes every key while it shows. */
		if (ui_login_active()) {
			flags |= ui_login_key(key);
			continue;
		}
		flags |= ui_key(ui, key);
		if (flags & UIF_QUIT)
			break;
	}
	return flags;
}

static int
read_signals(void)
{
	unsigned char	buf[64];
	ssize_t		n, i;
	int		flags = 0;

	while ((n = read(sig_fds[0], buf, sizeof buf)) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] == SIGWINCH) {
				ui_resize();
				flags |= UIF_REDRAW | UIF_CLEAR;
			} else
				flags |= UIF_QUIT;
		}
	}
	return flags;
}

static void
ui_free(struct ui *ui)
{
	size_t	i;

	for (i = 0; i < ui->ncl; i++) {
		free(ui->cl[i].name);
		free(ui->cl[i].message);
		free(ui->cl[i].host);
		free(ui->cl[i].said);
		free(ui->cl[i].fault);
		strv_free(&ui->cl[i].partitions);
	}
	free(ui->cl);
	free(ui->clhash);
	jobtable_free(ui->jt);
	strv_free(&ui->notify_ids);
	free(ui->log.cluster);
	free(ui->log.id);
	free(ui->log.name);
	free(ui->log.search);
	log_clear_text(&ui->log);
	strv_free(&ui->view);
	free(ui->view_title);
	detail_forget(ui);
	dialog_free(ui);
	buf_free(&ui->input);
	free(ui->msg);
	wizard_free(&ui->wiz);
	free(ui->wcl);
	free(ui->sel_cluster);
	free(ui->sel_id);
}

/* What ops_adopt said at the start, for the footer. */
static struct strv	adopt_said;

/*
 * Local records give the jobs this machine launched, finished or not,
 * before any worker answers: they show with their last known state.  A
 * record of a cluster the configuration does not have is never polled:
 * its row says so (its detail view says how to fix it).
 */
static void
load_records(struct ui *ui)
{
	struct record_list	 list;
	struct jobtable_row	 r;
	char			*cause = NULL, *why, *t;
	size_t			 i, norphan = 0;

	memset(&list, 0, sizeof list);
	if (record_list(&list, &cause) != 0) {
		ui_message(ui, 1, "records: %s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < list.n; i++) {
		const struct record	*rec = list.v[i];
		const char		*sid = record_slurm_id(rec);

		if (sid == NULL || rec->cluster == NULL)
			continue;
		memset(&r, 0, sizeof r);
		r.cluster = san(rec->cluster);
		r.id = san(sid);
		r.name = san(rec->job_name);
		r.partition = san(rec->partition);
		r.state = san(rec->native != NULL && *rec->native != '\0' ?
		    rec->native : state_word(rec->state));
		why = ui->cfg != NULL ? ops_orphan_why(ui->cfg, rec) : NULL;
		if (why != NULL) {
			t = ops_clean(rec->cluster);
			r.reason = xasprintf("(record) not polled: no cluster "
			    "%s in the configuration", t);
			free(t);
			norphan++;
			free(why);
		} else
			r.reason = xstrdup("(record)");
		/* What the record knows of how long it ran, and its limit. */
		r.elapsed = rec->elapsed >= 0 ? rec->elapsed : -1;
		r.limit = -1;
		if (rec->time_limit != NULL &&
		    slurm_time_parse(rec->time_limit, &r.limit) !=
		    SLURM_TIME_SET)
			r.limit = -1;
		r.nodes = rec->nodes;
		r.finished = state_terminal(rec->state);
		jobtable_upsert(ui->jt, &r);
		jobtable_row_clear(&r);
	}
	if (list.corrupt.n > 0)
		ui_message(ui, 1, "%zu unreadable record(s): %s",
		    list.corrupt.n, list.corrupt.v[0]);
	else if (norphan > 0)
		ui_message(ui, 1, "%zu record(s) of a cluster the configuration "
		    "does not have are not polled: Enter on one says how to "
		    "fix it", norphan);
	else if (adopt_said.n > 0)
		ui_message(ui, 0, "%s%s", adopt_said.v[0], adopt_said.n > 1 ?
		    " (and others: sqdeck records)" : "");
	strv_free(&adopt_said);
	record_list_free(&list);
}

int
ui_run(struct config *cfg, const char *config_error, struct msgq *q,
    const struct ui_backend *be)
{
	struct ui	 ui;
	struct pollfd	 pfd[3];
	struct timespec	 ts;
	const char	*nc;
	char		*cause = NULL;
	size_t		 i;
	int		 flags, n, timeout;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sqdeck: the terminal UI needs a terminal; "
		    "use the verbs in scripts (sqdeck --help)\n");
		return EXIT_USAGE;
	}
	memset(&ui, 0, sizeof ui);
	ui.cfg = cfg;
	ui.notify = ui_notify_parse(getenv("SQDECK_NOTIFY"), getenv("TERM"),
	    getenv("TERM_PROGRAM"), getenv("VTE_VERSION"));
	ui.q = q;
	ui.be = be;
	ui.jt = jobtable_create();
	ui.focus = PANE_JOBS;
	ui.log.follow = 1;
	wizard_init(&ui.wiz);
	for (i = 0; cfg != NULL && i < cfg->nclusters; i++) {
		struct ucluster	*c = cluster_find(&ui, cfg->clusters[i].name, 1);

		c->conf = &cfg->clusters[i];
		c->health = CLUSTER_CONNECTING;
	}
	load_records(&ui);
	view_load(&ui);
	if (config_error != NULL)
		ui_message(&ui, 1, "%s", config_error);

	/* ui_main sets it before the workers start; a direct caller may not. */
	if (strcmp(setlocale(LC_CTYPE, NULL), "C") == 0)
		setlocale(LC_ALL, "");
	ui.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	if (signals_setup(&cause) != 0) {
		fprintf(stderr, "sqdeck: %s\n", cause);
		free(cause);
		ui_free(&ui);
		return EXIT_FAIL;
	}
	atexit(ui_restore);
	if (initscr() == NULL) {
		signals_reset();
		ui_free(&ui);
		return EXIT_FAIL;
	}
	curses_on = 1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	/* A paste is text, never keys: Enter in it must not submit. */
	define_key("\033[200~", KEY_PASTE_BEGIN);
	define_key("\033[201~", KEY_PASTE_END);
	putp(PASTE_ON);
	fflush(stdout);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	nc = getenv("NO_COLOR");
	/* https://no-color.org: set and not empty means no colour. */
	if ((nc == NULL || *nc == '\0') && has_colors()) {
		start_color();
		use_default_colors();
		ui.color = 1;
	}
	styles_init(&ui);

	flags = UIF_REDRAW;
	for (;;) {
		flags |= log_sync(&ui);
		flags |= ui_login_poll();
		if (flags & UIF_QUIT)
			break;
		if (flags & UIF_CLEAR)
			clearok(curscr, TRUE);
		if (flags & UIF_REDRAW)
			draw(&ui);
		flags = 0;

		/* Wake at the next second for the clock and the ages. */
		clock_gettime(CLOCK_REALTIME, &ts);
		timeout = 1000 - (int)(ts.tv_nsec / 1000000) + 5;
		pfd[0].fd = STDIN_FILENO;
		pfd[0].events = POLLIN;
		pfd[1].fd = q != NULL ? msgq_fd(q) : -1;
		pfd[1].events = POLLIN;
		pfd[2].fd = sig_fds[0];
		pfd[2].events = POLLIN;
		n = poll(pfd, 3, timeout);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0) {
			flags |= UIF_REDRAW;
			continue;
		}
		if (pfd[2].revents & POLLIN)
			flags |= read_signals();
		if (q != NULL && (pfd[1].revents & POLLIN))
			flags |= apply_messages(&ui);
		if (pfd[0].revents & POLLIN)
			flags |= read_keys(&ui);
		else if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			flags |= UIF_QUIT;	/* the terminal went away */
	}

	view_save(&ui);
	ui_restore();
	signals_reset();
	ui_free(&ui);
	return EXIT_OK;
}

/* The backend: requests go to the worker threads and return at once. */
static void
be_poll_now(void *arg, const char *cluster)
{
	workers_poll_now(arg, cluster);
}

static int
be_cancel(void *arg, const struct jobtable_key *k, size_t n, char **cause)
{
	return workers_cancel(arg, k, n, cause);
}

static void
be_watch_log(void *arg, const char *cluster, const char *job_id,
    enum log_stream stream, uint64_t offset)
{
	workers_watch_log(arg, cluster, job_id, stream, offset);
}

static int
be_fetch_spec(void *arg, const char *cluster, const char *job_id,
    char **cause)
{
	return workers_fetch_spec(arg, cluster, job_id, cause);
}

static int
be_efficiency(void *arg, const char *cluster, const char *job_id,
    char **cause)
{
	return workers_efficiency(arg, cluster, job_id, cause);
}

static int
be_hold(void *arg, const char *cluster, const char *job_id, int release,
    char **cause)
{
	return workers_hold(arg, cluster, job_id, release, cause);
}

static int
be_start_estimate(void *arg, const char *cluster, const char *job_id,
    char **cause)
{
	return workers_start_estimate(arg, cluster, job_id, cause);
}

static int
be_submit(void *arg, const char *cluster, const char *user,
    const struct spec *sp, int dry_run, char **cause)
{
	return workers_submit_as(arg, cluster, user, sp, dry_run, cause);
}

static int
be_soonest(void *arg, const char *cluster, const struct spec *sp,
    char **cause)
{
	return workers_soonest(arg, cluster, sp, cause);
}

/* Kept reachable while a stuck worker still uses it at exit. */
static struct msgq	*ui_kept_q;

int
ui_main(struct cli *cli)
{
	static struct config	 cfg;	/* static: stuck workers read it */
	struct msgq		*q;
	static struct askq	*askq;	/* static: stuck workers read it */
	struct workers		*ws = NULL;
	struct ui_backend	 be;
	char			*cause = NULL, *why = NULL;
	int			 rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return ui_run(NULL, NULL, NULL, NULL);	/* says why */
	/* Before any thread: setlocale is not thread-safe. */
	setlocale(LC_ALL, "");
	/* No cluster yet is not fatal: the screen says what to set. */
	if (config_load(cli->config_path, &cfg, &cause) != 0)
		memset(&cfg, 0, sizeof cfg);
	/* Before the workers poll: records of a cluster name now gone. */
	if (cfg.nclusters > 0)
		ops_adopt(&cfg, &adopt_said);
	if ((q = msgq_create(NULL)) == NULL) {
		fprintf(stderr, "sqdeck: cannot create the message queue\n");
		config_free(&cfg);
		free(cause);
		return EXIT_FAIL;
	}
	/* Second-factor prompts of the workers come to a dialog. */
	askq = askq_create(q);
	conn_set_default_prompt(askq_prompt, askq);
	ui_login_init(askq);
	if (cfg.nclusters > 0 && (ws = workers_start(&cfg, q, &why)) == NULL) {
		fprintf(stderr, "sqdeck: %s\n", why);
		free(why);
		msgq_destroy(q);
		config_free(&cfg);
		free(cause);
		return EXIT_FAIL;
	}
	memset(&be, 0, sizeof be);
	be.arg = ws;
	be.poll_now = be_poll_now;
	be.cancel = be_cancel;
	be.watch_log = be_watch_log;
	be.submit = be_submit;
	be.fetch_spec = be_fetch_spec;
	be.start_estimate = be_start_estimate;
	be.hold = be_hold;
	be.efficiency = be_efficiency;
	be.soonest = be_soonest;
	rc = ui_run(&cfg, cause, q, ws != NULL ? &be : NULL);
	/* A worker waiting for a second factor must not wait any more. */
	askq_shutdown(askq);
	/* q quits in bounded time: a worker stuck in a conn call is left. */
	if (workers_stop(ws, UI_STOP_MS) != 0) {
		ui_kept_q = q;
	} else {
		askq_destroy(askq);
		msgq_destroy(q);
		config_free(&cfg);
	}
	free(cause);
	return rc;
}
