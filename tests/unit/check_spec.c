/* The job spec: parse, validate, write, round trip. */
#include "testutil.h"
#include "spec.h"

static void
parse_ok(const char *text, struct spec *sp)
{
	char	*cause = NULL;

	if (spec_parse(text, strlen(text), "job.yaml", sp, &cause) != 0)
		ck_abort_msg("parse failed: %s", cause);
}

static char *
parse_err(const char *text)
{
	struct spec	 sp;
	char		*cause = NULL;

	ck_assert_int_eq(spec_parse(text, strlen(text), "job.yaml", &sp,
	    &cause), -1);
	ck_assert_ptr_nonnull(cause);
	/* A failed parse leaves an empty spec behind. */
	ck_assert_ptr_null(sp.image);
	ck_assert_uint_eq(sp.nenv, 0);
	ck_assert_uint_eq(sp.secrets.n, 0);
	return cause;
}

START_TEST(test_full)
{
	struct spec	 sp;
	char		*cause = NULL;

	ck_assert_int_eq(spec_load(test_data("spec/full.yaml"), &sp, &cause),
	    0);
	ck_assert_str_eq(sp.path, test_data("spec/full.yaml"));
	ck_assert_str_eq(sp.name, "detectnet-train");
	ck_assert_str_eq(sp.cluster, "polar");
	ck_assert_str_eq(sp.image, "nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt");
	ck_assert_str_eq(sp.command, "python train.py \\\n  --epochs 10\n");
	ck_assert_str_eq(sp.network_arch, "detectnet_v2");
	ck_assert_str_eq(sp.action, "train");
	ck_assert_str_eq(sp.partition, "gpu");
	ck_assert_int_eq(sp.nodes, 2);
	ck_assert_int_eq(sp.gpus, 16);
	ck_assert_int_eq(sp.gpus_per_node, 8);
	ck_assert_int_eq(sp.cpus, 12);
	ck_assert_int_eq(sp.time_minutes, 210);
	ck_assert_int_eq(sp.requeue, 0);
	ck_assert_int_eq(sp.retry_budget, 3);
	ck_assert_int_eq(sp.force_reconvert, 1);
	ck_assert_uint_eq(sp.datasets.n, 2);
	ck_assert_str_eq(sp.datasets.v[0], "lustre:///lustre/data/kitti");
	ck_assert_str_eq(sp.datasets.v[1], "lustre:///lustre/data/coco");
	ck_assert_uint_eq(sp.nmounts, 3);
	ck_assert_str_eq(sp.mounts[0].src, "/lustre/data");
	ck_assert_str_eq(sp.mounts[0].dst, "/data");
	ck_assert_int_eq(sp.mounts[0].ro, 1);
	ck_assert_str_eq(sp.mounts[1].src, "/lustre/alice/results");
	ck_assert_int_eq(sp.mounts[1].ro, 0);
	ck_assert_int_eq(sp.mounts[2].ro, 0);
	ck_assert_uint_eq(sp.nenv, 3);
	ck_assert_str_eq(sp.env[0].name, "TAO_LOG_LEVEL");
	ck_assert_str_eq(sp.env[0].value, "debug");
	ck_assert_str_eq(sp.env[1].name, "EMPTY");
	ck_assert_str_eq(sp.env[1].value, "");
	ck_assert_str_eq(sp.env[2].value, "8");
	ck_assert_uint_eq(sp.secrets.n, 2);
	ck_assert_str_eq(sp.secrets.v[0], "HF_TOKEN");
	ck_assert_str_eq(sp.secrets.v[1], "NGC_API_KEY");
	ck_assert_uint_eq(sp.nfiles, 1);
	ck_assert_str_eq(sp.files[0].path, "specs/train.yaml");
	/* Normalised to lower case. */
	ck_assert_str_eq(sp.files[0].sha256, "9f86d081884c7d659a2feae0c55ad015"
	    "a3bf4f1b2b0b822cd15d6c15b0f00a08");
	ck_assert_int_eq(spec_validate(&sp, &cause), 0);
	spec_free(&sp);
	ck_assert_ptr_null(sp.image);
	ck_assert_int_eq(sp.gpus, -1);
}
END_TEST

