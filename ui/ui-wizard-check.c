/*
 * The submit wizard's checks: each field validated as typed, and the hint
 * under the current field (limits of the partition, GPUs free).
 */
#include "ui-wizard-int.h"

void
wz_field_error(struct wizard *w, enum wizard_field f, char *msg)
{
	if (w->error[f] == NULL)
		w->error[f] = msg;
	else
		free(msg);
}

/* Which field a plan or spec message is about. */
enum wizard_field
wz_field_of(const char *m)
{
	static const struct {
		const char		*word;
		enum wizard_field	 f;
	} words[] = {
		{ "time", WF_TIME }, { "partition", WF_PARTITION },
		{ "gpus_per_node", WF_GPUS }, { "gpus", WF_GPUS },
		{ "nodes", WF_NODES }, { "cpus", WF_CPUS },
		{ "image", WF_IMAGE }, { "command", WF_COMMAND },
		{ "secret", WF_SECRETS }, { "mount", WF_MOUNTS },
		{ "dataset", WF_DATASETS }, { "name", WF_NAME },
		{ "cluster", WF_CLUSTER }, { "network_arch", WF_NETWORK_ARCH },
		{ "action", WF_ACTION }, { "requeue", WF_REQUEUE },
		{ "retry_budget", WF_RETRY_BUDGET },
		{ "force_reconvert", WF_FORCE_RECONVERT },
		{ "after:", WF_AFTER },
		{ "array", WF_ARRAY },
	};
	const char	*first = NULL, *p;
	size_t		 i;
	enum wizard_field f = WF_COMMAND;

	/* The field named first in the message. */
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if ((p = strstr(m, words[i].word)) != NULL &&
		    (first == NULL || p < first)) {
			first = p;
			f = words[i].f;
		}
	}
	return f;
}

