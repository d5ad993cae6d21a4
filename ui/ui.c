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
#include "ui-int.h"

const struct pane_ops	*const ui_panes[NPANES] = {
	[PANE_CLUSTERS] = &pane_clusters,
	[PANE_JOBS] = &pane_jobs,
	[PANE_LOG] = &pane_log,
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


/*
 * A test hook: with SQDECK_TEST_MSG_LOG set to a file name, every footer
 * message is written there as it is set, so a TUI test that misses one
 * can say which came after it (tests/tui/enter, tests/tui/actions).
 */
static int	hook_open(const char *, FILE **, int *);
static FILE	*msg_f;
static int	 msg_on = -1;

static void
msg_note(const char *text)
{
	if (!hook_open("SQDECK_TEST_MSG_LOG", &msg_f, &msg_on))
		return;
	fprintf(msg_f, "%lld %s\n", (long long)time(NULL), text);
	fflush(msg_f);
}

void __attribute__((format(printf, 3, 4)))
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
	ui->msg_bg = 0;
	msg_note(ui->msg);
}

/*
 * A message nobody asked for just now (a poll's event, a watched job that
 * ended): it never hides the answer to what the user did while that is
 * shown (a shell's exit status, a cancel's outcome: both were replaced
 * in CI runs, tests/tui/enter and tests/tui/actions).
 */
void __attribute__((format(printf, 2, 3)))
ui_message_bg(struct ui *ui, const char *fmt, ...)
{
	va_list	 ap;
	char	*raw, *held;

	va_start(ap, fmt);
	raw = xvasprintf(fmt, ap);
	va_end(ap);
	if (ui->msg != NULL && !ui->msg_bg && time(NULL) - ui->msg_time <
	    (ui->msg_err ? ERR_SECONDS : MSG_SECONDS)) {
		held = xasprintf("(held back) %s", raw);
		msg_note(held);
		free(held);
	} else {
		ui_message(ui, 0, "%s", raw);
		ui->msg_bg = 1;
	}
	free(raw);
}

static int
apply_action(struct ui *ui, struct msg_action *m)
{
	const char	*cl = m->cluster != NULL ? m->cluster : "";
	const char	*step = m->step != NULL ? m->step :
			    action_kind_name(m->kind);

	if (m->kind == ACTION_SUBMIT && wizard_action(&ui->wiz, m)) {
		/* A preview's job_id is its record id: no row to select. */
		if (m->done && !m->failed && m->job_id != NULL &&
		    m->cluster != NULL && (m->step == NULL ||
		    strcmp(m->step, "preview") != 0)) {
			free(ui->sel_cluster);
			free(ui->sel_id);
			ui->sel_cluster = xstrdup(m->cluster);
			ui->sel_id = xstrdup(m->job_id);
		}
		if (ui->ov == OV_WIZARD)
			return UIF_REDRAW;	/* the wizard shows it */
	}
	switch (m->kind) {
	case ACTION_SPEC:
		if (m->done)
			return spec_fetched(ui, m);
		break;
	case ACTION_EFFICIENCY:
		if (m->done)
			return efficiency_got(ui, m);
		break;
	case ACTION_GPU:
		if (m->done)
			return gpu_got(ui, m);
		break;
	case ACTION_START:
		if (m->done)
			return start_estimated(ui, m);
		break;
	case ACTION_DETAIL:
		return detail_got(ui, m);
	case ACTION_SOONEST:
		if (m->done) {
			char	*t = ui_san(m->message);

			wizard_soonest_got(&ui->wiz, t, m->failed);
			free(t);
			return UIF_REDRAW;
		}
		break;
	default:
		break;
	}
	/*
	 * The worker says why a job has no log: the pane shows it.  For a
	 * job the pane no longer shows (the cursor moved on), it says
	 * nothing: in the footer it would hide the answer to what the user
	 * did since.
	 */
	if (m->kind == ACTION_LOG) {
		if (ui->log.cluster == NULL || m->cluster == NULL ||
		    m->job_id == NULL || strcmp(m->cluster, ui->log.cluster) != 0 ||
		    strcmp(m->job_id, ui->log.id) != 0)
			return 0;
		free(ui->log.note);
		ui->log.note = ui_san(m->message);
		return UIF_REDRAW;
	}
	/*
	 * A poll's event (a record's new state) never hides the answer to
	 * what the user did (a shell's exit status, a cancel's outcome)
	 * while that is shown: the events of a shell session come in a
	 * batch when the screen is back, and one of them took the place of
	 * "shell ... ended: exit 3" (a CI run, tests/tui/enter).
	 */
	if (m->kind == ACTION_REFRESH) {
		ui_message_bg(ui, "%s%s%s%s%s%s%s", cl,
		    m->job_id ? " " : "", m->job_id ? m->job_id : "",
		    *cl || m->job_id ? ": " : "", step, *step ? ": " : "",
		    m->message != NULL ? m->message : "done");
		return UIF_REDRAW;
	}
	if (hold_batch_answer(ui, m))
		return UIF_REDRAW;
	if (m->done && !m->failed && m->kind == ACTION_CANCEL &&
	    m->cluster != NULL && m->job_id != NULL)
		jobtable_set_state(ui->jt, m->cluster, m->job_id, "CANCELLED");
	if (cancel_batch_answer(ui, m))
		return UIF_REDRAW;
	ui_message(ui, m->done && m->failed, "%s%s%s%s%s%s%s", cl,
	    m->job_id ? " " : "", m->job_id ? m->job_id : "",
	    *cl || m->job_id ? ": " : "", step, *step ? ": " : "",
	    m->message != NULL ? m->message : (m->done ? "done" : "..."));
	return UIF_REDRAW;
}

