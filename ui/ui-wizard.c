#include "ui-wizard.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image.h"
#include "array.h"
#include "plan.h"
#include "slurm.h"
#include "submit.h"
#include "ui-text.h"
#include "uri.h"
#include "ui-wizard-int.h"
#include "str.h"

#include "ui-wizard.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image.h"
#include "plan.h"
#include "slurm.h"
#include "ui-text.h"
#include "uri.h"

static const char *labels[WF_COUNT] = {
	[WF_CLUSTER] = "cluster",
	[WF_USER] = "SLURM_USER",
	[WF_NAME] = "job name",
	[WF_PARTITION] = "partition",
	[WF_TIME] = "time",
	[WF_NODES] = "nodes",
	[WF_GPUS] = "gpus",
	[WF_CPUS] = "cpus/task",
	[WF_IMAGE] = "image",
	[WF_COMMAND] = "command",
	[WF_DATASETS] = "datasets",
	[WF_MOUNTS] = "mounts",
	[WF_NETWORK_ARCH] = "network_arch",
	[WF_ACTION] = "action",
	[WF_REQUEUE] = "requeue",
	[WF_RETRY_BUDGET] = "retry_budget",
	[WF_FORCE_RECONVERT] = "force_reconvert",
	[WF_AFTER] = "after",
	[WF_ARRAY] = "array",
	[WF_SECRETS] = "secrets",
};

const char *
wizard_label(enum wizard_field f)
{
	return f >= 0 && f < WF_COUNT ? labels[f] : "";
}

const char *
wz_val(const struct wizard *w, enum wizard_field f)
{
	return w->value[f].data != NULL ? w->value[f].data : "";
}

void
wz_set(struct wizard *w, enum wizard_field f, const char *s)
{
	buf_free(&w->value[f]);
	buf_add(&w->value[f], "", 0);
	if (s != NULL)
		buf_adds(&w->value[f], s);
	if ((int)f == w->field)
		w->cursor_field = -1;	/* to the end of the new text */
}

size_t
wizard_cursor(const struct wizard *w)
{
	size_t	len = w->value[w->field].len;

	if (w->cursor_field != w->field || w->cursor > len)
		return len;
	return w->cursor;
}

void
wz_set_cursor(struct wizard *w, size_t at)
{
	w->cursor = at;
	w->cursor_field = w->field;
}

static void
clear_base(struct wizard *w)
{
	free(w->base);
	free(w->command_full);
	free(w->command_shown);
	w->base = w->command_full = w->command_shown = NULL;
}

int
wz_blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

void
wizard_init(struct wizard *w)
{
	int	f;

	memset(w, 0, sizeof *w);
	w->cursor_field = -1;
	for (f = 0; f < WF_COUNT; f++)
		wz_set(w, f, "");
}

static void
clear_preview(struct wizard *w)
{
	strv_free(&w->preview);
	w->preview_top = 0;
	free(w->preview_rid);
	w->preview_rid = NULL;
}

void
wizard_free(struct wizard *w)
{
	int	f;

	for (f = 0; f < WF_COUNT; f++) {
		buf_free(&w->value[f]);
		free(w->error[f]);
	}
	free(w->banner);
	free(w->cl);
	clear_preview(w);
	strv_free(&w->progress);
	free(w->job_id);
	free(w->job_cluster);
	free(w->soonest_key);
	free(w->soonest_cl);
	free(w->soonest);
	clear_base(w);
	memset(w, 0, sizeof *w);
}

void
wizard_set_clusters(struct wizard *w, const struct wizard_cluster *cl,
    size_t n)
{
	free(w->cl);
	w->cl = xcalloc(n + 1, sizeof *w->cl);
	memcpy(w->cl, cl, n * sizeof *cl);
	w->ncl = n;
}

const struct wizard_cluster *
wz_find_cluster(const struct wizard *w, const char *name)
{
	size_t	i;

	for (i = 0; i < w->ncl; i++) {
		if (strcmp(w->cl[i].name, name) == 0)
			return &w->cl[i];
	}
	return NULL;
}

const char *
wizard_cluster(const struct wizard *w)
{
	return wz_val(w, WF_CLUSTER);
}

const char *
wizard_user(const struct wizard *w)
{
	const char	*u = wz_conn_user(wz_find_cluster(w, wz_val(w, WF_CLUSTER)));

	if (wz_blank(wz_val(w, WF_USER)) || (u != NULL &&
	    strcmp(u, wz_val(w, WF_USER)) == 0))
		return NULL;
	return wz_val(w, WF_USER);
}

