/* Small tests and parses of strings (str.h). */
#include "str.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int
str_bool(const char *s, int *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t	i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

int
str_has_control(const char *s, int allow_newline)
{
	for (; *s != '\0'; s++) {
		if (allow_newline && (*s == '\n' || *s == '\t'))
			continue;
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	}
	return 0;
}

int
str_blank(const char *s)
{
	return str_blank_n(s, strlen(s));
}

int
str_blank_n(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (!isspace((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

long
str_digits_n(const char *s, size_t n)
{
	long	v = 0;
	size_t	i;

	if (n == 0 || n > 9)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

long
str_number(const char **pp, long max)
{
	const char	*p = *pp;
	long		 v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		/* Checked before it grows: no overflow whatever max is. */
		if (v > max / 10 || v * 10 > max - (*p - '0'))
			return -1;
		v = v * 10 + (*p - '0');
	}
	*pp = p;
	return v;
}

int
strv_has(const struct strv *v, const char *s)
{
	size_t	i;

	for (i = 0; i < v->n; i++) {
		if (strcmp(v->v[i], s) == 0)
			return 1;
	}
	return 0;
}

char *
str_escape_controls(const char *s)
{
	struct buf	 b;
	unsigned char	 c;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c >= 0x20 && c != 0x7f) {
			buf_add(&b, s, 1);
			continue;
		}
		switch (c) {
		case '\n':
			buf_adds(&b, "\\n");
			break;
		case '\r':
			buf_adds(&b, "\\r");
			break;
		case '\t':
			buf_adds(&b, "\\t");
			break;
		case 0x1b:
			buf_adds(&b, "\\e");
			break;
		default:
			buf_printf(&b, "\\x%02x", c);
			break;
		}
	}
	return buf_steal(&b);
}

/* FNV-1a: short values, few of them; any spread will do. */
static size_t
strset_hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

const char *
strset_intern(struct strset *set, const char *s,
    const char *(*copy)(void *, const char *), void *arg)
{
	const char	**old;
	size_t		  i, k, aold;

	if (set->n * 2 >= set->a) {
		old = set->v;
		aold = set->a;
		set->a = aold ? aold * 2 : 64;
		set->v = xcalloc(set->a, sizeof *set->v);
		for (i = 0; i < aold; i++) {
			if (old[i] == NULL)
				continue;
			k = strset_hash(old[i]) & (set->a - 1);
			while (set->v[k] != NULL)
				k = (k + 1) & (set->a - 1);
			set->v[k] = old[i];
		}
		free(old);
	}
	k = strset_hash(s) & (set->a - 1);
	for (; set->v[k] != NULL; k = (k + 1) & (set->a - 1)) {
		if (strcmp(set->v[k], s) == 0)
			return set->v[k];
	}
	set->v[k] = copy(arg, s);
	set->n++;
	return set->v[k];
}

void
strset_free(struct strset *set)
{
	free(set->v);
	memset(set, 0, sizeof *set);
}

size_t
strset_bytes(const struct strset *set)
{
	return set->a * sizeof *set->v;
}