START_TEST(test_minimal_defaults)
{
	struct spec	 sp;
	char		*cause = NULL;

	ck_assert_int_eq(spec_load(test_data("spec/minimal.yaml"), &sp,
	    &cause), 0);
	ck_assert_str_eq(sp.image, "/lustre/images/pytorch.sqsh");
	ck_assert_str_eq(sp.command, "python -c 'print(1)'");
	ck_assert_ptr_null(sp.name);
	ck_assert_ptr_null(sp.partition);
	ck_assert_int_eq(sp.nodes, 0);
	ck_assert_int_eq(sp.gpus, -1);
	ck_assert_int_eq(sp.gpus_per_node, 0);
	ck_assert_int_eq(sp.cpus, 0);
	ck_assert_int_eq(sp.time_minutes, 0);
	ck_assert_int_eq(sp.requeue, -1);
	ck_assert_int_eq(sp.retry_budget, SPEC_RETRY_BUDGET);
	ck_assert_int_eq(sp.force_reconvert, 0);
	ck_assert_uint_eq(sp.nmounts, 0);
	spec_free(&sp);
}
END_TEST

static const struct {
	const char	*file;
	const char	*msg;	/* after the path */
} bad[] = {
	{ "bad-syntax.yaml", ":4:1: YAML syntax error: found unexpected end "
	    "of stream (while scanning a quoted scalar at line 2 column 10): "
	    "check indentation (spaces, not tabs) and quote values containing "
	    "': ' or ' #'" },
	{ "bad-unknown-key.yaml", ":3:1: unknown key 'gpu' in the job spec: did "
	    "you mean 'gpus'? (known keys: name, image, command, network_arch, "
	    "action, datasets, mounts, nodes, gpus, gpus_per_node, cpus, time, "
	    "partition, env, secrets, files, requeue, retry_budget, "
	    "force_reconvert, cluster, after, array)" },
	{ "bad-missing-image.yaml", ":1:1: missing required key 'image': add "
	    "e.g. 'image: nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt' (a registry "
	    "image or an absolute .sqsh path)" },
	{ "bad-missing-command.yaml", ":1:1: missing required key 'command': "
	    "add the command to run in the container, e.g. 'command: python "
	    "train.py'" },
	{ "bad-secret-value.yaml", ":4:3: secrets lists names only, never "
	    "values: write 'secrets: [HF_TOKEN]' and export HF_TOKEN when you "
	    "submit" },
	{ "bad-secret-in-env.yaml", ":5:11: MY_CONF is in both env and secrets: "
	    "remove it from env (secret values come from your environment when "
	    "you submit)" },
	{ "bad-env-secret.yaml", ":4:3: env HF_TOKEN looks like a secret: list "
	    "it under 'secrets: [HF_TOKEN]' and export its value when you "
	    "submit, instead of writing it in the file" },
	{ "bad-mount.yaml", ":4:5: mount 'data:/data': SRC 'data' must be an "
	    "absolute path on the cluster" },
	{ "bad-time.yaml", ":3:7: time '30:00' is ambiguous (SLURM reads A:B "
	    "as minutes:seconds): write e.g. 30m, 1h30m or 1:30:00" },
	{ "bad-files.yaml", ":4:5: item 1 of files needs both path and sha256 "
	    "(supporting files are staged only when closed by a checksum)" },
};

START_TEST(test_bad_files)
{
	struct spec	 sp;
	char		 name[256], *cause = NULL, *want;

	snprintf(name, sizeof name, "spec/%s", bad[_i].file);
	ck_assert_int_eq(spec_load(test_data(name), &sp, &cause), -1);
	want = xasprintf("%s%s", test_data(name), bad[_i].msg);
	ck_assert_str_eq(cause, want);
	/* A secret value must never reach a message. */
	ck_assert_ptr_null(strstr(cause, "hf_a"));
	ck_assert_ptr_null(sp.path);
	free(want);
	free(cause);
}
END_TEST

#define HEAD "image: x/y:1\ncommand: c\n"

