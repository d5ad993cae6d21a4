/*
 * Where a login host is and how it is reached: ~/.ssh/config read by
 * sqdeck itself (sshconf.c) under clusters.yaml's values, and bastions
 * jumped natively.  libssh 0.10 runs ProxyJump as a local "ssh -W"; here
 * each bastion is a session of ours (its host key checked strictly, its
 * login like any other), a direct-tcpip channel on it goes to the next
 * hop, and the next session runs over a socketpair that libssh's
 * connectors relay to that channel.  Every session of the chain and the
 * relays are in one ssh_event, so the thread that uses the conn relays
 * while it waits on the login node's session: no thread, no ssh(1).
 */
#include "conn.h"
#include "conn-int.h"

#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>

#define CONN_FROM_YAML	"clusters.yaml"

static int
conn_config_files(const struct conn *c, const char *files[3],
    char **homep)
{
	const char	*home = getenv("HOME");

	*homep = xstrdup(home != NULL ? home : "");
	files[0] = files[1] = files[2] = NULL;
	if (c->ssh_config != NULL && *c->ssh_config == '\0')
		return 0;
	if (c->ssh_config != NULL) {
		files[0] = xstrdup(c->ssh_config);
		return 1;
	}
	files[0] = xasprintf("%s/.ssh/config", *homep);
	files[1] = xstrdup("/etc/ssh/ssh_config");
	return 2;
}

static int
conn_lookup(const struct conn *c, const char *alias, struct sshconf *sc,
    char **why)
{
	const char	*files[3];
	char		*home;
	int		 n, rc;

	n = conn_config_files(c, files, &home);
	rc = sshconf_resolve(files, alias, home, sc, why);
	while (n-- > 0)
		free((char *)files[n]);
	free(home);
	return rc;
}

static int
conn_port_of(const struct sshconf_val *v, char **why)
{
	char	*ep;
	long	 p;

	if (v->value == NULL)
		return 0;
	p = strtol(v->value, &ep, 10);
	if (*ep != '\0' || p < 1 || p > 65535)
		return cause_set(why, "%s: Port '%s' is not a number from 1 "
		    "to 65535", v->where, v->value);
	return (int)p;
}

int
conn_resolve(struct conn *c, size_t i, struct conn_eff *e, char **why)
{
	struct conn_host	*h = &c->hosts[i];
	struct sshconf		*sc = &e->sc;
	struct buf		 b;
	char			*old;
	size_t			 j;
	int			 p;

	memset(e, 0, sizeof *e);
	if (conn_lookup(c, h->host, sc, why) != 0)
		return -1;
	e->host = xstrdup(sc->v[SSHCONF_HOSTNAME].value != NULL ?
	    sc->v[SSHCONF_HOSTNAME].value : h->host);
	e->from[SSHCONF_HOSTNAME] = sc->v[SSHCONF_HOSTNAME].where;
	if (c->user != NULL) {
		e->user = xstrdup(c->user);
		e->from[SSHCONF_USER] = CONN_FROM_YAML;
	} else if (sc->v[SSHCONF_USER].value != NULL) {
		e->user = xstrdup(sc->v[SSHCONF_USER].value);
		e->from[SSHCONF_USER] = sc->v[SSHCONF_USER].where;
	}
	if ((p = conn_port_of(&sc->v[SSHCONF_PORT], why)) < 0)
		return -1;
	e->from[SSHCONF_PORT] = sc->v[SSHCONF_PORT].where;
	if (h->port > 0 || c->port > 0) {
		p = h->port > 0 ? h->port : c->port;
		e->from[SSHCONF_PORT] = CONN_FROM_YAML;
	}
	e->port = (unsigned int)p;
	if (c->key_path != NULL) {
		e->key = xstrdup(c->key_path);
		e->from[SSHCONF_IDENTITYFILE] = CONN_FROM_YAML;
	} else if (sc->v[SSHCONF_IDENTITYFILE].value != NULL &&
	    access(sc->v[SSHCONF_IDENTITYFILE].value, R_OK) == 0) {
		/* As ssh: an IdentityFile that is not there is skipped. */
		e->key = xstrdup(sc->v[SSHCONF_IDENTITYFILE].value);
		e->from[SSHCONF_IDENTITYFILE] =
		    sc->v[SSHCONF_IDENTITYFILE].where;
	}
	if (c->cert_path != NULL) {
		e->cert = xstrdup(c->cert_path);
		e->from[SSHCONF_CERTIFICATEFILE] = CONN_FROM_YAML;
	} else if (e->key != NULL &&
	    sc->v[SSHCONF_CERTIFICATEFILE].value != NULL) {
		e->cert = xstrdup(sc->v[SSHCONF_CERTIFICATEFILE].value);
		e->from[SSHCONF_CERTIFICATEFILE] =
		    sc->v[SSHCONF_CERTIFICATEFILE].where;
	}
	if (c->jumps.n > 0) {
		buf_init(&b);
		for (j = 0; j < c->jumps.n; j++)
			buf_printf(&b, "%s%s", j ? "," : "", c->jumps.v[j]);
		e->nhops = sshconf_hops(b.data, &e->hops, why);
		buf_free(&b);
		e->from[SSHCONF_PROXYJUMP] = CONN_FROM_YAML " jump";
	} else if (sc->v[SSHCONF_PROXYJUMP].value != NULL) {
		e->nhops = sshconf_hops(sc->v[SSHCONF_PROXYJUMP].value,
		    &e->hops, why);
		e->from[SSHCONF_PROXYJUMP] = sc->v[SSHCONF_PROXYJUMP].where;
		if (e->nhops < 0 && why != NULL) {
			old = *why;
			cause_set(why, "%s: ProxyJump: %s",
			    sc->v[SSHCONF_PROXYJUMP].where, old);
			free(old);
		}
	}
	if (e->nhops < 0) {
		e->nhops = 0;
		return -1;
	}
	return 0;
}

