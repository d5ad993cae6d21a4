#ifndef SLURM_H
#define SLURM_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util.h"

/*
 * SLURM command lines and parsers of what they print.  Pure code: nothing
 * here talks to the network; the callers (submit, monitor, the verbs) run
 * the strings through conn.c and hand the output back.
 *
 * Only machine formats are used: squeue/sinfo with an explicit -o format,
 * sacct -p, all with fields separated by the ASCII unit separator (0x1f).
 * The separator is passed inside a single-quoted argument, so it survives
 * ssh and the remote shell (tests/data/slurm/capture.sh shows it does).
 *
 * A job name can hold any byte but NUL, a newline and 0x1f included
 * (sbatch -J, or scontrol update JobName= from the job itself), so for
 * squeue and sacct rows the separator is a fresh random string per command
 * (slurm_sep_new(): 0x1f and 16 hex digits) that follows EVERY field, the
 * last one too.  Rows are split on that string only: no name can end its
 * row early or start another one.
 *
 * Every value put into a command is shell-quoted.  Commands that can be
 * given bad arguments return NULL and set *cause.
 */

#define SLURM_SEP		'\037'
#define SLURM_SEP_DEFAULT	"\037"	/* parsers' sep when given NULL */
#define SLURM_SEP_SIZE		18	/* 0x1f, 16 hex digits, NUL */

/* A new random row separator for one squeue/sacct command and its reply. */
void	 slurm_sep_new(char *buf, size_t len);
/*
 * h (SLURM_DIGEST_INIT to start) carried over len bytes of p, each
 * marker and each sep (either may be "") counted as one byte: an answer
 * that did not change digests the same whatever was drawn for it.
 */
#define SLURM_DIGEST_INIT	14695981039346656037ULL
uint64_t slurm_digest(uint64_t h, const char *p, size_t len,
	     const char *marker, const char *sep);

/*
 * Field lists (space separated here; joined with SLURM_SEP for squeue/sinfo
 * and with ',' for sacct -o).  capture.sh carries the same lists and
 * check_slurm.c makes sure they match.
 */
#define SLURM_SQUEUE_FIELDS	"%A %i %P %T %M %l %D %N %r %V %S %b %j"
#define SLURM_SACCT_FIELDS \
	"JobID JobIDRaw State%30 ExitCode Reason NodeList Partition Elapsed " \
	"Timelimit NNodes Submit Start End JobName"
#define SLURM_SINFO_FIELDS	"%P %a %l %D %F %c %m %G"

/*
 * The environment a user's login may carry that changes what squeue,
 * sacct, sinfo and scontrol print (their man pages, ENVIRONMENT
 * VARIABLES): which jobs and partitions (SQUEUE_STATES, SQUEUE_PARTITION,
 * SINFO_PARTITION, ...), the time format (SLURM_TIME_FORMAT=relative prints
 * "23:08:33" for a submit time, "%s" seconds since 1970), the width of
 * array task lists (SLURM_BITSTR_LEN), the default formats.  Every command
 * sqdeck builds for one of those tools starts with "env -u VAR ..." for
 * that tool's variables (checked on 24.11 and 26.05, README.md "SLURM
 * releases").  SLURM_CLUSTERS and SLURM_CONF stay: they say which cluster
 * sbatch submits to, and the queries must ask the same one.
 */
enum slurm_tool {
	SLURM_TOOL_SQUEUE,
	SLURM_TOOL_SACCT,
	SLURM_TOOL_SINFO,
	SLURM_TOOL_SCONTROL,
};
/* "env -u ... " (a trailing space) to put before the tool's name. */
const char *slurm_env_clean(enum slurm_tool);

/* --- durations ---------------------------------------------------------- */

enum slurm_time {
	SLURM_TIME_ERROR = -1,	/* not a SLURM duration at all */
	SLURM_TIME_SET = 0,	/* *secs holds the value */
	SLURM_TIME_UNLIMITED,	/* "UNLIMITED", "infinite" */
	SLURM_TIME_PARTITION,	/* "Partition_Limit": the partition's MaxTime */
	SLURM_TIME_NOT_SET,	/* "NOT_SET", "N/A", "" */
	SLURM_TIME_INVALID,	/* SLURM's own word "INVALID" */
};

