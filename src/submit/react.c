/*
 * The reaction to what a poll saw: retries of INFRA failures and NCCL
 * learning (react.h).  monitor.c observes; this file acts.
 */
#include "react.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ends.h"
#include "monitor.h"
#include "nccl.h"
#include "record.h"
#include "retry.h"
#include "state.h"
#include "util.h"

/* Retry the record if it ended ERROR with class INFRA. */
static int
react_retry(struct conn *c, const char *id, struct strv *events)
{
	struct retry_opts	 o;
	struct retry_result	 res;
	struct record		*r;
	char			*cause = NULL, *line;
	int			 rc;

	if (record_load(id, &r, NULL) != 0)
		return 0;
	/* Arrays are never retried (retry.c says why). */
	rc = r->state == RSTATE_ERROR && r->err_class == ERR_INFRA &&
	    r->array == NULL;
	record_free(r);
	if (!rc)
		return 0;
	memset(&o, 0, sizeof o);
	o.source = "retry:auto";
	rc = retry_run(c, id, &o, &res, &cause);
	if (rc == 0)
		line = xasprintf("%s: INFRA failure, retried as %s (SLURM job "
		    "%s, exclude=%s)", id, res.record_id, res.slurm_id,
		    *res.exclude ? res.exclude : "none");
	else if (rc == 1)
		line = xasprintf("%s: %s", id, res.why);
	else
		line = xasprintf("%s: retry failed: %s", id, cause);
	strv_add(events, line);
	free(line);
	free(cause);
	retry_result_free(&res);
	return rc == 0;
}

int
react_after_poll(struct conn *c, struct monitor_snapshot *snap)
{
	struct strv	ids;
	size_t		i;
	int		launched = 0;

	if (!snap->ok)
		return 0;
	ends_take(snap->cluster, &ids);
	if (ids.n == 0)
		return 0;
	for (i = 0; i < ids.n; i++)
		launched += react_retry(c, ids.v[i], &snap->events);
	nccl_learn(c, snap->cluster, NULL, NULL);
	strv_free(&ids);
	return launched;
}
