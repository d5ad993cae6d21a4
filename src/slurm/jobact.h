#ifndef JOBACT_H
#define JOBACT_H

#include <stddef.h>

/*
 * Job actions (hold, release, requeue, signal, time limit) on several
 * jobs at once: what the remote script templates/remote/act.sh answers,
 * read here.  Pure: the
 * replies are untrusted text from the cluster.
 */
enum jobact_kind {
	JOBACT_HOLD,
	JOBACT_RELEASE,
	JOBACT_REQUEUE,
	JOBACT_SIGNAL,		/* scancel --signal: the job's steps */
	JOBACT_SIGNAL_BATCH,	/* scancel --batch --signal: its batch shell */
	JOBACT_TIME,		/* scontrol update TimeLimit= */
};

/* act.sh's word for it ("hold", "batch", "time"). */
const char	*jobact_word(enum jobact_kind);

/*
 * A signal as scancel takes it: "USR1", "SIGUSR1", "usr1" or a number
 * from 1 to 64 give "USR1" or "10" in *out; -1 and a cause else.
 */
int	 jobact_signal(const char *, char **out, char **cause);
/*
 * A time limit as scontrol takes it: minutes, MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM or D-HH:MM:SS; -1 and a cause else.
 */
int	 jobact_time(const char *, char **cause);

/* One job's answer: rc 0 done; words are SLURM's, sanitised, one line. */
struct jobact_row {
	char	*id;
	int	 rc;
	char	*words;
};
struct jobact_reply {
	struct jobact_row	*v;
	size_t			 n;
};
/* act.sh's "ID<TAB>RC<TAB>WORDS" lines; -1 on a malformed line. */
int	 jobact_parse(const char *, struct jobact_reply *, char **cause);
void	 jobact_free(struct jobact_reply *);
/*
 * What a refused action means, in words a user can act on: scontrol's
 * "Access/permission denied" to a new time limit is SLURM's rule that
 * only an administrator raises one.  A new string.
 */
char	*jobact_explain(enum jobact_kind, const char *id, const char *words);

#endif