int
wizard_validate(struct wizard *w)
{
	const struct wizard_cluster	*c;
	struct plan_limit		*lim;
	struct strv			 names, items;
	struct spec			 sp;
	struct plan			 pl;
	struct image_ref		 img;
	struct spec_mount		 mt;
	char				*why = NULL, *path;
	size_t				 i, nlim;
	int				 f, minutes, bad = 0;

	for (f = 0; f < WF_COUNT; f++) {
		free(w->error[f]);
		w->error[f] = NULL;
	}
	memset(&names, 0, sizeof names);
	memset(&items, 0, sizeof items);

	c = wz_find_cluster(w, wz_val(w, WF_CLUSTER));
	if (c == NULL) {
		struct buf	b;

		buf_init(&b);
		buf_add(&b, "", 0);
		for (i = 0; i < w->ncl; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", w->cl[i].name);
		wz_field_error(w, WF_CLUSTER, xasprintf("no cluster '%s': "
		    "choose one of %s (Left/Right)", wz_val(w, WF_CLUSTER),
		    b.data));
		buf_free(&b);
	}
	/* Another login user is fine: the submit connects as that user. */
	if (wz_blank(wz_val(w, WF_USER)))
		wz_field_error(w, WF_USER, xstrdup("SLURM_USER is required: the "
		    "login name on the cluster"));
	else if (!wz_user_ok(wz_val(w, WF_USER)))
		wz_field_error(w, WF_USER, xasprintf("SLURM_USER '%s' is not a "
		    "login name (letters, digits, '.', '_', '-')",
		    wz_val(w, WF_USER)));
	if (!wz_blank(wz_val(w, WF_TIME)) &&
	    spec_parse_time(wz_val(w, WF_TIME), &minutes, &why) != 0) {
		wz_field_error(w, WF_TIME, why);
		why = NULL;
	}
	if (wz_blank(wz_val(w, WF_IMAGE)))
		wz_field_error(w, WF_IMAGE, xstrdup("required: a registry image "
		    "(nvcr.io/nvidia/tao/tao-toolkit:5.5.0-pyt) or a .sqsh "
		    "path"));
	else if (image_parse(wz_val(w, WF_IMAGE), &img, &why) != 0) {
		wz_field_error(w, WF_IMAGE, why);
		why = NULL;
	} else
		image_free(&img);
	if (wz_blank(wz_val(w, WF_COMMAND)))
		wz_field_error(w, WF_COMMAND, xstrdup("required: what runs in the "
		    "container"));
	wz_split_list(wz_val(w, WF_DATASETS), &items);
	for (i = 0; i < items.n; i++) {
		if (uri_resolve("dataset", items.v[i], c != NULL && c->conf !=
		    NULL ? c->conf->results_root : NULL, &path, &why) != 0) {
			wz_field_error(w, WF_DATASETS, why);
			why = NULL;
			break;
		}
		free(path);
	}
	strv_free(&items);
	wz_split_list(wz_val(w, WF_MOUNTS), &items);
	for (i = 0; i < items.n; i++) {
		if (spec_parse_mount(items.v[i], &mt, &why) != 0) {
			wz_field_error(w, WF_MOUNTS, why);
			why = NULL;
			break;
		}
		free(mt.src);
		free(mt.dst);
	}
	strv_free(&items);

	{
		struct strv	ok, any;

		memset(&ok, 0, sizeof ok);
		memset(&any, 0, sizeof any);
		if (wz_after_parse(wz_val(w, WF_AFTER), &ok, &any, &why) != 0) {
			wz_field_error(w, WF_AFTER, why);
			why = NULL;
		}
		strv_free(&ok);
		strv_free(&any);
	}

	/* The resources against the real partitions and their MaxTime. */
	wz_base_init(w, &sp);
	if (wz_build_resources(w, &sp, &why) != 0) {
		wz_field_error(w, wz_field_of(why), why);
		why = NULL;
	} else {
		lim = wz_limits_of(c, &nlim, &names);
		if (plan_make(&sp, c != NULL ? c->conf : NULL, lim, nlim, &pl,
		    &why) != 0) {
			wz_field_error(w, wz_field_of(why), why);
			why = NULL;
		} else
			plan_free(&pl);
		free(lim);
		strv_free(&names);
	}
	spec_free(&sp);
	/* Then the whole spec, with the parser's rules. */
	if (wizard_build(w, &sp, &why) != 0) {
		wz_field_error(w, wz_field_of(why), why);
		why = NULL;
	}
	spec_free(&sp);
	for (f = 0; f < WF_COUNT; f++)
		bad += w->error[f] != NULL;
	return bad;
}

/* "gpu 4:00:00 (...) 6/8 GPU": the clusters pane's idle/total GPUs. */
static int
gpu_counts(const char *v, int *idle, int *total)
{
	const char	*p;
	size_t		 len = strlen(v);

	if (len < 6 || strcmp(v + len - 4, " GPU") != 0)
		return 0;
	for (p = v + len - 4; p > v && p[-1] != ' '; p--)
		/* nothing */;
	return sscanf(p, "%d/%d GPU", idle, total) == 2;
}

char *
wizard_hint(const struct wizard *w, enum wizard_field f)
{
	const struct wizard_cluster	*c = wz_find_cluster(w, wz_val(w, WF_CLUSTER));
	struct strv			 items;
	struct buf			 b;
	size_t				 i;

	buf_init(&b);
	buf_add(&b, "", 0);
	switch (f) {
	case WF_CLUSTER:
		for (i = 0; i < w->ncl; i++)
			buf_printf(&b, "%s%s", i ? ", " : "Left/Right: ",
			    w->cl[i].name);
		break;
	case WF_USER:
		if (wizard_user(w) != NULL)
			buf_printf(&b, "submits connect as %s, not %s: the "
			    "same host key (known_hosts) and key/agent rules",
			    wz_val(w, WF_USER), wz_conn_user(c));
		else
			buf_adds(&b, "the login name on the cluster; another "
			    "name connects as that user (same host key and "
			    "key/agent rules)");
		break;
	case WF_NAME:
		buf_adds(&b, "prefix of the job name (default sqdeck)");
		break;
	case WF_PARTITION:
		if (c != NULL && c->partitions != NULL &&
		    c->partitions->n > 0) {
			buf_adds(&b, "MaxTime: ");
			for (i = 0; i < c->partitions->n; i++) {
				const char	*v = c->partitions->v[i];
				int		 idle, total;

				buf_printf(&b, "%s%.*s", i ? ", " : "",
				    (int)(strcspn(v, "(") -
				    (strchr(v, '(') != NULL)), v);
				/* Idle/total GPUs from the last poll. */
				if (gpu_counts(v, &idle, &total))
					buf_printf(&b, " %d/%d GPUs idle",
					    idle, total);
			}
			/* Then what a node holds, if sinfo said. */
			for (i = 0; i < c->partitions->n; i++) {
				const char *q = strchr(c->partitions->v[i],
				    '(');

				if (q != NULL)
					buf_printf(&b, "%s%.*s %s", i ? "; " :
					    "; nodes: ", (int)strcspn(
					    c->partitions->v[i], " "),
					    c->partitions->v[i], q);
			}
		} else
			buf_adds(&b, "partitions not known yet (the cluster "
			    "has not answered)");
		break;
	case WF_TIME:
		buf_adds(&b, "4h, 90m, 1h30m, 3:30:00");
		break;
	case WF_NODES:
		buf_adds(&b, "whole nodes when gpus >= a node's GPUs");
		break;
	case WF_GPUS:
		buf_adds(&b, "total GPUs, 0 for a CPU job");
		break;
	case WF_CPUS:
		buf_adds(&b, "CPUs per task");
		break;
	case WF_IMAGE:
		buf_adds(&b, "registry/image:tag, registry#image:tag or "
		    "/path/x.sqsh");
		break;
	case WF_COMMAND:
		if (w->command_full != NULL &&
		    strcmp(wz_val(w, WF_COMMAND), w->command_shown) == 0)
			buf_adds(&b, "the spec's multi-line command, kept as "
			    "written (its lines are shown joined by '; '); an "
			    "edit replaces it by this one line");
		else
			buf_adds(&b, "run in the container (sh)");
		break;
	case WF_DATASETS:
		buf_adds(&b, "lustre:///abs/path, several: commas");
		break;
	case WF_MOUNTS:
		buf_adds(&b, "SRC:DST[:ro], several: commas");
		break;
	case WF_NETWORK_ARCH:
		buf_adds(&b, "for the record: classification_pyt, dino, ...");
		break;
	case WF_ACTION:
		buf_adds(&b, "for the record: train, evaluate, export, ...");
		break;
	case WF_REQUEUE:
		buf_adds(&b, "Left/Right: yes (#SBATCH --requeue) or no "
		    "(Cosmos-like workloads)");
		break;
	case WF_RETRY_BUDGET:
		buf_adds(&b, "infra failures retried on other nodes (0: none)");
		break;
	case WF_FORCE_RECONVERT:
		buf_adds(&b, "Left/Right: yes converts the image again even if "
		    "cached");
		break;
	case WF_AFTER:
		buf_adds(&b, "job ids it waits for: 12, 13 (afterok: they "
		    "completed), any:14 (afterany: it ended)");
		break;
	case WF_ARRAY:
		buf_adds(&b, "job array: 0-99%4 (tasks 0-99, 4 at once), "
		    "0-15:4, 1,3,5; empty: one job; task N logs main_N.out");
		break;
	case WF_SECRETS:
		memset(&items, 0, sizeof items);
		wz_split_list(wz_val(w, WF_SECRETS), &items);
		if (items.n == 0)
			buf_adds(&b, "names only (HF_TOKEN): values come from "
			    "this environment");
		for (i = 0; i < items.n; i++) {
			const char	*v = getenv(items.v[i]);

			buf_printf(&b, "%s%s %s", i ? ", " : "", items.v[i],
			    v != NULL && *v != '\0' ? "set" : "NOT SET");
		}
		strv_free(&items);
		break;
	case WF_COUNT:
		break;
	}
	return buf_steal(&b);
}
