#include "eff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"
#include "util.h"

#define EFF_SEP		'\037'
#define EFF_NFIELDS	9
#define EFF_NFIELDS_MIN	8	/* ExitCode came later: captures lack it */
#define GIB		(1024LL * 1024 * 1024)
#define MIB		(1024LL * 1024)

char *
eff_cmd(long id, char **cause)
{
	struct buf	 b;
	const char	*p;
	char		 sep[2] = { EFF_SEP, '\0' };

	if (id <= 0) {
		cause_set(cause, "efficiency: bad job id %ld", id);
		return NULL;
	}
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SACCT));
	buf_adds(&b, "sacct -n -P --delimiter=");
	buf_add_quoted(&b, sep);
	buf_printf(&b, " -j %ld -o ", id);
	for (p = EFF_FIELDS; *p != '\0'; p++)
		buf_printf(&b, "%c", *p == ' ' ? ',' : *p);
	return buf_steal(&b);
}

/* ExitCode as every release reads it (slurm_exit_parse()), NULL: none. */
static char *
eff_exit(const char *s)
{
	int	code, sig;

	if (*s == '\0')
		return NULL;
	slurm_exit_parse(s, &code, &sig);
	if (code < 0)
		return xstrdup(s);
	return xasprintf("%d:%d", code, sig);
}

long long
eff_size(const char *s)
{
	char		*end;
	double		 v;
	long long	 mult = 1;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	switch (*end) {
	case 'K': mult = 1024LL; end++; break;
	case 'M': mult = MIB; end++; break;
	case 'G': mult = GIB; end++; break;
	case 'T': mult = GIB * 1024; end++; break;
	case '\0': break;
	default: return -1;
	}
	/* SLURM before 21.08: per CPU (c) or per node (n). */
	if (*end == 'c' || *end == 'n')
		end++;
	if (*end != '\0')
		return -1;
	return (long long)(v * (double)mult);
}

double
eff_cpu_time(const char *s)
{
	double	 parts[3] = { 0, 0, 0 }, days = 0;
	int	 n = 0;
	char	*end;
	const char *p = s, *dash;

	if (s == NULL || *s == '\0')
		return -1;
	if ((dash = strchr(s, '-')) != NULL) {
		days = strtod(s, &end);
		if (end != dash)
			return -1;
		p = dash + 1;
	}
	for (;;) {
		if (n == 3)
			return -1;
		parts[n++] = strtod(p, &end);
		if (end == p)
			return -1;
		if (*end == '\0')
			break;
		if (*end != ':')
			return -1;
		p = end + 1;
	}
	/* MM:SS.mmm, or HH:MM:SS. */
	if (n == 1)
		return days * 86400 + parts[0];
	if (n == 2)
		return days * 86400 + parts[0] * 60 + parts[1];
	return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2];
}

static void
fmt_size(long long v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else if (v >= GIB)
		snprintf(buf, len, "%.1fG", (double)v / GIB);
	else if (v >= MIB)
		snprintf(buf, len, "%lldM", v / MIB);
	else
		snprintf(buf, len, "%lldK", v / 1024);
}

/* Far too large: at least 4 times the use and a real amount more. */
static void
make_hint(struct eff *e)
{
	struct buf	b;
	char		s[32];
	long		t;

	buf_init(&b);
	if (e->req_mem > 0 && e->peak_mem > 0 && e->req_mem >= 4 * e->peak_mem &&
	    e->req_mem - e->peak_mem >= GIB) {
		/* Half again the peak, in whole GiB. */
		long long want = (e->peak_mem * 3 / 2 + GIB - 1) / GIB;

		buf_printf(&b, "%s--mem=%lldG", b.len ? ", " : "", want);
	}
	if (e->limit > 0 && e->elapsed >= 0 && e->limit >= 4 * e->elapsed &&
	    e->limit - e->elapsed >= 600) {
		/* Twice the run, at least 10 minutes, in whole minutes. */
		t = e->elapsed * 2;
		if (t < 600)
			t = 600;
		t = (t + 59) / 60 * 60;
		slurm_time_format(t, s, sizeof s);
		buf_printf(&b, "%s--time=%s", b.len ? ", " : "", s);
	}
	if (e->cpus > 1 && e->cpu_pct >= 0 && e->cpu_pct < 25) {
		double	d = e->cpus * e->cpu_pct / 100.0 * 1.5;
		int	want = (int)d;

		if (want < d)
			want++;

		if (want < 1)
			want = 1;
		if (want < e->cpus)
			buf_printf(&b, "%s--cpus-per-task=%d", b.len ? ", " :
			    "", want);
	}
	if (b.len == 0) {
		buf_free(&b);
		return;
	}
	e->hint = xasprintf("the request was far larger than the use: the "
	    "next submit could ask for %s and start sooner", b.data);
	buf_free(&b);
}

