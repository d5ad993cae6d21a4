#include "gres.h"

#include <stdlib.h>
#include <string.h>

#include "slurm.h"
#include "util.h"

#define GRES_SEP	'\037'
#define GRES_NFIELDS	5

char *
gres_cmd(void)
{
	static const char *fields[GRES_NFIELDS] = {
		"PartitionName", "NodeHost", "StateCompact", "Gres", "GresUsed"
	};
	struct buf	b;
	char		sep[2] = { GRES_SEP, '\0' };
	size_t		i;

	/* -O "field:0<sep>": no padding, our separator after each field. */
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SINFO));
	buf_adds(&b, "sinfo -h -N -O ");
	for (i = 0; i < GRES_NFIELDS; i++) {
		char *f = xasprintf("%s:0%s", fields[i],
		    i + 1 < GRES_NFIELDS ? sep : "");

		buf_adds(&b, i ? "," : "");
		buf_add_quoted(&b, f);
		free(f);
	}
	return buf_steal(&b);
}

int
gres_gpus(const char *s)
{
	const char	*p = s, *end, *colon, *num;
	char		*e;
	long		 v;
	int		 total = 0, depth;

	if (s == NULL)
		return -1;
	while (*p != '\0') {
		/* One item runs to a ',' outside parentheses. */
		for (end = p, depth = 0; *end != '\0'; end++) {
			if (*end == '(')
				depth++;
			else if (*end == ')')
				depth--;
			else if (*end == ',' && depth == 0)
				break;
		}
		if (strncmp(p, "gpu", 3) == 0 && (p[3] == ':' ||
		    p[3] == '(' || p + 3 == end)) {
			/* The count is after the last ':' outside
			   parentheses ("gpu:(null):2(IDX:0-1)"). */
			num = NULL;
			for (colon = p, depth = 0; colon < end; colon++) {
				if (*colon == '(')
					depth++;
				else if (*colon == ')')
					depth--;
				else if (*colon == ':' && depth == 0)
					num = colon + 1;
			}
			if (num == NULL)
				v = 1;
			else {
				v = strtol(num, &e, 10);
				if (e == num || (e < end && *e != '('))
					return -1;
			}
			total += (int)v;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return total;
}

static int
usable(const char *state)
{
	static const char *bad[] = {
		"down", "drain", "drng", "fail", "maint", "boot", "futr",
		"unk", "npc", "inval", "pow"
	};
	size_t	i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (strncmp(state, bad[i], strlen(bad[i])) == 0)
			return 0;
	}
	/* "idle*", "mix*": not responding. */
	return strchr(state, '*') == NULL;
}

int
gres_parse(const char *text, struct gres_parts *gp, char **cause)
{
	char	*copy, *line, *next, *f[GRES_NFIELDS], *p;
	size_t	 i, k, lineno = 0, bad = 0, first = 0;
	int	 total, used;

	copy = xstrdup(text != NULL ? text : "");
	for (line = copy; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		line = str_trim(line);
		if (*line == '\0')
			continue;
		f[0] = line;
		for (i = 1, p = line; i < GRES_NFIELDS; i++) {
			if ((p = strchr(p, GRES_SEP)) == NULL)
				break;
			*p++ = '\0';
			f[i] = p;
		}
		if (i < GRES_NFIELDS || strchr(f[GRES_NFIELDS - 1],
		    GRES_SEP) != NULL || *f[0] == '\0' ||
		    (total = gres_gpus(f[3])) < 0 ||
		    (used = gres_gpus(f[4])) < 0) {
			if (bad++ == 0)
				first = lineno;
			continue;
		}
		/* The default partition is printed with a '*'. */
		if ((p = strchr(f[0], '*')) != NULL)
			*p = '\0';
		for (k = 0; k < gp->n && strcmp(gp->v[k].name, f[0]); k++)
			;
		if (k == gp->n) {
			gp->v = xrealloc(gp->v, (gp->n + 1) * sizeof *gp->v);
			memset(&gp->v[k], 0, sizeof gp->v[k]);
			gp->v[k].name = xstrdup(f[0]);
			gp->n++;
		}
		gp->v[k].total += total;
		if (usable(f[2]) && total > used)
			gp->v[k].idle += total - used;
	}
	free(copy);
	if (bad != 0)
		return cause_set(cause, "sinfo GRES: %zu line(s) not "
		    "understood, first at line %zu", bad, first);
	return 0;
}

void
gres_free(struct gres_parts *gp)
{
	size_t	i;

	for (i = 0; i < gp->n; i++)
		free(gp->v[i].name);
	free(gp->v);
	memset(gp, 0, sizeof *gp);
}