/*
 * Give back the heap that work left behind.  Loading a week of history
 * (193,000 records: each file parsed, its row sent in a batch, then
 * freed) and every poll's parse leave free memory between blocks still
 * in use; glibc returns only the top of the heap, so the TUI kept 240 MB
 * of which 62 MB were in use (malloc_stats, no live cluster).
 * malloc_trim(0) gives those free pages back (madvise, nothing moves):
 * done 20 s after the last batch of records is in (the rows'
 * sorting and their first frames come after it), then once a minute,
 * like the holder's shed (holder.c).  A trim walks the free chunks of
 * the one arena (M_ARENA_MAX below): ~45 ms over a heap of 150 MB in
 * small pieces, so not more often than that.
 */
static int	shed_soon;
static time_t	shed_next;
static time_t	key_last;	/* when a key last came */

/*
 * Not while keys come: with 32 live clusters and a week of history a
 * trim held the screen 0.4-4 s on a loaded machine (SQDECK_TEST_SLOW_LOG,
 * load 14-30), the malloc lock with it; it waits for 5 s without a key.
 */
static void
ui_shed(time_t now)
{
	if (shed_soon) {
		shed_soon = 0;
		shed_next = now + 20;
	}
	if (now < shed_next)
		return;
	if (now - key_last < 5) {
		shed_next = key_last + 5;
		return;
	}
	shed_next = now + 60;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * A test hook: with SQDECK_TEST_SLOW_LOG set to a file name, every step
 * of the main loop that held the screen's thread longer than 10 ms is
 * said there ("ms what"): how the seconds-long stalls of 32 clusters
 * over a week of history were found (issue 25), and what bench/run
 * reports as the longest step.
 */
static FILE	*slow_f;
static int	 slow_on = -1;

static double
slow_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A test hook's file, opened for appending the first time it is asked for
 * (*on: -1 not asked yet, 0 none, 1 open): whether there is one.
 */
static int
hook_open(const char *env, FILE **f, int *on)
{
	const char	*path;

	if (*on == -1) {
		path = getenv(env);
		if (path != NULL && *path != '\0')
			*f = fopen(path, "a");
		*on = *f != NULL;
	}
	return *on;
}

static void
slow_note(const char *what, double t0)
{
	double		 ms;

	if (!hook_open("SQDECK_TEST_SLOW_LOG", &slow_f, &slow_on))
		return;
	if ((ms = slow_now() - t0) > 10) {
		fprintf(slow_f, "%.1f %s\n", ms, what);
		fflush(slow_f);
	}
}

/*
 * A test hook: with SQDECK_TEST_KEY_LOG set to a file name, every turn
 * whose keys asked for a frame says there how long (ms) from poll()
 * seeing the key to doupdate() done: the TUI's own share of bench/run's
 * key-to-screen figure (README "Performance").
 */
static FILE	*keylog_f;
static int	 keylog_on = -1;

static void
keylog_note(double t0)
{
	if (!hook_open("SQDECK_TEST_KEY_LOG", &keylog_f, &keylog_on))
		return;
	fprintf(keylog_f, "%.1f\n", slow_now() - t0);
	fflush(keylog_f);
}

/* How long one turn of the loop applies messages before it reads keys. */
#define APPLY_BUDGET_MS	8

/*
 * The messages that came, in order, for at most APPLY_BUDGET_MS: the
 * rest wait in ui->inbox for the next turn, after the keys and a frame
 * (32 clusters' polls and a batch of records taken at once held the
 * keys for seconds).
 */
static int
apply_messages(struct ui *ui)
{
	struct msg	*m;
	double		 t0 = slow_now(), t1;
	int		 flags = 0;

	if (ui->inbox == NULL)
		ui->inbox = msgq_take_all(ui->q);
	while ((m = ui->inbox) != NULL) {
		t1 = slow_now();
		if (t1 - t0 >= APPLY_BUDGET_MS)
			break;
		ui->inbox = m->next;
		m->next = NULL;
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
		case MSG_RECORDS:
			flags |= apply_records(ui, &m->u.records);
			if (!m->u.records.more)
				shed_soon = 1;
			break;
		}
		slow_note(m->type == MSG_RECORDS ? "records" : m->type ==
		    MSG_JOBS ? "jobs" : "message", t1);
		msg_free_list(m);	/* the receiver frees */
	}
	return flags;
}

