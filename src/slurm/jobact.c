#include "jobact.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"
#include "util.h"

const char *
jobact_word(enum jobact_kind k)
{
	switch (k) {
	case JOBACT_HOLD:
		return "hold";
	case JOBACT_RELEASE:
		return "release";
	case JOBACT_REQUEUE:
		return "requeue";
	case JOBACT_SIGNAL:
		return "signal";
	case JOBACT_SIGNAL_BATCH:
		return "batch";
	case JOBACT_TIME:
		return "time";
	}
	return "?";
}

/* The names scancel knows (kill -l's, without SIG). */
static const char *const signames[] = {
	"HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM", "USR1", "USR2",
	"CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
	"VTALRM", "PROF", "WINCH", "PIPE", NULL
};

int
jobact_signal(const char *s, char **out, char **cause)
{
	const char	*p = s;
	char		*end;
	long		 n;
	size_t		 i;

	*out = NULL;
	if (s == NULL || *s == '\0')
		return cause_set(cause, "no signal given: name one, e.g. USR1");
	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		if (*end != '\0' || n < 1 || n > 64)
			return cause_set(cause, "'%s' is not a signal number "
			    "(1 to 64)", s);
		*out = xasprintf("%ld", n);
		return 0;
	}
	if (strncasecmp(p, "SIG", 3) == 0)
		p += 3;
	for (i = 0; signames[i] != NULL; i++) {
		if (strcasecmp(p, signames[i]) == 0) {
			*out = xstrdup(signames[i]);
			return 0;
		}
	}
	return cause_set(cause, "unknown signal '%.32s': give a name such as "
	    "USR1, USR2, TERM, INT or a number", s);
}

/* n digits at most, at least one; *pp moves past them. */
static int
time_digits(const char **pp, int max)
{
	int	n = 0;

	while (isdigit((unsigned char)**pp) && n < max)
		(*pp)++, n++;
	return n > 0 && !isdigit((unsigned char)**pp);
}

int
jobact_time(const char *s, char **cause)
{
	const char	*p = s;
	int		 parts = 1, day = 0;

	if (s == NULL || *s == '\0')
		return cause_set(cause, "no time limit given: e.g. 30 "
		    "(minutes), 1:30:00 or 1-00:00:00");
	if (!time_digits(&p, 7))
		goto bad;
	if (*p == '-') {
		day = 1;
		p++;
		if (!time_digits(&p, 2))
			goto bad;
	}
	while (*p == ':' && parts < 3) {
		p++;
		if (!time_digits(&p, 2))
			goto bad;
		parts++;
	}
	if (*p != '\0' || (day && parts > 3))
		goto bad;
	return 0;
bad:
	return cause_set(cause, "'%.32s' is not a time limit: give minutes "
	    "(30), MM:SS, HH:MM:SS or D-HH:MM:SS", s);
}

static void
row_free(struct jobact_row *r)
{
	free(r->id);
	free(r->words);
}

void
jobact_free(struct jobact_reply *r)
{
	size_t	i;

	for (i = 0; i < r->n; i++)
		row_free(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* One "ID<TAB>RC<TAB>WORDS" line (without its newline). */
static int
parse_row(const char *line, size_t len, struct jobact_row *row)
{
	const char	*t1, *t2, *end = line + len;
	char		*num, *e;
	long		 rc;

	if ((t1 = memchr(line, '\t', len)) == NULL || t1 == line)
		return -1;
	if ((t2 = memchr(t1 + 1, '\t', (size_t)(end - t1 - 1))) == NULL)
		return -1;
	num = xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
	rc = strtol(num, &e, 10);
	if (*num == '\0' || *e != '\0' || rc < 0 || rc > 255) {
		free(num);
		return -1;
	}
	free(num);
	row->id = text_sanitize(line, (size_t)(t1 - line), 0, NULL);
	row->rc = (int)rc;
	row->words = text_sanitize(t2 + 1, (size_t)(end - t2 - 1), 0, NULL);
	str_trim(row->words);
	return 0;
}

int
jobact_parse(const char *s, struct jobact_reply *r, char **cause)
{
	const char	*nl;
	size_t		 len;

	memset(r, 0, sizeof *r);
	while (s != NULL && *s != '\0') {
		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if (len != 0) {
			r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
			if (parse_row(s, len, &r->v[r->n]) != 0) {
				jobact_free(r);
				return cause_set(cause, "the cluster answered "
				    "unexpectedly: '%.60s'", s);
			}
			r->n++;
		}
		s = nl != NULL ? nl + 1 : s + len;
	}
	return 0;
}

char *
jobact_explain(enum jobact_kind k, const char *id, const char *words)
{
	const char	*w = words != NULL && *words != '\0' ? words :
			    "no message";

	if (k == JOBACT_TIME && strstr(w, "Access/permission denied") != NULL)
		return xasprintf("%s: SLURM lets users only lower a job's "
		    "time limit, not raise it: the limit was not changed "
		    "(an administrator can raise it) [%s]", id, w);
	if (strstr(w, "Invalid job id") != NULL)
		return xasprintf("%s: SLURM has no such job (it ended and "
		    "SLURM forgot it, or the id is wrong) [%s]", id, w);
	if (k == JOBACT_REQUEUE && strstr(w, "pending execution") != NULL)
		return xasprintf("%s: it is still pending: only a running or "
		    "ended batch job can be requeued [%s]", id, w);
	if (strstr(w, "already completed") != NULL ||
	    strstr(w, "Job/step already completing or completed") != NULL)
		return xasprintf("%s: it has already ended [%s]", id, w);
	return xasprintf("%s: scontrol/scancel refused: %s", id, w);
}
