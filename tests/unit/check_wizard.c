/*
 * The submit wizard's model (ui/ui-wizard.c), branch by branch: the
 * defaults of a cluster, validation as typed with the exact messages of
 * the spec/plan/image/uri modules, the spec it builds, the round trip of
 * `e` (wizard_from_spec) and the pages: preview, progress, failure back
 * to the fields with every value kept.
 */
#include "testutil.h"
#include "ui-wizard.h"
#include "ui-wizard-int.h"
#include "util.h"

static struct strv	 sdtb_parts;	/* "name MaxTime" as the worker sends */
static struct cluster	 sdtb_conf;
static struct wizard	 w;

static void
setup(void)
{
	struct wizard_cluster	cl[2];

	unsetenv("SLURM_USER");
	unsetenv("SD_WIZ_SECRET");
	memset(&sdtb_parts, 0, sizeof sdtb_parts);
	strv_add(&sdtb_parts, "cpu 1-00:00:00");
	strv_add(&sdtb_parts, "gpu 4:00:00");
	memset(&sdtb_conf, 0, sizeof sdtb_conf);
	sdtb_conf.name = (char *)"sdtb";
	sdtb_conf.user = (char *)"alice";
	sdtb_conf.gpus_per_node = 4;
	sdtb_conf.requeue = -1;	/* unset, as config_load leaves it */
	sdtb_conf.results_root = (char *)"/lustre/results";
	strv_add(&sdtb_conf.partitions, "gpu");

	memset(cl, 0, sizeof cl);
	cl[0].name = "sdtb";
	cl[0].conf = &sdtb_conf;
	cl[0].partitions = &sdtb_parts;
	cl[1].name = "other";	/* never answered: no partitions known */
	wizard_init(&w);
	wizard_set_clusters(&w, cl, 2);
}

static void
teardown(void)
{
	wizard_free(&w);
	strv_free(&sdtb_parts);
	strv_free(&sdtb_conf.partitions);
}

static const char *
v(enum wizard_field f)
{
	return w.value[f].data != NULL ? w.value[f].data : "";
}

/* Replace a field as a user would: C-u, then type the text. */
static void
put(enum wizard_field f, const char *s)
{
	w.field = f;
	ck_assert_int_eq(wizard_key(&w, UIA_INPUT_KILL, WK_OTHER),
	    WREQ_REDRAW);
	wizard_type(&w, s, strlen(s));
}

#define ck_err(f, want) do {						\
	ck_assert_msg(w.error[f] != NULL, "%s: no error",		\
	    wizard_label(f));						\
	ck_assert_str_eq(w.error[f], want);				\
} while (0)
#define ck_ok(f) ck_assert_msg(w.error[f] == NULL, "%s: %s",		\
	wizard_label(f), w.error[f])

/* A form that validates: what the tests then break one field at a time. */
static void
fill_valid(void)
{
	wizard_open(&w, "sdtb", 1);
	put(WF_IMAGE, "nvcr.io/nvidia/pytorch:24.01-py3");
	put(WF_COMMAND, "python train.py");
	ck_assert_int_eq(wizard_validate(&w), 0);
}

START_TEST(test_defaults)
{
	wizard_open(&w, "sdtb", 1);
	ck_assert_int_eq(w.page, WIZ_FORM);
	ck_assert_str_eq(v(WF_CLUSTER), "sdtb");
	ck_assert_str_eq(wizard_cluster(&w), "sdtb");
	ck_assert_str_eq(v(WF_USER), "alice");	/* the conf's user */
	ck_assert_str_eq(v(WF_PARTITION), "gpu");	/* configured, and real */
	ck_assert_str_eq(v(WF_TIME), "4h");
	ck_assert_str_eq(v(WF_NODES), "1");
	ck_assert_str_eq(v(WF_GPUS), "4");
	ck_assert_str_eq(v(WF_CPUS), "16");
	ck_assert_str_eq(v(WF_IMAGE), "");
	/* The cursor starts on the first field without a default. */
	ck_assert_int_eq(w.field, WF_IMAGE);
	ck_err(WF_IMAGE, "required: a registry image "
	    "(nvcr.io/nvidia/tao/tao-toolkit:5.5.0-pyt) or a .sqsh path");
	ck_err(WF_COMMAND, "required: what runs in the container");
	ck_assert_int_eq(wizard_validate(&w), 2);

	/* A cluster's time_hours is the default time. */
	sdtb_conf.time_hours = 1.5;
	wizard_open(&w, "sdtb", 1);
	ck_assert_str_eq(v(WF_TIME), "1.5h");
	sdtb_conf.time_hours = 0;

	/* Reopening keeps what was typed; fresh starts over. */
	put(WF_COMMAND, "echo kept");
	ck_assert_int_eq(wizard_key(&w, UIA_CLOSE, WK_OTHER), WREQ_CLOSE);
	wizard_open(&w, "sdtb", 0);
	ck_assert_str_eq(v(WF_COMMAND), "echo kept");
	wizard_open(&w, "sdtb", 1);
	ck_assert_str_eq(v(WF_COMMAND), "");

	/* A cluster that never answered: no partition list, SLURM_USER. */
	setenv("SLURM_USER", "bob", 1);
	wizard_open(&w, "other", 1);
	ck_assert_str_eq(v(WF_USER), "bob");
	ck_assert_str_eq(v(WF_PARTITION), "");
	ck_err(WF_PARTITION, "no partition: set 'partition' in the job spec, "
	    "or SLURM_PARTITION");
	{
		char	*h = wizard_hint(&w, WF_PARTITION);

		ck_assert_str_eq(h, "partitions not known yet (the cluster "
		    "has not answered)");
		free(h);
	}
}
END_TEST