static const struct {
	const char	*text;
	const char	*msg;	/* after "job.yaml" */
} inl[] = {
	{ "", ": empty job spec: write at least 'image:' and 'command:'" },
	{ "- a\n", ":1:1: a job spec is a map of keys (image: ..., command: "
	    "...), not a list" },
	{ HEAD "---\n" HEAD, ": more than one YAML document ('---'): keep one "
	    "job per file" },
	{ HEAD "image: z\n", ":3:1: key 'image' appears twice: keep one" },
	{ HEAD "[a]: 1\n", ":3:1: keys must be plain words, not a list" },
	{ HEAD "zzzz: 1\n", ":3:1: unknown key 'zzzz' in the job spec (known "
	    "keys: name, image, command, network_arch, action, datasets, "
	    "mounts, nodes, gpus, gpus_per_node, cpus, time, partition, env, "
	    "secrets, files, requeue, retry_budget, force_reconvert, cluster, "
	    "after, array)" },
	{ HEAD "array: 0-20000\n", ":3:8: array has more than 10000 tasks, "
	    "sqdeck's limit: split it" },
	{ HEAD "array: 5-1\n", ":3:8: array range 5-1 runs backwards: write "
	    "1-5" },
	{ HEAD "array: [1]\n", ":3:8: array must be a single value, not a "
	    "list" },
	{ HEAD "gpus: four\n", ":3:7: gpus must be a whole number from 0 to "
	    "8192, not 'four'" },
	{ HEAD "nodes: 0\n", ":3:8: nodes must be a whole number from 1 to "
	    "1024, not '0'" },
	{ HEAD "retry_budget: 11\n", ":3:15: retry_budget must be a whole "
	    "number from 0 to 10, not '11'" },
	{ HEAD "nodes: [1]\n", ":3:8: nodes must be a single value, not a "
	    "list" },
	{ HEAD "requeue: maybe\n", ":3:10: requeue must be true or false, not "
	    "'maybe'" },
	{ HEAD "name: -x\n", ":3:7: name '-x' must start with a letter or digit "
	    "and use only letters, digits, '.', '_', '-' (at most 64)" },
	{ HEAD "name: a/b\n", ":3:7: name 'a/b' must start with a letter or "
	    "digit and use only letters, digits, '.', '_', '-' (at most 64)" },
	{ "image: ''\ncommand: c\n", ":1:8: image must not be empty" },
	{ "image: \"a\\nb\"\ncommand: c\n", ":1:8: image must be one line "
	    "without control characters" },
	{ "image: i\ncommand: '  '\n", ":2:10: command must not be empty" },
	{ "image: i\ncommand: \"a\\x01\"\n", ":2:10: command must not contain "
	    "control characters" },
	{ HEAD "partition: 'g p'\n", ":3:12: partition 'g p' must be letters, "
	    "digits, '.', '_' or '-'" },
	{ HEAD "datasets: lustre:///a\n", ":3:11: datasets must be a list, not "
	    "a value: write e.g. 'datasets: [lustre:///data/set1]'" },
	{ HEAD "datasets: [[a]]\n", ":3:12: each item of datasets must be a "
	    "value, not a list" },
	{ HEAD "datasets: [~]\n", ":3:12: each item of datasets must be a "
	    "value, not empty" },
	{ HEAD "mounts: /a:/b\n", ":3:9: mounts must be a list, not a value: "
	    "write e.g. 'mounts: [/lustre/data:/data:ro]'" },
	{ HEAD "mounts: ['/a:b']\n", ":3:10: mount '/a:b': DST 'b' must be an "
	    "absolute path in the container" },
	{ HEAD "mounts: ['/a:/b:rx']\n", ":3:10: mount '/a:/b:rx': unknown "
	    "flag 'rx', use ro or rw" },
	{ HEAD "env: [A]\n", ":3:6: env must be a map of NAME: value, not a "
	    "list" },
	{ HEAD "env: {1A: x}\n", ":3:7: env name '1A' is not a shell variable "
	    "name (letters, digits, '_'; not starting with a digit)" },
	{ HEAD "env: {A-B: x}\n", ":3:7: env name 'A-B' is not a shell "
	    "variable name (letters, digits, '_'; not starting with a digit)" },
	{ HEAD "env: {A: [x]}\n", ":3:10: env A must be a plain value, not a "
	    "list" },
	{ HEAD "env: {[A]: x}\n", ":3:7: env names must be plain words, not a "
	    "list" },
	{ HEAD "env: {A: \"x\\x07\"}\n", ":3:7: env A: the value must not "
	    "contain control characters" },
	{ HEAD "env: {A: 1, A: 2}\n", ":3:13: env A is set twice: keep one" },
	{ HEAD "env: {DB_PASSWORD: x}\n", ":3:7: env DB_PASSWORD looks like a "
	    "secret: list it under 'secrets: [DB_PASSWORD]' and export its "
	    "value when you submit, instead of writing it in the file" },
	{ HEAD "secrets: HF_TOKEN\n", ":3:10: secrets must be a list of names, "
	    "e.g. 'secrets: [HF_TOKEN]'" },
	{ HEAD "secrets: {}\n", ":3:10: secrets lists names only, never values: "
	    "write 'secrets: [NAME]' and export it when you submit" },
	{ HEAD "secrets: [{HF_TOKEN: abcdef}]\n", ":3:11: secrets lists names "
	    "only: item 1 is a map (NAME: value): write just the name and "
	    "export it when you submit" },
	{ HEAD "secrets: [A, 'HF_TOKEN=abcdef']\n", ":3:14: secrets lists "
	    "names only: item 2 carries a value ('HF_TOKEN=...'): remove the "
	    "value from the file and export HF_TOKEN when you submit" },
	{ HEAD "secrets: ['nvapi-abcdef']\n", ":3:11: item 1 of secrets is not "
	    "a variable name (letters, digits, '_'): secrets lists names like "
	    "HF_TOKEN, never values" },
	{ HEAD "secrets: ['=abcdef']\n", ":3:11: item 1 of secrets is not a "
	    "variable name (letters, digits, '_'): secrets lists names like "
	    "HF_TOKEN, never values" },
	{ HEAD "secrets: [hf_abcdefabcdefabcdefabcdefabcdef]\n", ":3:11: item 1 "
	    "of secrets looks like a Hugging Face token, not a name: write the "
	    "variable name (e.g. HF_TOKEN) and export the token when you "
	    "submit" },
	{ HEAD "secrets: [A, A]\n", ":3:14: secret A is listed twice: keep "
	    "one" },
	{ HEAD "secrets: [~]\n", ":3:11: each item of secrets must be a value, "
	    "not empty" },
	{ HEAD "files: x\n", ":3:8: files must be a list, not a value: write "
	    "e.g. 'files: [{path: cfg.yaml, sha256: ...}]'" },
	{ HEAD "files: [x]\n", ":3:9: item 1 of files must be a map {path: "
	    "..., sha256: ...}, not a value" },
	{ HEAD "files: [{path: a, sha: b}]\n", ":3:19: unknown key 'sha' in "
	    "item 1 of files (known keys: path, sha256)" },
	{ HEAD "files: [{path: a, path: b}]\n", ":3:19: key 'path' appears "
	    "twice in item 1 of files: keep one" },
	{ HEAD "files: [{path: ~, sha256: b}]\n", ":3:16: path in item 1 of "
	    "files must be a value, not empty" },
	{ HEAD "files: [{[p]: a}]\n", ":3:10: keys in item 1 of files must be "
	    "plain words" },
	{ HEAD "files: [{path: a, sha256: abc}]\n", ":3:27: sha256 'abc' must "
	    "be 64 hex digits (run sha256sum on the file)" },
	{ HEAD "time: 0\n", ":3:7: time '0' must be more than zero" },
	{ HEAD "time: soon\n", ":3:7: time 'soon' is not a duration: write "
	    "e.g. 4h, 90m, 1h30m, 3:30:00 or a number of hours" },
	{ "image: [a]\ncommand: c\n", ":1:8: image must be a single value, not "
	    "a list" },
};