void
conn_eff_free(struct conn_eff *e)
{
	free(e->host);
	free(e->user);
	free(e->key);
	free(e->cert);
	sshconf_hops_free(e->hops, e->nhops);
	sshconf_free(&e->sc);
	memset(e, 0, sizeof *e);
}

static void
conn_say_one(struct buf *b, const char *kw, const char *v, const char *from)
{
	if (v == NULL)
		return;
	buf_printf(b, "%s%s %s (%s)", b->len ? ", " : "", kw, v,
	    from != NULL ? from : "given");
}

void
conn_say_where(struct conn *c)
{
	struct conn_eff	 e;
	struct buf	 b;
	char		*why = NULL, port[16];
	size_t		 i;
	int		 j;

	for (i = 0; i < c->nhosts; i++) {
		if (conn_resolve(c, i, &e, &why) != 0) {
			fprintf(stderr, "sqdeck: %s: %s: %s\n", conn_name(c),
			    c->hosts[i].name, why);
			free(why);
			why = NULL;
			conn_eff_free(&e);
			continue;
		}
		buf_init(&b);
		conn_say_one(&b, "HostName", e.host,
		    e.from[SSHCONF_HOSTNAME] != NULL ?
		    e.from[SSHCONF_HOSTNAME] : CONN_FROM_YAML " hosts");
		conn_say_one(&b, "User", e.user, e.from[SSHCONF_USER]);
		snprintf(port, sizeof port, "%u", e.port);
		conn_say_one(&b, "Port", e.port ? port : NULL,
		    e.from[SSHCONF_PORT]);
		conn_say_one(&b, "IdentityFile", e.key,
		    e.from[SSHCONF_IDENTITYFILE]);
		conn_say_one(&b, "CertificateFile", e.cert,
		    e.from[SSHCONF_CERTIFICATEFILE]);
		for (j = 0; j < e.nhops; j++) {
			buf_printf(&b, "%sProxyJump %s%s%s", j ? "," : ", ",
			    e.hops[j].user ? e.hops[j].user : "",
			    e.hops[j].user ? "@" : "", e.hops[j].host);
			if (e.hops[j].port)
				buf_printf(&b, ":%d", e.hops[j].port);
		}
		if (e.nhops > 0)
			buf_printf(&b, " (%s)", e.from[SSHCONF_PROXYJUMP]);
		fprintf(stderr, "sqdeck: %s: login host %s: %s\n",
		    conn_name(c), c->hosts[i].name, b.data);
		buf_free(&b);
		conn_eff_free(&e);
	}
}