START_TEST(test_time_as_typed)
{
	char	*h;

	fill_valid();
	put(WF_PARTITION, "gpu");
	h = wizard_hint(&w, WF_PARTITION);
	ck_assert_str_eq(h, "MaxTime: cpu 1-00:00:00, gpu 4:00:00");
	free(h);

	/* Key by key: "3" is 3 h, "30" 30 h (too long), "30m" fine. */
	put(WF_TIME, "");
	wizard_type(&w, "3", 1);
	ck_ok(WF_TIME);
	wizard_type(&w, "0", 1);
	ck_err(WF_TIME, "time 30:00:00 exceeds partition gpu's MaxTime "
	    "4:00:00: use time 4h or less or choose another partition");
	wizard_type(&w, "m", 1);
	ck_ok(WF_TIME);
	ck_assert_str_eq(v(WF_TIME), "30m");
	/* Backspace re-validates too. */
	ck_assert_int_eq(wizard_key(&w, UIA_INPUT_BACKSPACE, WK_OTHER),
	    WREQ_REDRAW);
	ck_assert_str_eq(v(WF_TIME), "30");
	ck_assert_ptr_nonnull(w.error[WF_TIME]);

	put(WF_TIME, "5h");
	ck_err(WF_TIME, "time 5:00:00 exceeds partition gpu's MaxTime "
	    "4:00:00: use time 4h or less or choose another partition");
	ck_assert_int_eq(wizard_validate(&w), 1);
	/* The same time fits the cpu partition's day. */
	put(WF_PARTITION, "cpu");
	ck_ok(WF_TIME);
	put(WF_TIME, "2-00:00:00");
	ck_err(WF_TIME, "time 48:00:00 exceeds partition cpu's MaxTime "
	    "24:00:00: use time 24h or less or choose another partition");
	/* Issue 26.12: the time as written, and the wizard's own field. */
	put(WF_PARTITION, "gpu");
	put(WF_TIME, "4:00:01");
	ck_err(WF_TIME, "time 4:00:01 exceeds partition gpu's MaxTime "
	    "4:00:00: use time 4h or less or choose another partition");
	put(WF_PARTITION, "cpu");
	put(WF_TIME, "abc");
	ck_err(WF_TIME, "time 'abc' is not a duration: write e.g. 4h, 90m, "
	    "1h30m, 3:30:00 or a number of hours");
	put(WF_TIME, "");	/* unset: the default */
	ck_ok(WF_TIME);

	put(WF_PARTITION, "nope");
	ck_err(WF_PARTITION, "partition 'nope' does not exist on cluster "
	    "'sdtb' (partitions: cpu, gpu): choose one of those");
}
END_TEST

START_TEST(test_mounts)
{
	fill_valid();
	put(WF_MOUNTS, "/a");
	ck_err(WF_MOUNTS, "mount '/a' must be SRC:DST or SRC:DST:ro with "
	    "absolute paths, e.g. /lustre/data:/data:ro");
	put(WF_MOUNTS, "/a:/b:xx");
	ck_err(WF_MOUNTS, "mount '/a:/b:xx': unknown flag 'xx', use ro or rw");
	put(WF_MOUNTS, "/a:b");
	ck_err(WF_MOUNTS, "mount '/a:b': DST 'b' must be an absolute path in "
	    "the container");
	put(WF_MOUNTS, "lustre:///a:/b");
	ck_err(WF_MOUNTS, "mount 'lustre:///a:/b': SRC must be an absolute "
	    "path on the cluster, not a URI: write e.g. /lustre/data:/data");
	/* The first bad one of several is named. */
	put(WF_MOUNTS, "/a:/b:ro, /c:d");
	ck_err(WF_MOUNTS, "mount '/c:d': DST 'd' must be an absolute path in "
	    "the container");
	put(WF_MOUNTS, "/a:/b:ro, /c:/d /e:/f:rw");
	ck_ok(WF_MOUNTS);
	ck_assert_int_eq(wizard_validate(&w), 0);
}
END_TEST

START_TEST(test_image)
{
	fill_valid();
	put(WF_IMAGE, "foo bar");
	ck_err(WF_IMAGE, "image \"foo bar\" contains a space or a control "
	    "character");
	put(WF_IMAGE, "relative/x.sqsh");
	ck_err(WF_IMAGE, "image \"relative/x.sqsh\" is a relative path: Pyxis "
	    "would try to pull it from a registry; give the absolute path of "
	    "the .sqsh on shared storage (e.g. /lustre/images/x.sqsh)");
	put(WF_IMAGE, "/lustre/images/x.sqsh");
	ck_ok(WF_IMAGE);
	put(WF_IMAGE, "registry.local#sdtest/tui:1");
	ck_ok(WF_IMAGE);
	put(WF_IMAGE, "");
	ck_err(WF_IMAGE, "required: a registry image "
	    "(nvcr.io/nvidia/tao/tao-toolkit:5.5.0-pyt) or a .sqsh path");
}
END_TEST

