/*
 * SLURM command lines (see slurm.h): every value shell-quoted, every id
 * and name checked first.  No I/O here; the parsers are in slurm.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "slurm.h"

/* --- environment --------------------------------------------------------- */

#define ENV_COMMON	"-u SLURM_TIME_FORMAT -u SLURM_BITSTR_LEN "

const char *
slurm_env_clean(enum slurm_tool tool)
{
	switch (tool) {
	case SLURM_TOOL_SQUEUE:
		return ("env -u SQUEUE_ACCOUNT -u SQUEUE_ALL -u SQUEUE_ARRAY "
		    "-u SQUEUE_FEDERATION -u SQUEUE_FORMAT -u SQUEUE_FORMAT2 "
		    "-u SQUEUE_LICENSES -u SQUEUE_LOCAL -u SQUEUE_NAMES "
		    "-u SQUEUE_PARTITION -u SQUEUE_PRIORITY -u SQUEUE_QOS "
		    "-u SQUEUE_SIBLING -u SQUEUE_SORT -u SQUEUE_STATES "
		    "-u SQUEUE_USERS " ENV_COMMON);
	case SLURM_TOOL_SACCT:
		return ("env -u SACCT_FEDERATION -u SACCT_FORMAT "
		    "-u SACCT_LOCAL " ENV_COMMON);
	case SLURM_TOOL_SINFO:
		return ("env -u SINFO_ALL -u SINFO_FEDERATION -u SINFO_FORMAT "
		    "-u SINFO_LOCAL -u SINFO_PARTITION -u SINFO_SORT "
		    ENV_COMMON);
	case SLURM_TOOL_SCONTROL:
		return ("env -u SCONTROL_ALL -u SCONTROL_FEDERATION "
		    "-u SCONTROL_LOCAL " ENV_COMMON);
	}
	return ("");
}

/* --- commands ------------------------------------------------------------ */

/* Field list with spaces replaced by sep. */
static void
add_format(struct buf *b, const char *fields, int sep)
{
	char	*f = xstrdup(fields), *p;

	for (p = f; *p != '\0'; p++) {
		if (*p == ' ')
			*p = sep;
	}
	buf_add_quoted(b, f);
	free(f);
}

/* squeue -o: every field, the last one too, followed by the string sep. */
static void
add_row_format(struct buf *b, const char *fields, const char *sep)
{
	struct buf	 f;
	const char	*p;

	if (sep == NULL || *sep == '\0')
		sep = SLURM_SEP_DEFAULT;
	buf_init(&f);
	for (p = fields; *p != '\0'; p++) {
		if (*p == ' ')
			buf_adds(&f, sep);
		else
			buf_add(&f, p, 1);
	}
	buf_adds(&f, sep);
	buf_add_quoted(b, f.data);
	buf_free(&f);
}

/* sacct -u: the user given, else the login's own (sacct has no --me). */
static void
add_sacct_who(struct buf *b, const char *user)
{
	if (user == NULL)
		buf_adds(b, " -u \"`id -un`\"");
	else {
		buf_adds(b, " -u ");
		buf_add_quoted(b, user);
	}
}

static void
add_who(struct buf *b, const char *user)
{
	if (user == NULL)
		buf_adds(b, " --me");
	else {
		buf_adds(b, " -u ");
		buf_add_quoted(b, user);
	}
}

static int
check_job_name(const char *what, const char *name, char **cause)
{
	if (name == NULL || *name == '\0')
		return (cause_set(cause, "%s: empty job name", what));
	/* squeue -n and scancel -n split on ','. */
	if (strchr(name, ',') != NULL)
		return (cause_set(cause, "%s: job name \"%s\" contains ',', "
		    "which SLURM reads as a list of names", what, name));
	return (0);
}

static int
check_id(const char *what, long id, char **cause)
{
	if (id <= 0 || id > (long)UINT32_MAX)
		return (cause_set(cause, "%s: invalid job id %ld", what, id));
	return (0);
}

static int
check_since(const char *since, char **cause)
{
	if (since == NULL || *since == '\0')
		return (cause_set(cause, "sacct needs a start date (-S): "
		    "without it only jobs since midnight are shown"));
	return (0);
}

char *
slurm_cmd_squeue(const char *user, const char *sep)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SQUEUE));
	buf_adds(&b, "squeue");
	add_who(&b, user);
	buf_adds(&b, " -h -o ");
	add_row_format(&b, SLURM_SQUEUE_FIELDS, sep);
	return (buf_steal(&b));
}

char *
slurm_cmd_squeue_name(const char *user, const char *name, const char *sep,
    char **cause)
{
	struct buf	b;

	if (check_job_name("squeue", name, cause) != 0)
		return (NULL);
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SQUEUE));
	buf_adds(&b, "squeue");
	add_who(&b, user);
	buf_adds(&b, " -h -t all -n ");
	buf_add_quoted(&b, name);
	buf_adds(&b, " -o ");
	add_row_format(&b, SLURM_SQUEUE_FIELDS, sep);
	return (buf_steal(&b));
}

char *
slurm_cmd_start(long id, const char *sep, char **cause)
{
	struct buf	b;

	if (check_id("squeue --start", id, cause) != 0)
		return (NULL);
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SQUEUE));
	buf_printf(&b, "squeue --me --start -h -j %ld -o ", id);
	add_row_format(&b, SLURM_SQUEUE_FIELDS, sep);
	return (buf_steal(&b));
}

