/*
 * Into the selected job from the jobs pane: x opens a shell in its
 * container, F forwards a port of its node, P lists the open forwards,
 * X closes one.  Each is a child process, sqdeck itself running the verb
 * (cli-shell.c, cli-forward.c) with the same configuration: it talks
 * through the held login (the holder), never through a worker's session,
 * and no libssh call runs on this thread.  The shell gets the real
 * terminal with the screen suspended (endwin); being in the terminal's
 * foreground process group it gets SIGWINCH itself.  A forward is killed
 * when X closes it and when the screen quits; it ends by itself when its
 * job does (its alive check).
 */
#include "ui-int.h"

#include <sys/prctl.h>
#include <sys/wait.h>

#define FWD_MAX		16
#define FWD_OUT_MAX	4096

struct fwd_child {
	pid_t	 pid;
	int	 fd;		/* its stdout and stderr, non-blocking */
	char	*cluster;
	char	*id;
	char	*ports;		/* as typed: "8080", "18080:8080" */
	int	 bound;		/* 127.0.0.1 port, 0 until it says */
	char	*to;		/* "node:port" it said */
	char	*last;		/* its last line (why it ended) */
	struct buf out;		/* bytes after the last \n */
	int	 closing;	/* X sent it SIGTERM */
};

static struct {
	const char		*config_path;	/* NULL: the default */
	struct fwd_child	 f[FWD_MAX];
	size_t			 n;
	char			*cluster;	/* the job F asked about */
	char			*id;
} E;

void
ui_enter_init(const char *config_path)
{
	E.config_path = config_path;
}

const char *
ui_enter_config(void)
{
	return E.config_path;
}

/* sqdeck [-c CONFIG] --cluster C VERB ID [ARG]: NULL-terminated. */
static char **
enter_argv(const char *verb, const char *cluster, const char *id,
    const char *arg)
{
	char	**v = xcalloc(10, sizeof *v);
	int	  n = 0;

	v[n++] = xstrdup("sqdeck");
	if (E.config_path != NULL) {
		v[n++] = xstrdup("-c");
		v[n++] = xstrdup(E.config_path);
	}
	v[n++] = xstrdup("--cluster");
	v[n++] = xstrdup(cluster);
	v[n++] = xstrdup(verb);
	v[n++] = xstrdup(id);
	if (arg != NULL)
		v[n++] = xstrdup(arg);
	v[n] = NULL;
	return v;
}

