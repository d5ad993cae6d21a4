/*
 * Job actions and a running job's GPU use: one remote command a request
 * and a cluster, however many jobs (act.h).
 */
#include "act.h"

#include <stdlib.h>
#include <string.h>

#include "jobid.h"
#include "rsh.h"

int
ops_act(struct conn *c, enum jobact_kind k, const char *value,
    const struct strv *ids, struct jobact_reply *reply, char **cause)
{
	struct conn_result	 res;
	struct jobid		 j;
	struct buf		 b, list;
	char			*v = NULL, *why = NULL;
	size_t			 i;
	int			 rc = -1;

	memset(reply, 0, sizeof *reply);
	memset(&res, 0, sizeof res);
	if (ids->n == 0)
		return cause_set(cause, "no job given");
	if ((k == JOBACT_SIGNAL || k == JOBACT_SIGNAL_BATCH) &&
	    jobact_signal(value, &v, cause) != 0)
		return -1;
	if (k == JOBACT_TIME) {
		if (jobact_time(value, cause) != 0)
			return -1;
		v = xstrdup(value);
	}
	/* act.sh splits the list on spaces: only what SLURM takes as a job. */
	buf_init(&list);
	for (i = 0; i < ids->n; i++) {
		jobid_parse(ids->v[i], &j);
		if (!jobid_slurm(&j)) {
			buf_free(&list);
			free(v);
			return cause_set(cause, "'%.40s' is not a SLURM job id",
			    ids->v[i]);
		}
		buf_printf(&list, "%s%s", i != 0 ? " " : "", ids->v[i]);
	}
	buf_init(&b);
	rsh_var(&b, "a", jobact_word(k));
	rsh_var(&b, "v", v != NULL ? v : "");
	rsh_var(&b, "ids", list.data);
	rsh_embed(&b, "act.sh");
	if (rsh_run_limit(c, b.data, 0, CONN_MAXOUT, &res, &why) != 0) {
		cause_set(cause, "scontrol %s: %s", jobact_word(k), why);
		goto out;
	}
	if (res.status != 0) {
		cause_set(cause, "scontrol %s: the cluster answered "
		    "unexpectedly (exit %d)", jobact_word(k), res.status);
		goto out;
	}
	rc = jobact_parse(res.out, reply, cause);
out:
	buf_free(&b);
	buf_free(&list);
	conn_result_free(&res);
	free(why);
	free(v);
	return rc;
}

int
ops_gpu(struct conn *c, const char *id, struct gpuuse_reply *g,
    char **cause)
{
	struct conn_result	 res;
	struct jobid		 j;
	struct buf		 b;
	char			*why = NULL;
	int			 rc = -1;

	memset(g, 0, sizeof *g);
	memset(&res, 0, sizeof res);
	jobid_parse(id, &j);
	if (j.kind != JOBID_JOB && j.kind != JOBID_TASK &&
	    j.kind != JOBID_SLUID)
		return cause_set(cause, "'%.40s' is not one SLURM job", id);
	buf_init(&b);
	rsh_var(&b, "j", id);
	rsh_embed(&b, "gpu.sh");
	if (rsh_run_limit(c, b.data, 90, CONN_MAXOUT, &res, &why) != 0) {
		cause_set(cause, "nvidia-smi in job %s: %s", id, why);
		goto out;
	}
	rc = gpuuse_parse(res.out, g, cause);
out:
	buf_free(&b);
	conn_result_free(&res);
	free(why);
	return rc;
}
