/*
 * SLURM reply parsers (see slurm.h); the command lines are in
 * slurm-cmd.c.  No I/O here.
 */

#include <sys/random.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "enc.h"
#include "slurm.h"
#include "str.h"

#define SQUEUE_NFIELDS	13
#define SACCT_NFIELDS	14
#define SINFO_NFIELDS	8
#define NODELIST_MAX	65536

/* --- durations ---------------------------------------------------------- */

enum slurm_time
slurm_time_parse(const char *s, long *secs)
{
	static const struct {
		const char	*word;
		enum slurm_time	 kind;
	} words[] = {
		{ "UNLIMITED", SLURM_TIME_UNLIMITED },
		{ "INFINITE", SLURM_TIME_UNLIMITED },
		{ "Partition_Limit", SLURM_TIME_PARTITION },
		{ "NOT_SET", SLURM_TIME_NOT_SET },
		{ "N/A", SLURM_TIME_NOT_SET },
		{ "INVALID", SLURM_TIME_INVALID },
	};
	const char	*dash, *p, *colon;
	long		 part[3], days = 0, v;
	size_t		 i, n = 0, len;

	*secs = -1;
	if (s == NULL)
		return (SLURM_TIME_NOT_SET);
	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0)
		return (SLURM_TIME_NOT_SET);
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strlen(words[i].word) == len &&
		    strncasecmp(s, words[i].word, len) == 0)
			return (words[i].kind);
	}

	p = s;
	dash = memchr(s, '-', len);
	if (dash != NULL) {
		if ((days = str_digits_n(s, dash - s)) < 0)
			return (SLURM_TIME_ERROR);
		p = dash + 1;
	}
	for (;;) {
		colon = memchr(p, ':', len - (p - s));
		if (n == 3)
			return (SLURM_TIME_ERROR);
		v = str_digits_n(p, (colon != NULL ? colon : s + len) - p);
		if (v < 0)
			return (SLURM_TIME_ERROR);
		part[n++] = v;
		if (colon == NULL)
			break;
		p = colon + 1;
	}

	/* With days: H, H:M, H:M:S.  Without: M, M:S, H:M:S. */
	if (dash != NULL) {
		v = part[0] * 3600;
		if (n > 1)
			v += part[1] * 60;
		if (n > 2)
			v += part[2];
		if (n > 1 && part[1] > 59)
			return (SLURM_TIME_ERROR);
		v += days * 86400;
	} else if (n == 1)
		v = part[0] * 60;
	else if (n == 2)
		v = part[0] * 60 + part[1];
	else {
		if (part[1] > 59)
			return (SLURM_TIME_ERROR);
		v = part[0] * 3600 + part[1] * 60 + part[2];
	}
	if ((n == 2 && dash == NULL && part[1] > 59) ||
	    (n == 3 && part[2] > 59))
		return (SLURM_TIME_ERROR);
	*secs = v;
	return (SLURM_TIME_SET);
}