static void
enter_argv_free(char **v)
{
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/*
 * Start sqdeck with argv; out and err (or -1: inherit) take its stdout
 * and stderr, stdin is the terminal unless quiet (/dev/null).  Between fork
 * and exec only async-signal-safe calls (the workers are threads).
 */
static pid_t
enter_spawn(char **argv, int out, int err, int quiet, char **cause)
{
	sigset_t	 none;
	pid_t		 pid, parent = getpid();
	int		 null = -1, sig;

	if (quiet && (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return cause_set(cause, "/dev/null: %s", strerror(errno));
	sigemptyset(&none);
	if ((pid = fork()) < 0) {
		cause_set(cause, "fork: %s", strerror(errno));
		if (null >= 0)
			close(null);
		return -1;
	}
	if (pid == 0) {
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* A forward must not outlive the screen, even a crashed one. */
		if (quiet) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != parent)
				_exit(127);
			dup2(null, STDIN_FILENO);
		}
		if (out >= 0)
			dup2(out, STDOUT_FILENO);
		if (err >= 0)
			dup2(err, STDERR_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (null >= 0)
		close(null);
	return pid;
}

static const struct jobtable_row *
enter_row(struct ui *ui, const char *what)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);

	if (r == NULL) {
		ui_message(ui, 1, "no job selected to %s", what);
		return NULL;
	}
	if (r->array_tasks > 0 && !r->array_member) {
		ui_message(ui, 1, "%s is a job array: open it (+) and choose "
		    "a task to %s", r->id, what);
		return NULL;
	}
	/* Both go on a command line (no shell): never an option. */
	if (r->id[0] == '\0' || strspn(r->id, "0123456789_") !=
	    strlen(r->id) || r->cluster[0] == '-' || r->cluster[0] == '\0') {
		ui_message(ui, 1, "%s: not a SLURM job id, nothing to %s",
		    r->id, what);
		return NULL;
	}
	if (r->state == NULL || strcmp(r->state, "RUNNING") != 0) {
		ui_message(ui, 1, "job %s is %s, not running: nothing to %s",
		    r->id, r->state != NULL ? r->state : "unknown", what);
		return NULL;
	}
	return r;
}

/* ------------------------------------------------------------- shell */

/* The last non-empty line of fd's file (the child's own errors). */
static char *
enter_last_line(int fd)
{
	char	 data[2048], *p, *end;
	off_t	 size = lseek(fd, 0, SEEK_END);
	ssize_t	 n;

	if (size <= 0)
		return NULL;
	if (size > (off_t)sizeof data - 1)
		lseek(fd, size - (off_t)sizeof data + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	if ((n = read(fd, data, sizeof data - 1)) <= 0)
		return NULL;
	data[n] = '\0';
	end = data + n;
	while (end > data && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	if ((p = strrchr(data, '\n')) != NULL)
		p++;
	else
		p = data;
	return *p != '\0' ? xstrdup(p) : NULL;
}

int
act_shell(struct ui *ui)
{
	const struct jobtable_row	*r = enter_row(ui, "enter");
	struct sigaction		 ign, oint, oquit;
	char				**argv, *cluster, *id, *cause = NULL;
	char				*why, tmpl[] = "/tmp/sqdeck-shell.XXXXXX";
	pid_t				 pid;
	int				 status = -1, errfd;

	if (r == NULL)
		return UIF_REDRAW;
	cluster = xstrdup(r->cluster);
	id = xstrdup(r->id);
	argv = enter_argv("shell", cluster, id, NULL);
	/* sqdeck's own errors (not the shell's: those go to its PTY). */
	if ((errfd = mkostemp(tmpl, O_CLOEXEC)) >= 0)
		unlink(tmpl);
	def_prog_mode();
	endwin();
	printf("sqdeck: a shell in job %s on %s; exit it to come back\n", id,
	    cluster);
	fflush(stdout);
	/* Its stderr to the file: the shell's terminal is stdin and stdout. */
	pid = enter_spawn(argv, -1, errfd, 0, &cause);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	if (pid < 0) {
		ui_message(ui, 1, "shell in job %s: %s", id, cause);
		free(cause);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ui_message(ui, 0, "shell in job %s on %s ended: exit 0", id,
		    cluster);
	else if (WIFEXITED(status)) {
		why = errfd >= 0 ? enter_last_line(errfd) : NULL;
		ui_message(ui, 1, "shell in job %s on %s ended: exit %d%s%s",
		    id, cluster, WEXITSTATUS(status), why != NULL ? ": " : "",
		    why != NULL ? why : "");
		free(why);
	} else
		ui_message(ui, 1, "shell in job %s on %s ended by signal %d",
		    id, cluster, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	if (errfd >= 0)
		close(errfd);
	enter_argv_free(argv);
	free(cluster);
	free(id);
	return UIF_REDRAW | UIF_CLEAR;
}

/* ----------------------------------------------------------- forward */

int
act_forward(struct ui *ui)
{
	const struct jobtable_row	*r = enter_row(ui, "forward to");

	if (r == NULL)
		return UIF_REDRAW;
	if (E.n >= FWD_MAX) {
		ui_message(ui, 1, "%d forwards are open: close one first (P "
		    "lists them, X closes)", FWD_MAX);
		return UIF_REDRAW;
	}
	free(E.cluster);
	free(E.id);
	E.cluster = xstrdup(r->cluster);
	E.id = xstrdup(r->id);
	buf_free(&ui->input);
	buf_add(&ui->input, "", 0);
	ui->searching = 0;
	ui->prompt = UI_PROMPT_FORWARD;
	ui->ov = OV_FILTER;
	return UIF_REDRAW;
}

/* The footer's question while the port is typed. */
const char *
ui_enter_prompt(void)
{
	static char	line[160];

	snprintf(line, sizeof line, "port of job %.40s to reach on "
	    "localhost, [LOCAL:]PORT (Enter: open, Esc: no)",
	    E.id != NULL ? E.id : "?");
	return line;
}

/* [LOCAL:]PORT, both numbers 0-65535 (PORT from 1). */
static int
enter_ports_ok(const char *s)
{
	const char	*colon = strchr(s, ':');
	size_t		 n = strlen(s);
	long		 p;

	if (n == 0 || n > 11 || strspn(s, "0123456789:") != n ||
	    (colon != NULL && strchr(colon + 1, ':') != NULL) || s[0] == ':')
		return 0;
	if (colon != NULL && (colon - s > 5 || atol(s) > 65535))
		return 0;
	p = atol(colon != NULL ? colon + 1 : s);
	return p >= 1 && p <= 65535 && strlen(colon != NULL ? colon + 1 : s)
	    <= 5;
}

int
ui_enter_forward_accept(struct ui *ui)
{
	struct fwd_child	*f;
	char			*v = xstrdup(ui->input.data != NULL ?
				    ui->input.data : ""), **argv, *cause = NULL;
	int			 fds[2];
	pid_t			 pid;

	ui->prompt = 0;
	ui->ov = OV_NONE;
	buf_free(&ui->input);
	str_trim(v);
	if (!enter_ports_ok(v)) {
		ui_message(ui, 1, "forward: want [LOCAL:]PORT (1-65535), not "
		    "'%s'", v);
		free(v);
		return UIF_REDRAW;
	}
	if (pipe2(fds, O_CLOEXEC) != 0) {
		ui_message(ui, 1, "forward: pipe: %s", strerror(errno));
		free(v);
		return UIF_REDRAW;
	}
	argv = enter_argv("forward", E.cluster, E.id, v);
	pid = enter_spawn(argv, fds[1], fds[1], 1, &cause);
	enter_argv_free(argv);
	close(fds[1]);
	if (pid < 0) {
		ui_message(ui, 1, "forward: %s", cause);
		free(cause);
		close(fds[0]);
		free(v);
		return UIF_REDRAW;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	f = &E.f[E.n++];
	memset(f, 0, sizeof *f);
	f->pid = pid;
	f->fd = fds[0];
	f->cluster = xstrdup(E.cluster);
	f->id = xstrdup(E.id);
	f->ports = v;
	buf_init(&f->out);
	ui_message(ui, 0, "forward %s of job %s: opening\xe2\x80\xa6", v, E.id);
	return UIF_REDRAW;
}

/* One line of a forward's output: its port, or why it ends. */
static int
enter_fwd_line(struct ui *ui, struct fwd_child *f, char *line)
{
	char	to[300];
	int	bound;

	if (*line == '\0')
		return 0;
	if (f->bound == 0 && sscanf(line, "forwarding 127.0.0.1:%d to "
	    "%299s", &bound, to) == 2) {
		f->bound = bound;
		f->to = ui_san(to);
		ui_message(ui, 0, "forward 127.0.0.1:%d \xe2\x86\x92 %s (job "
		    "%s); P lists forwards, X closes", bound, f->to, f->id);
		return UIF_REDRAW;
	}
	free(f->last);
	f->last = xstrdup(line);
	return 0;
}

static int
enter_fwd_read(struct ui *ui, struct fwd_child *f)
{
	char	 data[1024], *nl;
	ssize_t	 n;
	int	 flags = 0;

	while ((n = read(f->fd, data, sizeof data)) > 0) {
		if (f->out.len < FWD_OUT_MAX)
			buf_add(&f->out, data, n);
	}
	/* Keeps data non-NULL and NUL-terminated. */
	buf_add(&f->out, "", 0);
	while ((nl = memchr(f->out.data, '\n', f->out.len)) != NULL) {
		*nl = '\0';
		flags |= enter_fwd_line(ui, f, f->out.data);
		f->out.len -= nl + 1 - f->out.data;
		memmove(f->out.data, nl + 1, f->out.len + 1);
	}
	return flags;
}

static void
enter_fwd_free(struct fwd_child *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->cluster);
	free(f->id);
	free(f->ports);
	free(f->to);
	free(f->last);
	buf_free(&f->out);
}

/* Each wake-up of the screen: what the forwards said, which ended. */
int
ui_enter_poll(struct ui *ui)
{
	struct fwd_child	*f;
	size_t			 i;
	int			 flags = 0, status;

	for (i = E.n; i > 0; i--) {
		f = &E.f[i - 1];
		flags |= enter_fwd_read(ui, f);
		if (waitpid(f->pid, &status, WNOHANG) != f->pid)
			continue;
		flags |= enter_fwd_read(ui, f);
		if (f->out.len > 0)
			flags |= enter_fwd_line(ui, f, f->out.data);
		if (f->closing)
			ui_message(ui, 0, "forward 127.0.0.1:%d of job %s "
			    "closed", f->bound, f->id);
		else if (f->bound)
			ui_message(ui, 1, "forward 127.0.0.1:%d of job %s "
			    "ended%s%s", f->bound, f->id, f->last != NULL ?
			    ": " : "", f->last != NULL ? f->last : "");
		else
			ui_message(ui, 1, "forward %s of job %s failed%s%s",
			    f->ports, f->id, f->last != NULL ? ": " : "",
			    f->last != NULL ? f->last : "");
		enter_fwd_free(f);
		E.f[i - 1] = E.f[--E.n];
		flags |= UIF_REDRAW;
	}
	return flags;
}

int
act_forwards(struct ui *ui)
{
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	buf_add(&b, "", 0);
	if (E.n == 0)
		buf_adds(&b, "No forward is open.  F on a running job opens "
		    "one.\n");
	for (i = 0; i < E.n; i++) {
		buf_printf(&b, "127.0.0.1:%-6d \xe2\x86\x92 %-24s job %s on "
		    "%s%s\n", E.f[i].bound, E.f[i].to != NULL ? E.f[i].to :
		    E.f[i].ports, E.f[i].id, E.f[i].cluster, E.f[i].bound ?
		    "" : " (opening)");
	}
	buf_adds(&b, "\nX on a job's row closes its newest forward; all "
	    "close when sqdeck quits\nor their job ends.\n");
	view_open(ui, "Forwards", buf_steal(&b));
	return UIF_REDRAW;
}

int
act_forward_close(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	size_t				 i;

	for (i = E.n; r != NULL && i > 0; i--) {
		struct fwd_child	*f = &E.f[i - 1];

		if (f->closing || strcmp(f->cluster, r->cluster) != 0 ||
		    strcmp(f->id, r->id) != 0)
			continue;
		f->closing = 1;
		kill(f->pid, SIGTERM);
		ui_message(ui, 0, "closing the forward 127.0.0.1:%d of job "
		    "%s\xe2\x80\xa6", f->bound, f->id);
		return UIF_REDRAW;
	}
	ui_message(ui, 1, "no forward of %s is open (P lists them)",
	    r != NULL ? r->id : "this row");
	return UIF_REDRAW;
}

/* At the screen's end: every forward goes, in bounded time. */
void
ui_enter_close_all(void)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	size_t		 i;
	int		 tries, left;

	for (i = 0; i < E.n; i++)
		kill(E.f[i].pid, SIGTERM);
	for (tries = 0; tries < 100; tries++) {
		for (i = 0, left = 0; i < E.n; i++) {
			if (E.f[i].pid > 0 && waitpid(E.f[i].pid, NULL,
			    WNOHANG) == E.f[i].pid)
				E.f[i].pid = 0;
			left += E.f[i].pid > 0;
		}
		if (left == 0)
			break;
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < E.n; i++) {
		if (E.f[i].pid > 0) {
			kill(E.f[i].pid, SIGKILL);
			waitpid(E.f[i].pid, NULL, 0);
		}
		enter_fwd_free(&E.f[i]);
	}
	E.n = 0;
	free(E.cluster);
	free(E.id);
	E.cluster = E.id = NULL;
}