START_TEST(test_secrets)
{
	char	*h;

	fill_valid();
	put(WF_SECRETS, "HF_TOKEN=abc");
	ck_err(WF_SECRETS, "secrets lists names only: item 1 carries a value "
	    "('HF_TOKEN=...'): remove the value from the file and export "
	    "HF_TOKEN when you submit");
	put(WF_SECRETS, "NGC_KEY, 1BAD");
	ck_err(WF_SECRETS, "item 2 of secrets is not a variable name (letters, "
	    "digits, '_'): secrets lists names like HF_TOKEN, never values");
	put(WF_SECRETS, "hf_abcdefghijklmnopqrstuvwxyz0123");
	ck_err(WF_SECRETS, "item 1 of secrets looks like a Hugging Face "
	    "token, not a name: write the variable name (e.g. HF_TOKEN) and "
	    "export the token when you submit");
	put(WF_SECRETS, "HF_TOKEN HF_TOKEN");
	ck_err(WF_SECRETS, "secret HF_TOKEN is listed twice: keep one");

	/* The hint says which names this environment can give a value. */
	setenv("SD_WIZ_SECRET", "x", 1);
	put(WF_SECRETS, "SD_WIZ_SECRET, SD_WIZ_UNSET");
	ck_ok(WF_SECRETS);
	h = wizard_hint(&w, WF_SECRETS);
	ck_assert_str_eq(h, "SD_WIZ_SECRET set, SD_WIZ_UNSET NOT SET");
	free(h);
	put(WF_SECRETS, "");
	h = wizard_hint(&w, WF_SECRETS);
	ck_assert_str_eq(h, "names only (HF_TOKEN): values come from this "
	    "environment");
	free(h);

	/* Issue 18 item 16: a missing secret is refused before the preview. */
	put(WF_SECRETS, "SD_WIZ_SECRET, SD_WIZ_UNSET");
	w.field = WF_SECRETS;
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_REDRAW);
	ck_assert_int_eq(w.page, WIZ_FORM);
	ck_assert_int_eq(w.field, WF_SECRETS);
	ck_err(WF_SECRETS, "not set in this environment: SD_WIZ_UNSET; a "
	    "submit stops on it, so there is no preview: export it and start "
	    "sqdeck again, or take it off the list");
	setenv("SD_WIZ_UNSET", "y", 1);
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_PREVIEW);
	unsetenv("SD_WIZ_UNSET");
}
END_TEST

START_TEST(test_nodes_gpus_plan)
{
	fill_valid();
	/* 8 GPUs on nodes of 4: two whole nodes, not one. */
	put(WF_GPUS, "8");
	ck_err(WF_NODES, "nodes 1 does not fit gpus 8: 8 GPUs take 2 whole "
	    "nodes of 4 on cluster 'sdtb'; set nodes to 2 or leave it out");
	put(WF_NODES, "2");
	ck_ok(WF_NODES);
	ck_assert_int_eq(wizard_validate(&w), 0);
	put(WF_NODES, "");	/* unset: follows from the GPUs */
	ck_assert_int_eq(wizard_validate(&w), 0);
	put(WF_NODES, "2");
	put(WF_GPUS, "3");
	ck_err(WF_GPUS, "gpus 3 cannot be split evenly over 2 nodes: use a "
	    "multiple of 2 GPUs, or set gpus_per_node");
	put(WF_GPUS, "x");
	ck_err(WF_GPUS, "gpus must be a whole number from 0 to 8192 (0 for a "
	    "CPU job)");
	put(WF_GPUS, "-1");
	ck_err(WF_GPUS, "gpus must be a whole number from 0 to 8192 (0 for a "
	    "CPU job)");
	put(WF_GPUS, "0");
	ck_ok(WF_GPUS);
	put(WF_NODES, "0");
	ck_err(WF_NODES, "nodes must be a whole number from 1 to 1024");
	/* Issue 26.12: the limit is named, and is the spec's. */
	put(WF_NODES, "1025");
	ck_err(WF_NODES, "nodes must be a whole number from 1 to 1024");
	put(WF_NODES, "1");
	put(WF_GPUS, "2147483648");
	ck_err(WF_GPUS, "gpus must be a whole number from 0 to 8192 (0 for a "
	    "CPU job)");
	put(WF_GPUS, "0");
	put(WF_NODES, "1");
	put(WF_CPUS, "-1");
	ck_err(WF_CPUS, "cpus/task must be a whole number from 1 to 1024");
	put(WF_CPUS, "4 ");	/* trailing blanks are fine */
	ck_ok(WF_CPUS);
	ck_assert_int_eq(wizard_validate(&w), 0);
}
END_TEST

START_TEST(test_user_cluster_name_datasets)
{
	char	*h;

	fill_valid();
	/*
	 * Another login user is allowed: the submit connects as bob (the
	 * worker gets him from wizard_user), same host key and auth rules.
	 */
	put(WF_USER, "bob");
	ck_ok(WF_USER);
	ck_assert_str_eq(wizard_user(&w), "bob");
	h = wizard_hint(&w, WF_USER);
	ck_assert_str_eq(h, "submits connect as bob, not alice: the same host "
	    "key (known_hosts) and key/agent rules");
	free(h);
	put(WF_USER, "-oProxyCommand=x");
	ck_err(WF_USER, "SLURM_USER '-oProxyCommand=x' is not a login name "
	    "(letters, digits, '.', '_', '-')");
	put(WF_USER, "");
	ck_err(WF_USER, "SLURM_USER is required: the login name on the "
	    "cluster");
	put(WF_USER, "alice");
	ck_ok(WF_USER);
	ck_assert_ptr_null(wizard_user(&w));	/* the cluster's own */

	put(WF_CLUSTER, "zzz");
	ck_err(WF_CLUSTER, "no cluster 'zzz': choose one of sdtb, other "
	    "(Left/Right)");
	/* Typing a known name takes its defaults. */
	put(WF_CLUSTER, "sdtb");
	ck_ok(WF_CLUSTER);
	ck_assert_str_eq(v(WF_PARTITION), "gpu");

	/* Left/Right choose among the clusters and the real partitions. */
	w.field = WF_CLUSTER;
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_RIGHT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_CLUSTER), "other");
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_RIGHT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_CLUSTER), "sdtb");
	w.field = WF_PARTITION;
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_RIGHT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_PARTITION), "cpu");	/* wraps after gpu */
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_LEFT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_PARTITION), "gpu");
	/* A field without choices ignores them. */
	w.field = WF_COMMAND;
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_LEFT), WREQ_NONE);

	put(WF_NAME, "bad name!");
	ck_assert_ptr_nonnull(w.error[WF_NAME]);
	ck_assert_ptr_nonnull(strstr(w.error[WF_NAME], "bad name!"));
	put(WF_NAME, "my-job_1");
	ck_ok(WF_NAME);

	put(WF_DATASETS, "lustre:///data/x, slurm://bogus/y");
	ck_err(WF_DATASETS, "dataset \"slurm://bogus/y\": unknown slurm:// "
	    "area \"bogus\"; the only one is slurm://results/<path> (under "
	    "the results root)");
	put(WF_DATASETS, "lustre:///data/x slurm://results/prev/out");
	ck_ok(WF_DATASETS);
	ck_assert_int_eq(wizard_validate(&w), 0);
}
END_TEST

