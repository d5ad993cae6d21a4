#ifndef RECORD_H
#define RECORD_H

#include <dirent.h>
#include <stddef.h>
#include <time.h>

#include "state.h"
#include "util.h"

/*
 * Local job records (sqdeck(1): JOB RECORDS AND STATES): one JSON file per job
 * under $XDG_STATE_HOME/sqdeck/records/<id>.json.  A record is opened before
 * the launch (no record, no launch) and every state change is appended to
 * its history.  Writes are temp + fsync + rename, and every update is a
 * read-modify-write under an flock on records/.lock, so the TUI and CLI
 * processes can update the same record without losing a transition.  A
 * file that does not parse is reported with its path and never rewritten.
 */

struct record_event {
	char		*time;		/* ISO-8601 UTC: 2026-11-29T16:45:00Z */
	enum rstate	 state;
	char		*native;	/* SLURM sub-state ("CANCELLED"), or "" */
	char		*source;	/* "create", "submit", "poll", "cancel:cli" */
	char		*message;
};

struct record {
	char		*id;		/* sd-20261129T164500-1a2b3c */
	char		*cluster;
	char		*platform;	/* "slurm" */
	char		*image;
	char		*network_arch;
	char		*action;
	char		*storage_tier;	/* "A" */
	char		*results_root;
	char		*job_dir;
	char		*job_name;
	char		*log_dir;	/* logs: <log_dir>/<job_name>-<slurm_id>/ */
	char		*partition;
	char		*spec_path;	/* <job_dir>/specs/spec.yaml */
	/*
	 * The secrets sidecar the job's script sources, NULL without
	 * secrets.  A retry runs the first submit's script, so it keeps
	 * that record's sidecar: the poll and cancel remove this path.
	 */
	char		*env_file;
	/*
	 * SHA-256 (hex) of the sbatch file as rendered here at submit: a
	 * retry runs the staged file only if it still has it (the job dir
	 * is writable from inside the container).  NULL in older records.
	 */
	char		*sbatch_sha256;
	char		*err_rule;	/* triage rule that set err_class */
	char		*err_evidence;	/* the log line it quoted, or the last */
	char		*retry_of;	/* id of the record this one retries */
	/*
	 * A job array (array.h): its --array value, NULL for one job, and
	 * its tasks as the last poll saw them ("0=COMPLETED 1=RUNNING").
	 */
	char		*array;
	char		*array_tasks;
	/* What was asked, for the detail view (NULL/0 in older records). */
	char		*command;	/* the spec's command */
	char		*time_limit;	/* "H:MM:SS" as given to --time */
	int		 cpus;		/* CPUs per task */
	/*
	 * Where it was submitted (the cluster's first login host, its user
	 * and port; NULL/0 in older records): a record whose cluster name
	 * the configuration no longer has is matched by these (ops_adopt).
	 */
	char		*host;
	char		*user;
	int		 port;
	char		*created;
	char		*updated;
	struct strv	 slurm_ids;	/* backend refs, oldest first */
	/*
	 * What a retry needs, kept here at submit time: the names of the
	 * spec's secrets and its retry budget.  Never read back from the
	 * cluster: a file there decides nothing about what local data
	 * leaves this machine.  retry_known is 0 for a record written
	 * before these fields existed.
	 */
	struct strv	 secrets;
	int		 retry_budget;
	int		 retry_known;
	int		 nodes;
	int		 gpus;
	int		 retry_count;
	/* How the job ended, kept so a finished row keeps its run time. */
	int		 elapsed;	/* seconds run, -1 unknown */
	char		*exit_code;	/* SLURM's "code:signal", or NULL */
	enum rstate	 state;
	char		*native;	/* current SLURM sub-state */
	enum err_class	 err_class;
	struct record_event *history;
	size_t		 nhistory;
};

struct record_list {
	struct record	**v;		/* sorted oldest first */
	size_t		  n;
	struct strv	  corrupt;	/* "PATH: what is wrong", one per file */
};

/* The directory records live in (allocated). */
char		*record_dir(void);
/* A new id: sd-<UTC time>-<6 random hex digits>. */
char		*record_new_id(void);

