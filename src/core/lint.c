#include "lint.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enc.h"
#include "util.h"

#define SIDECAR_FIX "secrets go in the env sidecar (ENV_FILE), never in the script"

/* How long bash -n may take before it is killed (it takes milliseconds). */
#define BASH_N_TIMEOUT_MS 10000

static int
line_of(const char *script, const char *at)
{
	const char	*p;
	int		 line = 1;

	for (p = script; p < at; p++) {
		if (*p == '\n')
			line++;
	}
	return line;
}

/* The value as shell_quote() writes it inside quotes: ' becomes '\''. */
static char *
quoted_form(const char *v)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "");
	for (; *v != '\0'; v++) {
		if (*v == '\'')
			buf_adds(&b, "'\\''");
		else
			buf_add(&b, v, 1);
	}
	return buf_steal(&b);
}

static char *
hash_form(const char *v)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "");
	for (; *v != '\0'; v++) {
		if (*v == '#')
			buf_adds(&b, "\\#");
		else
			buf_add(&b, v, 1);
	}
	return buf_steal(&b);
}

static int
check_secrets(const char *name, const char *script,
    const struct lint_secret *secrets, size_t n, char **cause)
{
	const char	*at, *first;
	char		*forms[3];
	size_t		 i, j;

	for (i = 0; i < n; i++) {
		if (secrets[i].value == NULL || *secrets[i].value == '\0')
			continue;
		forms[0] = xstrdup(secrets[i].value);
		forms[1] = quoted_form(secrets[i].value);
		forms[2] = hash_form(secrets[i].value);
		first = NULL;
		for (j = 0; j < 3; j++) {
			at = strstr(script, forms[j]);
			if (at != NULL && (first == NULL || at < first))
				first = at;
		}
		for (j = 0; j < 3; j++)
			free(forms[j]);
		if (first != NULL) {
			return cause_set(cause, "%s line %d: contains the "
			    "value of secret %s; " SIDECAR_FIX, name,
			    line_of(script, first),
			    secrets[i].name != NULL ? secrets[i].name : "?");
		}
	}
	return 0;
}

static int
is_key_char(int c)
{
	return isalnum(c) || c == '_' || c == '-';
}

static int
is_alnum(int c)
{
	return isalnum(c);
}

static int
is_upper_digit(int c)
{
	return isdigit(c) || isupper(c);
}

/*
 * Does line (len bytes) contain prefix, not glued to a preceding
 * alphanumeric, followed by at least min characters of class?
 */
static int
has_token(const char *line, size_t len, const char *prefix,
    int (*class)(int), size_t min)
{
	size_t	plen = strlen(prefix), i, k;

	for (i = 0; i + plen <= len; i++) {
		if (strncmp(line + i, prefix, plen) != 0)
			continue;
		if (i > 0 && isalnum((unsigned char)line[i - 1]))
			continue;
		for (k = 0; i + plen + k < len &&
		    class((unsigned char)line[i + plen + k]); k++)
			;
		if (k >= min)
			return 1;
	}
	return 0;
}

static int
has_password(const char *line, size_t len)
{
	size_t	i, k;

	for (i = 0; i + 8 <= len; i++) {
		if (strncasecmp(line + i, "password", 8) != 0)
			continue;
		for (k = i + 8; k < len && (line[k] == ' ' || line[k] == '\t');
		    k++)
			;
		if (k < len && line[k] == '=')
			return 1;
	}
	return 0;
}

/* Does s end in ":" followed by a UUID (8-4-4-4-12 hex)? */
static int
ends_in_uuid(const unsigned char *s, size_t n)
{
	static const char	*shape = ":xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	size_t			 l = strlen(shape), i;

	if (n < l + 1)
		return 0;
	s += n - l;
	for (i = 0; i < l; i++) {
		if (shape[i] == 'x' ? !isxdigit(s[i]) : s[i] != shape[i])
			return 0;
	}
	return 1;
}

/*
 * Legacy NGC API keys are base64 of "<id>:<uuid>" (84 characters): decode
 * every long base64 run and look for that shape, so that ordinary long
 * words and paths are not taken for keys.
 */
