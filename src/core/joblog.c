#include "joblog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobid.h"
#include "slurm.h"
#include "util.h"

char *
joblog_cmd(const char *id, char **cause)
{
	struct buf	 b;
	struct jobid	 j;

	jobid_parse(id, &j);
	if (!jobid_slurm(&j)) {
		cause_set(cause, "invalid job id '%s': give digits or an array "
		    "task (12_3)", id);
		return NULL;
	}
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SCONTROL));
	buf_adds(&b, "scontrol show job -o ");
	buf_add_quoted(&b, id);
	return buf_steal(&b);
}

/* The value of " Key=" in a one-line record, up to the next " Word=". */
static char *
field(const char *line, const char *key)
{
	const char	*p, *v, *e, *q;
	size_t		 klen = strlen(key);

	for (p = line; (p = strstr(p, key)) != NULL; p++) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=')
			break;
	}
	if (p == NULL)
		return NULL;
	v = p + klen + 1;
	/* The next " Key=": letters, digits, ':' and '/' then '='. */
	for (e = v; (e = strchr(e, ' ')) != NULL; e++) {
		for (q = e + 1; (*q >= 'A' && *q <= 'Z') || (*q >= 'a' &&
		    *q <= 'z') || (*q >= '0' && *q <= '9') || *q == ':' ||
		    *q == '/' || *q == '_'; q++)
			/* nothing */;
		if (q > e + 1 && *q == '=' && e[1] >= 'A' && e[1] <= 'Z')
			break;
	}
	if (e == NULL)
		e = v + strcspn(v, "\n");
	return xstrndup(v, (size_t)(e - v));
}

int
joblog_parse(const char *text, struct joblog *j, char **cause)
{
	char	*line, *p;
	size_t	 len;

	memset(j, 0, sizeof *j);
	len = strcspn(text, "\n");
	/* 24.11 ends the line with a blank after StdOut's value. */
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\r'))
		len--;
	line = xstrndup(text, len);
	if ((j->job_id = field(line, "JobId")) == NULL || *j->job_id == '\0') {
		p = xstrndup(text, len > 200 ? 200 : len);
		cause_set(cause, "scontrol show job: no JobId in '%s'", p);
		free(p);
		free(line);
		joblog_free(j);
		return -1;
	}
	j->array_job = field(line, "ArrayJobId");
	j->array_task = field(line, "ArrayTaskId");
	j->name = field(line, "JobName");
	j->user = field(line, "UserId");
	if (j->user != NULL && (p = strchr(j->user, '(')) != NULL)
		*p = '\0';
	j->workdir = field(line, "WorkDir");
	j->out = field(line, "StdOut");
	j->err = field(line, "StdErr");
	/* 26.05 prints "StdErr=" for a job given -o only: it shares StdOut. */
	if (j->err != NULL && *j->err == '\0' && j->out != NULL) {
		free(j->err);
		j->err = xstrdup(j->out);
	}
	free(line);
	return 0;
}

void
joblog_free(struct joblog *j)
{
	free(j->job_id);
	free(j->array_job);
	free(j->array_task);
	free(j->name);
	free(j->user);
	free(j->workdir);
	free(j->out);
	free(j->err);
	memset(j, 0, sizeof *j);
}

char *
joblog_resolve(const char *pat, const struct joblog *j, char **cause)
{
	struct buf	 b;
	const char	*p, *v;
	int		 width;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (p = pat; *p != '\0'; p++) {
		if (*p != '%') {
			buf_add(&b, p, 1);
			continue;
		}
		if (p[1] == '%') {
			buf_adds(&b, "%");
			p++;
			continue;
		}
		/* "%3a": the number zero-padded to 3 digits. */
		width = 0;
		while (p[1] >= '0' && p[1] <= '9' && width < 100)
			width = width * 10 + (*++p - '0');
		switch (p[1]) {
		case 'A':
			v = j->array_job != NULL ? j->array_job : j->job_id;
			break;
		case 'a':
			v = j->array_task;
			/* Only one task's number names one file. */
			if (v != NULL && v[strspn(v, "0123456789")] != '\0')
				v = NULL;
			break;
		case 'j':
		case 'J':
			v = j->job_id;
			break;
		case 'u':
			v = j->user;
			break;
		case 'x':
			v = j->name;
			break;
		default:
			v = NULL;
			break;
		}
		if (v == NULL || *v == '\0') {
			cause_set(cause, "%s: cannot resolve %%%c here (it "
			    "needs %s)", pat, p[1] != '\0' ? p[1] : '?',
			    p[1] == 'a' ? "a started array task" :
			    "the node or the step the job runs on");
			buf_free(&b);
			return NULL;
		}
		if (p[1] == 'x' || p[1] == 'u')
			buf_adds(&b, v);
		else
			buf_printf(&b, "%0*ld", width, strtol(v, NULL, 10));
		p++;
	}
	return buf_steal(&b);
}

char *
joblog_path(const struct joblog *j, int err, char **cause)
{
	const char	*pat = err ? j->err : j->out;
	char		*p, *abs;

	if (pat == NULL || *pat == '\0' || strcmp(pat, "(null)") == 0) {
		cause_set(cause, "SLURM has no %s path for job %s", err ?
		    "StdErr" : "StdOut", j->job_id);
		return NULL;
	}
	if ((p = joblog_resolve(pat, j, cause)) == NULL)
		return NULL;
	if (*p == '/')
		return p;
	if (j->workdir == NULL || *j->workdir != '/') {
		cause_set(cause, "%s is relative and the work dir is not "
		    "known", p);
		free(p);
		return NULL;
	}
	abs = xasprintf("%s/%s", j->workdir, p);
	free(p);
	return abs;
}