/* A new in-memory record: state PENDING, platform slurm, tier A. */
struct record	*record_new(const char *cluster);
/*
 * A new in-memory record that retries old (sqdeck(1): retries): same workload,
 * retry_of old's id, retry_count + 1, no SLURM id yet.
 */
struct record	*record_new_retry(const struct record *old);
/*
 * Write a new record's file (assigning an id if it has none) with a first
 * "create" history entry.  Fails if the file cannot be written or the id is
 * taken: the caller must not launch then.  The directory is not synced: the
 * caller's next write (a transition), before anything is sent, does it.
 */
int		 record_create(struct record *, char **cause);
int		 record_load(const char *id, struct record **, char **cause);
/*
 * Remove a record whose submit stopped before anything was written on the
 * cluster (no job, no job dir): 0 once it is gone.
 */
int		 record_discard(const char *id, char **cause);
/* Every record; corrupt files go to list->corrupt, never dropped. */
int		 record_list(struct record_list *, char **cause);
/* ops_adopt's look for records of the implicit "default" cluster: 1 when
 * the records must be listed (a mark says some may wait), then
 * record_adopt_end with how many still wait. */
int		 record_adopt_begin(void);
void		 record_adopt_end(size_t left);
/* The records directory to read (*dp NULL: none yet), or -1 and a cause. */
int		 record_dir_open(DIR **dp, char **cause);
void		 record_list_free(struct record_list *);
/*
 * Append a transition to the record's history and set its state.  An entry
 * identical to the last one (state, native, message) is not repeated, so a
 * poll loop can call this every tick.
 */
int		 record_transition(const char *id, enum rstate,
		     const char *native, const char *source,
		     const char *message, char **cause);
/* Add a SLURM job id (requeue/resubmit keeps the old ones). */
int		 record_set_slurm_id(const char *id, const char *slurm_id,
		     char **cause);
/*
 * Both at once, in one write: a launched job's id and its transition.  The
 * directory is not synced: lost in a crash, the record before it (a job may
 * exist) sends the next submit or recover to look the job up by name.
 */
int		 record_launched(const char *id, const char *slurm_id,
		     enum rstate, const char *native, const char *source,
		     const char *message, char **cause);
int		 record_set_err(const char *id, enum err_class,
		     const char *rule, char **cause);
/* Set a string field by its JSON name ("job_dir", "log_dir", ...). */
int		 record_set(const char *id, const char *field,
		     const char *value, char **cause);
/*
 * Read-modify-write under the lock; fn returns 0 to write, -1 to abort
 * (setting its cause).  fn must not call other record_* functions: the
 * lock is not recursive.
 */
int		 record_update(const char *id,
		     int (*fn)(struct record *, void *, char **), void *arg,
		     char **cause);

/*
 * An index of the records directory for a long-lived reader (the TUI's
 * records thread): which record holds which SLURM job.  A refresh lists
 * the directory and re-reads only the files that are new or changed
 * (size, mtime) since the last one, so a lookup in 10,000 records reads
 * one file.  One thread owns an index: it has no lock.
 */
struct record_index;

struct record_index *record_index_new(void);
void		 record_index_free(struct record_index *);
/*
 * Bring the index up to date.  The records read anew (all of them the
 * first time) go to fresh, sorted as record_list sorts, with the files
 * that do not parse in fresh->corrupt; fresh may be NULL.  A directory
 * whose inode and mtime have not moved since the last listing (and were
 * then at least 2 s old) is not listed again: its files are the same
 * (records are only replaced whole, by rename).
 */
int		 record_index_refresh(struct record_index *,
		     struct record_list *fresh, char **cause);
/* The id of the oldest record of SLURM job sid on cluster, or NULL. */
const char	*record_index_find(const struct record_index *,
		     const char *cluster, const char *sid);
/*
 * The records of cluster a poll needs, read from their files: every one
 * not ended, and the ended ones updated at or after since ((time_t)-1:
 * all of them).  The index is refreshed first (a stat per file); only
 * the selected files are read, so a thousand old records cost no parse.
 * Sorted as record_list sorts.
 */
int		 record_index_select(struct record_index *,
		     const char *cluster, time_t since,
		     struct record_list *out, char **cause);
