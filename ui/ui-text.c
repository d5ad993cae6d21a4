/* Pure text helpers for the screen: no curses here (see ui-text.h). */
#include "ui-text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "jobact.h"
#include "text.h"
#include "util.h"

size_t
uitext_decode(const char *s, size_t len, int32_t *cp)
{
	return text_decode(s, len, cp);
}

int
uitext_cpwidth(int32_t cp)
{
	return text_cpwidth(cp);
}

/* The verbs print through the same sanitiser (text.c). */
char *
uitext_sanitize(const char *in, size_t len, int flags)
{
	return text_sanitize(in, len, flags & UITEXT_MULTILINE ?
	    TEXT_MULTILINE : 0, NULL);
}

size_t
uitext_partial_keep(const char *s, size_t len, size_t max)
{
	const char	*cr;

	if (len <= max)
		return 0;
	/* A progress bar shows only what follows its last \r. */
	cr = memrchr(s, '\r', len);
	if (cr != NULL && (size_t)(s + len - cr) <= max)
		return (size_t)(cr - s);
	return len;
}

int
uitext_width(const char *s)
{
	size_t	len, i, n;
	int32_t	cp;
	int	w = 0;

	/* Printable ASCII, most cells: a column a byte, no decoding. */
	while ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
		s++;
		w++;
	}
	len = strlen(s);
	for (i = 0; i < len; i += n) {
		n = uitext_decode(s + i, len - i, &cp);
		w += uitext_cpwidth(cp);
	}
	return w;
}

size_t
uitext_prefix(const char *s, int cols, int *used)
{
	size_t	len = strlen(s), i, n;
	int32_t	cp;
	int	w = 0, cw;

	for (i = 0; i < len; i += n) {
		n = uitext_decode(s + i, len - i, &cp);
		cw = uitext_cpwidth(cp);
		if (w + cw > cols)
			break;
		w += cw;
	}
	if (used != NULL)
		*used = w;
	return i;
}

char *
uitext_fit(const char *s, int cols, int flags)
{
	const char	*ell = (flags & UITEXT_ASCII) ? "~" : "\xe2\x80\xa6";
	struct buf	 b;
	size_t		 n;
	int		 w, used, pad;

	buf_init(&b);
	buf_add(&b, "", 0);
	if (cols <= 0)
		return buf_steal(&b);
	w = uitext_width(s);
	if (w <= cols) {
		pad = cols - w;
		if (flags & UITEXT_RIGHT)
			buf_printf(&b, "%*s", pad, "");
		buf_adds(&b, s);
		if (!(flags & UITEXT_RIGHT))
			buf_printf(&b, "%*s", pad, "");
		return buf_steal(&b);
	}
	n = uitext_prefix(s, cols - 1, &used);
	buf_add(&b, s, n);
	/* A wide character cut at the edge leaves a hole to fill. */
	buf_printf(&b, "%*s", cols - 1 - used, "");
	buf_adds(&b, ell);
	return buf_steal(&b);
}

void
uitext_age(long secs, char *buf, size_t len)
{
	if (secs < 1)
		snprintf(buf, len, "now");
	else if (secs < 60)
		snprintf(buf, len, "%lds", secs);
	else if (secs < 3600)
		snprintf(buf, len, "%ldm", secs / 60);
	else if (secs < 86400)
		snprintf(buf, len, "%ldh", secs / 3600);
	else
		snprintf(buf, len, "%ldd", secs / 86400);
}

static int
layout_used(const struct uitext_col *c, size_t n, int gap)
{
	size_t	i;
	int	used = 0, shown = 0;

	for (i = 0; i < n; i++) {
		if (c[i].width > 0) {
			used += c[i].width;
			shown++;
		}
	}
	return shown > 0 ? used + gap * (shown - 1) : 0;
}

/* The shown column with the lowest order in field (shrink or drop). */
static struct uitext_col *
layout_pick(struct uitext_col *c, size_t n, int drop)
{
	struct uitext_col	*best = NULL;
	size_t			 i;
	int			 order;

	for (i = 0; i < n; i++) {
		order = drop ? c[i].drop : c[i].shrink;
		if (order == 0 || c[i].width == 0)
			continue;
		if (!drop && c[i].width <= c[i].min)
			continue;
		if (best == NULL || order < (drop ? best->drop : best->shrink))
			best = &c[i];
	}
	return best;
}

