/*
 * Inside the holder (holder.h): its wire, shared by the client side
 * (holder.c) and the holder process (holder-server.c).
 *
 * Wire: every message is a 4-byte big-endian length, then a type byte and
 * fields; numbers are 4-byte big-endian, strings a length and the bytes.
 */
#ifndef HOLDER_INT_H
#define HOLDER_INT_H

#include <stdint.h>

#include "holder.h"

#define HOLDER_MAXMSG	(1024u * 1024 * 1024)
#define HOLDER_START_WAIT 10	/* seconds for a new holder to listen */
#define HOLDER_GRACE	10	/* seconds a new holder waits for a client */
#define HOLDER_SHED_EVERY 60	/* seconds between sheds while it serves */

enum {
	M_OPTS = 1,	/* spawner -> holder, on the pipe */
	M_LOGIN,	/* client -> holder: flags */
	M_EXEC,		/* client -> holder: flags timeout maxout cmd in */
	M_INFO,
	M_STOP,
	M_ANSWER,	/* client -> holder: ok, n answers | cause */
	M_PROMPT,	/* holder -> client: name instr n (text echo)... */
	M_REPLY,	/* holder -> client: see holder_reply */
	M_CACHED,	/* client -> holder: flags max_age timeout maxout cmd in */
	M_PUT,		/* client -> holder: flags gen status cmd in out err */
	M_STREAM,	/* client -> holder: flags kind rows cols port hascmd
			   cmd term host; after an ok M_REPLY the socket
			   carries only the frames below */
	M_DATA,		/* either way: bytes (holder -> client: stdout) */
	M_EDATA,	/* holder -> client: stderr bytes */
	M_EOF,		/* client -> holder: no more input */
	M_WINCH,	/* client -> holder: rows cols */
	M_EXIT,		/* holder -> client: status lost; then it closes */
};

/* A stream stops reading its channel while this much waits for the client. */
#define HOLDER_STREAM_HIGH	(256u * 1024)

/* Reading the fields of a received message. */
struct hrd {
	const unsigned char	*p;
	size_t			 left;
	int			 bad;
};

double	 holder_now(void);
/* Wait for fd until the deadline; 1 ready, 0 timeout, -1 error. */
int	 holder_wait_fd(int fd, short ev, double deadline);
/* The peer runs as our uid (SO_PEERCRED). */
int	 holder_peer_ok(int fd);
/* The socket directory is ours and 0700. */
int	 holder_check_dir(const char *dir, char **cause);
/* Connect to the socket at path, its peer checked. */
int	 holder_connect(const char *path, char **cause);

/* Building and sending a message. */
void	 hm_begin(struct buf *, int type);
void	 hm_u32(struct buf *, uint32_t);
void	 hm_str(struct buf *, const void *, size_t);
void	 hm_cstr(struct buf *, const char *);
int	 hm_send(int fd, struct buf *, double deadline);
/* One message into b (type in *type, fields after it). */
int	 hm_recv(int fd, struct buf *, int *type, double deadline);
/* Wipe what a buffer held (it may carry answers or secrets). */
void	 hm_wipe(struct buf *);

void	 hr_init(struct hrd *, const struct buf *);
uint32_t hr_u32(struct hrd *);
/* A string (NUL-terminated copy); *lenp may be NULL. */
char	*hr_str(struct hrd *, size_t *lenp);

#endif
