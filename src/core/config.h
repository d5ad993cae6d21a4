#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

#include "util.h"

/*
 * Clusters come from ~/.config/sqdeck/clusters.yaml (or -c FILE) and the
 * environment (README).  Environment variables override the file for one
 * cluster: the one named by SQDECK_CLUSTER, else the first in the file.
 * With no file and SLURM_HOSTNAME set, there is one implicit cluster called
 * "default" (or $SQDECK_CLUSTER).  The format is in
 * sqdeck-clusters.yaml(5).
 */

#define CONFIG_DEFAULT_PARTITIONS "polar,polar3,polar4,grizzly"
#define CONFIG_MAX_TIME_HOURS	720	/* a typo guard: the partition's
					   MaxTime decides at submit */
#define CONFIG_GPUS_PER_NODE	8	/* default max GPUs per node */

enum container_mode {
	CONTAINER_AUTO = 0,	/* pick from preflight: pyxis if present */
	CONTAINER_PYXIS,
	CONTAINER_NONE,		/* run the command directly (no Pyxis) */
};

struct cluster {
	char		*name;
	struct strv	 hosts;		/* login hosts, tried in order */
	char		*user;		/* NULL: from ~/.ssh/config or $USER */
	int		 port;		/* 0: from ~/.ssh/config or 22 */
	char		*key_path;	/* NULL: IdentityFile / agent */
	char		*cert_path;	/* NULL: <key>-cert.pub if there */
	struct strv	 jumps;		/* bastions in order, [user@]host[:port];
					   none: ProxyJump from ssh_config */
	char		*known_hosts;	/* NULL: ~/.ssh/known_hosts */
	struct strv	 partitions;	/* SLURM_PARTITION; first is the default */
	int		 partitions_default; /* none given: the package's */
	char		*account;	/* #SBATCH --account, NULL: none */
	char		*results_root;	/* SLURM_BASE_RESULTS_DIR: job dirs live here */
	char		*cpu_partition;	/* for enroot import, NULL: "cpu" */
	char		*image_cache;	/* .sqsh cache dir, NULL: <results_root>/.sqsh */
	/* Besides the user, who may own a cached .sqsh (names or uids). */
	struct strv	 image_cache_owners;
	enum container_mode container;
	double		 time_hours;	/* default job time, 0: plan default (4) */
	int		 requeue;	/* -1: default (on), 0 off, 1 on */
	int		 poll_interval;	/* seconds, 0: default (config_poll_interval) */
	int		 min_poll_interval; /* seconds, 0: default (5) */
	int		 max_scheduler_calls; /* per minute, 0: default (20) */
	int		 history_days;	/* sacct window, 0: default (7) */
	int		 history;	/* TUI history rows: -1 default (on), 0 off, 1 on */
	int		 connect_timeout; /* seconds, 0: default (10) */
	int		 command_timeout; /* seconds, 0: default (60) */
	int		 persist;	/* seconds the login is held after its
					   last use; -1: default (600), 0: no
					   holder (a connection per run) */
	int		 gpus_per_node;	/* max GPUs per node, 0: default (8) */
	struct strv	 nccl_env;	/* NAME=value, known-good NCCL settings */
	char		*nccl_probe_command; /* NULL: torchrun default */
	int		 nccl_probe_timeout; /* seconds per try, 0: 120 */
};

struct config {
	char		*path;		/* file read, NULL if none */
	struct cluster	*clusters;
	size_t		 nclusters;
	size_t		 current;	/* config_cluster(NULL); env applied here */
};

/*
 * Load the config.  path NULL means the default location (a missing default
 * file is not an error); a given path must exist.  env overrides apply.
 */
int	 config_load(const char *path, struct config *, char **cause);
/*
 * Find a cluster by name; NULL name = the current one ($SQDECK_CLUSTER,
 * else the first).
 */
struct cluster *config_cluster(struct config *, const char *name, char **cause);
void	 config_free(struct config *);
/*
 * Seconds between polls of the cluster: its poll_interval, else
 * CONFIG_POLL_INTERVAL.  The one place the default is set (the worker,
 * "status --watch", "logs --follow" and the TUI all ask here).
 */
#define CONFIG_POLL_INTERVAL	5
int	 config_poll_interval(const struct cluster *);
const char *config_container_name(enum container_mode);
/* The path config_load(NULL) reads; caller frees. */
char	*config_default_path(void);

#endif
