#ifndef PREFLIGHT_H
#define PREFLIGHT_H

#include <stddef.h>

#include "config.h"
#include "conn.h"
#include "util.h"

/*
 * Preflight: the login node's SLURM tools, Pyxis, Enroot, the
 * shared storage root and the partitions, reported by one script
 * (templates/remote/preflight.sh) over one channel as key=value lines
 * (tests/data/preflight-*.txt are real captures).  The
 * parser and the verdict are pure so every branch is unit-testable; the
 * result is meant to be kept per session (submit reads partitions' MaxTime
 * and the container mode from it).
 */

enum preflight_tool {
	PF_SBATCH,
	PF_SQUEUE,
	PF_SACCT,
	PF_SCANCEL,
	PF_SINFO,
	PF_SRUN,
	PF_ENROOT,
	PF_NTOOLS
};

struct preflight_tool_info {
	char	*path;		/* NULL: not in the login node's PATH */
	char	*version;	/* first line of --version, NULL if none */
};

struct preflight_partition {
	char	*name;
	int	 exists;
	char	*max_time;	/* as sinfo prints it: "4:00:00", "infinite" */
	long	 max_minutes;	/* -1 unlimited, unknown or missing */
	char	*avail;		/* "up", "down", ... */
	int	 nodes;		/* 0 unknown */
	int	 cpus;		/* per node (the most), 0 unknown */
	int	 gres_known;	/* gpus is from sinfo GRES */
	int	 gpus;		/* per node (the most), 0 none */
	int	 is_default;	/* sinfo marks it with '*' */
};

struct preflight {
	int		 complete;	/* the script's end marker was seen */
	char		*user;		/* remote id -un */
	char		*home;		/* remote $HOME */
	char		*login_host;	/* remote hostname */
	struct preflight_tool_info tools[PF_NTOOLS];
	struct strv	 srun_help;	/* srun --help lines naming --container */
	int		 pyxis;		/* srun accepts --container-image */

	char		*storage_root;	/* as resolved on the cluster */
	int		 storage_default; /* root unset: $HOME/sqdeck used */
	int		 storage_created; /* the default root was created now */
	int		 storage_exists;
	int		 storage_writable;
	char		*storage_error;	/* why the probe file failed */

	int		 sinfo_rc;
	char		*sinfo_error;	/* sinfo's message when it failed */
	struct preflight_partition *parts;	/* every partition on the cluster */
	size_t		 nparts;

	/* Filled by preflight_evaluate(). */
	struct preflight_partition *wanted;	/* the configured ones, in order */
	size_t		 nwanted;
	enum container_mode container;	/* PYXIS or NONE: what submit uses */
	char		*cpu_partition;	/* the conversion's, when checked */
	int		 cpu_exists;	/* ... and it is on the cluster */
	int		 cluster_default; /* wanted[0] is sinfo's '*' one */
	int		 ok;		/* everything a submit needs is there */
	struct strv	 problems;	/* blocking, each says what to do */
	struct strv	 warnings;
};

/* The names used in the script output, tables and JSON ("sbatch", ...). */
const char *preflight_tool_name(enum preflight_tool);

/*
 * The preflight script for /bin/sh.  results_root NULL or "" means
 * $HOME/sqdeck on the cluster (created if missing); a given root must
 * already exist.  The value is shell-quoted.
 */
char	*preflight_script(const char *results_root);

/*
 * Parse the script's output (text before the "sqdeck-preflight=" line,
 * such as a login banner, is skipped).  Returns 0, or -1 and a cause when
 * the start marker is missing.  pf is zeroed first.
 */
int	 preflight_parse(const char *text, struct preflight *, char **cause);

/* Does this srun --help line offer Pyxis's --container-image? */
int	 preflight_line_has_pyxis(const char *line);

/*
 * Verdict against what the cluster is configured for: partitions (the first
 * one is the default and must exist) and the container mode wanted.
 */
void	 preflight_evaluate(struct preflight *, const struct strv *partitions,
	     enum container_mode wanted);
/*
 * The same for a cluster's settings, and more: without 'partitions:' the
 * package's default names that do not exist give way to the cluster's
 * default partition (sinfo's '*'); the conversion partition (cpu_partition)
 * is checked when images run under Pyxis; an unset SLURM_USER is named.
 */
void	 preflight_evaluate_cluster(struct preflight *,
	     const struct cluster *);

/*
 * Run the script over c (one channel), parse and evaluate it.  raw (may be
 * NULL) gets the script's stdout.  Returns 0 when the check ran (pf->ok
 * says whether it passed), -1 and a cause when it could not run.
 */
int	 preflight_run(struct conn *, const struct cluster *,
	     struct preflight *, char **raw, char **cause);

/*
 * The same, but an answer that passed (kept by the shared login, see
 * conn_exec_cached) at most max_age seconds ago on the session in use is
 * reused without a round trip; *age (may be NULL) is its age in seconds,
 * or -1 when the script ran now.  Every answer that passes here is kept
 * (also by preflight_run).
 */
#define PREFLIGHT_REUSE	300	/* seconds a submit reuses a passed check */
int	 preflight_run_cached(struct conn *, const struct cluster *,
	     struct preflight *, int max_age, int *age, char **raw,
	     char **cause);

/* The partition as found on the cluster, or NULL. */
const struct preflight_partition *preflight_find(const struct preflight *,
	     const char *name);

void	 preflight_free(struct preflight *);

#endif