/* yes/no fields: "" is invalid, as is anything but these words. */
int
wz_yes_no(const char *s, int *out)
{
	/* The wizard also takes y and n; the rest as clusters.yaml does. */
	if (strcasecmp(s, "y") == 0 || strcasecmp(s, "n") == 0) {
		*out = strcasecmp(s, "y") == 0;
		return 0;
	}
	return str_bool(s, out);
}

/* A login name SLURM and ssh take: letters, digits, . _ -, not "-x". */
int
wz_user_ok(const char *s)
{
	const char	*p;

	if (*s == '\0' || *s == '-' || strlen(s) > 64)
		return 0;
	for (p = s; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("._-", *p) == NULL)
			return 0;
	}
	return 1;
}

/* The user the worker's connection logs in as. */
const char *
wz_conn_user(const struct wizard_cluster *c)
{
	const char	*u;

	if (c != NULL && c->conf != NULL && c->conf->user != NULL)
		return c->conf->user;
	if ((u = getenv("SLURM_USER")) != NULL && *u != '\0')
		return u;
	return getenv("USER");
}

/* Partition limits from the worker's sinfo ("name MaxTime"); n 0: none. */
struct plan_limit *
wz_limits_of(const struct wizard_cluster *c, size_t *n, struct strv *names)
{
	struct plan_limit	*l;
	char			*cause = NULL, *sp;
	long			 min;
	size_t			 i;

	*n = 0;
	if (c == NULL || c->partitions == NULL || c->partitions->n == 0)
		return NULL;
	l = xcalloc(c->partitions->n, sizeof *l);
	for (i = 0; i < c->partitions->n; i++) {
		const char	*p = c->partitions->v[i];
		char		*name, *t;

		if ((sp = strchr(p, ' ')) == NULL ||
		    plan_partition_parse(p, &l[*n], &name) != 0)
			continue;
		strv_add(names, name);
		free(name);
		/* "name MaxTime (what a node holds)" */
		t = xstrndup(sp + 1, strcspn(sp + 1, " "));
		if (slurm_maxtime_minutes(t, &min, &cause) != 0) {
			free(cause);
			cause = NULL;
			min = PLAN_UNLIMITED;
		}
		free(t);
		l[*n].name = names->v[names->n - 1];
		l[*n].max_minutes = min < 0 ? PLAN_UNLIMITED : (int)min;
		(*n)++;
	}
	return l;
}

int
wz_has_partition(const struct wizard_cluster *c, const char *name)
{
	size_t	i, len = strlen(name);

	if (c == NULL || c->partitions == NULL)
		return 0;
	for (i = 0; i < c->partitions->n; i++) {
		if (strncmp(c->partitions->v[i], name, len) == 0 &&
		    (c->partitions->v[i][len] == ' ' ||
		    c->partitions->v[i][len] == '\0'))
			return 1;
	}
	return 0;
}

void
wz_defaults_for_cluster(struct wizard *w)
{
	const struct wizard_cluster	*c = wz_find_cluster(w, wz_val(w, WF_CLUSTER));
	const struct cluster		*conf = c != NULL ? c->conf : NULL;
	const char			*u, *part = NULL;
	size_t				 i;

	u = wz_conn_user(c);
	wz_set(w, WF_USER, u != NULL ? u : "");
	/*
	 * The configured default partition if the cluster has it; the
	 * package's defaults (none configured) only if sinfo has them.
	 */
	if (conf != NULL && (!conf->partitions_default ||
	    (c->partitions != NULL && c->partitions->n > 0))) {
		for (i = 0; i < conf->partitions.n && part == NULL; i++) {
			if (c->partitions == NULL || c->partitions->n == 0 ||
			    wz_has_partition(c, conf->partitions.v[i]))
				part = conf->partitions.v[i];
		}
	}
	if (part == NULL && c != NULL && c->partitions != NULL &&
	    c->partitions->n > 0) {
		char	*p = xstrndup(c->partitions->v[0],
			    strcspn(c->partitions->v[0], " "));

		wz_set(w, WF_PARTITION, p);
		free(p);
	} else
		wz_set(w, WF_PARTITION, part);
}

