#ifndef TEXT_H
#define TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Untrusted text (cluster output, job names, logs, values from files) on
 * the way to a terminal or into JSON.  The ONE sanitiser: the TUI
 * (ui-text.c) and the verbs (ops.c) both call text_sanitize(), so what is
 * safe on one is safe on the other.  Pure code, no curses.
 */

#define TEXT_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* text_sanitize flags. */
#define TEXT_MULTILINE	0x1	/* keep \n; a lone \r rewinds the line */
#define TEXT_CR_LINES	0x2	/* keep \n; a lone \r starts a new line */
#define TEXT_TABS	0x4	/* keep \t as is (else spaces to a tab stop) */

/*
 * Make untrusted bytes safe to print: escape sequences (CSI, OSC, DCS and
 * two-byte ESC x) are removed whole; tabs become spaces to the next
 * multiple of 8 (TEXT_TABS: kept); \r\n becomes \n; every other control
 * character (C0, DEL, C1 as raw 8-bit bytes such as 0x9b or UTF-8 encoded
 * such as U+009B), bidi embeddings, overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069), non-printable code points (in a UTF-8 locale) and
 * invalid UTF-8 become U+FFFD.  Without TEXT_MULTILINE or TEXT_CR_LINES,
 * \n and \r become spaces.  Returns a new NUL-terminated string, its
 * length in *outlen (may be NULL).
 */
char	*text_sanitize(const char *, size_t, int flags, size_t *outlen);

/*
 * s as valid UTF-8: every byte that does not start a well-formed sequence
 * (overlong, surrogate, above U+10FFFF, cut off) becomes U+FFFD; nothing
 * else changes.  For JSON, whose strings must be UTF-8.  Returns a new
 * NUL-terminated string; *outlen may be NULL.
 */
char	*text_utf8(const char *, size_t, size_t *outlen);
/* 1 if the len bytes at s are valid UTF-8 (NUL bytes included). */
int	 text_utf8_valid(const char *, size_t);

/*
 * Decode one UTF-8 character of s (len bytes, len > 0); returns the bytes
 * used (at least 1) and the code point in *cp, or -1 if invalid
 * (overlong, surrogate, out of range, truncated).
 */
size_t	 text_decode(const char *s, size_t len, int32_t *cp);
/*
 * Where the last n lines of s start: \n, \r\n and a lone \r each end a
 * line (a progress bar's frames count as lines, as text_sanitize with
 * TEXT_CR_LINES shows them); an end at the very end starts no new line.
 * 0 when s has n lines or fewer.
 */
size_t	 text_tail_start(const char *s, size_t len, long n);
/* Columns of a code point: 0 (combining), 1 or 2 (wide); never < 0. */
int	 text_cpwidth(int32_t cp);
/*
 * Display cells of s (NUL-terminated UTF-8; an invalid byte counts one
 * cell, as the U+FFFD it would become): what a table pads by, not bytes.
 */
size_t	 text_width(const char *s);
/*
 * The bytes of the longest prefix of s that fits in cells columns, never
 * cutting a character; *used (may be NULL) gets its width.
 */
size_t	 text_fit(const char *s, size_t cells, size_t *used);

#endif