START_TEST(test_build)
{
	struct spec	 sp, back;
	struct buf	 b;
	char		*cause = NULL;

	fill_valid();
	put(WF_NAME, "wiz");
	put(WF_PARTITION, "cpu");
	put(WF_TIME, "1h30m");
	put(WF_GPUS, "0");
	put(WF_CPUS, "2");
	put(WF_DATASETS, "lustre:///data/a, lustre:///data/b");
	put(WF_MOUNTS, "/scratch:/scratch:ro,/w:/work");
	put(WF_SECRETS, "HF_TOKEN NGC_KEY");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_str_eq(sp.name, "wiz");
	ck_assert_str_eq(sp.cluster, "sdtb");
	ck_assert_str_eq(sp.image, "nvcr.io/nvidia/pytorch:24.01-py3");
	ck_assert_str_eq(sp.command, "python train.py");
	ck_assert_str_eq(sp.partition, "cpu");
	ck_assert_int_eq(sp.time_minutes, 90);
	ck_assert_int_eq(sp.nodes, 1);
	ck_assert_int_eq(sp.gpus, 0);
	ck_assert_int_eq(sp.cpus, 2);
	ck_assert_uint_eq(sp.datasets.n, 2);
	ck_assert_str_eq(sp.datasets.v[1], "lustre:///data/b");
	ck_assert_uint_eq(sp.nmounts, 2);
	ck_assert_str_eq(sp.mounts[0].src, "/scratch");
	ck_assert_int_eq(sp.mounts[0].ro, 1);
	ck_assert_str_eq(sp.mounts[1].dst, "/work");
	ck_assert_int_eq(sp.mounts[1].ro, 0);
	ck_assert_uint_eq(sp.secrets.n, 2);
	ck_assert_str_eq(sp.secrets.v[1], "NGC_KEY");

	/* What the worker gets: the spec as YAML, parsed back the same. */
	buf_init(&b);
	ck_assert_int_eq(spec_write(&sp, &b, &cause), 0);
	ck_assert_int_eq(spec_parse(b.data, b.len, "wizard", &back, &cause),
	    0);
	ck_assert_str_eq(back.command, sp.command);
	ck_assert_int_eq(back.time_minutes, 90);
	ck_assert_uint_eq(back.secrets.n, 2);
	spec_free(&back);
	buf_free(&b);
	spec_free(&sp);

	/* Blank fields stay unset; an invalid one is the cause. */
	put(WF_NAME, "");
	put(WF_TIME, "");
	put(WF_NODES, "");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_ptr_null(sp.name);
	ck_assert_int_eq(sp.time_minutes, 0);
	ck_assert_int_eq(sp.nodes, 0);
	spec_free(&sp);
	put(WF_MOUNTS, "/x");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), -1);
	ck_assert_str_eq(cause, "mount '/x' must be SRC:DST or SRC:DST:ro "
	    "with absolute paths, e.g. /lustre/data:/data:ro");
	free(cause);
	spec_free(&sp);
	put(WF_MOUNTS, "");
	put(WF_COMMAND, "");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "missing required key "
	    "'command'"));
	free(cause);
	spec_free(&sp);
}
END_TEST

/* The array field: the spec's check and limits, into the spec. */
START_TEST(test_array_field)
{
	struct spec	 sp;
	char		*cause = NULL, *hint;

	fill_valid();
	put(WF_ARRAY, "0-3%2");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_str_eq(sp.array, "0-3%2");
	spec_free(&sp);
	put(WF_ARRAY, "0-20000");
	ck_assert_int_eq(wizard_validate(&w), 1);
	ck_assert_ptr_nonnull(w.error[WF_ARRAY]);
	ck_assert_msg(strstr(w.error[WF_ARRAY], "more than 10000 tasks") !=
	    NULL, "%s", w.error[WF_ARRAY]);
	put(WF_ARRAY, "");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_ptr_null(sp.array);
	spec_free(&sp);
	hint = wizard_hint(&w, WF_ARRAY);
	ck_assert_ptr_nonnull(strstr(hint, "0-99%4"));
	free(hint);
	ck_assert_str_eq(wizard_label(WF_ARRAY), "array");
}
END_TEST