void
wizard_open(struct wizard *w, const char *cluster, int fresh)
{
	char	t[32];
	int	f;

	w->page = WIZ_FORM;
	w->finished = 0;
	if (w->opened && !fresh)
		return;
	clear_base(w);
	for (f = 0; f < WF_COUNT; f++)
		wz_set(w, f, "");
	wz_set(w, WF_CLUSTER, cluster != NULL ? cluster :
	    w->ncl > 0 ? w->cl[0].name : "");
	wz_defaults_for_cluster(w);
	{
		const struct wizard_cluster *c = wz_find_cluster(w, cluster != NULL ?
		    cluster : "");

		if (c != NULL && c->conf != NULL && c->conf->time_hours > 0)
			snprintf(t, sizeof t, "%gh", c->conf->time_hours);
		else
			snprintf(t, sizeof t, "%dh", PLAN_DEFAULT_MINUTES / 60);
	}
	wz_set(w, WF_TIME, t);
	snprintf(t, sizeof t, "%d", PLAN_DEFAULT_NODES);
	wz_set(w, WF_NODES, t);
	snprintf(t, sizeof t, "%d", PLAN_DEFAULT_GPUS);
	wz_set(w, WF_GPUS, t);
	snprintf(t, sizeof t, "%d", PLAN_DEFAULT_CPUS);
	wz_set(w, WF_CPUS, t);
	{
		const struct wizard_cluster *c = wz_find_cluster(w,
		    wz_val(w, WF_CLUSTER));

		wz_set(w, WF_REQUEUE, c != NULL && c->conf != NULL &&
		    c->conf->requeue == 0 ? "no" : "yes");
	}
	snprintf(t, sizeof t, "%d", SPEC_RETRY_BUDGET);
	wz_set(w, WF_RETRY_BUDGET, t);
	wz_set(w, WF_FORCE_RECONVERT, "no");
	free(w->banner);
	w->banner = NULL;
	w->field = WF_IMAGE;	/* the first field without a default */
	w->opened = 1;
	wizard_validate(w);
}

static void
set_list(struct wizard *w, enum wizard_field f, char *const *v, size_t n)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
	buf_free(&w->value[f]);
	w->value[f] = b;
}

void
wizard_from_spec(struct wizard *w, const struct spec *sp, const char *cluster)
{
	char	 t[32];
	struct	 buf b;
	size_t	 i;

	wizard_open(w, cluster, 1);
	wz_set(w, WF_NAME, sp->name);
	if (sp->partition != NULL)
		wz_set(w, WF_PARTITION, sp->partition);
	if (sp->array != NULL)
		wz_set(w, WF_ARRAY, sp->array);
	if (sp->time_minutes > 0) {
		plan_format_time(sp->time_minutes, t, sizeof t);
		wz_set(w, WF_TIME, t);
	}
	if (sp->nodes > 0) {
		snprintf(t, sizeof t, "%d", sp->nodes);
		wz_set(w, WF_NODES, t);
	}
	if (sp->gpus >= 0) {
		snprintf(t, sizeof t, "%d", sp->gpus);
		wz_set(w, WF_GPUS, t);
	}
	if (sp->cpus > 0) {
		snprintf(t, sizeof t, "%d", sp->cpus);
		wz_set(w, WF_CPUS, t);
	}
	wz_set(w, WF_IMAGE, sp->image);
	wz_set(w, WF_NETWORK_ARCH, sp->network_arch);
	wz_set(w, WF_ACTION, sp->action);
	if (sp->requeue >= 0)
		wz_set(w, WF_REQUEUE, sp->requeue ? "yes" : "no");
	snprintf(t, sizeof t, "%d", sp->retry_budget);
	wz_set(w, WF_RETRY_BUDGET, t);
	wz_set(w, WF_FORCE_RECONVERT, sp->force_reconvert ? "yes" : "no");
	/* One line in the form: newlines of a block command show as "; ". */
	buf_init(&b);
	buf_add(&b, "", 0);
	for (const char *p = sp->command != NULL ? sp->command : ""; *p; p++) {
		if (*p == '\n') {
			if (p[1] != '\0')
				buf_adds(&b, "; ");
		} else
			buf_add(&b, p, 1);
	}
	buf_free(&w->value[WF_COMMAND]);
	w->value[WF_COMMAND] = b;
	/* ... but the spec keeps it as written unless the field is edited. */
	if (sp->command != NULL && strcmp(sp->command, b.data) != 0) {
		w->command_full = xstrdup(sp->command);
		w->command_shown = xstrdup(b.data);
	}
	/* Everything the form does not show comes from the staged spec. */
	buf_init(&b);
	if (spec_write(sp, &b, NULL) == 0)
		w->base = buf_steal(&b);
	else
		buf_free(&b);
	set_list(w, WF_DATASETS, sp->datasets.v, sp->datasets.n);
	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < sp->nmounts; i++)
		buf_printf(&b, "%s%s:%s%s", i ? ", " : "", sp->mounts[i].src,
		    sp->mounts[i].dst, sp->mounts[i].ro ? ":ro" : "");
	buf_free(&w->value[WF_MOUNTS]);
	w->value[WF_MOUNTS] = b;
	set_list(w, WF_SECRETS, sp->secrets.v, sp->secrets.n);
	{
		char	*after = wz_after_text(&sp->after_ok, &sp->after_any);

		wz_set(w, WF_AFTER, after);
		free(after);
	}
	w->field = WF_IMAGE;
	wizard_validate(w);
}

