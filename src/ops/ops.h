#ifndef OPS_H
#define OPS_H

#include <stddef.h>
#include <stdio.h>

#include "conn.h"
#include "record.h"
#include "state.h"

/*
 * Operations on one job that the verbs and the TUI workers share, and a
 * record's paths on shared storage (the layout itself is jobdir.h's).
 * Submit writes there, the monitor and the verbs read there:
 *
 *   <job_dir>/logs/<job_name>-<slurm_id>/main.out   and main.err (sqdeck(1):
 * submit)
 *   <job_dir>/job_<record id>.env      secrets sidecar, mode 600 (README:
 * secrets)
 *   <job_dir>/results/status.json      the workload's verdict (sqdeck(1): JOB
 * RECORDS AND STATES)
 *
 * status.json is one JSON object (or JSON lines, the last verdict wins);
 * the minimal content is {"status": "SUCCESS"} or {"status": "FAILURE"},
 * or {"exit_code": N}.  A job SLURM calls COMPLETED without a file that
 * says success ends ERROR (see state_status_verdict()).
 *
 * A record's log_dir overrides <job_dir>/logs when set.  Every function
 * returns a new string, or NULL when the record lacks what is needed
 * (no job_dir, no job_name or no SLURM id yet).
 */
char	*ops_log_dir(const struct record *);
/* <log_dir>/<job_name>-<slurm_id>: the directory submit must create. */
char	*ops_job_log_dir_for(const char *log_dir, const char *job_name,
	     const char *slurm_id);
char	*ops_job_log_dir(const struct record *);
/* main.out, or main.err when err is set. */
char	*ops_log_path(const struct record *, int err);
/* Task N's main_N.out (main_N.err) of an array record (array.h). */
char	*ops_task_log_path(const struct record *, int task, int err);
char	*ops_env_path(const struct record *);
char	*ops_results_dir(const struct record *);
char	*ops_status_path(const struct record *);

/*
 * Cluster text for a terminal, by text_sanitize() (the TUI's rules):
 * escape sequences removed, other control characters (C0, DEL, raw 8-bit
 * and UTF-8 encoded C1), bidi controls and invalid UTF-8 become U+FFFD;
 * '\n' and '\t' stay, a '\r' becomes a newline unless a '\n' follows.
 * Returns a new NUL-terminated string, its length in *outlen (may be NULL).
 */
char	*ops_sanitize(const char *, size_t, size_t *outlen);

/*
 * The same text for one table cell or line: newlines become spaces, tabs
 * spaces to the next tab stop; "-" for NULL or "".
 */
char	*ops_clean(const char *);

/*
 * Print a table for the verbs: columns padded to the widest cell (in
 * display cells, text_width(), not bytes; cells are cleaned with
 * ops_clean() first), two spaces apart.  cells is nrows * ncol strings,
 * row by row.  With color (--color, color.h) the
 * heading is bold and a column headed "STATE" has its words coloured
 * (state_sgr()); the escapes are added after the cleaning, so no cell
 * can bring its own.
 */
void	 ops_table_print(FILE *, const char *const *head, size_t ncol,
	     char *const *cells, size_t nrows, int color);

/* --- logs ---------------------------------------------------------------- */

struct ops_log {
	int		 missing;	/* no such file (yet): "waiting for log" */
	int		 truncated;	/* size < offset: read again from 0 */
	int		 cut;		/* tail: the first line began before
					   the last MiB, so it is cut */
	long long	 size;		/* file size when read */
	long long	 offset;	/* where data starts in the file */
	long long	 next;		/* offset to read from next time */
	char		*data;		/* raw bytes, NUL-terminated */
	size_t		 len;
};

/*
 * One remote command: the file's size and up to max bytes from offset.  A
 * missing file sets missing (not an error); a file shorter than offset was
 * truncated or replaced, so it is read from 0 and truncated is set.
 * Returns 0, or -1 with a cause (connection, unreadable file).
 */
int	 ops_log_read(struct conn *, const char *path, long long offset,
	     size_t max, struct ops_log *, char **cause);
/*
 * The last lines of the file (like tail -n, looked for in the last MiB),
 * with next = the size they end at, so a follow goes on from there.
 */
int	 ops_log_tail(struct conn *, const char *path, int lines,
	     struct ops_log *, char **cause);
void	 ops_log_free(struct ops_log *);
/* The reply of those scripts (for tests and fuzzing); log must be zeroed. */
int	 ops_log_parse(const char *path, const struct conn_result *, int tail,
	     struct ops_log *, char **cause);

/* --- records ---------------------------------------------------------------
   */