static int
has_legacy_ngc(const char *line, size_t len)
{
	unsigned char	 out[128];
	size_t		 i = 0, start, n, o;
	unsigned int	 acc;
	int		 bits, v;

	while (i < len) {
		if (enc_base64_value((unsigned char)line[i]) < 0) {
			i++;
			continue;
		}
		start = i;
		while (i < len && enc_base64_value((unsigned char)line[i]) >= 0)
			i++;
		n = i - start;
		while (i < len && line[i] == '=')
			i++;
		if (n < 60 || n > 160)
			continue;
		acc = 0;
		bits = 0;
		o = 0;
		for (size_t k = start; k < start + n; k++) {
			v = enc_base64_value((unsigned char)line[k]);
			acc = (acc << 6) | (unsigned int)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out[o++] = (acc >> bits) & 0xff;
			}
		}
		if (ends_in_uuid(out, o))
			return 1;
	}
	return 0;
}

static const char *
check_tokens(const char *line, size_t len)
{
	static const char	*gh[] = { "ghp_", "gho_", "ghu_", "ghs_", "ghr_" };
	size_t			 i;

	if (has_token(line, len, "nvapi-", is_key_char, 20))
		return "an NGC API key (nvapi-...)";
	if (has_legacy_ngc(line, len))
		return "a legacy NGC API key (base64 of id:uuid)";
	if (has_token(line, len, "hf_", is_alnum, 30))
		return "a Hugging Face token (hf_...)";
	if (has_token(line, len, "AKIA", is_upper_digit, 16) ||
	    has_token(line, len, "ASIA", is_upper_digit, 16))
		return "an AWS access key id (AKIA...)";
	for (i = 0; i < sizeof gh / sizeof gh[0]; i++) {
		if (has_token(line, len, gh[i], is_alnum, 36))
			return "a GitHub token (ghp_...)";
	}
	if (memmem(line, len, "PRIVATE KEY-----", 16) != NULL)
		return "a private key block";
	if (has_password(line, len))
		return "a password (password=)";
	return NULL;
}

static int
is_sep(int c)
{
	return isspace(c) || (c != '\0' && strchr(";&|(){}'\"`", c) != NULL);
}

/* The base name of tok if it is a shell ("/bin/bash" -> "bash"), or NULL. */
static const char *
shell_of(const char *tok, size_t n)
{
	static const char	*shells[] = { "bash", "sh", "dash", "ksh", "zsh" };
	const char		*base = tok;
	size_t			 i;

	for (i = 0; i < n; i++) {
		if (tok[i] == '/')
			base = tok + i + 1;
	}
	n -= base - tok;
	for (i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		if (strlen(shells[i]) == n && strncmp(base, shells[i], n) == 0)
			return shells[i];
	}
	return NULL;
}

/*
 * Find xtrace being turned on: "set" or a shell followed by options with
 * an x, or "-o xtrace".  Returns the form seen (allocated) or NULL.
 */
static char *
check_xtrace(const char *line, size_t len)
{
	const char	*tok[64];
	size_t		 tlen[64], ntok = 0, i, j, k;
	const char	*cmd;

	for (i = 0; i < len && ntok < 64; ) {
		while (i < len && is_sep((unsigned char)line[i]))
			i++;
		if (i == len)
			break;
		tok[ntok] = line + i;
		while (i < len && !is_sep((unsigned char)line[i]))
			i++;
		tlen[ntok] = line + i - tok[ntok];
		ntok++;
	}

	for (i = 0; i < ntok; i++) {
		if (tlen[i] == 3 && strncmp(tok[i], "set", 3) == 0)
			cmd = "set";
		else if ((cmd = shell_of(tok[i], tlen[i])) == NULL)
			continue;
		for (j = i + 1; j < ntok; j++) {
			if (tlen[j] < 2 || tok[j][0] != '-' || tok[j][1] == '-')
				break;
			for (k = 1; k < tlen[j]; k++) {
				if (tok[j][k] == 'x')
					break;
			}
			if (k < tlen[j] || (tok[j][tlen[j] - 1] == 'o' &&
			    j + 1 < ntok && tlen[j + 1] == 6 &&
			    strncmp(tok[j + 1], "xtrace", 6) == 0)) {
				if (k == tlen[j]) {
					return xasprintf("%s %.*s xtrace", cmd,
					    (int)tlen[j], tok[j]);
				}
				return xasprintf("%s %.*s", cmd, (int)tlen[j],
				    tok[j]);
			}
		}
	}
	return NULL;
}