/* Items of a list field: separated by commas and/or blanks. */
void
wz_split_list(const char *s, struct strv *out)
{
	const char	*p = s;
	size_t		 n;

	while (*p != '\0') {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		n = strcspn(p, ", \t");
		if (n > 0) {
			char	*item = xstrndup(p, n);

			strv_add(out, item);
			free(item);
		}
		p += n;
	}
}

/* "" is unset (-2); else a whole number or -1 for garbage. */
static int
wz_parse_long(const char *s, long *out)
{
	char	*end;

	if (wz_blank(s))
		return -2;
	errno = 0;
	*out = strtol(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno != 0 || *end != '\0' || end == s)
		return -1;
	return 0;
}

/* The resource fields only (what plan_make needs); -1 and why. */
int
wz_build_resources(const struct wizard *w, struct spec *sp, char **why)
{
	const char	*s;
	long		 n;
	int		 minutes, rc;

	if (!wz_blank(wz_val(w, WF_PARTITION)))
		sp->partition = xstrdup(wz_val(w, WF_PARTITION));
	/* The spec's own check (array.h), the limits in its message. */
	if (!wz_blank(wz_val(w, WF_ARRAY))) {
		if (array_parse(wz_val(w, WF_ARRAY), NULL, why) != 0)
			return -1;
		sp->array = xstrdup(wz_val(w, WF_ARRAY));
	}
	s = wz_val(w, WF_TIME);
	if (!wz_blank(s)) {
		if (spec_parse_time_exact(s, &minutes, &sp->time_seconds,
		    why) != 0)
			return -1;
		sp->time_minutes = minutes;
		sp->time_knob = "time";
	}
	if ((rc = wz_parse_long(wz_val(w, WF_NODES), &n)) == 0)
		sp->nodes = (int)(n < 1 || n > SPEC_NODES_MAX ? 1 : n);
	if (rc == -1 || (rc == 0 && (n < 1 || n > SPEC_NODES_MAX))) {
		*why = xasprintf("nodes must be a whole number from 1 to %d",
		    SPEC_NODES_MAX);
		return -1;
	}
	if ((rc = wz_parse_long(wz_val(w, WF_GPUS), &n)) == 0)
		sp->gpus = (int)(n < 0 || n > SPEC_GPUS_MAX ? 0 : n);
	if (rc == -1 || (rc == 0 && (n < 0 || n > SPEC_GPUS_MAX))) {
		*why = xasprintf("gpus must be a whole number from 0 to %d "
		    "(0 for a CPU job)", SPEC_GPUS_MAX);
		return -1;
	}
	if ((rc = wz_parse_long(wz_val(w, WF_CPUS), &n)) == 0)
		sp->cpus = (int)(n < 1 || n > SPEC_CPUS_MAX ? 1 : n);
	if (rc == -1 || (rc == 0 && (n < 1 || n > SPEC_CPUS_MAX))) {
		*why = xasprintf("cpus/task must be a whole number from 1 to %d",
		    SPEC_CPUS_MAX);
		return -1;
	}
	if (!wz_blank(wz_val(w, WF_REQUEUE)) &&
	    wz_yes_no(wz_val(w, WF_REQUEUE), &sp->requeue) != 0) {
		*why = xasprintf("requeue must be yes or no, not '%s' "
		    "(Left/Right)", wz_val(w, WF_REQUEUE));
		return -1;
	}
	if ((rc = wz_parse_long(wz_val(w, WF_RETRY_BUDGET), &n)) == 0 &&
	    n >= 0 && n <= 100)
		sp->retry_budget = (int)n;
	else if (rc != -2) {
		*why = xstrdup("retry_budget must be a whole number from 0 to "
		    "100 (infra failures retried; 0: none)");
		return -1;
	}
	if (!wz_blank(wz_val(w, WF_FORCE_RECONVERT)) &&
	    wz_yes_no(wz_val(w, WF_FORCE_RECONVERT), &sp->force_reconvert) != 0) {
		*why = xasprintf("force_reconvert must be yes or no, not '%s' "
		    "(Left/Right)", wz_val(w, WF_FORCE_RECONVERT));
		return -1;
	}
	return 0;
}