START_TEST(test_bad_inline)
{
	char	*cause = parse_err(inl[_i].text), *want;

	want = xasprintf("job.yaml%s", inl[_i].msg);
	ck_assert_str_eq(cause, want);
	ck_assert_ptr_null(strstr(cause, "abcdef"));
	free(want);
	free(cause);
}
END_TEST

static const struct {
	const char	*s;
	int		 minutes;
} goodtime[] = {
	{ "4h", 240 }, { "90m", 90 }, { "1h30m", 90 }, { "3:30:00", 210 },
	{ "0:00:01", 1 }, { "0:01:30", 2 }, { "4", 240 }, { "3.5", 210 },
	{ "0.5h", 30 }, { "2d", 2880 }, { "1-12", 2160 }, { "1-00:30:00", 1470 },
	{ "45s", 1 }, { "12:00:00", 720 }, { "30d", 43200 },
};

START_TEST(test_time_good)
{
	char	*cause = NULL;
	int	 m = -1;

	if (spec_parse_time(goodtime[_i].s, &m, &cause) != 0)
		ck_abort_msg("%s: %s", goodtime[_i].s, cause);
	ck_assert_int_eq(m, goodtime[_i].minutes);
}
END_TEST

static const char *badtime[] = {
	"", "h", "4x", "-4h", "4h-", "1:2:3", "1:60:00", "1:00:60", "a:00:00",
	"1::00", "1-2-3", "1-", "-1", "1:00:00:00", "4 h", "h4", "1.5.5",
	"1-1:00", "nan", "inf",
};

START_TEST(test_time_bad)
{
	char	*cause = NULL, *want;
	int	 m = -7;

	ck_assert_int_eq(spec_parse_time(badtime[_i], &m, &cause), -1);
	ck_assert_int_eq(m, -7);
	want = xasprintf("time '%s' is not a duration: write e.g. 4h, 90m, "
	    "1h30m, 3:30:00 or a number of hours", badtime[_i]);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
}
END_TEST

