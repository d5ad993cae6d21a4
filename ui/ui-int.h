/*
 * Private to the screen (the files of ui/): its models, styles and the functions
 * one pane file calls in another.  Never included outside ui/.
 */
#ifndef UI_INT_H
#define UI_INT_H

#include "ui.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include "jobact.h"
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
#include "color.h"
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
	OV_CMDLINE,	/* typing a : command in the footer */
};

/* The jobs pane's view (V, :view; ui-view.c). */
enum ui_view {
	VIEW_ALL,
	VIEW_MINE,
	VIEW_RUNNING,
	VIEW_PENDING,
	VIEW_FAILED,
	VIEW_COUNT
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
	char			*uses;		/* budget: what for (budget.h) */
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

/*
 * A pane of the main screen (clusters, jobs, log): the key handlers and the
 * frame go through this table instead of switching on the focus.
 */
struct ui;

struct pane_ops {
	enum uictx	 ctx;		/* the keys that apply (ui-keys.h) */
	/* Draw h rows from screen row y. */
	void		(*draw)(struct ui *, int y, int h, time_t now);
	/* Move the cursor (or scroll) by delta rows. */
	void		(*move_by)(struct ui *, long delta);
	void		(*top)(struct ui *);
	void		(*bottom)(struct ui *);
	/* Rows shown at the last draw (a page is one less). */
	int		(*height)(const struct ui *);
};

struct ui {
	struct config			*cfg;
	struct msgq			*q;
	struct msg			*inbox;	/* taken, not yet applied */
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
	/* What arrived for it, kept to show again when its record does. */
	char				*detail_eff;	/* efficiency lines */
	char				*detail_start;	/* start estimate */
	int				 detail_start_failed;
	int				 config_error;	/* it is in the footer */

	/* H or U on marked rows: the answers still awaited. */
	struct hold_batch {
		int		 release;	/* the action: enum
						   jobact_kind */
		size_t		 n;		/* jobs asked */
		size_t		 ok;
		size_t		 nfailed;
		struct buf	 failed;	/* "cluster id: why; ..." */
		size_t		 nskipped;
		char		*skipped;	/* said again at the end */
		struct strv	 wait;		/* "cluster\tid" */
	}				 hb;

	/* c on marked rows: every job's answer, summed up in the footer. */
	struct cancel_batch {
		size_t		 n;		/* jobs asked */
		size_t		 ncancelled, nended, nfailed;
		struct buf	 cancelled;	/* "sdtb 12 (was RUNNING), ..." */
		struct buf	 ended;		/* "sdtb 13, ..." */
		struct buf	 failed;	/* "sdtb 14: why; ..." */
		struct strv	 wait;		/* "cluster\tid" */
	}				 cb;

	struct jobtable_key		*dkeys;	/* pinned dialog targets */
	size_t				 ndkeys;
	int				 dbutton; /* 0: cancel them, 1: keep */
	int				 dact;	/* the dialog asks: 0 cancel,
						   else a jobact_kind + 1 */
	int				 prompt; /* the input is a job action's
						   value: a jobact_kind + 1 */

	struct buf			 input;	/* filter being typed */

	struct wizard			 wiz;
	struct wizard_cluster		*wcl;	/* what the wizard sees */
	char				*sel_cluster;	/* select when it shows */
	char				*sel_id;

