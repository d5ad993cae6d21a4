#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Exit codes of every verb and of the TUI (the man page, EXIT STATUS). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the operation failed (message printed) */
#define EXIT_USAGE	2	/* bad command line or bad input file */

/*
 * Small helpers shared by every module.  Allocation failure aborts (there is
 * no sane recovery in a TUI); everything else returns -1 and a cause.
 */

void	*xmalloc(size_t);
/* xmalloc, xcalloc and xrealloc calls of the calling thread so far. */
unsigned long util_allocs_here(void);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Set *cause (if cause != NULL) to a newly allocated message; returns -1. */
int	 cause_set(char **cause, const char *, ...) __attribute__((format(printf, 2, 3)));

/* Growable byte buffer, always NUL-terminated. */
struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};
void	 buf_init(struct buf *);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_printf(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));
char	*buf_steal(struct buf *);	/* returns data, buffer is reset */
void	 buf_free(struct buf *);

/* Quote for POSIX sh: 'it'\''s'.  Always returns a new string. */
char	*shell_quote(const char *);
/* Append the quoted form of s to b. */
void	 buf_add_quoted(struct buf *, const char *);

/*
 * Write a whole file atomically: temp file in the same directory, fsync,
 * rename, fsync the directory.  Readers see the old or the new content,
 * never a mix.
 */
int	 file_write_atomic(const char *path, const void *, size_t, mode_t,
	     char **cause);
/*
 * The same without the directory's fsync: the content is whole once the
 * name shows it, but the rename may be lost in a crash (the caller knows
 * the old content, or none, will do).
 */
int	 file_write_atomic_nodirsync(const char *path, const void *, size_t,
	     mode_t, char **cause);
/* Read a whole file (NUL-terminated); *lenp may be NULL. */
int	 file_read(const char *path, char **out, size_t *lenp, char **cause);
/*
 * The same for a file from a user or a shared spec: a regular file only
 * (a FIFO, /dev/zero or a directory is refused at once, never read) of at
 * most max bytes, checked before reading and while reading.
 */
int	 file_read_max(const char *path, size_t max, char **out, size_t *lenp,
	     char **cause);
/* mkdir -p with mode for created directories. */
int	 mkdir_p(const char *path, mode_t mode, char **cause);

/* String list, NULL-terminated; grow it only with strv_add. */
struct strv {
	char	**v;
	size_t	  n;
};
void	 strv_add(struct strv *, const char *);
void	 strv_free(struct strv *);
/* Split s on sep, trimming blanks, dropping empty items. */
void	 strv_split(struct strv *, const char *s, int sep);

char	*str_trim(char *);	/* in place, returns s */
int	 str_has_prefix(const char *, const char *);
int	 str_has_suffix(const char *, const char *);

/* Directories per XDG: $XDG_CONFIG_HOME/sqdeck, $XDG_STATE_HOME/sqdeck. */
char	*path_config_dir(void);
char	*path_state_dir(void);
/*
 * 0 when path is missing, or a directory of the effective user that its
 * group and others cannot write; else -1 and a cause naming the fix.
 */
int	 path_private_dir(const char *path, char **cause);
/*
 * Refuse to run without a usable place for records: an absolute
 * XDG_STATE_HOME/XDG_CONFIG_HOME, else an absolute HOME that is a
 * directory; and the sqdeck dirs there, when they exist, private.
 */
int	 path_check(char **cause);

/*
 * Times in records, JSON and history: UTC, "2026-03-01T12:00:00Z".
 * iso_time_fmt writes t into buf (ISO_TIME_SIZE bytes) and returns buf;
 * iso_time_parse reads one back (the "Z" and anything after the seconds
 * are ignored), or gives (time_t)-1 for NULL or a malformed string.
 */
#define ISO_TIME_SIZE	32
char	*iso_time_fmt(time_t, char *buf, size_t len);
char	*iso_time_now(void);		/* a new string */
time_t	 iso_time_parse(const char *);

/* Unpredictable bytes: getrandom, else /dev/urandom, else the clock. */
void	 random_bytes(void *, size_t);

#endif
