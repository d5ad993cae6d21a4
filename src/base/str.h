#ifndef STR_H
#define STR_H

#include <stddef.h>

#include "util.h"

/*
 * Small tests and parses of strings that several layers need (each was
 * written twice before it came here).
 */

/* "true", "yes", "on", "1" -> 1; "false", "no", "off", "0" -> 0 (any
   case); 0, or -1 for any other word (*out left alone). */
int	 str_bool(const char *s, int *out);

/* Any control character (C0 or DEL)?  With allow_newline, '\n' and
   '\t' are allowed. */
int	 str_has_control(const char *s, int allow_newline);

/* Only white space (or nothing) in s, or in its first n bytes. */
int	 str_blank(const char *s);
int	 str_blank_n(const char *s, size_t n);

/* The value of the n bytes at s if they are 1 to 9 digits, else -1. */
long	 str_digits_n(const char *s, size_t n);

/* The run of digits at *pp (no sign, no space), *pp moved past it; -1
   (*pp left alone) when there is no digit or the value is over max. */
long	 str_number(const char **pp, long max);

/*
 * s with its C0 controls and DEL written out ("\n", "\r", "\t", "\e",
 * "\x01"), for a message that quotes a value from a file: a newline or a
 * \r in it cannot start a line of its own ("sqdeck: submitted").  Other
 * bytes are left to text_sanitize.  A new string.
 */
char	*str_escape_controls(const char *s);

/*
 * A set of interned strings: the job table and the records index keep
 * each value that thousands of rows share (cluster, partition, state)
 * once.  The set holds pointers only; copy(arg, s) makes the one copy
 * of a new value where its owner keeps strings (blocks that never move),
 * and the owner frees those.  strset_free frees the set's own array.
 */
struct strset {
	const char	**v;	/* open addressing, a power of two */
	size_t		  n;
	size_t		  a;
};

const char	*strset_intern(struct strset *, const char *s,
		     const char *(*copy)(void *, const char *), void *arg);
void		 strset_free(struct strset *);
/* Bytes of the set's own array. */
size_t		 strset_bytes(const struct strset *);

/* Is s one of v's strings? */
int	 strv_has(const struct strv *v, const char *s);

#endif