	char				*msg;
	int				 msg_err;
	time_t				 msg_time;
	int				 msg_bg;	/* a poll's event */

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
	enum ui_view			 jview;	/* V: the jobs pane's view */
	int				 split;	/* jobs pane's % of jobs + log,
						   0: the default */
	struct strv			 cmd_hist; /* : lines, oldest first */
	size_t				 cmd_pos;  /* in it while Up/Down */
	char				*cmd_stem; /* what Tab completes */
	size_t				 cmd_tab;  /* Tab presses on it */
	int				 paste_cut;	/* it had a control char */
};

/* ui.c */
void
ui_free(struct ui *ui);
void __attribute__((format(printf, 3, 4)))
ui_message(struct ui *ui, int err, const char *fmt, ...);
/* One nobody asked for just now: never hides the user's answer (ui.c). */
void __attribute__((format(printf, 2, 3)))
ui_message_bg(struct ui *ui, const char *fmt, ...);
long
ui_page(struct ui *ui);

/* ui-draw.c */
char *
ui_san(const char *s);
void
ui_san_inplace(char **sp);
enum style
health_style(enum cluster_health h);
enum style
state_style(const struct jobtable_row *r);
void
styles_init(struct ui *ui);
void
ui_put(struct ui *ui, int y, int x, int w, const char *s, enum style st,
    int flags);
void
ui_put_attr(struct ui *ui, int y, int x, int w, const char *s, attr_t a);
void
draw_title(struct ui *ui, int y, enum pane p, const char *text);
enum uictx
current_ctx(const struct ui *ui);
void
draw_box(struct ui *ui, int h, int w, const char *title, int *py, int *px);
const char *
ui_tail_fit(const char *s, int cols);
int
ui_put_wrapped(struct ui *ui, int y, int x, int w, int n, const char *s,
    attr_t a);
void
ui_draw(struct ui *ui);

/* ui-clusters.c */
struct ucluster *
cluster_find(struct ui *ui, const char *name, int create);
enum cluster_health
cluster_health(const struct ucluster *c, time_t now);
const char *
health_text(const struct ucluster *c, time_t now, char *buf, size_t len);
const char *
backoff_text(const struct ucluster *c, time_t now, char *buf, size_t len);
int
apply_cluster(struct ui *ui, struct msg_cluster *m);
int
clusters_end_y(struct ui *ui);
char *
detail_cluster(struct ui *ui, const struct ucluster *c);

/* ui-jobs.c */
int
apply_records(struct ui *ui, struct msg_records *m);
int
apply_jobs(struct ui *ui, struct msg_jobs *m);
void
draw_dialog(struct ui *ui);
int
act_filter(struct ui *ui);
int
act_sort(struct ui *ui);
int
act_sort_reverse(struct ui *ui);
int
act_toggle_finished(struct ui *ui);
void
dialog_free(struct ui *ui);
int
act_cancel(struct ui *ui);
int
act_mark(struct ui *ui);
int
act_array_open(struct ui *ui);
int
act_array_close(struct ui *ui);
int
act_hold(struct ui *ui);
void
hold_batch_free(struct ui *ui);
int
hold_batch_answer(struct ui *ui, const struct msg_action *m);
void
cancel_batch_free(struct ui *ui);
int
cancel_batch_answer(struct ui *ui, const struct msg_action *m);
int
act_release(struct ui *ui);
int
act_requeue(struct ui *ui);
int
act_signal(struct ui *ui);
int
act_timelimit(struct ui *ui);
int
act_yes(struct ui *ui);
int
act_no(struct ui *ui);
int
act_button_next(struct ui *ui);
void
filter_live(struct ui *ui);
int
act_input_accept(struct ui *ui);
int
act_input_clear(struct ui *ui);
int
act_input_backspace(struct ui *ui);
int
act_input_kill(struct ui *ui);

/* ui-log.c */
void
log_clear_text(struct ulog *l);
int
log_sync(struct ui *ui);
int
log_apply(struct ui *ui, struct msg_log *m);
void
log_show_match(struct ui *ui, size_t i);
int
log_search_go(struct ui *ui, const char *needle, size_t from, int dir,
    int quiet);
void
log_search_unsay(struct ui *ui);
int
act_log_search(struct ui *ui);
int
act_search_next(struct ui *ui);
int
act_search_prev(struct ui *ui);
int
act_scroll_left(struct ui *ui);
int
act_scroll_right(struct ui *ui);
int
act_zoom(struct ui *ui);
int
act_log_esc(struct ui *ui);
int
act_toggle_err(struct ui *ui);
int
act_wrap(struct ui *ui);
int
act_follow(struct ui *ui);

/* ui-detail.c */
int
detail_got(struct ui *ui, struct msg_action *m);
void
draw_view(struct ui *ui);
void
view_open(struct ui *ui, const char *title, char *text);
int
act_help(struct ui *ui);
int
act_detail(struct ui *ui);
int
act_start_estimate(struct ui *ui);
int
start_estimated(struct ui *ui, struct msg_action *m);
int
efficiency_got(struct ui *ui, struct msg_action *m);
int
act_gpu_use(struct ui *ui);
int
gpu_got(struct ui *ui, struct msg_action *m);
void
detail_forget(struct ui *ui);

/* ui-wizview.c */
int
spec_fetched(struct ui *ui, struct msg_action *m);
void
draw_wizard(struct ui *ui);
void
wizard_sync(struct ui *ui);
int
act_new(struct ui *ui);
int
act_edit(struct ui *ui);
int
wizard_input(struct ui *ui, enum uiact a, int key);
int
act_wiz_next(struct ui *ui);
int
act_wiz_prev(struct ui *ui);
int
act_cursor_left(struct ui *ui);
int
act_cursor_right(struct ui *ui);
int
act_cursor_home(struct ui *ui);
int
act_cursor_end(struct ui *ui);
int
act_input_delete(struct ui *ui);

/* ui-enter.c: x shell, F forward, P forwards, X close (child processes). */
#define UI_PROMPT_FORWARD	1000	/* ui->prompt: F's port is typed */
void	 ui_enter_init(const char *config_path);
const char *ui_enter_config(void);	/* -c's file, NULL: the default */
int	 ui_enter_poll(struct ui *ui);
void	 ui_enter_close_all(void);
const char *ui_enter_prompt(void);
int	 ui_enter_forward_accept(struct ui *ui);
int	 act_shell(struct ui *ui);
int	 act_forward(struct ui *ui);
int	 act_forwards(struct ui *ui);
int	 act_forward_close(struct ui *ui);

/* ui-view.c: V's views and the pane split (< > =). */
#define UI_SPLIT_DEFAULT	55
const char	*ui_view_name(enum ui_view);
int		 ui_view_parse(const char *);	/* -1: none of them */
void		 ui_view_set(struct ui *ui, enum ui_view v);
void		 ui_view_title(struct ui *ui, char *buf, size_t len);
int		 ui_split_jobs_rows(const struct ui *ui, int avail);
int		 act_view_cycle(struct ui *ui);
int		 act_split_shrink(struct ui *ui);
int		 act_split_grow(struct ui *ui);
int		 act_split_reset(struct ui *ui);

/* ui-cmdline.c: the : line. */
void		 ui_cmdline_free(struct ui *ui);
char		*ui_cmdline_help(void);	/* the commands, for ? and :help */
void		 ui_cmdline_type(struct ui *ui, const char *mb, size_t n);
void		 ui_cmdline_draw(struct ui *ui, int y);
int		 act_cmdline(struct ui *ui);
int		 act_cmd_run(struct ui *ui);
int		 act_cmd_close(struct ui *ui);
int		 act_cmd_complete(struct ui *ui);
int		 act_cmd_history_prev(struct ui *ui);
int		 act_cmd_history_next(struct ui *ui);

/* ui-pager.c: L, the whole log in $PAGER (a child sqdeck logs --pager). */
int	 act_pager(struct ui *ui);

/* ui-copy.c: Y, OSC 52; C, clone; ! the first error line. */
int	 act_copy(struct ui *ui);
int	 act_clone(struct ui *ui);
int	 clone_fetched(struct ui *ui, const struct msg_action *m);
int	 act_first_error(struct ui *ui);

/* ui-bench.c: SQDECK_BENCH_FRAMES, frames timed off screen. */
int	 ui_bench(const char *spec);

/* The panes, by enum pane (ui.c), and each pane's entry. */
extern const struct pane_ops	*const ui_panes[NPANES];
extern const struct pane_ops	 pane_clusters;
extern const struct pane_ops	 pane_jobs;
extern const struct pane_ops	 pane_log;

#endif