START_TEST(test_time_limits)
{
	char	*cause = NULL;
	int	 m;

	ck_assert_int_eq(spec_parse_time("31d", &m, &cause), -1);
	ck_assert_str_eq(cause, "time '31d' is more than 30 days: write the "
	    "time the job needs, e.g. 4h");
	free(cause);
	ck_assert_int_eq(spec_parse_time("0:00:00", &m, &cause), -1);
	ck_assert_str_eq(cause, "time '0:00:00' must be more than zero");
	free(cause);
	ck_assert_int_eq(spec_parse_time("0m", &m, &cause), -1);
	ck_assert_str_eq(cause, "time '0m' must be more than zero");
	free(cause);
}
END_TEST

static const struct {
	const char	*s;
	const char	*msg;	/* NULL: fine */
} mounts[] = {
	{ "/a:/b", NULL },
	{ "/a:/b:ro", NULL },
	{ "/a:/b:rw", NULL },
	{ "/a", "mount '/a' must be SRC:DST or SRC:DST:ro with absolute paths, "
	    "e.g. /lustre/data:/data:ro" },
	{ "/a:/b:ro:x", "mount '/a:/b:ro:x' must be SRC:DST or SRC:DST:ro with "
	    "absolute paths, e.g. /lustre/data:/data:ro" },
	{ "/a::/b", "mount '/a::/b' must be SRC:DST or SRC:DST:ro with absolute "
	    "paths, e.g. /lustre/data:/data:ro" },
	{ ":/b", "mount ':/b' must be SRC:DST or SRC:DST:ro with absolute "
	    "paths, e.g. /lustre/data:/data:ro" },
	{ "/a:/b:", "mount '/a:/b:' must be SRC:DST or SRC:DST:ro with absolute "
	    "paths, e.g. /lustre/data:/data:ro" },
	{ "", "mount '' must not contain blanks or commas (Pyxis separates "
	    "mounts with commas)" },
	{ "/a,/c:/b", "mount '/a,/c:/b' must not contain blanks or commas "
	    "(Pyxis separates mounts with commas)" },
	{ "/a b:/b", "mount '/a b:/b' must not contain blanks or commas (Pyxis "
	    "separates mounts with commas)" },
	{ "lustre:///a:/b", "mount 'lustre:///a:/b': SRC must be an absolute "
	    "path on the cluster, not a URI: write e.g. /lustre/data:/data" },
};

START_TEST(test_mount)
{
	struct spec_mount	 mt;
	char			*cause = NULL;
	int			 rc;

	rc = spec_parse_mount(mounts[_i].s, &mt, &cause);
	if (mounts[_i].msg == NULL) {
		ck_assert_int_eq(rc, 0);
		ck_assert_str_eq(mt.src, "/a");
		ck_assert_str_eq(mt.dst, "/b");
		ck_assert_int_eq(mt.ro, str_has_suffix(mounts[_i].s, ":ro"));
		free(mt.src);
		free(mt.dst);
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_ptr_null(mt.src);
		ck_assert_str_eq(cause, mounts[_i].msg);
		free(cause);
	}
}
END_TEST

static const struct {
	const char	*name;
	int		 secret;
} names[] = {
	{ "HF_TOKEN", 1 }, { "NGC_KEY", 1 }, { "NGC_API_KEY", 1 },
	{ "WANDB_API_KEY", 1 }, { "db_password", 1 }, { "AWS_SECRET_ACCESS_KEY", 1 },
	{ "MY_SECRET", 1 }, { "GIT_CREDENTIALS", 1 }, { "TOKEN", 1 },
	{ "TOKENIZERS_PARALLELISM", 0 }, { "AWS_ACCESS_KEY_ID", 0 },
	{ "NCCL_P2P_DISABLE", 0 }, { "SORT_KEY", 0 }, { "PATH", 0 },
};

START_TEST(test_secret_name)
{
	ck_assert_int_eq(spec_secret_name(names[_i].name), names[_i].secret);
}
END_TEST