/*
 * Parse a SLURM duration in any of the forms SLURM prints or accepts:
 * "M" (minutes), "M:SS", "H:MM:SS", "D-H", "D-H:MM", "D-H:MM:SS", and
 * the words above (case-insensitive).  *secs is set to -1 unless SET.
 */
enum slurm_time slurm_time_parse(const char *s, long *secs);
/* Format as SLURM does: "M:SS", "H:MM:SS" or "D-HH:MM:SS"; <0 -> "-". */
void	 slurm_time_format(long secs, char *buf, size_t len);
/*
 * A partition MaxTime (sinfo %l) in minutes, rounded up; -1 = unlimited.
 * Returns 0, or -1 with *cause for text that is not a time limit.
 */
int	 slurm_maxtime_minutes(const char *s, long *minutes, char **cause);

/*
 * The "-S" argument for sacct covering a job submitted at t: the UTC date
 * of t minus one day, "YYYY-MM-DD", so any cluster time zone is covered.
 * (sacct without -S only looks at jobs since midnight.)
 */
void	 slurm_since(time_t t, char *buf, size_t len);

/* --- job rows (squeue and sacct) ---------------------------------------- */

struct slurm_job {
	long	 id;		/* numeric id; each array task has its own */
	char	*jobid;		/* as printed: "12", "12_3", "12_[1-3]", "12+0" */
	char	*name;
	char	*partition;	/* "" when not known yet */
	char	*state;		/* whole: "PENDING", "CANCELLED by 1001" */
	char	*reason;	/* "None", "JobHeldUser", "Resources", ... */
	char	*nodelist;	/* compressed, "" when none assigned */
	int	 nnodes;	/* -1 unknown */
	long	 elapsed;	/* seconds, -1 unknown */
	enum slurm_time limit_kind;
	long	 limit;		/* seconds when limit_kind is SET, else -1 */
	char	*submit;	/* cluster local time "2026-11-29T16:21:20", "" */
	char	*start;		/* actual start, or squeue's estimate; "" = N/A */
	char	*end;		/* sacct only; "" = not ended / squeue */
	char	*gres;		/* squeue %b ("gres:gpu:2"), "" none or sacct */
	int	 exit_code;	/* sacct ExitCode "3:0" -> 3; -1 unknown */
	int	 exit_signal;	/* ... and 0; -1 unknown */
	int	 exit_folded;	/* 128 taken off exit_code (slurm_exit_parse) */
	/*
	 * sacct's first row for a new job: JobName "allocation", empty
	 * Partition, only the first node, State maybe PENDING.  Name,
	 * partition and nodelist of such a row must not be trusted (the
	 * state settles first); ask again a few seconds later.
	 */
	int	 placeholder;
};

struct slurm_jobs {
	struct slurm_job *v;
	size_t		  n;
	char		 *notes;	/* skipped warning lines, NULL: none */
};

/*
 * Parse the output of slurm_cmd_squeue*() / slurm_cmd_sacct*() made with
 * the same sep (NULL: SLURM_SEP_DEFAULT, for captured files only).  Blank
 * text between rows is ignored, and so are the warnings a site's SLURM
 * prints on stderr, which the poll reads with stdout (slurm_line_is_note():
 * "squeue: warning: ...", "NOTE: ..."): they go to jobs->notes, one a
 * line.  Rows are appended to jobs (which must start zeroed or hold
 * earlier rows).  Returns 0 when every row parsed; -1 when some did not
 * (cut short, bad id, other text between rows, an error line): the good
 * rows are still in jobs and *cause names the first bad row and the count.
 */
int	 slurm_parse_squeue(const char *text, const char *sep,
	     struct slurm_jobs *, char **cause);
int	 slurm_parse_sacct(const char *text, const char *sep,
	     struct slurm_jobs *, char **cause);
