#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobid.h"
#include "slurm.h"
#include "util.h"

#define HISTORY_NFIELDS	10
/* Ended states only: the queue shows the others. */
#define HISTORY_STATES	"CD,F,CA,TO,NF,OOM,PR,BF,DL"

char *
history_cmd(const char *user, int days, time_t now, const char *sep,
    char **cause)
{
	struct buf	 b;
	struct tm	 tm;
	char		 since[16];
	const char	*p;
	time_t		 t;

	if (days <= 0)
		days = HISTORY_DAYS;
	if (user != NULL) {
		for (p = user; *p != '\0'; p++) {
			if ((unsigned char)*p < 0x21 || *p == ',' ||
			    *p == 0x7f) {
				cause_set(cause, "history: user name '%s' has "
				    "a space, comma or control character",
				    user);
				return NULL;
			}
		}
		if (*user == '\0' || *user == '-') {
			cause_set(cause, "history: bad user name '%s'", user);
			return NULL;
		}
	}
	/* A day more, in UTC: any cluster time zone is covered. */
	t = now - (time_t)(days + 1) * 24 * 60 * 60;
	gmtime_r(&t, &tm);
	strftime(since, sizeof since, "%Y-%m-%d", &tm);

	buf_init(&b);
	/* -p: the separator after every field, the last one too. */
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SACCT));
	buf_adds(&b, "sacct -X -n -p --delimiter=");
	buf_add_quoted(&b, sep);
	buf_adds(&b, " -S ");
	buf_add_quoted(&b, since);
	buf_adds(&b, " -E now -s " HISTORY_STATES " -o ");
	for (p = HISTORY_FIELDS; *p != '\0'; p++)
		buf_printf(&b, "%c", *p == ' ' ? ',' : *p);
	if (user != NULL) {
		buf_adds(&b, " -u ");
		buf_add_quoted(&b, user);
	}
	return buf_steal(&b);
}

static long
number(const char *s)
{
	char	*end;
	long	 v;

	if (*s == '\0')
		return -1;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 0 ? v : -1;
}

static int
history_row(char **f, struct history *h)
{
	struct history_job	*j;
	long			 raw;

	if ((raw = number(f[0])) <= 0 || *f[1] == '\0')
		return -1;
	/* Room for 16, then doubling: a week of history is thousands. */
	if (h->n == 0 || (h->n >= 16 && (h->n & (h->n - 1)) == 0))
		h->v = xrealloc(h->v, (h->n < 16 ? 16 : 2 * h->n) *
		    sizeof *h->v);
	j = &h->v[h->n++];
	memset(j, 0, sizeof *j);
	j->raw = raw;
	j->id = xstrdup(f[1]);
	j->state = xstrdup(f[2]);
	/* The same on every release: slurm_exit_parse(). */
	slurm_exit_parse(f[3], &j->exit_code, &j->exit_signal);
	j->elapsed = number(f[4]);
	/* TimelimitRaw is in minutes. */
	j->limit = number(f[5]);
	if (j->limit >= 0)
		j->limit *= 60;
	j->end = xstrdup(strcmp(f[6], "Unknown") == 0 ? "" : f[6]);
	j->partition = xstrdup(f[7]);
	j->workdir = xstrdup(f[8]);
	j->name = xstrdup(f[9]);
	return 0;
}

/*
 * strstr, but reading only up to the hit: a sanitizer build's strstr
 * measures the whole rest of the text on every call, and thousands of
 * history rows then took minutes to split.
 */
static char *
sep_find(char *p, const char *sep, size_t seplen)
{
	for (; (p = strchr(p, *sep)) != NULL; p++) {
		if (strncmp(p, sep, seplen) == 0)
			return p;
	}
	return NULL;
}

int
history_parse(const char *text, const char *sep, struct history *h,
    char **cause)
{
	char		*copy, *p, *hit, *f[HISTORY_NFIELDS];
	size_t		 seplen, nf = 0, row = 0, bad = 0, first = 0;

	if (sep == NULL || *sep == '\0')
		sep = SLURM_SEP_DEFAULT;
	seplen = strlen(sep);
	copy = xstrdup(text != NULL ? text : "");
	/* Fields end at sep; a row's first field starts after its "\n". */
	for (p = copy; (hit = sep_find(p, sep, seplen)) != NULL;
	    p = hit + seplen) {
		*hit = '\0';
		if (nf == 0) {
			while (*p == '\n' || *p == '\r' || *p == ' ')
				p++;
		}
		f[nf++] = p;
		if (nf < HISTORY_NFIELDS)
			continue;
		row++;
		if (history_row(f, h) != 0 && bad++ == 0)
			first = row;
		nf = 0;
	}
	/* What is left must be the last row's newline. */
	for (; *p != '\0'; p++) {
		if (*p != '\n' && *p != '\r' && *p != ' ') {
			if (bad++ == 0)
				first = row + 1;
			break;
		}
	}
	if (nf != 0 && bad++ == 0)
		first = row + 1;
	free(copy);
	if (bad != 0)
		return cause_set(cause, "sacct history: %zu row(s) not "
		    "understood, first: row %zu", bad, first);
	return 0;
}

void
history_free(struct history *h)
{
	size_t	i;

	for (i = 0; i < h->n; i++) {
		free(h->v[i].id);
		free(h->v[i].state);
		free(h->v[i].end);
		free(h->v[i].partition);
		free(h->v[i].workdir);
		free(h->v[i].name);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

char *
history_default_log(const struct history_job *j)
{
	struct jobid	 id;

	if (j->workdir == NULL || j->workdir[0] != '/')
		return NULL;
	/* An id that is not "N" or "N_M" (a never-started array) has none. */
	jobid_parse(j->id, &id);
	if (id.kind != JOBID_JOB && id.kind != JOBID_TASK)
		return NULL;
	return xasprintf("%s%sslurm-%s.out", j->workdir,
	    j->workdir[strlen(j->workdir) - 1] == '/' ? "" : "/", j->id);
}
