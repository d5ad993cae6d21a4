#ifndef CONN_H
#define CONN_H

#include <stddef.h>

#include "config.h"

/*
 * One SSH connection to a cluster's login node (src/conn.c is the only file
 * that includes libssh).
 *
 * - One session serves many commands: each conn_exec() is a channel on the
 *   same TCP connection; nothing opens a connection per command.
 * - Failover: the hosts are tried in order and the first one that answers
 *   wins.  Only network failures (refused, timeout, unknown name) move on to
 *   the next host; a refused host key or a refused login stops at once,
 *   because silently trying another host would hide a man-in-the-middle or a
 *   configuration error.  When every host fails, the message lists each host
 *   and why.
 * - Host keys are checked strictly against known_hosts (the given file, else
 *   $HOME/.ssh/known_hosts plus /etc/ssh/ssh_known_hosts).  An unknown or
 *   changed key is refused with the command that repairs it; nothing is ever
 *   accepted or written automatically.
 * - Authentication is BatchMode: key_path first, then the agent
 *   (SSH_AUTH_SOCK) and IdentityFile keys from ssh_config.  Never a password
 *   or keyboard-interactive prompt, never a passphrase prompt (an encrypted
 *   key must be loaded into the agent).
 * - ssh_config ($HOME/.ssh/config then /etc/ssh/ssh_config, or the given
 *   file) is honoured for Host aliases, HostName, User, Port, IdentityFile
 *   and ProxyJump/ProxyCommand (libssh 0.10 runs ProxyJump through the local
 *   ssh(1) command; sqdeck adds -o BatchMode=yes to it).  Explicit options
 *   override the file.  UserKnownHostsFile is not taken from the file: set
 *   known_hosts instead.
 * - Every wait is bounded: connect_timeout for the connection, the
 *   handshake and each protocol exchange, command_timeout for a whole
 *   command.  Errors come back as -1 and a message; nothing hangs or exits.
 *
 * A struct conn (like the libssh session inside it) must be used by ONE
 * thread only: the worker that owns the cluster.
 */

struct conn_opts {
	const char *const *hosts;	/* login hosts in order, "host" or
					   "host:port" / "[v6addr]:port" */
	size_t		   nhosts;
	const char	  *user;	/* NULL: ssh_config User or local user */
	int		   port;	/* 0: ssh_config Port or 22 */
	const char	  *key_path;	/* NULL: agent and IdentityFile only */
	const char	  *known_hosts;	/* NULL: $HOME/.ssh/known_hosts */
	const char	  *ssh_config;	/* NULL: $HOME/.ssh/config and
					   /etc/ssh/ssh_config; "": none */
	int		   connect_timeout; /* seconds, 0: 10 */
	int		   command_timeout; /* seconds, 0: 60 */
};

/* Counters for the benchmark and the tests. */
struct conn_stats {
	unsigned	handshakes;	/* successful connections (TCP + SSH) */
	unsigned	channels;	/* exec channels opened */
	unsigned	reconnects;	/* broken sessions replaced */
};

struct conn_result {
	char	*out;		/* stdout, NUL-terminated */
	size_t	 outlen;
	char	*err;		/* stderr, NUL-terminated */
	size_t	 errlen;
	int	 status;	/* exit status; -1 if none (killed by a signal,
				   or output truncated) */
	int	 truncated;	/* output cap reached, command abandoned */
};

struct conn;

/* Copies everything it needs; never fails (no I/O). */
struct conn	*conn_new(const struct conn_opts *);
struct conn	*conn_new_cluster(const struct cluster *);
void		 conn_free(struct conn *);

/*
 * Connect if not connected (first reachable host wins).  Returns 0, or -1
 * and a message saying what to do.
 */
int		 conn_connect(struct conn *, char **cause);
void		 conn_disconnect(struct conn *);
int		 conn_connected(const struct conn *);

/*
 * Run cmd on the login node, reading at most CONN_MAXOUT bytes of its
 * output (see conn_exec_limit()).  in/inlen (may be NULL/0) is sent on its
 * standard input, then EOF: secrets travel only this way, never in cmd.
 * Connects if needed.  A session found broken before the command starts is
 * replaced once; a session that breaks while the command runs is NOT retried
 * (the command may have run), it fails and the next call reconnects.
 * Returns 0 with res filled (res->status is the remote exit status), or -1
 * and a message (connection failure, timeout).  res is always initialised
 * and must be released with conn_result_free().
 */
#define CONN_MAXOUT	(64 * 1024 * 1024)
int		 conn_exec(struct conn *, const char *cmd, const void *in,
		     size_t inlen, struct conn_result *, char **cause);
/*
 * The same with a per-call timeout in seconds (0: the command_timeout) and
 * a cap on stdout+stderr in bytes (0: none).  At the cap the command is
 * abandoned (signalled and its channel closed), res->truncated is set and
 * the call returns 0 with what was read.
 */
int		 conn_exec_limit(struct conn *, const char *cmd, const void *in,
		     size_t inlen, int timeout, size_t maxout,
		     struct conn_result *, char **cause);
void		 conn_result_free(struct conn_result *);

/* Host in use as given in the list (NULL if not connected). */
const char	*conn_host(const struct conn *);
/* "user@host:port" of the connection in use, after ssh_config. */
const char	*conn_target(const struct conn *);
/* Local TCP port of the connection (0 if none): identifies it in logs. */
int		 conn_local_port(const struct conn *);
void		 conn_get_stats(const struct conn *, struct conn_stats *);

#endif
