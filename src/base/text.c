/* The one sanitiser for untrusted text (see text.h). */
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util.h"

size_t
text_decode(const char *s, size_t len, int32_t *cp)
{
	const unsigned char	*u = (const unsigned char *)s;
	int32_t			 c, min;
	size_t			 n, i;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		c = u[0] & 0x1f;
		min = 0x80;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		c = u[0] & 0x0f;
		min = 0x800;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		c = u[0] & 0x07;
		min = 0x10000;
	} else
		goto bad;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	if (len < n)
		goto bad;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return n;
bad:
	*cp = -1;
	return 1;
}

int
text_cpwidth(int32_t cp)
{
	int	w;

	if (cp < 0)
		return 1;
	w = wcwidth((wchar_t)cp);
	if (w < 0)
		return 1;
	return w > 2 ? 2 : w;
}

size_t
text_fit(const char *s, size_t cells, size_t *used)
{
	size_t	len = strlen(s), i = 0, w = 0, n;
	int32_t	cp;
	int	cw;

	while (i < len) {
		n = text_decode(s + i, len - i, &cp);
		cw = text_cpwidth(cp);
		if (w + (size_t)cw > cells)
			break;
		w += (size_t)cw;
		i += n;
	}
	if (used != NULL)
		*used = w;
	return i;
}

size_t
text_width(const char *s)
{
	size_t	w;

	text_fit(s, (size_t)-1, &w);
	return w;
}

/* Code points that must not reach the terminal. */
static int
cp_unsafe(int32_t cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
		return 1;
	/* Bidi embeddings, overrides and isolates reorder what follows. */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 1;
	/* Non-printable in a UTF-8 locale (unassigned, format, ...). */
	if (cp >= 0x80 && MB_CUR_MAX > 1 && wcwidth((wchar_t)cp) < 0)
		return 1;
	return 0;
}

/* Length of the escape sequence at s[0] == ESC (all of it, up to len). */
static size_t
escape_len(const unsigned char *s, size_t len)
{
	size_t	i;

	if (len < 2)
		return len;
	switch (s[1]) {
	case '[':	/* CSI: parameters, intermediates, one final byte */
		for (i = 2; i < len; i++) {
			if (s[i] >= 0x40 && s[i] <= 0x7e)
				return i + 1;
			if (s[i] < 0x20 || s[i] > 0x3f)
				return i;	/* broken: stop here */
		}
		return len;
	case ']':	/* OSC, DCS, SOS, PM, APC: a string up to BEL or ST */
	case 'P':
	case 'X':
	case '^':
	case '_':
		for (i = 2; i < len; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == 0x1b && i + 1 < len && s[i + 1] == '\\')
				return i + 2;
		}
		return len;
	default:	/* ESC x, e.g. ESC c (reset) or ESC ( B */
		if ((s[1] == '(' || s[1] == ')' || s[1] == '#') && len > 2)
			return 3;
		return 2;
	}
}

char *
text_sanitize(const char *in, size_t len, int flags, size_t *outlen)
{
	const unsigned char	*s = (const unsigned char *)in;
	struct buf		 b;
	size_t			 i, n, line = 0;
	int32_t			 cp;
	int			 col = 0;

	buf_init(&b);
	buf_add(&b, "", 0);	/* data is never NULL below */
	for (i = 0; i < len; i += n) {
		n = 1;
		switch (s[i]) {
		case 0x1b:
			n = escape_len(s + i, len - i);
			continue;
		case '\t':
			if (flags & TEXT_TABS) {
				buf_add(&b, "\t", 1);
				col = (col / 8 + 1) * 8;
				continue;
			}
			do
				buf_add(&b, " ", 1);
			while (++col % 8 != 0);
			continue;
		case '\n':
			if (flags & (TEXT_MULTILINE | TEXT_CR_LINES)) {
				buf_add(&b, "\n", 1);
				line = b.len;
				col = 0;
			} else {
				buf_add(&b, " ", 1);
				col++;
			}
			continue;
		case '\r':
			if (i + 1 < len && s[i + 1] == '\n')
				continue;
			if (flags & TEXT_MULTILINE) {
				/* Progress bars redraw their line: keep the last. */
				b.len = line;
				b.data[b.len] = '\0';
			} else if (flags & TEXT_CR_LINES) {
				/* ... or show each state on its own line. */
				buf_add(&b, "\n", 1);
				line = b.len;
			} else {
				buf_add(&b, " ", 1);
				col++;
				continue;
			}
			col = 0;
			continue;
		}
		n = text_decode(in + i, len - i, &cp);
		if (cp < 0 || cp_unsafe(cp)) {
			buf_adds(&b, TEXT_REPLACEMENT);
			col++;
			continue;
		}
		buf_add(&b, in + i, n);
		col += text_cpwidth(cp);
	}
	if (outlen != NULL)
		*outlen = b.len;
	return buf_steal(&b);
}

int
text_utf8_valid(const char *s, size_t len)
{
	size_t	i, n;
	int32_t	cp;

	for (i = 0; i < len; i += n) {
		n = text_decode(s + i, len - i, &cp);
		if (cp < 0)
			return 0;
	}
	return 1;
}

char *
text_utf8(const char *s, size_t len, size_t *outlen)
{
	struct buf	b;
	size_t		i, n;
	int32_t		cp;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < len; i += n) {
		n = text_decode(s + i, len - i, &cp);
		if (cp < 0)
			buf_adds(&b, TEXT_REPLACEMENT);
		else
			buf_add(&b, s + i, n);
	}
	if (outlen != NULL)
		*outlen = b.len;
	return buf_steal(&b);
}

size_t
text_tail_start(const char *s, size_t len, long n)
{
	size_t	i = len;
	long	ends = 0;

	if (n <= 0)
		return len;
	/* The last line's own end does not count. */
	if (i > 0 && s[i - 1] == '\n')
		i--;
	if (i > 0 && s[i - 1] == '\r')
		i--;
	while (i > 0) {
		if (s[i - 1] == '\n' || s[i - 1] == '\r') {
			if (++ends == n)
				return i;
			/* \r\n is one end. */
			if (s[i - 1] == '\n' && i > 1 && s[i - 2] == '\r')
				i--;
		}
		i--;
	}
	return 0;
}
