#ifndef RETRY_H
#define RETRY_H

#include <stddef.h>

#include "conn.h"
#include "record.h"
#include "util.h"

/*
 * Retries of infrastructure failures (sqdeck(1): retries).  A job that ended
 * ERROR with triage class INFRA gets a NEW record (retry_of = the failed one,
 * retry_count + 1) and the workload already staged on the cluster is
 * submitted again: the same sbatch file in the same job dir (inputs are
 * not staged again, the image is not converted again), with the nodes of
 * the failure in "sbatch --exclude" on the command line, within the retry
 * budget of the spec (retry_budget, default 2).  PROGRAM and CONFIG
 * failures are never retried: the triage rule is shown instead.
 *
 * A job SLURM requeued by itself (#SBATCH --requeue after NODE_FAIL) is
 * back in the queue with the same id: it is followed through its
 * restarts and is no failure here.
 *
 * The exclusion: the nodes of the failed job that sinfo shows down,
 * drained, failing or not responding; when none is, every node of the
 * failed job.  Exclusions of earlier retries in the chain are kept.  If
 * that would exclude every node of the partition, only the failing nodes
 * are kept, or none (the note says so).
 *
 * The retry's history message carries "exclude=<nodes>" so the next retry
 * of the chain inherits it.
 */

/* Why a record is or is not retried. */
enum retry_decision {
	RETRY_GO = 0,
	RETRY_NOT_ERROR,	/* not ERROR (yet) */
	RETRY_NOT_INFRA,	/* PROGRAM or CONFIG: the rule says why */
	RETRY_BUDGET,		/* retry_count reached the budget */
	RETRY_DONE,		/* already retried by another record */
	RETRY_REQUEUED,		/* SLURM has the job in the queue again */
};

/*
 * Pure: may r be retried?  budget is the spec's retry_budget; retried_by
 * is the id of an existing retry of r or NULL; queued is SLURM's state of
 * the job if squeue still lists it ("PENDING" after a requeue), else NULL.
 * *why (may be NULL) gets a sentence for the user either way.
 */
enum retry_decision retry_decide(const struct record *r, int budget,
	     const char *retried_by, const char *queued, char **why);

/*
 * Pure: the --exclude list ("" for none).  failed is the failed job's
 * NodeList (compressed), sinfo is "NODE STATE" lines of the partition
 * (sinfo -N -o '%N %t'), inherited the exclusion of the chain so far
 * (comma list or NULL).  *note (may be NULL) explains a cut.
 */
char	*retry_exclude(const char *failed, const char *sinfo,
	     const char *inherited, char **note);

/* The exclusion a retry record carries (from its history), or NULL. */
char	*retry_inherited(const struct record *);
/*
 * Every node excluded anywhere in r's chain up to r (the union of the
 * exclusions each retry carries), or NULL: a retry of r inherits them all.
 */
char	*retry_inherited_chain(const struct record *r);

/*
 * The chain a record belongs to, from the first submit to the last retry
 * (following retry_of back, then the records that retry each one).
 * Returns 0 with *out (record_free each, then free) and *n.
 */
int	 retry_chain(const char *id, struct record ***out, size_t *n,
	     char **cause);

struct retry_opts {
	const char	*source;	/* history source: "retry:cli" */
	/* Secret values by name; NULL: getenv. */
	const char	*(*secret)(const char *name, void *arg);
	void		*arg;
};

struct retry_result {
	enum retry_decision	 decision;
	char			*why;		/* the decision in words */
	char			*record_id;	/* the new record */
	char			*slurm_id;	/* its job */
	char			*state;		/* its state name */
	char			*exclude;	/* "" when none */
	char			*note;		/* an exclusion cut, or NULL */
	char			*inherited;	/* excluded earlier in the chain,
						   NULL: none */
	int			 adopted;	/* sbatch's reply was lost and the
						   job was found by name */
	int			 resubmitted;	/* ...none was found: sent again */
	char			*sbatch_path;	/* the file submitted again */
	int			 budget;
};

/*
 * Retry one record (two round trips: what SLURM says about the failed job,
 * the spec's budget and secrets, sinfo; then the sbatch).  Returns 0 when
 * a retry was launched, 1 when the rules say no (res->why), -1 with a
 * cause on an error (the new record, if one was opened, goes to ERROR).
 */
int	 retry_run(struct conn *, const char *record_id,
	     const struct retry_opts *, struct retry_result *, char **cause);
void	 retry_result_free(struct retry_result *);

#endif