static double
conn_jnow(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
conn_jump_connect(struct conn *c, ssh_session s, int fd)
{
	double	deadline = conn_jnow() + c->connect_timeout;
	int	rc;

	(void)fd;
	ssh_set_blocking(s, 0);
	for (;;) {
		rc = ssh_connect(s);
		if (rc != SSH_AGAIN)
			break;
		if (conn_jnow() > deadline ||
		    ssh_event_dopoll(c->ev, 20) == SSH_ERROR) {
			rc = SSH_ERROR;
			break;
		}
	}
	ssh_set_blocking(s, 1);
	if (rc != SSH_OK)
		return SSH_ERROR;
	/* From now on its waits poll the whole chain, so relay it. */
	return ssh_event_add_session(c->ev, s) == SSH_OK ? SSH_OK : SSH_ERROR;
}

/* One bastion as the user wrote it, through ssh_config for its alias. */
struct conn_jhop {
	char		*host;
	char		*user;
	unsigned int	 port;
	char		*name;		/* user@host:port */
};

static int
conn_jhop_resolve(struct conn *c, const struct conn_eff *e,
    const struct sshconf_hop *hp, struct conn_jhop *jh, char **why)
{
	struct sshconf	sc;
	int		p;

	if (conn_lookup(c, hp->host, &sc, why) != 0)
		return -1;
	if ((p = conn_port_of(&sc.v[SSHCONF_PORT], why)) < 0) {
		sshconf_free(&sc);
		return -1;
	}
	jh->host = xstrdup(sc.v[SSHCONF_HOSTNAME].value != NULL ?
	    sc.v[SSHCONF_HOSTNAME].value : hp->host);
	/* Unsaid, a bastion's user is the login's (one account, as at
	   most sites), not the local one. */
	jh->user = hp->user != NULL ? xstrdup(hp->user) :
	    sc.v[SSHCONF_USER].value != NULL ?
	    xstrdup(sc.v[SSHCONF_USER].value) :
	    e->user != NULL ? xstrdup(e->user) : NULL;
	jh->port = hp->port > 0 ? (unsigned)hp->port : p > 0 ? (unsigned)p :
	    22;
	jh->name = xasprintf("%s%s%s:%u", jh->user ? jh->user : "",
	    jh->user ? "@" : "", jh->host, jh->port);
	sshconf_free(&sc);
	return 0;
}

static void
conn_jhops_free(struct conn_jhop *jh, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		free(jh[i].host);
		free(jh[i].user);
		free(jh[i].name);
	}
	free(jh);
}

/* Session, host key and login of bastion j, over fd if it is not -1. */
static int
conn_jump_login(struct conn *c, const struct conn_eff *e,
    struct conn_jhop *jh, int fd, struct conn_hop *hop, char **why)
{
	char	*kh = NULL, *err = NULL, *key = c->key_path;
	char	*cert = c->cert_path;
	int	 rc;

	hop->s = conn_session_new(c, jh->host, jh->host, jh->user, jh->port,
	    &kh, &err);
	if (hop->s == NULL) {
		if (fd >= 0)
			close(fd);
		cause_set(why, "bastion %s: %s", jh->name, err);
		free(err);
		return TRY_STOP;
	}
	ssh_options_set(hop->s, SSH_OPTIONS_PROXYCOMMAND, "none");
	if (fd >= 0)
		ssh_options_set(hop->s, SSH_OPTIONS_FD, &fd);
	if ((fd >= 0 ? conn_jump_connect(c, hop->s, fd) :
	    ssh_connect(hop->s)) != SSH_OK) {
		cause_set(why, "bastion %s (the jump host in front of the "
		    "login node): %s", jh->name, *ssh_get_error(hop->s) ?
		    ssh_get_error(hop->s) : "no answer");
		free(kh);
		return TRY_NEXT;
	}
	rc = conn_check_host_key(hop->s, jh->host, jh->port, kh, &err);
	if (rc == TRY_OK) {
		c->key_path = e->key;
		c->cert_path = e->cert;
		rc = conn_auth(c, hop->s, jh->user ? jh->user : "?", jh->host,
		    jh->port, &err);
		c->key_path = key;
		c->cert_path = cert;
	}
	if (rc != TRY_OK) {
		cause_set(why, "bastion %s: %s", jh->name, err);
		free(err);
	}
	free(kh);
	return rc;
}