/*
 * A line SLURM prints to say something, not a row: "TOOL: warning: ...",
 * "warning: ...", "NOTE: ...", "TOOL: NOTE: ..." (any case).  An error
 * ("squeue: error: ...") is not one: it means the answer may be wrong.
 */
int	 slurm_line_is_note(const char *line, size_t len);

/*
 * sacct's ExitCode "CODE:SIGNAL" into *code and *sig (-1 both when it is
 * not that).  Releases before 25.11 print an exit status of 128 or more
 * less 128 (a batch script that exits 137 because its program was killed
 * by SIGKILL reads 9:0, the same as "exit 9"); 25.11 and later print it as
 * it is (137:0); tests/data/slurm-24.11/exit137.txt and slurm-26.05/ show
 * both.  On the older releases the two cannot be told apart, so the value
 * is kept in their form on every release: a CODE of 128 or more with
 * signal 0 loses 128, and the return value is 1 (else 0).  A record, its
 * triage and the history then read the same whatever the cluster's
 * release; 0:9 (the batch shell itself killed) is the same on all.
 */
int	 slurm_exit_parse(const char *s, int *code, int *sig);

/* First row with this numeric id, or NULL. */
struct slurm_job *slurm_jobs_find(struct slurm_jobs *, long id);
void	 slurm_jobs_free(struct slurm_jobs *);

/*
 * Base word of a state: "CANCELLED by 1001" and "CANCELLED+" (sacct's
 * default width) both give "CANCELLED".  Writes into buf, returns buf.
 */
const char *slurm_state_base(const char *state, char *buf, size_t len);

/* --- commands ------------------------------------------------------------ */

/*
 * The poll: all of the user's queued/running jobs in one squeue.  user NULL
 * means "--me", else "-u USER".
 */
char	*slurm_cmd_squeue(const char *user, const char *sep);
/*
 * Exact-name lookup (ambiguous-submit reconcile): "-t all" so a job that
 * already ended but is still in slurmctld's memory is found too.  squeue
 * knows the real name at once, unlike sacct (see placeholder above).
 */
char	*slurm_cmd_squeue_name(const char *user, const char *name,
	     const char *sep, char **cause);
/*
 * The start estimate of one pending job ("squeue --start"); parse it with
 * slurm_parse_start().  For a job slurmctld no longer knows squeue prints
 * "slurm_load_jobs error: Invalid job id specified" on stderr, exit 1.
 */
char	*slurm_cmd_start(long id, const char *sep, char **cause);
/* What a pending job waits for (squeue %E), for "why pending". */
char	*slurm_cmd_dependency(long id, char **cause);
/* Its output's first line, SLURM's words only ("afterok:12(failed)"), or
   NULL if it has none. */
char	*slurm_parse_dependency(const char *out);
/*
 * One batched sacct (-X: allocations only) for jobs that left the queue,
 * of user only (NULL: the login's own; a job id SLURM reused must not show
 * another user's job).
 * since is the -S value (see slurm_since()); ids must not be empty.  Rows
 * are keyed by JobIDRaw: the tasks of an array job come back with their
 * own ids and jobid "24_1"; a never-started array stays one "24_[1-3]" row.
 */
char	*slurm_cmd_sacct(const long *ids, size_t n, const char *since,
	     const char *user, const char *sep, char **cause);
/*
 * sacct by exact job name (--name) since the given date.  For the first
 * seconds after sbatch the accounting row is missing or still carries the
 * placeholder name "allocation", so no row here proves nothing about a job
 * just submitted: ask squeue (slurm_cmd_squeue_name) first.
 */
char	*slurm_cmd_sacct_name(const char *name, const char *since,
	     const char *user, const char *sep, char **cause);
/* Partitions with their limits. */
char	*slurm_cmd_sinfo(void);
/*
 * "sbatch --parsable [--hold] [-J NAME] SCRIPT": --export is left to the
 * script's #SBATCH lines.  name may be NULL.
 */
