#ifndef JOBLOG_H
#define JOBLOG_H

/*
 * The log of a job sqdeck did not submit (a plain sbatch, an array task),
 * while SLURM still knows it: squeue -O gives StdOut, StdErr and WorkDir
 * (each field followed by a separator made for that one command, so a job
 * named "x StdOut=/etc/passwd" or holding a newline cannot choose the path
 * read, as it could in scontrol's Key=Value line), and the file name
 * patterns sbatch -o/-e take (%A the
 * array's job id, %a the task id, %j, %u, %x, %%) are resolved here, so
 * "out-%A_%a.txt" of task 12_3 is out-12_3.txt in the job's WorkDir.
 * (Newer scontrol versions print the path already resolved; both work.)
 *
 * Pure: the command and the parser; the worker runs it.
 */

struct joblog {
	char	*job_id;	/* JobId: the task's own numeric id */
	char	*array_job;	/* ArrayJobId, NULL: not an array task */
	char	*array_task;	/* ArrayTaskId ("3"; a pending range "4-9") */
	char	*name;		/* JobName */
	char	*user;		/* UserId without "(uid)" */
	char	*workdir;
	char	*out;		/* StdOut as printed, NULL if none */
	char	*err;
};

/*
 * "squeue -h -t all -j ID -O Field:0SEP,...": id is digits or an array
 * task ("12_3"); sep from slurm_sep_new().
 */
char	*joblog_cmd(const char *id, const char *sep, char **cause);
/*
 * Parse its first row, split on sep only.  -1 and a cause when it has no
 * job (unknown: "slurm_load_jobs error: Invalid job id specified").
 */
int	 joblog_parse(const char *text, const char *sep, struct joblog *,
	     char **cause);
void	 joblog_free(struct joblog *);
/*
 * After the job left squeue (issue 26.4): accounting's row, "sacct -X -n
 * -P --delimiter SEP -j ID -o JobIDRaw,JobID,User,WorkDir,SubmitLine,
 * JobName" (every release 22.05-26.05 has these; StdOut only from 24.11).
 * The -o/-e patterns come from the sbatch command line (SubmitLine),
 * else SLURM's default slurm-%j.out (slurm-%A_%a.out for an array task);
 * an #SBATCH -o in the script is not seen there.
 */
char	*joblog_sacct_cmd(const char *id, const char *sep, char **cause);
int	 joblog_sacct_parse(const char *text, const char *sep,
	     struct joblog *, char **cause);
/*
 * The -o (err: -e) argument of an sbatch command line, NULL if none.
 * Options are read up to the script (the first word no option takes);
 * its own arguments are not sbatch's.
 */
char	*joblog_submit_opt(const char *line, int err);
/*
 * The path of stream err (0: StdOut) with its patterns resolved, made
 * absolute with WorkDir; NULL and a cause when it cannot be (a pattern
 * that needs the node, e.g. %N, or no path at all).
 */
char	*joblog_path(const struct joblog *, int err, char **cause);
/* Resolve one pattern (for the tests); NULL and a cause as above. */
char	*joblog_resolve(const char *pattern, const struct joblog *,
	     char **cause);

#endif