static char *
soonest_key(const struct wizard *w)
{
	return xasprintf("%s\n%s\n%s\n%s\n%s\n%s", wz_val(w, WF_CLUSTER),
	    wz_val(w, WF_TIME), wz_val(w, WF_NODES), wz_val(w, WF_GPUS),
	    wz_val(w, WF_CPUS), wz_val(w, WF_USER));
}

int
wizard_soonest_want(const struct wizard *w, struct spec *sp)
{
	char	*key, *why = NULL;
	int	 want;

	spec_init(sp);
	if (w->page != WIZ_FORM || wz_blank(wz_val(w, WF_CLUSTER)))
		return 0;
	key = soonest_key(w);
	want = w->soonest_key == NULL || strcmp(key, w->soonest_key) != 0;
	free(key);
	if (!want)
		return 0;
	if (wz_build_resources(w, sp, &why) != 0) {
		free(why);
		spec_free(sp);
		spec_init(sp);
		return 0;
	}
	free(sp->partition);	/* every partition is tried */
	sp->partition = NULL;
	return 1;
}

void
wizard_soonest_asked(struct wizard *w, const char *cluster)
{
	free(w->soonest_key);
	w->soonest_key = soonest_key(w);
	free(w->soonest_cl);
	w->soonest_cl = xstrdup(cluster);
	free(w->soonest);
	w->soonest = xstrdup("soonest start: asking SLURM (sbatch "
	    "--test-only)\xe2\x80\xa6");
	w->soonest_err = 0;
}

const char *
wizard_soonest_cluster(const struct wizard *w)
{
	return w->soonest_cl;
}

void
wizard_soonest_forgot(struct wizard *w)
{
	free(w->soonest_key);
	free(w->soonest_cl);
	free(w->soonest);
	w->soonest_key = w->soonest_cl = w->soonest = NULL;
	w->soonest_err = 0;
}

void
wizard_soonest_got(struct wizard *w, const char *text, int failed)
{
	free(w->soonest);
	if (failed)
		w->soonest = xasprintf("soonest start: %s", text != NULL ?
		    text : "no answer");
	else
		w->soonest = xstrdup(text != NULL ? text : "");
	w->soonest_err = failed;
}

/*
 * The spec the form starts from: the staged one of a resubmit (its
 * fields that the form shows are then replaced), else an empty one.
 */
void
wz_base_init(const struct wizard *w, struct spec *sp)
{
	struct spec	b;
	char		*cause = NULL;

	spec_init(sp);
	if (w->base == NULL ||
	    spec_parse(w->base, strlen(w->base), "the staged spec", &b,
	    &cause) != 0) {
		free(cause);
		return;
	}
	spec_free(sp);
	*sp = b;
	/* The form's fields, set again from the form. */
	free(sp->name);
	free(sp->cluster);
	free(sp->image);
	free(sp->command);
	free(sp->partition);
	free(sp->network_arch);
	free(sp->action);
	sp->name = sp->cluster = sp->image = sp->command = NULL;
	sp->partition = sp->network_arch = sp->action = NULL;
	sp->requeue = -1;
	sp->retry_budget = SPEC_RETRY_BUDGET;
	sp->force_reconvert = 0;
	sp->time_minutes = sp->nodes = sp->cpus = 0;
	sp->gpus = -1;
	strv_free(&sp->datasets);
	strv_free(&sp->secrets);
	strv_free(&sp->after_ok);
	strv_free(&sp->after_any);
	for (size_t i = 0; i < sp->nmounts; i++) {
		free(sp->mounts[i].src);
		free(sp->mounts[i].dst);
	}
	free(sp->mounts);
	sp->mounts = NULL;
	sp->nmounts = 0;
}

