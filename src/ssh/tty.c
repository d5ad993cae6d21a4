/*
 * Second-factor prompts on the terminal (see tty.h).
 */
#include "tty.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define TTY_ANSWER_MAX	1024

static int		 tty_fd = -1;
static struct termios	 tty_saved;
static volatile sig_atomic_t tty_restore, tty_signal;

/* Restore the terminal first: a signal must not leave echo off. */
static void
tty_on_signal(int sig)
{
	if (tty_restore && tty_fd >= 0)
		tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
	tty_restore = 0;
	tty_signal = sig;
}

static void
tty_write(int fd, const char *s)
{
	size_t	len = strlen(s);
	ssize_t	n;

	while (len > 0) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/*
 * Text from the server is untrusted: through the one sanitiser
 * (text.h), so no control character, C1 (0x9b, U+009B) or bidi override
 * (U+202E) reaches the tty.  Without keep_nl, newlines become spaces.
 */
static void
tty_write_clean(int fd, const char *s, int keep_nl)
{
	char	*c;

	c = text_sanitize(s, strlen(s), keep_nl ? TEXT_CR_LINES : 0, NULL);
	tty_write(fd, c);
	free(c);
}

/* One line into buf; -1 on a signal, EOF or error. */
static int
tty_read_line(int fd, char *buf, size_t size)
{
	size_t	n = 0;
	ssize_t	r;
	char	ch;

	for (;;) {
		r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR && !tty_signal)
			continue;
		if (r <= 0)
			return -1;
		if (ch == '\n' || ch == '\r')
			break;
		if (n < size - 1)
			buf[n++] = ch;
	}
	buf[n] = '\0';
	return 0;
}

int
tty_prompt(void *arg, const char *cluster, const char *name,
    const char *instruction, const char *note,
    const struct conn_prompt *pv, size_t n, char **answers, char **cause)
{
	static const int	 sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				     SIGTSTP };
	struct sigaction	 sa, old[5];
	struct termios		 t;
	char			 line[TTY_ANSWER_MAX];
	size_t			 i, k;
	int			 fd, rc = -1, sig;

	(void)arg;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return cause_set(cause, "no terminal to answer it on");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tty_on_signal;	/* no SA_RESTART: read stops */
	tty_signal = 0;
	tty_fd = fd;
	for (k = 0; k < 5; k++)
		sigaction(sigs[k], &sa, &old[k]);

	tty_write(fd, "sqdeck: ");
	tty_write_clean(fd, cluster, 0);
	tty_write(fd, " asks for a second factor\n");
	if (name != NULL && *name != '\0') {
		tty_write_clean(fd, name, 1);
		tty_write(fd, "\n");
	}
	if (instruction != NULL && *instruction != '\0') {
		tty_write_clean(fd, instruction, 1);
		tty_write(fd, "\n");
	}
	if (note != NULL) {
		tty_write_clean(fd, note, 1);
		tty_write(fd, "\n");
	}
	for (i = 0; i < n; i++) {
		/* Echo off before the prompt shows: what is typed after
		 * it must not be flushed or echoed. */
		if (!pv[i].echo) {
			if (tcgetattr(fd, &tty_saved) != 0) {
				cause_set(cause, "cannot turn the terminal's "
				    "echo off: %s", strerror(errno));
				goto out;
			}
			t = tty_saved;
			t.c_lflag &= ~(ECHO | ECHONL);
			tty_restore = 1;
			tcsetattr(fd, TCSAFLUSH, &t);
		}
		tty_write_clean(fd, pv[i].text, 0);
		rc = tty_read_line(fd, line, sizeof line);
		if (tty_restore) {
			tcsetattr(fd, TCSAFLUSH, &tty_saved);
			tty_restore = 0;
			tty_write(fd, "\n");
		}
		if (rc != 0) {
			explicit_bzero(line, sizeof line);
			cause_set(cause, "%s", tty_signal ? "interrupted" :
			    "no answer (end of input)");
			goto out;
		}
		answers[i] = xstrdup(line);
		explicit_bzero(line, sizeof line);
	}
	rc = 0;
out:
	if (rc != 0) {
		for (i = 0; i < n; i++) {
			conn_wipe(answers[i]);
			answers[i] = NULL;
		}
	}
	for (k = 0; k < 5; k++)
		sigaction(sigs[k], &old[k], NULL);
	tty_fd = -1;
	close(fd);
	/* The user's signal still counts, now that the terminal is sane. */
	if ((sig = tty_signal) != 0) {
		tty_signal = 0;
		raise(sig);
	}
	return rc;
}
