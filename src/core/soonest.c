#include "soonest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

char *
soonest_cmd(const struct plan *const *plans, size_t n, const char *marker,
    char **cause)
{
	struct buf		 b;
	const struct plan	*p;
	size_t			 i;

	if (n == 0) {
		cause_set(cause, "no partition fits the request");
		return NULL;
	}
	if (n > SOONEST_MAX)
		n = SOONEST_MAX;
	buf_init(&b);
	for (i = 0; i < n; i++) {
		p = plans[i];
		buf_adds(&b, "printf '%s %s\\n' ");
		buf_add_quoted(&b, marker);
		buf_adds(&b, " ");
		buf_add_quoted(&b, p->partition);
		buf_adds(&b, "\nsbatch --test-only -J sqdeck-test-only -p ");
		buf_add_quoted(&b, p->partition);
		buf_printf(&b, " -N %d -c %d -t %s", p->nodes,
		    p->cpus_per_task, p->time_str);
		if (p->gpus_per_node > 0)
			buf_printf(&b, " --gres=gpu:%d", p->gpus_per_node);
		if (p->exclusive)
			buf_adds(&b, " --exclusive");
		if (p->account != NULL) {
			buf_adds(&b, " -A ");
			buf_add_quoted(&b, p->account);
		}
		buf_adds(&b, " --wrap true 2>&1 </dev/null\n");
	}
	return buf_steal(&b);
}

static void
try_parse(struct soonest_try *t, const char *s, size_t len)
{
	char		*text = xstrndup(s, len), *p, *e;
	struct tm	 tm;

	if ((p = strstr(text, " to start at ")) != NULL) {
		p += strlen(" to start at ");
		e = p + strcspn(p, " \n");
		t->start = xstrndup(p, (size_t)(e - p));
		memset(&tm, 0, sizeof tm);
		tm.tm_isdst = -1;
		if (sscanf(t->start, "%d-%d-%dT%d:%d:%d", &tm.tm_year,
		    &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		    &tm.tm_sec) == 6) {
			tm.tm_year -= 1900;
			tm.tm_mon--;
			t->when = mktime(&tm);
		}
	} else {
		/* "sbatch: error: Batch job submission failed: ..." */
		if ((p = strstr(text, "error: ")) != NULL) {
			p += strlen("error: ");
			if (strncmp(p, "Batch job submission failed: ",
			    29) == 0)
				p += 29;
		} else
			p = text;
		str_trim(p);
		p[strcspn(p, "\n")] = '\0';
		t->error = xstrdup(*p != '\0' ? p : "no answer");
	}
	free(text);
}

int
soonest_parse(const char *text, const char *marker, struct soonest *so,
    char **cause)
{
	const char	*p, *next, *nl;
	size_t		 mlen = strlen(marker);
	struct soonest_try *t;

	memset(so, 0, sizeof *so);
	p = strstr(text, marker);
	if (p == NULL)
		return cause_set(cause, "sbatch --test-only: no answer");
	while (p != NULL) {
		p += mlen;
		if (*p == ' ')
			p++;
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		next = strstr(nl, marker);
		so->v = xrealloc(so->v, (so->n + 1) * sizeof *so->v);
		t = &so->v[so->n++];
		memset(t, 0, sizeof *t);
		t->partition = xstrndup(p, (size_t)(nl - p));
		try_parse(t, nl + 1, next != NULL ? (size_t)(next - nl - 1) :
		    strlen(nl + 1));
		p = next;
	}
	return 0;
}

void
soonest_free(struct soonest *so)
{
	size_t	i;

	for (i = 0; i < so->n; i++) {
		free(so->v[i].partition);
		free(so->v[i].start);
		free(so->v[i].error);
	}
	free(so->v);
	memset(so, 0, sizeof *so);
}

static int
try_cmp(const void *pa, const void *pb)
{
	const struct soonest_try	*a = pa, *b = pb;

	/* Estimates first, earliest first; refusals last, as they came. */
	if ((a->start == NULL) != (b->start == NULL))
		return a->start == NULL ? 1 : -1;
	if (a->start == NULL)
		return 0;
	if (a->when != b->when)
		return a->when < b->when ? -1 : 1;
	return strcmp(a->partition, b->partition);
}

char *
soonest_text(const struct soonest *so, time_t now)
{
	struct soonest_try	*v;
	struct buf		 b;
	struct tm		 tm;
	char			 hm[16];
	size_t			 i;

	if (so->n == 0)
		return NULL;
	v = xcalloc(so->n, sizeof *v);
	memcpy(v, so->v, so->n * sizeof *v);
	qsort(v, so->n, sizeof *v, try_cmp);
	buf_init(&b);
	buf_adds(&b, "soonest start (sbatch --test-only):");
	for (i = 0; i < so->n; i++) {
		buf_printf(&b, "%s %s", i ? ";" : "", v[i].partition);
		if (v[i].start == NULL) {
			buf_printf(&b, ": %s", v[i].error);
			continue;
		}
		if (v[i].when != 0) {
			localtime_r(&v[i].when, &tm);
			strftime(hm, sizeof hm, "%H:%M", &tm);
		} else
			snprintf(hm, sizeof hm, "%s", v[i].start);
		if (v[i].when != 0 && v[i].when <= now + 60)
			buf_printf(&b, " now (%s)", hm);
		else
			buf_printf(&b, " at %s", hm);
	}
	free(v);
	return buf_steal(&b);
}