int
wizard_build(const struct wizard *w, struct spec *sp, char **cause)
{
	struct strv	 items;
	char		*why = NULL;
	size_t		 i;

	wz_base_init(w, sp);
	memset(&items, 0, sizeof items);
	if (!wz_blank(wz_val(w, WF_NAME)))
		sp->name = xstrdup(wz_val(w, WF_NAME));
	if (!wz_blank(wz_val(w, WF_CLUSTER)))
		sp->cluster = xstrdup(wz_val(w, WF_CLUSTER));
	if (!wz_blank(wz_val(w, WF_IMAGE)))
		sp->image = xstrdup(wz_val(w, WF_IMAGE));
	if (!wz_blank(wz_val(w, WF_NETWORK_ARCH)))
		sp->network_arch = xstrdup(wz_val(w, WF_NETWORK_ARCH));
	if (!wz_blank(wz_val(w, WF_ACTION)))
		sp->action = xstrdup(wz_val(w, WF_ACTION));
	if (w->command_full != NULL &&
	    strcmp(wz_val(w, WF_COMMAND), w->command_shown) == 0)
		sp->command = xstrdup(w->command_full);
	else if (!wz_blank(wz_val(w, WF_COMMAND)))
		sp->command = xstrdup(wz_val(w, WF_COMMAND));
	if (wz_build_resources(w, sp, &why) != 0)
		goto fail;
	wz_split_list(wz_val(w, WF_DATASETS), &sp->datasets);
	wz_split_list(wz_val(w, WF_MOUNTS), &items);
	for (i = 0; i < items.n; i++) {
		if (spec_add_mount(sp, items.v[i], &why) != 0)
			goto fail;
	}
	strv_free(&items);
	wz_split_list(wz_val(w, WF_SECRETS), &sp->secrets);
	if (wz_after_parse(wz_val(w, WF_AFTER), &sp->after_ok, &sp->after_any,
	    &why) != 0)
		goto fail;
	if (spec_validate(sp, &why) != 0)
		goto fail;
	return 0;
fail:
	strv_free(&items);
	cause_set(cause, "%s", why);
	free(why);
	return -1;
}

void
wizard_start(struct wizard *w, int submit)
{
	strv_free(&w->progress);
	if (!submit)
		clear_preview(w);
	w->page = submit ? WIZ_PROGRESS : WIZ_PREVIEW;
	/* The preview's record id is for one submit, the one just sent. */
	free(w->preview_rid);
	w->preview_rid = NULL;
	w->waiting = 1;
	w->finished = 0;
}

void
wizard_failed(struct wizard *w, const char *message)
{
	free(w->banner);
	w->banner = uitext_sanitize(message, strlen(message), 0);
	w->banner_err = 1;
	w->waiting = 0;
	w->page = WIZ_FORM;
	w->field = wz_field_of(message);
}

