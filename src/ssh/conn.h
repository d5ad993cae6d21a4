#ifndef CONN_H
#define CONN_H

#include <stddef.h>

#include "config.h"

/*
 * One SSH connection to a cluster's login node (src/conn.c and
 * src/conn-auth.c are the only files that include libssh).
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
 * - Authentication: key_path first, then the agent (SSH_AUTH_SOCK) and
 *   IdentityFile keys from ssh_config.  Never a password, never a
 *   passphrase prompt (an encrypted key must be loaded into the agent).
 *   When the server wants a second factor after the key
 *   (AuthenticationMethods publickey,keyboard-interactive), its prompts go
 *   to the prompt callback exactly as the server wrote them; the answers
 *   are wiped as soon as they are sent.  No callback (scripts, cron):
 *   the login fails at once with a hint to run `sqdeck login`.
 * - The holder (src/holder.c): with conn_holder_enable() called and the
 *   cluster's persist not 0, the session lives in a per-user holder
 *   process reached through a Unix socket, shared by every sqdeck process
 *   of the user (OpenSSH's ControlMaster/ControlPersist idea); commands are
 *   channels of it.  Where the holder cannot be used, the conn falls back
 *   to its own session (said on stderr when verbose).
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
	const char	  *cert_path;	/* NULL: key_path-cert.pub if there */
	const char *const *jumps;	/* bastions in order, [user@]host[:port];
					   none: ProxyJump of ssh_config */
	size_t		   njumps;
	const char	  *known_hosts;	/* NULL: $HOME/.ssh/known_hosts */
	const char	  *ssh_config;	/* NULL: $HOME/.ssh/config and
					   /etc/ssh/ssh_config; "": none */
	int		   connect_timeout; /* seconds, 0: 10 */
	int		   command_timeout; /* seconds, 0: 60 */
	const char	  *name;	/* cluster name for messages and the
					   holder; NULL: the first host */
	int		   persist;	/* holder idle time in seconds; 0: no
					   holder (always for conn_new) */
};

/* One prompt of a keyboard-interactive request, as the server sent it. */
struct conn_prompt {
	const char	*text;
	int		 echo;		/* 0: hidden (a code, a password) */
};

/*
 * Ask the user the server's prompts (name and instruction may be empty;
 * note, if not NULL, is sqdeck's own line, such as a refused attempt).
 * Fill answers[0..n-1] with malloc'ed strings and return 0, or return -1
 * and a cause (no terminal, cancelled).  The caller wipes and frees the
 * answers.  Called on the thread that uses the conn.
 */
typedef int (*conn_prompt_fn)(void *arg, const char *cluster,
    const char *name, const char *instruction, const char *note,
    const struct conn_prompt *prompts, size_t n, char **answers,
    char **cause);