int
lint_script(const char *name, const char *script,
    const struct lint_secret *secrets, size_t nsecrets, char **cause)
{
	const char	*line, *eol, *what, *p;
	char		*form;
	size_t		 len;
	int		 lineno = 0;

	if (check_secrets(name, script, secrets, nsecrets, cause) != 0)
		return -1;

	for (line = script; *line != '\0'; line = eol) {
		lineno++;
		eol = strchr(line, '\n');
		eol = eol != NULL ? eol + 1 : line + strlen(line);
		len = eol - line;

		if ((what = check_tokens(line, len)) != NULL) {
			return cause_set(cause, "%s line %d: looks like %s; "
			    SIDECAR_FIX, name, lineno, what);
		}

		/* Comments cannot turn tracing on; the #! line can. */
		for (p = line; p < eol && (*p == ' ' || *p == '\t'); p++)
			;
		if (*p == '#' && !(lineno == 1 && p[1] == '!'))
			continue;
		if ((form = check_xtrace(line, len)) != NULL) {
			cause_set(cause, "%s line %d: \"%s\" turns on xtrace, "
			    "which prints every command with its values "
			    "(secrets included) into the job log; remove it",
			    name, lineno, form);
			free(form);
			return -1;
		}
	}
	return 0;
}

static char *
find_bash(void)
{
	const char	*path = getenv("PATH");
	char		*copy, *dir, *save = NULL, *cand;

	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		cand = xasprintf("%s/bash", dir);
		if (access(cand, X_OK) == 0) {
			free(copy);
			return cand;
		}
		free(cand);
	}
	free(copy);
	return NULL;
}

/*
 * The form of a record id's stamp and suffix, YYYYmmddTHHMMSS-xxxxxx
 * (record_new_id), and the one text of that form every stamp becomes in
 * a shape: 8 digits, 'T', 6 digits, '-', 6 of 0-9a-f.
 */
#define SHAPE_STAMP	"00000000T000000-000000"
#define SHAPE_LEN	(sizeof SHAPE_STAMP - 1)

static int
shape_stamp_ok(const char *s)
{
	size_t	i;

	if (strlen(s) != SHAPE_LEN)
		return 0;
	for (i = 0; i < SHAPE_LEN; i++) {
		if (i == 8 && s[i] != 'T')
			return 0;
		if (i == 15 && s[i] != '-')
			return 0;
		if (i != 8 && i != 15 && i < 15 && !isdigit((unsigned char)s[i]))
			return 0;
		if (i > 15 && !isdigit((unsigned char)s[i]) &&
		    (s[i] < 'a' || s[i] > 'f'))
			return 0;
	}
	return 1;
}

int
lint_shape_key(const char *script, const char *stamp, const char *bash_id,
    char out[65])
{
	struct buf	 b;
	const char	*p, *at;

	if (!shape_stamp_ok(stamp) || strstr(script, SHAPE_STAMP) != NULL)
		return -1;
	buf_init(&b);
	/* What the verdict also depends on: this bash. */
	buf_adds(&b, "bash -n shape 1");
	buf_add(&b, "", 1);
	buf_adds(&b, bash_id);
	buf_add(&b, "", 1);
	for (p = script; (at = strstr(p, stamp)) != NULL; p = at + SHAPE_LEN) {
		buf_add(&b, p, at - p);
		buf_adds(&b, SHAPE_STAMP);
	}
	buf_adds(&b, p);
	enc_sha256_hex(b.data, b.len, out);
	buf_free(&b);
	return 0;
}

