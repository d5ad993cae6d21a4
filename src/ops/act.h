#ifndef ACT_H
#define ACT_H

#include "conn.h"
#include "gpuuse.h"
#include "jobact.h"
#include "util.h"

/*
 * A job action on every job of ids (job ids, array tasks, task ranges:
 * jobid_slurm() checked each) on one cluster, in one remote command
 * (templates/remote/act.sh): one row a job in *reply, in the order given.
 * value is the signal (JOBACT_SIGNAL*) or the time limit (JOBACT_TIME),
 * checked here again.  -1 and a cause when nothing ran.
 */
int	 ops_act(struct conn *, enum jobact_kind, const char *value,
	     const struct strv *ids, struct jobact_reply *, char **cause);

/*
 * The GPU use of a running job: one srun --overlap step on each of its
 * nodes runs nvidia-smi (templates/remote/gpu.sh), once per call, never
 * from a poll.  -1 and a cause when the cluster could not be asked.
 */
int	 ops_gpu(struct conn *, const char *id, struct gpuuse_reply *,
	     char **cause);

#endif