static void
assert_same(const struct spec *a, const struct spec *b)
{
	size_t	i;

#define SAME_STR(f) do {						\
	if (a->f == NULL || b->f == NULL)				\
		ck_assert_ptr_eq(a->f, b->f);				\
	else								\
		ck_assert_str_eq(a->f, b->f);				\
} while (0)
	SAME_STR(name);
	SAME_STR(image);
	SAME_STR(command);
	SAME_STR(network_arch);
	SAME_STR(action);
	SAME_STR(partition);
	SAME_STR(cluster);
	ck_assert_int_eq(a->nodes, b->nodes);
	ck_assert_int_eq(a->gpus, b->gpus);
	ck_assert_int_eq(a->gpus_per_node, b->gpus_per_node);
	ck_assert_int_eq(a->cpus, b->cpus);
	ck_assert_int_eq(a->time_minutes, b->time_minutes);
	ck_assert_int_eq(a->requeue, b->requeue);
	ck_assert_int_eq(a->retry_budget, b->retry_budget);
	ck_assert_int_eq(a->force_reconvert, b->force_reconvert);
	ck_assert_uint_eq(a->datasets.n, b->datasets.n);
	for (i = 0; i < a->datasets.n; i++)
		ck_assert_str_eq(a->datasets.v[i], b->datasets.v[i]);
	ck_assert_uint_eq(a->nmounts, b->nmounts);
	for (i = 0; i < a->nmounts; i++) {
		ck_assert_str_eq(a->mounts[i].src, b->mounts[i].src);
		ck_assert_str_eq(a->mounts[i].dst, b->mounts[i].dst);
		ck_assert_int_eq(a->mounts[i].ro, b->mounts[i].ro);
	}
	ck_assert_uint_eq(a->nenv, b->nenv);
	for (i = 0; i < a->nenv; i++) {
		ck_assert_str_eq(a->env[i].name, b->env[i].name);
		ck_assert_str_eq(a->env[i].value, b->env[i].value);
	}
	ck_assert_uint_eq(a->secrets.n, b->secrets.n);
	for (i = 0; i < a->secrets.n; i++)
		ck_assert_str_eq(a->secrets.v[i], b->secrets.v[i]);
	ck_assert_uint_eq(a->nfiles, b->nfiles);
	for (i = 0; i < a->nfiles; i++) {
		ck_assert_str_eq(a->files[i].path, b->files[i].path);
		ck_assert_str_eq(a->files[i].sha256, b->files[i].sha256);
	}
#undef SAME_STR
}

/* write(parse(x)) parses back to the same spec, and writing is stable. */
static void
round_trip(const struct spec *sp)
{
	struct spec	 back, again;
	struct buf	 b1, b2;
	char		*cause = NULL;

	buf_init(&b1);
	buf_init(&b2);
	if (spec_write(sp, &b1, &cause) != 0)
		ck_abort_msg("write: %s", cause);
	if (spec_parse(b1.data, b1.len, "written.yaml", &back, &cause) != 0)
		ck_abort_msg("re-parse: %s\n%s", cause, b1.data);
	assert_same(sp, &back);
	ck_assert_int_eq(spec_write(&back, &b2, &cause), 0);
	ck_assert_str_eq(b1.data, b2.data);
	parse_ok(b2.data, &again);
	assert_same(sp, &again);
	spec_free(&again);
	spec_free(&back);
	buf_free(&b1);
	buf_free(&b2);
}

START_TEST(test_round_trip_files)
{
	struct spec	 sp;
	char		*cause = NULL;

	ck_assert_int_eq(spec_load(test_data("spec/full.yaml"), &sp, &cause),
	    0);
	round_trip(&sp);
	spec_free(&sp);
	ck_assert_int_eq(spec_load(test_data("spec/minimal.yaml"), &sp,
	    &cause), 0);
	round_trip(&sp);
	spec_free(&sp);
}
END_TEST

/* A hand-built spec (as the wizard makes) full of awkward strings. */
START_TEST(test_round_trip_nasty)
{
	struct spec	 sp;
	char		*cause = NULL;

	spec_init(&sp);
	sp.name = xstrdup("007");
	sp.image = xstrdup("nvcr.io#nvidia/x:1.0 # not a comment");
	sp.command = xstrdup("  echo 'a: b' \"#x\" $HOME\n\tsecond line  \n\n");
	sp.network_arch = xstrdup("yes");
	sp.action = xstrdup("null");
	sp.partition = xstrdup("1.5");
	sp.gpus = 0;
	sp.time_minutes = 90;
	sp.requeue = 1;
	sp.retry_budget = 0;
	strv_add(&sp.datasets, "lustre:///data/a b/ü");
	strv_add(&sp.datasets, "~");
	ck_assert_int_eq(spec_add_mount(&sp, "/x:/y:ro", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "A", "", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "B", "line1\nline2", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "C", "'\"{}[]&*!|>%@`", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "D", "off", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "E", " lead and trail ", &cause), 0);
	strv_add(&sp.secrets, "HF_TOKEN");
	round_trip(&sp);
	spec_free(&sp);
}
END_TEST

