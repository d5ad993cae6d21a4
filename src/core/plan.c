/*
 * Resource planning (README: resource defaults).  Defaults: 1 node, 4 GPUs, at
 * most 8 per node, 16 CPUs per task, 4 h, child timeout 0.95 of the time,
 * requeue on, sqsh on.  A job of >= a node's GPUs takes whole exclusive nodes.
 *  The default time never exceeds 4 h; more is only for an explicit time on a
 * partition known to allow it -- never a 12 h default.
 */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
plan_format_time(int minutes, char *buf, size_t len)
{
	snprintf(buf, len, "%d:%02d:00", minutes / 60, minutes % 60);
}

/*
 * The time as the user wrote it: 4:00:01 stays 4:00:01 in messages although
 * SLURM (and the plan) count whole minutes (issue 26.12).
 */
static void
want_time(const struct spec *sp, int minutes, char *buf, size_t len)
{
	int	s = sp != NULL ? sp->time_seconds : 0;

	if (s > 0 && s % 60 != 0 && (s + 59) / 60 == minutes)
		snprintf(buf, len, "%d:%02d:%02d", s / 3600, s / 60 % 60,
		    s % 60);
	else
		plan_format_time(minutes, buf, len);
}

/* How the user changes the time where the spec came from. */
static const char *
knob(const struct spec *sp)
{
	return sp != NULL && sp->time_knob != NULL ? sp->time_knob : "--time";
}

/* The shortest --time spelling: 4h, 90m -> 1h30m, 45m. */
static void
short_time(int minutes, char *buf, size_t len)
{
	if (minutes % 60 == 0)
		snprintf(buf, len, "%dh", minutes / 60);
	else if (minutes > 60)
		snprintf(buf, len, "%dh%dm", minutes / 60, minutes % 60);
	else
		snprintf(buf, len, "%dm", minutes);
}

/* Notes accumulate: a plan can adjust both the GPUs and the time. */
static void
add_note(struct plan *pl, char *note)
{
	char	*old = pl->note;

	if (old == NULL)
		pl->note = note;
	else {
		pl->note = xasprintf("%s; %s", old, note);
		free(old);
		free(note);
	}
}

static int
limit_is(const char *limit, const char *name)
{
	size_t	n = strlen(name);

	return strncmp(limit, name, n) == 0 &&
	    (limit[n] == '\0' || (limit[n] == '*' && limit[n + 1] == '\0'));
}

/* A partition's MaxTime as words, for messages. */
static void
max_words(int max, char *buf, size_t len)
{
	if (max == PLAN_UNLIMITED)
		snprintf(buf, len, "no MaxTime");
	else {
		snprintf(buf, len, "MaxTime ");
		plan_format_time(max, buf + strlen(buf), len - strlen(buf));
	}
}

static const struct plan_limit *
limit_find(const struct plan_limit *limits, size_t nlimits, const char *name)
{
	size_t	i;

	for (i = 0; limits != NULL && i < nlimits; i++) {
		if (limit_is(limits[i].name, name))
			return &limits[i];
	}
	return NULL;
}

/* A partition state in which SLURM neither starts nor queues the job. */
static int
state_unusable(const char *state)
{
	return state != NULL && *state != '\0' && strcmp(state, "up") != 0;
}

/*
 * No partitions set for the cluster: the package's default names are
 * another site's.  When none of them exists there, the cluster's own
 * default partition (sinfo's '*') takes their place, and the plan says so.
 */
static const struct plan_limit *
plan_default_limit(const struct plan_limit *limits, size_t nlimits,
    const struct strv *names)
{
	size_t	i, n;

	if (limits == NULL || nlimits == 0)
		return NULL;
	for (i = 0; i < names->n; i++) {
		if (limit_find(limits, nlimits, names->v[i]) != NULL)
			return NULL;
	}
	for (i = 0; i < nlimits; i++) {
		n = strlen(limits[i].name);
		if (limits[i].is_default ||
		    (n > 1 && limits[i].name[n - 1] == '*'))
			return &limits[i];
	}
	return NULL;
}

