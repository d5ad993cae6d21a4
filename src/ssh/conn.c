/*
 * The SSH connection layer: with conn-auth.c (logging in), the only code
 * that includes libssh.  See conn.h for the contract (failover, strict host
 * keys, BatchMode auth, one session for many commands, bounded waits).
 */
#include "conn.h"
#include "conn-int.h"
#include "holder.h"
#include "holder-int.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <netdb.h>
#include <fcntl.h>

#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#define CONN_CONNECT_TIMEOUT	10
#define CONN_COMMAND_TIMEOUT	60
#define CONN_READ_SLICE_MS	200	/* longest single wait inside exec */
#define CONN_CHUNK		32768
#define CONN_PROMPT_IDLE	3	/* s: a session's prompt left waiting */
#define CONN_PROMPT_MAX		8192	/* a prompt is the only output */

static const char	*conn_holder_exe;
static int		 conn_verbose;
static conn_prompt_fn	 conn_default_prompt;
static void		*conn_default_arg;

static pthread_once_t conn_once = PTHREAD_ONCE_INIT;

static void
conn_init_library(void)
{
	ssh_init();
}

static double
conn_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "host", "host:port", "[v6]:port", "[v6]"; a bare v6 address has colons. */
static void
conn_parse_host(struct conn_host *h, const char *s)
{
	const char	*colon, *end;
	char		*ep;
	long		 p;

	h->name = xstrdup(s);
	h->port = 0;
	if (s[0] == '[' && (end = strchr(s, ']')) != NULL) {
		h->host = xstrndup(s + 1, end - s - 1);
		if (end[1] == ':' && end[2] != '\0') {
			p = strtol(end + 2, &ep, 10);
			if (*ep == '\0' && p > 0 && p < 65536)
				h->port = (int)p;
		}
		return;
	}
	colon = strchr(s, ':');
	if (colon != NULL && strchr(colon + 1, ':') == NULL &&
	    colon[1] != '\0') {
		p = strtol(colon + 1, &ep, 10);
		if (*ep == '\0' && p > 0 && p < 65536) {
			h->host = xstrndup(s, colon - s);
			h->port = (int)p;
			return;
		}
	}
	h->host = xstrdup(s);
}

void
conn_holder_enable(const char *exe, int verbose)
{
	conn_holder_exe = exe;
	conn_verbose = verbose;
}

void
conn_set_default_prompt(conn_prompt_fn fn, void *arg)
{
	conn_default_prompt = fn;
	conn_default_arg = arg;
}

void
conn_set_prompt(struct conn *c, conn_prompt_fn fn, void *arg)
{
	c->prompt = fn;
	c->prompt_arg = arg;
}

void
conn_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

conn_prompt_fn
conn_prompt_of(const struct conn *c, void **arg)
{
	if (c->prompt != NULL) {
		*arg = c->prompt_arg;
		return c->prompt;
	}
	*arg = conn_default_arg;
	return conn_default_prompt;
}

const char *
conn_name(const struct conn *c)
{
	if (c->name != NULL)
		return c->name;
	return c->nhosts > 0 ? c->hosts[0].name : "cluster";
}

struct conn *
conn_new(const struct conn_opts *o)
{
	struct conn	*c;
	size_t		 i;

	pthread_once(&conn_once, conn_init_library);
	c = xcalloc(1, sizeof *c);
	c->hosts = xcalloc(o->nhosts ? o->nhosts : 1, sizeof *c->hosts);
	for (i = 0; i < o->nhosts; i++) {
		if (o->hosts[i] != NULL && *o->hosts[i] != '\0') {
			conn_parse_host(&c->hosts[c->nhosts++], o->hosts[i]);
			strv_add(&c->rawhosts, o->hosts[i]);
		}
	}
	c->name = o->name ? xstrdup(o->name) : NULL;
	c->persist = o->persist > 0 ? o->persist : 0;
	c->hfd = -1;
	c->user = o->user ? xstrdup(o->user) : NULL;
	c->port = o->port;
	c->key_path = o->key_path ? xstrdup(o->key_path) : NULL;
	c->cert_path = o->cert_path ? xstrdup(o->cert_path) : NULL;
	c->known_hosts = o->known_hosts ? xstrdup(o->known_hosts) : NULL;
	c->ssh_config = o->ssh_config ? xstrdup(o->ssh_config) : NULL;
	for (i = 0; i < o->njumps; i++)
		strv_add(&c->jumps, o->jumps[i]);
	c->connect_timeout = o->connect_timeout > 0 ? o->connect_timeout :
	    CONN_CONNECT_TIMEOUT;
	c->command_timeout = o->command_timeout > 0 ? o->command_timeout :
	    CONN_COMMAND_TIMEOUT;
	ssh_callbacks_init(&c->cb);
	c->cb.auth_function = conn_auth_refuse;
	return c;
}

struct conn *
conn_new_cluster(const struct cluster *cl)
{
	struct conn_opts	o;

	memset(&o, 0, sizeof o);
	o.hosts = (const char *const *)cl->hosts.v;
	o.nhosts = cl->hosts.n;
	o.user = cl->user;
	o.port = cl->port;
	o.key_path = cl->key_path;
	o.cert_path = cl->cert_path;
	o.jumps = (const char *const *)cl->jumps.v;
	o.njumps = cl->jumps.n;
	o.known_hosts = cl->known_hosts;
	o.connect_timeout = cl->connect_timeout;
	o.command_timeout = cl->command_timeout;
	o.name = cl->name;
	o.persist = cl->persist < 0 ? 600 : cl->persist;
	return conn_new(&o);
}

/* Detach from the holder; its session lives on for the others. */
static void
conn_holder_close(struct conn *c)
{
	if (c->hfd >= 0)
		close(c->hfd);
	c->hfd = -1;
	c->hpid = 0;
	c->hconnected = 0;
	c->hlport = 0;
	free(c->hhost);
	c->hhost = NULL;
}

void
conn_disconnect(struct conn *c)
{
	struct conn_chan	*k;

	conn_holder_close(c);
	/* ssh_free() frees the channels: theirs are lost with it. */
	for (k = c->chans; k != NULL; k = k->next) {
		k->ch = NULL;
		k->lost = 1;
	}
	if (c->session != NULL) {
		if (c->ev != NULL)
			ssh_event_remove_session(c->ev, c->session);
		ssh_disconnect(c->session);
		ssh_free(c->session);
		c->session = NULL;
	}
	conn_jump_close(c);
	free(c->target);
	c->target = NULL;
}

void
conn_free(struct conn *c)
{
	size_t	i;

	if (c == NULL)
		return;
	while (c->chans != NULL)
		conn_chan_close(c->chans);
	conn_disconnect(c);
	for (i = 0; i < c->nhosts; i++) {
		free(c->hosts[i].name);
		free(c->hosts[i].host);
	}
	free(c->hosts);
	free(c->user);
	free(c->key_path);
	free(c->cert_path);
	free(c->known_hosts);
	free(c->ssh_config);
	strv_free(&c->jumps);
	free(c->name);
	strv_free(&c->rawhosts);
	free(c);
}

int
conn_connected(const struct conn *c)
{
	if (c->hfd >= 0)
		return c->hconnected;
	return c->session != NULL && ssh_is_connected(c->session);
}

long
conn_holder_pid(const struct conn *c)
{
	return c->hfd >= 0 ? c->hpid : 0;
}

const char *
conn_host(const struct conn *c)
{
	if (c->hfd >= 0)
		return c->hconnected ? c->hhost : NULL;
	return c->session != NULL ? c->hosts[c->cur].name : NULL;
}

