/*
 * The reaction to a poll: retries of INFRA failures and NCCL learning
 * (react.h).  monitor.c observes; this file acts.
 */
#include "react.h"

#include <stdlib.h>
#include <string.h>

#include "nccl.h"
#include "retry.h"
#include "state.h"
#include "util.h"

/* Retry every record the poll moved to ERROR with class INFRA. */
static int
react_retry(struct conn *c, struct monitor_snapshot *snap)
{
	struct retry_opts	 o;
	struct retry_result	 res;
	char			*cause = NULL, *line;
	size_t			 i, n = snap->n;
	int			 launched = 0, rc;

	memset(&o, 0, sizeof o);
	o.source = "retry:auto";
	for (i = 0; i < n; i++) {
		if (snap->info[i].record_id == NULL || !snap->info[i].changed ||
		    snap->info[i].state != RSTATE_ERROR ||
		    snap->info[i].err != ERR_INFRA)
			continue;
		rc = retry_run(c, snap->info[i].record_id, &o, &res, &cause);
		if (rc == 0) {
			launched++;
			line = xasprintf("%s: INFRA failure, retried as %s "
			    "(SLURM job %s, exclude=%s)",
			    snap->info[i].record_id, res.record_id,
			    res.slurm_id, *res.exclude ? res.exclude : "none");
		} else if (rc == 1)
			line = xasprintf("%s: %s", snap->info[i].record_id,
			    res.why);
		else {
			line = xasprintf("%s: retry failed: %s",
			    snap->info[i].record_id, cause);
			free(cause);
			cause = NULL;
		}
		strv_add(&snap->events, line);
		free(line);
		retry_result_free(&res);
	}
	return launched;
}

int
react_after_poll(struct conn *c, struct monitor_snapshot *snap)
{
	size_t	i;
	int	ended = 0, launched;

	if (!snap->ok)
		return 0;
	for (i = 0; i < snap->n; i++) {
		if (snap->info[i].record_id != NULL && snap->info[i].changed &&
		    state_terminal(snap->info[i].state))
			ended = 1;
	}
	if (!ended)
		return 0;
	launched = react_retry(c, snap);
	nccl_learn(c, snap->cluster, NULL, NULL);
	return launched;
}
