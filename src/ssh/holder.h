#ifndef HOLDER_H
#define HOLDER_H

#include <stddef.h>

#include "conn.h"
#include "util.h"

/*
 * The holder: a small per-user process that keeps one cluster's
 * authenticated SSH session (a struct conn) and runs commands on it for
 * every sqdeck process of the same user, reached through a Unix socket in a
 * private directory ($XDG_RUNTIME_DIR/sqdeck, else /tmp/sqdeck-UID; mode
 * 0700 and owner checked before every use).  The idea is OpenSSH's
 * ControlMaster + ControlPersist:
 *
 * - The first use of a cluster starts it (fork + exec of sqdeck itself, the
 *   options arrive on a pipe); it logs in when asked, relaying the server's
 *   prompts to the client that asked, and the client answers them.
 * - Requests of many clients are served at once, each command a channel
 *   of the one session with its own deadline: a slow command never delays
 *   another client's.  One thread, one poll(): memory and threads stay
 *   flat with the number of clients.  A client that goes away mid-request
 *   has its channel closed (the command is hung up and sent SIGTERM).
 *   Streams (a PTY command, a TCP connection from the login node) use a
 *   socket of their own.  Both ends check the other's uid (SO_PEERCRED).
 * - It is started with a scrubbed environment (HOME, PATH, the agent's
 *   socket and a few more): no secret of the client that started it.
 * - It ends after persist seconds without a request, on `sqdeck logout`,
 *   on SIGTERM, when its socket is removed, and when it has no session and
 *   no client.  A keepalive (a channel opened and closed every
 *   HOLDER_KEEPALIVE seconds while idle) drops a dead session within about
 *   HOLDER_KEEPALIVE + connect_timeout seconds.
 * - It never writes a log; it is not dumpable (no core, no ptrace) and
 *   wipes prompt answers and command input as soon as they are used.
 * - It stays small beside 30 others: after each new login and every
 *   HOLDER_SHED_EVERY seconds while idle it lets go of the library pages
 *   it touched once (the login's) and of freed heap, so what stays
 *   resident is what serving touches (holder-server.c, holder_shed()).
 * - Kept answers: a client may hand back the output of a read-only check
 *   it judged good (the preflight); later HOLDER_CACHED requests for the
 *   same command and input get it without a round trip, while the same
 *   session lives and for at most HOLDER_CACHE_TTL seconds.
 *
 * conn.c is its only client; the verbs never see it.
 */

#define HOLDER_PROTO		"3"	/* wire version, part of the socket's name */
#define HOLDER_KEEPALIVE	15	/* seconds between keepalives */
#define HOLDER_PROMPT_WAIT	300	/* seconds a human has to answer */
#define HOLDER_CACHE_TTL	300	/* longest life of a kept answer (s) */
#define HOLDER_CACHE_MAX	8	/* kept answers at most */

/* What a request brought back. */
struct holder_reply {
	int	 rc;		/* 0 done, -1 failed (cause) */
	int	 status;
	int	 truncated;
	int	 connected;	/* the holder's session is up after it */
	unsigned fresh;		/* handshakes the holder made for it */
	char	*target;
	char	*host;
	int	 lport;
	long	 pid;
	int	 persist;
	char	*out;
	size_t	 outlen;
	char	*err;
	size_t	 errlen;
	char	*cause;
	unsigned gen;		/* the holder's session: its handshake count */
	int	 age;		/* HOLDER_CACHED: seconds, -1 if it ran now */
};
void	 holder_reply_free(struct holder_reply *);

/* The socket directory, created 0700 if missing, refused if unsafe. */
char	*holder_dir(char **cause);
/* Socket path for a cluster name and its connection key. */
char	*holder_path(const char *dir, const char *name, const char *key,
	     size_t keylen, char **cause);

/*
 * Connect to the holder at path, starting it (exe) with the options o if
 * none answers.  Returns the socket or -1 and a cause.
 */
int	 holder_attach(const char *path, const char *exe,
	     const struct conn_opts *o, char **cause);

enum holder_req {
	HOLDER_LOGIN = 1,	/* connect if needed, then report */
	HOLDER_EXEC,		/* run a command */
	HOLDER_INFO,		/* report, connect nothing */
	HOLDER_STOP,		/* disconnect and exit */
	HOLDER_CACHED,		/* a kept answer if any, else run it */
};

/*
 * One request on an attached holder.  Prompts from the server go to
 * prompt (NULL: answered "no terminal").  wait bounds the silence of the
 * holder in seconds (reset by each prompt).  Returns 0 with reply filled
 * (reply->rc says how the request went), or -1 if the holder could not be
 * used (it died, or spoke nonsense): the caller may fall back.
 */
int	 holder_request(int fd, enum holder_req, const char *cmd,
	     const void *in, size_t inlen, int timeout, size_t maxout,
	     int max_age, int wait, conn_prompt_fn prompt, void *arg,
	     const char *cluster, struct holder_reply *, char **cause);

/*
 * Keep res, the answer to cmd + in that a HOLDER_CACHED request just
 * brought back from session gen, for later HOLDER_CACHED requests (at most
 * max_age of theirs, never past HOLDER_CACHE_TTL, and never once the
 * session was replaced).  The caller keeps only answers it judged good,
 * and never one whose command or input holds a secret.  Returns 0 kept,
 * 1 and a cause when not kept (the session changed meanwhile), -1 and a
 * cause when the holder could not be reached.
 */
int	 holder_put(int fd, unsigned gen, const char *cmd, const void *in,
	     size_t inlen, const struct conn_result *res, int wait,
	     char **cause);

/*
 * Turn the attached socket fd into a stream (conn.h's conn_chan_req): 0
 * with reply filled as holder_request() does; when reply->rc is 0 the
 * socket then carries frames: holder_frame() sends (HOLDER_F_*), the
 * holder sends data, then the exit status.
 */
int	 holder_stream(int fd, const struct conn_chan_req *, int wait,
	     conn_prompt_fn prompt, void *arg, const char *cluster,
	     struct holder_reply *, char **cause);
enum {
	HOLDER_F_DATA = 12,	/* = M_DATA */
	HOLDER_F_EDATA,
	HOLDER_F_EOF,
	HOLDER_F_WINCH,
	HOLDER_F_EXIT,		/* status, lost */
};
/* One frame on a stream socket (bounded wait); 0 or -1. */
int	 holder_frame(int fd, int type, const void *, size_t, int rows,
	     int cols);

/* Stop the holder at path: 1 stopped, 0 none there, -1 error. */
int	 holder_stop(const char *path, char **cause);

/* The sockets in the directory (for logout without a cluster). */
int	 holder_list(const char *dir, struct strv *paths, char **cause);

/* The holder process: `sqdeck __holder` (options on stdin). */
int	 holder_main(void);

#endif
