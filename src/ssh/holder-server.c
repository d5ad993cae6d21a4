/*
 * The holder process (`sqdeck __holder`, see holder.h): one cluster's
 * session, served to the clients one request at a time.
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
	struct hrd	 r;
	size_t		 i;
	uint32_t	 m;
	int		 type;
	double		 deadline = holder_now() + HOLDER_PROMPT_WAIT;

	(void)arg;
	(void)cluster;
	if (H.cur_fd < 0 || !H.cur_prompt)
		return cause_set(cause, "no terminal to answer it on");
	hm_begin(&b, M_PROMPT);
	hm_cstr(&b, name);
	hm_cstr(&b, instr);
	hm_cstr(&b, note);
	hm_u32(&b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		hm_cstr(&b, pv[i].text);
		hm_u32(&b, pv[i].echo);
	}
	if (hm_send(H.cur_fd, &b, deadline) != 0) {
		buf_free(&b);
		return cause_set(cause, "the client went away");
	}
	buf_free(&b);
	if (hm_recv(H.cur_fd, &b, &type, deadline) != 0)
		return cause_set(cause, "no answer within %d s",
		    HOLDER_PROMPT_WAIT);
	hr_init(&r, &b);
	if (type != M_ANSWER) {
		hm_wipe(&b);
		return cause_set(cause, "the client sent no answer");
	}
	if (hr_u32(&r) == 0) {
		*cause = hr_str(&r, NULL);
		hm_wipe(&b);
		return -1;
	}
	m = hr_u32(&r);
	if (r.bad || m != n) {
		hm_wipe(&b);
		return cause_set(cause, "the client sent %u answers for %zu "
		    "prompts", m, n);
	}
	for (i = 0; i < n; i++)
		answers[i] = hr_str(&r, NULL);
	hm_wipe(&b);
	return 0;
}

static unsigned holder_handshakes(void);

static void
holder_put_reply(struct buf *b, int rc, const struct conn_result *res,
    unsigned fresh, const char *cause, int age)
{
	hm_begin(b, M_REPLY);
	hm_u32(b, (uint32_t)rc);
	hm_u32(b, (uint32_t)(res != NULL ? res->status : -1));
	hm_u32(b, res != NULL ? res->truncated : 0);
	hm_u32(b, conn_connected(H.conn));
	hm_u32(b, fresh);
	hm_cstr(b, conn_target(H.conn));
	hm_cstr(b, conn_host(H.conn));
	hm_u32(b, (uint32_t)conn_local_port(H.conn));
	hm_u32(b, (uint32_t)getpid());
	hm_u32(b, (uint32_t)H.persist);
	if (res != NULL && res->out != NULL)
		hm_str(b, res->out, res->outlen);
	else
		hm_str(b, "", 0);
	if (res != NULL && res->err != NULL)
		hm_str(b, res->err, res->errlen);
	else
		hm_str(b, "", 0);
	hm_cstr(b, cause);
	hm_u32(b, holder_handshakes());
	hm_u32(b, (uint32_t)age);
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
	struct hrd		 r;
	struct conn_result	 res;
	struct hcache		*e;
	char			*cmd = NULL, *in = NULL, *cause = NULL;
	char			*pout = NULL, *perr = NULL, *key;
	size_t			 inlen = 0, poutlen = 0, perrlen = 0, keylen;
	unsigned		 before, gen = 0;
	int			 type, rc = -1, timeout = 0, sent, age = -1;
	int			 pstatus = -1;
	uint32_t		 maxout = 0, max_age = 0;

	if (hm_recv(fd, &b, &type, holder_now() + 10) != 0)
		return -1;
	hr_init(&r, &b);
	H.cur_fd = fd;
	H.cur_prompt = hr_u32(&r) != 0;
	if (type == M_CACHED)
		max_age = hr_u32(&r);
	if (type == M_PUT) {
		gen = hr_u32(&r);
		pstatus = (int)hr_u32(&r);
	}
	if (type == M_EXEC || type == M_CACHED) {
		timeout = (int)hr_u32(&r);
		maxout = hr_u32(&r);
	}
	if (type == M_EXEC || type == M_CACHED || type == M_PUT) {
		cmd = hr_str(&r, NULL);
		in = hr_str(&r, &inlen);
	}
	if (type == M_PUT) {
		pout = hr_str(&r, &poutlen);
		perr = hr_str(&r, &perrlen);
	}
	hm_wipe(&b);
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
	sent = hm_send(fd, &out, holder_now() + 30);
	hm_wipe(&out);
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
	struct hrd		 r;
	struct strv		 hosts = { NULL, 0 }, jumps = { NULL, 0 };
	char			*user, *key, *kh, *cfg, *cert, *cause = NULL, *dir;
	char			*sl;
	uint32_t		 i, n;
	int			 type, rc, nul;
	pid_t			 pid;

	/* No core file, no ptrace by the same uid: answers pass here. */
	prctl(PR_SET_DUMPABLE, 0);
	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);
	memset(&o, 0, sizeof o);
	if (hm_recv(0, &b, &type, holder_now() + HOLDER_START_WAIT) != 0 ||
	    type != M_OPTS) {
		printf("err no options on stdin (sqdeck runs this itself)\n");
		return 1;
	}
	hr_init(&r, &b);
	H.path = hr_str(&r, NULL);
	H.name = hr_str(&r, NULL);
	H.persist = (int)hr_u32(&r);
	n = hr_u32(&r);
	for (i = 0; i < n && !r.bad && i < 1024; i++) {
		sl = hr_str(&r, NULL);
		strv_add(&hosts, sl);
		free(sl);
	}
	user = hr_str(&r, NULL);
	o.user = hr_u32(&r) ? user : NULL;
	o.port = (int)hr_u32(&r);
	key = hr_str(&r, NULL);
	o.key_path = hr_u32(&r) ? key : NULL;
	kh = hr_str(&r, NULL);
	o.known_hosts = hr_u32(&r) ? kh : NULL;
	cfg = hr_str(&r, NULL);
	o.ssh_config = hr_u32(&r) ? cfg : NULL;
	o.connect_timeout = (int)hr_u32(&r);
	o.command_timeout = (int)hr_u32(&r);
	cert = hr_str(&r, NULL);
	o.cert_path = hr_u32(&r) ? cert : NULL;
	n = hr_u32(&r);
	for (i = 0; i < n && !r.bad && i < 64; i++) {
		sl = hr_str(&r, NULL);
		strv_add(&jumps, sl);
		free(sl);
	}
	o.jumps = (const char *const *)jumps.v;
	o.njumps = jumps.n;
	nul = r.bad;
	hm_wipe(&b);
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
	strv_free(&jumps);
	free(user);
	free(key);
	free(kh);
	free(cert);
	free(cfg);
	holder_loop();
	free(H.path);
	free(H.name);
	free(H.cl);
	return 0;
}
