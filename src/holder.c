/*
 * The holder process and its wire protocol (see holder.h).
 *
 * Wire: every message is a 4-byte big-endian length, then a type byte and
 * fields; numbers are 4-byte big-endian, strings a length and the bytes.
 */
#include "holder.h"

#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOLDER_MAXMSG	(1024u * 1024 * 1024)
#define HOLDER_START_WAIT 10	/* seconds for a new holder to listen */
#define HOLDER_GRACE	10	/* seconds a new holder waits for a client */

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
};

static double
holder_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- wire */

static void
msg_u32(struct buf *b, uint32_t v)
{
	unsigned char	c[4] = { v >> 24, v >> 16, v >> 8, v };

	buf_add(b, c, 4);
}

static void
msg_str(struct buf *b, const void *p, size_t len)
{
	msg_u32(b, (uint32_t)len);
	if (len != 0)
		buf_add(b, p, len);
}

static void
msg_cstr(struct buf *b, const char *s)
{
	msg_str(b, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static void
msg_begin(struct buf *b, int type)
{
	unsigned char	t = (unsigned char)type;

	buf_init(b);
	msg_u32(b, 0);
	buf_add(b, &t, 1);
}

/* Wipe what a buffer held (it may carry answers or secrets). */
static void
msg_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap ? b->cap : b->len);
	buf_free(b);
}