int
eff_parse(const char *text, long id, struct eff *e, char **cause)
{
	char	*copy, *line, *next, *f[EFF_NFIELDS], *p, *dot;
	char	 want[32];
	size_t	 i;
	int	 found = 0;
	long long rss;
	double	 cpu_steps = 0;

	memset(e, 0, sizeof *e);
	e->elapsed = e->limit = -1;
	e->cpu_used = -1;
	e->req_mem = e->peak_mem = -1;
	e->cpu_pct = e->mem_pct = e->time_pct = -1;
	snprintf(want, sizeof want, "%ld", id);
	copy = xstrdup(text != NULL ? text : "");
	for (line = copy; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		f[0] = line;
		for (i = 1, p = line; i < EFF_NFIELDS; i++) {
			if ((p = strchr(p, EFF_SEP)) == NULL)
				break;
			*p++ = '\0';
			f[i] = p;
		}
		if (i < EFF_NFIELDS_MIN || strchr(f[i - 1], EFF_SEP))
			continue;
		/* "12" is the allocation; "12.batch", "12.0" its steps. */
		dot = strchr(f[0], '.');
		if (dot != NULL)
			*dot = '\0';
		if (strcmp(f[0], want) != 0)
			continue;
		rss = eff_size(f[7]);
		if (rss > e->peak_mem)
			e->peak_mem = rss;
		if (dot != NULL) {
			if (eff_cpu_time(f[5]) > 0)
				cpu_steps += eff_cpu_time(f[5]);
			continue;
		}
		found = 1;
		free(e->state);
		e->state = xstrdup(f[1]);
		e->cpus = atoi(f[2]);
		e->elapsed = *f[3] != '\0' ? atol(f[3]) : -1;
		e->limit = (*f[4] >= '0' && *f[4] <= '9') ? atol(f[4]) * 60 :
		    -1;
		/*
		 * 365 days is SLURM's stand-in for no limit: its backfill
		 * scheduler writes it into a job that asked for no time in
		 * a partition without MaxTime when it starts it (the main
		 * scheduler leaves UNLIMITED), so the same job reads
		 * either way.  Neither is a limit to measure against.
		 */
		if (e->limit == EFF_YEAR_MINUTES * 60)
			e->limit = -1;
		e->cpu_used = eff_cpu_time(f[5]);
		e->req_mem = eff_size(f[6]);
		free(e->exit_code);
		e->exit_code = i > 8 ? eff_exit(f[8]) : NULL;
	}
	free(copy);
	if (!found)
		return cause_set(cause, "sacct has no record of job %ld", id);
	if (e->cpu_used <= 0 && cpu_steps > 0)
		e->cpu_used = cpu_steps;
	if (e->cpus > 0 && e->elapsed > 0 && e->cpu_used >= 0)
		e->cpu_pct = 100.0 * e->cpu_used / ((double)e->cpus *
		    (double)e->elapsed);
	if (e->req_mem > 0 && e->peak_mem >= 0)
		e->mem_pct = 100.0 * (double)e->peak_mem / (double)e->req_mem;
	if (e->limit > 0 && e->elapsed >= 0)
		e->time_pct = 100.0 * (double)e->elapsed / (double)e->limit;
	make_hint(e);
	return 0;
}

void
eff_free(struct eff *e)
{
	free(e->state);
	free(e->hint);
	free(e->exit_code);
	memset(e, 0, sizeof *e);
}

char *
eff_text(const struct eff *e)
{
	struct buf	b;
	char		x[32], y[32];

	buf_init(&b);
	if (e->cpu_pct >= 0)
		buf_printf(&b, "cpu %.0f%% of %d", e->cpu_pct, e->cpus);
	else
		buf_adds(&b, "cpu ?");
	fmt_size(e->peak_mem, x, sizeof x);
	fmt_size(e->req_mem, y, sizeof y);
	if (e->peak_mem < 0)
		buf_printf(&b, ", memory not sampled of %s", y);
	else if (e->mem_pct >= 0)
		buf_printf(&b, ", memory %s of %s (%.0f%%)", x, y, e->mem_pct);
	else
		buf_printf(&b, ", memory %s", x);
	slurm_time_format(e->elapsed, x, sizeof x);
	if (e->limit > 0) {
		slurm_time_format(e->limit, y, sizeof y);
		buf_printf(&b, ", time %s of %s (%.0f%%)", x, y, e->time_pct);
	} else
		buf_printf(&b, ", time %s (no limit)", x);
	return buf_steal(&b);
}