static int
act_quit(struct ui *ui)
{
	(void)ui;
	return UIF_QUIT;
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
	if (ui->ov == OV_VIEW) {
		if (delta < 0)
			ui->view_top = (size_t)-delta > ui->view_top ? 0 :
			    ui->view_top + delta;
		else
			ui->view_top = ui->view_top + delta > ui->view_rows ?
			    ui->view_rows : ui->view_top + delta;
		return UIF_REDRAW;
	}
	ui_panes[ui->focus]->move_by(ui, delta);
	return UIF_REDRAW;
}

long
ui_page(struct ui *ui)
{
	int	h;

	if (ui->ov == OV_VIEW)
		h = ui->view_h;
	else
		h = ui_panes[ui->focus]->height(ui);
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
	return move_by(ui, ui_page(ui));
}

static int
act_page_up(struct ui *ui)
{
	return move_by(ui, -ui_page(ui));
}

static int
act_top(struct ui *ui)
{
	if (ui->ov == OV_VIEW)
		ui->view_top = 0;
	else
		ui_panes[ui->focus]->top(ui);
	return UIF_REDRAW;
}

static int
act_bottom(struct ui *ui)
{
	if (ui->ov == OV_VIEW)
		ui->view_top = SIZE_MAX / 2;	/* clamped when drawn */
	else
		ui_panes[ui->focus]->bottom(ui);
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

static int
act_close(struct ui *ui)
{
	ui->ov = OV_NONE;
	strv_free(&ui->view);
	detail_forget(ui);
	return UIF_REDRAW;
}

static int
act_activate(struct ui *ui)
{
	return ui->dbutton == 0 ? act_yes(ui) : act_no(ui);
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
	[UIA_GPU_USE] = act_gpu_use,
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
	[UIA_REQUEUE] = act_requeue,
	[UIA_SIGNAL] = act_signal,
	[UIA_TIMELIMIT] = act_timelimit,
	[UIA_ARRAY_OPEN] = act_array_open,
	[UIA_ARRAY_CLOSE] = act_array_close,
	[UIA_SHELL] = act_shell,
	[UIA_FORWARD] = act_forward,
	[UIA_FORWARDS] = act_forwards,
	[UIA_FORWARD_CLOSE] = act_forward_close,
	[UIA_VIEW_CYCLE] = act_view_cycle,
	[UIA_CMDLINE] = act_cmdline,
	[UIA_CMD_RUN] = act_cmd_run,
	[UIA_CMD_CLOSE] = act_cmd_close,
	[UIA_CMD_COMPLETE] = act_cmd_complete,
	[UIA_CMD_HISTORY_PREV] = act_cmd_history_prev,
	[UIA_CMD_HISTORY_NEXT] = act_cmd_history_next,
	[UIA_SPLIT_SHRINK] = act_split_shrink,
	[UIA_SPLIT_GROW] = act_split_grow,
	[UIA_SPLIT_RESET] = act_split_reset,
	[UIA_PAGER] = act_pager,
	[UIA_COPY] = act_copy,
	[UIA_FIRST_ERROR] = act_first_error,
	[UIA_CLONE] = act_clone,
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
	if ((ctx == UICTX_FILTER || ctx == UICTX_CMDLINE) && key >= 0x20 &&
	    key != 0x7f && !(key & UIKEY_FN(0))) {
		memset(&ps, 0, sizeof ps);
		n = wcrtomb(mb, (wchar_t)key, &ps);
		if (n != (size_t)-1 && ctx == UICTX_CMDLINE)
			ui_cmdline_type(ui, mb, n);
		else if (n != (size_t)-1) {
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
	char	*path = view_path(), *text = NULL, *line, *next, *v, *sp;
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
		else if (strcmp(line, "view") == 0 && (c =
		    ui_view_parse(v)) >= 0)
			ui_view_set(ui, (enum ui_view)c);
		else if (strcmp(line, "split") == 0 && (c = atoi(v)) >= 10 &&
		    c <= 90)
			ui->split = c;	/* < > = (ui-view.c) */
		else if (strcmp(line, "focus") == 0 && (c = atoi(v)) >= 0 &&
		    c < NPANES)
			ui->focus = c;
		else if (strcmp(line, "row") == 0 && (sp = strchr(v, ' ')) !=
		    NULL && sp != v && sp[1] != '\0') {
			/* Issue 26.11: the selected row comes back. */
			*sp = '\0';
			jobtable_select_later(ui->jt, v, sp + 1);
		}
	}
	if (col >= 0)
		jobtable_set_sort(ui->jt, (enum jobtable_col)col, rev);
	free(text);
	free(path);
}

/* A word the view file can keep on its line (no space, no control). */
static int
view_word(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	}
	return 1;
}

static void
view_save(struct ui *ui)
{
	const struct jobtable_row *r;
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
	/* The focused pane and the selected row (issue 26.11). */
	buf_printf(&b, "focus %d\n", ui->focus);
	/* V's view and the split of < and > (ui-view.c). */
	buf_printf(&b, "view %s\n", ui_view_name(ui->jview));
	if (ui->split > 0)
		buf_printf(&b, "split %d\n", ui->split);
	if ((r = jobtable_current(ui->jt)) != NULL && view_word(r->cluster) &&
	    view_word(r->id))
		buf_printf(&b, "row %s %s\n", r->cluster, r->id);
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
	if (ui->ov != OV_WIZARD && ui->ov != OV_FILTER &&
	    ui->ov != OV_CMDLINE)
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
	} else if (ui->ov == OV_CMDLINE)
		ui_cmdline_type(ui, mb, n);	/* Enter in it never runs */
	else {
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

void
ui_free(struct ui *ui)
{
	size_t	i;

	for (i = 0; i < ui->ncl; i++) {
		free(ui->cl[i].name);
		free(ui->cl[i].message);
		free(ui->cl[i].host);
		free(ui->cl[i].said);
		free(ui->cl[i].fault);
		free(ui->cl[i].uses);
		strv_free(&ui->cl[i].partitions);
	}
	free(ui->cl);
	free(ui->clhash);
	msg_free_list(ui->inbox);
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
	hold_batch_free(ui);
	cancel_batch_free(ui);
	buf_free(&ui->input);
	ui_cmdline_free(ui);
	free(ui->msg);
	wizard_free(&ui->wiz);
	free(ui->wcl);
	free(ui->sel_cluster);
	free(ui->sel_id);
}

/* What ops_adopt said at the start, for the footer. */
/*
 * A test hook: with SQDECK_TEST_RECORD_READS set to a file name, say there
 * how many record files and listings this (the screen's) thread read.
 */
static void
reads_report(void)
{
	const char	*path = getenv("SQDECK_TEST_RECORD_READS");
	FILE		*f;

	if (path == NULL || *path == '\0' || (f = fopen(path, "w")) == NULL)
		return;
	fprintf(f, "ui thread record reads: %lu\n", record_reads_here());
	fclose(f);
}

int
ui_run(struct config *cfg, const char *config_error, struct msgq *q,
    const struct ui_backend *be)
{
	struct ui	 ui;
	struct pollfd	 pfd[3];
	struct timespec	 ts;
	char		*cause = NULL;
	size_t		 i;
	time_t		 drawn = 0;
	double		 t0, tkey = 0;
	int		 flags, n, timeout, kf, keyed, deferred = 0;

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
	/* The first screen (issue 26.6): live jobs first, newest on top;
	   a view saved with another sort keeps it (view_load). */
	jobtable_set_sort(ui.jt, JT_STATE, 0);
	ui.focus = PANE_JOBS;
	ui.log.follow = 1;
	wizard_init(&ui.wiz);
	for (i = 0; cfg != NULL && i < cfg->nclusters; i++) {
		struct ucluster	*c = cluster_find(&ui, cfg->clusters[i].name, 1);

		c->conf = &cfg->clusters[i];
		c->health = CLUSTER_CONNECTING;
	}
	/* The records come from a worker: the first frame waits for none. */
	if (be != NULL && be->records != NULL && be->records(be->arg,
	    &cause) != 0) {
		ui_message(&ui, 1, "records: %s", cause);
		free(cause);
		cause = NULL;
	}
	view_load(&ui);
	if (config_error != NULL) {
		ui_message(&ui, 1, "%s", config_error);
		ui.config_error = 1;
	}

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
	/* https://no-color.org: attributes only (styles_init's mono). */
	if (!color_env_off(getenv("NO_COLOR")) && has_colors()) {
		start_color();
		use_default_colors();
		ui.color = 1;
	}
	styles_init(&ui);

	flags = UIF_REDRAW;
	for (;;) {
		flags |= log_sync(&ui);
		flags |= ui_login_poll();
		flags |= ui_enter_poll(&ui);
		if (flags & UIF_QUIT)
			break;
		if (flags & UIF_CLEAR)
			clearok(curscr, TRUE);
		/*
		 * One frame a second at least for the clock and the ages, even
		 * while messages that change nothing keep waking us (the poll
		 * below never times out then).
		 */
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec != drawn)
			flags |= UIF_REDRAW;
		if (flags & UIF_REDRAW) {
			t0 = slow_now();
			ui_draw(&ui);
			slow_note("draw", t0);
			drawn = ts.tv_sec;
			if (tkey != 0)
				keylog_note(tkey);
		}
		tkey = 0;
		t0 = slow_now();
		ui_shed(ts.tv_sec);
		slow_note("trim", t0);
		flags = 0;

		/* Wake at the next second for the clock and the ages. */
		clock_gettime(CLOCK_REALTIME, &ts);
		timeout = 1000 - (int)(ts.tv_nsec / 1000000) + 5;
		if (ui.inbox != NULL)
			timeout = 0;	/* messages wait: keys first */
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
		if (n == 0 && ui.inbox == NULL) {
			flags |= UIF_REDRAW;
			continue;
		}
		if (pfd[2].revents & POLLIN)
			flags |= read_signals();
		keyed = 0;
		if (pfd[0].revents & POLLIN) {
			key_last = time(NULL);
			t0 = slow_now();
			kf = read_keys(&ui);
			slow_note("keys", t0);
			if (kf & UIF_REDRAW) {
				keyed = 1;
				tkey = t0;
			}
			flags |= kf;
		} else if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			flags |= UIF_QUIT;	/* the terminal went away */
		/*
		 * A key's frame first: the messages wait a turn (up to
		 * APPLY_BUDGET_MS of them came between the key and its frame).
		 * Every other turn at most, so that keys held down never
		 * starve them.
		 */
		if (keyed && !deferred) {
			deferred = 1;
			continue;
		}
		deferred = 0;
		if (q != NULL && ((pfd[1].revents & POLLIN) ||
		    ui.inbox != NULL))
			flags |= apply_messages(&ui);
	}

	view_save(&ui);
	ui_enter_close_all();
	ui_restore();
	signals_reset();
	ui_free(&ui);
	reads_report();
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
be_hold(void *arg, const struct jobtable_key *k, size_t n, int release,
    char **cause)
{
	return workers_hold(arg, k, n, release, cause);
}

static int
be_act(void *arg, const struct jobtable_key *k, size_t n, int act,
    const char *value, char **cause)
{
	return workers_act(arg, k, n, act, value, cause);
}

static int
be_gpu(void *arg, const char *cluster, const char *job_id, char **cause)
{
	return workers_gpu(arg, cluster, job_id, cause);
}

static int
be_start_estimate(void *arg, const char *cluster, const char *job_id,
    char **cause)
{
	return workers_start_estimate(arg, cluster, job_id, cause);
}

static int
be_submit(void *arg, const char *cluster, const char *user,
    const struct spec *sp, int dry_run, const char *record_id, char **cause)
{
	return workers_submit_rec(arg, cluster, user, sp, dry_run, record_id,
	    cause);
}

static int
be_soonest(void *arg, const char *cluster, const struct spec *sp,
    char **cause)
{
	return workers_soonest(arg, cluster, sp, cause);
}

/* Kept reachable while a stuck worker still uses it at exit. */
static int
be_records(void *arg, char **cause)
{
	return workers_records(arg, cause);
}

static int
be_detail(void *arg, const char *cluster, const char *job_id, char **cause)
{
	return workers_detail(arg, cluster, job_id, cause);
}

static struct msgq	*ui_kept_q;

/*
 * Issue 26.12: records move to a cluster of the user's own configuration
 * only; a screen started with -c another file moves none for good.
 */
static int
config_is_own(const char *path)
{
	char	*own, *a, *b;
	int	 yes;

	if (path == NULL)
		return 1;
	own = config_default_path();
	a = realpath(path, NULL);
	b = own != NULL ? realpath(own, NULL) : NULL;
	yes = a != NULL && b != NULL && strcmp(a, b) == 0;
	free(a);
	free(b);
	free(own);
	return yes;
}

int
ui_main(const char *config_path)
{
	static struct config	 cfg;	/* static: stuck workers read it */
	struct msgq		*q;
	static struct askq	*askq;	/* static: stuck workers read it */
	struct workers		*ws = NULL;
	struct ui_backend	 be;
	char			*cause = NULL, *why = NULL;
	const char		*bench;
	int			 rc;

	ui_enter_init(config_path);
	if ((bench = getenv("SQDECK_BENCH_FRAMES")) != NULL)
		return ui_bench(bench);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return ui_run(NULL, NULL, NULL, NULL);	/* says why */
	/* Before any thread: setlocale is not thread-safe. */
	setlocale(LC_ALL, "");
#ifdef M_ARENA_MAX
	/*
	 * One malloc arena for every thread: what the records thread frees
	 * after reading 10,000 records is reused by the screen, instead of
	 * staying in an arena of its own (RSS 30 MiB against 20).
	 */
	mallopt(M_ARENA_MAX, 1);
#endif
#ifdef M_MMAP_THRESHOLD
	/*
	 * A fixed threshold: the job table's arrays of 200,000 rows (1.6 MB
	 * each, made anew by a poll) are mapped and given back when freed,
	 * not left as holes in the heap, which the dynamic threshold did.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	/* No cluster yet is not fatal: the screen says what to set. */
	if (config_load(config_path, &cfg, &cause) != 0)
		memset(&cfg, 0, sizeof cfg);
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
	/*
	 * The records thread reads the records (and first adopts those of a
	 * cluster name now gone, before any poll) even without a cluster.
	 */
	if ((ws = workers_start_flags(&cfg, q, WORKERS_RECORDS |
	    (cfg.nclusters > 0 && config_is_own(config_path) ?
	    WORKERS_ADOPT : 0), &why)) == NULL) {
		fprintf(stderr, "sqdeck: %s\n", why);
		free(why);
		msgq_destroy(q);
		config_free(&cfg);
		free(cause);
		return EXIT_FAIL;
	}
	memset(&be, 0, sizeof be);
	be.arg = ws;
	be.records = be_records;
	be.detail = be_detail;
	/* No cluster: nothing to poll or ask ("not connected"). */
	if (cfg.nclusters > 0) {
		be.poll_now = be_poll_now;
		be.cancel = be_cancel;
		be.watch_log = be_watch_log;
		be.submit = be_submit;
		be.fetch_spec = be_fetch_spec;
		be.start_estimate = be_start_estimate;
		be.hold = be_hold;
		be.act = be_act;
		be.gpu = be_gpu;
		be.efficiency = be_efficiency;
		be.soonest = be_soonest;
	}
	rc = ui_run(&cfg, cause, q, &be);
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
