#ifndef WORKER_H
#define WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "jobtable.h"
#include "msgq.h"
#include "spec.h"

/*
 * The worker threads of the terminal UI (src/worker/README.md): a bounded
 * pool of at most WORKER_POOL_MAX threads, however many clusters are
 * configured (a clusters.yaml of 10 000 entries once started 10 001
 * threads).  Each cluster keeps its own struct conn (one SSH session) and
 * timers; a pool thread takes a cluster whose timer is due or that has a
 * request, does one turn for it and puts it back, so a session is used by
 * one thread at a time (libssh allows no more) and the mutex hands it over.
 * A turn does everything remote for the cluster with the same core
 * functions as the verbs: monitor_poll() every poll_interval seconds
 * (default 5), sinfo once per connection for the partitions, ops_log_read()
 * of the watched job every WORKER_LOG_SECONDS, ops_cancel() and
 * submit_run() on request.  Results go to the UI as messages on the queue
 * (MSG_CLUSTER, MSG_JOBS, MSG_LOG, MSG_ACTION); a worker never touches the
 * screen and never exits the process.
 *
 * Clusters are taken round-robin, connected ones first: a cluster with a
 * session and a due poll (or any with a request) is taken before any that
 * must connect, so however many hosts are down (2,000 in a generated
 * clusters.yaml) the live ones keep their interval.  A cluster that never
 * answered in this run is first probed (conn_probe()), up to 512 at once
 * by one thread: a socket each and a wait of connect_timeout for SSH's
 * hello, no holder and no login; one whose host said hello connects at
 * once, wherever it is in the list.  A cluster that answered before and
 * cannot be reached now costs, while it tries to connect, one thread: once
 * any cluster is connected, at most half of the pool connects at a time,
 * so dead hosts never hold every thread from the live ones.
 * The timer backs off to WORKER_BACKOFF_MAX seconds for a cluster that
 * answered in this run (it is likely back soon) and to WORKER_UNREACH_MAX
 * for one that never did (a host that is gone costs a probe every
 * quarter of an hour, not a connect every minute); `r` asks again at once,
 * with a full connect.
 *
 * Requests from the UI thread (poll now, watch a log, cancel, submit) are
 * put under one mutex and a condition variable wakes the pool; they never
 * wait for the network, so the screen never blocks.  Every conn call is
 * bounded by the cluster's connect_timeout / command_timeout.  Failed polls
 * and connects back off (doubling up to WORKER_BACKOFF_MAX seconds; at least
 * WORKER_RATE_BACKOFF after "Rate limit exceeded") and reconnect by
 * themselves.  A submit runs in a thread of its own while it lasts.
 *
 * Signals are blocked in the workers (except the crash signals) so SIGWINCH
 * and SIGTERM reach the UI thread.
 */

#define WORKER_POOL_MAX		8	/* threads, whatever the clusters */
#define WORKER_LOG_SECONDS	2	/* the watched log is read this often */
#define WORKER_LOG_CHUNK	(256 * 1024)	/* bytes per read at most */
#define WORKER_LOG_LINES	500	/* first read: the last lines only */
#define WORKER_BACKOFF_MAX	60	/* seconds */
#define WORKER_UNREACH_MAX	900	/* seconds: never answered in this run */
#define WORKER_HISTORY_SECONDS	60	/* sacct history at most this often */
#define WORKER_LOST_TRIES	5	/* polls asking sacct for a job squeue let go */
#define WORKER_SOONEST_SECONDS	15	/* sbatch --test-only at most this often */
#define WORKER_RATE_BACKOFF	30	/* seconds after "Rate limit exceeded" */

struct workers;

/*
 * fn(arg, i) for each i < n, on up to nthreads threads at once (this one
 * among them; none started for one item), returning when every call has:
 * a CLI verb's polls of many clusters side by side (sqdeck jobs).
 */
void		 workers_each(size_t n, size_t nthreads,
		     void (*fn)(void *arg, size_t i), void *arg);

/* Threads of the pool for this many clusters (at most WORKER_POOL_MAX). */
size_t		 workers_pool_size(size_t nclusters);
/*
 * Start the pool for the clusters of cfg (no thread if it has none).  cfg
 * and q must outlive the workers: see workers_stop().  Returns NULL and a
 * cause if a thread could not be created (those started are stopped).
 */
struct workers	*workers_start(const struct config *cfg, struct msgq *q,
		     char **cause);
/*
 * The same with a thread for the local records (WORKERS_RECORDS), which
 * the screen asks instead of reading them itself; with WORKERS_ADOPT it
 * first adopts the records of a renamed cluster (ops_adopt) and no poll
 * starts before that is done.
 */
#define WORKERS_RECORDS	0x1
#define WORKERS_ADOPT	0x2
struct workers	*workers_start_flags(const struct config *cfg, struct msgq *q,
		     int flags, char **cause);
/*
 * Read every local record (in the records thread): one MSG_RECORDS with
 * their jobs as rows.  -1 and a cause without a records thread.
 */
int		 workers_records(struct workers *, char **cause);
/*
 * A job's local record for its detail view, found through the records
 * index: ACTION_DETAIL, its message the record's JSON (NULL: no record of
 * that job), or failed with the cause.
 */
int		 workers_detail(struct workers *, const char *cluster,
		     const char *job_id, char **cause);
/*
 * Stop every worker: they finish at once unless stuck in a conn call.
 * Waits at most timeout_ms for them; those still stuck then are detached
 * and left to die with the process.  Returns the number left running: 0
 * means everything was joined and freed; otherwise cfg and q must stay
 * allocated (the stuck threads still read them) and ws is not freed.
 */