/* Counters for the benchmark and the tests. */
struct conn_stats {
	unsigned	handshakes;	/* successful connections (TCP + SSH),
					   made here or by the holder for us */
	unsigned	channels;	/* exec channels opened */
	unsigned	reconnects;	/* broken sessions replaced */
	unsigned	sessions;	/* sessions this conn began to use: its
					   handshakes, plus a holder's session
					   found already logged in */
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
 * Process-wide settings, made once before any thread starts: the program
 * to run as the holder (NULL: never use one), whether to say on stderr
 * how each conn connects (holder or own connection, and why), and the
 * prompt callback of conns that have none of their own.
 */
void		 conn_holder_enable(const char *exe, int verbose);
void		 conn_set_default_prompt(conn_prompt_fn, void *arg);
/* This conn's prompt callback (the TUI's dialog); NULL: the default. */
void		 conn_set_prompt(struct conn *, conn_prompt_fn, void *arg);
/* Wipe a secret string and free it. */
void		 conn_wipe(char *);

/*
 * Connect if not connected (first reachable host wins).  Returns 0, or -1
 * and a message saying what to do.
 */
int		 conn_connect(struct conn *, char **cause);
void		 conn_disconnect(struct conn *);
int		 conn_connected(const struct conn *);
/*
 * Prove the session is alive with one round trip that runs nothing (a
 * channel opened and closed), bounded by connect_timeout.  A dead session
 * is dropped (the next command reconnects).  Returns 0 or -1 and a cause.
 */
int		 conn_check(struct conn *, char **cause);
/*
 * Own session only: 1 when the server has closed the connection (its FIN
 * or RST has arrived, as when the sshd serving it was killed), which is
 * then dropped (the next command reconnects); 0 otherwise.  Costs no
 * round trip, and cannot see a connection that died silently.
 */
int		 conn_hung_up(struct conn *);
/* Pid of the holder serving this conn, 0 if it has its own session. */
long		 conn_holder_pid(const struct conn *);
/*
 * End the login held for this conn's cluster (sqdeck logout): 1 ended,
 * 0 none was held, -1 and a cause on error.
 */
int		 conn_holder_stop(struct conn *, char **cause);
/* End every login held for this user: the number ended, or -1. */
int		 conn_holder_stop_all(char **cause);

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

/*
 * Channels driven without blocking, for the holder (many requests on one
 * session) and for streams (a PTY shell, a TCP forward).  Own session only:
 * conn_chan_open() connects if needed (relaying prompts), opens the channel
 * and starts it, blocking for that one round trip (connect_timeout); a
 * session found dead before anything started is replaced once.  After
 * that nothing blocks: poll conn_session_fd() for input, then call
 * conn_chan_read() on each channel.  When the session goes, every channel
 * of it reads -1 and conn_chan_lost() says so.
 */
enum conn_chan_kind {
	CONN_CHAN_EXEC = 0,	/* cmd, no terminal */
	CONN_CHAN_PTY,		/* cmd (NULL: login shell) on a terminal */
	CONN_CHAN_TCP,		/* direct-tcpip to host:port, seen from the
				   login node */
};
struct conn_chan_req {
	enum conn_chan_kind	 kind;
	const char		*cmd;
	const char		*term;	/* PTY: NULL "xterm" */
	int			 rows, cols;
	const char		*host;	/* TCP */
	int			 port;
};
struct conn_chan;
/*
 * A prompt on every new session (Duo's ForceCommand): out and err of a
 * command started at start, first and last output at first and last (-1
 * and 0: none yet).  1 and a cause that explains it when the command's
 * only output asks for input and nothing came for a few seconds.
 */
struct buf;
int		 conn_session_prompt(struct conn *, const struct buf *,
		     const struct buf *, double first, double last,
		     double start, char **cause);
int		 conn_chan_open(struct conn *, const struct conn_chan_req *,
		     struct conn_chan **, int *started, char **cause);
/* The session's socket (-1 if none): readable means news for a channel. */
int		 conn_session_fd(struct conn *);
/* Bytes read (> 0), 0 if none now, -1 at the end (EOF, closed, lost). */
int		 conn_chan_read(struct conn_chan *, int is_stderr, void *,
		     size_t);
/* Bytes taken (0: the window is full now), -1 if the channel is gone. */
int		 conn_chan_write(struct conn_chan *, const void *, size_t);
void		 conn_chan_send_eof(struct conn_chan *);
void		 conn_chan_winch(struct conn_chan *, int rows, int cols);
void		 conn_chan_signal(struct conn_chan *, const char *sig);
/* 1 once the far end is done (its exit status, if any, is known). */
int		 conn_chan_done(struct conn_chan *);
/* The exit status, -1 if none (killed, a TCP stream, lost). */
int		 conn_chan_status(struct conn_chan *);
int		 conn_chan_lost(const struct conn_chan *);
/* Close the channel (the remote command gets SIGHUP) and free it. */
void		 conn_chan_close(struct conn_chan *);

/*
 * For a read-only check whose answer may be reused (the preflight): with
 * the shared login (the holder), an answer kept by conn_remember() for the
 * same cmd and input, on the session still in use and at most max_age
 * seconds old, comes back without a round trip (*age: its age in
 * seconds); else the command runs as conn_exec() (*age -1).  Without the
 * holder it always runs.
 */
int		 conn_exec_cached(struct conn *, const char *cmd,
		     const void *in, size_t inlen, int max_age,
		     struct conn_result *, int *age, char **cause);
/*
 * Ask the holder to keep res, the answer conn_exec_cached() just got, for
 * later calls (never past the holder's limit, never once its session was
 * replaced).  Only for answers the caller judged good, and never for a
 * command or input that holds a secret.  Returns 0, or -1 and a cause
 * (no holder, or its session changed meanwhile: nothing kept).
 */
int		 conn_remember(struct conn *, const char *cmd, const void *in,
		     size_t inlen, const struct conn_result *, char **cause);

/*
 * A stream for the verbs (sqdeck shell, sqdeck forward): a PTY command or
 * a TCP connection from the login node (CONN_CHAN_PTY / CONN_CHAN_TCP).
 * With the shared login it is a socket of its own to the holder (no new
 * authentication); else a channel of this conn's own session.  Poll
 * conn_stream_fd() for input, then call conn_stream_read() until it says
 * 0.  Used by one thread, like the conn.
 */
struct conn_stream;
int		 conn_stream_open(struct conn *, const struct conn_chan_req *,
		     struct conn_stream **, char **cause);
int		 conn_stream_fd(struct conn_stream *);
/* Output bytes (> 0), 0 if none now, -1 at the end. */
int		 conn_stream_read(struct conn_stream *, void *, size_t);
/* All of it (bounded waits); 0 or -1 if the stream is gone. */
int		 conn_stream_write(struct conn_stream *, const void *, size_t);
void		 conn_stream_eof(struct conn_stream *);
void		 conn_stream_winch(struct conn_stream *, int rows, int cols);
/* After the end: the exit status, -1 if none; *lost if the login died. */
int		 conn_stream_status(struct conn_stream *, int *lost);
void		 conn_stream_close(struct conn_stream *);

/*
 * Whether any login host of each of n conns answers as an SSH server, all
 * of them at once from the calling thread: a non-blocking TCP connect to
 * each address of each host, then a wait of at most that conn's
 * connect_timeout for the server's "SSH-" hello.  Nothing is logged in
 * and no holder is started: a host that never answers costs a socket for
 * a few seconds, not a process and a thread.  ok[i] is 1 when a host of
 * v[i] said hello, or when v[i] cannot be probed this way (a bastion, a
 * ProxyCommand, a holder already listening for it, an ssh_config error the
 * login should report): connect it the usual way.  ok[i] is 0 and why[i]
 * (allocated) says how each host failed otherwise.  found(arg, i) is
 * called as soon as ok[i] is known to be 1, before the others are done.
 * The conns are only read: the caller must own them all meanwhile.
 */
void		 conn_probe(struct conn *const *v, size_t n, int *ok,
		     char **why, void (*found)(void *, size_t), void *arg);

/* Host in use as given in the list (NULL if not connected). */
const char	*conn_host(const struct conn *);
/* "user@host:port" of the connection in use, after ssh_config. */
const char	*conn_target(const struct conn *);
/* Local TCP port of the connection (0 if none): identifies it in logs. */
int		 conn_local_port(const struct conn *);
void		 conn_get_stats(const struct conn *, struct conn_stats *);

#endif