START_TEST(test_bools)
{
	static const struct {
		const char	*v;
		int		 want;
	} t[] = {
		{ "true", 1 }, { "Yes", 1 }, { "on", 1 }, { "1", 1 },
		{ "false", 0 }, { "NO", 0 }, { "off", 0 }, { "0", 0 },
	};
	struct spec	 sp;
	char		*text;
	size_t		 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		text = xasprintf(HEAD "requeue: %s\nforce_reconvert: %s\n",
		    t[i].v, t[i].v);
		parse_ok(text, &sp);
		ck_assert_int_eq(sp.requeue, t[i].want);
		ck_assert_int_eq(sp.force_reconvert, t[i].want);
		spec_free(&sp);
		free(text);
	}
}
END_TEST

START_TEST(test_write_shape)
{
	struct spec	 sp;
	struct buf	 b;
	char		*cause = NULL;

	parse_ok("image: i\ncommand: c\ntime: 4h\nrequeue: no\n", &sp);
	buf_init(&b);
	ck_assert_int_eq(spec_write(&sp, &b, &cause), 0);
	ck_assert_str_eq(b.data, "image: i\ncommand: c\ntime: '4:00:00'\n"
	    "requeue: false\nretry_budget: 2\n");
	buf_free(&b);
	spec_free(&sp);
}
END_TEST

START_TEST(test_validate)
{
	struct spec	 sp;
	struct buf	 b;
	char		*cause = NULL;

	spec_init(&sp);
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "missing required key 'image': add e.g. "
	    "'image: nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt' (a registry "
	    "image or an absolute .sqsh path)");
	free(cause);
	sp.image = xstrdup("i");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "missing required key 'command': add the "
	    "command to run in the container, e.g. 'command: python "
	    "train.py'");
	free(cause);
	sp.command = xstrdup("c");
	ck_assert_int_eq(spec_validate(&sp, &cause), 0);

	/* spec_write refuses what spec_validate refuses. */
	sp.gpus = 9000;
	buf_init(&b);
	ck_assert_int_eq(spec_write(&sp, &b, &cause), -1);
	ck_assert_str_eq(cause, "gpus must be a whole number from 0 to 8192, "
	    "not 9000");
	ck_assert_uint_eq(b.len, 0);
	free(cause);
	sp.gpus = -1;
	sp.retry_budget = -1;
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "retry_budget must be a whole number from 0 "
	    "to 10, not -1");
	free(cause);
	sp.retry_budget = 2;

	ck_assert_int_eq(spec_add_env(&sp, "X", "1", &cause), 0);
	ck_assert_int_eq(spec_add_env(&sp, "X", "2", &cause), -1);
	ck_assert_str_eq(cause, "env X is set twice: keep one");
	free(cause);
	ck_assert_int_eq(spec_add_env(&sp, "NGC_KEY", "v", &cause), -1);
	ck_assert_str_eq(cause, "env NGC_KEY looks like a secret: list it under "
	    "'secrets: [NGC_KEY]' and export its value when you submit, "
	    "instead of writing it in the file");
	free(cause);
	strv_add(&sp.secrets, "X");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "X is in both env and secrets: remove it from "
	    "env (secret values come from your environment when you submit)");
	free(cause);
	strv_free(&sp.secrets);
	strv_add(&sp.secrets, "Y");
	strv_add(&sp.secrets, "Y");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "secret Y is listed twice: keep one");
	free(cause);
	strv_free(&sp.secrets);
	strv_add(&sp.secrets, "Y=topsecret");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_ptr_null(strstr(cause, "topsecret"));
	free(cause);
	strv_free(&sp.secrets);

	sp.mounts = xcalloc(1, sizeof *sp.mounts);
	sp.nmounts = 1;
	sp.mounts[0].src = xstrdup("rel");
	sp.mounts[0].dst = xstrdup("/d");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "mount 'rel:/d': SRC 'rel' must be an absolute "
	    "path on the cluster");
	free(cause);
	free(sp.mounts[0].src);
	sp.mounts[0].src = xstrdup("/s");
	ck_assert_int_eq(spec_validate(&sp, &cause), 0);

	sp.partition = xstrdup("a;b");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "partition 'a;b' must be letters, digits, '.', "
	    "'_' or '-'");
	free(cause);
	free(sp.partition);
	sp.partition = NULL;

	sp.files = xcalloc(1, sizeof *sp.files);
	sp.nfiles = 1;
	sp.files[0].path = xstrdup("f");
	sp.files[0].sha256 = xstrdup("zz");
	ck_assert_int_eq(spec_validate(&sp, &cause), -1);
	ck_assert_str_eq(cause, "sha256 'zz' must be 64 hex digits (run "
	    "sha256sum on the file)");
	free(cause);
	spec_free(&sp);
}
END_TEST

