/*
 * Inside the connection layer (conn.h): the struct conn that conn.c
 * (sessions, commands, the holder) and conn-auth.c (host keys and login)
 * share.  Nothing else includes this.
 */
#ifndef CONN_INT_H
#define CONN_INT_H

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "conn.h"
#include "sshconf.h"
#include "util.h"

struct conn_host {
	char	*name;		/* as given, for messages and conn_host() */
	char	*host;		/* host or ssh_config alias */
	int	 port;		/* from "host:port", 0 if none */
};

/* A bastion in use: its session and the channel to the next hop. */
struct conn_hop {
	ssh_session		 s;
	ssh_channel		 ch;		/* direct-tcpip to the next hop */
	ssh_connector		 cin, cout;	/* ch <-> fd, in the conn's event */
	int			 fd;		/* our end of the socketpair */
	char			*name;		/* user@host:port, for messages */
};

/*
 * Where one login host is reached, after ~/.ssh/config (conn-jump.c):
 * clusters.yaml's values win, each value says where it came from.
 */
struct conn_eff {
	char			*host;		/* HostName, else the alias */
	char			*user;		/* NULL: libssh's (local user) */
	unsigned int		 port;
	char			*key;		/* key: else IdentityFile */
	char			*cert;		/* certificate: else CertificateFile */
	struct sshconf_hop	*hops;		/* jump: else ProxyJump */
	int			 nhops;
	const char		*from[SSHCONF_N]; /* "clusters.yaml", file:line */
	struct sshconf		 sc;
};

struct conn {
	struct conn_host	*hosts;
	size_t			 nhosts;
	char			*user;
	int			 port;
	char			*key_path;
	char			*cert_path;
	char			*known_hosts;
	char			*ssh_config;
	struct strv		 jumps;		/* jump: of clusters.yaml */
	int			 connect_timeout;
	int			 command_timeout;

	ssh_session		 session;
	ssh_event		 ev;		/* the jump chain's relay */
	struct conn_hop		*hops;		/* bastions in use, in order */
	size_t			 nhops;
	int			 said;		/* -v: where values came from */
	size_t			 cur;		/* index of the host in use */
	char			*target;	/* user@host:port in use */
	struct ssh_callbacks_struct cb;		/* must outlive the session */
	struct conn_stats	 stats;

	char			*name;		/* cluster, for messages */
	struct strv		 rawhosts;	/* as given, for the holder */
	conn_prompt_fn		 prompt;
	void			*prompt_arg;

	/* The holder (persist > 0 and conn_holder_enable() called). */
	int			 persist;
	int			 direct;	/* fell back: own session */
	int			 hfd;		/* socket, -1 if detached */
	long			 hpid;
	int			 hconnected;	/* its session was up */
	int			 hlport;
	char			*hhost;
	unsigned		 hgen;		/* its session, for holder_put */
	int			 hage;		/* age of a kept answer, or -1 */
	unsigned		 nround;	/* round trips, for -v */
	struct conn_chan	*chans;		/* open on the own session */
};

/* A channel of the own session, driven without blocking (conn.h). */
struct conn_chan {
	struct conn		*c;
	ssh_channel		 ch;		/* NULL once the session went */
	int			 lost;
	int			 status;
	int			 session;	/* a command (not TCP) */
	struct conn_chan	*next;
};

/* Outcome of one host: network failures move on to the next host. */
enum {
	TRY_OK = 0,
	TRY_NEXT,	/* network: try the next host */
	TRY_STOP,	/* host key, login, config: stop and tell the user */
};

/* Whether -v asked for what happens on stderr. */
int		 conn_is_verbose(void);
/*
 * A new session for alias (ssh_config read for it), then host, user and
 * port set over it, strict host keys in *kh.  NULL and *why on error.
 */
ssh_session	 conn_session_new(struct conn *, const char *alias,
		     const char *host, const char *user, unsigned int port,
		     char **kh, char **why);
/* Resolve the login host i through ssh_config (conn-jump.c). */
int		 conn_resolve(struct conn *, size_t i, struct conn_eff *,
		     char **why);
void		 conn_eff_free(struct conn_eff *);
/* -v: each value of each host and where it came from. */
void		 conn_say_where(struct conn *);
/*
 * Log in to each bastion of e in turn, each over the one before, and
 * open the channel to the login node: *fd is the socket for its session.
 * TRY_OK, TRY_NEXT or TRY_STOP and *why naming the bastion.
 */
int		 conn_jump_open(struct conn *, const struct conn_eff *, int *fd,
		     char **why);
/* ssh_connect() of s over the chain (relayed meanwhile). */
int		 conn_jump_connect(struct conn *, ssh_session s, int fd);
/* Tear the chain down (after the session over it is freed). */
void		 conn_jump_close(struct conn *);

/* The prompt callback of c (its own, or the default) and its argument. */
conn_prompt_fn	 conn_prompt_of(const struct conn *, void **arg);
/* The cluster's name, for messages. */
const char	*conn_name(const struct conn *);

/* libssh's passphrase callback: refuses (BatchMode). */
int	 conn_auth_refuse(const char *prompt, char *buf, size_t len, int echo,
	     int verify, void *userdata);
/* Strict host key check against file: TRY_OK, or TRY_STOP and *why. */
int	 conn_check_host_key(ssh_session, const char *host, unsigned int port,
	     const char *file, char **why);
/* Key login, then any second factor: TRY_OK, TRY_NEXT or TRY_STOP. */
int	 conn_auth(struct conn *, ssh_session, const char *user,
	     const char *host, unsigned int port, char **why);

#endif
