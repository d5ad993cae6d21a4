/* The log follower of the CLI and of the TUI's worker (follow.h). */
#include "follow.h"

#include <string.h>

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