START_TEST(test_mounts_string)
{
	struct spec	 sp;
	char		*s, *cause = NULL;

	spec_init(&sp);
	s = spec_mounts_string(&sp);
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_int_eq(spec_add_mount(&sp, "/a:/b:ro", &cause), 0);
	ck_assert_int_eq(spec_add_mount(&sp, "/c:/d:rw", &cause), 0);
	ck_assert_int_eq(spec_add_mount(&sp, "/c", &cause), -1);
	free(cause);
	s = spec_mounts_string(&sp);
	ck_assert_str_eq(s, "/a:/b:ro,/c:/d");
	free(s);
	spec_free(&sp);
}
END_TEST

START_TEST(test_load_missing)
{
	struct spec	 sp;
	char		*cause = NULL;

	ck_assert_int_eq(spec_load("/nonexistent/job.yaml", &sp, &cause), -1);
	ck_assert_str_eq(cause, "cannot open /nonexistent/job.yaml: No such "
	    "file or directory");
	free(cause);
}
END_TEST

/*
 * Resubmit reads the staged spec back from the job dir, which the job can
 * rewrite (issue 24): the secret names are the record's, whatever the file
 * lists, and a file with a NUL (valid YAML, then "\0junk": the old do_spec
 * posted it raw, cut at the NUL, and the form took the file's names) or
 * one that does not parse is refused.
 */
START_TEST(test_resubmit_text)
{
	static const char	 good[] = "name: j\nimage: \"a/b:1\"\n"
	    "command: \"true\"\ntime: 1h\n"
	    "secrets: [AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN]\n";
	static const char	 nul[] = "name: j\nimage: \"a/b:1\"\n"
	    "command: \"true\"\ntime: 1h\n"
	    "secrets: [AWS_SECRET_ACCESS_KEY]\n\0junk";
	struct strv		 kept;
	struct spec		 sp;
	struct buf		 b;
	char			*cause = NULL;

	memset(&kept, 0, sizeof kept);
	strv_add(&kept, "HF_TOKEN");
	buf_init(&b);
	ck_assert_msg(spec_resubmit_text(good, sizeof good - 1, "spec.yaml",
	    &kept, &b, &cause) == 0, "%s", cause);
	ck_assert_ptr_null(strstr(b.data, "AWS_SECRET_ACCESS_KEY"));
	ck_assert_ptr_null(strstr(b.data, "GITHUB_TOKEN"));
	ck_assert_int_eq(spec_parse(b.data, b.len, "out", &sp, &cause), 0);
	ck_assert_uint_eq(sp.secrets.n, 1);
	ck_assert_str_eq(sp.secrets.v[0], "HF_TOKEN");
	spec_free(&sp);
	buf_free(&b);

	/* A record that kept none: none, not the file's. */
	buf_init(&b);
	ck_assert_int_eq(spec_resubmit_text(good, sizeof good - 1, "spec.yaml",
	    NULL, &b, &cause), 0);
	ck_assert_ptr_null(strstr(b.data, "AWS_SECRET_ACCESS_KEY"));
	buf_free(&b);

	buf_init(&b);
	ck_assert_int_eq(spec_resubmit_text(nul, sizeof nul - 1, "spec.yaml",
	    &kept, &b, &cause), -1);
	ck_assert_msg(strstr(cause, "NUL") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(spec_resubmit_text("name: [", 7, "spec.yaml", &kept,
	    &b, &cause), -1);
	free(cause);
	buf_free(&b);
	strv_free(&kept);
}
END_TEST

static Suite *
spec_suite(void)
{
	Suite	*s = suite_create("spec");
	TCase	*tc = tcase_create("spec");

	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_minimal_defaults);
	tcase_add_loop_test(tc, test_bad_files, 0, sizeof bad / sizeof bad[0]);
	tcase_add_loop_test(tc, test_bad_inline, 0, sizeof inl / sizeof inl[0]);
	tcase_add_loop_test(tc, test_time_good, 0,
	    sizeof goodtime / sizeof goodtime[0]);
	tcase_add_loop_test(tc, test_time_bad, 0,
	    sizeof badtime / sizeof badtime[0]);
	tcase_add_test(tc, test_time_limits);
	tcase_add_loop_test(tc, test_mount, 0, sizeof mounts / sizeof mounts[0]);
	tcase_add_loop_test(tc, test_secret_name, 0,
	    sizeof names / sizeof names[0]);
	tcase_add_test(tc, test_round_trip_files);
	tcase_add_test(tc, test_round_trip_nasty);
	tcase_add_test(tc, test_bools);
	tcase_add_test(tc, test_write_shape);
	tcase_add_test(tc, test_validate);
	tcase_add_test(tc, test_mounts_string);
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_resubmit_text);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(spec_suite)
