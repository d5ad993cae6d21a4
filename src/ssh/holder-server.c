/*
 * The holder process (`sqdeck __holder`, see holder.h): one cluster's
 * session, served to many clients at once.  One thread owns the session
 * (libssh is not thread-safe per session) and multiplexes: each request
 * is a channel with its own deadline, driven without blocking from one
 * poll() over the clients' sockets and the session's; only the opening of
 * a channel (one round trip, or the login with its prompts) waits.
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

#include <sys/mman.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A client: its socket, and the request it has running, if any. */
enum { CL_IDLE, CL_EXEC, CL_STREAM };
struct hclient {
	int			 fd;
	struct buf		 in;		/* received, not yet taken */
	struct buf		 out;		/* to send */
	size_t			 outoff;
	int			 state;
	int			 closing;	/* drop once out is sent */
	struct conn_chan	*ch;
	char			*input;		/* for the channel, wiped */
	size_t			 inlen;
	size_t			 sent;
	int			 eof_sent;
	struct buf		 o;		/* CL_EXEC: its output */
	struct buf		 e;
	double			 deadline;
	double			 started, first, last;	/* output times */
	int			 timeout;
	size_t			 maxout;
	unsigned		 before;	/* handshakes at its start */
	int			 pty;
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
	struct hclient	**cl;
	size_t		 ncl;
	int		 stop;
	struct hcache	 cache[HOLDER_CACHE_MAX];
	size_t		 ncache;
	int		 cur_fd;	/* client being served */
	int		 cur_prompt;	/* it can answer prompts */
	unsigned	 shed_gen;	/* session of the last shed */
	double		 shed_at;
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
static void holder_shed(void);

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

/* Queue a built message on the client's output (sent as poll allows). */
static void
cl_queue(struct hclient *c, struct buf *b)
{
	uint32_t	len = (uint32_t)(b->len - 4);

	b->data[0] = len >> 24;
	b->data[1] = len >> 16;
	b->data[2] = len >> 8;
	b->data[3] = len;
	buf_add(&c->out, b->data, b->len);
	hm_wipe(b);
}

static void
cl_reply(struct hclient *c, int rc, const struct conn_result *res,
    unsigned before, const char *cause, int age)
{
	struct buf	b;

	holder_put_reply(&b, rc, res, holder_handshakes() - before, cause,
	    age);
	cl_queue(c, &b);
}

static void
cl_wipe_input(struct hclient *c)
{
	if (c->input != NULL) {
		explicit_bzero(c->input, c->inlen);
		free(c->input);
	}
	c->input = NULL;
	c->inlen = c->sent = 0;
}

/* The request ended (or its client went): back to idle. */
static void
cl_end_job(struct hclient *c)
{
	conn_chan_close(c->ch);
	c->ch = NULL;
	cl_wipe_input(c);
	hm_wipe(&c->o);
	hm_wipe(&c->e);
	buf_init(&c->o);
	buf_init(&c->e);
	c->state = CL_IDLE;
}

/* Open the request's channel, relaying prompts to this client. */
static int
cl_open(struct hclient *c, const struct conn_chan_req *q, int prompt,
    char **cause)
{
	int	started, rc;

	H.cur_fd = c->fd;
	H.cur_prompt = prompt;
	H.last_use = holder_now();
	rc = conn_chan_open(H.conn, q, &c->ch, &started, cause);
	H.cur_fd = -1;
	if (rc == 0)
		H.last_alive = holder_now();
	return rc;
}

/* M_EXEC, or M_CACHED without a kept answer: start it, reply when done. */
static void
cl_start_exec(struct hclient *c, char *cmd, char *in, size_t inlen,
    int timeout, uint32_t maxout, int prompt, unsigned before)
{
	struct conn_chan_req	 q;
	char			*cause = NULL;

	memset(&q, 0, sizeof q);
	q.kind = CONN_CHAN_EXEC;
	q.cmd = cmd;
	c->input = in;
	c->inlen = inlen;
	c->sent = 0;
	c->eof_sent = 0;
	c->before = before;
	c->maxout = maxout;
	c->timeout = timeout > 0 ? timeout : 60;
	if (cl_open(c, &q, prompt, &cause) != 0) {
		cl_reply(c, -1, NULL, before, cause, -1);
		free(cause);
		cl_end_job(c);
		return;
	}
	c->deadline = holder_now() + c->timeout;
	c->started = holder_now();
	c->first = -1;
	c->last = 0;
	c->state = CL_EXEC;
}

/* M_STREAM: a PTY command or a TCP connection, then raw frames. */
static void
cl_start_stream(struct hclient *c, struct hrd *r, int prompt)
{
	struct conn_chan_req	 q;
	struct conn_result	 res;
	char			*cmd, *term, *host, *cause = NULL;
	unsigned		 before = holder_handshakes();
	int			 hascmd;

	memset(&q, 0, sizeof q);
	q.kind = (enum conn_chan_kind)hr_u32(r);
	q.rows = (int)hr_u32(r);
	q.cols = (int)hr_u32(r);
	q.port = (int)hr_u32(r);
	hascmd = hr_u32(r) != 0;
	cmd = hr_str(r, NULL);
	term = hr_str(r, NULL);
	host = hr_str(r, NULL);
	q.cmd = hascmd ? cmd : NULL;
	q.term = term;
	q.host = host;
	memset(&res, 0, sizeof res);
	res.status = -1;
	if (r->bad || (q.kind != CONN_CHAN_PTY && q.kind != CONN_CHAN_TCP) ||
	    (q.kind == CONN_CHAN_TCP && (q.port <= 0 || q.port > 65535 ||
	    *host == '\0')))
		cl_reply(c, -1, NULL, before, "bad stream request", -1);
	else if (cl_open(c, &q, prompt, &cause) != 0)
		cl_reply(c, -1, NULL, before, cause, -1);
	else {
		cl_reply(c, 0, &res, before, NULL, -1);
		c->state = CL_STREAM;
		c->pty = q.kind == CONN_CHAN_PTY;
	}
	free(cause);
	free(cmd);
	free(term);
	free(host);
}

/* One request of an idle client. */
static int
cl_request(struct hclient *c, struct buf *b, int type)
{
	struct hrd		 r;
	struct conn_result	 res;
	struct hcache		*e;
	char			*cmd = NULL, *in = NULL, *cause = NULL;
	char			*pout = NULL, *perr = NULL, *key;
	size_t			 inlen = 0, poutlen = 0, perrlen = 0, keylen;
	unsigned		 before, gen = 0;
	int			 rc = -1, timeout = 0, age = -1, prompt;
	int			 pstatus = -1;
	uint32_t		 maxout = 0, max_age = 0;

	hr_init(&r, b);
	prompt = hr_u32(&r) != 0;
	before = holder_handshakes();
	if (type == M_STREAM) {
		cl_start_stream(c, &r, prompt);
		return 0;
	}
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
	if (r.bad)
		goto out;
	memset(&res, 0, sizeof res);
	res.status = -1;
	switch (type) {
	case M_LOGIN:
		H.last_use = holder_now();
		H.cur_fd = c->fd;
		H.cur_prompt = prompt;
		rc = conn_connect(H.conn, &cause);
		H.cur_fd = -1;
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
		cl_start_exec(c, cmd, in, inlen, timeout, maxout, prompt,
		    before);
		in = NULL;	/* the job owns it and wipes it */
		free(cmd);
		return 0;
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
		H.stop = 1;
		break;
	default:
		goto out;
	}
	cl_reply(c, rc, &res, before, cause, age);
	conn_result_free(&res);
	rc = 0;
out:
	if (in != NULL) {
		explicit_bzero(in, inlen);
		free(in);
	}
	free(pout);
	free(perr);
	free(cmd);
	free(cause);
	return rc;
}

/* A running command: feed its input, gather its output, reply at the end. */
static void
cl_pump_exec(struct hclient *c, double now)
{
	struct conn_result	 res;
	char			 data[32768], *cause = NULL;
	int			 n, lost = 0, done = 0;
	size_t			 maxout = c->maxout, had;

	while (!c->eof_sent && c->sent < c->inlen) {
		n = conn_chan_write(c->ch, c->input + c->sent,
		    c->inlen - c->sent);
		if (n < 0) {
			/* The command stopped reading. */
			c->eof_sent = 1;
			break;
		}
		if (n == 0)
			break;
		c->sent += n;
	}
	if (!c->eof_sent && c->sent >= c->inlen) {
		conn_chan_send_eof(c->ch);
		c->eof_sent = 1;
		cl_wipe_input(c);
	}
	had = c->o.len + c->e.len;
	while ((n = conn_chan_read(c->ch, 0, data, sizeof data)) > 0)
		buf_add(&c->o, data, n);
	if (n < 0)
		done = 1;
	while ((n = conn_chan_read(c->ch, 1, data, sizeof data)) > 0)
		buf_add(&c->e, data, n);
	lost = conn_chan_lost(c->ch);
	if (c->o.len + c->e.len != had) {
		c->last = now;
		if (c->first < 0)
			c->first = now;
	} else if (!lost && !done && conn_session_prompt(H.conn, &c->o, &c->e,
	    c->first, c->last, c->started, &cause)) {
		conn_chan_signal(c->ch, "TERM");
		goto fail;
	}
	memset(&res, 0, sizeof res);
	res.status = -1;
	if (lost) {
		cause_set(&cause, "connection to %s lost while a command ran "
		    "(it may or may not have completed)",
		    conn_target(H.conn) != NULL ? conn_target(H.conn) :
		    H.name);
		goto fail;
	}
	if (maxout != 0 && c->o.len + c->e.len > maxout) {
		res.truncated = 1;
		conn_chan_signal(c->ch, "TERM");
	} else if (!done || !conn_chan_done(c->ch)) {
		if (now < c->deadline)
			return;
		conn_chan_signal(c->ch, "TERM");
		cause_set(&cause, "command did not finish within %d s on %s "
		    "(it was sent SIGTERM)", c->timeout,
		    conn_target(H.conn));
		goto fail;
	}
	H.last_alive = now;
	res.status = res.truncated ? -1 : conn_chan_status(c->ch);
	if (maxout != 0) {
		if (c->o.len > maxout)
			c->o.len = maxout;
		if (c->e.len > maxout - c->o.len)
			c->e.len = maxout - c->o.len;
	}
	res.out = c->o.data != NULL ? c->o.data : (char *)"";
	res.outlen = c->o.len;
	res.err = c->e.data != NULL ? c->e.data : (char *)"";
	res.errlen = c->e.len;
	cl_reply(c, 0, &res, c->before, NULL, -1);
	cl_end_job(c);
	return;
fail:
	cl_reply(c, -1, NULL, c->before, cause, -1);
	free(cause);
	cl_end_job(c);
}

/* A stream: channel -> client frames while the client keeps up. */
static void
cl_pump_stream(struct hclient *c)
{
	struct buf	 b;
	char		 data[32768];
	int		 n = 0, which, ended = 0;

	/* The client's frames waiting for window. */
	while (c->sent < c->inlen) {
		n = conn_chan_write(c->ch, c->input + c->sent,
		    c->inlen - c->sent);
		if (n <= 0)
			break;
		c->sent += n;
	}
	if (c->sent >= c->inlen)
		cl_wipe_input(c);
	for (which = 0; which < 2; which++) {
		while (c->out.len < HOLDER_STREAM_HIGH &&
		    (n = conn_chan_read(c->ch, which, data, sizeof data)) > 0) {
			hm_begin(&b, which ? M_EDATA : M_DATA);
			buf_add(&b, data, n);
			cl_queue(c, &b);
		}
		if (c->out.len < HOLDER_STREAM_HIGH && n < 0 && which == 0)
			ended = 1;
	}
	if (!ended || !conn_chan_done(c->ch))
		return;
	hm_begin(&b, M_EXIT);
	hm_u32(&b, (uint32_t)conn_chan_status(c->ch));
	hm_u32(&b, conn_chan_lost(c->ch));
	cl_queue(c, &b);
	cl_end_job(c);
	c->closing = 1;
}

/* A frame of a stream client: data for the channel, EOF, window size. */
static int
cl_stream_frame(struct hclient *c, struct buf *b, int type)
{
	struct hrd	 r;
	uint32_t	 rows, cols;

	hr_init(&r, b);
	switch (type) {
	case M_DATA:
		/* Kept until the window takes it; no read meanwhile. */
		c->input = xmalloc(b->len);
		memcpy(c->input, b->data + 1, b->len - 1);
		c->inlen = b->len - 1;
		c->sent = 0;
		return 0;
	case M_EOF:
		conn_chan_send_eof(c->ch);
		return 0;
	case M_WINCH:
		rows = hr_u32(&r);
		cols = hr_u32(&r);
		if (!r.bad)
			conn_chan_winch(c->ch, (int)rows, (int)cols);
		return 0;
	default:
		return -1;
	}
}

/* Take one whole message off the client's input, if one is there. */
static int
cl_next(struct hclient *c, struct buf *b, int *type)
{
	const unsigned char	*h = (const unsigned char *)c->in.data;
	uint32_t		 len;

	if (c->in.len < 4)
		return 0;
	len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
	    (uint32_t)h[2] << 8 | h[3];
	if (len == 0 || len > HOLDER_MAXMSG)
		return -1;
	if (c->in.len - 4 < len)
		return 0;
	buf_init(b);
	b->data = xmalloc(len + 1);
	b->cap = len + 1;
	b->len = len;
	memcpy(b->data, c->in.data + 4, len);
	b->data[len] = '\0';
	*type = (unsigned char)b->data[0];
	explicit_bzero(c->in.data, 4 + len);
	memmove(c->in.data, c->in.data + 4 + len, c->in.len - 4 - len);
	c->in.len -= 4 + len;
	return 1;
}

/* Act on what the client sent; -1 drops it. */
static int
cl_input(struct hclient *c)
{
	struct buf	b;
	int		type, got, rc;

	for (;;) {
		if (c->state == CL_EXEC || c->closing || H.stop)
			return 0;
		if (c->state == CL_STREAM && c->input != NULL)
			return 0;
		if ((got = cl_next(c, &b, &type)) <= 0)
			return got;
		if (c->state == CL_STREAM)
			rc = cl_stream_frame(c, &b, type);
		else
			rc = cl_request(c, &b, type);
		hm_wipe(&b);
		if (rc != 0)
			return -1;
	}
}

/* Read what the socket has; -1 when the client went away. */
static int
cl_recv(struct hclient *c)
{
	char	data[32768];
	ssize_t	n;

	for (;;) {
		n = recv(c->fd, data, sizeof data, MSG_DONTWAIT);
		if (n > 0) {
			buf_add(&c->in, data, n);
			if (c->in.len > HOLDER_MAXMSG + 8)
				return -1;
			if ((size_t)n < sizeof data)
				return 0;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -1;
	}
}

/* Send what is queued; -1 on a broken socket. */
static int
cl_send(struct hclient *c)
{
	ssize_t	n;

	while (c->outoff < c->out.len) {
		n = send(c->fd, c->out.data + c->outoff,
		    c->out.len - c->outoff, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->outoff += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return -1;
	}
	hm_wipe(&c->out);
	buf_init(&c->out);
	c->outoff = 0;
	return 0;
}

static void
holder_drop(size_t i)
{
	struct hclient	*c = H.cl[i];

	/* Gone mid-request: its command is hung up, not left running. */
	cl_end_job(c);
	close(c->fd);
	hm_wipe(&c->in);
	hm_wipe(&c->out);
	free(c);
	H.cl[i] = H.cl[--H.ncl];
}

static void
holder_accept(void)
{
	struct hclient	*c;
	int		 fd;

	fd = accept4(H.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	if (!holder_peer_ok(fd)) {
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->fd = fd;
	buf_init(&c->in);
	buf_init(&c->out);
	buf_init(&c->o);
	buf_init(&c->e);
	c->state = CL_IDLE;
	H.cl = xrealloc(H.cl, (H.ncl + 1) * sizeof *H.cl);
	H.cl[H.ncl++] = c;
}

/* Our socket is still ours (not removed or replaced). */
static int
holder_still_ours(void)
{
	struct stat	sb;

	return lstat(H.path, &sb) == 0 && sb.st_ino == H.ino;
}

/* Number of clients with a channel open. */
static size_t
holder_busy(void)
{
	size_t	i, n = 0;

	for (i = 0; i < H.ncl; i++)
		n += H.cl[i]->ch != NULL;
	return n;
}

/* Whether the loop should end now. */
static int
holder_done(double start, int served)
{
	double	now = holder_now();

	if (holder_quit || H.stop || !holder_still_ours())
		return 1;
	if (holder_busy() != 0)
		H.last_use = now;
	if (now - H.last_use >= H.persist)
		return 1;
	/* Nothing held and no one asking: nothing to live for. */
	return !conn_connected(H.conn) && H.ncl == 0 &&
	    (served || now - start >= HOLDER_GRACE);
}

/* One pass over the clients after poll: sockets, then channels. */
static void
holder_service(struct pollfd *pfd, int *served)
{
	struct hclient	*c;
	size_t		 i;
	double		 now;
	int		 bad;

	for (i = H.ncl; i > 0; i--) {
		c = H.cl[i - 1];
		bad = 0;
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			bad = cl_recv(c) != 0;
		if (!bad && pfd[i].revents != 0)
			*served = 1;
		if (!bad)
			bad = cl_input(c) != 0;
		if (!bad && c->ch != NULL) {
			now = holder_now();
			if (c->state == CL_EXEC)
				cl_pump_exec(c, now);
			else if (c->state == CL_STREAM)
				cl_pump_stream(c);
			/* A reply may let the next request in. */
			if (c->state == CL_IDLE && !c->closing)
				bad = cl_input(c) != 0;
		}
		if (!bad && c->out.len != 0)
			bad = cl_send(c) != 0;
		if (bad || (c->closing && c->out.len == 0) ||
		    (H.stop && c->out.len == 0))
			holder_drop(i - 1);
	}
}

static void
holder_loop(void)
{
	struct pollfd	*pfd = NULL;
	struct hclient	*c;
	size_t		 i, n;
	double		 start = holder_now();
	int		 served = 0, sfd, wait;
	char		*cause = NULL;

	H.last_use = start;
	while (!holder_done(start, served)) {
		/* Keepalive: a dead session is dropped in bounded time. */
		if (conn_connected(H.conn) &&
		    holder_now() - H.last_alive >= HOLDER_KEEPALIVE) {
			if (conn_check(H.conn, &cause) != 0) {
				free(cause);
				cause = NULL;
			}
			H.last_alive = holder_now();
		}
		pfd = xrealloc(pfd, (H.ncl + 2) * sizeof *pfd);
		pfd[0].fd = H.lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < H.ncl; i++) {
			c = H.cl[i];
			pfd[i + 1].fd = c->fd;
			pfd[i + 1].events = 0;
			/* A stream waits for window before reading more. */
			if (c->input == NULL || c->state == CL_EXEC)
				pfd[i + 1].events |= POLLIN;
			if (c->out.len != 0)
				pfd[i + 1].events |= POLLOUT;
			pfd[i + 1].revents = 0;
		}
		n = H.ncl + 1;
		sfd = holder_busy() != 0 ? conn_session_fd(H.conn) : -1;
		if (sfd >= 0) {
			pfd[n].fd = sfd;
			pfd[n].events = POLLIN;
			pfd[n++].revents = 0;
		}
		/* libssh may hold bytes it read already: look again soon. */
		wait = holder_busy() != 0 ? 50 : 1000;
		if (poll(pfd, n, wait) < 0 && errno != EINTR)
			continue;
		holder_service(pfd, &served);
		if ((pfd[0].revents & POLLIN) && !H.stop)
			holder_accept();
		/* Idle after a new login, or a while after the last shed. */
		if (holder_busy() == 0 && (H.shed_gen != holder_handshakes() ||
		    holder_now() - H.shed_at >= HOLDER_SHED_EVERY))
			holder_shed();
	}
	free(pfd);
	while (H.ncl > 0) {
		cl_send(H.cl[0]);
		holder_drop(0);
	}
	while (H.ncache > 0)
		holder_cache_drop(0);
	if (holder_still_ours())
		unlink(H.path);
	close(H.lfd);
	conn_free(H.conn);
}

/*
 * Let go of the memory the holder touched once and no longer runs: the
 * start of the process, the login (key exchange, key files, ssh_config,
 * OpenSSL's setup) and freed heap.  A holder lives for hours beside 30
 * others; what stays resident should be what serving requests touches.
 *
 * The library and program text stays in the page cache, shared; only this
 * process's mappings of it are dropped (MADV_DONTNEED), and a page used
 * again comes back from the file as it was.  A mapping that holds a page
 * of its own (smaps Anonymous: relocations, a written .data) is never
 * touched: dropping it would lose what was written.
 */
static void
holder_shed(void)
{
	FILE		*f;
	char		 line[512], perms[8];
	unsigned long	 lo = 0, hi = 0, a, b, ino, kb;
	struct {
		unsigned long	lo, hi;
	}		 v[256];
	size_t		 n = 0, i;
	int		 file = 0;

	H.shed_at = holder_now();
	H.shed_gen = holder_handshakes();
	malloc_trim(0);
	if ((f = fopen("/proc/self/smaps", "re")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		/* "Anonymous:" begins with a hex digit: parse into a, b. */
		if (sscanf(line, "%lx-%lx %7s %*x %*s %lu", &a, &b, perms,
		    &ino) == 4) {
			lo = a;
			hi = b;
			/* Read-only text and data of a file, not a device. */
			file = ino != 0 && strchr(perms, 'w') == NULL &&
			    strncmp(line + strcspn(line, "/"), "/dev/", 5) != 0;
			continue;
		}
		if (!file || sscanf(line, "Anonymous: %lu kB", &kb) != 1)
			continue;
		file = 0;
		if (kb == 0 && n < sizeof v / sizeof v[0]) {
			v[n].lo = lo;
			v[n++].hi = hi;
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		madvise((void *)v[i].lo, v[i].hi - v[i].lo, MADV_DONTNEED);
}

/* Bind the socket unless a live holder has it; 1 if one has. */
static int
holder_bind(const char *path, char **cause)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	char			*lock, *why = NULL;
	int			 lfd = -1, fd, rc = -1, tries;

	/*
	 * The lock file lives only while a holder binds (none is left behind
	 * for each host ever tried): whoever locked a file that was unlinked
	 * meanwhile locks the new one.
	 */
	lock = xasprintf("%s.lock", path);
	for (tries = 0;; tries++) {
		struct stat	fsb;

		lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		    0600);
		if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
			cause_set(cause, "cannot lock %s: %s", path,
			    strerror(errno));
			if (lfd >= 0)
				close(lfd);
			lfd = -1;
			goto out;
		}
		if (fstat(lfd, &fsb) == 0 && lstat(lock, &sb) == 0 &&
		    fsb.st_ino == sb.st_ino && fsb.st_dev == sb.st_dev)
			break;
		close(lfd);
		lfd = -1;
		if (tries == 100) {
			cause_set(cause, "cannot lock %s: it keeps changing",
			    path);
			goto out;
		}
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
	if (lfd >= 0) {
		unlink(lock);
		close(lfd);
	}
	free(lock);
	return rc;
}

int
holder_main(void)
{
	struct conn_opts	 o;
	struct rlimit		 rl = { 0, 0 };
	struct sigaction	 sa;
	sigset_t		 set;
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
		rc = -1;
	}
	free(dir);
	if (rc != 0) {
		/* Another holder won the race: use that one. */
		if (rc == 1)
			printf("ok\n");
		free(cause);
		strv_free(&hosts);
		free(user);
		free(key);
		free(kh);
		free(cert);
		free(cfg);
		free(H.path);
		free(H.name);
		return rc == 1 ? 0 : 1;
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
	/*
	 * Started from a TUI worker, it inherits that thread's mask (every
	 * signal blocked): SIGTERM would never end it.
	 */
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);

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