char *
lint_bash_id(void)
{
	struct stat	 st;
	char		*bash, *id;

	if ((bash = find_bash()) == NULL)
		return NULL;
	if (stat(bash, &st) != 0) {
		free(bash);
		return NULL;
	}
	id = xasprintf("%s %ju %ju %jd %jd.%09ld", bash, (uintmax_t)st.st_dev,
	    (uintmax_t)st.st_ino, (intmax_t)st.st_size,
	    (intmax_t)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	free(bash);
	return id;
}

/* bash's lines without the "bash: " it adds when reading stdin. */
static char *
bash_message(const char *text)
{
	struct buf	 b;
	const char	*line, *eol;
	size_t		 n;

	buf_init(&b);
	buf_adds(&b, "");
	for (line = text; *line != '\0'; line = eol) {
		eol = strchr(line, '\n');
		eol = eol != NULL ? eol + 1 : line + strlen(line);
		n = eol - line;
		while (n > 0 && isspace((unsigned char)line[n - 1]))
			n--;
		if (n >= 6 && strncmp(line, "bash: ", 6) == 0) {
			line += 6;
			n -= 6;
		}
		if (n == 0)
			continue;
		if (b.len != 0)
			buf_adds(&b, "; ");
		buf_add(&b, line, n);
	}
	if (b.len == 0)
		buf_adds(&b, "bash -n failed");
	return buf_steal(&b);
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * The script goes to bash as a seekable memory file, not a pipe: from a pipe
 * bash reads its input one byte per read(2) (1.4 million calls for a 1.5 MB
 * script, over 10 s on a loaded machine); from a regular file it buffers.
 */
static int
script_fd(const char *script, char **cause)
{
	size_t	 off = 0, len = strlen(script);
	ssize_t	 n;
	int	 fd;

	if ((fd = memfd_create("sqdeck-lint", MFD_CLOEXEC)) == -1) {
		cause_set(cause, "bash -n: memfd_create: %s", strerror(errno));
		return -1;
	}
	while (off < len) {
		if ((n = write(fd, script + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			cause_set(cause, "bash -n: write: %s", strerror(errno));
			close(fd);
			return -1;
		}
		off += n;
	}
	if (lseek(fd, 0, SEEK_SET) == -1) {
		cause_set(cause, "bash -n: lseek: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
lint_bash_syntax(const char *name, const char *script, char **cause)
{
	char		*bash, *argv[] = { "bash", "-n", NULL, };
	char		*envp[] = { "LC_ALL=C", "PATH=/usr/bin:/bin", NULL };
	int		 in = -1, err[2] = { -1, -1 };
	int		 status, error = -1, timed_out = 0;
	pid_t		 pid;
	struct buf	 msg;
	struct pollfd	 pfd;
	struct timespec	 t0;
	ssize_t		 n;
	char		 tmp[4096], *m;
	long		 left;

	if ((bash = find_bash()) == NULL)
		return cause_set(cause, "bash -n: bash not found in PATH");
	buf_init(&msg);
	buf_adds(&msg, "");
	if ((in = script_fd(script, cause)) == -1)
		goto out;
	if (pipe2(err, O_CLOEXEC) != 0) {
		cause_set(cause, "bash -n: pipe: %s", strerror(errno));
		goto out;
	}
	if ((pid = fork()) == -1) {
		cause_set(cause, "bash -n: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (dup2(in, 0) == -1 || dup2(err[1], 1) == -1 ||
		    dup2(err[1], 2) == -1)
			_exit(127);
		execve(bash, argv, envp);
		_exit(127);
	}
	close(err[1]);
	err[1] = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (err[0] != -1) {
		pfd.fd = err[0];
		pfd.events = POLLIN;
		if ((left = BASH_N_TIMEOUT_MS - ms_since(&t0)) <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd.revents & (POLLIN|POLLHUP|POLLERR)) {
			n = read(err[0], tmp, sizeof tmp);
			if (n > 0) {
				if (msg.len < 4096)
					buf_add(&msg, tmp, n);
			} else if (n == 0 || errno != EINTR) {
				close(err[0]);
				err[0] = -1;
			}
		}
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;

	if (timed_out) {
		cause_set(cause, "%s: bash -n did not finish in %d s", name,
		    BASH_N_TIMEOUT_MS / 1000);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		error = 0;
	else {
		m = bash_message(msg.data);
		cause_set(cause, "%s: syntax error: %s", name, m);
		free(m);
	}

out:
	if (in != -1)
		close(in);
	if (err[0] != -1)
		close(err[0]);
	if (err[1] != -1)
		close(err[1]);
	buf_free(&msg);
	free(bash);
	return error;
}
