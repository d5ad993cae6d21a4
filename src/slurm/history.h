#ifndef HISTORY_H
#define HISTORY_H

#include <stddef.h>
#include <time.h>

/*
 * The user's finished jobs from accounting (issue 15.2): jobs drop out of
 * squeue minutes after they end, so one sacct per cluster over a window
 * (history_days, default 7) lists every job of the user that ended in it,
 * submitted by sqdeck or not (a plain sbatch over ssh is there too), with
 * state, exit code and elapsed time.  Its log is the record's when sqdeck
 * submitted it, else SLURM's default slurm-%j.out (slurm-%A_%a.out for an
 * array task) in the job's WorkDir.
 *
 * The command and the parser are pure.
 */

#define HISTORY_DAYS		7	/* default window */
#define HISTORY_FIELDS \
	"JobIDRaw JobID State ExitCode ElapsedRaw TimelimitRaw End " \
	"Partition WorkDir JobName"

struct history_job {
	long	 raw;		/* JobIDRaw */
	char	*id;		/* JobID as printed: "12", "12_3" */
	char	*state;		/* "COMPLETED", "CANCELLED by 1001" */
	int	 exit_code;	/* -1 unknown */
	int	 exit_signal;
	long	 elapsed;	/* seconds, -1 unknown */
	long	 limit;		/* seconds, -1 unknown or unlimited */
	char	*end;		/* "2026-12-01T09:12:01", "" unknown */
	char	*partition;
	char	*workdir;	/* "" unknown */
	char	*name;
};

struct history {
	struct history_job	*v;
	size_t			 n;
};

/*
 * "sacct -X ... -S DATE -E now -s <ended states> [-u USER]": the jobs of
 * user (NULL: the login user) that ended in the last days days (<= 0:
 * HISTORY_DAYS) before now.
 */
char	*history_cmd(const char *user, int days, time_t now, const char *sep,
	     char **cause);
/*
 * Parse history_cmd()'s output made with the same sep (slurm_sep_new():
 * a random string per command that follows every field, so no job name
 * can end its row or start another); rows are appended.  Bad rows are
 * skipped: -1 and a cause naming the first one (the good rows are kept).
 */
int	 history_parse(const char *text, const char *sep, struct history *,
	     char **cause);
void	 history_free(struct history *);
/* SLURM's default log of a job: "WORKDIR/slurm-ID.out"; NULL if unknown. */
char	*history_default_log(const struct history_job *);

#endif