/* The direct-tcpip channel from hop to host:port, relayed to a socket. */
static int
conn_jump_forward(struct conn *c, struct conn_hop *hop, const char *host,
    unsigned int port, int *fd, char **why)
{
	int	sv[2];

	if ((hop->ch = ssh_channel_new(hop->s)) == NULL ||
	    ssh_channel_open_forward(hop->ch, host, (int)port, "127.0.0.1",
	    65535) != SSH_OK) {
		cause_set(why, "bastion %s cannot reach %s:%u (it refused "
		    "or could not open the connection: %s)", hop->name, host,
		    port, ssh_get_error(hop->s));
		return TRY_NEXT;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		cause_set(why, "socketpair: %s", strerror(errno));
		return TRY_STOP;
	}
	hop->fd = sv[1];
	hop->cin = ssh_connector_new(hop->s);
	hop->cout = ssh_connector_new(hop->s);
	if (hop->cin == NULL || hop->cout == NULL) {
		close(sv[0]);
		return cause_set(why, "cannot relay through the bastion"),
		    TRY_STOP;
	}
	ssh_connector_set_in_channel(hop->cin, hop->ch, SSH_CONNECTOR_STDINOUT);
	ssh_connector_set_out_fd(hop->cin, sv[1]);
	ssh_connector_set_in_fd(hop->cout, sv[1]);
	ssh_connector_set_out_channel(hop->cout, hop->ch,
	    SSH_CONNECTOR_STDINOUT);
	if (ssh_event_add_connector(c->ev, hop->cin) != SSH_OK ||
	    ssh_event_add_connector(c->ev, hop->cout) != SSH_OK) {
		close(sv[0]);
		return cause_set(why, "cannot relay through the bastion"),
		    TRY_STOP;
	}
	*fd = sv[0];
	return TRY_OK;
}

int
conn_jump_open(struct conn *c, const struct conn_eff *e, int *fdp, char **why)
{
	struct conn_jhop	*jh;
	const char		*nhost;
	unsigned int		 nport;
	int			 j, fd = -1, rc = TRY_STOP;

	*fdp = -1;
	conn_jump_close(c);
	jh = xcalloc(e->nhops, sizeof *jh);
	for (j = 0; j < e->nhops; j++) {
		if (conn_jhop_resolve(c, e, &e->hops[j], &jh[j], why) != 0)
			goto out;
	}
	if ((c->ev = ssh_event_new()) == NULL) {
		cause_set(why, "cannot create an SSH event");
		goto out;
	}
	c->hops = xcalloc(e->nhops, sizeof *c->hops);
	for (j = 0; j < e->nhops; j++) {
		c->hops[j].fd = -1;
		c->hops[j].name = xstrdup(jh[j].name);
		c->nhops++;
		rc = conn_jump_login(c, e, &jh[j], fd, &c->hops[j], why);
		fd = -1;
		if (rc != TRY_OK)
			goto out;
		nhost = j + 1 < e->nhops ? jh[j + 1].host : e->host;
		nport = j + 1 < e->nhops ? jh[j + 1].port :
		    e->port > 0 ? e->port : 22;
		rc = conn_jump_forward(c, &c->hops[j], nhost, nport, &fd, why);
		if (rc != TRY_OK)
			goto out;
	}
	*fdp = fd;
	rc = TRY_OK;
out:
	conn_jhops_free(jh, e->nhops);
	if (rc != TRY_OK)
		conn_jump_close(c);
	return rc;
}

void
conn_jump_close(struct conn *c)
{
	struct conn_hop	*hop;
	size_t		 j;

	for (j = c->nhops; j-- > 0;) {
		hop = &c->hops[j];
		if (hop->cin != NULL)
			ssh_connector_free(hop->cin);
		if (hop->cout != NULL)
			ssh_connector_free(hop->cout);
		hop->cin = hop->cout = NULL;
		if (c->ev != NULL && hop->s != NULL)
			ssh_event_remove_session(c->ev, hop->s);
	}
	if (c->ev != NULL)
		ssh_event_free(c->ev);
	c->ev = NULL;
	for (j = c->nhops; j-- > 0;) {
		hop = &c->hops[j];
		if (hop->ch != NULL)
			ssh_channel_free(hop->ch);
		if (hop->fd >= 0)
			close(hop->fd);
		if (hop->s != NULL) {
			ssh_disconnect(hop->s);
			ssh_free(hop->s);
		}
		free(hop->name);
	}
	free(c->hops);
	c->hops = NULL;
	c->nhops = 0;
}