static void
plan_cluster_default(const struct plan_limit *limits, size_t nlimits,
    struct strv *cand, struct plan *pl)
{
	const struct plan_limit	*def;
	size_t			 n;

	if ((def = plan_default_limit(limits, nlimits, cand)) == NULL)
		return;
	strv_free(cand);
	n = strcspn(def->name, "*");
	strv_add(cand, "");
	free(cand->v[0]);
	cand->v[0] = xstrndup(def->name, n);
	add_note(pl, xasprintf("partition %s: the cluster's default (no "
	    "partitions are set for it, and none of sqdeck's default names "
	    "exists there; set 'partitions:' in clusters.yaml to choose)",
	    cand->v[0]));
}

/*
 * One partition of several (SLURM_PARTITION is a list): each is
 * checked against its limits, the ones that cannot take the job are
 * dropped with the reason, and SLURM gets the rest as -p a,b,c (it
 * starts the job where it can first run).
 */
static int
plan_partitions(const struct spec *sp, const struct cluster *cl,
    const struct plan_limit *limits, size_t nlimits, struct plan *pl,
    char **cause)
{
	const struct plan_limit	*l;
	struct strv		 cand = { 0 }, keep = { 0 };
	struct buf		 b, dropped, names;
	char			 want[32], max[32], shortmax[32], use[96];
	const char		*cname = cl != NULL ? cl->name : NULL;
	int			*maxv = NULL, explicit = 0, from_cluster = 0;
	int			 best, t;
	size_t			 i, nup = 0;

	if (sp != NULL && sp->partition != NULL)
		strv_split(&cand, sp->partition, ',');
	else if (cl != NULL) {
		for (i = 0; i < cl->partitions.n; i++)
			strv_add(&cand, cl->partitions.v[i]);
		if (cl->partitions_default)
			plan_cluster_default(limits, nlimits, &cand, pl);
	}
	if (cand.n == 0)
		return cause_set(cause, "no partition: set 'partition' in the "
		    "job spec, or SLURM_PARTITION");

	if (sp != NULL && sp->time_minutes > 0) {
		pl->time_minutes = sp->time_minutes;
		explicit = 1;
	} else if (cl != NULL && cl->time_hours > 0) {
		/* SLURM_TIME_HOURS: the user's own choice, checked below. */
		pl->time_minutes = (int)ceil(cl->time_hours * 60);
		from_cluster = 1;
	} else
		pl->time_minutes = PLAN_DEFAULT_MINUTES;

	/* One partition: the messages say exactly what to change. */
	if (cand.n == 1) {
		pl->partition = xstrdup(cand.v[0]);
		strv_free(&cand);
		pl->max_minutes = PLAN_MAX_MINUTES;
		if (limits != NULL) {
			if ((l = limit_find(limits, nlimits,
			    pl->partition)) == NULL) {
				buf_init(&b);
				for (i = 0; i < nlimits; i++) {
					buf_printf(&b, "%s%.*s", i ? ", " : "",
					    (int)strcspn(limits[i].name, "*"),
					    limits[i].name);
				}
				cause_set(cause, "partition '%s' does not "
				    "exist%s%s%s (partitions: %s): choose one "
				    "of those", pl->partition,
				    cname ? " on cluster '" : "",
				    cname ? cname : "", cname ? "'" : "",
				    b.data != NULL ? b.data : "none");
				buf_free(&b);
				return -1;
			}
			pl->max_minutes = l->max_minutes;
		}
		if (pl->max_minutes == PLAN_UNLIMITED ||
		    pl->time_minutes <= pl->max_minutes)
			return 0;
		want_time(sp, pl->time_minutes, want, sizeof want);
		plan_format_time(pl->max_minutes, max, sizeof max);
		short_time(pl->max_minutes, shortmax, sizeof shortmax);
		if (explicit && limits != NULL)
			return cause_set(cause, "time %s exceeds partition %s's "
			    "MaxTime %s: use %s %s or less or choose another "
			    "partition", want, pl->partition, max, knob(sp),
			    shortmax);
		if (explicit)
			return cause_set(cause, "time %s exceeds %s, the maximum "
			    "while partition %s's MaxTime is unknown: use %s "
			    "%s or less", want, max, pl->partition, knob(sp),
			    shortmax);
		if (from_cluster && limits != NULL)
			return cause_set(cause, "the default time %s "
			    "(SLURM_TIME_HOURS or time_hours of cluster '%s') "
			    "exceeds partition %s's MaxTime %s: set it to %g or "
			    "less, or choose another partition", want,
			    cname, pl->partition, max,
			    pl->max_minutes / 60.0);
		if (from_cluster)
			return cause_set(cause, "the default time %s "
			    "(SLURM_TIME_HOURS or time_hours of cluster '%s') "
			    "exceeds %s, the maximum while partition %s's "
			    "MaxTime is unknown: set it to %g or less", want,
			    cname, max, pl->partition, pl->max_minutes / 60.0);
		/* The package default just shrinks to fit. */
		pl->time_minutes = pl->max_minutes;
		add_note(pl, xasprintf("time %s: partition %s's MaxTime "
		    "(the default is 4:00:00)", max, pl->partition));
		return 0;
	}

	if (limits == NULL && pl->time_minutes > PLAN_MAX_MINUTES) {
		want_time(sp, pl->time_minutes, want, sizeof want);
		plan_format_time(PLAN_MAX_MINUTES, max, sizeof max);
		short_time(PLAN_MAX_MINUTES, shortmax, sizeof shortmax);
		cause_set(cause, "time %s exceeds %s, the maximum while the "
		    "MaxTime of partitions %s is unknown: %s%s %s or less",
		    want, max, sp != NULL && sp->partition != NULL ?
		    sp->partition : "of SLURM_PARTITION", explicit ? "use " :
		    "set SLURM_TIME_HOURS to", explicit ? knob(sp) : "",
		    explicit ? shortmax : "4");
		strv_free(&cand);
		return -1;
	}

	/* A list: drop what cannot be used at all, then what is too short. */
	maxv = xcalloc(cand.n, sizeof *maxv);
	buf_init(&dropped);
	for (i = 0; i < cand.n; i++) {
		maxv[i] = PLAN_MAX_MINUTES;
		if (limits == NULL)
			continue;
		if ((l = limit_find(limits, nlimits, cand.v[i])) == NULL) {
			buf_printf(&dropped, "%s%s (does not exist)",
			    dropped.len ? ", " : "", cand.v[i]);
			maxv[i] = 0;
			continue;
		}
		if (state_unusable(l->state)) {
			buf_printf(&dropped, "%s%s (state %s)",
			    dropped.len ? ", " : "", cand.v[i], l->state);
			maxv[i] = 0;
			continue;
		}
		maxv[i] = l->max_minutes;
		nup++;
	}
	if (limits == NULL)
		nup = cand.n;
	/* The package default shrinks to the longest MaxTime there is. */
	if (!explicit && !from_cluster && nup > 0) {
		best = 0;
		for (i = 0; i < cand.n; i++) {
			if (maxv[i] == PLAN_UNLIMITED ||
			    maxv[i] >= pl->time_minutes) {
				best = pl->time_minutes;
				break;
			}
			if (maxv[i] > best)
				best = maxv[i];
		}
		if (best > 0 && best < pl->time_minutes) {
			pl->time_minutes = best;
			plan_format_time(best, max, sizeof max);
			add_note(pl, xasprintf("time %s: the longest MaxTime "
			    "of partitions %s (the default is 4:00:00)", max,
			    sp != NULL && sp->partition != NULL ?
			    sp->partition : "of SLURM_PARTITION"));
		}
	}
	want_time(sp, pl->time_minutes, want, sizeof want);
	pl->max_minutes = 0;
	for (i = 0; i < cand.n; i++) {
		t = maxv[i];
		if (t == 0)
			continue;	/* already dropped */
		if (t != PLAN_UNLIMITED && pl->time_minutes > t) {
			max_words(t, max, sizeof max);
			buf_printf(&dropped, "%s%s (%s < %s)",
			    dropped.len ? ", " : "", cand.v[i], max, want);
			continue;
		}
		strv_add(&keep, cand.v[i]);
		if (t == PLAN_UNLIMITED || pl->max_minutes == PLAN_UNLIMITED)
			pl->max_minutes = PLAN_UNLIMITED;
		else if (t > pl->max_minutes)
			pl->max_minutes = t;
	}
	if (keep.n == 0) {
		short_time(PLAN_MAX_MINUTES, shortmax, sizeof shortmax);
		if (limits == NULL || !explicit)
			snprintf(use, sizeof use, "%s", limits == NULL ?
			    "their MaxTime is unknown, use a time of 4h or "
			    "less" : "lower SLURM_TIME_HOURS or choose other "
			    "partitions");
		else
			snprintf(use, sizeof use, "use a shorter %s or another "
			    "%s", knob(sp), sp->time_knob != NULL ?
			    "partition" : "--partition");
		cause_set(cause, "no partition of %s can take a job of %s: "
		    "%s; %s", sp != NULL && sp->partition != NULL ?
		    sp->partition : "SLURM_PARTITION", want, dropped.data,
		    use);
		goto fail;
	}
	buf_init(&names);
	for (i = 0; i < keep.n; i++)
		buf_printf(&names, "%s%s", i ? "," : "", keep.v[i]);
	pl->partition = buf_steal(&names);
	if (dropped.len != 0)
		add_note(pl, xasprintf("partitions dropped: %s; asking SLURM "
		    "for %s", dropped.data, pl->partition));
	free(maxv);
	buf_free(&dropped);
	strv_free(&cand);
	strv_free(&keep);
	return 0;
fail:
	free(maxv);
	buf_free(&dropped);
	strv_free(&cand);
	strv_free(&keep);
	return -1;
}