/* What the seed's records need: network_arch, action, requeue, ... */
START_TEST(test_record_fields)
{
	struct spec	 sp;
	char		*cause = NULL;

	fill_valid();
	/* Defaults: the cluster's requeue, the package's budget. */
	ck_assert_str_eq(v(WF_REQUEUE), "yes");
	ck_assert_str_eq(v(WF_RETRY_BUDGET), "2");
	ck_assert_str_eq(v(WF_FORCE_RECONVERT), "no");
	put(WF_NETWORK_ARCH, "classification_pyt");
	put(WF_ACTION, "train");
	w.field = WF_REQUEUE;
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_RIGHT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_REQUEUE), "no");
	w.field = WF_FORCE_RECONVERT;
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_LEFT), WREQ_REDRAW);
	ck_assert_str_eq(v(WF_FORCE_RECONVERT), "yes");
	put(WF_RETRY_BUDGET, "5");
	ck_assert_int_eq(wizard_validate(&w), 0);
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_str_eq(sp.network_arch, "classification_pyt");
	ck_assert_str_eq(sp.action, "train");
	ck_assert_int_eq(sp.requeue, 0);
	ck_assert_int_eq(sp.retry_budget, 5);
	ck_assert_int_eq(sp.force_reconvert, 1);
	spec_free(&sp);

	put(WF_REQUEUE, "maybe");
	ck_err(WF_REQUEUE, "requeue must be yes or no, not 'maybe' "
	    "(Left/Right)");
	put(WF_REQUEUE, "no");
	put(WF_RETRY_BUDGET, "-1");
	ck_err(WF_RETRY_BUDGET, "retry_budget must be a whole number from 0 "
	    "to 100 (infra failures retried; 0: none)");
	put(WF_RETRY_BUDGET, "0");
	put(WF_FORCE_RECONVERT, "sometimes");
	ck_err(WF_FORCE_RECONVERT, "force_reconvert must be yes or no, not "
	    "'sometimes' (Left/Right)");
	put(WF_FORCE_RECONVERT, "no");
	put(WF_ACTION, "train\x01");
	ck_assert_ptr_nonnull(w.error[WF_ACTION]);
	put(WF_ACTION, "evaluate");
	ck_assert_int_eq(wizard_validate(&w), 0);

	/* A resubmit shows what the staged spec said. */
	spec_init(&sp);
	sp.image = xstrdup("nvcr.io/nvidia/pytorch:24.01-py3");
	sp.command = xstrdup("true");
	sp.network_arch = xstrdup("dino");
	sp.action = xstrdup("export");
	sp.requeue = 0;
	sp.retry_budget = 1;
	sp.force_reconvert = 1;
	wizard_from_spec(&w, &sp, "sdtb");
	ck_assert_str_eq(v(WF_NETWORK_ARCH), "dino");
	ck_assert_str_eq(v(WF_ACTION), "export");
	ck_assert_str_eq(v(WF_REQUEUE), "no");
	ck_assert_str_eq(v(WF_RETRY_BUDGET), "1");
	ck_assert_str_eq(v(WF_FORCE_RECONVERT), "yes");
	spec_free(&sp);
}
END_TEST

/* e on a finished job: the fields come from its staged spec. */
START_TEST(test_from_spec_round_trip)
{
	static const char yaml[] =
	    "name: again\n"
	    "cluster: sdtb\n"
	    "image: registry.local#sdtest/tui:1\n"
	    "command: echo one\n"
	    "partition: cpu\n"
	    "time: 90m\n"
	    "nodes: 1\n"
	    "gpus: 0\n"
	    "cpus: 3\n"
	    "datasets: [\"lustre:///data/a\"]\n"
	    "mounts: [\"/s:/s:ro\", \"/t:/t\"]\n"
	    "secrets: [HF_TOKEN]\n";
	struct spec	 sp, back;
	char		*cause = NULL;

	ck_assert_int_eq(spec_parse(yaml, strlen(yaml), "t", &sp, &cause), 0);
	wizard_from_spec(&w, &sp, "sdtb");
	ck_assert_str_eq(v(WF_CLUSTER), "sdtb");
	ck_assert_str_eq(v(WF_NAME), "again");
	ck_assert_str_eq(v(WF_PARTITION), "cpu");
	ck_assert_str_eq(v(WF_TIME), "1:30:00");
	ck_assert_str_eq(v(WF_GPUS), "0");
	ck_assert_str_eq(v(WF_CPUS), "3");
	ck_assert_str_eq(v(WF_IMAGE), "registry.local#sdtest/tui:1");
	ck_assert_str_eq(v(WF_COMMAND), "echo one");
	ck_assert_str_eq(v(WF_DATASETS), "lustre:///data/a");
	ck_assert_str_eq(v(WF_MOUNTS), "/s:/s:ro, /t:/t");
	ck_assert_str_eq(v(WF_SECRETS), "HF_TOKEN");
	ck_assert_int_eq(wizard_validate(&w), 0);

	/* And back: the same spec. */
	ck_assert_int_eq(wizard_build(&w, &back, &cause), 0);
	ck_assert_str_eq(back.name, sp.name);
	ck_assert_str_eq(back.image, sp.image);
	ck_assert_str_eq(back.command, sp.command);
	ck_assert_str_eq(back.partition, sp.partition);
	ck_assert_int_eq(back.time_minutes, sp.time_minutes);
	ck_assert_int_eq(back.gpus, sp.gpus);
	ck_assert_int_eq(back.cpus, sp.cpus);
	ck_assert_uint_eq(back.nmounts, 2);
	ck_assert_int_eq(back.mounts[0].ro, 1);
	ck_assert_uint_eq(back.secrets.n, 1);
	spec_free(&back);
	spec_free(&sp);
}
END_TEST

/*
 * The after field (issue 27): job ids as the spec's after: takes them
 * (afterok, any:ID afterany), checked as typed, in the spec it builds,
 * in the preview as the --dependency value, and filled from a spec.
 */
START_TEST(test_after)
{
	static const char yaml[] =
	    "name: dep\nimage: registry.local#sdtest/tui:1\ncommand: 'true'\n"
	    "after: {ok: [12, 13_2], any: [14]}\n";
	struct spec	 sp;
	char		*cause = NULL, *line;

	fill_valid();
	ck_ok(WF_AFTER);
	put(WF_AFTER, "12, abc");
	wizard_validate(&w);
	ck_err(WF_AFTER, "after: item 2 'abc' is not a SLURM job id (1234), "
	    "an array task (1234_5) or any:ID");
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "'abc'"));
	free(cause);
	spec_free(&sp);
	put(WF_AFTER, "any:12_[1-3]");
	wizard_validate(&w);
	ck_assert_ptr_nonnull(w.error[WF_AFTER]);
	put(WF_AFTER, "12 ok:13_2, any:14 12");
	ck_assert_int_eq(wizard_validate(&w), 0);
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	ck_assert_uint_eq(sp.after_ok.n, 2);
	ck_assert_str_eq(sp.after_ok.v[1], "13_2");
	ck_assert_uint_eq(sp.after_any.n, 1);
	ck_assert_str_eq(sp.after_any.v[0], "14");
	spec_free(&sp);
	line = wz_after_line(v(WF_AFTER));
	ck_assert_str_eq(line, "afterok:12:13_2,afterany:14 (#SBATCH "
	    "--dependency: pending with reason Dependency until then)");
	free(line);
	line = wz_after_line("");
	ck_assert_str_eq(line, "- (starts when SLURM can)");
	free(line);

	/* From a spec (e: resubmit), and back the same. */
	ck_assert_int_eq(spec_parse(yaml, strlen(yaml), "t", &sp, &cause), 0);
	wizard_from_spec(&w, &sp, "sdtb");
	ck_assert_str_eq(v(WF_AFTER), "12, 13_2, any:14");
	spec_free(&sp);
	ck_assert_int_eq(wizard_build(&w, &sp, &cause), 0);
	line = spec_dependency(&sp);
	ck_assert_str_eq(line, "afterok:12:13_2,afterany:14");
	free(line);
	spec_free(&sp);
}
END_TEST