/* Wait for fd until the deadline; 1 ready, 0 timeout, -1 error. */
static int
holder_wait_fd(int fd, short ev, double deadline)
{
	struct pollfd	pfd;
	double		left;
	int		n;

	for (;;) {
		left = deadline - holder_now();
		if (left <= 0)
			return 0;
		pfd.fd = fd;
		pfd.events = ev;
		pfd.revents = 0;
		n = poll(&pfd, 1, left > 1000000 ? 1000000000 :
		    (int)(left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n > 0)
			return 1;
	}
}

static int
msg_send(int fd, struct buf *b, double deadline)
{
	uint32_t	len = (uint32_t)(b->len - 4);
	size_t		off = 0;
	ssize_t		n;

	b->data[0] = len >> 24;
	b->data[1] = len >> 16;
	b->data[2] = len >> 8;
	b->data[3] = len;
	while (off < b->len) {
		n = send(fd, b->data + off, b->len - off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (holder_wait_fd(fd, POLLOUT, deadline) != 1)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

static int
read_full(int fd, void *p, size_t len, double deadline)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < len) {
		n = recv(fd, (char *)p + off, len - off, MSG_DONTWAIT);
		if (n > 0) {
			off += n;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (holder_wait_fd(fd, POLLIN, deadline) != 1)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

/* One message into b (type in *type, fields after it). */
static int
msg_recv(int fd, struct buf *b, int *type, double deadline)
{
	unsigned char	h[4];
	uint32_t	len;

	buf_init(b);
	if (read_full(fd, h, 4, deadline) != 0)
		return -1;
	len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
	    (uint32_t)h[2] << 8 | h[3];
	if (len == 0 || len > HOLDER_MAXMSG)
		return -1;
	b->data = xmalloc(len + 1);
	b->cap = len + 1;
	b->len = len;
	if (read_full(fd, b->data, len, deadline) != 0) {
		msg_wipe(b);
		return -1;
	}
	b->data[len] = '\0';
	*type = (unsigned char)b->data[0];
	return 0;
}

struct rd {
	const unsigned char	*p;
	size_t			 left;
	int			 bad;
};

static void
rd_init(struct rd *r, const struct buf *b)
{
	r->p = (const unsigned char *)b->data + 1;
	r->left = b->len - 1;
	r->bad = 0;
}

static uint32_t
rd_u32(struct rd *r)
{
	uint32_t	v;

	if (r->left < 4) {
		r->bad = 1;
		return 0;
	}
	v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
	    (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->left -= 4;
	return v;
}

/* A string (NUL-terminated copy); *lenp may be NULL. */
static char *
rd_str(struct rd *r, size_t *lenp)
{
	uint32_t	 len = rd_u32(r);
	char		*s;

	if (r->bad || len > r->left) {
		r->bad = 1;
		if (lenp != NULL)
			*lenp = 0;
		return xstrdup("");
	}
	s = xmalloc((size_t)len + 1);
	memcpy(s, r->p, len);
	s[len] = '\0';
	r->p += len;
	r->left -= len;
	if (lenp != NULL)
		*lenp = len;
	return s;
}

static int
holder_peer_ok(int fd)
{
	struct ucred	uc;
	socklen_t	len = sizeof uc;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return 0;
	return uc.uid == geteuid();
}

/* -------------------------------------------------------- directory */

static int
holder_check_dir(const char *dir, char **cause)
{
	struct stat	sb;

	if (lstat(dir, &sb) != 0)
		return cause_set(cause, "cannot use %s: %s", dir,
		    strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return cause_set(cause, "%s is not a directory (a symlink?): "
		    "remove it", dir);
	if (sb.st_uid != geteuid())
		return cause_set(cause, "%s belongs to uid %u, not to you "
		    "(uid %u): someone else made it; remove it", dir,
		    (unsigned)sb.st_uid, (unsigned)geteuid());
	if ((sb.st_mode & 07777) != 0700)
		return cause_set(cause, "%s has mode %04o; it must be 0700 so "
		    "no one else can reach your logins: chmod 700 %s", dir,
		    (unsigned)(sb.st_mode & 07777), dir);
	return 0;
}

char *
holder_dir(char **cause)
{
	const char	*rt = getenv("XDG_RUNTIME_DIR");
	char		*dir;

	if (rt != NULL && *rt == '/')
		dir = xasprintf("%s/sqdeck", rt);
	else
		dir = xasprintf("/tmp/sqdeck-%u", (unsigned)geteuid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		cause_set(cause, "cannot create %s: %s", dir,
		    strerror(errno));
		free(dir);
		return NULL;
	}
	if (holder_check_dir(dir, cause) != 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *
holder_path(const char *dir, const char *name, const char *key,
    size_t keylen, char **cause)
{
	struct sockaddr_un	 sun;
	uint64_t		 h = 1469598103934665603ULL;
	char			 safe[41], *path;
	size_t			 i, n = 0;

	for (i = 0; i < keylen; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ULL;
	}
	for (i = 0; name[i] != '\0' && n < sizeof safe - 1; i++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._-", name[i]) != NULL)
			safe[n++] = name[i];
		else
			safe[n++] = '_';
	}
	safe[n] = '\0';
	path = xasprintf("%s/%s-%016llx.sock", dir, safe,
	    (unsigned long long)h);
	if (strlen(path) >= sizeof sun.sun_path) {
		cause_set(cause, "socket path %s is too long for a Unix "
		    "socket (set XDG_RUNTIME_DIR to a shorter directory)",
		    path);
		free(path);
		return NULL;
	}
	return path;
}

int
holder_list(const char *dir, struct strv *paths, char **cause)
{
	DIR		*d;
	struct dirent	*e;
	char		*p;

	if ((d = opendir(dir)) == NULL)
		return cause_set(cause, "cannot read %s: %s", dir,
		    strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (!str_has_suffix(e->d_name, ".sock"))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		strv_add(paths, p);
		free(p);
	}
	closedir(d);
	return 0;
}

/* ----------------------------------------------------------- client */

static int
holder_connect(const char *path, char **cause)
{
	struct sockaddr_un	sun;
	int			fd, e;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		return cause_set(cause, "socket path too long: %s", path);
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return cause_set(cause, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return cause_set(cause, "cannot connect to %s: %s", path,
		    strerror(e));
	}
	if (!holder_peer_ok(fd)) {
		close(fd);
		errno = EPERM;
		return cause_set(cause, "%s is served by another user's "
		    "process: not used", path);
	}
	return fd;
}

static void
holder_put_opts(struct buf *b, const struct conn_opts *o, const char *path)
{
	size_t	i;

	msg_begin(b, M_OPTS);
	msg_cstr(b, path);
	msg_cstr(b, o->name);
	msg_u32(b, (uint32_t)o->persist);
	msg_u32(b, (uint32_t)o->nhosts);
	for (i = 0; i < o->nhosts; i++)
		msg_cstr(b, o->hosts[i]);
	msg_cstr(b, o->user);
	msg_u32(b, o->user != NULL);
	msg_u32(b, (uint32_t)o->port);
	msg_cstr(b, o->key_path);
	msg_u32(b, o->key_path != NULL);
	msg_cstr(b, o->known_hosts);
	msg_u32(b, o->known_hosts != NULL);
	msg_cstr(b, o->ssh_config);
	msg_u32(b, o->ssh_config != NULL);
	msg_u32(b, (uint32_t)o->connect_timeout);
	msg_u32(b, (uint32_t)o->command_timeout);
}

/* Start a holder: fork + exec, options on its stdin, "ok" on its stdout. */
static int
holder_spawn(const char *path, const char *exe, const struct conn_opts *o,
    char **cause)
{
	int		 in[2] = { -1, -1 }, out[2] = { -1, -1 }, st, n;
	char		*argv[] = { (char *)"sqdeck", (char *)"__holder", NULL };
	char		 line[512];
	size_t		 got = 0;
	struct buf	 b;
	pid_t		 pid;
	double		 deadline;

	/* A socket pair for the options: send() never raises SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
	    pipe2(out, O_CLOEXEC) != 0) {
		cause_set(cause, "pipe: %s", strerror(errno));
		goto fail;
	}
	holder_put_opts(&b, o, path);
	/* Only async-signal-safe calls in the child: we may have threads. */
	if ((pid = fork()) < 0) {
		buf_free(&b);
		cause_set(cause, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		n = open("/dev/null", O_WRONLY);
		if (n >= 0)
			dup2(n, 2);
		close_range(3, ~0U, 0);
		execv(exe, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	deadline = holder_now() + HOLDER_START_WAIT;
	n = msg_send(in[1], &b, deadline);
	buf_free(&b);
	close(in[1]);
	in[1] = -1;
	while (n == 0 && got < sizeof line - 1 &&
	    holder_wait_fd(out[0], POLLIN, deadline) == 1) {
		ssize_t	r = read(out[0], line + got, sizeof line - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
		if (memchr(line, '\n', got) != NULL)
			break;
	}
	line[got] = '\0';
	close(out[0]);
	out[0] = -1;
	/* The first process exits once the daemon listens. */
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (strncmp(line, "ok", 2) == 0)
		return 0;
	line[strcspn(line, "\n")] = '\0';
	if (got == 0)
		return cause_set(cause, "the holder (%s __holder) did not "
		    "start", exe);
	return cause_set(cause, "the holder did not start: %s",
	    strncmp(line, "err ", 4) == 0 ? line + 4 : line);
fail:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	return -1;
}

int
holder_attach(const char *path, const char *exe, const struct conn_opts *o,
    char **cause)
{
	int	 fd;
	char	*why = NULL;

	if ((fd = holder_connect(path, &why)) >= 0)
		return fd;
	if (errno != ENOENT && errno != ECONNREFUSED) {
		if (cause != NULL)
			*cause = why;
		else
			free(why);
		return -1;
	}
	free(why);
	if (holder_spawn(path, exe, o, cause) != 0)
		return -1;
	return holder_connect(path, cause);
}

void
holder_reply_free(struct holder_reply *r)
{
	free(r->target);
	free(r->host);
	free(r->out);
	free(r->err);
	free(r->cause);
	memset(r, 0, sizeof *r);
	r->status = -1;
}

static int
holder_answer(int fd, struct rd *r, conn_prompt_fn prompt, void *arg,
    const char *cluster, double deadline)
{
	struct conn_prompt	*pv = NULL;
	char			*name, *instr, *note, **answers = NULL;
	char			*why = NULL;
	uint32_t		 n, i;
	struct buf		 b;
	int			 rc = -1, ok;

	name = rd_str(r, NULL);
	instr = rd_str(r, NULL);
	note = rd_str(r, NULL);
	n = rd_u32(r);
	if (r->bad || n > 64)
		goto out;
	pv = xcalloc(n ? n : 1, sizeof *pv);
	answers = xcalloc(n ? n : 1, sizeof *answers);
	for (i = 0; i < n; i++) {
		pv[i].text = rd_str(r, NULL);
		pv[i].echo = rd_u32(r) != 0;
	}
	if (r->bad)
		goto out;
	if (prompt == NULL)
		ok = cause_set(&why, "no terminal to answer it on") == 0;
	else
		ok = prompt(arg, cluster, name, instr, *note ? note : NULL,
		    pv, n, answers, &why) == 0;
	msg_begin(&b, M_ANSWER);
	msg_u32(&b, ok);
	if (ok) {
		msg_u32(&b, n);
		for (i = 0; i < n; i++)
			msg_cstr(&b, answers[i] != NULL ? answers[i] : "");
	} else
		msg_cstr(&b, why != NULL ? why : "cancelled");
	rc = msg_send(fd, &b, deadline);
	msg_wipe(&b);
out:
	for (i = 0; pv != NULL && i < n; i++)
		free((char *)pv[i].text);
	for (i = 0; answers != NULL && i < n; i++)
		conn_wipe(answers[i]);
	free(answers);
	free(pv);
	free(why);
	free(name);
	free(instr);
	free(note);
	return rc;
}

static void
holder_read_reply(struct rd *r, struct holder_reply *rep)
{
	rep->rc = (int)rd_u32(r);
	rep->status = (int)rd_u32(r);
	rep->truncated = rd_u32(r);
	rep->connected = rd_u32(r);
	rep->fresh = rd_u32(r);
	rep->target = rd_str(r, NULL);
	rep->host = rd_str(r, NULL);
	rep->lport = rd_u32(r);
	rep->pid = rd_u32(r);
	rep->persist = rd_u32(r);
	rep->out = rd_str(r, &rep->outlen);
	rep->err = rd_str(r, &rep->errlen);
	rep->cause = rd_str(r, NULL);
	if (*rep->cause == '\0') {
		free(rep->cause);
		rep->cause = NULL;
	}
	rep->gen = rd_u32(r);
	rep->age = (int)rd_u32(r);
}

/* Send a request and wait for its reply, answering prompts meanwhile. */
static int
holder_roundtrip(int fd, struct buf *b, int wait, conn_prompt_fn prompt,
    void *arg, const char *cluster, struct holder_reply *rep, char **cause)
{
	struct rd	 r;
	double		 deadline;
	int		 type;

	deadline = holder_now() + wait;
	if (msg_send(fd, b, deadline) != 0) {
		msg_wipe(b);
		return cause_set(cause, "the holder did not take the request");
	}
	msg_wipe(b);
	for (;;) {
		if (msg_recv(fd, b, &type, deadline) != 0)
			return cause_set(cause, "the holder went away");
		rd_init(&r, b);
		if (type == M_PROMPT) {
			if (holder_answer(fd, &r, prompt, arg, cluster,
			    holder_now() + 10) != 0) {
				msg_wipe(b);
				return cause_set(cause, "the holder went away "
				    "during the login");
			}
			msg_wipe(b);
			/* A human took their time: the wait starts again. */
			deadline = holder_now() + wait;
			continue;
		}
		if (type != M_REPLY) {
			msg_wipe(b);
			return cause_set(cause, "the holder sent message %d",
			    type);
		}
		holder_read_reply(&r, rep);
		msg_wipe(b);
		if (r.bad) {
			holder_reply_free(rep);
			return cause_set(cause, "the holder sent a bad reply");
		}
		return 0;
	}
}

int
holder_request(int fd, enum holder_req req, const char *cmd, const void *in,
    size_t inlen, int timeout, size_t maxout, int max_age, int wait,
    conn_prompt_fn prompt, void *arg, const char *cluster,
    struct holder_reply *rep, char **cause)
{
	struct buf	 b;
	int		 types[] = { 0, M_LOGIN, M_EXEC, M_INFO, M_STOP,
			     M_CACHED };

	memset(rep, 0, sizeof *rep);
	rep->status = -1;
	rep->age = -1;
	msg_begin(&b, types[req]);
	msg_u32(&b, prompt != NULL);
	if (req == HOLDER_CACHED)
		msg_u32(&b, (uint32_t)(max_age > 0 ? max_age : 0));
	if (req == HOLDER_EXEC || req == HOLDER_CACHED) {
		msg_u32(&b, (uint32_t)timeout);
		msg_u32(&b, maxout > UINT32_MAX ? UINT32_MAX :
		    (uint32_t)maxout);
		msg_cstr(&b, cmd);
		msg_str(&b, in, inlen);
	}
	return holder_roundtrip(fd, &b, wait, prompt, arg, cluster, rep,
	    cause);
}

int
holder_put(int fd, unsigned gen, const char *cmd, const void *in,
    size_t inlen, const struct conn_result *res, int wait, char **cause)
{
	struct holder_reply	 rep;
	struct buf		 b;
	int			 rc;

	msg_begin(&b, M_PUT);
	msg_u32(&b, 0);
	msg_u32(&b, gen);
	msg_u32(&b, (uint32_t)res->status);
	msg_cstr(&b, cmd);
	msg_str(&b, in, inlen);
	msg_str(&b, res->out != NULL ? res->out : "", res->outlen);
	msg_str(&b, res->err != NULL ? res->err : "", res->errlen);
	if (holder_roundtrip(fd, &b, wait, NULL, NULL, NULL, &rep,
	    cause) != 0)
		return -1;
	rc = rep.rc;
	if (rc != 0 && cause != NULL) {
		*cause = rep.cause != NULL ? rep.cause :
		    xstrdup("not kept");
		rep.cause = NULL;
	}
	holder_reply_free(&rep);
	return rc == 0 ? 0 : 1;
}

/* ----------------------------------------------------------- server */

struct hclient {
	int	fd;
};

/*
 * A kept answer (HOLDER_CACHED): the output of one command and its input,
 * valid while the session that produced it lives (gen), at most
 * HOLDER_CACHE_TTL seconds.  Only what a client judged good and sent back
 * (M_PUT) is kept.
 */
struct hcache {
	char		*key;		/* cmd, NUL, input */
	size_t		 keylen;
	char		*out;
	size_t		 outlen;
	char		*err;
	size_t		 errlen;
	int		 status;
	unsigned	 gen;
	double		 at;
};

static struct {
	struct conn	*conn;
	char		*path;
	char		*name;
	int		 lfd;
	ino_t		 ino;
	int		 persist;
	double		 last_use;	/* last request */
	double		 last_alive;	/* last proof the session lives */
	struct hclient	*cl;
	size_t		 ncl;
	struct hcache	 cache[HOLDER_CACHE_MAX];
	size_t		 ncache;
	int		 cur_fd;	/* client being served */
	int		 cur_prompt;	/* it can answer prompts */
} H;

static volatile sig_atomic_t holder_quit;

static void
holder_on_signal(int sig)
{
	(void)sig;
	holder_quit = 1;
}

/* The conn's prompt callback: relay to the client being served. */
static int
holder_relay(void *arg, const char *cluster, const char *name,
    const char *instr, const char *note, const struct conn_prompt *pv,
    size_t n, char **answers, char **cause)
{
	struct buf	 b;
	struct rd	 r;
	size_t		 i;
	uint32_t	 m;
	int		 type;
	double		 deadline = holder_now() + HOLDER_PROMPT_WAIT;

	(void)arg;
	(void)cluster;
	if (H.cur_fd < 0 || !H.cur_prompt)
		return cause_set(cause, "no terminal to answer it on");
	msg_begin(&b, M_PROMPT);
	msg_cstr(&b, name);
	msg_cstr(&b, instr);
	msg_cstr(&b, note);
	msg_u32(&b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		msg_cstr(&b, pv[i].text);
		msg_u32(&b, pv[i].echo);
	}
	if (msg_send(H.cur_fd, &b, deadline) != 0) {
		buf_free(&b);
		return cause_set(cause, "the client went away");
	}
	buf_free(&b);
	if (msg_recv(H.cur_fd, &b, &type, deadline) != 0)
		return cause_set(cause, "no answer within %d s",
		    HOLDER_PROMPT_WAIT);
	rd_init(&r, &b);
	if (type != M_ANSWER) {
		msg_wipe(&b);
		return cause_set(cause, "the client sent no answer");
	}
	if (rd_u32(&r) == 0) {
		*cause = rd_str(&r, NULL);
		msg_wipe(&b);
		return -1;
	}
	m = rd_u32(&r);
	if (r.bad || m != n) {
		msg_wipe(&b);
		return cause_set(cause, "the client sent %u answers for %zu "
		    "prompts", m, n);
	}
	for (i = 0; i < n; i++)
		answers[i] = rd_str(&r, NULL);
	msg_wipe(&b);
	return 0;
}

static unsigned holder_handshakes(void);

static void
holder_put_reply(struct buf *b, int rc, const struct conn_result *res,
    unsigned fresh, const char *cause, int age)
{
	msg_begin(b, M_REPLY);
	msg_u32(b, (uint32_t)rc);
	msg_u32(b, (uint32_t)(res != NULL ? res->status : -1));
	msg_u32(b, res != NULL ? res->truncated : 0);
	msg_u32(b, conn_connected(H.conn));
	msg_u32(b, fresh);
	msg_cstr(b, conn_target(H.conn));
	msg_cstr(b, conn_host(H.conn));
	msg_u32(b, (uint32_t)conn_local_port(H.conn));
	msg_u32(b, (uint32_t)getpid());
	msg_u32(b, (uint32_t)H.persist);
	if (res != NULL && res->out != NULL)
		msg_str(b, res->out, res->outlen);
	else
		msg_str(b, "", 0);
	if (res != NULL && res->err != NULL)
		msg_str(b, res->err, res->errlen);
	else
		msg_str(b, "", 0);
	msg_cstr(b, cause);
	msg_u32(b, holder_handshakes());
	msg_u32(b, (uint32_t)age);
}

static unsigned
holder_handshakes(void)
{
	struct conn_stats	st;

	conn_get_stats(H.conn, &st);
	return st.handshakes;
}

static void
holder_cache_drop(size_t i)
{
	struct hcache	*e = &H.cache[i];

	explicit_bzero(e->key, e->keylen);
	free(e->key);
	free(e->out);
	free(e->err);
	H.cache[i] = H.cache[--H.ncache];
}

/* Forget answers of another session, or too old to be used. */
static void
holder_cache_expire(void)
{
	size_t	i;

	for (i = H.ncache; i > 0; i--) {
		if (!conn_connected(H.conn) ||
		    H.cache[i - 1].gen != holder_handshakes() ||
		    holder_now() - H.cache[i - 1].at > HOLDER_CACHE_TTL)
			holder_cache_drop(i - 1);
	}
}

static char *
holder_cache_key(const char *cmd, const char *in, size_t inlen,
    size_t *lenp)
{
	size_t	 n = strlen(cmd) + 1;
	char	*k = xmalloc(n + inlen + 1);

	memcpy(k, cmd, n);
	if (inlen != 0)
		memcpy(k + n, in, inlen);
	*lenp = n + inlen;
	return k;
}

static struct hcache *
holder_cache_find(const char *key, size_t keylen)
{
	size_t	i;

	holder_cache_expire();
	for (i = 0; i < H.ncache; i++) {
		if (H.cache[i].keylen == keylen &&
		    memcmp(H.cache[i].key, key, keylen) == 0)
			return &H.cache[i];
	}
	return NULL;
}

/* M_PUT: keep an answer of this session (replacing the same command's). */
static int
holder_cache_put(unsigned gen, int status, const char *cmd, const char *in,
    size_t inlen, char *out, size_t outlen, char *err, size_t errlen,
    char **cause)
{
	struct hcache	*e;
	char		*key;
	size_t		 keylen, i, old;

	if (!conn_connected(H.conn) || gen != holder_handshakes()) {
		free(out);
		free(err);
		return cause_set(cause, "the session that ran it was replaced");
	}
	key = holder_cache_key(cmd, in, inlen, &keylen);
	if ((e = holder_cache_find(key, keylen)) != NULL)
		holder_cache_drop(e - H.cache);
	if (H.ncache == HOLDER_CACHE_MAX) {
		for (old = 0, i = 1; i < H.ncache; i++) {
			if (H.cache[i].at < H.cache[old].at)
				old = i;
		}
		holder_cache_drop(old);
	}
	e = &H.cache[H.ncache++];
	e->key = key;
	e->keylen = keylen;
	e->out = out;
	e->outlen = outlen;
	e->err = err;
	e->errlen = errlen;
	e->status = status;
	e->gen = gen;
	e->at = holder_now();
	return 0;
}

/* Serve one request; -1 drops the client. */
static int
holder_serve(int fd, int *stop)
{
	struct buf		 b, out;
	struct rd		 r;
	struct conn_result	 res;
	struct hcache		*e;
	char			*cmd = NULL, *in = NULL, *cause = NULL;
	char			*pout = NULL, *perr = NULL, *key;
	size_t			 inlen = 0, poutlen = 0, perrlen = 0, keylen;
	unsigned		 before, gen = 0;
	int			 type, rc = -1, timeout = 0, sent, age = -1;
	int			 pstatus = -1;
	uint32_t		 maxout = 0, max_age = 0;

	if (msg_recv(fd, &b, &type, holder_now() + 10) != 0)
		return -1;
	rd_init(&r, &b);
	H.cur_fd = fd;
	H.cur_prompt = rd_u32(&r) != 0;
	if (type == M_CACHED)
		max_age = rd_u32(&r);
	if (type == M_PUT) {
		gen = rd_u32(&r);
		pstatus = (int)rd_u32(&r);
	}
	if (type == M_EXEC || type == M_CACHED) {
		timeout = (int)rd_u32(&r);
		maxout = rd_u32(&r);
	}
	if (type == M_EXEC || type == M_CACHED || type == M_PUT) {
		cmd = rd_str(&r, NULL);
		in = rd_str(&r, &inlen);
	}
	if (type == M_PUT) {
		pout = rd_str(&r, &poutlen);
		perr = rd_str(&r, &perrlen);
	}
	msg_wipe(&b);
	if (r.bad) {
		rc = -1;
		goto out;
	}
	memset(&res, 0, sizeof res);
	res.status = -1;
	before = holder_handshakes();
	switch (type) {
	case M_LOGIN:
		H.last_use = holder_now();
		rc = conn_connect(H.conn, &cause);
		if (rc == 0)
			H.last_alive = holder_now();
		break;
	case M_CACHED:
		H.last_use = holder_now();
		key = holder_cache_key(cmd, in, inlen, &keylen);
		/* A session the server closed takes its answers with it. */
		conn_hung_up(H.conn);
		e = holder_cache_find(key, keylen);
		explicit_bzero(key, keylen);
		free(key);
		if (e != NULL && holder_now() - e->at <= max_age) {
			age = (int)(holder_now() - e->at);
			res.status = e->status;
			res.out = xmalloc(e->outlen + 1);
			memcpy(res.out, e->out, e->outlen + 1);
			res.outlen = e->outlen;
			res.err = xmalloc(e->errlen + 1);
			memcpy(res.err, e->err, e->errlen + 1);
			res.errlen = e->errlen;
			rc = 0;
			break;
		}
		/* FALLTHROUGH */
	case M_EXEC:
		H.last_use = holder_now();
		rc = conn_exec_limit(H.conn, cmd, in, inlen, timeout, maxout,
		    &res, &cause);
		if (rc == 0)
			H.last_alive = holder_now();
		break;
	case M_PUT:
		H.last_use = holder_now();
		rc = holder_cache_put(gen, pstatus, cmd, in, inlen, pout,
		    poutlen, perr, perrlen, &cause);
		pout = perr = NULL;
		break;
	case M_INFO:
		/* A client just attached: do not expire under it. */
		H.last_use = holder_now();
		rc = 0;
		break;
	case M_STOP:
		rc = 0;
		*stop = 1;
		break;
	default:
		rc = -1;
		goto out;
	}
	holder_put_reply(&out, rc, &res, holder_handshakes() - before, cause,
	    age);
	sent = msg_send(fd, &out, holder_now() + 30);
	msg_wipe(&out);
	conn_result_free(&res);
	rc = sent;
out:
	if (in != NULL) {
		explicit_bzero(in, inlen);
		free(in);
	}
	free(pout);
	free(perr);
	free(cmd);
	free(cause);
	H.cur_fd = -1;
	return rc;
}

static void
holder_drop(size_t i)
{
	close(H.cl[i].fd);
	H.cl[i] = H.cl[--H.ncl];
}

/* Our socket is still ours (not removed or replaced). */
static int
holder_still_ours(void)
{
	struct stat	sb;

	return lstat(H.path, &sb) == 0 && sb.st_ino == H.ino;
}

static void
holder_loop(void)
{
	struct pollfd	*pfd = NULL;
	size_t		 i, n;
	double		 start = holder_now(), now;
	int		 fd, stop = 0, served = 0;
	char		*cause = NULL;

	H.last_use = start;
	while (!holder_quit && !stop) {
		now = holder_now();
		if (now - H.last_use >= H.persist)
			break;
		if (!holder_still_ours())
			break;
		/* Nothing held and no one asking: nothing to live for. */
		if (!conn_connected(H.conn) && H.ncl == 0 &&
		    (served || now - start >= HOLDER_GRACE))
			break;
		/* Keepalive: a dead session is dropped in bounded time. */
		if (conn_connected(H.conn) &&
		    now - H.last_alive >= HOLDER_KEEPALIVE) {
			if (conn_check(H.conn, &cause) != 0) {
				free(cause);
				cause = NULL;
			}
			H.last_alive = holder_now();
			continue;
		}
		pfd = xrealloc(pfd, (H.ncl + 1) * sizeof *pfd);
		pfd[0].fd = H.lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < H.ncl; i++) {
			pfd[i + 1].fd = H.cl[i].fd;
			pfd[i + 1].events = POLLIN;
		}
		n = H.ncl + 1;
		if (poll(pfd, n, 1000) <= 0)
			continue;
		for (i = H.ncl; i > 0; i--) {
			if (pfd[i].revents == 0)
				continue;
			served = 1;
			if (holder_serve(H.cl[i - 1].fd, &stop) != 0 || stop)
				holder_drop(i - 1);
			if (stop)
				break;
		}
		if (!stop && (pfd[0].revents & POLLIN)) {
			fd = accept4(H.lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0 && !holder_peer_ok(fd))
				close(fd);
			else if (fd >= 0) {
				H.cl = xrealloc(H.cl, (H.ncl + 1) *
				    sizeof *H.cl);
				H.cl[H.ncl++].fd = fd;
			}
		}
	}
	free(pfd);
	while (H.ncl > 0)
		holder_drop(0);
	while (H.ncache > 0)
		holder_cache_drop(0);
	if (holder_still_ours())
		unlink(H.path);
	close(H.lfd);
	conn_free(H.conn);
}

/* Bind the socket unless a live holder has it; 1 if one has. */
static int
holder_bind(const char *path, char **cause)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	char			*lock, *why = NULL;
	int			 lfd, fd, rc = -1;

	lock = xasprintf("%s.lock", path);
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lock);
	if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
		cause_set(cause, "cannot lock %s: %s", path, strerror(errno));
		goto out;
	}
	if ((fd = holder_connect(path, &why)) >= 0) {
		close(fd);
		rc = 1;
		goto out;
	}
	free(why);
	unlink(path);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	H.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (H.lfd < 0 || bind(H.lfd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    chmod(path, 0600) != 0 || listen(H.lfd, 16) != 0 ||
	    lstat(path, &sb) != 0) {
		cause_set(cause, "cannot listen on %s: %s", path,
		    strerror(errno));
		goto out;
	}
	H.ino = sb.st_ino;
	rc = 0;
out:
	if (lfd >= 0)
		close(lfd);
	return rc;
}

int
holder_main(void)
{
	struct conn_opts	 o;
	struct rlimit		 rl = { 0, 0 };
	struct sigaction	 sa;
	struct buf		 b;
	struct rd		 r;
	struct strv		 hosts = { NULL, 0 };
	char			*user, *key, *kh, *cfg, *cause = NULL, *dir;
	char			*sl;
	uint32_t		 i, n;
	int			 type, rc, nul;
	pid_t			 pid;

	/* No core file, no ptrace by the same uid: answers pass here. */
	prctl(PR_SET_DUMPABLE, 0);
	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);
	memset(&o, 0, sizeof o);
	if (msg_recv(0, &b, &type, holder_now() + HOLDER_START_WAIT) != 0 ||
	    type != M_OPTS) {
		printf("err no options on stdin (sqdeck runs this itself)\n");
		return 1;
	}
	rd_init(&r, &b);
	H.path = rd_str(&r, NULL);
	H.name = rd_str(&r, NULL);
	H.persist = (int)rd_u32(&r);
	n = rd_u32(&r);
	for (i = 0; i < n && !r.bad && i < 1024; i++) {
		sl = rd_str(&r, NULL);
		strv_add(&hosts, sl);
		free(sl);
	}
	user = rd_str(&r, NULL);
	o.user = rd_u32(&r) ? user : NULL;
	o.port = (int)rd_u32(&r);
	key = rd_str(&r, NULL);
	o.key_path = rd_u32(&r) ? key : NULL;
	kh = rd_str(&r, NULL);
	o.known_hosts = rd_u32(&r) ? kh : NULL;
	cfg = rd_str(&r, NULL);
	o.ssh_config = rd_u32(&r) ? cfg : NULL;
	o.connect_timeout = (int)rd_u32(&r);
	o.command_timeout = (int)rd_u32(&r);
	nul = r.bad;
	msg_wipe(&b);
	if (nul || H.persist <= 0 || strrchr(H.path, '/') == NULL) {
		printf("err bad options\n");
		return 1;
	}
	o.hosts = (const char *const *)hosts.v;
	o.nhosts = hosts.n;
	o.name = H.name;
	o.persist = 0;		/* the holder itself holds the session */

	/* The directory is checked again: it is where answers travel. */
	dir = xstrndup(H.path, strrchr(H.path, '/') - H.path);
	if (holder_check_dir(dir, &cause) != 0 ||
	    (rc = holder_bind(H.path, &cause)) < 0) {
		printf("err %s\n", cause);
		return 1;
	}
	free(dir);
	if (rc == 1) {
		/* Another holder won the race: use that one. */
		printf("ok\n");
		return 0;
	}
	if ((pid = fork()) < 0) {
		printf("err fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid != 0) {
		printf("ok\n");
		fflush(stdout);
		_exit(0);
	}
	setsid();
	/* Do not keep a directory busy; nothing depends on the cwd. */
	(void)!chdir("/");
	fflush(stdout);
	if ((nul = open("/dev/null", O_RDWR)) >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		if (nul > 2)
			close(nul);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = holder_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	H.conn = conn_new(&o);
	conn_set_prompt(H.conn, holder_relay, NULL);
	H.cur_fd = -1;
	strv_free(&hosts);
	free(user);
	free(key);
	free(kh);
	free(cfg);
	holder_loop();
	free(H.path);
	free(H.name);
	free(H.cl);
	return 0;
}

int
holder_stop(const char *path, char **cause)
{
	struct holder_reply	 rep;
	char			*why = NULL;
	int			 fd;

	if ((fd = holder_connect(path, &why)) < 0) {
		if (errno == ENOENT || errno == ECONNREFUSED) {
			/* A holder that died without cleaning up. */
			if (errno == ECONNREFUSED)
				unlink(path);
			free(why);
			return 0;
		}
		if (cause != NULL)
			*cause = why;
		else
			free(why);
		return -1;
	}
	if (holder_request(fd, HOLDER_STOP, NULL, NULL, 0, 0, 0, 0, 10, NULL,
	    NULL, NULL, &rep, cause) != 0) {
		close(fd);
		return -1;
	}
	holder_reply_free(&rep);
	close(fd);
	return 1;
}