const char *
conn_target(const struct conn *c)
{
	if (c->hfd >= 0)
		return c->hconnected ? c->target : NULL;
	return c->session != NULL ? c->target : NULL;
}

int
conn_local_port(const struct conn *c)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof ss;
	int			 fd;

	if (c->hfd >= 0)
		return c->hconnected ? c->hlport : 0;
	if (c->session == NULL || (fd = ssh_get_fd(c->session)) < 0)
		return 0;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

void
conn_get_stats(const struct conn *c, struct conn_stats *st)
{
	*st = c->stats;
}

/* libssh 0.10 runs ProxyJump as "ssh ... -W": never let that ssh prompt. */
static void
conn_proxy_batchmode(ssh_session s)
{
	char	*pc = NULL, *n;

	if (ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &pc) != SSH_OK ||
	    pc == NULL)
		return;
	if (strncmp(pc, "ssh ", 4) == 0 && strstr(pc, "BatchMode") == NULL) {
		n = xasprintf("ssh -o BatchMode=yes %s", pc + 4);
		ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, n);
		free(n);
	}
	ssh_string_free_char(pc);
}

/* Idle sessions (the TUI polls every few seconds) must survive NAT boxes. */
static void
conn_keepalive(ssh_session s)
{
	int	fd = ssh_get_fd(s), on = 1, idle = 30, intvl = 10, cnt = 3;

	if (fd < 0)
		return;
	/* Fails harmlessly on a ProxyCommand socketpair. */
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) != 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

int
conn_is_verbose(void)
{
	return conn_verbose;
}

ssh_session
conn_session_new(struct conn *c, const char *alias, const char *host,
    const char *user, unsigned int port, char **khp, char **why)
{
	ssh_session	 s;
	const char	*home = getenv("HOME");
	char		*sshdir = NULL, *kh;
	long		 timeout = c->connect_timeout;
	int		 no = 0, yes = 1;

	*khp = NULL;
	if ((s = ssh_new()) == NULL)
		return cause_set(why, "cannot create an SSH session"), NULL;
	ssh_set_callbacks(s, &c->cb);
	/* $HOME, not the passwd entry: tests and sandboxes can move it. */
	if (home != NULL && *home != '\0') {
		sshdir = xasprintf("%s/.ssh", home);
		ssh_options_set(s, SSH_OPTIONS_SSH_DIR, sshdir);
	}
	if (ssh_options_set(s, SSH_OPTIONS_HOST, alias) != SSH_OK) {
		cause_set(why, "bad host name '%s'", alias);
		goto fail;
	}
	if (c->ssh_config != NULL && *c->ssh_config == '\0')
		ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	else if (c->ssh_config != NULL) {
		if (access(c->ssh_config, R_OK) != 0) {
			cause_set(why, "cannot read ssh config %s: %s",
			    c->ssh_config, strerror(errno));
			goto fail;
		}
		if (ssh_options_parse_config(s, c->ssh_config) != SSH_OK) {
			cause_set(why, "%s: %s", c->ssh_config,
			    ssh_get_error(s));
			goto fail;
		}
	} else if (ssh_options_parse_config(s, NULL) != SSH_OK) {
		cause_set(why, "ssh config: %s", ssh_get_error(s));
		goto fail;
	}

	/* What sqdeck resolved itself (clusters.yaml, then ssh_config). */
	if (host != NULL && strcmp(host, alias) != 0)
		ssh_options_set(s, SSH_OPTIONS_HOST, host);
	if (user != NULL)
		ssh_options_set(s, SSH_OPTIONS_USER, user);
	if (port > 0)
		ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	if (c->known_hosts != NULL) {
		kh = xstrdup(c->known_hosts);
		/* Only the given file, so the message names the right one. */
		ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
	} else if (sshdir != NULL)
		kh = xasprintf("%s/known_hosts", sshdir);
	else
		kh = xstrdup("~/.ssh/known_hosts");
	ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, kh);
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
	ssh_options_set(s, SSH_OPTIONS_STRICTHOSTKEYCHECK, &yes);
	ssh_options_set(s, SSH_OPTIONS_PASSWORD_AUTH, &no);
	ssh_options_set(s, SSH_OPTIONS_KBDINT_AUTH, &yes);
	ssh_options_set(s, SSH_OPTIONS_GSSAPI_AUTH, &no);
	/*
	 * No Nagle: a command's stdin, its EOF and the channel requests are
	 * small packets sent back to back; with Nagle each waits for the
	 * ACK of the one before (a delayed ACK: tens of ms per command).
	 */
	ssh_options_set(s, SSH_OPTIONS_NODELAY, &yes);
	*khp = kh;
	free(sshdir);
	return s;
fail:
	ssh_free(s);
	free(sshdir);
	return NULL;
}

/* Key login with the key and certificate resolved for this host. */
static int
conn_auth_eff(struct conn *c, ssh_session s, const struct conn_eff *e,
    const char *user, const char *host, unsigned int port, char **why)
{
	char	*key = c->key_path, *cert = c->cert_path;
	int	 rc;

	c->key_path = e->key;
	c->cert_path = e->cert;
	rc = conn_auth(c, s, user, host, port, why);
	c->key_path = key;
	c->cert_path = cert;
	return rc;
}

static int
conn_try_host(struct conn *c, size_t i, char **why)
{
	struct conn_host	*h = &c->hosts[i];
	struct conn_eff		 e;
	ssh_session		 s = NULL;
	char			*kh = NULL, *host = NULL, *user = NULL, *where;
	unsigned int		 port = 22;
	int			 rc = TRY_STOP, fd = -1;

	if (conn_resolve(c, i, &e, why) != 0) {
		conn_eff_free(&e);
		return TRY_STOP;
	}
	s = conn_session_new(c, h->host, e.host, e.user, e.port, &kh, why);
	if (s == NULL)
		goto out;
	if (e.nhops > 0) {
		/* Natively, never libssh 0.10's "ssh -W" of ProxyJump. */
		ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, "none");
		if ((rc = conn_jump_open(c, &e, &fd, why)) != TRY_OK)
			goto out;
		ssh_options_set(s, SSH_OPTIONS_FD, &fd);
	} else
		conn_proxy_batchmode(s);

	if (ssh_options_get(s, SSH_OPTIONS_HOST, &host) != SSH_OK)
		host = NULL;
	ssh_options_get_port(s, &port);
	if (ssh_options_get(s, SSH_OPTIONS_USER, &user) != SSH_OK)
		user = NULL;

	if ((fd >= 0 ? conn_jump_connect(c, s, fd) : ssh_connect(s)) !=
	    SSH_OK) {
		where = xasprintf("%s:%u", host ? host : h->host, port);
		if (strcmp(where, h->name) == 0 ||
		    strcmp(host ? host : h->host, h->name) == 0)
			cause_set(why, "%s%s: %s", where, fd >= 0 ?
			    " (through the bastion)" : "", ssh_get_error(s));
		else
			cause_set(why, "%s (%s)%s: %s", h->name, where,
			    fd >= 0 ? " (through the bastion)" : "",
			    ssh_get_error(s));
		free(where);
		rc = TRY_NEXT;
		goto out;
	}
	rc = conn_check_host_key(s, host ? host : h->host, port, kh, why);
	if (rc != TRY_OK)
		goto out;
	/*
	 * No user set: the local login name, as libssh would use; named,
	 * never silent.
	 */
	if (user == NULL && (ssh_options_set(s, SSH_OPTIONS_USER, NULL) !=
	    SSH_OK || ssh_options_get(s, SSH_OPTIONS_USER, &user) != SSH_OK))
		user = NULL;
	rc = conn_auth_eff(c, s, &e, user ? user : "?", host ? host : h->host,
	    port, why);
	if (rc != TRY_OK && c->user == NULL && e.user == NULL && why != NULL &&
	    *why != NULL) {
		char	*m = xasprintf("%s (login name %s: SLURM_USER is not "
		    "set, nor 'user:' in clusters.yaml or ~/.ssh/config)", *why,
		    user ? user : "?");

		free(*why);
		*why = m;
	}
	if (rc != TRY_OK)
		goto out;

	conn_keepalive(c->nhops > 0 ? c->hops[0].s : s);
	c->session = s;
	c->cur = i;
	c->target = xasprintf("%s@%s:%u", user ? user : "?",
	    host ? host : h->host, port);
	c->stats.handshakes++;
	c->stats.sessions++;
	s = NULL;