int
uitext_layout(struct uitext_col *c, size_t n, int total, int gap)
{
	struct uitext_col	*p;
	size_t			 i;
	int			 used, over;

	for (i = 0; i < n; i++) {
		if (c[i].min > c[i].want)
			c[i].min = c[i].want;
		c[i].width = c[i].want;
	}
	while ((used = layout_used(c, n, gap)) > total) {
		over = used - total;
		if ((p = layout_pick(c, n, 0)) != NULL) {
			p->width = p->width - over < p->min ?
			    p->min : p->width - over;
			continue;
		}
		if ((p = layout_pick(c, n, 1)) == NULL)
			break;	/* nothing left to give: the edge clips */
		p->width = 0;
		/* Width a dropped column held may let others grow back. */
		for (i = 0; i < n; i++) {
			if (c[i].width > 0)
				c[i].width = c[i].want;
		}
	}
	if (used < total) {
		for (i = 0; i < n; i++) {
			if (c[i].grow && c[i].width > 0) {
				c[i].width += total - used;
				used = total;
				break;
			}
		}
	}
	return used;
}

void
uitext_jobs_layout(int width, const int want[JT_NCOLS], int out[JT_NCOLS])
{
	/* min, shrink order, drop order, grow; max want in cap[]. */
	static const struct {
		int	min, shrink, drop, grow, cap;
	} spec[JT_NCOLS] = {
		[JT_CLUSTER] =	 { 4, 4, 4, 0, 16 },
		[JT_ID] =	 { 0, 0, 0, 0, 20 },
		[JT_NAME] =	 { 8, 2, 0, 0, 40 },
		[JT_PARTITION] = { 4, 3, 3, 0, 14 },
		[JT_STATE] =	 { 0, 0, 0, 0, 13 },
		[JT_TIME] =	 { 0, 0, 5, 0, 22 },
		[JT_NODES] =	 { 3, 6, 1, 0, 5 },
		[JT_REASON] =	 { 6, 1, 2, 1, 60 },
	};
	struct uitext_col	c[JT_NCOLS];
	size_t			i;

	for (i = 0; i < JT_NCOLS; i++) {
		memset(&c[i], 0, sizeof c[i]);
		c[i].want = want[i] < spec[i].cap ? want[i] : spec[i].cap;
		if (c[i].want < 1)
			c[i].want = 1;
		c[i].min = spec[i].min != 0 ? spec[i].min : c[i].want;
		c[i].shrink = spec[i].shrink;
		c[i].drop = spec[i].drop;
		c[i].grow = spec[i].grow;
	}
	uitext_layout(c, JT_NCOLS, width, 1);
	for (i = 0; i < JT_NCOLS; i++)
		out[i] = c[i].width;
}

int
uitext_row_held(const struct jobtable_row *r)
{
	return jobtable_state_class(r->state) == JC_PENDING &&
	    r->reason != NULL && strncmp(r->reason, "JobHeld", 7) == 0;
}

const char *
uitext_act_past(int act)
{
	switch (act) {
	case JOBACT_HOLD:
		return "held";
	case JOBACT_RELEASE:
		return "released";
	case JOBACT_REQUEUE:
		return "requeued";
	case JOBACT_SIGNAL:
	case JOBACT_SIGNAL_BATCH:
		return "signalled";
	}
	return "set the time limit of";
}

const char *
uitext_act_ing(int act)
{
	switch (act) {
	case JOBACT_HOLD:
		return "holding";
	case JOBACT_RELEASE:
		return "releasing";
	case JOBACT_REQUEUE:
		return "requeueing";
	case JOBACT_SIGNAL:
	case JOBACT_SIGNAL_BATCH:
		return "signalling";
	}
	return "setting the time limit of";
}

