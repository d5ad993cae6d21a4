/*
 * The job directory's layout (see jobdir.h).
 */
#include "jobdir.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct {
	const char	*name;	/* the path, or what comes before the id */
	const char	*suffix;	/* after the record id; NULL: no id */
} jobdir_files[] = {
	[JOBDIR_SPEC] =		{ "specs/spec.yaml", NULL },
	[JOBDIR_LOGS] =		{ "logs", NULL },
	[JOBDIR_RESULTS] =	{ "results", NULL },
	[JOBDIR_STATUS] =	{ "results/status.json", NULL },
	[JOBDIR_SBATCH] =	{ "sbatch/job_", ".sbatch" },
	[JOBDIR_ENV] =		{ "job_", ".env" },
};

char *
jobdir_rel(enum jobdir_file f, const char *record_id)
{
	if (jobdir_files[f].suffix == NULL)
		return xstrdup(jobdir_files[f].name);
	return xasprintf("%s%s%s", jobdir_files[f].name, record_id,
	    jobdir_files[f].suffix);
}

char *
jobdir_path(const char *job_dir, enum jobdir_file f, const char *record_id)
{
	char	*rel = jobdir_rel(f, record_id), *path;

	path = xasprintf("%s/%s", job_dir, rel);
	free(rel);
	return path;
}

char *
jobdir_job_logs(const char *log_dir, const char *job_name,
    const char *slurm_id)
{
	return xasprintf("%s/%s-%s", log_dir, job_name, slurm_id);
}

char *
jobdir_log_file(const char *job_logs, int err)
{
	return xasprintf("%s/%s", job_logs, err ? "main.err" : "main.out");
}

void
jobdir_make(struct jobdir *l, const char *results_root, const char *job_name,
    const char *record_id)
{
	size_t	len = strlen(results_root);

	/* "/" as the root would give "//name". */
	while (len > 1 && results_root[len - 1] == '/')
		len--;
	memset(l, 0, sizeof *l);
	l->job_dir = xasprintf("%.*s/%s", (int)len, results_root, job_name);
	l->spec_path = jobdir_path(l->job_dir, JOBDIR_SPEC, NULL);
	l->log_dir = jobdir_path(l->job_dir, JOBDIR_LOGS, NULL);
	l->results_dir = jobdir_path(l->job_dir, JOBDIR_RESULTS, NULL);
	l->sbatch_rel = jobdir_rel(JOBDIR_SBATCH, record_id);
	l->env_rel = jobdir_rel(JOBDIR_ENV, record_id);
	l->sbatch_path = jobdir_path(l->job_dir, JOBDIR_SBATCH, record_id);
	l->env_path = jobdir_path(l->job_dir, JOBDIR_ENV, record_id);
}

void
jobdir_free(struct jobdir *l)
{
	char	**v[] = { &l->job_dir, &l->spec_path, &l->log_dir,
		    &l->results_dir, &l->sbatch_path, &l->env_path,
		    &l->sbatch_rel, &l->env_rel };
	size_t	  i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		free(*v[i]);
	memset(l, 0, sizeof *l);
}
