#include "gpuuse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

/*
 * One number cell: "35", "35 %" or "1234 MiB" (without nounits); "[N/A]"
 * and "[Not Supported]" (nvidia-smi's words for a value a GPU does not
 * report) give -1.  0, or -1 when the cell is neither.
 */
int
gpuuse_cell(const char *s, size_t len, long *out)
{
	char	*c = xstrndup(s, len), *end;
	long	 n;
	int	 rc = 0;

	str_trim(c);
	*out = -1;
	if (*c == '[' && c[strlen(c) - 1] == ']')
		goto out;
	if (!isdigit((unsigned char)*c)) {
		rc = -1;
		goto out;
	}
	n = strtol(c, &end, 10);
	while (*end == ' ')
		end++;
	if (*end != '\0' && strcmp(end, "%") != 0 && strcmp(end, "MiB") != 0)
		rc = -1;
	else
		*out = n;
out:
	free(c);
	return rc;
}

void
gpuuse_row_free(struct gpuuse_row *r)
{
	free(r->node);
	free(r->name);
	memset(r, 0, sizeof *r);
}

int
gpuuse_parse_line(const char *line, int with_node, struct gpuuse_row *r)
{
	const char	*f[6], *p = line;
	size_t		 len[6];
	long		 idx, util;
	int		 i, n = with_node ? 6 : 5, base = with_node ? 1 : 0;

	memset(r, 0, sizeof *r);
	for (i = 0; i < n; i++) {
		f[i] = p;
		/* The name may hold a comma: the numbers are the last three. */
		if (i == base + 1) {
			const char *q = p + strlen(p);
			int	    k;

			for (k = 0; k < 3 && q > p; q--)
				if (q[-1] == ',' && ++k == 3)
					break;
			if (k < 3)
				return -1;
			len[i] = (size_t)(q - 1 - p);
			p = q;
			continue;
		}
		len[i] = i == n - 1 ? strcspn(p, "\r\n") : strcspn(p, ",");
		if (i < n - 1 && p[len[i]] != ',')
			return -1;
		p += len[i] + 1;
	}
	if (gpuuse_cell(f[base], len[base], &idx) != 0 || idx < 0 ||
	    gpuuse_cell(f[base + 2], len[base + 2], &util) != 0 ||
	    gpuuse_cell(f[base + 3], len[base + 3], &r->used) != 0 ||
	    gpuuse_cell(f[base + 4], len[base + 4], &r->total) != 0)
		return -1;
	r->index = (int)idx;
	r->util = util > 100 ? -1 : (int)util;
	r->name = text_sanitize(f[base + 1], len[base + 1], 0, NULL);
	str_trim(r->name);
	if (with_node) {
		r->node = text_sanitize(f[0], len[0], 0, NULL);
		str_trim(r->node);
	}
	return 0;
}

void
gpuuse_free(struct gpuuse_reply *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++)
		gpuuse_row_free(&g->v[i]);
	free(g->v);
	for (i = 0; i < g->nmissing; i++)
		free(g->missing[i]);
	free(g->missing);
	free(g->state);
	free(g->said);
	memset(g, 0, sizeof *g);
}

/* A line of the steps' output: a GPU, a node without nvidia-smi, or
   words kept for the user. */
static void
parse_step_line(struct gpuuse_reply *g, const char *line, size_t len,
    struct buf *said)
{
	struct gpuuse_row	 r;
	char			*l = xstrndup(line, len), *s;
	size_t			 n;

	n = strlen(l);
	if (n > 3 && strcmp(l + n - 3, ", -") == 0 &&
	    memchr(l, ',', n - 3) == NULL) {
		g->missing = xrealloc(g->missing, (g->nmissing + 1) *
		    sizeof *g->missing);
		g->missing[g->nmissing] = text_sanitize(l, n - 3, 0, NULL);
		str_trim(g->missing[g->nmissing++]);
	} else if (gpuuse_parse_line(l, 1, &r) == 0) {
		g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
		g->v[g->n++] = r;
	} else if (*str_trim(l) != '\0' && said->len < 2048) {
		s = text_sanitize(l, strlen(l), 0, NULL);
		buf_printf(said, "%s%s", said->len != 0 ? "; " : "", s);
		free(s);
	}
	free(l);
}

int
gpuuse_parse(const char *out, struct gpuuse_reply *g, char **cause)
{
	const char	*p = out, *nl;
	struct buf	 said;
	size_t		 len;
	char		*e;

	memset(g, 0, sizeof *g);
	if (out == NULL || strncmp(out, "state ", 6) != 0)
		return cause_set(cause, "the cluster answered unexpectedly: "
		    "'%.60s'", out != NULL ? out : "");
	len = strcspn(out + 6, "\n");
	g->state = text_sanitize(out + 6, len, 0, NULL);
	str_trim(g->state);
	/* "RUNNING 2": the state, then its number of nodes. */
	g->state[strcspn(g->state, " ")] = '\0';
	g->running = strcmp(g->state, "RUNNING") == 0;
	p = out + 6 + len;
	g->rc = -1;
	if (*p == '\n' && strncmp(p + 1, "rc ", 3) == 0) {
		g->rc = (int)strtol(p + 4, &e, 10);
		p = e;
	}
	buf_init(&said);
	while (*p != '\0') {
		if (*p == '\n') {
			p++;
			continue;
		}
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		parse_step_line(g, p, len, &said);
		p += len;
	}
	if (said.len != 0) {
		buf_add(&said, "", 0);
		g->said = xstrdup(said.data);
	}
	buf_free(&said);
	return 0;
}

char *
gpuuse_text(const struct gpuuse_reply *g)
{
	struct buf	b;
	size_t		i;
	char		u[16], m[96];

	buf_init(&b);
	if (!g->running)
		buf_printf(&b, "not running (%s): GPU use is asked of a "
		    "running job only\n", *g->state != '\0' ? g->state :
		    "SLURM no longer lists it");
	for (i = 0; i < g->n; i++) {
		const struct gpuuse_row	*r = &g->v[i];

		if (r->util >= 0)
			snprintf(u, sizeof u, "%d%%", r->util);
		else
			snprintf(u, sizeof u, "n/a");
		if (r->used >= 0 && r->total > 0)
			snprintf(m, sizeof m, "%ld/%ld MiB (%ld%%)", r->used,
			    r->total, r->used * 100 / r->total);
		else
			snprintf(m, sizeof m, "n/a");
		buf_printf(&b, "%s GPU %d %s: util %s, memory %s\n",
		    r->node != NULL ? r->node : "?", r->index, r->name, u, m);
	}
	for (i = 0; i < g->nmissing; i++)
		buf_printf(&b, "%s: no nvidia-smi on this node: its GPU use "
		    "cannot be read\n", g->missing[i]);
	if (g->running && g->n == 0 && g->nmissing == 0)
		buf_printf(&b, "no GPU answered (srun exit %d)%s%s\n", g->rc,
		    g->said != NULL ? ": " : "", g->said != NULL ? g->said :
		    "");
	else if (g->said != NULL)
		buf_printf(&b, "also said: %s\n", g->said);
	buf_add(&b, "", 0);
	return b.data;
}
