/* The log follower of the CLI and of the TUI's worker (follow.h). */
#include "follow.h"

#include <stdlib.h>
#include <string.h>

#include "joblog.h"
#include "slurm.h"
#include "util.h"

void
follow_init(struct follow *f, const char *path, long long offset, int lines,
    size_t chunk)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->next = offset;
	f->lines = lines;
	f->chunk = chunk;
}

int
follow_read(struct conn *c, struct follow *f, struct ops_log *log,
    char **cause)
{
	int	rc, flags = 0;

	if (f->next < 0)
		rc = ops_log_tail(c, f->path, f->lines, log, cause);
	else
		rc = ops_log_read(c, f->path, f->next, f->chunk, log, cause);
	if (rc != 0)
		return -1;
	if (log->missing) {
		flags |= FOLLOW_MISSING;
		/* When it comes, all of it is new (or its last lines). */
		if (f->next >= 0 || !f->tail_late)
			f->next = 0;
	} else {
		f->next = log->next;
		if (log->len < f->chunk)
			flags |= FOLLOW_EOF;
	}
	/* An ended job with nothing more to read: stop asking. */
	if (f->ended && (flags & (FOLLOW_EOF | FOLLOW_MISSING))) {
		flags |= FOLLOW_DONE;
		f->done = 1;
	}
	return flags;
}

/* One lookup command's row as a joblog; 0, or -1 (no job there). */
static int
foreign_row(struct conn *c, const char *id, int acct, struct joblog *jl,
    char **cause)
{
	struct conn_result	 res;
	char			 sep[SLURM_SEP_SIZE], *cmd;
	int			 rc = -1;

	memset(&res, 0, sizeof res);
	slurm_sep_new(sep, sizeof sep);
	cmd = acct ? joblog_sacct_cmd(id, sep, cause) :
	    joblog_cmd(id, sep, cause);
	if (cmd == NULL)
		return -1;
	if (conn_exec(c, cmd, NULL, 0, &res, cause) == 0) {
		if (res.status == 0)
			rc = acct ? joblog_sacct_parse(res.out, sep, jl, NULL) :
			    joblog_parse(res.out, sep, jl, NULL);
		if (rc != 0)
			cause_set(cause, "SLURM has no job %s%s", id, acct ?
			    " (squeue and sacct)" : "");
	}
	conn_result_free(&res);
	free(cmd);
	return rc;
}

int
follow_foreign_path(struct conn *c, const char *id, int err, char **path,
    int *ended, char **cause)
{
	struct joblog	 jl;
	char		*why = NULL;

	*path = NULL;
	*ended = 0;
	memset(&jl, 0, sizeof jl);
	if (foreign_row(c, id, 0, &jl, &why) != 0) {
		free(why);
		why = NULL;
		joblog_free(&jl);
		if (foreign_row(c, id, 1, &jl, cause) != 0) {
			joblog_free(&jl);
			return -1;
		}
		*ended = 1;
	}
	*path = joblog_path(&jl, err, cause);
	joblog_free(&jl);
	return *path != NULL ? 0 : -1;
}
