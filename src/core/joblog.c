#include "joblog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobid.h"
#include "slurm.h"
#include "util.h"

/* squeue -O: every field followed by the command's own separator. */
static const char *const joblog_fields[] = {
	"JobID", "ArrayJobID", "ArrayTaskID", "UserName", "WorkDir",
	"StdOut", "StdErr", "Name"
};
#define JOBLOG_NFIELDS	(sizeof joblog_fields / sizeof joblog_fields[0])

char *
joblog_cmd(const char *id, const char *sep, char **cause)
{
	struct buf	 b, f;
	struct jobid	 j;
	size_t		 i;

	jobid_parse(id, &j);
	if (!jobid_slurm(&j)) {
		cause_set(cause, "invalid job id '%s': give digits or an array "
		    "task (12_3)", id);
		return NULL;
	}
	if (sep == NULL || *sep == '\0' || strchr(sep, ',') != NULL ||
	    (*sep >= '0' && *sep <= '9') || *sep == '.') {
		cause_set(cause, "joblog: bad field separator");
		return NULL;
	}
	/* "Field:0SEP": width 0 is the whole value, SEP its suffix. */
	buf_init(&f);
	for (i = 0; i < JOBLOG_NFIELDS; i++)
		buf_printf(&f, "%s%s:0%s", i ? "," : "", joblog_fields[i], sep);
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SQUEUE));
	buf_adds(&b, "squeue -h -t all -j ");
	buf_add_quoted(&b, id);
	buf_adds(&b, " -O ");
	buf_add_quoted(&b, f.data);
	buf_free(&f);
	return buf_steal(&b);
}

int
joblog_parse(const char *text, const char *sep, struct joblog *j,
    char **cause)
{
	char		*v[JOBLOG_NFIELDS], *p;
	const char	*s = text, *e;
	size_t		 i, slen = sep != NULL ? strlen(sep) : 0;

	memset(j, 0, sizeof *j);
	/*
	 * Split on the separator only: the name (last, and any bytes, a
	 * newline or " StdOut=/x" too) cannot add or move a field.
	 */
	for (i = 0; i < JOBLOG_NFIELDS; i++) {
		if (slen == 0 || (e = strstr(s, sep)) == NULL) {
			while (i > 0)
				free(v[--i]);
			p = xstrndup(text, strcspn(text, "\n"));
			if (strlen(p) > 200)
				p[200] = '\0';
			cause_set(cause, "squeue: no job in '%s'", p);
			free(p);
			return -1;
		}
		v[i] = xstrndup(s, (size_t)(e - s));
		s = e + slen;
	}
	if (*v[0] == '\0' || v[0][strspn(v[0], "0123456789")] != '\0') {
		cause_set(cause, "squeue: no job id in its row");
		for (i = 0; i < JOBLOG_NFIELDS; i++)
			free(v[i]);
		return -1;
	}
	j->job_id = v[0];
	/* Not an array: ArrayTaskID is N/A and ArrayJobID the job's id. */
	if (strcmp(v[2], "N/A") == 0 || *v[2] == '\0') {
		free(v[1]);
		free(v[2]);
	} else {
		j->array_job = v[1];
		j->array_task = v[2];
	}
	j->user = v[3];
	j->workdir = v[4];
	j->out = v[5];
	j->err = v[6];
	j->name = v[7];
	/*
	 * No -e: StdErr is StdOut's.  squeue -O prints it as the -o path
	 * (22.05) or "(null)" (24.11, 26.05: the joblog-*.txt captures);
	 * scontrol printed it empty on 26.05.
	 */
	if (strcmp(j->out, "(null)") == 0 || *j->out == '\0') {
		free(j->out);
		j->out = NULL;
	}
	if ((*j->err == '\0' || strcmp(j->err, "(null)") == 0) &&
	    j->out != NULL) {
		free(j->err);
		j->err = xstrdup(j->out);
	}
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
