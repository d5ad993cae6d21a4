/*
 * Into a running job (enter.h): where it runs (templates/remote/
 * job-state.sh), a terminal in its container (enter.sh on a PTY channel)
 * and a port of its node (direct-tcpip from the login node).
 */
#include "enter.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "jobdir.h"
#include "ops.h"
#include "rsh.h"

/* A node name as SLURM allows it: nothing a shell or a URL would read. */
static int
enter_host_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n < 256 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:") == n && s[0] != '-';
}

int
enter_where(struct conn *c, long sid, const char *node,
    struct enter_where *w, char **cause)
{
	struct conn_result	 res;
	struct buf		 b;
	char			 num[32], *why = NULL, *line, *save, *text;
	int			 rc;

	memset(w, 0, sizeof *w);
	buf_init(&b);
	snprintf(num, sizeof num, "%ld", sid);
	rsh_var(&b, "jid", num);
	rsh_var(&b, "want", node != NULL ? node : "");
	rsh_embed(&b, "job-state.sh");
	rc = rsh_run_limit(c, b.data, 0, 4096, &res, &why);
	buf_free(&b);
	if (rc != 0) {
		cause_set(cause, "asking SLURM about job %ld: %s", sid, why);
		free(why);
		conn_result_free(&res);
		return -1;
	}
	text = res.out;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "S ", 2) == 0 && w->state == NULL)
			w->state = ops_clean(line + 2);
		else if (strncmp(line, "N ", 2) == 0 && w->node == NULL &&
		    enter_host_ok(line + 2))
			w->node = xstrdup(line + 2);
		else if (strncmp(line, "A ", 2) == 0 && w->addr == NULL &&
		    enter_host_ok(line + 2))
			w->addr = xstrdup(line + 2);
		else if (strncmp(line, "X ", 2) == 0 && w->others == NULL)
			w->others = ops_clean(line + 2);
	}
	conn_result_free(&res);
	if (w->state == NULL || *w->state == '\0') {
		enter_where_free(w);
		return cause_set(cause, "SLURM said nothing about job %ld",
		    sid);
	}
	if (w->others != NULL && node != NULL &&
	    strcmp(w->state, "RUNNING") == 0) {
		cause_set(cause, "node %s is not one of job %ld's nodes (%s): "
		    "give one of them to --node", node, sid, w->others);
		enter_where_free(w);
		return -1;
	}
	if (strcmp(w->state, "RUNNING") != 0 || w->node == NULL) {
		free(w->node);
		free(w->addr);
		w->node = w->addr = NULL;
	} else if (w->addr == NULL)
		w->addr = xstrdup(w->node);
	return 0;
}

void
enter_where_free(struct enter_where *w)
{
	free(w->state);
	free(w->node);
	free(w->addr);
	free(w->others);
	memset(w, 0, sizeof *w);
}

char *
enter_command(long sid, const char *node, const struct record *rec,
    char *const *argv, int argc)
{
	struct buf	 b, words;
	char		 num[32], *sb = NULL, *body, *q;
	int		 i;

	buf_init(&b);
	buf_init(&words);
	snprintf(num, sizeof num, "%ld", sid);
	for (i = 0; i < argc; i++) {
		if (i > 0)
			buf_adds(&words, " ");
		buf_add_quoted(&words, argv[i]);
	}
	rsh_var(&b, "jid", num);
	rsh_var(&b, "node", node != NULL ? node : "");
	if (rec != NULL && rec->job_dir != NULL && rec->sbatch_sha256 != NULL)
		sb = jobdir_path(rec->job_dir, JOBDIR_SBATCH, rec->id);
	rsh_var(&b, "sb", sb != NULL ? sb : "");
	rsh_var(&b, "sha", sb != NULL ? rec->sbatch_sha256 : "");
	rsh_var(&b, "jd", rec != NULL && rec->job_dir != NULL ?
	    rec->job_dir : "/");
	rsh_var(&b, "cmdq", words.data != NULL ? words.data : "");
	rsh_var(&b, "nodesh", rsh_text("enter-node.sh"));
	rsh_embed(&b, "enter.sh");
	body = buf_steal(&b);
	q = shell_quote(body);
	free(body);
	body = xasprintf("exec /bin/sh -c %s", q);
	free(q);
	free(sb);
	buf_free(&words);
	return body;
}

/* ------------------------------------------------------------- shell */

static volatile sig_atomic_t enter_winch;

static void
enter_on_winch(int sig)
{
	(void)sig;
	enter_winch = 1;
}

