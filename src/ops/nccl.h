#ifndef NCCL_H
#define NCCL_H

#include <stddef.h>

#include "config.h"
#include "conn.h"
#include "util.h"

/*
 * The NCCL probe (sqdeck(1): NCCL probe).  A job that needs NCCL between GPUs
 * (nodes > 1, or more than one GPU per node) first runs a cheap all-reduce as
 * step 0 of its OWN allocation (the PRE_STEP of the sbatch template), under
 * "timeout T".  A probe that hangs or fails is tried again with the next
 * setting of a fixed ladder, each adding to the one before:
 *
 *	default
 *	NCCL_P2P_DISABLE=1
 *	... NCCL_SOCKET_IFNAME=<interface of MASTER_ADDR, else eth0>
 *	... NCCL_IB_DISABLE=1
 *
 * The settings are exported in the batch script (and, under Pyxis, named
 * in --container-env so the image cannot override them).  The script
 * prints one machine-readable line to main.out:
 *
 *	SQDECK_NCCL_OK=<setting>	a try worked ("default" or
 *					"NAME=value,NAME=value")
 *	SQDECK_NCCL_SKIP=<why>	the probe could not run at all (no
 *					torchrun/torch: exit 127 or 2); the
 *					workload goes on, nothing is cached
 *	SQDECK_NCCL_FAIL=<why>	every try failed: the script exits
 *					before the main step (triage rule
 *					"nccl-probe", class INFRA)
 *
 * The setting that worked is cached locally, keyed by cluster + partition
 * + image, in $XDG_STATE_HOME/sqdeck/nccl-cache.json (atomic writes
 * under an flock); later jobs with a cache hit skip the probe and get the
 * cached settings in EXTRA_ENV.  A job that probes is remembered in
 * nccl-pending/<record id>.json until its log has been read
 * (nccl_learn(), called by the monitor and by the next submit).
 */

#define NCCL_PROBE_TIMEOUT	120	/* seconds per try */
#define NCCL_PROBE_BUDGET_PERCENT 5	/* of the job's time, for all tries */
#define NCCL_PROBE_BUDGET_MIN	60	/* seconds, whatever the share */
#define NCCL_PROBE_PORT		29510	/* + try number: never MASTER_PORT */
/* <job_dir>/nccl/result-<slurm id>: the probe step's answer, one per job. */
#define NCCL_RESULT_DIR		"nccl"

/* Does a job of this shape need the probe?  nodes > 1 or gpus/node > 1. */
int	 nccl_wanted(int nodes, int gpus_per_node);

/* The probe each node runs when the cluster sets none (torchrun). */
const char *nccl_default_command(void);

/*
 * PRE_STEP shell that runs the probe ladder.  command is run with bash -c
 * in every task of the step (NULL: nccl_default_command()); timeout is
 * seconds per try (0: NCCL_PROBE_TIMEOUT).  nodes and gpus_per_node give
 * torchrun its shape.  Pure.
 */
char	*nccl_probe_step(const char *command, int timeout, int nodes,
	     int gpus_per_node);
/*
 * The same with a total budget in seconds for all tries (each try gets at
 * most what is left; 0: four tries' worth, -1: none, as nccl_probe_step),
 * stated in the job's log with job_minutes (0: not stated).  The probe and the
 * job share one Pyxis container (named sqdeck-<job id>), removed on every node
 * when the script ends.  Pure.
 */
char	*nccl_probe_step_budget(const char *command, int timeout, int budget,
	     int job_minutes, int nodes, int gpus_per_node);
/*
 * The probe's total budget for a job of job_minutes: 5 % of its time, at
 * least 60 s, at most the four tries of timeout seconds (0: 120).
 */
int	 nccl_probe_budget(int job_minutes, int timeout);
/* PRE_STEP shell of a cache hit: says so, protects names in Pyxis. */
char	*nccl_skip_step(const char *setting, const struct strv *env);

/*
 * A setting as the script prints it -> NAME=value items ("default" gives
 * none).  Only NCCL_* names and plain values are accepted, since they end
 * up in job scripts.
 */
int	 nccl_setting_parse(const char *setting, struct strv *env,
	     char **cause);

enum nccl_verdict {
	NCCL_NONE = 0,		/* no result line (yet) */
	NCCL_OK,
	NCCL_SKIP,
	NCCL_FAIL,
};
/* The last SQDECK_NCCL_* line of a log; *value (may be NULL) its text. */
enum nccl_verdict nccl_parse_log(const char *text, size_t len, char **value);
const char *nccl_verdict_name(enum nccl_verdict);

/* --- the cache ------------------------------------------------------------ */

char	*nccl_cache_path(void);
/*
 * 1 and *setting (allocated) on a hit, 0 on a miss, -1 with a cause when
 * the cache file exists but cannot be read.
 */
int	 nccl_cache_lookup(const char *cluster, const char *partition,
	     const char *image, char **setting, char **cause);
/* Store (replace) the entry; record_id says where it was learnt. */
int	 nccl_cache_store(const char *cluster, const char *partition,
	     const char *image, const char *setting, const char *record_id,
	     char **cause);
/* Drop an entry (a cached setting that stopped working); 1 if it was there. */
int	 nccl_cache_forget(const char *cluster, const char *partition,
	     const char *image, char **cause);

/* --- what submit calls -----------------------------------------------------
   */

struct nccl_job {
	int		 probe;		/* PRE_STEP runs the probe */
	int		 cached;	/* a cache hit: no probe */
	char		*setting;	/* the cached setting on a hit */
	char		*pre_step;	/* for PRE_STEP ("" when not wanted) */
	int		 budget;	/* seconds for all probe tries */
	struct strv	 env;		/* NAME=value to add to EXTRA_ENV */
};

/*
 * Decide for one job: learn pending results of this key first (one round
 * trip, only when there are some; c may be NULL to skip that), then look
 * the cache up.  Fills job; returns -1 only for an unusable cache file.
 */
int	 nccl_prepare(struct conn *c, const struct cluster *,
	     const char *partition, const char *image, int nodes,
	     int gpus_per_node, int job_minutes, struct nccl_job *,
	     char **cause);
void	 nccl_job_free(struct nccl_job *);

/* Remember that a record's job probes (after the record exists). */
int	 nccl_pending_add(const char *record_id, const char *cluster,
	     const char *partition, const char *image, char **cause);

/*
 * Read the result lines of pending jobs of this cluster that have started
 * (ONE remote command for all of them; nothing remote when none), store
 * what worked, forget what is settled.  *learned (may be NULL) counts the
 * cache entries written.  Returns -1 only when the remote command failed.
 */
int	 nccl_learn(struct conn *, const char *cluster, int *learned,
	     char **cause);

#endif