char *
slurm_cmd_dependency(long id, char **cause)
{
	struct buf	b;

	if (check_id("squeue %E", id, cause) != 0)
		return (NULL);
	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SQUEUE));
	buf_printf(&b, "squeue --me -h -j %ld -o '%%E'", id);
	return (buf_steal(&b));
}

char *
slurm_parse_dependency(const char *out)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	/* The first line, SLURM's dependency words only, bounded. */
	for (i = 0; out != NULL && out[i] != '\0' && out[i] != '\n' &&
	    i < 256; i++) {
		unsigned char	ch = (unsigned char)out[i];

		if (isalnum(ch) || strchr("_:,()*+?-", ch) != NULL)
			buf_add(&b, &out[i], 1);
	}
	if (b.len == 0 || strcmp(b.data, "(null)") == 0) {
		buf_free(&b);
		return (NULL);
	}
	return (buf_steal(&b));
}

/* -p: every field, the last one too, is followed by the delimiter. */
static void
add_sacct_base(struct buf *b, const char *since, const char *user,
    const char *sep)
{
	char	*d;

	if (sep == NULL || *sep == '\0')
		sep = SLURM_SEP_DEFAULT;
	d = xasprintf("--delimiter=%s", sep);
	buf_adds(b, slurm_env_clean(SLURM_TOOL_SACCT));
	buf_adds(b, "sacct -X -n -p ");
	buf_add_quoted(b, d);
	free(d);
	add_sacct_who(b, user);
	buf_adds(b, " -S ");
	buf_add_quoted(b, since);
	buf_adds(b, " -o ");
	add_format(b, SLURM_SACCT_FIELDS, ',');
}

char *
slurm_cmd_sacct(const long *ids, size_t n, const char *since,
    const char *user, const char *sep, char **cause)
{
	struct buf	b;
	size_t		i;

	if (n == 0) {
		cause_set(cause, "sacct: no job ids");
		return (NULL);
	}
	if (check_since(since, cause) != 0)
		return (NULL);
	for (i = 0; i < n; i++) {
		if (check_id("sacct", ids[i], cause) != 0)
			return (NULL);
	}
	buf_init(&b);
	add_sacct_base(&b, since, user, sep);
	buf_adds(&b, " -j ");
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%ld", i == 0 ? "" : ",", ids[i]);
	return (buf_steal(&b));
}

char *
slurm_cmd_sacct_name(const char *name, const char *since, const char *user,
    const char *sep, char **cause)
{
	struct buf	b;

	if (check_job_name("sacct", name, cause) != 0 ||
	    check_since(since, cause) != 0)
		return (NULL);
	buf_init(&b);
	add_sacct_base(&b, since, user, sep);
	buf_adds(&b, " --name=");
	buf_add_quoted(&b, name);
	return (buf_steal(&b));
}

char *
slurm_cmd_sinfo(void)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, slurm_env_clean(SLURM_TOOL_SINFO));
	buf_adds(&b, "sinfo -h -o ");
	add_format(&b, SLURM_SINFO_FIELDS, SLURM_SEP);
	return (buf_steal(&b));
}

char *
slurm_cmd_sbatch(const char *script, const char *name, int hold,
    char **cause)
{
	struct buf	b;

	if (script == NULL || *script == '\0') {
		cause_set(cause, "sbatch: no script path");
		return (NULL);
	}
	if (name != NULL && check_job_name("sbatch", name, cause) != 0)
		return (NULL);
	buf_init(&b);
	buf_adds(&b, "sbatch --parsable");
	if (hold)
		buf_adds(&b, " --hold");
	if (name != NULL) {
		buf_adds(&b, " -J ");
		buf_add_quoted(&b, name);
	}
	buf_adds(&b, " ");
	/* A path starting with '-' would be read as an option. */
	if (*script == '-')
		buf_adds(&b, "./");
	buf_add_quoted(&b, script);
	return (buf_steal(&b));
}

char *
slurm_cmd_scancel(const long *ids, size_t n, char **cause)
{
	struct buf	b;
	size_t		i;

	if (n == 0) {
		cause_set(cause, "scancel: no job ids");
		return (NULL);
	}
	for (i = 0; i < n; i++) {
		if (check_id("scancel", ids[i], cause) != 0)
			return (NULL);
	}
	buf_init(&b);
	buf_adds(&b, "scancel");
	for (i = 0; i < n; i++)
		buf_printf(&b, " %ld", ids[i]);
	return (buf_steal(&b));
}

char *
slurm_cmd_scancel_name(const char *user, const char *name, char **cause)
{
	struct buf	b;

	if (check_job_name("scancel", name, cause) != 0)
		return (NULL);
	buf_init(&b);
	buf_adds(&b, "scancel");
	add_who(&b, user);
	buf_adds(&b, " -n ");
	buf_add_quoted(&b, name);
	return (buf_steal(&b));
}

char *
slurm_cmd_release(long id, char **cause)
{
	if (check_id("scontrol release", id, cause) != 0)
		return (NULL);
	return (xasprintf("%sscontrol release %ld",
	    slurm_env_clean(SLURM_TOOL_SCONTROL), id));
}