/* Editing inside a field: Left/Right, Home/End, Delete, Backspace. */
START_TEST(test_cursor)
{
	fill_valid();
	put(WF_COMMAND, "echo hllo");
	ck_assert_uint_eq(wizard_cursor(&w), 9);
	/* Back to after "h", insert "e". */
	ck_assert_int_eq(wizard_key(&w, UIA_CURSOR_HOME, WK_OTHER),
	    WREQ_REDRAW);
	ck_assert_uint_eq(wizard_cursor(&w), 0);
	for (int i = 0; i < 6; i++)
		wizard_key(&w, UIA_CURSOR_RIGHT, WK_RIGHT);
	wizard_type(&w, "e", 1);
	ck_assert_str_eq(v(WF_COMMAND), "echo hello");
	ck_assert_uint_eq(wizard_cursor(&w), 7);
	/* Delete takes the character under the cursor, Backspace the one
	 * before; both re-validate. */
	wizard_key(&w, UIA_INPUT_DELETE, WK_OTHER);
	ck_assert_str_eq(v(WF_COMMAND), "echo helo");
	wizard_key(&w, UIA_INPUT_BACKSPACE, WK_OTHER);
	ck_assert_str_eq(v(WF_COMMAND), "echo hlo");
	ck_assert_uint_eq(wizard_cursor(&w), 6);
	wizard_key(&w, UIA_CURSOR_END, WK_OTHER);
	ck_assert_uint_eq(wizard_cursor(&w), 8);
	wizard_key(&w, UIA_INPUT_DELETE, WK_OTHER);	/* nothing after */
	ck_assert_str_eq(v(WF_COMMAND), "echo hlo");
	/* Multibyte characters move and go as one. */
	put(WF_COMMAND, "echo \xc3\xa9t\xc3\xa9");
	wizard_key(&w, UIA_CURSOR_LEFT, WK_LEFT);
	ck_assert_uint_eq(wizard_cursor(&w), 8);
	wizard_key(&w, UIA_CURSOR_LEFT, WK_LEFT);
	wizard_key(&w, UIA_CURSOR_LEFT, WK_LEFT);
	ck_assert_uint_eq(wizard_cursor(&w), 5);
	wizard_key(&w, UIA_INPUT_DELETE, WK_OTHER);
	ck_assert_str_eq(v(WF_COMMAND), "echo t\xc3\xa9");
	wizard_key(&w, UIA_CURSOR_HOME, WK_OTHER);
	wizard_key(&w, UIA_CURSOR_LEFT, WK_LEFT);	/* stays at 0 */
	ck_assert_uint_eq(wizard_cursor(&w), 0);
	wizard_key(&w, UIA_INPUT_BACKSPACE, WK_OTHER);
	ck_assert_str_eq(v(WF_COMMAND), "echo t\xc3\xa9");
	/* Another field: the cursor starts at its end. */
	wizard_key(&w, UIA_WIZ_NEXT, WK_OTHER);
	ck_assert_uint_eq(wizard_cursor(&w), strlen(v(WF_DATASETS)));
	/* Typed in the middle, validated as typed. */
	put(WF_TIME, "5h");
	wizard_key(&w, UIA_CURSOR_LEFT, WK_LEFT);
	wizard_type(&w, "0", 1);
	ck_assert_str_eq(v(WF_TIME), "50h");
	ck_assert_ptr_nonnull(w.error[WF_TIME]);
	wizard_key(&w, UIA_CURSOR_HOME, WK_OTHER);
	wizard_key(&w, UIA_INPUT_DELETE, WK_OTHER);
	ck_assert_str_eq(v(WF_TIME), "0h");
	/* Left/Right on a field with choices still choose. */
	w.field = WF_PARTITION;
	wizard_key(&w, UIA_CURSOR_RIGHT, WK_RIGHT);
	ck_assert_str_eq(v(WF_PARTITION), "cpu");
}
END_TEST

/*
 * e keeps what the form does not show (supporting files, env, requeue)
 * and a multi-line command as written, unless its field is edited.
 */