/*
 * The same for every cluster at once (sqdeck records without --all),
 * with every file that does not parse in out->corrupt.
 */
int		 record_index_recent(struct record_index *, time_t since,
		     struct record_list *out, char **cause);
/*
 * The id of the oldest record of cluster whose current SLURM id is raw
 * (sqdeck history), or NULL; the index is not refreshed.
 */
const char	*record_index_current(struct record_index *,
		     const char *cluster, long raw);
/*
 * A CLI run starts from the index the last one saved (records.index
 * beside records/): only files new or changed since are read, and a
 * directory unchanged since (inode, mtime) is not even listed, so a
 * week of history (193,000 records) costs no read per record.  load:
 * 0, or -1 when there is none or it is not usable (then the refresh
 * reads every file, as without it).  save: writes it again if a
 * refresh listed the directory since; 0 or -1 and a cause.
 */
/*
 * The id of the newest record (record_list's order) of cluster (NULL:
 * any) that has or had SLURM job sid, after a refresh; NULL if none (or
 * the refresh failed: *cause set).
 */
const char	*record_index_newest(struct record_index *,
		     const char *cluster, const char *sid, char **cause);
/*
 * fn(id, current SLURM id or NULL, arg) for every readable record of
 * cluster (NULL: all), oldest first (record_list's order), after a
 * refresh; fn must not call the index.
 */
int		 record_index_each(struct record_index *,
		     const char *cluster,
		     void (*fn)(const char *, const char *, void *), void *arg,
		     char **cause);
char		*record_index_path(void);
int		 record_index_load(struct record_index *);
int		 record_index_save(struct record_index *, char **cause);
/*
 * Entries record_index_select looked at, in all (a test hook: a poll of
 * one cluster looks at that cluster's records in its window, not at
 * every record).
 */
unsigned long	 record_index_visits(const struct record_index *);
/* Records in the index. */
size_t		 record_index_size(const struct record_index *);
/* Bytes it holds (a test hook: a week of history stays small). */
size_t		 record_index_bytes(const struct record_index *);
/*
 * Share an index between threads: every record_index_* call on it then
 * runs between lock(arg) and unlock(arg) (core takes no lock itself).
 * The ids record_index_find gives out stay valid until the index is
 * freed, whatever another thread refreshes meanwhile.
 */
void		 record_index_set_lock(struct record_index *,
		     void (*lock)(void *), void (*unlock)(void *), void *arg);

/*
 * What the jobs pane shows of a record before any poll, as the index
 * keeps it: no file is read for it (the records thread's rows of a week
 * of history).  The strings belong to the index.
 */
struct record_brief {
	const char	*id;		/* the record's id */
	const char	*cluster;
	const char	*sid;		/* its current SLURM id */
	const char	*name;		/* "" if none */
	const char	*partition;	/* "" if none */
	const char	*state;		/* native SLURM state, else the word */
	const char	*user;		/* NULL: the login user's */
	long		 elapsed;	/* seconds run, -1 unknown */
	long		 limit;		/* seconds, -1 none */
	int		 nodes;
	int		 terminal;	/* an end state */
};
typedef void	(*record_brief_fn)(const struct record_brief *, void *);
/*
 * Refresh the index, then call fn for each readable record that has a
 * SLURM id, oldest first (record_list's order), and add to corrupt every
 * file that does not parse ("PATH: what is wrong"), whichever refresh
 * read it first.  fn runs under the index's lock: it must not call the
 * index.
 */
int		 record_index_rows(struct record_index *, struct strv *corrupt,
		     record_brief_fn fn, void *arg, char **cause);

/*
 * Record files and directory listings the calling thread has read (a
 * test hook: the screen's thread must read none).
 */
unsigned long	 record_reads_here(void);
/* Add n reads done for this thread by another (a CLI verb's polls). */
void		 record_reads_add(unsigned long n);

/* The current SLURM id, or NULL. */
const char	*record_slurm_id(const struct record *);
long		 record_limit(const struct record *);
char		*record_to_json(const struct record *);	/* formatted */
/* Parse a record; what names the source in errors. */
int		 record_from_json(const char *text, size_t len,
		     const char *what, struct record **, char **cause);
void		 record_free(struct record *);

#endif