out:
	if (s != NULL) {
		if (c->ev != NULL)
			ssh_event_remove_session(c->ev, s);
		ssh_disconnect(s);
		ssh_free(s);
		conn_jump_close(c);
	}
	ssh_string_free_char(host);
	ssh_string_free_char(user);
	free(kh);
	conn_eff_free(&e);
	return rc;
}

/* What identifies a holder: everything that decides where we log in. */
/* One field of the key, NUL included, so "a","bc" differs from "ab","c". */
static void
conn_key_add(struct buf *b, const char *tag, const char *v)
{
	buf_adds(b, tag);
	if (v != NULL)
		buf_add(b, v, strlen(v) + 1);
	else
		buf_add(b, "-\0\0", 3);	/* unset differs from "-" */
}

static char *
conn_holder_key(const struct conn *c, size_t *lenp)
{
	struct buf	 b;
	size_t		 i;
	char		*port;

	buf_init(&b);
	/* The wire's version: a new sqdeck never talks to an old holder. */
	conn_key_add(&b, "proto=", HOLDER_PROTO);
	for (i = 0; i < c->rawhosts.n; i++)
		conn_key_add(&b, "h=", c->rawhosts.v[i]);
	port = xasprintf("%d", c->port);
	conn_key_add(&b, "p=", port);
	free(port);
	conn_key_add(&b, "u=", c->user);
	conn_key_add(&b, "k=", c->key_path);
	conn_key_add(&b, "c=", c->cert_path);
	conn_key_add(&b, "kh=", c->known_hosts);
	conn_key_add(&b, "cfg=", c->ssh_config);
	for (i = 0; i < c->jumps.n; i++)
		conn_key_add(&b, "j=", c->jumps.v[i]);
	*lenp = b.len;
	return buf_steal(&b);
}

static char *
conn_holder_sock(const struct conn *c, char **cause)
{
	char	*dir, *key, *path;
	size_t	 len;

	if ((dir = holder_dir(cause)) == NULL)
		return NULL;
	key = conn_holder_key(c, &len);
	path = holder_path(dir, conn_name(c), key, len, cause);
	free(key);
	free(dir);
	return path;
}

static void
conn_opts_of(const struct conn *c, struct conn_opts *o)
{
	memset(o, 0, sizeof *o);
	o->hosts = (const char *const *)c->rawhosts.v;
	o->nhosts = c->rawhosts.n;
	o->user = c->user;
	o->port = c->port;
	o->key_path = c->key_path;
	o->cert_path = c->cert_path;
	o->known_hosts = c->known_hosts;
	o->ssh_config = c->ssh_config;
	o->jumps = (const char *const *)c->jumps.v;
	o->njumps = c->jumps.n;
	o->connect_timeout = c->connect_timeout;
	o->command_timeout = c->command_timeout;
	o->name = conn_name(c);
	o->persist = c->persist;
}

static int
conn_holder_wanted(const struct conn *c)
{
	return conn_holder_exe != NULL && c->persist > 0 && !c->direct &&
	    c->session == NULL;
}

/* Stop using the holder for this conn, and say why when asked to. */
static void
conn_holder_fallback(struct conn *c, const char *why)
{
	conn_holder_close(c);
	c->direct = 1;
	if (conn_verbose)
		fprintf(stderr, "sqdeck: %s: not using the shared login "
		    "(%s): connecting on my own\n", conn_name(c), why);
}

static void
conn_holder_take(struct conn *c, struct holder_reply *rep)
{
	c->hconnected = rep->connected;
	c->hpid = rep->pid;
	c->hlport = rep->lport;
	c->hgen = rep->gen;
	c->hage = rep->age;
	c->stats.handshakes += rep->fresh;
	c->stats.sessions += rep->fresh;
	free(c->hhost);
	c->hhost = xstrdup(rep->host);
	free(c->target);
	c->target = xstrdup(rep->target);
}

static int
conn_holder_wait(const struct conn *c, int timeout)
{
	return timeout + 2 * c->connect_timeout + 60;
}

/*
 * Attach to the holder (starting it if needed) and ask it how it is.
 * Returns 0, or 1 when the holder cannot be used (fell back).
 */
static int
conn_holder_open(struct conn *c)
{
	struct conn_opts	 o;
	struct holder_reply	 rep;
	char			*path, *why = NULL;
	int			 tries;

	if ((path = conn_holder_sock(c, &why)) == NULL)
		goto fallback;
	conn_opts_of(c, &o);
	/* Twice: a holder may expire just as we reach it. */
	for (tries = 0; tries < 2; tries++) {
		free(why);
		why = NULL;
		c->hfd = holder_attach(path, conn_holder_exe, &o, &why);
		if (c->hfd < 0)
			continue;
		if (holder_request(c->hfd, HOLDER_INFO, NULL, NULL, 0, 0, 0, 0,
		    conn_holder_wait(c, 0), NULL, NULL, conn_name(c), &rep,
		    &why) == 0) {
			conn_holder_take(c, &rep);
			/* A session new to us, though no handshake. */
			if (c->hconnected)
				c->stats.sessions++;
			holder_reply_free(&rep);
			free(path);
			if (conn_verbose)
				fprintf(stderr, "sqdeck: %s: using the shared "
				    "login (holder pid %ld, %s)\n",
				    conn_name(c), c->hpid, c->hconnected ?
				    "logged in" : "not logged in yet");
			return 0;
		}
		close(c->hfd);
		c->hfd = -1;
	}
	free(path);
fallback:
	conn_holder_fallback(c, why != NULL ? why : "unknown");
	free(why);
	return 1;
}

/*
 * One request through the holder.  Returns 0 or -1 as the request went,
 * or 1 when the holder cannot be used and the caller should go direct.
 */
static int
conn_holder_call(struct conn *c, enum holder_req req, const char *cmd,
    const void *in, size_t inlen, int timeout, size_t maxout, int max_age,
    struct conn_result *res, char **cause)
{
	struct holder_reply	 rep;
	conn_prompt_fn		 fn;
	void			*arg;
	char			*why = NULL;
	long			 pid;

	if (c->hfd < 0 && conn_holder_open(c) != 0)
		return 1;
	fn = conn_prompt_of(c, &arg);
	if (holder_request(c->hfd, req, cmd, in, inlen, timeout, maxout,
	    max_age, conn_holder_wait(c, timeout), fn, arg, conn_name(c), &rep,
	    &why) != 0) {
		pid = c->hpid;
		conn_holder_close(c);
		if (req == HOLDER_EXEC || req == HOLDER_CACHED) {
			/* It may have run: never run it twice. */
			cause_set(cause, "%s: the login holder (pid %ld) went "
			    "away while a command ran (it may or may not have "
			    "completed): %s", conn_name(c), pid, why);
			free(why);
			return -1;
		}
		conn_holder_fallback(c, why);
		free(why);
		return 1;
	}
	free(why);
	conn_holder_take(c, &rep);
	if ((req == HOLDER_EXEC || req == HOLDER_CACHED) && rep.rc == 0) {
		if (rep.age < 0)
			c->stats.channels++;
		res->status = rep.status;
		res->truncated = rep.truncated;
		res->out = rep.out;
		res->outlen = rep.outlen;
		res->err = rep.err;
		res->errlen = rep.errlen;
		rep.out = rep.err = NULL;
	}
	if (rep.rc != 0) {
		if (cause != NULL) {
			*cause = rep.cause != NULL ? rep.cause :
			    xstrdup("the login holder failed");
			rep.cause = NULL;
		}
		holder_reply_free(&rep);
		return -1;
	}
	holder_reply_free(&rep);
	return 0;
}