static void
plan_timeout(struct plan *pl)
{
	plan_format_time(pl->time_minutes, pl->time_str, sizeof pl->time_str);
	pl->timeout_seconds = (int)((long)pl->time_minutes * 60 *
	    PLAN_TIMEOUT_PERCENT / 100);
	/*
	 * TERM, then KILL after half of what is left, so the script still
	 * has time for its verdict before SLURM's limit: 3 s of a 2 min job.
	 */
	pl->grace_seconds = (pl->time_minutes * 60 - pl->timeout_seconds) / 2;
	if (pl->grace_seconds > PLAN_GRACE_MAX)
		pl->grace_seconds = PLAN_GRACE_MAX;
	if (pl->grace_seconds < 1)
		pl->grace_seconds = 1;
}

static int
plan_gpus(const struct spec *sp, const struct cluster *cl,
    const struct plan_limit *lim, struct plan *pl, char **cause)
{
	const char	*cname = cl != NULL ? cl->name : "this cluster";
	int		 max, gpus, nodes, need, explicit_gpus;

	/* The config wins; else what the partition's nodes have. */
	if (cl != NULL && cl->gpus_per_node > 0)
		max = cl->gpus_per_node;
	else if (lim != NULL && lim->gres_known && lim->gpus_per_node > 0)
		max = lim->gpus_per_node;
	else
		max = CONFIG_GPUS_PER_NODE;
	explicit_gpus = sp != NULL && sp->gpus >= 0;
	gpus = explicit_gpus ? sp->gpus : PLAN_DEFAULT_GPUS;
	nodes = (sp != NULL && sp->nodes > 0) ? sp->nodes : 0;

	if (sp != NULL && sp->gpus_per_node > 0) {
		if (sp->gpus_per_node > max)
			return cause_set(cause, "gpus_per_node %d is more than "
			    "the %d GPUs a node of cluster '%s' has: use %d or "
			    "less", sp->gpus_per_node, max, cname, max);
		if (nodes == 0)
			nodes = explicit_gpus ? (gpus + sp->gpus_per_node - 1) /
			    sp->gpus_per_node : 1;
		if (!explicit_gpus)
			gpus = nodes * sp->gpus_per_node;
		if (gpus != nodes * sp->gpus_per_node)
			return cause_set(cause, "gpus %d is not nodes %d x "
			    "gpus_per_node %d: set gpus to %d or drop one of "
			    "the three", gpus, nodes, sp->gpus_per_node,
			    nodes * sp->gpus_per_node);
		pl->gpus_per_node = sp->gpus_per_node;
		pl->exclusive = sp->gpus_per_node == max;
	} else if (gpus >= max) {
		/* Whole nodes: the node count follows from the GPUs. */
		need = (gpus + max - 1) / max;
		if (nodes != 0 && nodes != need)
			return cause_set(cause, "nodes %d does not fit gpus %d: "
			    "%d GPUs take %d whole node%s of %d on cluster '%s'; "
			    "set nodes to %d or leave it out", nodes, gpus,
			    gpus, need, need == 1 ? "" : "s", max, cname, need);
		nodes = need;
		if (gpus % max != 0)
			add_note(pl, xasprintf("gpus %d rounded up to %d: "
			    "jobs of %d GPUs or more take whole nodes of %d",
			    gpus, nodes * max, max, max));
		gpus = nodes * max;
		pl->gpus_per_node = max;
		pl->exclusive = 1;
	} else {
		if (nodes == 0)
			nodes = PLAN_DEFAULT_NODES;
		if (gpus % nodes != 0)
			return cause_set(cause, "gpus %d cannot be split evenly "
			    "over %d nodes: use a multiple of %d GPUs, or set "
			    "gpus_per_node", gpus, nodes, nodes);
		pl->gpus_per_node = gpus / nodes;
	}
	pl->nodes = nodes;
	pl->gpus = gpus;
	pl->multinode = nodes > 1;
	return 0;
}