void
slurm_time_format(long secs, char *buf, size_t len)
{
	long	d, h, m, s;

	if (secs < 0) {
		snprintf(buf, len, "-");
		return;
	}
	d = secs / 86400;
	h = secs / 3600 % 24;
	m = secs / 60 % 60;
	s = secs % 60;
	if (d > 0)
		snprintf(buf, len, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
	else if (h > 0)
		snprintf(buf, len, "%ld:%02ld:%02ld", h, m, s);
	else
		snprintf(buf, len, "%ld:%02ld", m, s);
}

int
slurm_maxtime_minutes(const char *s, long *minutes, char **cause)
{
	long	secs;

	switch (slurm_time_parse(s, &secs)) {
	case SLURM_TIME_SET:
		*minutes = (secs + 59) / 60;
		return (0);
	case SLURM_TIME_UNLIMITED:
		*minutes = -1;
		return (0);
	default:
		*minutes = -1;
		return (cause_set(cause, "partition time limit \"%s\" is not "
		    "a SLURM time (expected e.g. 4:00:00, 1-00:00:00 or "
		    "infinite)", s != NULL ? s : ""));
	}
}

void
slurm_since(time_t t, char *buf, size_t len)
{
	struct tm	tm;

	t -= 86400;
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d", &tm) == 0)
		snprintf(buf, len, "now-2days");
}

/* --- line splitting ------------------------------------------------------ */

/* Printable, shortened copy of a bad line for an error message. */
static char *
line_show(const char *line)
{
	/* util's xstrndup copies n bytes: never ask for more than there is. */
	char	*s = xstrndup(line, strnlen(line, 80)), *p;

	for (p = s; *p != '\0'; p++) {
		if (*p == SLURM_SEP)
			*p = '|';
		else if (iscntrl((unsigned char)*p) || (unsigned char)*p >= 0x80)
			*p = '?';
	}
	return (s);
}

int
slurm_line_is_note(const char *line, size_t len)
{
	static const char *const words[] = { "warning:", "note:", NULL };
	const char *const	*w;
	const char		*p = line, *end = line + len;
	int			 tool = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (;;) {
		for (w = words; *w != NULL; w++) {
			if ((size_t)(end - p) >= strlen(*w) &&
			    strncasecmp(p, *w, strlen(*w)) == 0)
				return (1);
		}
		/* One "squeue: " (a program's name) may come first. */
		if (tool++ != 0)
			return (0);
		while (p < end && (islower((unsigned char)*p) || *p == '_' ||
		    *p == '-'))
			p++;
		if (p == line || p + 1 >= end || p[0] != ':' || p[1] != ' ')
			return (0);
		p += 2;
	}
}

/*
 * Text outside the rows [p, p + len): every line blank or a note (added to
 * *notes, one a line)?  Returns 0 if so, else -1 (nothing added).
 */
static int
only_notes(const char *p, size_t len, char **notes)
{
	const char	*end = p + len, *q, *eol;
	struct buf	 b;

	for (q = p; q < end; q = eol + 1) {
		if ((eol = memchr(q, '\n', (size_t)(end - q))) == NULL)
			eol = end;
		if (!str_blank_n(q, (size_t)(eol - q)) &&
		    !slurm_line_is_note(q, (size_t)(eol - q)))
			return (-1);
		if (eol == end)
			break;
	}
	buf_init(&b);
	if (*notes != NULL)
		buf_adds(&b, *notes);
	for (q = p; q < end; q = eol + 1) {
		if ((eol = memchr(q, '\n', (size_t)(end - q))) == NULL)
			eol = end;
		if (!str_blank_n(q, (size_t)(eol - q))) {
			char *show = xstrndup(q, (size_t)(eol - q)), *l;

			l = line_show(show);
			buf_printf(&b, "%s%s", b.len != 0 ? "\n" : "",
			    str_trim(l));
			free(l);
			free(show);
		}
		if (eol == end)
			break;
	}
	free(*notes);
	*notes = b.len != 0 ? buf_steal(&b) : NULL;
	if (*notes == NULL)
		buf_free(&b);
	return (0);
}

/*
 * Split line in place into exactly n fields.  The last field takes the rest
 * of the line, separators included.  Returns the number of fields found;
 * fewer than n means a truncated line.  (sinfo only: no user text in it.)
 */
static size_t
split_fields(char *line, int sep, char **f, size_t n)
{
	size_t	i = 0;
	char	*p = line, *q;

	while (i < n - 1 && (q = strchr(p, sep)) != NULL) {
		*q = '\0';
		f[i++] = p;
		p = q + 1;
	}
	f[i++] = p;
	return (i);
}

/*
 * Call fn on every non-blank line (trailing blanks and CR removed).
 * Returns the number of bad lines; the first one's message is in *cause.
 */
static size_t
for_lines(const char *text, const char *what, char **notes, char **cause,
    int (*fn)(char *, void *, char **), void *arg)
{
	char	*copy, *line, *next, *why, *show;
	size_t	 lineno = 0, bad = 0, len;
	char	*first = NULL;

	if (text == NULL)
		return (0);
	copy = xstrdup(text);
	for (line = copy; line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		len = strlen(line);
		while (len > 0 && (line[len - 1] == ' ' ||
		    line[len - 1] == '\t' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || only_notes(line, len, notes) == 0)
			continue;
		/* fn may cut the line up: keep a copy to show. */
		show = line_show(line);
		why = NULL;
		if (fn(line, arg, &why) != 0 && bad++ == 0) {
			first = xasprintf("%s output line %zu: %s: \"%s\"",
			    what, lineno, why != NULL ? why : "unparsable",
			    show);
		}
		free(why);
		free(show);
	}
	free(copy);
	if (bad != 0) {
		if (bad > 1)
			cause_set(cause, "%s (and %zu more bad line%s)", first,
			    bad - 1, bad > 2 ? "s" : "");
		else
			cause_set(cause, "%s", first);
	}
	free(first);
	return (bad);
}

void
slurm_sep_new(char *buf, size_t len)
{
	unsigned char	rnd[8];

	if (len < SLURM_SEP_SIZE) {
		if (len > 0)
			*buf = '\0';
		return;
	}
	random_bytes(rnd, sizeof rnd);
	buf[0] = SLURM_SEP;
	enc_hex(buf + 1, rnd, sizeof rnd);
}

/*
 * FNV-1a over len bytes of p, each marker and separator taken as one
 * byte of its own: they are drawn anew for every poll, the rest of an
 * answer that did not change is the same bytes.
 */
uint64_t
slurm_digest(uint64_t h, const char *p, size_t len, const char *marker,
    const char *sep)
{
	size_t	ml = strlen(marker), sl = strlen(sep), i = 0;
	int	c;

	while (i < len) {
		if (ml > 0 && len - i >= ml && p[i] == marker[0] &&
		    memcmp(p + i, marker, ml) == 0) {
			c = 1;
			i += ml;
		} else if (sl > 0 && len - i >= sl && p[i] == sep[0] &&
		    memcmp(p + i, sep, sl) == 0) {
			c = 2;
			i += sl;
		} else
			c = (unsigned char)p[i++];
		h = (h ^ (uint64_t)c) * 1099511628211ULL;
	}
	/* The length too, then a byte no text has: parts do not run on. */
	h = (h ^ (uint64_t)len) * 1099511628211ULL;
	return (h ^ 0x100) * 1099511628211ULL;
}

/*
 * Rows of nf fields, EACH followed by sep (squeue -o "%A<sep>...%j<sep>",
 * sacct -p --delimiter=<sep>), one row per line.  No field can hold sep
 * (it is random per command), so a row's fields are exactly the text
 * between seps: a newline or 0x1f inside a job name stays in that name and
 * can never start a row of its own.  Text between rows that is not blank
 * (stderr mixed in) is reported, and so is a row cut short.  Returns the
 * number of bad rows; the first one's message is in *cause.
 */
static size_t
for_rows(const char *text, const char *sep, size_t nf, const char *what,
    char **notes, char **cause, int (*fn)(char **, void *, char **),
    void *arg)
{
	const char	*p, *end, *q, *nl;
	char		**f, *why, *first = NULL, *show;
	size_t		 seplen, k, row = 0, bad = 0;

	if (text == NULL)
		return (0);
	if (sep == NULL || *sep == '\0')
		sep = SLURM_SEP_DEFAULT;
	seplen = strlen(sep);
	f = xcalloc(nf, sizeof *f);
	p = text;
	end = text + strlen(text);
	for (;;) {
		why = NULL;
		if ((q = memmem(p, (size_t)(end - p), sep, seplen)) == NULL) {
			if (only_notes(p, (size_t)(end - p), notes) != 0)
				why = xstrdup("text after the last row");
			show = line_show(p);
			goto bad;
		}
		/* The first field starts after the last newline before it. */
		nl = q;
		while (nl > p && nl[-1] != '\n')
			nl--;
		row++;
		if (nl > p && only_notes(p, (size_t)(nl - p), notes) != 0) {
			show = line_show(p);
			why = xstrdup("text between rows");
			if (bad++ == 0)
				first = xasprintf("%s output row %zu: %s: "
				    "\"%s\"", what, row, why, show);
			free(why);
			free(show);
			why = NULL;
		}
		f[0] = xstrndup(nl, (size_t)(q - nl));
		p = q + seplen;
		for (k = 1; k < nf; k++) {
			q = memmem(p, (size_t)(end - p), sep, seplen);
			if (q == NULL)
				break;
			f[k] = xstrndup(p, (size_t)(q - p));
			p = q + seplen;
		}
		if (k < nf) {
			show = line_show(f[0]);
			why = xasprintf("%zu fields, expected %zu", k, nf);
			for (k = 0; k < nf; k++) {
				free(f[k]);
				f[k] = NULL;
			}
			p = end;
			goto bad;
		}
		show = line_show(f[0]);
		if (fn(f, arg, &why) != 0) {
			if (bad++ == 0)
				first = xasprintf("%s output row %zu: %s: "
				    "\"%s\"", what, row, why != NULL ? why :
				    "unparsable", show);
		}
		free(why);
		free(show);
		for (k = 0; k < nf; k++) {
			free(f[k]);
			f[k] = NULL;
		}
		continue;
bad:
		if (why != NULL && bad++ == 0)
			first = xasprintf("%s output row %zu: %s: \"%s\"",
			    what, row + 1, why, show);
		free(why);
		free(show);
		break;
	}
	free(f);
	if (bad != 0) {
		if (bad > 1)
			cause_set(cause, "%s (and %zu more bad row%s)", first,
			    bad - 1, bad > 2 ? "s" : "");
		else
			cause_set(cause, "%s", first);
	}
	free(first);
	return (bad);
}

/* A field that SLURM fills with a word meaning "nothing". */
static char *
field_none(const char *s, const char *const *none)
{
	for (; *none != NULL; none++) {
		if (strcmp(s, *none) == 0)
			return (xstrdup(""));
	}
	return (xstrdup(s));
}

static const char *const none_words[] = {
	"N/A", "None", "(null)", "None assigned", "Unknown", NULL
};

static long
parse_id(const char *s)
{
	char		*end;
	unsigned long	 v;

	if (!isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0 || v > UINT32_MAX)
		return (-1);
	return ((long)v);
}

static int
parse_int_or(const char *s, int dflt)
{
	char	*end;
	long	 v;

	if (!isdigit((unsigned char)*s))
		return (dflt);
	v = strtol(s, &end, 10);
	if (v > INT_MAX)
		return (dflt);
	return ((int)v);
}

/* --- job rows ------------------------------------------------------------ */

static struct slurm_job *
jobs_add(struct slurm_jobs *jobs)
{
	struct slurm_job	*j;

	/* Room for 16, then doubling: a queue can hold thousands. */
	if (jobs->n == 0 || (jobs->n >= 16 && (jobs->n & (jobs->n - 1)) == 0))
		jobs->v = xrealloc(jobs->v, (jobs->n < 16 ? 16 : 2 * jobs->n) *
		    sizeof *jobs->v);
	j = &jobs->v[jobs->n++];
	memset(j, 0, sizeof *j);
	j->nnodes = j->exit_code = j->exit_signal = -1;
	j->elapsed = j->limit = -1;
	return (j);
}

static void
job_free(struct slurm_job *j)
{
	free(j->jobid);
	free(j->name);
	free(j->partition);
	free(j->state);
	free(j->reason);
	free(j->nodelist);
	free(j->submit);
	free(j->start);
	free(j->end);
	free(j->gres);
}

static long
parse_elapsed(const char *s)
{
	long	secs;

	if (slurm_time_parse(s, &secs) != SLURM_TIME_SET)
		return (-1);
	return (secs);
}

/* %A %i %P %T %M %l %D %N %r %V %S %b %j */
static int
squeue_row(char **f, void *arg, char **why)
{
	struct slurm_jobs	*jobs = arg;
	struct slurm_job	*j;
	long			 id;

	if ((id = parse_id(f[0])) < 0) {
		*why = xasprintf("bad job id \"%s\"", f[0]);
		return (-1);
	}
	j = jobs_add(jobs);
	j->id = id;
	j->jobid = xstrdup(f[1]);
	j->partition = xstrdup(f[2]);
	j->state = xstrdup(f[3]);
	j->elapsed = parse_elapsed(f[4]);
	j->limit_kind = slurm_time_parse(f[5], &j->limit);
	j->nnodes = parse_int_or(f[6], -1);
	j->nodelist = field_none(f[7], none_words);
	j->reason = xstrdup(f[8]);
	j->submit = field_none(f[9], none_words);
	j->start = field_none(f[10], none_words);
	j->end = xstrdup("");
	j->gres = field_none(f[11], none_words);
	j->name = xstrdup(f[12]);
	return (0);
}

int
slurm_parse_squeue(const char *text, const char *sep, struct slurm_jobs *jobs,
    char **cause)
{
	if (for_rows(text, sep, SQUEUE_NFIELDS, "squeue", &jobs->notes, cause,
	    squeue_row, jobs) != 0)
		return (-1);
	return (0);
}

int
slurm_exit_parse(const char *s, int *code, int *sig)
{
	const char	*colon;
	long		 c, g;

	*code = *sig = -1;
	if (s == NULL || (colon = strchr(s, ':')) == NULL)
		return (0);
	if ((c = str_digits_n(s, (size_t)(colon - s))) < 0 ||
	    (g = str_digits_n(colon + 1, strlen(colon + 1))) < 0 ||
	    c > 255 || g > 255)
		return (0);
	*code = (int)c;
	*sig = (int)g;
	if (*code >= 128 && *sig == 0) {
		*code -= 128;
		return (1);
	}
	return (0);
}

/*
 * JobID JobIDRaw State ExitCode Reason NodeList Partition Elapsed Timelimit
 * NNodes Submit Start End JobName
 */
/*
 * Reasons a job waits for before it starts.  Accounting may keep one after
 * the job ran and ended: on 22.05 a job held for a while
 * (tests/data/slurm/sacct_batch.txt, job 23); on 24.11 and 26.05 also a
 * sqdeck job, submitted held and released at once (a COMPLETED or FAILED
 * row with Reason JobHeldUser, tests/data/slurm-24.11/sacct_held_ended.txt,
 * where 22.05 says None).  It says nothing about how the job ended.
 */
static int
wait_reason(const char *reason)
{
	static const char *const words[] = {
		"JobHeldUser", "JobHeldAdmin", "Priority", "Resources",
		"Dependency", "BeginTime", NULL
	};
	const char *const	*w;

	for (w = words; *w != NULL; w++) {
		if (strcmp(reason, *w) == 0)
			return (1);
	}
	return (0);
}

static int
sacct_row(char **f, void *arg, char **why)
{
	struct slurm_jobs	*jobs = arg;
	struct slurm_job	*j;
	long			 id;

	if ((id = parse_id(f[1])) < 0) {
		*why = xasprintf("bad job id \"%s\"", f[1]);
		return (-1);
	}
	j = jobs_add(jobs);
	j->id = id;
	j->jobid = xstrdup(f[0]);
	j->state = xstrdup(f[2]);
	j->exit_folded = slurm_exit_parse(f[3], &j->exit_code,
	    &j->exit_signal);
	j->reason = xstrdup(f[4]);
	j->nodelist = field_none(f[5], none_words);
	j->partition = xstrdup(f[6]);
	j->elapsed = parse_elapsed(f[7]);
	j->limit_kind = slurm_time_parse(f[8], &j->limit);
	j->nnodes = parse_int_or(f[9], -1);
	j->submit = field_none(f[10], none_words);
	j->start = field_none(f[11], none_words);
	j->end = field_none(f[12], none_words);
	/* Ran and ended: what it once waited for is not a reason now. */
	if (*j->start != '\0' && *j->end != '\0' && wait_reason(j->reason)) {
		free(j->reason);
		j->reason = xstrdup("None");
	}
	j->gres = xstrdup("");
	j->name = xstrdup(f[13]);
	/* A job really called "allocation" still has its partition. */
	j->placeholder = strcmp(j->name, "allocation") == 0 &&
	    *j->partition == '\0';
	return (0);
}

int
slurm_parse_sacct(const char *text, const char *sep, struct slurm_jobs *jobs,
    char **cause)
{
	if (for_rows(text, sep, SACCT_NFIELDS, "sacct", &jobs->notes, cause,
	    sacct_row, jobs) != 0)
		return (-1);
	return (0);
}

struct slurm_job *
slurm_jobs_find(struct slurm_jobs *jobs, long id)
{
	size_t	i;

	for (i = 0; i < jobs->n; i++) {
		if (jobs->v[i].id == id)
			return (&jobs->v[i]);
	}
	return (NULL);
}

void
slurm_jobs_free(struct slurm_jobs *jobs)
{
	size_t	i;

	for (i = 0; i < jobs->n; i++)
		job_free(&jobs->v[i]);
	free(jobs->v);
	free(jobs->notes);
	jobs->v = NULL;
	jobs->n = 0;
	jobs->notes = NULL;
}

const char *
slurm_state_base(const char *state, char *buf, size_t len)
{
	size_t	n = 0;

	if (len == 0)
		return (buf);
	while (state[n] != '\0' && (isupper((unsigned char)state[n]) ||
	    state[n] == '_'))
		n++;
	if (n >= len)
		n = len - 1;
	memcpy(buf, state, n);
	buf[n] = '\0';
	return (buf);
}

/* --- replies ------------------------------------------------------------- */

/* Errors that may come after slurmctld queued the job: not a refusal. */
static int
sbatch_error_maybe_queued(const char *text)
{
	static const char *const words[] = {
		"timed out", "Timed out", "Zero Bytes", "Socket", "socket",
		"Connection", "connection", "Unable to contact",
		"Transport endpoint", "temporarily unavailable",
		"Communication", "communication", NULL
	};
	const char *const *w;

	for (w = words; *w != NULL; w++) {
		if (strstr(text, *w) != NULL)
			return (1);
	}
	return (0);
}

/* The first "sbatch: error: " line of err, without that prefix. */
static char *
sbatch_error(const char *err)
{
	const char	*p, *eol;
	const char	*prefix = "sbatch: error: ";

	for (p = err; p != NULL && *p != '\0'; p = eol) {
		eol = strchr(p, '\n');
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			p += strlen(prefix);
			if (eol == NULL)
				return (xstrdup(p));
			return (xstrndup(p, eol - p));
		}
		if (eol != NULL)
			eol++;
	}
	return (NULL);
}

/*
 * A refusal for want of an account ("Invalid account or account/partition
 * combination specified", a site's "You must specify an account"): say
 * where sqdeck takes the account from.
 */
static char *
sbatch_account_hint(char *e)
{
	char	*lower, *p, *hinted;

	lower = xstrdup(e);
	for (p = lower; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strstr(lower, "account") == NULL) {
		free(lower);
		return (e);
	}
	free(lower);
	hinted = xasprintf("%s: set SLURM_ACCOUNT (or 'account:' for the "
	    "cluster in clusters.yaml) to an account you may use (sacctmgr "
	    "show assoc user=$USER format=account,partition)", e);
	free(e);
	return (hinted);
}

enum slurm_submit
slurm_parse_sbatch(const char *out, const char *err, long *id, char **msg)
{
	char	*copy, *line, *semi, *e, *show;
	long	 v;

	*id = -1;
	if (msg != NULL)
		*msg = NULL;

	copy = xstrdup(out != NULL ? out : "");
	line = str_trim(copy);
	if ((semi = strchr(line, ';')) != NULL)
		*semi = '\0';
	/* One line, one number: anything else is not a --parsable id. */
	v = strchr(line, '\n') == NULL ? parse_id(line) : -1;
	free(copy);
	if (v > 0) {
		*id = v;
		return (SLURM_SUBMIT_OK);
	}

	if ((e = sbatch_error(err)) != NULL) {
		if (!sbatch_error_maybe_queued(e)) {
			e = sbatch_account_hint(e);
			if (msg != NULL)
				*msg = e;
			else
				free(e);
			return (SLURM_SUBMIT_ERROR);
		}
		if (msg != NULL)
			*msg = xasprintf("sbatch may have queued the job: %s",
			    e);
		free(e);
		return (SLURM_SUBMIT_AMBIGUOUS);
	}
	if (msg != NULL) {
		if (out == NULL || *out == '\0')
			*msg = xstrdup("sbatch printed no job id");
		else {
			show = line_show(out);
			*msg = xasprintf("sbatch printed no job id: \"%s\"",
			    show);
			free(show);
		}
	}
	return (SLURM_SUBMIT_AMBIGUOUS);
}

int
slurm_parse_start(const char *text, const char *sep, char **when,
    char **reason, char **cause)
{
	struct slurm_jobs	jobs = { NULL, 0, NULL };
	int			found = 0;

	*when = NULL;
	if (reason != NULL)
		*reason = NULL;
	if (slurm_parse_squeue(text, sep, &jobs, cause) != 0) {
		slurm_jobs_free(&jobs);
		return (-1);
	}
	if (jobs.n > 0) {
		if (reason != NULL)
			*reason = xstrdup(jobs.v[0].reason);
		if (*jobs.v[0].start != '\0') {
			*when = xstrdup(jobs.v[0].start);
			found = 1;
		}
	}
	slurm_jobs_free(&jobs);
	return (found);
}

/* --- partitions ---------------------------------------------------------- */

static long
parse_long_prefix(const char *s)
{
	char	*end;
	long	 v;

	if (!isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0)
		return (-1);
	return (v);
}

/* %F: "A/I/O/T". */
static int
parse_aiot(const char *s, int v[4])
{
	char	tail;

	if (sscanf(s, "%d/%d/%d/%d%c", &v[0], &v[1], &v[2], &v[3],
	    &tail) != 4)
		return (-1);
	return (0);
}

static void
gres_merge(struct slurm_partition *p, const char *gres)
{
	char	*old;

	if (*gres == '\0' || strcmp(p->gres, gres) == 0)
		return;
	if (*p->gres == '\0') {
		free(p->gres);
		p->gres = xstrdup(gres);
		return;
	}
	old = p->gres;
	p->gres = xasprintf("%s,%s", old, gres);
	free(old);
}

/* %P %a %l %D %F %c %m %G */
static int
sinfo_line(char *line, void *arg, char **why)
{
	static const char *const gres_none[] = { "(null)", "N/A", NULL };
	struct slurm_partitions	*parts = arg;
	struct slurm_partition	*p = NULL;
	char			*f[SINFO_NFIELDS], *name, *gres, *cause = NULL;
	size_t			 n, i, len;
	long			 minutes, mem;
	int			 is_default = 0, aiot[4], nodes, cpus;

	n = split_fields(line, SLURM_SEP, f, SINFO_NFIELDS);
	if (n != SINFO_NFIELDS) {
		*why = xasprintf("%zu fields, expected %d", n, SINFO_NFIELDS);
		return (-1);
	}
	name = f[0];
	len = strlen(name);
	if (len > 0 && name[len - 1] == '*') {
		name[--len] = '\0';
		is_default = 1;
	}
	if (len == 0) {
		*why = xstrdup("empty partition name");
		return (-1);
	}
	if (slurm_maxtime_minutes(f[2], &minutes, &cause) != 0) {
		*why = cause;
		return (-1);
	}
	if ((nodes = parse_int_or(f[3], -1)) < 0) {
		*why = xasprintf("bad node count \"%s\"", f[3]);
		return (-1);
	}
	if (parse_aiot(f[4], aiot) != 0) {
		*why = xasprintf("bad node states \"%s\"", f[4]);
		return (-1);
	}
	/* "64+" means 64 or more: the smallest node counts. */
	cpus = parse_int_or(f[5], -1);
	mem = parse_long_prefix(f[6]);

	for (i = 0; i < parts->n; i++) {
		if (strcmp(parts->v[i].name, name) == 0) {
			p = &parts->v[i];
			break;
		}
	}
	gres = field_none(f[7], gres_none);
	if (p == NULL) {
		parts->v = xrealloc(parts->v,
		    (parts->n + 1) * sizeof *parts->v);
		p = &parts->v[parts->n++];
		memset(p, 0, sizeof *p);
		p->name = xstrdup(name);
		p->avail = xstrdup(f[1]);
		p->max_minutes = minutes;
		p->cpus = cpus;
		p->mem_mb = mem;
		p->gres = gres;
	} else {
		if (cpus >= 0 && (p->cpus < 0 || cpus < p->cpus))
			p->cpus = cpus;
		if (mem >= 0 && (p->mem_mb < 0 || mem < p->mem_mb))
			p->mem_mb = mem;
		gres_merge(p, gres);
		free(gres);
	}
	p->is_default |= is_default;
	p->nodes += nodes;
	p->nodes_alloc += aiot[0];
	p->nodes_idle += aiot[1];
	p->nodes_other += aiot[2];
	return (0);
}

int
slurm_parse_sinfo(const char *text, struct slurm_partitions *parts,
    char **cause)
{
	if (for_lines(text, "sinfo", &parts->notes, cause, sinfo_line,
	    parts) != 0)
		return (-1);
	return (0);
}

const struct slurm_partition *
slurm_partition_find(const struct slurm_partitions *parts, const char *name)
{
	size_t	i;

	for (i = 0; i < parts->n; i++) {
		if (strcmp(parts->v[i].name, name) == 0)
			return (&parts->v[i]);
	}
	return (NULL);
}

const struct slurm_partition *
slurm_partition_default(const struct slurm_partitions *parts)
{
	size_t	i;

	for (i = 0; i < parts->n; i++) {
		if (parts->v[i].is_default)
			return (&parts->v[i]);
	}
	return (NULL);
}

void
slurm_partitions_free(struct slurm_partitions *parts)
{
	size_t	i;

	for (i = 0; i < parts->n; i++) {
		free(parts->v[i].name);
		free(parts->v[i].avail);
		free(parts->v[i].gres);
	}
	free(parts->v);
	free(parts->notes);
	parts->v = NULL;
	parts->n = 0;
	parts->notes = NULL;
}

/* --- node lists ---------------------------------------------------------- */

/*
 * Expand one host expression (no top-level commas): prefix, then the first
 * bracket group, then recurse on the rest for every value of the group.
 */
static int
expand_one(const char *prefix, const char *expr, struct strv *out,
    char **cause)
{
	const char	*open, *close, *p, *end, *dash, *comma;
	char		*pre, *name;
	long		 lo, hi, v;
	int		 width;
	size_t		 len;

	open = strchr(expr, '[');
	if (open == NULL) {
		if (strchr(expr, ']') != NULL)
			return (cause_set(cause, "unbalanced ']'"));
		if (out->n >= NODELIST_MAX)
			return (cause_set(cause, "more than %d nodes",
			    NODELIST_MAX));
		name = xasprintf("%s%s", prefix, expr);
		strv_add(out, name);
		free(name);
		return (0);
	}
	if ((close = strchr(open, ']')) == NULL)
		return (cause_set(cause, "unbalanced '['"));
	if (memchr(expr, ']', open - expr) != NULL ||
	    memchr(open + 1, '[', close - open - 1) != NULL)
		return (cause_set(cause, "nested or unbalanced brackets"));

	for (p = open + 1; p < close; p = end + 1) {
		comma = memchr(p, ',', close - p);
		end = comma != NULL ? comma : close;
		dash = memchr(p, '-', end - p);
		len = (dash != NULL ? dash : end) - p;
		if ((lo = str_digits_n(p, len)) < 0)
			return (cause_set(cause, "bad range \"%.*s\"",
			    (int)(end - p), p));
		width = (int)len;
		hi = lo;
		if (dash != NULL &&
		    (hi = str_digits_n(dash + 1, end - dash - 1)) < 0)
			return (cause_set(cause, "bad range \"%.*s\"",
			    (int)(end - p), p));
		if (hi < lo)
			return (cause_set(cause, "reversed range \"%.*s\"",
			    (int)(end - p), p));
		if (hi - lo >= NODELIST_MAX)
			return (cause_set(cause, "more than %d nodes",
			    NODELIST_MAX));
		for (v = lo; v <= hi; v++) {
			pre = xasprintf("%s%.*s%0*ld", prefix,
			    (int)(open - expr), expr, width, v);
			if (expand_one(pre, close + 1, out, cause) != 0) {
				free(pre);
				return (-1);
			}
			free(pre);
		}
	}
	return (0);
}

/*
 * Check every bracket group of a host expression and count the names it
 * expands to (at most NODELIST_MAX + 1), before expanding anything: a bad
 * group at the end must not cost the product of the groups before it, and
 * an empty group "[]" is an error, not zero names.
 */
static int
scan_groups(const char *expr, size_t *count, char **cause)
{
	const char	*open, *close, *p, *end, *dash, *comma;
	long		 lo, hi;
	size_t		 len, n;

	*count = 1;
	for (;;) {
		if ((open = strchr(expr, '[')) == NULL) {
			if (strchr(expr, ']') != NULL)
				return (cause_set(cause, "unbalanced ']'"));
			return (0);
		}
		if ((close = strchr(open, ']')) == NULL)
			return (cause_set(cause, "unbalanced '['"));
		if (memchr(expr, ']', open - expr) != NULL ||
		    memchr(open + 1, '[', close - open - 1) != NULL)
			return (cause_set(cause, "nested or unbalanced "
			    "brackets"));
		n = 0;
		for (p = open + 1; ; p = end + 1) {
			comma = memchr(p, ',', close - p);
			end = comma != NULL ? comma : close;
			dash = memchr(p, '-', end - p);
			len = (dash != NULL ? dash : end) - p;
			if ((lo = str_digits_n(p, len)) < 0 || (hi = dash != NULL ?
			    str_digits_n(dash + 1, end - dash - 1) : lo) < 0)
				return (cause_set(cause, "bad range \"%.*s\"",
				    (int)(end - p), p));
			if (hi < lo)
				return (cause_set(cause, "reversed range "
				    "\"%.*s\"", (int)(end - p), p));
			n += hi - lo + 1;
			if (n > NODELIST_MAX)
				n = NODELIST_MAX + 1;
			if (end == close)
				break;
		}
		*count *= n;
		if (*count > NODELIST_MAX)
			*count = NODELIST_MAX + 1;
		expr = close + 1;
	}
}

int
slurm_nodelist_expand(const char *list, struct strv *out, char **cause)
{
	char		*copy, *cause1 = NULL;
	const char	*p, *q;
	size_t		 count;
	int		 depth, rc = 0;

	if (list == NULL || *list == '\0' || strcmp(list, "None assigned") == 0
	    || strcmp(list, "(null)") == 0)
		return (0);
	/* Split on commas outside brackets. */
	for (p = list; *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		depth = 0;
		for (q = p; *q != '\0'; q++) {
			if (*q == '[')
				depth++;
			else if (*q == ']')
				depth--;
			else if (*q == ',' && depth == 0)
				break;
		}
		if (q == p)
			continue;
		copy = xstrndup(p, q - p);
		if (strchr(copy, ' ') != NULL)
			rc = cause_set(&cause1, "blank in node name");
		else if ((rc = scan_groups(copy, &count, &cause1)) == 0 &&
		    out->n + count > NODELIST_MAX)
			rc = cause_set(&cause1, "more than %d nodes",
			    NODELIST_MAX);
		else if (rc == 0)
			rc = expand_one("", copy, out, &cause1);
		free(copy);
		if (rc != 0)
			break;
	}
	if (rc != 0) {
		cause_set(cause, "node list \"%s\": %s", list, cause1);
		free(cause1);
		return (-1);
	}
	return (0);
}
