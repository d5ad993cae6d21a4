/*
 * The holder's wire protocol (holder-int.h), its socket directory and its
 * client side (see holder.h); the holder process is in holder-server.c.
 */
#include "holder.h"
#include "holder-int.h"

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

double
holder_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- wire */

void
hm_u32(struct buf *b, uint32_t v)
{
	unsigned char	c[4] = { v >> 24, v >> 16, v >> 8, v };

	buf_add(b, c, 4);
}

void
hm_str(struct buf *b, const void *p, size_t len)
{
	hm_u32(b, (uint32_t)len);
	if (len != 0)
		buf_add(b, p, len);
}

void
hm_cstr(struct buf *b, const char *s)
{
	hm_str(b, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

void
hm_begin(struct buf *b, int type)
{
	unsigned char	t = (unsigned char)type;

	buf_init(b);
	hm_u32(b, 0);
	buf_add(b, &t, 1);
}

/* Wipe what a buffer held (it may carry answers or secrets). */
void
hm_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap ? b->cap : b->len);
	buf_free(b);
}

/* Wait for fd until the deadline; 1 ready, 0 timeout, -1 error. */
int
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

int
hm_send(int fd, struct buf *b, double deadline)
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
hm_read(int fd, void *p, size_t len, double deadline)
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
int
hm_recv(int fd, struct buf *b, int *type, double deadline)
{
	unsigned char	h[4];
	uint32_t	len;

	buf_init(b);
	if (hm_read(fd, h, 4, deadline) != 0)
		return -1;
	len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
	    (uint32_t)h[2] << 8 | h[3];
	if (len == 0 || len > HOLDER_MAXMSG)
		return -1;
	b->data = xmalloc(len + 1);
	b->cap = len + 1;
	b->len = len;
	if (hm_read(fd, b->data, len, deadline) != 0) {
		hm_wipe(b);
		return -1;
	}
	b->data[len] = '\0';
	*type = (unsigned char)b->data[0];
	return 0;
}

void
hr_init(struct hrd *r, const struct buf *b)
{
	r->p = (const unsigned char *)b->data + 1;
	r->left = b->len - 1;
	r->bad = 0;
}

uint32_t
hr_u32(struct hrd *r)
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
char *
hr_str(struct hrd *r, size_t *lenp)
{
	uint32_t	 len = hr_u32(r);
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

int
holder_peer_ok(int fd)
{
	struct ucred	uc;
	socklen_t	len = sizeof uc;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return 0;
	return uc.uid == geteuid();
}

/* -------------------------------------------------------- directory */

int
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

int
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

	hm_begin(b, M_OPTS);
	hm_cstr(b, path);
	hm_cstr(b, o->name);
	hm_u32(b, (uint32_t)o->persist);
	hm_u32(b, (uint32_t)o->nhosts);
	for (i = 0; i < o->nhosts; i++)
		hm_cstr(b, o->hosts[i]);
	hm_cstr(b, o->user);
	hm_u32(b, o->user != NULL);
	hm_u32(b, (uint32_t)o->port);
	hm_cstr(b, o->key_path);
	hm_u32(b, o->key_path != NULL);
	hm_cstr(b, o->known_hosts);
	hm_u32(b, o->known_hosts != NULL);
	hm_cstr(b, o->ssh_config);
	hm_u32(b, o->ssh_config != NULL);
	hm_u32(b, (uint32_t)o->connect_timeout);
	hm_u32(b, (uint32_t)o->command_timeout);
	hm_cstr(b, o->cert_path);
	hm_u32(b, o->cert_path != NULL);
	hm_u32(b, (uint32_t)o->njumps);
	for (i = 0; i < o->njumps; i++)
		hm_cstr(b, o->jumps[i]);
}

/*
 * The holder's environment: only what a login needs.  It lives on after
 * the client that started it, so a secret in that client's environment
 * (NGC_KEY, tokens) must not live on in it (/proc/PID/environ).
 */
