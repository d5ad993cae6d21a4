/*
 * sqdeck logs ID --pager (and the TUI's L, which runs it): the whole log,
 * at most PAGER_MAX bytes, read over the connection in chunks into a
 * private file (0600 in a 0700 directory under XDG_RUNTIME_DIR or TMPDIR),
 * then $PAGER, else less, else more, on that file; the file and its
 * directory are removed when the pager ends.  The log is the cluster's
 * text: it is sanitised as every log sqdeck prints (escape sequences out,
 * control characters shown as U+FFFD), so no pager, not even more or
 * less -R, lets it drive the terminal; and it reaches the pager as a file,
 * never on a command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ops.h"
#include "util.h"

#define PAGER_MAX	(64LL * 1024 * 1024)	/* bytes of log at most */
#define PAGER_CHUNK	(4 * 1024 * 1024)	/* bytes per read */

struct pager_file {
	char	*dir;
	char	*path;
	int	 fd;
};

static int
pager_write(int fd, const char *s, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, s, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Sanitised, as the CLI prints logs; raw is the bytes up to a newline. */
static int
pager_put(int fd, const char *raw, size_t len)
{
	char	*s;
	size_t	 n;
	int	 rc;

	if (len == 0)
		return 0;
	s = ops_sanitize(raw, len, &n);
	rc = pager_write(fd, s, n);
	free(s);
	return rc;
}

static int
pager_open(struct pager_file *pf, const char *name, char **cause)
{
	const char	*base = getenv("XDG_RUNTIME_DIR");

	if (base == NULL || *base != '/' || access(base, W_OK) != 0)
		base = getenv("TMPDIR");
	if (base == NULL || *base != '/' || access(base, W_OK) != 0)
		base = "/tmp";
	pf->fd = -1;
	pf->path = NULL;
	pf->dir = xasprintf("%s/sqdeck-pager.XXXXXX", base);
	if (mkdtemp(pf->dir) == NULL) {	/* mode 0700 */
		cause_set(cause, "%s: %s", pf->dir, strerror(errno));
		free(pf->dir);
		pf->dir = NULL;
		return -1;
	}
	pf->path = xasprintf("%s/%s", pf->dir, name);
	pf->fd = open(pf->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (pf->fd < 0)
		return cause_set(cause, "%s: %s", pf->path, strerror(errno));
	return 0;
}

static void
pager_close(struct pager_file *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	if (pf->path != NULL)
		unlink(pf->path);
	if (pf->dir != NULL)
		rmdir(pf->dir);
	free(pf->path);
	free(pf->dir);
}

/*
 * Read path whole (PAGER_MAX at most) into fd, cut only at newlines so a
 * character or an escape is never split between two sanitisings.  Returns
 * the bytes read, *size the file's; -1 with a cause.
 */
static long long
pager_fetch(struct conn *c, const char *path, int fd, long long *size,
    char **cause)
{
	struct ops_log	 log;
	struct buf	 carry;
	long long	 off = 0;
	char		*nl;
	size_t		 keep;
	int		 rc = 0;

	buf_init(&carry);
	*size = 0;
	while (rc == 0 && off < PAGER_MAX) {
		memset(&log, 0, sizeof log);
		if (ops_log_read(c, path, off, (size_t)(PAGER_MAX - off) <
		    PAGER_CHUNK ? (size_t)(PAGER_MAX - off) : PAGER_CHUNK,
		    &log, cause) != 0)
			rc = -1;
		else if (log.missing) {
			rc = -1;
			cause_set(cause, "%s does not exist (yet)", path);
		} else if (log.truncated) {
			rc = -1;
			cause_set(cause, "%s was truncated while it was read",
			    path);
		}
		if (rc != 0 || log.len == 0) {
			*size = log.size;
			ops_log_free(&log);
			break;
		}
		*size = log.size;
		off = log.offset + (long long)log.len;
		buf_add(&carry, log.data, log.len);
		ops_log_free(&log);
		if ((nl = memrchr(carry.data, '\n', carry.len)) != NULL) {
			keep = carry.len - (size_t)(nl + 1 - carry.data);
			if (pager_put(fd, carry.data, carry.len - keep) != 0)
				rc = cause_set(cause, "writing the log: %s",
				    strerror(errno));
			memmove(carry.data, nl + 1, keep);
			carry.len = keep;
		}
		if (off >= *size)
			break;
	}
	if (rc == 0 && pager_put(fd, carry.data, carry.len) != 0)
		rc = cause_set(cause, "writing the log: %s", strerror(errno));
	buf_free(&carry);
	return rc == 0 ? off : -1;
}

/*
 * $PAGER through sh as git does (it may be "less -R"), the file as $1;
 * else less, else more.  SIGINT is the pager's own while it runs.
 */
static int
pager_run(const char *file, char **cause)
{
	const char		*pager = getenv("PAGER");
	struct sigaction	 ign, oint, oquit;
	pid_t			 pid;
	int			 status = 0;

	if ((pid = fork()) < 0)
		return cause_set(cause, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (pager != NULL && *pager != '\0') {
			char	*cmd = xasprintf("%s \"$1\"", pager);

			execl("/bin/sh", "sh", "-c", cmd, "sh", file,
			    (char *)NULL);
			_exit(127);
		}
		execlp("less", "less", "--", file, (char *)NULL);
		execlp("more", "more", file, (char *)NULL);
		_exit(127);
	}
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return cause_set(cause, "no pager could be run (%s)", pager !=
		    NULL && *pager != '\0' ? "$PAGER" : "less, more");
	return 0;
}

int
cli_logs_pager(struct conn *c, const char *path, int err, const char *shown)
{
	struct pager_file	 pf;
	long long		 got, size = 0;
	char			*cause = NULL, *note;
	int			 ret = EXIT_FAIL;

	if (pager_open(&pf, err ? "main.err" : "main.out", &cause) != 0)
		goto out;
	if ((got = pager_fetch(c, path, pf.fd, &size, &cause)) < 0)
		goto out;
	if (got < size) {
		note = xasprintf("\n[sqdeck: cut after the first %lld MiB of "
		    "%lld bytes; the whole log is %s on the cluster]\n",
		    PAGER_MAX / (1024 * 1024), size, shown);
		pager_write(pf.fd, note, strlen(note));
		cli_error("logs", "the log is %lld bytes: the pager shows the "
		    "first %lld MiB", size, PAGER_MAX / (1024 * 1024));
		free(note);
	}
	close(pf.fd);
	pf.fd = -1;
	if (pager_run(pf.path, &cause) != 0)
		goto out;
	ret = EXIT_OK;
out:
	if (cause != NULL) {
		cli_error("logs", "%s", cause);
		free(cause);
	}
	pager_close(&pf);
	return ret;
}