int
conn_connect(struct conn *c, char **cause)
{
	struct buf	 errs;
	char		*why = NULL;
	size_t		 i;
	int		 rc;

	if (conn_verbose && !c->said) {
		c->said = 1;
		conn_say_where(c);
	}
	if (conn_holder_wanted(c)) {
		rc = conn_holder_call(c, HOLDER_LOGIN, NULL, NULL, 0, 0, 0, 0,
		    NULL, cause);
		if (rc != 1)
			return rc;
	}
	if (c->session != NULL) {
		if (ssh_is_connected(c->session))
			return 0;
		conn_disconnect(c);
	}
	if (c->nhosts == 0)
		return cause_set(cause, "no login host configured: set "
		    "SLURM_HOSTNAME (comma-separated hosts, tried in order)");
	buf_init(&errs);
	for (i = 0; i < c->nhosts; i++) {
		rc = conn_try_host(c, i, &why);
		if (rc == TRY_OK) {
			buf_free(&errs);
			return 0;
		}
		if (rc == TRY_STOP) {
			/* Say which hosts were down before this one. */
			if (errs.len != 0)
				cause_set(cause, "%s (before that: %s)", why,
				    errs.data);
			else
				cause_set(cause, "%s", why);
			free(why);
			buf_free(&errs);
			return -1;
		}
		buf_printf(&errs, "%s%s", errs.len ? "; " : "", why);
		free(why);
		why = NULL;
	}
	if (c->nhosts == 1)
		cause_set(cause, "cannot connect to %s. Check the host name "
		    "and port and that the cluster is reachable from here "
		    "(VPN?)", errs.data);
	else
		cause_set(cause, "cannot connect to any of the %zu login hosts: "
		    "%s. Check the host names and port and that the cluster "
		    "is reachable from here (VPN?)", c->nhosts, errs.data);
	buf_free(&errs);
	return -1;
}

void
conn_result_free(struct conn_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
	r->status = -1;
}

/*
 * The last line of b if it asks for input: no newline after it, ending in
 * ':' or '?' (blanks aside), as "Passcode or option (1-3): " does.
 */
static const char *
conn_prompt_line(const struct buf *b)
{
	const char	*line;
	size_t		 n = b->len;

	if (n == 0 || b->data[n - 1] == '\n')
		return NULL;
	while (n > 0 && (b->data[n - 1] == ' ' || b->data[n - 1] == '\t'))
		n--;
	if (n == 0 || (b->data[n - 1] != ':' && b->data[n - 1] != '?'))
		return NULL;
	line = memrchr(b->data, '\n', n);
	return line != NULL ? line + 1 : b->data;
}

/*
 * A prompt on every new session (Duo's "ForceCommand login_duo", duo_unix
 * issue 53): the command's first output asks for input and nothing else
 * comes.  No answer sqdeck could send is right (its stdin is the
 * command's), so it is stopped and explained, never waited on.
 */
int
conn_session_prompt(struct conn *c, const struct buf *out,
    const struct buf *err, double first, double last, double start,
    char **cause)
{
	const char	*p;
	char		 q[81];
	size_t		 i;

	if (first < 0 || first - start > CONN_PROMPT_IDLE ||
	    conn_now() - last < CONN_PROMPT_IDLE ||
	    out->len + err->len > CONN_PROMPT_MAX)
		return 0;
	if ((p = conn_prompt_line(out)) == NULL &&
	    (p = conn_prompt_line(err)) == NULL)
		return 0;
	/* Untrusted text: printable ASCII only, and short. */
	for (i = 0; i < sizeof q - 1 && p[i] != '\0'; i++)
		q[i] = (p[i] >= ' ' && p[i] <= '~') ? p[i] : '?';
	q[i] = '\0';
	cause_set(cause, "%s: the login node asks for input on every new "
	    "session (\"%s\", then nothing for %d s), as Duo's ForceCommand "
	    "login_duo does: sqdeck cannot answer that, since each command is "
	    "a new session, even on a kept login. Ask the site to set Duo up "
	    "through PAM (keyboard-interactive), which sqdeck asks once, with "
	    "'sqdeck login %s', and keeps for every command; the command was "
	    "stopped", conn_name(c), q, CONN_PROMPT_IDLE, conn_name(c));
	return 1;
}

/*
 * One command on one channel.  *started says whether the command may have
 * run: only a failure before that may be retried on a new session.
 */
static int
conn_exec_once(struct conn *c, const char *cmd, const void *in, size_t inlen,
    int timeout, size_t maxout, struct conn_result *res, char **cause,
    int *started)
{
	ssh_session	 s = c->session;
	ssh_channel	 ch;
	struct buf	 out, err;
	const char	*p = in;
	char		 data[CONN_CHUNK];
	size_t		 sent = 0, want;
	uint32_t	 win;
	double		 deadline, left, start, first = -1, last = 0;
	size_t		 had;
	int		 n, eof_sent = 0, slice, rc = -1;

	*started = 0;
	buf_init(&out);
	buf_init(&err);
	if ((ch = ssh_channel_new(s)) == NULL)
		return cause_set(cause, "%s: cannot open a channel: %s",
		    c->target, ssh_get_error(s));
	if (ssh_channel_open_session(ch) != SSH_OK) {
		cause_set(cause, "%s: cannot open a channel: %s", c->target,
		    ssh_get_error(s));
		ssh_channel_free(ch);
		return -1;
	}
	c->stats.channels++;
	*started = 1;
	if (ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		cause_set(cause, "%s: cannot start the command: %s", c->target,
		    ssh_get_error(s));
		goto out;
	}

	start = conn_now();
	deadline = start + timeout;
	for (;;) {
		/* Never write more than the window: a blocked write with a
		 * full stdout would deadlock both sides. */
		if (!eof_sent && sent < inlen) {
			win = ssh_channel_window_size(ch);
			want = inlen - sent;
			if (want > win)
				want = win;
			if (want > CONN_CHUNK)
				want = CONN_CHUNK;
			if (want > 0) {
				n = ssh_channel_write(ch, p + sent, want);
				if (n == SSH_ERROR) {
					if (!ssh_is_connected(s))
						goto lost;
					/* The command stopped reading. */
					eof_sent = 1;
				} else
					sent += n;
			}
		}
		if (!eof_sent && sent >= inlen) {
			ssh_channel_send_eof(ch);
			eof_sent = 1;
		}

		left = deadline - conn_now();
		if (left <= 0)
			goto timeout;
		slice = (!eof_sent) ? 20 : CONN_READ_SLICE_MS;
		if (left * 1000 < slice)
			slice = (int)(left * 1000) + 1;
		had = out.len + err.len;
		n = ssh_channel_read_timeout(ch, data, sizeof data, 0, slice);
		if (n == SSH_ERROR)
			goto lost;
		if (n > 0)
			buf_add(&out, data, n);
		while ((n = ssh_channel_read_nonblocking(ch, data, sizeof data,
		    0)) > 0)
			buf_add(&out, data, n);
		while ((n = ssh_channel_read_nonblocking(ch, data, sizeof data,
		    1)) > 0)
			buf_add(&err, data, n);
		if (n == SSH_ERROR)
			goto lost;
		if (out.len + err.len != had) {
			last = conn_now();
			if (first < 0)
				first = last;
		} else if (conn_session_prompt(c, &out, &err, first, last,
		    start, cause)) {
			ssh_channel_request_send_signal(ch, "TERM");
			goto out;
		}
		if (maxout != 0 && out.len + err.len > maxout) {
			res->truncated = 1;
			ssh_channel_request_send_signal(ch, "TERM");
			break;
		}
		if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch)) {
			/* Data sent just before EOF is already buffered. */
			while ((n = ssh_channel_read_nonblocking(ch, data,
			    sizeof data, 0)) > 0)
				buf_add(&out, data, n);
			while ((n = ssh_channel_read_nonblocking(ch, data,
			    sizeof data, 1)) > 0)
				buf_add(&err, data, n);
			break;
		}
		if (!ssh_is_connected(s))
			goto lost;
	}
	res->status = res->truncated ? -1 : ssh_channel_get_exit_status(ch);
	if (maxout != 0) {
		if (out.len > maxout)
			out.len = maxout;
		if (err.len > maxout - out.len)
			err.len = maxout - out.len;
		if (out.data != NULL)
			out.data[out.len] = '\0';
		if (err.data != NULL)
			err.data[err.len] = '\0';
	}
	res->outlen = out.len;
	res->out = buf_steal(&out);
	res->errlen = err.len;
	res->err = buf_steal(&err);
	rc = 0;
	goto out;

