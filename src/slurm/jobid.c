/*
 * Job arguments (jobid.h): SLURM's job ids and array task lists, as
 * sbatch --array writes them and squeue prints them (%i).
 */
#include "jobid.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A run of digits: its value in *v, the character after it. */
static const char *
digits(const char *t, unsigned long *v)
{
	char	*end;

	if (*t < '0' || *t > '9')
		return NULL;
	*v = strtoul(t, &end, 10);
	return end;
}

long
jobid_ntasks(const char *t)
{
	unsigned long	 a, b, step;
	long		 n = 0;
	int		 bracket;

	if ((bracket = *t == '[') != 0)
		t++;
	for (;;) {
		if ((t = digits(t, &a)) == NULL)
			return 0;
		b = a;
		if (*t == '-' && bracket) {
			if ((t = digits(t + 1, &b)) == NULL || b < a)
				return 0;
		}
		step = 1;
		/* A step: "1-9:2". */
		if (*t == ':' && bracket) {
			if ((t = digits(t + 1, &step)) == NULL || step == 0)
				return 0;
		}
		n += (long)((b - a) / step + 1);
		if (n > 100000000L)
			return 0;
		if (*t != ',' || !bracket)
			break;
		t++;
	}
	/* The throttle ("%2") says nothing about the count. */
	if (*t == '%' && bracket) {
		for (t++; *t >= '0' && *t <= '9'; t++)
			/* nothing */;
	}
	if (bracket && *t++ != ']')
		return 0;
	return *t == '\0' ? n : 0;
}

int
jobid_is_sluid(const char *s)
{
	static const char	 b32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
	size_t			 i;
	char			 c;

	if (s == NULL || s[0] != 's')
		return 0;
	for (i = 1; i <= 13; i++) {
		c = s[i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c == '\0' || strchr(b32, c) == NULL)
			return 0;
	}
	return s[14] == '\0';
}

enum jobid_kind
jobid_parse(const char *s, struct jobid *j)
{
	memset(j, 0, sizeof *j);
	if (s == NULL || *s == '\0')
		return j->kind = JOBID_BAD;
	if (jobid_is_sluid(s))
		return j->kind = JOBID_SLUID;
	j->joblen = strspn(s, "0123456789");
	/* Not SLURM's: "sd-...", or "12+0" (a part of a heterogeneous job). */
	if (j->joblen == 0 || (s[j->joblen] != '\0' && s[j->joblen] != '_'))
		return j->kind = JOBID_RECORD;
	j->job = strtoul(s, NULL, 10);
	if (j->joblen > 10 || j->job == 0 || j->job > UINT32_MAX)
		return j->kind = JOBID_BAD;
	if (s[j->joblen] == '\0')
		return j->kind = JOBID_JOB;
	j->tasks = s + j->joblen + 1;
	if ((j->ntasks = jobid_ntasks(j->tasks)) == 0) {
		j->tasks = NULL;
		return j->kind = JOBID_BAD;
	}
	return j->kind = *j->tasks == '[' ? JOBID_RANGE : JOBID_TASK;
}

int
jobid_slurm(const struct jobid *j)
{
	return j->kind == JOBID_JOB || j->kind == JOBID_TASK ||
	    j->kind == JOBID_RANGE || j->kind == JOBID_SLUID;
}