int		 workers_stop(struct workers *, int timeout_ms);

/* Poll one cluster now (NULL: every cluster). */
void		 workers_poll_now(struct workers *, const char *cluster);
/*
 * Watch one job's log (only one at a time, across clusters): read from
 * offset (0: start with the last WORKER_LOG_LINES lines) and every
 * WORKER_LOG_SECONDS after.  A NULL cluster stops watching.
 */
void		 workers_watch_log(struct workers *, const char *cluster,
		     const char *job_id, enum log_stream, uint64_t offset);
/*
 * Cancel these jobs (each by its own cluster's worker).  -1 and a cause if
 * a cluster has no worker; results come back as ACTION_CANCEL messages.
 */
int		 workers_cancel(struct workers *, const struct jobtable_key *,
		     size_t n, char **cause);
/*
 * Run the submit pipeline for a copy of spec in cluster's worker.  Each
 * step is an ACTION_SUBMIT message with done 0 and the step's name; the
 * last one has done 1: failed with the failing step's name and the cause,
 * or the SLURM id in job_id.  A dry run ends with step "preview" and the
 * rendered script as the message.  -1 and a cause if the request cannot
 * be queued (no such cluster, a spec that does not serialise).
 */
int		 workers_submit(struct workers *, const char *cluster,
		     const struct spec *, int dry_run, char **cause);
/*
 * The same, connecting as user (NULL: the cluster's) with the cluster's
 * hosts, port, key, agent and known_hosts: the wizard's SLURM_USER.
 */
int		 workers_submit_as(struct workers *, const char *cluster,
		     const char *user, const struct spec *, int dry_run,
		     char **cause);
/*
 * The same with the record id of the dry run the user saw (NULL: a new
 * one): the job gets the name and job dir its preview showed.  A dry
 * run's "preview" answer carries its record id in job_id.
 */
int		 workers_submit_rec(struct workers *, const char *cluster,
		     const char *user, const struct spec *, int dry_run,
		     const char *record_id, char **cause);

/*
 * Read the staged spec of a job sqdeck submitted (for a resubmit with
 * edits): an ACTION_OTHER message with step "spec" carries the YAML, or
 * fails with the reason.
 */
int		 workers_fetch_spec(struct workers *, const char *cluster,
		     const char *job_id, char **cause);

/*
 * Why a job is pending, on demand (the detail view): one "squeue --start"
 * for that job in its cluster's worker.  The answer is an ACTION_OTHER
 * message with step "start" whose message is worker_start_text()'s, or a
 * failure with the reason.  -1 and a cause if the cluster has no worker
 * or the id is not a plain job id.
 */
int		 workers_start_estimate(struct workers *, const char *cluster,
		     const char *job_id, char **cause);
/*
 * Hold (scontrol hold) or release these jobs: one request per cluster
 * carrying its ids, which its worker runs in one remote command.  Each
 * job answers with an ACTION_HOLD message (its cluster and job id) that
 * says how it went.  All or nothing: -1 and a cause, and nothing queued,
 * if a cluster has no worker or an id is not a job id ("123", "123_4").
 */
int		 workers_hold(struct workers *, const struct jobtable_key *,
		     size_t n, int release, char **cause);
/*
 * The same for any job action (act: enum jobact_kind of jobact.h; value
 * the signal or the time limit, checked here, else NULL): hold, release,
 * requeue, signal, time, each answered with one ACTION_HOLD message a job.
 */
int		 workers_act(struct workers *, const struct jobtable_key *,
		     size_t n, int act, const char *value, char **cause);
/*
 * The GPU use of a running job: one srun --overlap nvidia-smi step a node
 * (ops_gpu), asked once: an ACTION_GPU message whose message is
 * gpuuse_text()'s lines, or a failure.  -1 and a cause if the cluster has
 * no worker or the id is not one job.
 */
int		 workers_gpu(struct workers *, const char *cluster,
		     const char *job_id, char **cause);
/*
 * Efficiency of an ended job (eff.h), one sacct: an ACTION_OTHER message
 * with step "efficiency" whose message is "usage" then, on a second line,
 * the hint if any; or a failure.  -1 and a cause if the cluster has no
 * worker or the id is not a plain job id.
 */
int		 workers_efficiency(struct workers *, const char *cluster,
		     const char *job_id, char **cause);
/*
 * Where the wizard's request would start soonest: the resources of sp
 * (nodes, gpus, gpus_per_node, cpus, time_minutes; its partition is not
 * used) planned for each partition of the cluster and tried with sbatch
 * --test-only where they fit (soonest.h).  The answer is an ACTION_OTHER
 * message with step "soonest" and no job id, or a failure.  A NULL sp
 * forgets the request that waits for its turn (the wizard closed): no
 * answer, no scheduler call.
 */
int		 workers_soonest(struct workers *, const char *cluster,
		     const struct spec *, char **cause);
/*
 * The text of a start estimate: reason NULL means squeue has no row (the
 * job is not pending any more); when NULL means SLURM gave no estimate.
 */
char		*worker_start_text(const char *when, const char *reason);

/* Whether cause (a conn or SLURM message) says the cluster throttles us. */
int		 worker_rate_limited(const char *cause);
/* Next backoff in seconds after a failure (pure, for the tests). */
int		 worker_backoff(int current, int interval, int rate_limited);
/* The same for a cluster that never answered (up to WORKER_UNREACH_MAX). */
int		 worker_unreach_backoff(int current, int interval,
		     int rate_limited);

#endif