timeout:
	/* Stop it: a command left running would hold the channel's slot. */
	ssh_channel_request_send_signal(ch, "TERM");
	cause_set(cause, "command did not finish within %d s on %s (it was "
	    "sent SIGTERM)", timeout, c->target);
	goto out;
lost:
	cause_set(cause, "connection to %s lost while a command ran (it may "
	    "or may not have completed): %s", c->target, ssh_get_error(s));
	ssh_channel_free(ch);
	ch = NULL;
	conn_disconnect(c);
out:
	if (ch != NULL) {
		ssh_channel_close(ch);
		ssh_channel_free(ch);
	}
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* exec_limit, or with max_age > 0 a kept answer if the holder has one. */
static int
conn_exec_any(struct conn *c, const char *cmd, const void *in, size_t inlen,
    int timeout, size_t maxout, int max_age, struct conn_result *res,
    int *age, char **cause)
{
	char	*why = NULL;
	int	 rc, started, fresh = 0;

	memset(res, 0, sizeof *res);
	res->status = -1;
	*age = -1;
	if (timeout <= 0)
		timeout = c->command_timeout;
	if (conn_holder_wanted(c)) {
		rc = conn_holder_call(c, max_age > 0 ? HOLDER_CACHED :
		    HOLDER_EXEC, cmd, in, inlen, timeout, maxout, max_age, res,
		    cause);
		if (rc == 0 && max_age > 0)
			*age = c->hage;
		if (rc != 1)
			return rc;
		memset(res, 0, sizeof *res);
		res->status = -1;
	}
	if (c->session != NULL && !ssh_is_connected(c->session)) {
		conn_disconnect(c);
		c->stats.reconnects++;
	}
	if (c->session == NULL) {
		if (conn_connect(c, cause) != 0)
			return -1;
		fresh = 1;
	}
	rc = conn_exec_once(c, cmd, in, inlen, timeout, maxout, res, &why,
	    &started);
	if (rc == 0 || started || fresh) {
		if (rc != 0 && cause != NULL)
			*cause = why;
		else
			free(why);
		return rc;
	}
	/* The session died while idle (the channel could not open): once. */
	conn_disconnect(c);
	c->stats.reconnects++;
	if (conn_connect(c, cause) != 0) {
		free(why);
		return -1;
	}
	free(why);
	why = NULL;
	rc = conn_exec_once(c, cmd, in, inlen, timeout, maxout, res, &why,
	    &started);
	if (rc != 0 && cause != NULL)
		*cause = why;
	else
		free(why);
	return rc;
}

/* -v: each command's round trip and its time (never its text). */
static void
conn_verbose_took(struct conn *c, double t0, int rc, int age)
{
	if (!conn_verbose)
		return;
	if (age >= 0) {
		fprintf(stderr, "sqdeck: %s: kept answer reused (%d s old): no "
		    "round trip\n", conn_name(c), age);
		return;
	}
	c->nround++;
	fprintf(stderr, "sqdeck: %s: round trip %u: %.1f ms (%s)%s\n",
	    conn_name(c), c->nround, (conn_now() - t0) * 1000,
	    c->hfd >= 0 ? "shared login" : "own connection",
	    rc != 0 ? ", failed" : "");
}

int
conn_exec_limit(struct conn *c, const char *cmd, const void *in, size_t inlen,
    int timeout, size_t maxout, struct conn_result *res, char **cause)
{
	double	t0 = conn_now();
	int	rc, age;

	rc = conn_exec_any(c, cmd, in, inlen, timeout, maxout, 0, res, &age,
	    cause);
	conn_verbose_took(c, t0, rc, -1);
	return rc;
}

int
conn_exec_cached(struct conn *c, const char *cmd, const void *in,
    size_t inlen, int max_age, struct conn_result *res, int *age,
    char **cause)
{
	double	t0 = conn_now();
	int	rc;

	rc = conn_exec_any(c, cmd, in, inlen, 0, CONN_MAXOUT, max_age, res,
	    age, cause);
	conn_verbose_took(c, t0, rc, *age);
	return rc;
}

int
conn_remember(struct conn *c, const char *cmd, const void *in, size_t inlen,
    const struct conn_result *res, char **cause)
{
	int	rc;

	if (c->hfd < 0 || c->direct)
		return cause_set(cause, "%s: no shared login to keep it in",
		    conn_name(c));
	rc = holder_put(c->hfd, c->hgen, cmd, in, inlen, res,
	    conn_holder_wait(c, 0), cause);
	if (rc < 0)
		conn_holder_close(c);	/* gone: the next call reattaches */
	if (rc != 0)
		return -1;
	if (conn_verbose)
		fprintf(stderr, "sqdeck: %s: answer kept by the shared login "
		    "for up to %d s\n", conn_name(c), HOLDER_CACHE_TTL);
	return 0;
}

int
conn_check(struct conn *c, char **cause)
{
	ssh_channel	ch;

	if (c->hfd >= 0)
		return conn_holder_call(c, HOLDER_INFO, NULL, NULL, 0, 0, 0, 0,
		    NULL, cause) == 0 && c->hconnected ? 0 :
		    cause_set(cause, "%s: not logged in", conn_name(c));
	if (c->session == NULL || !ssh_is_connected(c->session))
		return cause_set(cause, "%s: not connected", conn_name(c));
	/* Blocking, bounded by the session's timeout (connect_timeout). */
	if ((ch = ssh_channel_new(c->session)) == NULL ||
	    ssh_channel_open_session(ch) != SSH_OK) {
		cause_set(cause, "connection to %s lost: %s", c->target,
		    ssh_get_error(c->session));
		if (ch != NULL)
			ssh_channel_free(ch);
		conn_disconnect(c);
		return -1;
	}
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return 0;
}

int
conn_hung_up(struct conn *c)
{
	struct pollfd	pfd;
	int		fd;

	if (c->session == NULL || !ssh_is_connected(c->session) ||
	    (fd = ssh_get_fd(c->session)) < 0)
		return 0;
	pfd.fd = fd;
	pfd.events = POLLIN | POLLRDHUP;
	pfd.revents = 0;
	/* Unread bytes (a channel's close) may come first: RDHUP sees past. */
	if (poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
		conn_disconnect(c);
		return 1;
	}
	return 0;
}