START_TEST(test_from_spec_keeps_the_rest)
{
	static const char yaml[] =
	    "name: multi\n"
	    "image: registry.local#sdtest/tui:1\n"
	    "command: |\n"
	    "  for i in 1 2; do\n"
	    "    echo $i\n"
	    "  done\n"
	    "partition: cpu\n"
	    "gpus: 0\n"
	    "requeue: false\n"
	    "env:\n"
	    "  MODE: fast\n"
	    "files:\n"
	    "  - path: train.py\n"
	    "    sha256: 0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef\n";
	struct spec	 sp, back;
	char		*cause = NULL, *h;

	ck_assert_int_eq(spec_parse(yaml, strlen(yaml), "t", &sp, &cause), 0);
	wizard_from_spec(&w, &sp, "sdtb");
	/* Shown on one line... */
	ck_assert_str_eq(v(WF_COMMAND), "for i in 1 2; do;   echo $i; done");
	h = wizard_hint(&w, WF_COMMAND);
	ck_assert_ptr_nonnull(strstr(h, "kept as written"));
	free(h);
	ck_assert_int_eq(wizard_validate(&w), 0);
	/* ... submitted as written, with the files, env and requeue. */
	ck_assert_int_eq(wizard_build(&w, &back, &cause), 0);
	ck_assert_str_eq(back.command, "for i in 1 2; do\n  echo $i\ndone\n");
	ck_assert_str_eq(back.command, sp.command);
	ck_assert_uint_eq(back.nfiles, 1);
	ck_assert_str_eq(back.files[0].path, "train.py");
	ck_assert_str_eq(back.files[0].sha256, sp.files[0].sha256);
	ck_assert_uint_eq(back.nenv, 1);
	ck_assert_str_eq(back.env[0].name, "MODE");
	ck_assert_int_eq(back.requeue, 0);
	ck_assert_str_eq(back.name, "multi");
	spec_free(&back);

	/* The form's own fields win: a name cleared stays cleared. */
	put(WF_NAME, "");
	put(WF_MOUNTS, "/a:/b");
	ck_assert_int_eq(wizard_build(&w, &back, &cause), 0);
	ck_assert_ptr_null(back.name);
	ck_assert_uint_eq(back.nmounts, 1);
	ck_assert_uint_eq(back.nfiles, 1);
	spec_free(&back);

	/* An edited command is the one line typed. */
	w.field = WF_COMMAND;
	wizard_type(&w, "; echo end", 10);
	ck_assert_int_eq(wizard_build(&w, &back, &cause), 0);
	ck_assert_str_eq(back.command, "for i in 1 2; do;   echo $i; done; "
	    "echo end");
	spec_free(&back);
	h = wizard_hint(&w, WF_COMMAND);
	ck_assert_str_eq(h, "run in the container (sh)");
	free(h);

	/* n afterwards starts from nothing: no files of the old job. */
	wizard_open(&w, "sdtb", 1);
	put(WF_IMAGE, "registry.local#sdtest/tui:1");
	put(WF_COMMAND, "true");
	ck_assert_int_eq(wizard_build(&w, &back, &cause), 0);
	ck_assert_uint_eq(back.nfiles, 0);
	ck_assert_uint_eq(back.nenv, 0);
	spec_free(&back);
	spec_free(&sp);
}
END_TEST

static void
action(enum action_kind kind, const char *step, int done, int failed,
    const char *message, const char *job_id)
{
	struct msg_action	m;

	memset(&m, 0, sizeof m);
	m.kind = kind;
	m.cluster = (char *)"sdtb";
	m.step = (char *)step;
	m.done = done;
	m.failed = failed;
	m.message = (char *)message;
	m.job_id = (char *)job_id;
	wizard_action(&w, &m);
}

