#ifndef DEEP_H
#define DEEP_H

#include "config.h"
#include "conn.h"

/*
 * preflight --deep (the checks of preflight where jobs really run): one tiny
 * job on the CPU partition (srun -N1 -n1 -c1 -t 2) checks on a compute node
 * that enroot is there and works (enroot version, enroot list) and that srun
 * there knows Pyxis (--container-image in srun --help, which loads the node's
 * plugstack).  The login node can have both and the nodes neither.
 *
 * When it passes, the time, node and versions are kept in
 * $XDG_STATE_HOME/sqdeck/deep-<cluster>.json; a plain preflight says when
 * the deep check last passed.
 */

#define DEEP_JOB_TIMEOUT	600	/* seconds for the whole srun (queue) */

struct deep {
	int	 ran;		/* srun returned and the script ended */
	int	 srun_rc;
	char	*node;
	char	*enroot;	/* path on the node, NULL: missing */
	char	*enroot_version;
	int	 enroot_list_rc;
	int	 pyxis;		/* srun --help on the node has --container-image */
	char	*output;	/* srun's own lines (errors) */
	int	 ok;
	char	*problem;	/* what failed, with the fix; NULL when ok */
};

/* The script for /bin/sh on the login node.  Pure. */
char	*deep_script(const char *partition, const char *account,
	     const char *job_name);
/* Parse its output (untrusted) and judge it.  Pure. */
void	 deep_parse(const char *out, const char *partition, struct deep *);
void	 deep_free(struct deep *);

/* Run it (one round trip); 0 with d filled, -1 and a cause (SSH). */
int	 deep_run(struct conn *, const struct cluster *, struct deep *,
	     char **cause);

/* The last pass: 0 and *when (ISO 8601 UTC) and *node; 1 if never. */
int	 deep_last(const char *cluster, char **when, char **node);
/* Remember a pass now. */
int	 deep_store(const char *cluster, const struct deep *, char **cause);

#endif
