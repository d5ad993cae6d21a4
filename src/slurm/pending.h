#ifndef PENDING_H
#define PENDING_H

/*
 * Why a job is pending, in words (issue 15.5): SLURM's reason codes
 * (squeue %r, "squeue --start") as a plain sentence and the fix the user
 * can make.  Pure.  Families are matched by prefix (QOSMax*, AssocGrp*,
 * ...); "ReqNodeNotAvail, UnavailableNodes:..." by its first word.
 */
struct pending_why {
	const char	*code;		/* the code matched, e.g. "Priority" */
	const char	*sentence;	/* what it means */
	const char	*fix;		/* what the user can do */
};

/* 0 and why filled for a known reason; -1 for an unknown or empty one. */
int	 pending_explain(const char *reason, struct pending_why *why);
/* "sentence Fix: fix", or NULL for an unknown reason; caller frees. */
char	*pending_text(const char *reason);

#endif
