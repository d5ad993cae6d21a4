#ifndef REMOTE_H
#define REMOTE_H

#include <stddef.h>

#include "util.h"

/*
 * The reply protocol of every script that asks several things in one round
 * trip (the poll, a retry's look at SLURM, reading NCCL answers).  The
 * script starts with remote_reply_prelude(): it sets N to the marker and
 * defines sec(), which prints a section header, the line
 * "<marker> <kind> <arg>" after a "\n".  A section's data is everything up
 * to the "\n" before the next header; the last section is "end".  The
 * marker is random per script (remote_marker(): "SDM" and 16 hex digits),
 * so nothing a job prints (logs, file contents) can forge a header.
 */
#define REMOTE_MARKER_SIZE	32
int	 remote_marker(char *buf, size_t len);
/* "N=<marker>", sec(): the lines every such script starts with. */
void	 remote_reply_prelude(struct buf *, const char *marker);

struct remote_section {
	char		 kind[16];	/* the question answered */
	char		 arg[32];	/* exit code, SLURM id, index */
	const char	*data;		/* into the reply; not NUL-terminated */
	size_t		 len;
};
struct remote_reply {
	struct remote_section	*v;
	size_t			 n;
	int			 complete;	/* the end section was seen */
};
/*
 * Cut text into its sections.  Returns 0, or -1 with a cause when there is
 * none (what names the script for the message: "the poll").  rep must be
 * freed either way.
 */
int	 remote_reply_parse(const char *text, size_t len, const char *marker,
	     const char *what, struct remote_reply *, char **cause);
/* The first section of that kind (and arg, unless NULL), or NULL. */
const struct remote_section *remote_reply_find(const struct remote_reply *,
	     const char *kind, const char *arg);
/* A section's data as a new string, or NULL if there is no such section. */
char	*remote_reply_text(const struct remote_reply *, const char *kind,
	     const char *arg);
void	 remote_reply_free(struct remote_reply *);

#endif