/* What no node of the partition can hold: SLURM would queue it for ever. */
static int
plan_fits(const struct plan *pl, const struct plan_limit *lim, int asked,
    char **cause)
{
	if (lim->nodes > 0 && pl->nodes > lim->nodes && pl->exclusive &&
	    pl->gpus_per_node > 0)
		return cause_set(cause, "gpus %d: that is %d whole nodes of %d "
		    "GPUs, and partition %s has %d node%s: ask for %d GPUs or "
		    "fewer", asked, pl->nodes, pl->gpus_per_node,
		    pl->partition, lim->nodes, lim->nodes == 1 ? "" : "s",
		    lim->nodes * pl->gpus_per_node);
	if (lim->nodes > 0 && pl->nodes > lim->nodes)
		return cause_set(cause, "nodes %d: partition %s has %d node%s: "
		    "ask for %d or fewer", pl->nodes, pl->partition,
		    lim->nodes, lim->nodes == 1 ? "" : "s", lim->nodes);
	if (lim->gres_known && pl->gpus_per_node > lim->gpus_per_node) {
		if (lim->gpus_per_node == 0)
			return cause_set(cause, "gpus %d: the nodes of "
			    "partition %s have no GPUs (sinfo GRES): set gpus "
			    "to 0 or choose another partition", pl->gpus,
			    pl->partition);
		return cause_set(cause, "gpus_per_node %d: the nodes of "
		    "partition %s have %d GPUs each (sinfo GRES): ask for %d "
		    "per node or fewer", pl->gpus_per_node, pl->partition,
		    lim->gpus_per_node, lim->gpus_per_node);
	}
	if (lim->cpus > 0 && pl->cpus_per_task > lim->cpus)
		return cause_set(cause, "cpus %d: the nodes of partition %s "
		    "have %d CPUs: ask for %d or fewer", pl->cpus_per_task,
		    pl->partition, lim->cpus, lim->cpus);
	return 0;
}

