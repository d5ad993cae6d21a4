#ifndef UI_H
#define UI_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "jobtable.h"
#include "msgq.h"
#include "spec.h"

/*
 * What the screen asks of the worker layer.  Every call returns at once
 * (the work happens in a worker thread) and its outcome comes back as a
 * message on the queue.  Any member may be NULL, and the whole backend
 * may be NULL: the screen then says "not connected" for that action.
 */
struct ui_backend {
	void	*arg;
	/* Poll now: one cluster, or every cluster when cluster is NULL. */
	void	(*poll_now)(void *arg, const char *cluster);
	/*
	 * Cancel these jobs (pinned when the dialog opened).  -1 and a cause
	 * if the request cannot even be queued; results: MSG_ACTION.
	 */
	int	(*cancel)(void *arg, const struct jobtable_key *, size_t n,
		    char **cause);
	/*
	 * Tail a job's log from a byte offset (MSG_LOG chunks); a NULL
	 * cluster stops watching.  Only one job is watched at a time.
	 */
	void	(*watch_log)(void *arg, const char *cluster, const char *job_id,
		    enum log_stream, uint64_t offset);
	/*
	 * Run the submit pipeline for a copy of the spec on cluster (a dry
	 * run stops after rendering: ACTION_SUBMIT step "preview" carries the
	 * script).  -1 and a cause if it cannot be queued; progress and the
	 * result: ACTION_SUBMIT messages.  user (NULL: the cluster's) is
	 * the login user to connect as for it.  record_id (NULL: a new one)
	 * is a preview's, whose answer carries it in job_id: the job gets
	 * the name and job dir the preview showed.
	 */
	int	(*submit)(void *arg, const char *cluster, const char *user,
		    const struct spec *, int dry_run, const char *record_id,
		    char **cause);
	/*
	 * Read the staged spec of a finished job for `e` (resubmit with
	 * edits): ACTION_OTHER step "spec" carries the YAML.
	 */
	int	(*fetch_spec)(void *arg, const char *cluster,
		    const char *job_id, char **cause);
	/*
	 * Why a job is pending with SLURM's start estimate (squeue --start),
	 * on demand from its detail view: ACTION_OTHER step "start".
	 */
	int	(*start_estimate)(void *arg, const char *cluster,
		    const char *job_id, char **cause);
	/*
	 * Efficiency of an ended job (one sacct), asked for when its detail
	 * view opens: ACTION_OTHER step "efficiency".  May be NULL.
	 */
	int	(*efficiency)(void *arg, const char *cluster,
		    const char *job_id, char **cause);
	/*
	 * Hold or release these jobs (H, U: the marked ones, else the
	 * selected one): one ACTION_HOLD message a job.  -1 and a cause if
	 * the request cannot be queued (nothing is).  May be NULL.
	 */
	int	(*hold)(void *arg, const struct jobtable_key *, size_t n,
		    int release, char **cause);
	/*
	 * Any job action (act: enum jobact_kind; value: the signal or the
	 * time limit, else NULL) on these jobs, as hold: one remote command
	 * a cluster, one ACTION_HOLD message a job.  May be NULL.
	 */
	int	(*act)(void *arg, const struct jobtable_key *, size_t n,
		    int act, const char *value, char **cause);
	/*
	 * A running job's GPU use (u in its detail): one ACTION_GPU message
	 * with gpuuse_text()'s lines.  May be NULL.
	 */
	int	(*gpu)(void *arg, const char *cluster, const char *job_id,
		    char **cause);
	/*
	 * Where the wizard's request (the resources of the spec) would start
	 * soonest, sbatch --test-only per partition: ACTION_OTHER step
	 * "soonest".  May be NULL.
	 */
	int	(*soonest)(void *arg, const char *cluster, const struct spec *,
		    char **cause);
	/*
	 * Read the local records off the screen's thread: MSG_RECORDS with
	 * their jobs.  Asked once, at start.  May be NULL.
	 */
	int	(*records)(void *arg, char **cause);
	/*
	 * A job's local record for its detail view, read off the screen's
	 * thread: ACTION_DETAIL.  May be NULL.
	 */
	int	(*detail)(void *arg, const char *cluster, const char *job_id,
		    char **cause);
};

/* Run the terminal UI until the user quits; returns the exit code. */
int	 ui_main(const char *config_path);

/*
 * The screen itself, for a caller that has started the workers: they
 * post to q; be may be NULL.  cfg may have no cluster; config_error (or
 * NULL) is shown in the footer.
 */
int	 ui_run(struct config *cfg, const char *config_error, struct msgq *q,
	     const struct ui_backend *be);

/*
 * Notifications when a watched job ends (pure, for the tests): the flags
 * from SQDECK_NOTIFY or the terminal, and the OSC 9 / OSC 777 sequences
 * for a text.
 */
int	 ui_notify_parse(const char *env, const char *term,
	     const char *term_program, const char *vte);
char	*ui_notify_seq(int flags, const char *text);

/* Whether an action of ui-keys.h has a handler (for the keymap tests). */
int	 ui_action_implemented(int action);

#endif