char	*slurm_cmd_sbatch(const char *script, const char *name, int hold,
	     char **cause);
/*
 * scancel by ids (one call for a batch).  scancel of a job that already
 * ended prints nothing and exits 0 (tests/data/slurm/scancel_done.*).
 */
char	*slurm_cmd_scancel(const long *ids, size_t n, char **cause);
/* scancel by name: -n takes ONE name per call ("a,b" cancels nothing). */
char	*slurm_cmd_scancel_name(const char *user, const char *name,
	     char **cause);
/* Release a job submitted with --hold. */
char	*slurm_cmd_release(long id, char **cause);

/* --- replies ------------------------------------------------------------- */

enum slurm_submit {
	SLURM_SUBMIT_OK = 0,	/* *id set */
	SLURM_SUBMIT_ERROR,	/* refused: nothing was queued, *msg says why */
	SLURM_SUBMIT_AMBIGUOUS,	/* no usable answer: reconcile by name */
};

/*
 * sbatch --parsable reply: stdout "123" or "123;cluster" is OK.  stderr
 * "sbatch: error: Batch job submission failed: ..." (or another error that
 * is raised before anything reaches slurmctld) is ERROR with the text after
 * "error: ".  Anything else -- empty, garbage, a communication error that
 * might have happened after the job was queued -- is AMBIGUOUS.  msg (may be
 * NULL) gets a message for ERROR and AMBIGUOUS.  err may be NULL.
 */
enum slurm_submit slurm_parse_sbatch(const char *out, const char *err,
	     long *id, char **msg);

/*
 * Output of slurm_cmd_start(): 1 and *when = "2026-11-29T17:02:00" when
 * SLURM has an estimate; 0 and *when = NULL for N/A or no row (the job is
 * not pending any more); -1 with *cause for a malformed reply.  *reason
 * (may be NULL) gets the pending reason when there is a row.
 */
int	 slurm_parse_start(const char *text, const char *sep, char **when,
	     char **reason, char **cause);

/* --- partitions (sinfo) -------------------------------------------------- */

struct slurm_partition {
	char	*name;		/* without sinfo's default marker '*' */
	int	 is_default;
	char	*avail;		/* "up", "down", "drain", "inact" */
	long	 max_minutes;	/* MaxTime, -1 unlimited */
	int	 nodes;		/* total */
	int	 nodes_alloc;	/* from %F A/I/O/T */
	int	 nodes_idle;
	int	 nodes_other;
	int	 cpus;		/* per node (smallest seen), -1 unknown */
	long	 mem_mb;	/* per node (smallest seen), -1 unknown */
	char	*gres;		/* "gpu:4"; several kinds joined by ','; "" */
};

struct slurm_partitions {
	struct slurm_partition *v;
	size_t		 n;
	char		*notes;	/* skipped warning lines, NULL: none */
};

/*
 * Parse slurm_cmd_sinfo() output.  sinfo prints one line per partition and
 * node configuration: lines of the same partition are merged (node counts
 * added).  Same error contract as slurm_parse_squeue().
 */
int	 slurm_parse_sinfo(const char *text, struct slurm_partitions *,
	     char **cause);
const struct slurm_partition *slurm_partition_find(
	     const struct slurm_partitions *, const char *name);
/* The default partition ('*' in sinfo), or NULL. */
const struct slurm_partition *slurm_partition_default(
	     const struct slurm_partitions *);
void	 slurm_partitions_free(struct slurm_partitions *);

/* --- node lists ---------------------------------------------------------- */

/*
 * Expand a SLURM hostlist: "sdn[1-2,5]" -> sdn1 sdn2 sdn5, "n[01-03]"
 * keeps the zero padding, "a1,b[1-2]" and "r[1-2]-n[1-2]" work too.  ""
 * and "None assigned" give no names.  Names are appended to out.  More
 * than 65536 names or a malformed list: -1 and *cause.
 */
int	 slurm_nodelist_expand(const char *list, struct strv *out,
	     char **cause);

#endif
