#include "util.h"

#include <sys/random.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static void
oom(void)
{
	fputs("sqdeck: out of memory\n", stderr);
	abort();
}

/* Allocations by this thread (util_allocs_here: the frame bench). */
static _Thread_local unsigned long	nallocs;

unsigned long
util_allocs_here(void)
{
	return nallocs;
}

void *
xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	nallocs++;
	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void	*p = calloc(n ? n : 1, sz ? sz : 1);

	nallocs++;
	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	nallocs++;
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	n = strnlen(s, n);
	p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list	 aq;
	int	 n;
	char	*p;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		oom();
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

int
cause_set(char **cause, const char *fmt, ...)
{
	va_list	 ap;

	if (cause != NULL) {
		va_start(ap, fmt);
		*cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return -1;
}

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

static void
buf_grow(struct buf *b, size_t more)
{
	size_t	cap = b->cap ? b->cap : 64;

	if (b->len + more + 1 <= b->cap)
		return;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n != 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_adds(b, s);
	free(s);
}

char *
buf_steal(struct buf *b)
{
	char	*p;

	if (b->data == NULL)
		return xstrdup("");
	p = b->data;
	buf_init(b);
	return p;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void
buf_add_quoted(struct buf *b, const char *s)
{
	buf_add(b, "'", 1);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_add(b, s, 1);
	}
	buf_add(b, "'", 1);
}

char *
shell_quote(const char *s)
{
	struct buf	b;

	buf_init(&b);
	buf_add_quoted(&b, s);
	return buf_steal(&b);
}

static int
fsync_dir(const char *path)
{
	char	*copy = xstrdup(path);
	int	 fd, rc = 0;

	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

static int
file_write_whole(const char *path, const void *data, size_t len, mode_t mode,
    int dirsync, char **cause)
{
	char		*tmp;
	const char	*p = data;
	int		 fd;
	ssize_t		 n;

	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	/*
	 * Exclusive and never through a symlink: a name planted in the
	 * directory is removed (the link, not what it points to) and the
	 * file created anew, once.
	 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) {
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		cause_set(cause, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			cause_set(cause, "cannot write %s: %s", tmp, strerror(errno));
			goto fail;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
		cause_set(cause, "cannot sync %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (close(fd) != 0) {
		fd = -1;
		cause_set(cause, "cannot close %s: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		cause_set(cause, "cannot rename %s to %s: %s", tmp, path,
		    strerror(errno));
		goto fail;
	}
	if (dirsync)
		fsync_dir(path);
	free(tmp);
	return 0;

fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

int
file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
    char **cause)
{
	return file_write_whole(path, data, len, mode, 1, cause);
}

int
file_write_atomic_nodirsync(const char *path, const void *data, size_t len,
    mode_t mode, char **cause)
{
	return file_write_whole(path, data, len, mode, 0, cause);
}

int
file_read(const char *path, char **out, size_t *lenp, char **cause)
{
	FILE		*f;
	struct buf	 b;
	char		 chunk[8192];
	size_t		 n;

	f = fopen(path, "rb");
	if (f == NULL)
		return cause_set(cause, "cannot open %s: %s", path, strerror(errno));
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f)) {
		fclose(f);
		buf_free(&b);
		return cause_set(cause, "cannot read %s", path);
	}
	fclose(f);
	if (lenp != NULL)
		*lenp = b.len;
	*out = buf_steal(&b);
	return 0;
}

int
file_read_max(const char *path, size_t max, char **out, size_t *lenp,
    char **cause)
{
	struct stat	 st;
	struct buf	 b;
	char		 chunk[8192];
	ssize_t		 n;
	int		 fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return cause_set(cause, "cannot open %s: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) != 0) {
		close(fd);
		return cause_set(cause, "cannot stat %s: %s", path,
		    strerror(errno));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return cause_set(cause, "%s is not a regular file (a device, "
		    "FIFO or directory): give a plain file", path);
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return cause_set(cause, "%s is %lld bytes, more than the %zu "
		    "allowed", path, (long long)st.st_size, max);
	}
	buf_init(&b);
	buf_add(&b, "", 0);
	/* The size can change under us: never read more than max + 1. */
	while (b.len <= max) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			buf_free(&b);
			return cause_set(cause, "cannot read %s: %s", path,
			    strerror(errno));
		}
		if (n == 0)
			break;
		buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (b.len > max) {
		buf_free(&b);
		return cause_set(cause, "%s grew past the %zu bytes allowed "
		    "while it was read", path, max);
	}
	if (lenp != NULL)
		*lenp = b.len;
	*out = buf_steal(&b);
	return 0;
}

int
mkdir_p(const char *path, mode_t mode, char **cause)
{
	char	*copy = xstrdup(path), *p;

	for (p = copy + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) != 0 && errno != EEXIST) {
			cause_set(cause, "cannot create directory %s: %s", copy,
			    strerror(errno));
			free(copy);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(copy, mode) != 0 && errno != EEXIST) {
		cause_set(cause, "cannot create directory %s: %s", copy,
		    strerror(errno));
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

/* Slots allocated for n items and the NULL: a power of two, at least 4. */
static size_t
strv_slots(size_t n)
{
	size_t	slots = 4;

	while (slots < n + 1)
		slots *= 2;
	return slots;
}

/* Grows by doubling: a list built one item at a time costs O(n). */
void
strv_add(struct strv *sv, const char *s)
{
	if (sv->v == NULL || strv_slots(sv->n) < sv->n + 2)
		sv->v = xrealloc(sv->v, strv_slots(sv->n + 1) * sizeof *sv->v);
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void
strv_free(struct strv *sv)
{
	size_t	i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void
strv_split(struct strv *sv, const char *s, int sep)
{
	const char	*start = s, *end;
	char		*item;

	for (;;) {
		end = strchr(start, sep);
		if (end == NULL)
			end = start + strlen(start);
		item = xstrndup(start, (size_t)(end - start));
		str_trim(item);
		if (*item != '\0')
			strv_add(sv, item);
		free(item);
		if (*end == '\0')
			break;
		start = end + 1;
	}
}

char *
str_trim(char *s)
{
	size_t	n;
	char	*p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (p != s)
		memmove(s, p, strlen(p) + 1);
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int
str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
str_has_suffix(const char *s, const char *suffix)
{
	size_t	ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/*
 * No usable HOME and no XDG variable: a path that cannot be created, never
 * a shared one such as /tmp (path_check refuses to start before this).
 */
#define XDG_NOWHERE "/nonexistent"

static char *
xdg_dir(const char *var, const char *fallback)
{
	const char	*v = getenv(var), *home;

	if (v != NULL && *v == '/')
		return xasprintf("%s/sqdeck", v);
	home = getenv("HOME");
	if (home == NULL || *home != '/')
		home = XDG_NOWHERE;
	return xasprintf("%s/%s/sqdeck", home, fallback);
}

int
path_private_dir(const char *path, char **cause)
{
	struct stat	sb;

	/* A symlinked dir is fine; what it points to is checked. */
	if (stat(path, &sb) != 0) {
		if (errno == ENOENT)
			return 0;
		return cause_set(cause, "cannot use %s: %s", path,
		    strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return cause_set(cause, "%s is not a directory: move it aside",
		    path);
	if (sb.st_uid != geteuid()) {
		return cause_set(cause, "%s belongs to uid %ld, not to you "
		    "(uid %ld): sqdeck keeps its records and caches only in "
		    "a directory of yours; move it aside or set "
		    "XDG_STATE_HOME/XDG_CONFIG_HOME", path, (long)sb.st_uid,
		    (long)geteuid());
	}
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		return cause_set(cause, "%s is writable by %s (mode %03o): "
		    "others could plant records or caches there; run 'chmod "
		    "go-w %s'", path, (sb.st_mode & S_IWOTH) ? "everyone" :
		    "its group", (unsigned)(sb.st_mode & 0777), path);
	}
	return 0;
}

int
path_check(char **cause)
{
	const char	*home = getenv("HOME");
	const char	*vars[] = { "XDG_STATE_HOME", "XDG_CONFIG_HOME" };
	const char	*v;
	char		*dirs[2];
	struct stat	 sb;
	size_t		 i;
	int		 rc = 0;

	for (i = 0; i < 2; i++) {
		v = getenv(vars[i]);
		if (v != NULL && *v != '\0' && *v != '/') {
			return cause_set(cause, "%s=%s is not an absolute "
			    "path: set it to one (or unset it)", vars[i], v);
		}
		if (v != NULL && *v == '/')
			continue;
		if (home == NULL || *home != '/') {
			return cause_set(cause, "HOME is %s and %s is not set: "
			    "sqdeck keeps its records under one of them and "
			    "never in a shared place such as /tmp; set HOME "
			    "to your home directory (or %s to a directory of "
			    "yours)", home == NULL ? "not set" : *home ==
			    '\0' ? "empty" : "not an absolute path", vars[i],
			    vars[i]);
		}
		if (stat(home, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			return cause_set(cause, "HOME=%s is not a directory: "
			    "set HOME to your home directory (or %s)", home,
			    vars[i]);
		}
	}
	dirs[0] = path_state_dir();
	dirs[1] = path_config_dir();
	for (i = 0; i < 2 && rc == 0; i++)
		rc = path_private_dir(dirs[i], cause);
	free(dirs[0]);
	free(dirs[1]);
	return rc;
}

char *
path_config_dir(void)
{
	return xdg_dir("XDG_CONFIG_HOME", ".config");
}

char *
path_state_dir(void)
{
	return xdg_dir("XDG_STATE_HOME", ".local/state");
}

char *
iso_time_fmt(time_t t, char *buf, size_t len)
{
	struct tm	tm;

	gmtime_r(&t, &tm);
	if (strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 && len > 0)
		*buf = '\0';
	return buf;
}

char *
iso_time_now(void)
{
	char	buf[ISO_TIME_SIZE];

	return xstrdup(iso_time_fmt(time(NULL), buf, sizeof buf));
}

time_t
iso_time_parse(const char *s)
{
	struct tm	tm;

	if (s == NULL)
		return (time_t)-1;
	memset(&tm, 0, sizeof tm);
	if (strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) == NULL)
		return (time_t)-1;
	return timegm(&tm);
}

void
random_bytes(void *p, size_t n)
{
	unsigned char	*rnd = p;
	struct timespec	 ts;
	size_t		 i;
	int		 fd;

	if (getrandom(rnd, n, 0) == (ssize_t)n)
		return;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		if (read(fd, rnd, n) == (ssize_t)n) {
			close(fd);
			return;
		}
		close(fd);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < n; i++)
		rnd[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^
		    (getpid() >> (i % 2 * 8)) ^ (ts.tv_sec >> (i % 4)));
}