static char **
holder_env(void)
{
	static const char *const keep[] = { "HOME", "PATH", "USER", "LOGNAME",
	    "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "TMPDIR", "LANG", "LC_ALL",
	    "LC_CTYPE", "TZ", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
	    "LD_LIBRARY_PATH", NULL };
	char		**env;
	const char	 *v;
	size_t		  i, n = 0;

	env = xcalloc(sizeof keep / sizeof keep[0], sizeof *env);
	for (i = 0; keep[i] != NULL; i++) {
		if ((v = getenv(keep[i])) != NULL)
			env[n++] = xasprintf("%s=%s", keep[i], v);
	}
	env[n] = NULL;
	return env;
}

static void
holder_env_free(char **env)
{
	size_t	i;

	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* Start a holder: fork + exec, options on its stdin, "ok" on its stdout. */
static int
holder_spawn(const char *path, const char *exe, const struct conn_opts *o,
    char **cause)
{
	int		 in[2] = { -1, -1 }, out[2] = { -1, -1 }, st, n;
	char		*argv[] = { (char *)"sqdeck", (char *)"__holder", NULL };
	char		 line[512], **env;
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
	env = holder_env();
	/* Only async-signal-safe calls in the child: we may have threads. */
	if ((pid = fork()) < 0) {
		holder_env_free(env);
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
		execve(exe, argv, env);
		_exit(127);
	}
	holder_env_free(env);
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	deadline = holder_now() + HOLDER_START_WAIT;
	n = hm_send(in[1], &b, deadline);
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
holder_answer(int fd, struct hrd *r, conn_prompt_fn prompt, void *arg,
    const char *cluster, double deadline)
{
	struct conn_prompt	*pv = NULL;
	char			*name, *instr, *note, **answers = NULL;
	char			*why = NULL;
	uint32_t		 n, i;
	struct buf		 b;
	int			 rc = -1, ok;

	name = hr_str(r, NULL);
	instr = hr_str(r, NULL);
	note = hr_str(r, NULL);
	n = hr_u32(r);
	if (r->bad || n > 64)
		goto out;
	pv = xcalloc(n ? n : 1, sizeof *pv);
	answers = xcalloc(n ? n : 1, sizeof *answers);
	for (i = 0; i < n; i++) {
		pv[i].text = hr_str(r, NULL);
		pv[i].echo = hr_u32(r) != 0;
	}
	if (r->bad)
		goto out;
	if (prompt == NULL)
		ok = cause_set(&why, "no terminal to answer it on") == 0;
	else
		ok = prompt(arg, cluster, name, instr, *note ? note : NULL,
		    pv, n, answers, &why) == 0;
	hm_begin(&b, M_ANSWER);
	hm_u32(&b, ok);
	if (ok) {
		hm_u32(&b, n);
		for (i = 0; i < n; i++)
			hm_cstr(&b, answers[i] != NULL ? answers[i] : "");
	} else
		hm_cstr(&b, why != NULL ? why : "cancelled");
	rc = hm_send(fd, &b, deadline);
	hm_wipe(&b);
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
holder_read_reply(struct hrd *r, struct holder_reply *rep)
{
	rep->rc = (int)hr_u32(r);
	rep->status = (int)hr_u32(r);
	rep->truncated = hr_u32(r);
	rep->connected = hr_u32(r);
	rep->fresh = hr_u32(r);
	rep->target = hr_str(r, NULL);
	rep->host = hr_str(r, NULL);
	rep->lport = hr_u32(r);
	rep->pid = hr_u32(r);
	rep->persist = hr_u32(r);
	rep->out = hr_str(r, &rep->outlen);
	rep->err = hr_str(r, &rep->errlen);
	rep->cause = hr_str(r, NULL);
	if (*rep->cause == '\0') {
		free(rep->cause);
		rep->cause = NULL;
	}
	rep->gen = hr_u32(r);
	rep->age = (int)hr_u32(r);
}

/* Send a request and wait for its reply, answering prompts meanwhile. */
static int
holder_roundtrip(int fd, struct buf *b, int wait, conn_prompt_fn prompt,
    void *arg, const char *cluster, struct holder_reply *rep, char **cause)
{
	struct hrd	 r;
	double		 deadline;
	int		 type;

	deadline = holder_now() + wait;
	if (hm_send(fd, b, deadline) != 0) {
		hm_wipe(b);
		return cause_set(cause, "the holder did not take the request");
	}
	hm_wipe(b);
	for (;;) {
		if (hm_recv(fd, b, &type, deadline) != 0)
			return cause_set(cause, "the holder went away");
		hr_init(&r, b);
		if (type == M_PROMPT) {
			if (holder_answer(fd, &r, prompt, arg, cluster,
			    holder_now() + 10) != 0) {
				hm_wipe(b);
				return cause_set(cause, "the holder went away "
				    "during the login");
			}
			hm_wipe(b);
			/* A human took their time: the wait starts again. */
			deadline = holder_now() + wait;
			continue;
		}
		if (type != M_REPLY) {
			hm_wipe(b);
			return cause_set(cause, "the holder sent message %d",
			    type);
		}
		holder_read_reply(&r, rep);
		hm_wipe(b);
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
	hm_begin(&b, types[req]);
	hm_u32(&b, prompt != NULL);
	if (req == HOLDER_CACHED)
		hm_u32(&b, (uint32_t)(max_age > 0 ? max_age : 0));
	if (req == HOLDER_EXEC || req == HOLDER_CACHED) {
		hm_u32(&b, (uint32_t)timeout);
		hm_u32(&b, maxout > UINT32_MAX ? UINT32_MAX :
		    (uint32_t)maxout);
		hm_cstr(&b, cmd);
		hm_str(&b, in, inlen);
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

	hm_begin(&b, M_PUT);
	hm_u32(&b, 0);
	hm_u32(&b, gen);
	hm_u32(&b, (uint32_t)res->status);
	hm_cstr(&b, cmd);
	hm_str(&b, in, inlen);
	hm_str(&b, res->out != NULL ? res->out : "", res->outlen);
	hm_str(&b, res->err != NULL ? res->err : "", res->errlen);
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

/* ---------------------------------------------------------- streams */

int
holder_stream(int fd, const struct conn_chan_req *q, int wait,
    conn_prompt_fn prompt, void *arg, const char *cluster,
    struct holder_reply *rep, char **cause)
{
	struct buf	b;

	memset(rep, 0, sizeof *rep);
	rep->status = -1;
	rep->age = -1;
	hm_begin(&b, M_STREAM);
	hm_u32(&b, prompt != NULL);
	hm_u32(&b, (uint32_t)q->kind);
	hm_u32(&b, (uint32_t)q->rows);
	hm_u32(&b, (uint32_t)q->cols);
	hm_u32(&b, (uint32_t)q->port);
	hm_u32(&b, q->cmd != NULL);
	hm_cstr(&b, q->cmd);
	hm_cstr(&b, q->term);
	hm_cstr(&b, q->host);
	return holder_roundtrip(fd, &b, wait, prompt, arg, cluster, rep,
	    cause);
}

int
holder_frame(int fd, int type, const void *p, size_t len, int rows,
    int cols)
{
	struct buf	b;
	int		rc;

	hm_begin(&b, type);
	if (type == M_WINCH) {
		hm_u32(&b, (uint32_t)rows);
		hm_u32(&b, (uint32_t)cols);
	} else if (len != 0)
		buf_add(&b, p, len);
	rc = hm_send(fd, &b, holder_now() + 60);
	hm_wipe(&b);
	return rc;
}

_Static_assert((int)HOLDER_F_DATA == (int)M_DATA && (int)HOLDER_F_EXIT == (int)M_EXIT,
    "stream frames are holder-int.h's messages");
