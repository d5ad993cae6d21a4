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

/* sacct -X -P: every field followed by the command's own separator. */
#define JOBLOG_SACCT_FIELDS	"JobIDRaw,JobID,User,WorkDir,SubmitLine,JobName"
#define JOBLOG_SACCT_NFIELDS	6

char *
joblog_sacct_cmd(const char *id, const char *sep, char **cause)
{
	struct buf	 b;
	struct jobid	 j;

	jobid_parse(id, &j);
	if (!jobid_slurm(&j)) {
		cause_set(cause, "invalid job id '%s': give digits or an array "
		    "task (12_3)", id);
		return NULL;
	}
	if (sep == NULL || *sep == '\0' || strchr(sep, ',') != NULL) {
		cause_set(cause, "joblog: bad field separator");
		return NULL;
	}
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SACCT));
	buf_adds(&b, "sacct -X -n -P --delimiter=");
	buf_add_quoted(&b, sep);
	buf_adds(&b, " -j ");
	buf_add_quoted(&b, id);
	buf_adds(&b, " -o " JOBLOG_SACCT_FIELDS);
	return buf_steal(&b);
}

/* sbatch options that take no value (the others take the next word). */
static const char *const sbatch_flags[] = {
	"-H", "--hold", "-h", "--help", "-I", "--immediate", "-k",
	"--no-kill", "-O", "--overcommit", "-Q", "--quiet", "-s",
	"--oversubscribe", "--share", "-u", "--usage", "-v", "--verbose",
	"-V", "--version", "-W", "--wait", "--contiguous", "--exclusive",
	"--ignore-pbs", "--parsable", "--requeue", "--no-requeue",
	"--spread-job", "--test-only", "--use-min-nodes", "--reboot",
	"--no-requeue", "--get-user-env", "--export-file", "-Z",
	"--no-allocate", NULL
};

/* One word of a command line, its quotes removed (' " and \\). */
static const char *
submit_word(const char *p, struct buf *w)
{
	char	q = 0;

	buf_free(w);
	buf_init(w);
	buf_add(w, "", 0);
	for (; *p != '\0'; p++) {
		if (q == 0 && (*p == ' ' || *p == '\t' || *p == '\n'))
			break;
		if (q == 0 && (*p == '\'' || *p == '"'))
			q = *p;
		else if (q != 0 && *p == q)
			q = 0;
		else if (*p == '\\' && q != '\'' && p[1] != '\0')
			buf_add(w, ++p, 1);
		else
			buf_add(w, p, 1);
	}
	return p;
}

static int
sbatch_flag(const char *w)
{
	size_t	i;

	for (i = 0; sbatch_flags[i] != NULL; i++) {
		if (strcmp(w, sbatch_flags[i]) == 0)
			return 1;
	}
	return 0;
}

char *
joblog_submit_opt(const char *line, int err)
{
	const char	*p = line, *shrt = err ? "-e" : "-o";
	const char	*lng = err ? "--error" : "--output";
	struct buf	 w;
	char		*found = NULL;
	int		 first = 1, take = 0;

	buf_init(&w);
	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		p = submit_word(p, &w);
		if (first) {
			first = 0;	/* sbatch itself */
			continue;
		}
		if (take) {
			free(found);
			found = xstrdup(w.data);
			take = 0;
			continue;
		}
		if (w.data[0] != '-')
			break;		/* the script: the rest is its own */
		if (strcmp(w.data, shrt) == 0 || strcmp(w.data, lng) == 0) {
			if (*p == '\0')
				break;
			take = 1;
		} else if (strncmp(w.data, lng, strlen(lng)) == 0 &&
		    w.data[strlen(lng)] == '=') {
			free(found);
			found = xstrdup(w.data + strlen(lng) + 1);
		} else if (strncmp(w.data, shrt, 2) == 0 && w.data[2] != '\0') {
			free(found);
			found = xstrdup(w.data + 2);
		} else if (strcmp(w.data, "--") == 0)
			break;
		else if (strchr(w.data, '=') == NULL && !sbatch_flag(w.data) &&
		    !(w.data[1] != '-' && w.data[2] != '\0')) {
			/* An option with its value in the next word. */
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			p = submit_word(p, &w);
		}
	}
	buf_free(&w);
	if (found != NULL && *found == '\0') {
		free(found);
		found = NULL;
	}
	return found;
}

int
joblog_sacct_parse(const char *text, const char *sep, struct joblog *j,
    char **cause)
{
	char		*v[JOBLOG_SACCT_NFIELDS];
	const char	*s = text != NULL ? text : "", *e, *us;
	size_t		 i, slen = sep != NULL ? strlen(sep) : 0;

	memset(j, 0, sizeof *j);
	for (i = 0; i < JOBLOG_SACCT_NFIELDS; i++) {
		if (slen == 0 || (e = strstr(s, sep)) == NULL) {
			while (i > 0)
				free(v[--i]);
			return cause_set(cause, "sacct: no such job");
		}
		v[i] = xstrndup(s, (size_t)(e - s));
		s = e + slen;
	}
	if (*v[0] == '\0' || v[0][strspn(v[0], "0123456789")] != '\0') {
		for (i = 0; i < JOBLOG_SACCT_NFIELDS; i++)
			free(v[i]);
		return cause_set(cause, "sacct: no job id in its row");
	}
	j->job_id = v[0];
	/* JobID "12_3": the array's id and the task's; "12": neither. */
	if ((us = strchr(v[1], '_')) != NULL && us > v[1] &&
	    us[1 + strspn(us + 1, "0123456789")] == '\0' && us[1] != '\0') {
		j->array_job = xstrndup(v[1], (size_t)(us - v[1]));
		j->array_task = xstrdup(us + 1);
	}
	free(v[1]);
	j->user = v[2];
	j->workdir = v[3];
	j->name = v[5];
	j->out = joblog_submit_opt(v[4], 0);
	j->err = joblog_submit_opt(v[4], 1);
	free(v[4]);
	if (j->out == NULL)
		j->out = xstrdup(j->array_task != NULL ? "slurm-%A_%a.out" :
		    "slurm-%j.out");
	if (j->err == NULL)
		j->err = xstrdup(j->out);
	return 0;
}