int
conn_exec(struct conn *c, const char *cmd, const void *in, size_t inlen,
    struct conn_result *res, char **cause)
{
	/* Nothing the cluster sends may grow this process without bound. */
	return conn_exec_limit(c, cmd, in, inlen, 0, CONN_MAXOUT, res, cause);
}

int
conn_holder_stop(struct conn *c, char **cause)
{
	char	*path;
	int	 rc;

	conn_holder_close(c);
	if ((path = conn_holder_sock(c, cause)) == NULL)
		return -1;
	rc = holder_stop(path, cause);
	free(path);
	return rc;
}

int
conn_holder_stop_all(char **cause)
{
	struct strv	 paths = { NULL, 0 };
	char		*dir, *why = NULL;
	size_t		 i;
	int		 n = 0, rc;

	if ((dir = holder_dir(cause)) == NULL)
		return -1;
	if (holder_list(dir, &paths, cause) != 0) {
		free(dir);
		return -1;
	}
	for (i = 0; i < paths.n; i++) {
		rc = holder_stop(paths.v[i], &why);
		if (rc > 0)
			n++;
		free(why);
		why = NULL;
	}
	strv_free(&paths);
	free(dir);
	return n;
}

/* ------------------------------------------------ channels, unblocked */

static int
conn_chan_start(struct conn *c, ssh_channel ch, const struct conn_chan_req *r)
{
	switch (r->kind) {
	case CONN_CHAN_TCP:
		return ssh_channel_open_forward(ch, r->host, r->port,
		    "127.0.0.1", 0);
	case CONN_CHAN_PTY:
		if (ssh_channel_open_session(ch) != SSH_OK)
			return SSH_ERROR;
		c->stats.channels++;
		if (ssh_channel_request_pty_size(ch, r->term != NULL ?
		    r->term : "xterm", r->cols > 0 ? r->cols : 80,
		    r->rows > 0 ? r->rows : 24) != SSH_OK)
			return SSH_AGAIN;	/* opened: may not retry */
		if (r->cmd == NULL)
			return ssh_channel_request_shell(ch) == SSH_OK ?
			    SSH_OK : SSH_AGAIN;
		return ssh_channel_request_exec(ch, r->cmd) == SSH_OK ?
		    SSH_OK : SSH_AGAIN;
	default:
		if (ssh_channel_open_session(ch) != SSH_OK)
			return SSH_ERROR;
		c->stats.channels++;
		return ssh_channel_request_exec(ch, r->cmd) == SSH_OK ?
		    SSH_OK : SSH_AGAIN;
	}
}

/* One try on the session as it is: *started if the channel opened. */
static int
conn_chan_try(struct conn *c, const struct conn_chan_req *r,
    struct conn_chan **out, int *started, char **cause)
{
	struct conn_chan	*k;
	ssh_channel		 ch;
	int			 rc;

	*started = 0;
	if ((ch = ssh_channel_new(c->session)) == NULL)
		return cause_set(cause, "%s: cannot open a channel: %s",
		    c->target, ssh_get_error(c->session));
	rc = conn_chan_start(c, ch, r);
	if (rc != SSH_OK) {
		*started = rc == SSH_AGAIN;
		if (r->kind == CONN_CHAN_TCP)
			cause_set(cause, "%s: the login node did not open a "
			    "connection to %s:%d: %s", c->target, r->host,
			    r->port, ssh_get_error(c->session));
		else
			cause_set(cause, "%s: cannot %s: %s", c->target,
			    rc == SSH_AGAIN ? "start the command" :
			    "open a channel", ssh_get_error(c->session));
		if (rc == SSH_AGAIN)
			ssh_channel_close(ch);
		ssh_channel_free(ch);
		return -1;
	}
	*started = 1;
	k = xcalloc(1, sizeof *k);
	k->c = c;
	k->ch = ch;
	k->status = -1;
	k->session = r->kind != CONN_CHAN_TCP;
	k->next = c->chans;
	c->chans = k;
	*out = k;
	return 0;
}

int
conn_chan_open(struct conn *c, const struct conn_chan_req *r,
    struct conn_chan **out, int *started, char **cause)
{
	char	*why = NULL;
	int	 fresh = 0, rc;

	*out = NULL;
	*started = 0;
	if (c->session != NULL && !ssh_is_connected(c->session)) {
		conn_disconnect(c);
		c->stats.reconnects++;
	}
	if (c->session == NULL) {
		if (conn_connect(c, cause) != 0)
			return -1;
		fresh = 1;
	}
	rc = conn_chan_try(c, r, out, started, &why);
	/* A TCP open the login node refused is not a dead session. */
	if (rc == 0 || *started || fresh || ssh_is_connected(c->session)) {
		if (rc != 0 && cause != NULL)
			*cause = why;
		else
			free(why);
		return rc;
	}
	free(why);
	conn_disconnect(c);
	c->stats.reconnects++;
	if (conn_connect(c, cause) != 0)
		return -1;
	return conn_chan_try(c, r, out, started, cause);
}

int
conn_session_fd(struct conn *c)
{
	if (c->session == NULL || !ssh_is_connected(c->session))
		return -1;
	return ssh_get_fd(c->session);
}

int
conn_chan_read(struct conn_chan *k, int is_stderr, void *p, size_t len)
{
	int	n;

	if (k->ch == NULL)
		return -1;
	n = ssh_channel_read_nonblocking(k->ch, p, len > INT32_MAX ?
	    INT32_MAX : (uint32_t)len, is_stderr);
	if (n > 0)
		return n;
	if (n == SSH_ERROR && !ssh_is_connected(k->c->session)) {
		conn_disconnect(k->c);
		return -1;
	}
	if (n < 0 || ssh_channel_is_eof(k->ch) || ssh_channel_is_closed(k->ch))
		return -1;
	return 0;
}

int
conn_chan_write(struct conn_chan *k, const void *p, size_t len)
{
	uint32_t	win;
	int		n;

	if (k->ch == NULL || ssh_channel_is_closed(k->ch))
		return -1;
	win = ssh_channel_window_size(k->ch);
	if (len > win)
		len = win;
	if (len > CONN_CHUNK)
		len = CONN_CHUNK;
	if (len == 0)
		return 0;
	n = ssh_channel_write(k->ch, p, (uint32_t)len);
	if (n == SSH_ERROR) {
		if (!ssh_is_connected(k->c->session))
			conn_disconnect(k->c);
		return -1;
	}
	return n;
}

void
conn_chan_send_eof(struct conn_chan *k)
{
	if (k->ch != NULL && !ssh_channel_is_closed(k->ch))
		ssh_channel_send_eof(k->ch);
}

void
conn_chan_winch(struct conn_chan *k, int rows, int cols)
{
	if (k->ch != NULL && rows > 0 && cols > 0 && rows < 10000 &&
	    cols < 10000)
		ssh_channel_change_pty_size(k->ch, cols, rows);
}

void
conn_chan_signal(struct conn_chan *k, const char *sig)
{
	if (k->ch != NULL && !ssh_channel_is_closed(k->ch))
		ssh_channel_request_send_signal(k->ch, sig);
}

int
conn_chan_done(struct conn_chan *k)
{
	ssh_session	s;

	if (k->ch == NULL)
		return 1;
	if (k->status >= 0)
		return 1;
	s = k->c->session;
	/* Not blocking: the status comes just before the close. */
	ssh_set_blocking(s, 0);
	k->status = ssh_channel_get_exit_status(k->ch);
	ssh_set_blocking(s, 1);
	if (k->status >= 0)
		return 1;
	return ssh_channel_is_closed(k->ch) || !ssh_is_connected(s);
}

