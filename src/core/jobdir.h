#ifndef JOBDIR_H
#define JOBDIR_H

/*
 * The ONE definition of a job directory's layout on shared storage (sqdeck(1):
 * IMAGES AND STORAGE). Submit writes there; the monitor, the verbs, retry and
 * the TUI workers read there (ops.h turns a record into these paths):
 *
 *	<results_root>/<job_name>/specs/spec.yaml, specs/spec.json
 *	                          files/...   supporting files (sha256 checked)
 *	                          env/env.json, meta/meta.json
 *	                          sbatch/job_<record id>.sbatch
 *	                          job_<record id>.env   (secrets, mode 600)
 *	                          logs/<job_name>-<slurm id>/main.out, main.err
 *	                          results/status.json   (by the job)
 *
 * Every function returns a new string.
 */

enum jobdir_file {
	JOBDIR_SPEC,		/* specs/spec.yaml */
	JOBDIR_LOGS,		/* logs (a record's log_dir may differ) */
	JOBDIR_RESULTS,		/* results */
	JOBDIR_STATUS,		/* results/status.json */
	JOBDIR_SBATCH,		/* sbatch/job_<record id>.sbatch */
	JOBDIR_ENV,		/* job_<record id>.env */
};
/* A file relative to the job dir (record_id: for SBATCH and ENV). */
char	*jobdir_rel(enum jobdir_file, const char *record_id);
/* The same under job_dir. */
char	*jobdir_path(const char *job_dir, enum jobdir_file,
	     const char *record_id);
/* <log_dir>/<job_name>-<slurm_id>: sbatch's --output=<log_dir>/%x-%j/. */
char	*jobdir_job_logs(const char *log_dir, const char *job_name,
	     const char *slurm_id);
/* main.out, or main.err when err is set, in a job's log directory. */
char	*jobdir_log_file(const char *job_logs, int err);

/* All of one job dir, as submit lays it out. */
struct jobdir {
	char	*job_dir;
	char	*spec_path;	/* specs/spec.yaml */
	char	*log_dir;	/* logs: <log_dir>/<job_name>-<id>/main.out */
	char	*results_dir;
	char	*sbatch_path;	/* sbatch/job_<record id>.sbatch */
	char	*env_path;	/* job_<record id>.env */
	/* The same relative to job_dir, as the stage tar names them. */
	char	*sbatch_rel;
	char	*env_rel;
};
void	 jobdir_make(struct jobdir *, const char *results_root,
	     const char *job_name, const char *record_id);
void	 jobdir_free(struct jobdir *);

#endif
