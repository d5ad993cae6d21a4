/*
 * L: the whole log of the job shown in $PAGER.  As x does (ui-enter.c),
 * sqdeck runs itself, "sqdeck --cluster C logs ID --pager [--err]", with
 * the screen suspended (endwin): the child reads the log through the held
 * login into a private file, runs the pager on it in the terminal and
 * removes the file (cli-pager.c); the screen comes back as it was.
 */
#include "ui-int.h"

#include <sys/wait.h>

/* The job of the log pane (the selected one), checked for a command line. */
static int
pager_job(struct ui *ui, char **cluster, char **id)
{
	const struct ulog	*l = &ui->log;

	if (l->cluster == NULL || l->id == NULL) {
		ui_message(ui, 1, "no job selected: no log to page");
		return -1;
	}
	/* Both go on a command line (no shell): never an option. */
	if (l->id[0] == '\0' || l->id[0] == '-' || strspn(l->id,
	    "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
	    != strlen(l->id) || l->cluster[0] == '-' || l->cluster[0] == '\0') {
		ui_message(ui, 1, "%s: not a job id, no log to page", l->id);
		return -1;
	}
	if (strchr(l->id, '[') != NULL || (l->note != NULL && l->lines.n ==
	    0 && strstr(l->note, "job array") != NULL)) {
		ui_message(ui, 1, "%s is a job array: open it (+) and choose "
		    "a task", l->id);
		return -1;
	}
	*cluster = xstrdup(l->cluster);
	*id = xstrdup(l->id);
	return 0;
}

/* The child: /proc/self/exe with the terminal; its stderr to errfd. */
static pid_t
pager_spawn(char *const argv[], int errfd)
{
	sigset_t	none;
	pid_t		pid;
	int		sig;

	sigemptyset(&none);
	if ((pid = fork()) != 0)
		return pid;
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (errfd >= 0)
		dup2(errfd, STDERR_FILENO);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* The child's last line of errors, for the footer. */
static char *
pager_why(int fd)
{
	char	 data[1024], *p;
	off_t	 size = lseek(fd, 0, SEEK_END);
	ssize_t	 n;

	if (size <= 0)
		return NULL;
	lseek(fd, size > (off_t)sizeof data - 1 ? size - (off_t)sizeof data +
	    1 : 0, SEEK_SET);
	if ((n = read(fd, data, sizeof data - 1)) <= 0)
		return NULL;
	data[n] = '\0';
	while (n > 0 && data[n - 1] == '\n')
		data[--n] = '\0';
	p = strrchr(data, '\n');
	return ui_san(p != NULL ? p + 1 : data);
}

int
act_pager(struct ui *ui)
{
	const char		*cfg = ui_enter_config();
	struct sigaction	 ign, oint, oquit;
	char			*cluster, *id, *argv[10], *why;
	char			 tmpl[] = "/tmp/sqdeck-pager-err.XXXXXX";
	int			 n = 0, errfd, status = -1, err;
	pid_t			 pid;

	if (pager_job(ui, &cluster, &id) != 0)
		return UIF_REDRAW;
	err = ui->log.stream == LOG_ERR;
	argv[n++] = (char *)"sqdeck";
	if (cfg != NULL) {
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)cfg;
	}
	argv[n++] = (char *)"--cluster";
	argv[n++] = cluster;
	argv[n++] = (char *)"logs";
	argv[n++] = id;
	argv[n++] = (char *)"--pager";
	if (err)
		argv[n++] = (char *)"--err";
	argv[n] = NULL;
	if ((errfd = mkostemp(tmpl, O_CLOEXEC)) >= 0)
		unlink(tmpl);
	def_prog_mode();
	endwin();
	printf("sqdeck: reading the log of job %s on %s for the pager\n", id,
	    cluster);
	fflush(stdout);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = pager_spawn(argv, errfd);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	why = errfd >= 0 ? pager_why(errfd) : NULL;
	if (pid < 0)
		ui_message(ui, 1, "pager: fork: %s", strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ui_message(ui, 0, "pager of job %s's %s ended%s%s", id, err ?
		    "main.err" : "main.out", why != NULL ? ": " : "",
		    why != NULL ? why : "");
	else
		ui_message(ui, 1, "pager of job %s: %s", id, why != NULL ?
		    why : "it failed");
	free(why);
	if (errfd >= 0)
		close(errfd);
	free(cluster);
	free(id);
	return UIF_REDRAW | UIF_CLEAR;
}