int
conn_chan_status(struct conn_chan *k)
{
	conn_chan_done(k);
	return k->status;
}

int
conn_chan_lost(const struct conn_chan *k)
{
	return k->lost;
}

void
conn_chan_close(struct conn_chan *k)
{
	struct conn_chan	**pp;

	if (k == NULL)
		return;
	for (pp = &k->c->chans; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	}
	if (k->ch != NULL) {
		/* Closing it hangs up the command's session (SIGHUP). */
		if (k->session && !ssh_channel_is_closed(k->ch) &&
		    k->status < 0 && !ssh_channel_is_eof(k->ch))
			ssh_channel_request_send_signal(k->ch, "TERM");
		ssh_channel_close(k->ch);
		ssh_channel_free(k->ch);
	}
	free(k);
}

/* ---------------------------------------------------------- streams */

struct conn_stream {
	struct conn		*c;
	int			 fd;		/* holder socket, -1: own */
	struct conn_chan	*k;		/* own session */
	struct buf		 in;		/* holder frames not yet taken */
	struct buf		 data;		/* output not yet returned */
	size_t			 off;
	int			 ended;
	int			 status;
	int			 lost;
};

static int
conn_stream_holder(struct conn *c, const struct conn_chan_req *q,
    struct conn_stream *st, char **cause)
{
	struct conn_opts	 o;
	struct holder_reply	 rep;
	conn_prompt_fn		 fn;
	void			*arg;
	char			*path;
	int			 rc;

	if ((path = conn_holder_sock(c, cause)) == NULL)
		return 1;
	conn_opts_of(c, &o);
	st->fd = holder_attach(path, conn_holder_exe, &o, cause);
	free(path);
	if (st->fd < 0)
		return 1;
	fn = conn_prompt_of(c, &arg);
	if (holder_stream(st->fd, q, conn_holder_wait(c, 0), fn, arg,
	    conn_name(c), &rep, cause) != 0) {
		close(st->fd);
		st->fd = -1;
		return 1;
	}
	conn_holder_take(c, &rep);
	rc = rep.rc == 0 ? 0 : -1;
	if (rc != 0 && cause != NULL) {
		*cause = rep.cause != NULL ? rep.cause :
		    xstrdup("the login holder failed");
		rep.cause = NULL;
	}
	holder_reply_free(&rep);
	return rc;
}

int
conn_stream_open(struct conn *c, const struct conn_chan_req *q,
    struct conn_stream **out, char **cause)
{
	struct conn_stream	*st;
	char			*why = NULL;
	int			 rc = 1, started;

	st = xcalloc(1, sizeof *st);
	st->c = c;
	st->fd = -1;
	st->status = -1;
	buf_init(&st->in);
	buf_init(&st->data);
	if (conn_holder_wanted(c) && (c->hfd >= 0 ||
	    conn_holder_open(c) == 0)) {
		rc = conn_stream_holder(c, q, st, &why);
		if (rc == 1)
			conn_holder_fallback(c, why != NULL ? why : "unknown");
	}
	if (rc == 1) {
		free(why);
		why = NULL;
		rc = conn_chan_open(c, q, &st->k, &started, &why);
	}
	if (rc != 0) {
		if (cause != NULL)
			*cause = why;
		else
			free(why);
		conn_stream_close(st);
		return -1;
	}
	free(why);
	*out = st;
	return 0;
}

int
conn_stream_fd(struct conn_stream *st)
{
	return st->fd >= 0 ? st->fd : conn_session_fd(st->c);
}

/* Take the whole frames the holder sent; -1 when the socket ended. */
static int
conn_stream_frames(struct conn_stream *st)
{
	unsigned char	*h, chunk[32768];
	uint32_t	 len;
	ssize_t		 n;
	int		 type;

	while ((n = recv(st->fd, chunk, sizeof chunk, MSG_DONTWAIT)) > 0)
		buf_add(&st->in, chunk, n);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR &&
	    errno != EWOULDBLOCK))
		st->ended = 1;
	while (st->in.len >= 5) {
		h = (unsigned char *)st->in.data;
		len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
		    (uint32_t)h[2] << 8 | h[3];
		if (len == 0 || len > 1024 * 1024) {
			st->ended = st->lost = 1;
			return -1;
		}
		if (st->in.len - 4 < len)
			break;
		type = h[4];
		if (type == HOLDER_F_DATA || type == HOLDER_F_EDATA)
			buf_add(&st->data, h + 5, len - 1);
		else if (type == HOLDER_F_EXIT && len >= 9) {
			st->status = (int)((uint32_t)h[5] << 24 |
			    (uint32_t)h[6] << 16 | (uint32_t)h[7] << 8 | h[8]);
			st->lost = h[12] != 0;
			st->ended = 1;
		}
		memmove(st->in.data, st->in.data + 4 + len,
		    st->in.len - 4 - len);
		st->in.len -= 4 + len;
	}
	return 0;
}

int
conn_stream_read(struct conn_stream *st, void *p, size_t len)
{
	int	n, m;

	if (st->fd < 0) {
		if (st->ended)
			return -1;
		if ((n = conn_chan_read(st->k, 0, p, len)) > 0)
			return n;
		if ((m = conn_chan_read(st->k, 1, p, len)) > 0)
			return m;
		if (n < 0 && conn_chan_done(st->k)) {
			st->ended = 1;
			st->status = conn_chan_status(st->k);
			st->lost = conn_chan_lost(st->k);
			return -1;
		}
		return 0;
	}
	if (st->off == st->data.len) {
		st->off = st->data.len = 0;
		if (!st->ended)
			conn_stream_frames(st);
	}
	if (st->off < st->data.len) {
		n = st->data.len - st->off < len ? st->data.len - st->off :
		    len;
		memcpy(p, st->data.data + st->off, n);
		st->off += n;
		return n;
	}
	return st->ended ? -1 : 0;
}

int
conn_stream_write(struct conn_stream *st, const void *p, size_t len)
{
	const char	*q = p;
	size_t		 n;

	if (st->fd >= 0) {
		while (len > 0) {
			n = len > 65536 ? 65536 : len;
			if (holder_frame(st->fd, HOLDER_F_DATA, q, n, 0, 0) != 0)
				return -1;
			q += n;
			len -= n;
		}
		return 0;
	}
	/* Own session: a blocking write waits for window (bounded). */
	if (st->k->ch == NULL)
		return -1;
	while (len > 0) {
		n = len > CONN_CHUNK ? CONN_CHUNK : len;
		if (ssh_channel_write(st->k->ch, q, (uint32_t)n) == SSH_ERROR)
			return -1;
		q += n;
		len -= n;
	}
	return 0;
}

void
conn_stream_eof(struct conn_stream *st)
{
	if (st->fd >= 0)
		holder_frame(st->fd, HOLDER_F_EOF, NULL, 0, 0, 0);
	else
		conn_chan_send_eof(st->k);
}

void
conn_stream_winch(struct conn_stream *st, int rows, int cols)
{
	if (st->fd >= 0)
		holder_frame(st->fd, HOLDER_F_WINCH, NULL, 0, rows, cols);
	else
		conn_chan_winch(st->k, rows, cols);
}

int
conn_stream_status(struct conn_stream *st, int *lost)
{
	if (lost != NULL)
		*lost = st->lost;
	return st->status;
}

void
conn_stream_close(struct conn_stream *st)
{
	if (st == NULL)
		return;
	if (st->fd >= 0)
		close(st->fd);
	conn_chan_close(st->k);
	buf_free(&st->in);
	buf_free(&st->data);
	free(st);
}