/* Split text into lines (kept empty lines). */
static void
lines_of(struct strv *out, const char *text)
{
	const char	*p = text, *nl;

	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		{
			char	*l = xstrndup(p, nl != NULL ? (size_t)(nl - p) :
				    strlen(p));

			strv_add(out, l);
			free(l);
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
}

/*
 * The preview's first screen: what will be asked for, in a few lines,
 * before the sbatch script it is made into.
 */
static void
preview_summary(const struct wizard *w, struct strv *out)
{
	struct strv	 cmd, sec;
	struct buf	 b;
	size_t		 i;
	char		*l;
	const char	*v;

#define LINE(...) do {							\
	l = xasprintf(__VA_ARGS__);					\
	strv_add(out, l);						\
	free(l);							\
} while (0)
#define OR(f) (*wz_val(w, f) != '\0' ? wz_val(w, f) : "-")
	LINE("Summary (the sbatch script of the dry run follows: PgDn)");
	LINE("  cluster    %s as %s", OR(WF_CLUSTER), OR(WF_USER));
	/* The name SLURM gets, as the submit after this preview gives it. */
	if (w->preview_rid != NULL) {
		char	*jn = submit_job_name(wz_val(w, WF_NAME),
			    w->preview_rid);

		LINE("  name       %s", jn);
		free(jn);
	} else
		LINE("  name       %s", OR(WF_NAME));
	LINE("  partition  %s, time %s", OR(WF_PARTITION), OR(WF_TIME));
	if (*wz_val(w, WF_ARRAY) != '\0')
		LINE("  array      %s (each task: main_TASK.out)",
		    wz_val(w, WF_ARRAY));
	LINE("  asks       nodes %s, gpus %s, cpus/task %s", OR(WF_NODES),
	    OR(WF_GPUS), OR(WF_CPUS));
	LINE("  image      %s", OR(WF_IMAGE));
	memset(&cmd, 0, sizeof cmd);
	lines_of(&cmd, wz_val(w, WF_COMMAND));
	if (cmd.n > 1)
		LINE("  command    %s (and %zu more line%s)", cmd.v[0],
		    cmd.n - 1, cmd.n == 2 ? "" : "s");
	else
		LINE("  command    %s", cmd.n > 0 ? cmd.v[0] : "-");
	strv_free(&cmd);
	LINE("  datasets   %s", OR(WF_DATASETS));
	LINE("  mounts     %s", OR(WF_MOUNTS));
	memset(&sec, 0, sizeof sec);
	wz_split_list(wz_val(w, WF_SECRETS), &sec);
	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < sec.n; i++) {
		v = getenv(sec.v[i]);
		buf_printf(&b, "%s%s (%s)", i ? ", " : "", sec.v[i],
		    v != NULL && *v != '\0' ? "set" : "NOT SET");
	}
	LINE("  secrets    %s", b.len > 0 ? b.data : "-");
	buf_free(&b);
	strv_free(&sec);
	LINE("  retries    budget %s, requeue %s", OR(WF_RETRY_BUDGET),
	    OR(WF_REQUEUE));
	{
		char	*after = wz_after_line(wz_val(w, WF_AFTER));

		LINE("  after      %s", after);
		free(after);
	}
	LINE("%s", "");
#undef OR
#undef LINE
}

/* The fields a failed step points at. */
static enum wizard_field
step_field(const char *step, const char *message)
{
	if (step == NULL)
		return wz_field_of(message != NULL ? message : "");
	if (strcmp(step, "preflight") == 0)
		return WF_CLUSTER;
	/* check: test -e of datasets and mount sources, the image file. */
	if (strcmp(step, "check") == 0 && message != NULL)
		return strstr(message, "- dataset") != NULL ? WF_DATASETS :
		    strstr(message, "- mount") != NULL ? WF_MOUNTS : WF_IMAGE;
	if (strcmp(step, "image") == 0)
		return WF_IMAGE;
	if (strcmp(step, "secrets") == 0)
		return WF_SECRETS;
	if (strcmp(step, "render") == 0)
		return WF_COMMAND;
	return wz_field_of(message != NULL ? message : "");
}

int
wizard_action(struct wizard *w, const struct msg_action *m)
{
	const char	*step = m->step != NULL ? m->step : "";
	char		*line;

	if (m->kind != ACTION_SUBMIT || !w->waiting)
		return 0;
	if (!m->done) {
		line = xasprintf("%-9s %s", step, m->message != NULL ?
		    m->message : "");
		strv_add(&w->progress, line);
		free(line);
		return 1;
	}
	w->waiting = 0;
	if (m->failed) {
		free(w->banner);
		line = xasprintf("%s failed%s%s: %s", w->page ==
		    WIZ_PREVIEW ? "dry run" : "submit", *step ? " at " : "",
		    step, m->message != NULL ? m->message : "");
		/* Cluster text: no control characters on the screen. */
		w->banner = uitext_sanitize(line, strlen(line), 0);
		free(line);
		w->banner_err = 1;
		w->page = WIZ_FORM;
		w->field = step_field(m->step, m->message);
		return 1;
	}
	if (w->page == WIZ_PREVIEW) {
		clear_preview(w);
		w->preview_rid = m->job_id != NULL ? xstrdup(m->job_id) : NULL;
		preview_summary(w, &w->preview);
		lines_of(&w->preview, m->message != NULL ? m->message : "");
		return 1;
	}
	w->finished = 1;
	free(w->job_id);
	free(w->job_cluster);
	w->job_id = m->job_id != NULL ? xstrdup(m->job_id) : NULL;
	w->job_cluster = m->cluster != NULL ? xstrdup(m->cluster) : NULL;
	line = xasprintf("%-9s %s", "done", m->message != NULL ? m->message :
	    "submitted");
	strv_add(&w->progress, line);
	free(line);
	return 1;
}