int
plan_make(const struct spec *sp, const struct cluster *cl,
    const struct plan_limit *limits, size_t nlimits, struct plan *pl,
    char **cause)
{
	const struct plan_limit	*lim;

	memset(pl, 0, sizeof *pl);
	/*
	 * GPUs per node come from the first candidate partition's nodes
	 * (sinfo GRES) unless the config says; the list is checked below.
	 */
	lim = NULL;
	if (sp != NULL && sp->partition != NULL) {
		char	*first = xstrdup(sp->partition), *comma;

		if ((comma = strchr(first, ',')) != NULL)
			*comma = '\0';
		lim = limit_find(limits, nlimits, first);
		free(first);
	} else if (cl != NULL && cl->partitions.n > 0) {
		lim = limit_find(limits, nlimits, cl->partitions.v[0]);
		if (lim == NULL && cl->partitions_default)
			lim = plan_default_limit(limits, nlimits,
			    &cl->partitions);
	}
	if (plan_gpus(sp, cl, lim, pl, cause) != 0)
		goto fail;
	if (plan_partitions(sp, cl, limits, nlimits, pl, cause) != 0)
		goto fail;
	plan_timeout(pl);
	pl->cpus_per_task = (sp != NULL && sp->cpus > 0) ? sp->cpus :
	    PLAN_DEFAULT_CPUS;
	if (lim != NULL && plan_fits(pl, lim, sp != NULL && sp->gpus >= 0 ?
	    sp->gpus : pl->gpus, cause) != 0)
		goto fail;
	if (sp != NULL && sp->requeue >= 0)
		pl->requeue = sp->requeue;
	else if (cl != NULL && cl->requeue >= 0)
		pl->requeue = cl->requeue;
	else
		pl->requeue = 1;
	if (cl != NULL && cl->account != NULL)
		pl->account = xstrdup(cl->account);
	pl->sqsh = 1;
	pl->retry_budget = sp != NULL ? sp->retry_budget : SPEC_RETRY_BUDGET;
	return 0;
fail:
	plan_free(pl);
	return -1;
}