/* ------------------------------------------------------------ probes */

#define CONN_PROBE_ADDRS	4	/* addresses tried per host */

/* One address of one host of one conn being probed. */
struct conn_probe1 {
	size_t		 ci;		/* the conn */
	int		 fd;		/* -1 once done */
	int		 connected;
	double		 deadline;
	char		*where;		/* host:port, for messages */
	char		 hello[256];	/* what the server said so far */
	size_t		 nhello;
};

/* The server's first lines: one that begins with "SSH-" is its hello. */
static int
conn_probe_hello(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i + 4 <= n; i++) {
		if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, "SSH-", 4) == 0)
			return 1;
	}
	return 0;
}

/* Start the probes of conn ci; 1 when it cannot be probed (connect it). */
static int
conn_probe_start(struct conn *c, size_t ci, struct conn_probe1 **pv,
    size_t *np, struct buf *errs)
{
	struct conn_eff		 e;
	struct addrinfo		 hints, *res, *ai;
	struct conn_probe1	*p;
	char			*path, *why = NULL, port[16];
	const char		*pc;
	double			 deadline = conn_now() + c->connect_timeout;
	size_t			 i;
	int			 fd, k, rc;

	if (c->jumps.n > 0 || c->nhosts == 0 || conn_connected(c))
		return 1;
	/* A holder listening for it: it may be logged in already. */
	if (conn_holder_exe != NULL && c->persist > 0 &&
	    (path = conn_holder_sock(c, &why)) != NULL) {
		fd = holder_connect(path, NULL);
		free(path);
		if (fd >= 0) {
			close(fd);
			return 1;
		}
	}
	free(why);
	for (i = 0; i < c->nhosts; i++) {
		why = NULL;
		if (conn_resolve(c, i, &e, &why) != 0) {
			free(why);
			conn_eff_free(&e);
			return 1;	/* the login says what is wrong */
		}
		pc = e.sc.v[SSHCONF_PROXYCOMMAND].value;
		if (e.nhops > 0 || (pc != NULL && strcasecmp(pc, "none") != 0)) {
			conn_eff_free(&e);
			return 1;
		}
		snprintf(port, sizeof port, "%u", e.port ? e.port : 22);
		memset(&hints, 0, sizeof hints);
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		if ((rc = getaddrinfo(e.host, port, &hints, &res)) != 0) {
			buf_printf(errs, "%s%s:%s: %s", errs->len ? "; " : "",
			    e.host, port, gai_strerror(rc));
			conn_eff_free(&e);
			continue;
		}
		for (ai = res, k = 0; ai != NULL && k < CONN_PROBE_ADDRS;
		    ai = ai->ai_next, k++) {
			fd = socket(ai->ai_family, ai->ai_socktype |
			    SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				buf_printf(errs, "%s%s:%s: socket: %s",
				    errs->len ? "; " : "", e.host, port,
				    strerror(errno));
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
			    errno != EINPROGRESS) {
				buf_printf(errs, "%s%s:%s: %s",
				    errs->len ? "; " : "", e.host, port,
				    strerror(errno));
				close(fd);
				continue;
			}
			*pv = xrealloc(*pv, (*np + 1) * sizeof **pv);
			p = &(*pv)[(*np)++];
			memset(p, 0, sizeof *p);
			p->ci = ci;
			p->fd = fd;
			p->deadline = deadline;
			p->where = xasprintf("%s:%s", e.host, port);
		}
		freeaddrinfo(res);
		conn_eff_free(&e);
	}
	return 0;
}

/* Probe p is over; with why, it failed (added to the conn's errors). */
static void
conn_probe_end(struct conn_probe1 *p, struct buf *errs, const char *why)
{
	if (why != NULL)
		buf_printf(&errs[p->ci], "%s%s: %s", errs[p->ci].len ? "; " :
		    "", p->where, why);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Some bytes from the server: a hello ends the probe well. */
static int
conn_probe_read(struct conn_probe1 *p, struct buf *errs)
{
	ssize_t	r;

	r = recv(p->fd, p->hello + p->nhello, sizeof p->hello - 1 -
	    p->nhello, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r < 0) {
		conn_probe_end(p, errs, strerror(errno));
		return 0;
	}
	if (r == 0) {
		conn_probe_end(p, errs, "the server closed the connection "
		    "before saying SSH's hello");
		return 0;
	}
	p->nhello += r;
	if (conn_probe_hello(p->hello, p->nhello))
		return 1;
	if (p->nhello == sizeof p->hello - 1)
		conn_probe_end(p, errs, "not an SSH server (no SSH- line)");
	return 0;
}

void
conn_probe(struct conn *const *v, size_t n, int *ok, char **why,
    void (*found)(void *, size_t), void *arg)
{
	struct conn_probe1	*pv = NULL, *p;
	struct pollfd		*pfd;
	struct buf		*errs;
	size_t			 np = 0, i, k, m, *map;
	double			 now, first;
	int			 err, won, wait;
	socklen_t		 len;

	pthread_once(&conn_once, conn_init_library);
	errs = xcalloc(n + 1, sizeof *errs);
	for (i = 0; i < n; i++) {
		buf_init(&errs[i]);
		why[i] = NULL;
		ok[i] = conn_probe_start(v[i], i, &pv, &np, &errs[i]);
		if (ok[i] && found != NULL)
			found(arg, i);
	}
	pfd = xcalloc(np + 1, sizeof *pfd);
	map = xcalloc(np + 1, sizeof *map);
	for (;;) {
		now = conn_now();
		first = 0;
		for (m = 0, k = 0; k < np; k++) {
			p = &pv[k];
			if (p->fd < 0)
				continue;
			if (ok[p->ci]) {
				conn_probe_end(p, NULL, NULL);
				continue;
			}
			if (now >= p->deadline) {
				char	*t = xasprintf("%s within %d s",
				    p->connected ? "no SSH hello" :
				    "no TCP connection",
				    v[p->ci]->connect_timeout);

				conn_probe_end(p, errs, t);
				free(t);
				continue;
			}
			if (first == 0 || p->deadline < first)
				first = p->deadline;
			pfd[m].fd = p->fd;
			pfd[m].events = p->connected ? POLLIN : POLLOUT;
			pfd[m].revents = 0;
			map[m++] = k;
		}
		if (m == 0)
			break;
		wait = (int)((first - now) * 1000) + 1;
		if (poll(pfd, m, wait) < 0 && errno != EINTR)
			break;
		for (i = 0; i < m; i++) {
			if (pfd[i].revents == 0)
				continue;
			p = &pv[map[i]];
			if (!p->connected) {
				err = 0;
				len = sizeof err;
				if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err,
				    &len) != 0)
					err = errno;
				if (err != 0) {
					conn_probe_end(p, errs, strerror(err));
					continue;
				}
				p->connected = 1;
				continue;
			}
			won = conn_probe_read(p, errs);
			if (won && !ok[p->ci]) {
				ok[p->ci] = 1;
				if (found != NULL)
					found(arg, p->ci);
			}
		}
	}
	for (k = 0; k < np; k++) {
		conn_probe_end(&pv[k], NULL, NULL);
		free(pv[k].where);
	}
	for (i = 0; i < n; i++) {
		if (!ok[i]) {
			why[i] = xasprintf("cannot connect to %s. Check the "
			    "host name and port and that the cluster is "
			    "reachable from here (VPN?)", errs[i].len ?
			    errs[i].data : "no login host");
		}
		buf_free(&errs[i]);
	}
	free(errs);
	free(pfd);
	free(map);
	free(pv);
}