static void
enter_size(int *rows, int *cols)
{
	struct winsize	ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* Copy until the stream ends; 0, or -1 and a cause. */
static int
enter_pump(struct conn_stream *st, char **cause)
{
	struct pollfd	 pfd[2];
	char		 data[16384];
	ssize_t		 n;
	int		 r, rows, cols, in_open = 1;

	for (;;) {
		if (enter_winch) {
			enter_winch = 0;
			enter_size(&rows, &cols);
			conn_stream_winch(st, rows, cols);
		}
		while ((r = conn_stream_read(st, data, sizeof data)) > 0) {
			if (write(STDOUT_FILENO, data, r) != r)
				break;
		}
		if (r < 0)
			return 0;
		pfd[0].fd = conn_stream_fd(st);
		pfd[0].events = POLLIN;
		pfd[1].fd = in_open ? STDIN_FILENO : -1;
		pfd[1].events = POLLIN;
		if (pfd[0].fd < 0)
			return cause_set(cause, "the login was lost");
		/* The session may hold bytes it read already. */
		if (poll(pfd, 2, 100) < 0 && errno != EINTR)
			return cause_set(cause, "poll: %s", strerror(errno));
		if (in_open && (pfd[1].revents & (POLLIN | POLLHUP))) {
			n = read(STDIN_FILENO, data, sizeof data);
			if (n > 0 && conn_stream_write(st, data, n) != 0)
				return cause_set(cause, "the login was lost");
			if (n == 0) {
				in_open = 0;
				conn_stream_eof(st);
			}
		}
	}
}

int
enter_shell(struct conn *c, const char *cmd, int *status, char **cause)
{
	struct conn_chan_req	 q;
	struct conn_stream	*st;
	struct termios		 saved, raw;
	struct sigaction	 sa, old;
	const char		*term = getenv("TERM");
	int			 tty = isatty(STDIN_FILENO), rc, lost;

	*status = -1;
	memset(&q, 0, sizeof q);
	q.kind = CONN_CHAN_PTY;
	q.cmd = cmd;
	q.term = term != NULL && *term != '\0' ? term : "xterm";
	enter_size(&q.rows, &q.cols);
	if (conn_stream_open(c, &q, &st, cause) != 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = enter_on_winch;
	sigaction(SIGWINCH, &sa, &old);
	if (tty && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else
		tty = 0;
	rc = enter_pump(st, cause);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	sigaction(SIGWINCH, &old, NULL);
	if (rc == 0) {
		*status = conn_stream_status(st, &lost);
		if (lost)
			rc = cause_set(cause, "the login was lost");
	}
	conn_stream_close(st);
	return rc;
}

/* ----------------------------------------------------------- forward */

struct fwd {
	int			 fd;
	struct conn_stream	*st;
};

static int
enter_listen(int lport, int *bound, char **cause)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd, on = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return cause_set(cause, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)lport);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		cause_set(cause, "cannot listen on 127.0.0.1:%d: %s", lport,
		    strerror(errno));
		close(fd);
		return -1;
	}
	*bound = ntohs(sin.sin_port);
	return fd;
}

static double
enter_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The local end may be slow: wait for it (a closed one ends it). */
static int
enter_send_all(int fd, const char *p, size_t len)
{
	struct pollfd	pfd;
	ssize_t		n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 30000) != 1)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

/* Move what is there both ways; -1 when the connection is over. */
static int
enter_fwd_pump(struct fwd *f, short revents)
{
	char	data[16384];
	ssize_t	n;
	int	r;

	while ((r = conn_stream_read(f->st, data, sizeof data)) > 0) {
		if (enter_send_all(f->fd, data, r) != 0)
			return -1;
	}
	if (r < 0)
		return -1;
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		n = recv(f->fd, data, sizeof data, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n > 0 && conn_stream_write(f->st, data, n) != 0)
			return -1;
	}
	return 0;
}

static void
enter_fwd_accept(struct conn *c, int lfd, const char *host, int port,
    struct fwd **fv, size_t *nf)
{
	struct conn_chan_req	 q;
	struct conn_stream	*st;
	char			*why = NULL;
	int			 fd;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return;
	memset(&q, 0, sizeof q);
	q.kind = CONN_CHAN_TCP;
	q.host = host;
	q.port = port;
	if (conn_stream_open(c, &q, &st, &why) != 0) {
		fprintf(stderr, "sqdeck: forward: %s\n", why);
		free(why);
		close(fd);
		return;
	}
	*fv = xrealloc(*fv, (*nf + 1) * sizeof **fv);
	(*fv)[*nf].fd = fd;
	(*fv)[(*nf)++].st = st;
}

int
enter_forward(struct conn *c, int lport, const char *host, int port,
    volatile int *stop, int (*alive)(void *), void *arg,
    void (*ready)(int, void *), char **cause)
{
	struct pollfd	*pfd = NULL;
	struct fwd	*fv = NULL;
	size_t		 nf = 0, i, n;
	double		 next = 0;
	int		 lfd, bound = 0, rc = 0, sfd;

	if ((lfd = enter_listen(lport, &bound, cause)) < 0)
		return -1;
	if (ready != NULL)
		ready(bound, arg);
	while (!*stop) {
		if (alive != NULL && enter_now() >= next) {
			if (!alive(arg))
				break;
			next = enter_now() + 5;
		}
		pfd = xrealloc(pfd, (2 * nf + 2) * sizeof *pfd);
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		n = 1;
		for (i = 0; i < nf; i++) {
			pfd[n].fd = fv[i].fd;
			pfd[n++].events = POLLIN;
			sfd = conn_stream_fd(fv[i].st);
			pfd[n].fd = sfd;
			pfd[n++].events = POLLIN;
		}
		for (i = 0; i < n; i++)
			pfd[i].revents = 0;
		if (poll(pfd, n, nf > 0 ? 100 : 1000) < 0 && errno != EINTR) {
			rc = cause_set(cause, "poll: %s", strerror(errno));
			break;
		}
		for (i = nf; i > 0; i--) {
			if (enter_fwd_pump(&fv[i - 1], pfd[1 + 2 * (i - 1)].revents)
			    == 0)
				continue;
			close(fv[i - 1].fd);
			conn_stream_close(fv[i - 1].st);
			fv[i - 1] = fv[--nf];
		}
		if (pfd[0].revents & POLLIN)
			enter_fwd_accept(c, lfd, host, port, &fv, &nf);
	}
	for (i = 0; i < nf; i++) {
		close(fv[i].fd);
		conn_stream_close(fv[i].st);
	}
	free(fv);
	free(pfd);
	close(lfd);
	return rc;
}
