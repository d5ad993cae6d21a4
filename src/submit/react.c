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

#include "monitor.h"
#include "nccl.h"
#include "record.h"
#include "retry.h"
#include "state.h"
#include "util.h"

#define REACT_DIR	"react-due"

static char *
react_dir(void)
{
	char	*state = path_state_dir(), *dir;

	dir = xasprintf("%s/%s", state, REACT_DIR);
	free(state);
	return dir;
}

void
react_due(const char *cluster, const char *id)
{
	char	*dir = react_dir(), *path;

	/* Record ids are safe file names (record.c). */
	path = xasprintf("%s/%s.due", dir, id);
	if (mkdir_p(dir, 0700, NULL) == 0)
		file_write_atomic(path, cluster, strlen(cluster), 0600, NULL);
	free(path);
	free(dir);
}

/*
 * Take the notes of cluster: each is renamed to a name of this process
 * first, so only one taker acts on it.  Returns the record ids.
 */
static void
react_take(const char *cluster, struct strv *ids)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir = react_dir(), *path, *mine, *text, *id;
	size_t		 len;

	memset(ids, 0, sizeof *ids);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		/* Not a claimed one (".ID.due.PID") nor a file being
		   written ("ID.due.tmp.PID"). */
		if (*de->d_name == '.' || !str_has_suffix(de->d_name, ".due"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		text = NULL;
		if (file_read_max(path, 4096, &text, &len, NULL) == 0 &&
		    strlen(text) == len && strcmp(text, cluster) == 0) {
			mine = xasprintf("%s/.%s.%ld", dir, de->d_name,
			    (long)getpid());
			if (rename(path, mine) == 0) {
				id = xstrndup(de->d_name,
				    strlen(de->d_name) - 4);
				strv_add(ids, id);
				free(id);
				unlink(mine);
			}
			free(mine);
		}
		free(text);
		free(path);
	}
	closedir(d);
	free(dir);
}

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
	rc = r->state == RSTATE_ERROR && r->err_class == ERR_INFRA;
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
	react_take(snap->cluster, &ids);
	if (ids.n == 0)
		return 0;
	for (i = 0; i < ids.n; i++)
		launched += react_retry(c, ids.v[i], &snap->events);
	nccl_learn(c, snap->cluster, NULL, NULL);
	strv_free(&ids);
	return launched;
}
