/*
 * The batched reply of the scripts that ask several things in one round
 * trip (remote.h): the marker, the prelude that defines sec(), and the
 * cutting of a reply into its sections.
 */
#include "remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh.h"

int
remote_marker(char *buf, size_t len)
{
	unsigned char	rnd[8];
	size_t		i;

	if (len < 2 * sizeof rnd + 4)
		return -1;
	random_bytes(rnd, sizeof rnd);
	memcpy(buf, "SDM", 3);
	for (i = 0; i < sizeof rnd; i++)
		snprintf(buf + 3 + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

void
remote_reply_prelude(struct buf *b, const char *marker)
{
	rsh_var(b, "N", marker);
	rsh_embed(b, "lib-sec.sh");
}

int
remote_reply_parse(const char *text, size_t len, const char *marker,
    const char *what, struct remote_reply *rep, char **cause)
{
	struct remote_section	*s = NULL;
	const char		*p = text, *end = text + len, *hit, *eol;
	const char		*q;
	char			*pat;
	size_t			 plen, i;

	memset(rep, 0, sizeof *rep);
	pat = xasprintf("\n%s ", marker);
	plen = strlen(pat);
	for (;;) {
		hit = memmem(p, (size_t)(end - p), pat, plen);
		if (s != NULL) {
			/* The data ends where the next marker's "\n" is (that
			   "\n" may also end the header line: no data). */
			q = hit != NULL ? hit : end;
			s->len = q > s->data ? (size_t)(q - s->data) : 0;
		}
		if (hit == NULL)
			break;
		eol = memchr(hit + plen, '\n', (size_t)(end - hit - plen));
		if (eol == NULL)
			eol = end;
		rep->v = xrealloc(rep->v, (rep->n + 1) * sizeof *rep->v);
		s = &rep->v[rep->n++];
		memset(s, 0, sizeof *s);
		q = hit + plen;
		for (i = 0; q < eol && *q != ' ' && i + 1 < sizeof s->kind; i++)
			s->kind[i] = *q++;
		if (q < eol && *q == ' ')
			q++;
		for (i = 0; q < eol && i + 1 < sizeof s->arg; i++)
			s->arg[i] = *q++;
		s->data = eol < end ? eol + 1 : end;
		if (strcmp(s->kind, "end") == 0)
			rep->complete = 1;
		p = eol;
	}
	free(pat);
	if (rep->n == 0)
		return cause_set(cause, "%s script printed none of its "
		    "sections (is /bin/sh on the login node a POSIX shell?)",
		    what != NULL ? what : "the remote");
	return 0;
}

const struct remote_section *
remote_reply_find(const struct remote_reply *rep, const char *kind,
    const char *arg)
{
	size_t	i;

	for (i = 0; i < rep->n; i++) {
		if (strcmp(rep->v[i].kind, kind) == 0 &&
		    (arg == NULL || strcmp(rep->v[i].arg, arg) == 0))
			return &rep->v[i];
	}
	return NULL;
}

char *
remote_reply_text(const struct remote_reply *rep, const char *kind,
    const char *arg)
{
	const struct remote_section	*s;

	if ((s = remote_reply_find(rep, kind, arg)) == NULL)
		return NULL;
	return xstrndup(s->data, s->len);
}

void
remote_reply_free(struct remote_reply *rep)
{
	free(rep->v);
	memset(rep, 0, sizeof *rep);
}