/*
 * A guarded record change: one read-modify-write under the records lock.
 * With only_live, a record that is already terminal is left alone (a stale
 * poll or a late cancel never overwrites a final state).  A transition is
 * appended only when state or native differ from the record's (the message
 * alone does not make a change).  set_err also stores err, err_rule and
 * err_evidence.
 */
struct ops_change {
	enum rstate	 state;
	const char	*native;
	const char	*source;	/* "poll", "cancel:cli", "cancel:tui" */
	const char	*message;
	int		 set_err;
	enum err_class	 err;
	const char	*err_rule;
	const char	*err_evidence;	/* triage's quoted line(s), or NULL */
	int		 only_live;
	/* Run time and exit, written with the change (has_elapsed 0, NULL:
	   keep what the record has). */
	int		 has_elapsed;
	long		 elapsed;
	const char	*exit_code;
	/* Out. */
	int		 changed;
	enum rstate	 old;
};
int	 ops_record_change(const char *id, struct ops_change *, char **cause);

/*
 * Find the job an argument names (jobid.h): a record id, or a SLURM job id
 * (an array task by its own numeric id, squeue %A; "12_3" is looked for as
 * a record, sqdeck keeps none of arrays).  A SLURM id is looked up in the
 * records of cluster first, then of any cluster.  Returns 0 with *rp set
 * (caller frees) and *slurm_id; 1 when a SLURM id has no record (*rp NULL,
 * *slurm_id set); -1 with a cause for a malformed or unknown id.
 */
int	 ops_find(const char *arg, const char *cluster, struct record **rp,
	     long *slurm_id, char **cause);
/* The same through an index (record.h): only the record found is read. */
int	 ops_find_in(struct record_index *, const char *arg,
	     const char *cluster, struct record **rp, long *slurm_id,
	     char **cause);

/*
 * Records made under the implicit cluster "default" (SLURM_HOSTNAME, no
 * clusters.yaml) when the configuration no longer has it are moved to
 * the configured cluster with the same login host, user and port, when
 * exactly one matches.  Records of a named cluster are never moved.  Each move
 * is said in *said (one line each; the caller shows them).  Returns how many
 * moved.
 */
struct config;
size_t	 ops_adopt(const struct config *, struct strv *said);
/*
 * The same through the caller's record index (the TUI's, record.h): only
 * the records of "default" are read whole, the others once, into the
 * index that the polls and the jobs pane then use (a week of history was
 * 193,000 whole records in memory at once).
 */
struct record_index;
size_t	 ops_adopt_index(const struct config *, struct record_index *,
	     struct strv *said);
/*
 * The same for a configuration file that is not the user's own (-c FILE,
 * issue 26.12): what would move is said, nothing is moved, so a look
 * through another file never takes the records of the user's clusters.
 */
void	 ops_adopt_look(const struct config *, const char *file,
	     struct strv *said);
/*
 * Why a record's cluster is not usable: NULL when the configuration has
 * it; else a sentence with the fix (caller frees).
 */
char	*ops_orphan_why(const struct config *, const struct record *);

/* --- cancel -----------------------------------------------------------------
   */

struct ops_cancel {
	int		 was_live;	/* in squeue when scancel ran */
	char		*live_state;	/* its state then ("RUNNING"), or "" */
	int		 forgotten;	/* not in squeue: ended, SLURM forgot */
	char		*acct_state;	/* sacct's State when forgotten, or
					   "" (not in accounting), or NULL */
	int		 wiped;		/* the env sidecar was removed */
	int		 changed;	/* the record went to CANCELED */
};

/*
 * Cancel one job (sqdeck(1): cancel) in one round trip: look it up in squeue,
 * scancel it, remove the env sidecar.  A job that has already ended counts as
 * success (scancel prints nothing and exits 0 for it, or "Invalid job id
 * specified" once SLURM forgot it after MinJobAge); but a job that is not in
 * squeue, has no record r and is not in sacct never existed: -1, "no such job".
 * Its record is not forced to
 * CANCELED then, the next poll reads its real end from sacct.  r may be NULL
 * for a job sqdeck does not track (nothing to record or wipe).  A live
 * job's record goes to CANCELED with source ("cancel:cli").
 */
int	 ops_cancel(struct conn *, const struct record *r, long slurm_id,
	     const char *source, struct ops_cancel *, char **cause);
/*
 * The same for array tasks sqdeck does not track: "12_3" or a pending
 * range "12_[4-9]" (the whole array is its plain id: ops_cancel()).
 */
int	 ops_cancel_task(struct conn *, const char *id, const char *source,
	     struct ops_cancel *, char **cause);
void	 ops_cancel_free(struct ops_cancel *);

#endif
