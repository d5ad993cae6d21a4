/*
 * Job arrays (array.h): sbatch --array's syntax, checked before the
 * cluster sees it, with every limit named in the message.
 */
#include "array.h"

#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "util.h"

/*
 * Digits only (no sign, no space): the index, or -1.  Over a billion is
 * not a number here; under it, the limits below name what is too large.
 */
static long
array_num(const char **pp)
{
	return str_number(pp, 1000000000L);
}

/* Walk s; mark (bits, may be NULL) each index.  0 or -1 with *cause. */
static int
array_walk(const char *s, unsigned char *bits, struct array_info *ai,
    char **cause)
{
	const char	*p = s;
	long		 a, b, step, throttle = 0, i;

	memset(ai, 0, sizeof *ai);
	ai->first = -1;
	if (s == NULL || *s == '\0')
		return cause_set(cause, "array is empty: give indices such as "
		    "0-99%%4, 0-15:4 or 1,3,5");
	if (strlen(s) > ARRAY_SPEC_MAX)
		return cause_set(cause, "array is longer than %d characters",
		    ARRAY_SPEC_MAX);
	for (;;) {
		if ((a = array_num(&p)) < 0)
			goto bad;
		b = a;
		step = 1;
		if (*p == '-') {
			p++;
			if ((b = array_num(&p)) < 0)
				goto bad;
			if (b < a)
				return cause_set(cause, "array range %ld-%ld "
				    "runs backwards: write %ld-%ld", a, b, b,
				    a);
			if (*p == ':') {
				p++;
				if ((step = array_num(&p)) < 0)
					goto bad;
				if (step < 1)
					return cause_set(cause, "array step "
					    "must be 1 or more, not 0");
			}
		}
		if (b > ARRAY_INDEX_MAX)
			return cause_set(cause, "array index %ld is over %d, "
			    "the most SLURM's MaxArraySize allows", b,
			    ARRAY_INDEX_MAX);
		for (i = a; i <= b; i += step) {
			if (bits != NULL && (bits[i / 8] & (1 << (i % 8))))
				continue;
			if (bits != NULL)
				bits[i / 8] |= (unsigned char)(1 << (i % 8));
			ai->ntasks++;
			if (ai->ntasks > ARRAY_TASKS_MAX)
				return cause_set(cause, "array has more than "
				    "%d tasks, sqdeck's limit: split it",
				    ARRAY_TASKS_MAX);
			if (ai->first < 0 || i < ai->first)
				ai->first = (int)i;
			if (i > ai->last)
				ai->last = (int)i;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		break;
	}
	if (*p == '%') {
		p++;
		if ((throttle = array_num(&p)) < 0 || *p != '\0')
			goto bad;
		if (throttle < 1 || throttle > ARRAY_TASKS_MAX)
			return cause_set(cause, "array throttle %%%ld must be "
			    "from 1 to %d", throttle, ARRAY_TASKS_MAX);
		ai->throttle = (int)throttle;
	}
	if (*p != '\0')
		goto bad;
	return 0;
bad:
	return cause_set(cause, "array '%s' is not SLURM's --array form %s%s%s: "
	    "give indices and ranges separated by ',' (0-15, 0-15:4 for a "
	    "step, 1,3,5), then %%N to run at most N at once (0-99%%4); "
	    "indices 0 to %d, at most %d tasks", s, *p != '\0' ? "at '" :
	    "at the end", p, *p != '\0' ? "'" : "", ARRAY_INDEX_MAX,
	    ARRAY_TASKS_MAX);
}

int
array_parse(const char *s, struct array_info *ai, char **cause)
{
	struct array_info	 dummy;
	unsigned char		*bits;
	int			 rc;

	if (ai == NULL)
		ai = &dummy;
	bits = xcalloc((size_t)ARRAY_INDEX_MAX / 8 + 1, 1);
	rc = array_walk(s, bits, ai, cause);
	free(bits);
	return rc;
}

int
array_each(const char *s, int (*fn)(int, void *), void *arg)
{
	struct array_info	 ai;
	unsigned char		*bits;
	char			*why = NULL;
	int			 i, n = 0;

	bits = xcalloc((size_t)ARRAY_INDEX_MAX / 8 + 1, 1);
	if (array_walk(s, bits, &ai, &why) != 0) {
		free(why);
		free(bits);
		return -1;
	}
	for (i = ai.first; i >= 0 && i <= ai.last; i++) {
		if (!(bits[i / 8] & (1 << (i % 8))))
			continue;
		n++;
		if (fn(i, arg) != 0)
			break;
	}
	free(bits);
	return n;
}

/* --- the tasks of a submitted array ---------------------------------------- */

static int
array_collect(int i, void *arg)
{
	struct array_status	*as = arg;

	as->idx[as->n] = i;
	as->st[as->n] = RSTATE_UNKNOWN;
	as->n++;
	return 0;
}

int
array_status_init(struct array_status *as, const char *spec)
{
	struct array_info	 ai;
	char			*why = NULL;

	memset(as, 0, sizeof *as);
	if (array_parse(spec, &ai, &why) != 0) {
		free(why);
		return -1;
	}
	as->idx = xcalloc((size_t)ai.ntasks, sizeof *as->idx);
	as->st = xcalloc((size_t)ai.ntasks, sizeof *as->st);
	array_each(spec, array_collect, as);
	return 0;
}

void
array_status_free(struct array_status *as)
{
	free(as->idx);
	free(as->st);
	memset(as, 0, sizeof *as);
}

struct array_set {
	struct array_status	*as;
	enum rstate		 st;
};

static void
array_set_one(struct array_status *as, int i, enum rstate st)
{
	size_t	lo = 0, hi = as->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (as->idx[mid] == i) {
			as->st[mid] = st;
			return;
		}
		if (as->idx[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
}

static int
array_set_each(int i, void *arg)
{
	struct array_set	*s = arg;

	array_set_one(s->as, i, s->st);
	return 0;
}

int
array_tasks_live(const char *tasks)
{
	return tasks != NULL && (strstr(tasks, "=PENDING") != NULL ||
	    strstr(tasks, "=RUNNING") != NULL);
}

/*
 * A row of a pending range ("12_[2-3%2]") never overrides what a row of
 * one task said: both can be in sacct's reply for a moment.
 */
int
array_row_is_range(const char *sid, const char *jobid)
{
	size_t	len = strlen(sid);

	return strncmp(jobid, sid, len) == 0 && jobid[len] == '_' &&
	    jobid[len + 1] == '[';
}

void
array_status_row(struct array_status *as, const char *sid,
    const char *jobid, const char *slurm_state)
{
	struct state_map	 m;
	struct array_set	 s;
	size_t			 len = strlen(sid);
	const char		*p;
	char			*inner, *end;
	long			 i;

	if (strncmp(jobid, sid, len) != 0 || jobid[len] != '_')
		return;
	p = jobid + len + 1;
	/*
	 * Tasks share status.json: SLURM's word decides (COMPLETED is exit
	 * 0).  An unknown word says nothing about the task: keep it.
	 */
	if (state_map(slurm_state, STATUS_PASS, &m) != 0 ||
	    m.state == RSTATE_UNKNOWN)
		return;
	if (*p == '[') {
		inner = xstrdup(p + 1);
		if ((end = strchr(inner, ']')) != NULL && end[1] == '\0') {
			*end = '\0';
			s.as = as;
			s.st = m.state;
			array_each(inner, array_set_each, &s);
		}
		free(inner);
		return;
	}
	if ((i = str_number(&p, ARRAY_INDEX_MAX)) < 0 || *p != '\0')
		return;
	array_set_one(as, (int)i, m.state);
}

char *
array_status_failed(const struct array_status *as)
{
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	buf_adds(&b, "");
	for (i = 0; i < as->n; i++) {
		if (as->st[i] == RSTATE_ERROR)
			buf_printf(&b, "%s%d", b.len ? "," : "", as->idx[i]);
	}
	return buf_steal(&b);
}

enum rstate
array_status_verdict(struct array_status *as, char **summary, char **tasks)
{
	static const enum rstate order[] = { RSTATE_RUNNING, RSTATE_PENDING,
	    RSTATE_COMPLETE, RSTATE_ERROR, RSTATE_CANCELED, RSTATE_UNKNOWN };
	static const char *words[] = { "running", "pending", "completed",
	    "failed", "cancelled", "not seen" };
	size_t		 count[6] = { 0 }, i, k;
	struct buf	 b, t;
	char		*failed;
	enum rstate	 st;
	int		 seen = 0;

	/*
	 * A task cancelled while pending leaves the range and is in neither
	 * squeue nor sacct; once any task was seen, one not seen is that.
	 */
	for (i = 0; i < as->n; i++)
		seen |= as->st[i] != RSTATE_UNKNOWN;
	for (i = 0; seen && i < as->n; i++) {
		if (as->st[i] == RSTATE_UNKNOWN)
			as->st[i] = RSTATE_CANCELED;
	}
	for (i = 0; i < as->n; i++) {
		for (k = 0; k < 6; k++) {
			if (as->st[i] == order[k])
				count[k]++;
		}
	}
	buf_init(&b);
	buf_adds(&b, "");
	for (k = 0; k < 6; k++) {
		if (count[k] == 0)
			continue;
		buf_printf(&b, "%s%zu %s", b.len ? ", " : "", count[k],
		    words[k]);
		if (order[k] == RSTATE_ERROR) {
			failed = array_status_failed(as);
			buf_printf(&b, " (task%s %s)", count[k] > 1 ? "s" : "",
			    failed);
			free(failed);
		}
	}
	buf_printf(&b, " of %zu tasks", as->n);
	buf_init(&t);
	buf_adds(&t, "");
	for (i = 0; i < as->n; i++)
		buf_printf(&t, "%s%d=%s", i ? " " : "", as->idx[i],
		    state_word(as->st[i]));
	if (count[5] == as->n)
		st = RSTATE_UNKNOWN;
	else if (count[0] != 0)
		st = RSTATE_RUNNING;
	else if (count[1] != 0 || count[5] != 0)
		st = RSTATE_PENDING;
	else if (count[2] == as->n)
		st = RSTATE_COMPLETE;
	else if (count[3] != 0)
		st = RSTATE_ERROR;
	else
		st = RSTATE_CANCELED;
	*summary = buf_steal(&b);
	*tasks = buf_steal(&t);
	return st;
}

int
array_status_load(struct array_status *as, const char *spec,
    const char *tasks)
{
	struct state_map	 m;
	const char		*p = tasks;
	char			 word[32];
	long			 i;
	size_t			 n;

	if (array_status_init(as, spec) != 0)
		return -1;
	while (p != NULL && *p != '\0') {
		if ((i = str_number(&p, ARRAY_INDEX_MAX)) < 0 || *p != '=')
			break;
		p++;
		n = strcspn(p, " ");
		if (n < sizeof word) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (state_map(word, STATUS_PASS, &m) == 0)
				array_set_one(as, (int)i, m.state);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	return 0;
}