char *
uitext_hold_skip(const struct jobtable_row *r, int act)
{
	const char	*verb = act == JOBACT_SIGNAL_BATCH ? "signal" :
			    jobact_word(act);

	if (r->finished && act == JOBACT_TIME)
		return xasprintf("%s %s has ended (%s): its time limit no "
		    "longer applies", r->cluster, r->id, r->state);
	if (r->finished)
		return xasprintf("%s %s has ended (%s): nothing to %s",
		    r->cluster, r->id, r->state, verb);
	if (act == JOBACT_HOLD &&
	    jobtable_state_class(r->state) != JC_PENDING)
		return xasprintf("%s %s is %s: SLURM holds only pending jobs",
		    r->cluster, r->id, r->state);
	if (act == JOBACT_RELEASE && !uitext_row_held(r))
		return xasprintf("%s %s is not held (%s%s%s): nothing to "
		    "release", r->cluster, r->id, r->state, r->reason != NULL &&
		    *r->reason != '\0' ? ", " : "", r->reason != NULL ?
		    r->reason : "");
	/* A range of pending tasks ("12_[4-9]") is taken as it is. */
	if ((act == JOBACT_REQUEUE || act == JOBACT_SIGNAL ||
	    act == JOBACT_SIGNAL_BATCH) &&
	    jobtable_state_class(r->state) != JC_RUNNING)
		return xasprintf("%s %s is %s: only a running job can be %s",
		    r->cluster, r->id, r->state, act == JOBACT_REQUEUE ?
		    "requeued" : "signalled");
	return NULL;
}

char *
uitext_hold_summary(int act, size_t ok, size_t n, size_t nfailed,
    const char *failed, size_t nskipped, const char *skipped)
{
	struct buf	b;

	buf_init(&b);
	buf_printf(&b, "%s ", uitext_act_past(act));
	if (ok == n)
		buf_printf(&b, "%zu job%s", n, n == 1 ? "" : "s");
	else
		buf_printf(&b, "%zu of %zu job%s", ok, n, n == 1 ? "" : "s");
	if (nfailed > 0)
		buf_printf(&b, "; failed %zu: %s", nfailed,
		    failed != NULL ? failed : "");
	if (nskipped > 0)
		buf_printf(&b, "; skipped %zu: %s", nskipped,
		    skipped != NULL ? skipped : "");
	return buf_steal(&b);
}

char *
uitext_cancel_summary(size_t n, size_t ncancelled, const char *cancelled,
    size_t nended, const char *ended, size_t nfailed, const char *failed)
{
	struct buf	b;

	buf_init(&b);
	if (ncancelled == n)
		buf_printf(&b, "cancelled %zu job%s", n, n == 1 ? "" : "s");
	else
		buf_printf(&b, "cancelled %zu of %zu job%s", ncancelled, n,
		    n == 1 ? "" : "s");
	if (ncancelled > 0)
		buf_printf(&b, ": %s", cancelled != NULL ? cancelled : "");
	if (nended > 0)
		buf_printf(&b, "; already ended %zu: %s", nended,
		    ended != NULL ? ended : "");
	if (nfailed > 0)
		buf_printf(&b, "; failed %zu: %s", nfailed,
		    failed != NULL ? failed : "");
	return buf_steal(&b);
}

int
uitext_cancel_answer(const char *message, char **was)
{
	static const char	 ended[] = " had already ended: counts as "
				    "cancelled";
	const char		*p, *q, *last = NULL;
	size_t			 len, elen = sizeof ended - 1;

	*was = NULL;
	if (message == NULL)
		return 0;
	len = strlen(message);
	/* The job's name comes first and may hold any words: the end says. */
	if (len >= elen && strcmp(message + len - elen, ended) == 0)
		return 1;
	for (p = message; (p = strstr(p, "(was ")) != NULL; p++)
		last = p;
	if (last != NULL && (q = strchr(last, ')')) != NULL)
		*was = xasprintf("%.*s", (int)(q - last + 1), last);
	return 0;
}

char *
uitext_log_pending(const struct jobtable_row *r, const char *file)
{
	const char	*why;

	if (r == NULL || r->array_tasks > 0 ||
	    jobtable_state_class(r->state) != JC_PENDING)
		return NULL;
	why = r->reason != NULL && *r->reason != '\0' ? r->reason : NULL;
	if (uitext_row_held(r))
		return xasprintf("pending, held (%s): no %s until it runs; U "
		    "releases it", why, file);
	return xasprintf("pending%s%s%s: no %s until it starts", why != NULL ?
	    " (" : "", why != NULL ? why : "", why != NULL ? ")" : "", file);
}