START_TEST(test_pages)
{
	struct msg_action	m;
	size_t			k, i;

	wizard_open(&w, "sdtb", 1);
	/* Tab walks the fields and wraps; S-Tab goes back. */
	w.field = WF_COUNT - 1;
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_OTHER), WREQ_REDRAW);
	ck_assert_int_eq(w.field, 0);
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_PREV, WK_OTHER), WREQ_REDRAW);
	ck_assert_int_eq(w.field, WF_COUNT - 1);
	/* Enter on the last field with errors: to the first bad field. */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_REDRAW);
	ck_assert_int_eq(w.field, WF_IMAGE);
	ck_assert_int_eq(w.page, WIZ_FORM);
	/* Enter elsewhere is Tab. */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_REDRAW);
	ck_assert_int_eq(w.field, WF_COMMAND);

	put(WF_IMAGE, "registry.local#sdtest/tui:1");
	put(WF_COMMAND, "echo hi");
	put(WF_DATASETS, "lustre:///nonexistent/data");
	w.field = WF_SECRETS;
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER),
	    WREQ_PREVIEW);
	wizard_start(&w, 0);
	ck_assert_int_eq(w.page, WIZ_PREVIEW);
	ck_assert_int_eq(w.waiting, 1);
	/* No submit before the preview is there. */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_NONE);
	action(ACTION_SUBMIT, "preflight", 0, 0, "login node ok", NULL);
	ck_assert_uint_eq(w.progress.n, 1);
	ck_assert_str_eq(w.progress.v[0], "preflight login node ok");

	/* The dry run fails at check: back to the datasets, values kept. */
	action(ACTION_SUBMIT, "check", 1, 1, "missing on the cluster:\n"
	    "- dataset lustre:///nonexistent/data: /nonexistent/data does "
	    "not exist", NULL);
	ck_assert_int_eq(w.page, WIZ_FORM);
	ck_assert_int_eq(w.waiting, 0);
	ck_assert_int_eq(w.field, WF_DATASETS);
	ck_assert_int_eq(w.banner_err, 1);
	/* Sanitised: the cluster's newline is a blank on one line. */
	ck_assert_str_eq(w.banner, "dry run failed at check: missing on the "
	    "cluster: - dataset lustre:///nonexistent/data: /nonexistent/"
	    "data does not exist");
	ck_assert_str_eq(v(WF_DATASETS), "lustre:///nonexistent/data");
	ck_assert_str_eq(v(WF_COMMAND), "echo hi");

	/* Other failing steps point at their field. */
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "image", 1, 1, "cannot import", NULL);
	ck_assert_int_eq(w.field, WF_IMAGE);
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "secrets", 1, 1, "HF_TOKEN is not set", NULL);
	ck_assert_int_eq(w.field, WF_SECRETS);
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "preflight", 1, 1, "no sbatch", NULL);
	ck_assert_int_eq(w.field, WF_CLUSTER);
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "check", 1, 1, "- mount /nope does not exist",
	    NULL);
	ck_assert_int_eq(w.field, WF_MOUNTS);
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, NULL, 1, 1, "partition 'x' is down", NULL);
	ck_assert_int_eq(w.field, WF_PARTITION);
	/* The caller could not even queue it. */
	wizard_failed(&w, "time 9:00:00 exceeds partition gpu's MaxTime");
	ck_assert_int_eq(w.page, WIZ_FORM);
	ck_assert_int_eq(w.field, WF_TIME);
	ck_assert_str_eq(w.banner, "time 9:00:00 exceeds partition gpu's "
	    "MaxTime");

	/* A good preview, scrolled, then Backspace back to the form. */
	put(WF_DATASETS, "");
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "preview", 1, 0, "#!/bin/bash\n"
	    "#SBATCH --job-name=x\n\n#SBATCH --partition=gpu\n", NULL);
	/* Issue 18 item 16: a one-screen summary, then the script. */
	ck_assert_str_eq(w.preview.v[0], "Summary (the sbatch script of the "
	    "dry run follows: PgDn)");
	ck_assert_str_eq(w.preview.v[1], "  cluster    sdtb as alice");
	for (k = 0; k < w.preview.n &&
	    strcmp(w.preview.v[k], "#!/bin/bash") != 0; k++)
		;
	ck_assert_uint_gt(k, 8);
	ck_assert_uint_lt(k, 20);
	for (i = 0; i < k; i++)
		if (strncmp(w.preview.v[i], "  command    ", 13) == 0)
			ck_assert_str_eq(w.preview.v[i], "  command    echo hi");
	ck_assert_uint_eq(w.preview.n, k + 4);
	ck_assert_str_eq(w.preview.v[k + 2], "");
	ck_assert_str_eq(w.preview.v[k + 3], "#SBATCH --partition=gpu");
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_PAGE_DOWN), WREQ_REDRAW);
	ck_assert_uint_eq(w.preview_top, 10);
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_PAGE_DOWN), WREQ_REDRAW);
	ck_assert_uint_eq(w.preview_top, 10);	/* 20 would pass the end */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_OTHER), WREQ_REDRAW);
	ck_assert_uint_eq(w.preview_top, 11);
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_PREV, WK_OTHER), WREQ_REDRAW);
	ck_assert_uint_eq(w.preview_top, 10);
	ck_assert_int_eq(wizard_key(&w, UIA_NONE, WK_PAGE_UP), WREQ_REDRAW);
	ck_assert_uint_eq(w.preview_top, 0);
	ck_assert_int_eq(wizard_key(&w, UIA_INPUT_BACKSPACE, WK_OTHER),
	    WREQ_REDRAW);
	ck_assert_int_eq(w.page, WIZ_FORM);
	/* Text typed outside the form is ignored. */
	w.page = WIZ_PREVIEW;
	wizard_type(&w, "zz", 2);
	ck_assert_str_eq(v(WF_DATASETS), "");

	/*
	 * Issue 26.11: the preview names the job as SLURM gets it (its
	 * record id) and keeps the id, so Enter submits that very name.
	 */
	ck_assert_ptr_null(w.preview_rid);
	w.page = WIZ_FORM;
	put(WF_NAME, "wiz");
	wizard_start(&w, 0);
	action(ACTION_SUBMIT, "preview", 1, 0, "#!/bin/bash\n"
	    "#SBATCH --job-name=wiz-20260101T000000-abcdef\n",
	    "sd-20260101T000000-abcdef");
	ck_assert_str_eq(w.preview_rid, "sd-20260101T000000-abcdef");
	for (k = 0; k < w.preview.n &&
	    strncmp(w.preview.v[k], "  name ", 7) != 0; k++)
		;
	ck_assert_uint_lt(k, w.preview.n);
	ck_assert_str_eq(w.preview.v[k], "  name       wiz-20260101T000000-"
	    "abcdef");

	/* Submit: progress lines, then the id; Enter closes, n starts afresh. */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_SUBMIT);
	ck_assert_str_eq(w.preview_rid, "sd-20260101T000000-abcdef");
	wizard_start(&w, 1);
	ck_assert_int_eq(w.page, WIZ_PROGRESS);
	ck_assert_ptr_null(w.preview_rid);	/* one submit uses it */
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_NONE);
	action(ACTION_SUBMIT, "render", 0, 0, "sbatch script", NULL);
	/* Not the wizard's: a cancel result, or a submit it is not waiting on. */
	memset(&m, 0, sizeof m);
	m.kind = ACTION_CANCEL;
	m.done = 1;
	ck_assert_int_eq(wizard_action(&w, &m), 0);
	action(ACTION_SUBMIT, "launch", 1, 0, "submitted wiz-1 as SLURM job "
	    "77", "77");
	ck_assert_int_eq(w.finished, 1);
	ck_assert_str_eq(w.job_id, "77");
	ck_assert_str_eq(w.job_cluster, "sdtb");
	ck_assert_str_eq(w.progress.v[w.progress.n - 1],
	    "done      submitted wiz-1 as SLURM job 77");
	m.kind = ACTION_SUBMIT;
	ck_assert_int_eq(wizard_action(&w, &m), 0);
	ck_assert_int_eq(wizard_key(&w, UIA_WIZ_NEXT, WK_ENTER), WREQ_CLOSE);
	ck_assert_int_eq(w.opened, 0);
	wizard_open(&w, "sdtb", 0);
	ck_assert_str_eq(v(WF_COMMAND), "");
}
END_TEST

static Suite *
wizard_suite(void)
{
	Suite	*s = suite_create("wizard");
	TCase	*tc = tcase_create("wizard");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_time_as_typed);
	tcase_add_test(tc, test_mounts);
	tcase_add_test(tc, test_image);
	tcase_add_test(tc, test_secrets);
	tcase_add_test(tc, test_nodes_gpus_plan);
	tcase_add_test(tc, test_user_cluster_name_datasets);
	tcase_add_test(tc, test_build);
	tcase_add_test(tc, test_array_field);
	tcase_add_test(tc, test_record_fields);
	tcase_add_test(tc, test_from_spec_round_trip);
	tcase_add_test(tc, test_pages);
	tcase_add_test(tc, test_cursor);
	tcase_add_test(tc, test_after);
	tcase_add_test(tc, test_from_spec_keeps_the_rest);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(wizard_suite)