void
plan_free(struct plan *pl)
{
	free(pl->partition);
	free(pl->account);
	free(pl->note);
	memset(pl, 0, sizeof *pl);
}

int
plan_gres_gpus(const char *gres)
{
	const char	*p, *q, *end;
	long		 v;
	int		 best = 0;

	for (p = gres; p != NULL && *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		if (strncmp(p, "gpu", 3) != 0 || (p[3] != ':' && p + 3 != end))
			continue;
		/* The count is the last ':' field, before any "(S:..)". */
		q = p;
		while (q < end && *q != '(')
			q++;
		while (q > p && q[-1] != ':')
			q--;
		if (q == p)
			continue;
		v = strtol(q, NULL, 10);
		if (v > best && v < 100000)
			best = (int)v;
	}
	return best;
}

char *
plan_partition_text(const char *name, const char *max_time,
    const struct plan_limit *l)
{
	struct buf	b;

	buf_init(&b);
	buf_printf(&b, "%s %s", name, max_time);
	if (l->nodes > 0 || l->gres_known || l->cpus > 0) {
		buf_adds(&b, " (");
		if (l->nodes > 0)
			buf_printf(&b, "%d node%s", l->nodes,
			    l->nodes == 1 ? "" : "s");
		if (l->gres_known)
			buf_printf(&b, "%s%d GPUs each", l->nodes > 0 ? ", " :
			    "", l->gpus_per_node);
		if (l->cpus > 0)
			buf_printf(&b, "%s%d CPUs each", l->nodes > 0 ||
			    l->gres_known ? ", " : "", l->cpus);
		buf_adds(&b, ")");
	}
	return buf_steal(&b);
}

int
plan_partition_parse(const char *text, struct plan_limit *l, char **name)
{
	const char	*sp, *p;
	char		*end;
	long		 v;

	memset(l, 0, sizeof *l);
	*name = NULL;
	if ((sp = strchr(text, ' ')) == NULL || sp == text)
		return -1;
	*name = xstrndup(text, (size_t)(sp - text));
	if ((p = strchr(sp, '(')) == NULL)
		return 0;
	for (p++; *p != '\0' && *p != ')'; ) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		p = end;
		while (*p == ' ')
			p++;
		if (strncmp(p, "node", 4) == 0)
			l->nodes = (int)v;
		else if (strncmp(p, "GPU", 3) == 0) {
			l->gres_known = 1;
			l->gpus_per_node = (int)v;
		} else if (strncmp(p, "CPU", 3) == 0)
			l->cpus = (int)v;
		p += strcspn(p, ",)");
		if (*p == ',')
			p++;
		while (*p == ' ')
			p++;
	}
	return 0;
}
