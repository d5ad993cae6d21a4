/* clusters.yaml and the environment overrides (README). */
#include <sys/stat.h>

#include "testutil.h"
#include "config.h"

static const char *envvars[] = {
	"SLURM_USER", "SLURM_HOSTNAME", "SLURM_PORT", "SSH_PORT",
	"SLURM_PARTITION", "SSH_KEY_PATH", "SSH_KNOWN_HOSTS",
	"SLURM_BASE_RESULTS_DIR", "SLURM_ACCOUNT", "SLURM_TIME_HOURS",
	"SLURM_USE_REQUEUE", "SQDECK_CLUSTER", NULL
};

static char	 home[4096];

/* A clean environment with a private HOME and XDG_CONFIG_HOME. */
static void
setup(void)
{
	const char	**v;

	for (v = envvars; *v != NULL; v++)
		unsetenv(*v);
	snprintf(home, sizeof home, "%s", test_tmpdir());
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
}

/* Write text to a fresh temporary file; returns its path (static). */
static const char *
write_tmp(const char *text)
{
	static char	 path[8192];
	char		*cause = NULL;

	snprintf(path, sizeof path, "%s/clusters.yaml", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(path, text, strlen(text), 0600,
	    &cause), 0);
	return path;
}

/* Load path and return the error message (caller frees). */
static char *
load_err(const char *path)
{
	struct config	 cfg;
	char		*cause = NULL;

	ck_assert_int_eq(config_load(path, &cfg, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_uint_eq(cfg.nclusters, 0);
	ck_assert_ptr_null(cfg.clusters);
	return cause;
}

static void
assert_err(const char *path, const char *want)
{
	char	*cause = load_err(path), *full;

	full = xasprintf("%s%s", path, want);
	ck_assert_str_eq(cause, full);
	free(full);
	free(cause);
}

START_TEST(test_good)
{
	struct config	 cfg;
	struct cluster	*c;
	char		*cause = NULL, *key;

	ck_assert_int_eq(config_load(test_data("config/good.yaml"), &cfg,
	    &cause), 0);
	ck_assert_str_eq(cfg.path, test_data("config/good.yaml"));
	ck_assert_uint_eq(cfg.nclusters, 2);
	ck_assert_uint_eq(cfg.current, 0);
	c = &cfg.clusters[0];
	ck_assert_str_eq(c->name, "polar");
	ck_assert_uint_eq(c->hosts.n, 2);
	ck_assert_str_eq(c->hosts.v[0], "login1.example.org");
	ck_assert_str_eq(c->hosts.v[1], "login2.example.org");
	ck_assert_str_eq(c->user, "alice");
	ck_assert_int_eq(c->port, 2222);
	key = xasprintf("%s/.ssh/id_ed25519", home);
	ck_assert_str_eq(c->key_path, key);
	free(key);
	ck_assert_str_eq(c->known_hosts, "/etc/sqdeck/known_hosts");
	ck_assert_uint_eq(c->partitions.n, 2);
	ck_assert_str_eq(c->partitions.v[0], "polar");
	ck_assert_str_eq(c->partitions.v[1], "polar3");
	ck_assert_str_eq(c->account, "proj42");
	ck_assert_str_eq(c->results_root, "/lustre/alice/results");
	ck_assert_str_eq(c->cpu_partition, "cpu");
	ck_assert_str_eq(c->image_cache, "/lustre/alice/sqsh");
	ck_assert_int_eq(c->container, CONTAINER_PYXIS);
	ck_assert_double_eq(c->time_hours, 3.5);
	ck_assert_int_eq(c->requeue, 0);
	ck_assert_int_eq(c->poll_interval, 10);
	ck_assert_int_eq(c->connect_timeout, 15);
	ck_assert_int_eq(c->command_timeout, 120);
	ck_assert_int_eq(c->gpus_per_node, 4);
	ck_assert_uint_eq(c->nccl_env.n, 2);
	ck_assert_str_eq(c->nccl_env.v[0], "NCCL_P2P_DISABLE=1");
	ck_assert_str_eq(c->nccl_env.v[1], "NCCL_SOCKET_IFNAME=eth0");

	/* Unset keys keep their "use the default" values. */
	c = &cfg.clusters[1];
	ck_assert_str_eq(c->name, "lab");
	ck_assert_uint_eq(c->hosts.n, 1);
	ck_assert_str_eq(c->hosts.v[0], "lab-login");
	ck_assert_ptr_null(c->user);
	ck_assert_int_eq(c->port, 0);
	ck_assert_ptr_null(c->account);
	ck_assert_int_eq(c->requeue, -1);
	ck_assert_int_eq(c->container, CONTAINER_AUTO);
	ck_assert_uint_eq(c->partitions.n, 4);
	ck_assert_str_eq(c->partitions.v[0], "polar");
	ck_assert_str_eq(c->partitions.v[3], "grizzly");

	ck_assert_ptr_eq(config_cluster(&cfg, NULL, &cause), &cfg.clusters[0]);
	ck_assert_ptr_eq(config_cluster(&cfg, "lab", &cause), &cfg.clusters[1]);
	ck_assert_ptr_null(config_cluster(&cfg, "nope", &cause));
	ck_assert_str_eq(cause, "no cluster named 'nope' (clusters: polar, lab)");
	free(cause);
	config_free(&cfg);
	ck_assert_uint_eq(cfg.nclusters, 0);
	ck_assert_ptr_null(cfg.path);
}
END_TEST

/* The 'clusters:' form, comma strings, yes/no and ~ (null). */
START_TEST(test_clusters_key)
{
	struct config	 cfg;
	struct cluster	*c;
	char		*cause = NULL;

	ck_assert_int_eq(config_load(test_data("config/clusters-key.yaml"),
	    &cfg, &cause), 0);
	ck_assert_uint_eq(cfg.nclusters, 2);
	c = &cfg.clusters[0];
	ck_assert_uint_eq(c->hosts.n, 3);
	ck_assert_str_eq(c->hosts.v[0], "h1");
	ck_assert_str_eq(c->hosts.v[1], "h2");
	ck_assert_str_eq(c->hosts.v[2], "h3");
	ck_assert_uint_eq(c->partitions.n, 2);
	ck_assert_str_eq(c->partitions.v[0], "gpu");
	ck_assert_str_eq(c->partitions.v[1], "cpu");
	ck_assert_int_eq(c->container, CONTAINER_NONE);
	ck_assert_str_eq(config_container_name(c->container), "none");
	ck_assert_int_eq(c->requeue, 1);
	c = &cfg.clusters[1];
	ck_assert_str_eq(c->hosts.v[0], "hb");
	ck_assert_ptr_null(c->account);
	config_free(&cfg);
}
END_TEST

static const struct {
	const char	*file;
	const char	*msg;	/* after the path */
} bad[] = {
	{ "bad-syntax.yaml", ":3:7: YAML syntax error: did not find expected "
	    "',' or ']' (while parsing a flow sequence at line 2 column 10): "
	    "check indentation (spaces, not tabs) and quote values "
	    "containing ': ' or ' #'" },
	{ "bad-indent.yaml", ":3:8: YAML syntax error: mapping values are not "
	    "allowed in this context: check indentation (spaces, not tabs) and "
	    "quote values containing ': ' or ' #'" },
	{ "bad-unknown-key.yaml", ":7:3: unknown key 'hostz' in cluster 'b': "
	    "did you mean 'hosts'? (known keys: name, hosts, user, port, key, "
	    "certificate, jump, "
	    "known_hosts, partitions, account, results_root, cpu_partition, "
	    "image_cache, image_cache_owners, container, time_hours, requeue, poll_interval, "
	    "min_poll_interval, max_scheduler_calls, history_days, history, "
	    "connect_timeout, command_timeout, gpus_per_node, nccl_env, "
	    "nccl_probe_command, nccl_probe_timeout, persist)" },
	{ "bad-dup-name.yaml", ":3:3: duplicate cluster name 'a' (first at "
	    "line 1): rename one" },
	{ "bad-no-hosts.yaml", ":3:3: cluster 'b' has no hosts: add 'hosts: "
	    "[login1, login2]' (tried in order)" },
	{ "bad-no-name.yaml", ":1:3: cluster #1 has no name: add 'name: "
	    "<cluster name>'" },
	{ "bad-port.yaml", ":3:9: cluster 'a': port must be a whole number "
	    "from 1 to 65535, not '70000'" },
	{ "bad-container.yaml", ":3:14: cluster 'a': unknown container mode "
	    "'docker': use auto, pyxis or none" },
	{ "bad-time.yaml", ":3:15: cluster 'a': time_hours must be a number of "
	    "hours above 0 and at most 720 (more than 4 is checked against "
	    "the partition's MaxTime at submit), not '1000'" },
	{ "bad-dup-key.yaml", ":4:3: key 'user' appears twice in cluster 'a': "
	    "keep one" },
	{ "bad-type.yaml", ":3:9: cluster 'a': port must be a single value, "
	    "not a list" },
	{ "bad-toplevel.yaml", ":1:1: unknown top-level key 'cluster': the "
	    "file is a list of clusters, or a map with the one key "
	    "'clusters'" },
	{ "bad-not-list.yaml", ":1:1: unknown top-level key 'name': the file "
	    "is a list of clusters, or a map with the one key 'clusters'" },
	{ "bad-two-docs.yaml", ": more than one YAML document ('---'): keep "
	    "everything in one" },
	{ "bad-host-at.yaml", ":2:11: cluster 'a': host 'alice@login1' "
	    "contains '@': put the user name in 'user' (or SLURM_USER) and "
	    "only the host in 'hosts'" },
	{ "bad-results-root.yaml", ":3:17: cluster 'a': results_root 'results' "
	    "must be an absolute path on the cluster, e.g. "
	    "/lustre/<user>/results" },
};

START_TEST(test_bad_files)
{
	char	 name[256];

	snprintf(name, sizeof name, "config/%s", bad[_i].file);
	assert_err(test_data(name), bad[_i].msg);
}
END_TEST

/* Inline cases: each text and the message after "<path>:". */
static const struct {
	const char	*text;
	const char	*msg;
} inl[] = {
	{ "- just-a-name\n", ":1:3: cluster #1 must be a map of keys (name: "
	    "..., hosts: ...), not a value" },
	{ "clusters: {a: 1}\n", ":1:11: expected a list of clusters ('- name: "
	    "...'), not a map" },
	{ "clusters:\n  - name: a\n    hosts: h\nclusters: []\n", ":4:1: key "
	    "'clusters' appears twice: keep one" },
	{ "- name: a\n  hosts: [h, [x]]\n", ":2:14: cluster 'a': each item of "
	    "hosts must be a name, not a list" },
	{ "- name: a\n  hosts: [h, ~]\n", ":2:14: cluster 'a': each item of "
	    "hosts must be a name, not empty" },
	{ "- name: a\n  hosts: ' , '\n", ":2:10: cluster 'a': hosts has no "
	    "names: give at least one" },
	{ "- name: a\n  hosts: h\n  key: ~bob/k\n", ":3:8: cluster 'a': "
	    "'~bob/k': ~user paths are not supported, write the full path" },
	{ "- name: a\n  hosts: h\n  requeue: maybe\n", ":3:12: cluster 'a': "
	    "requeue must be true or false, not 'maybe'" },
	{ "- name: a\n  hosts: h\n  poll_interval: 0\n", ":3:18: cluster 'a': "
	    "poll_interval must be a whole number from 1 to 3600, not '0'" },
	{ "- name: a\n  hosts: h\n  time_hours: 0\n", ":3:15: cluster 'a': "
	    "time_hours must be a number of hours above 0 and at most 720 "
	    "(more than 4 is checked against the partition's MaxTime at "
	    "submit), not '0'" },
	{ "- name: a b\n  hosts: h\n", ":1:9: cluster 'a b': name 'a b' must "
	    "be letters, digits, '.', '_' or '-'" },
	{ "- name: a\n  hosts: h\n  user: al ice\n", ":3:9: cluster 'a': user "
	    "'al ice' must be one word without blanks or control characters" },
	{ "- name: a\n  hosts: h\n  partitions: [gpu, 'g p']\n", ":3:21: "
	    "cluster 'a': partition 'g p' is not a SLURM partition name "
	    "(letters, digits, '.', '_', '-')" },
	{ "- name: a\n  hosts: h\n  nccl_env: {1X: y}\n", ":3:14: nccl_env in "
	    "cluster 'a': '1X' is not a variable name (letters, digits, '_')" },
	{ "- name: a\n  hosts: h\n  nccl_env: {X: [y]}\n", ":3:17: nccl_env in "
	    "cluster 'a': X must be a plain value, not a list" },
	{ "- name: a\n  hosts: h\n  nccl_env: x\n", ":3:13: cluster 'a': "
	    "nccl_env must be a map of NAME: value, not a value" },
	{ "- name: a\n  hosts: h\n  nccl_probe_command: \"a\\tb\"\n",
	    ":3:23: cluster 'a': nccl_probe_command must be one line of shell "
	    "without control characters" },
	{ "- name: a\n  hosts: h\n  results_root: \"/l/\\e[2Jx\"\n",
	    ":3:17: cluster 'a': results_root must be an absolute path without "
	    "control characters" },
	{ "- name: a\n  hosts: h\n  nccl_probe_timeout: 0\n", ":3:23: cluster "
	    "'a': nccl_probe_timeout must be a whole number from 1 to 3600, "
	    "not '0'" },
	{ "- name: a\n  hosts: h\n  persist: 10x\n", ":3:12: cluster 'a': "
	    "persist must be a duration like 600, 10m or 1h (at most 7 days), "
	    "or no, not '10x'" },
	{ "- name: a\n  hosts: h\n  persist: 8d\n", ":3:12: cluster 'a': "
	    "persist must be a duration like 600, 10m or 1h (at most 7 days), "
	    "or no, not '8d'" },
	{ "- name: a\n  hosts: h\n  [x]: 1\n", ":3:3: keys in cluster 'a' must "
	    "be plain words, not a list" },
	{ "- name: a\n  hosts: h\n  zzzzzz: 1\n", ":3:3: unknown key 'zzzzzz' "
	    "in cluster 'a' (known keys: name, hosts, user, port, key, "
	    "certificate, jump, "
	    "known_hosts, partitions, account, results_root, cpu_partition, "
	    "image_cache, image_cache_owners, container, time_hours, requeue, poll_interval, "
	    "min_poll_interval, max_scheduler_calls, history_days, history, "
	    "connect_timeout, command_timeout, gpus_per_node, nccl_env, "
	    "nccl_probe_command, nccl_probe_timeout, persist)" },
	{ "- name: a\n  hosts: h\n\tuser: x\n", ":3:1: YAML syntax error: found a "
	    "tab character that violates indentation (while scanning a plain "
	    "scalar at line 2 column 10): check indentation (spaces, not "
	    "tabs) and quote values containing ': ' or ' #'" },
};

START_TEST(test_bad_inline)
{
	const char	*path = write_tmp(inl[_i].text);

	assert_err(path, inl[_i].msg);
}
END_TEST

/* persist: how long the holder keeps a login; unset is -1 (600 s). */
START_TEST(test_persist)
{
	struct config	 cfg;
	char		*cause = NULL;
	const char	*path;

	path = write_tmp("- name: a\n  hosts: h\n  persist: 10m\n"
	    "- name: b\n  hosts: h\n  persist: no\n"
	    "- name: c\n  hosts: h\n"
	    "- name: d\n  hosts: h\n  persist: 90\n"
	    "- name: e\n  hosts: h\n  persist: 2h\n");
	ck_assert_msg(config_load(path, &cfg, &cause) == 0, "%s", cause);
	ck_assert_int_eq(cfg.clusters[0].persist, 600);
	ck_assert_int_eq(cfg.clusters[1].persist, 0);
	ck_assert_int_eq(cfg.clusters[2].persist, -1);
	ck_assert_int_eq(cfg.clusters[3].persist, 90);
	ck_assert_int_eq(cfg.clusters[4].persist, 7200);
	config_free(&cfg);
}
END_TEST

/* Issue 28: bastions, a list or a comma string of [user@]host[:port]. */
START_TEST(test_jump)
{
	struct config	 cfg;
	char		*cause = NULL;
	const char	*path;

	path = write_tmp("- name: a\n  hosts: h\n  jump: [u@b1:2225, b2]\n"
	    "- name: b\n  hosts: h\n  jump: 'x@[::1]:22'\n"
	    "- name: c\n  hosts: h\n");
	ck_assert_msg(config_load(path, &cfg, &cause) == 0, "%s", cause);
	ck_assert_uint_eq(cfg.clusters[0].jumps.n, 2);
	ck_assert_str_eq(cfg.clusters[0].jumps.v[0], "u@b1:2225");
	ck_assert_str_eq(cfg.clusters[0].jumps.v[1], "b2");
	ck_assert_uint_eq(cfg.clusters[1].jumps.n, 1);
	ck_assert_uint_eq(cfg.clusters[2].jumps.n, 0);
	config_free(&cfg);

	path = write_tmp("- name: a\n  hosts: h\n  jump: [u@b1:0]\n");
	ck_assert_int_eq(config_load(path, &cfg, &cause), -1);
	ck_assert_msg(strstr(cause, "jump host b1: port '0' is not a number "
	    "from 1 to 65535 (write [user@]host[:port])") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	path = write_tmp("- name: a\n  hosts: h\n  jump: ['-oProxyCommand=x']\n");
	ck_assert_int_eq(config_load(path, &cfg, &cause), -1);
	ck_assert_msg(strstr(cause, "is not a host name") != NULL, "%s", cause);
	free(cause);
}
END_TEST

START_TEST(test_nccl_null_and_partial)
{
	struct config	 cfg;
	char		*cause = NULL;
	const char	*path;

	path = write_tmp("- name: a\n  hosts: h\n  nccl_env:\n    X: ~\n"
	    "  account:\n");
	ck_assert_int_eq(config_load(path, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg.clusters[0].nccl_env.n, 1);
	ck_assert_str_eq(cfg.clusters[0].nccl_env.v[0], "X=");
	ck_assert_ptr_null(cfg.clusters[0].account);
	config_free(&cfg);
}
END_TEST

/* The probe command is free shell text on one line. */
START_TEST(test_nccl_probe_keys)
{
	struct config	 cfg;
	char		*cause = NULL;
	const char	*path;

	path = write_tmp("- name: a\n  hosts: h\n  nccl_probe_command: "
	    "'[ \"$X\" = 1 ] && echo NCCL_PROBE_OK || sleep 60'\n"
	    "  nccl_probe_timeout: 5\n- name: b\n  hosts: h\n");
	ck_assert_int_eq(config_load(path, &cfg, &cause), 0);
	ck_assert_str_eq(cfg.clusters[0].nccl_probe_command,
	    "[ \"$X\" = 1 ] && echo NCCL_PROBE_OK || sleep 60");
	ck_assert_int_eq(cfg.clusters[0].nccl_probe_timeout, 5);
	ck_assert_ptr_null(cfg.clusters[1].nccl_probe_command);
	ck_assert_int_eq(cfg.clusters[1].nccl_probe_timeout, 0);
	config_free(&cfg);
}
END_TEST

/* Issue 12 item 4: who besides the user may own a cached image. */
START_TEST(test_image_cache_owners)
{
	struct config	 cfg;
	char		*cause = NULL;
	const char	*path;

	path = write_tmp("- name: a\n  hosts: h\n  image_cache_owners: "
	    "[images, 1002]\n- name: b\n  hosts: h\n  image_cache_owners: "
	    "svc-a,svc-b\n- name: c\n  hosts: h\n");
	ck_assert_msg(config_load(path, &cfg, &cause) == 0, "%s", cause);
	ck_assert_uint_eq(cfg.clusters[0].image_cache_owners.n, 2);
	ck_assert_str_eq(cfg.clusters[0].image_cache_owners.v[1], "1002");
	ck_assert_uint_eq(cfg.clusters[1].image_cache_owners.n, 2);
	ck_assert_str_eq(cfg.clusters[1].image_cache_owners.v[0], "svc-a");
	ck_assert_uint_eq(cfg.clusters[2].image_cache_owners.n, 0);
	config_free(&cfg);
	path = write_tmp("- name: a\n  hosts: h\n  image_cache_owners: "
	    "['-rf']\n");
	cause = load_err(path);
	ck_assert_msg(strstr(cause, "not a user name") != NULL, "%s", cause);
	free(cause);
}
END_TEST

START_TEST(test_no_file_no_env)
{
	char	*cause = load_err(NULL), *want;

	want = xasprintf("no cluster configured: set SLURM_HOSTNAME (login "
	    "hosts, comma-separated) and SLURM_USER, or write "
	    "%s/sqdeck/clusters.yaml (see sqdeck-clusters.yaml(5))",
	    home);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
}
END_TEST

START_TEST(test_missing_given_file)
{
	char	*cause = load_err("/nonexistent/clusters.yaml");

	ck_assert_str_eq(cause, "cannot open /nonexistent/clusters.yaml: No "
	    "such file or directory (check the -c path)");
	free(cause);
}
END_TEST

START_TEST(test_empty_file)
{
	struct config	 cfg;
	char		*cause = NULL, *want;

	cause = load_err(test_data("config/empty.yaml"));
	want = xasprintf("%s defines no clusters: add one (see "
	    "sqdeck-clusters.yaml(5)) or set SLURM_HOSTNAME and SLURM_USER",
	    test_data("config/empty.yaml"));
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	/* With SLURM_HOSTNAME, an empty file is just "no clusters yet". */
	setenv("SLURM_HOSTNAME", "h", 1);
	ck_assert_int_eq(config_load(test_data("config/empty.yaml"), &cfg,
	    &cause), 0);
	ck_assert_uint_eq(cfg.nclusters, 1);
	ck_assert_str_eq(cfg.clusters[0].name, "default");
	config_free(&cfg);
}
END_TEST

/* No file: the environment alone makes the implicit cluster "default". */
START_TEST(test_env_only)
{
	struct config	 cfg;
	struct cluster	*c;
	char		*cause = NULL;

	setenv("SLURM_HOSTNAME", "login1, login2", 1);
	setenv("SLURM_USER", "bob", 1);
	setenv("SSH_PORT", "2200", 1);
	setenv("SLURM_PORT", "2222", 1);
	setenv("SSH_KEY_PATH", "~/.ssh/k", 1);
	setenv("SSH_KNOWN_HOSTS", "/tmp/kh", 1);
	setenv("SLURM_BASE_RESULTS_DIR", "/lustre/bob", 1);
	setenv("SLURM_ACCOUNT", "acct", 1);
	setenv("SLURM_TIME_HOURS", "2.5", 1);
	setenv("SLURM_USE_REQUEUE", "off", 1);
	ck_assert_int_eq(config_load(NULL, &cfg, &cause), 0);
	ck_assert_ptr_null(cfg.path);
	ck_assert_uint_eq(cfg.nclusters, 1);
	c = config_cluster(&cfg, NULL, &cause);
	ck_assert_ptr_eq(c, &cfg.clusters[0]);
	ck_assert_str_eq(c->name, "default");
	ck_assert_uint_eq(c->hosts.n, 2);
	ck_assert_str_eq(c->hosts.v[0], "login1");
	ck_assert_str_eq(c->hosts.v[1], "login2");
	ck_assert_str_eq(c->user, "bob");
	ck_assert_int_eq(c->port, 2222);	/* SLURM_PORT beats SSH_PORT */
	ck_assert(str_has_prefix(c->key_path, home));
	ck_assert(str_has_suffix(c->key_path, "/.ssh/k"));
	ck_assert_str_eq(c->known_hosts, "/tmp/kh");
	ck_assert_str_eq(c->results_root, "/lustre/bob");
	ck_assert_str_eq(c->account, "acct");
	ck_assert_double_eq(c->time_hours, 2.5);
	ck_assert_int_eq(c->requeue, 0);
	/* SLURM_PARTITION unset: the package default. */
	ck_assert_uint_eq(c->partitions.n, 4);
	ck_assert_str_eq(c->partitions.v[0], "polar");
	ck_assert_str_eq(c->partitions.v[1], "polar3");
	ck_assert_str_eq(c->partitions.v[2], "polar4");
	ck_assert_str_eq(c->partitions.v[3], "grizzly");
	config_free(&cfg);

	/* Above 4 h loads: the partition's MaxTime decides at submit. */
	setenv("SLURM_TIME_HOURS", "6", 1);
	ck_assert_msg(config_load(NULL, &cfg, &cause) == 0, "%s", cause);
	ck_assert_double_eq(cfg.clusters[0].time_hours, 6);
	config_free(&cfg);
	setenv("SLURM_TIME_HOURS", "2.5", 1);

	unsetenv("SLURM_PORT");
	setenv("SLURM_PARTITION", "gpu", 1);
	ck_assert_int_eq(config_load(NULL, &cfg, &cause), 0);
	ck_assert_int_eq(cfg.clusters[0].port, 2200);
	ck_assert_uint_eq(cfg.clusters[0].partitions.n, 1);
	ck_assert_str_eq(cfg.clusters[0].partitions.v[0], "gpu");
	config_free(&cfg);
}
END_TEST

/* The default path honours XDG_CONFIG_HOME. */
START_TEST(test_xdg_default_path)
{
	struct config	 cfg;
	char		*cause = NULL, *dir, *path;

	dir = xasprintf("%s/sqdeck", home);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	path = xasprintf("%s/clusters.yaml", dir);
	ck_assert_int_eq(file_write_atomic(path, "- {name: x, hosts: hx}\n",
	    23, 0600, &cause), 0);
	ck_assert_int_eq(config_load(NULL, &cfg, &cause), 0);
	ck_assert_str_eq(cfg.path, path);
	ck_assert_str_eq(cfg.clusters[0].name, "x");
	ck_assert_str_eq(cfg.clusters[0].hosts.v[0], "hx");
	config_free(&cfg);
	free(path);
	free(dir);
}
END_TEST

/* The environment overrides the first cluster only. */
START_TEST(test_env_overrides_first)
{
	struct config	 cfg;
	char		*cause = NULL;

	setenv("SLURM_USER", "carol", 1);
	setenv("SLURM_HOSTNAME", "envhost", 1);
	setenv("SLURM_PARTITION", "p1,p2", 1);
	ck_assert_int_eq(config_load(test_data("config/good.yaml"), &cfg,
	    &cause), 0);
	ck_assert_uint_eq(cfg.nclusters, 2);
	ck_assert_str_eq(cfg.clusters[0].user, "carol");
	ck_assert_uint_eq(cfg.clusters[0].hosts.n, 1);
	ck_assert_str_eq(cfg.clusters[0].hosts.v[0], "envhost");
	ck_assert_uint_eq(cfg.clusters[0].partitions.n, 2);
	ck_assert_str_eq(cfg.clusters[0].partitions.v[1], "p2");
	ck_assert_int_eq(cfg.clusters[0].port, 2222);	/* from the file */
	ck_assert_ptr_null(cfg.clusters[1].user);
	ck_assert_str_eq(cfg.clusters[1].hosts.v[0], "lab-login");
	config_free(&cfg);
}
END_TEST

/* SQDECK_CLUSTER picks the cluster the environment describes. */
START_TEST(test_env_target)
{
	struct config	 cfg;
	char		*cause = NULL;

	setenv("SQDECK_CLUSTER", "lab", 1);
	setenv("SLURM_USER", "dave", 1);
	ck_assert_int_eq(config_load(test_data("config/good.yaml"), &cfg,
	    &cause), 0);
	ck_assert_uint_eq(cfg.current, 1);
	ck_assert_ptr_eq(config_cluster(&cfg, NULL, &cause), &cfg.clusters[1]);
	ck_assert_str_eq(cfg.clusters[1].user, "dave");
	ck_assert_str_eq(cfg.clusters[0].user, "alice");
	config_free(&cfg);

	/* A new name plus SLURM_HOSTNAME adds a cluster from the env. */
	setenv("SQDECK_CLUSTER", "extra", 1);
	setenv("SLURM_HOSTNAME", "eh", 1);
	ck_assert_int_eq(config_load(test_data("config/good.yaml"), &cfg,
	    &cause), 0);
	ck_assert_uint_eq(cfg.nclusters, 3);
	ck_assert_uint_eq(cfg.current, 2);
	ck_assert_str_eq(cfg.clusters[2].name, "extra");
	ck_assert_str_eq(cfg.clusters[2].hosts.v[0], "eh");
	ck_assert_str_eq(cfg.clusters[2].user, "dave");
	ck_assert_uint_eq(cfg.clusters[2].partitions.n, 4);
	config_free(&cfg);
}
END_TEST

START_TEST(test_env_target_unknown)
{
	char	*cause, *want;

	setenv("SQDECK_CLUSTER", "nope", 1);
	cause = load_err(test_data("config/good.yaml"));
	want = xasprintf("SQDECK_CLUSTER='nope' names no cluster in %s "
	    "(clusters: polar, lab): unset it, pick one of those, or set "
	    "SLURM_HOSTNAME to define it from the environment",
	    test_data("config/good.yaml"));
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);

	setenv("SQDECK_CLUSTER", "a/b", 1);
	setenv("SLURM_HOSTNAME", "h", 1);
	cause = load_err(NULL);
	ck_assert_str_eq(cause, "SQDECK_CLUSTER='a/b' is not a cluster "
	    "name (letters, digits, '.', '_', '-')");
	free(cause);
}
END_TEST

static const struct {
	const char	*var;
	const char	*value;
	const char	*msg;
} badenv[] = {
	/* Issue 18 item 16: a blank entry, as an empty list item is. */
	{ "SLURM_HOSTNAME", "a, ,b", "environment SLURM_HOSTNAME (cluster "
	    "'default'): hosts: entry 2 of \"a, ,b\" is blank: remove the "
	    "extra comma" },
	{ "SLURM_PARTITION", "cpu,", "environment SLURM_PARTITION (cluster "
	    "'default'): partitions: entry 2 of \"cpu,\" is blank: remove the "
	    "extra comma" },
	{ "SLURM_PORT", "abc", "environment SLURM_PORT (cluster 'default'): "
	    "port must be a whole number from 1 to 65535, not 'abc'" },
	{ "SSH_PORT", "0", "environment SSH_PORT (cluster 'default'): port "
	    "must be a whole number from 1 to 65535, not '0'" },
	{ "SLURM_TIME_HOURS", "1000", "environment SLURM_TIME_HOURS (cluster "
	    "'default'): time_hours must be a number of hours above 0 and at "
	    "most 720 (more than 4 is checked against the partition's MaxTime "
	    "at submit), not '1000'" },
	{ "SLURM_TIME_HOURS", "4h", "environment SLURM_TIME_HOURS (cluster "
	    "'default'): time_hours must be a number of hours above 0 and at "
	    "most 720 (more than 4 is checked against the partition's MaxTime "
	    "at submit), not '4h'" },
	{ "SLURM_USE_REQUEUE", "maybe", "environment SLURM_USE_REQUEUE "
	    "(cluster 'default'): requeue must be true or false, not "
	    "'maybe'" },
	{ "SLURM_HOSTNAME", ",", "environment SLURM_HOSTNAME (cluster "
	    "'default'): hosts has no names: give at least one" },
	{ "SLURM_BASE_RESULTS_DIR", "rel/dir", "environment "
	    "SLURM_BASE_RESULTS_DIR (cluster 'default'): results_root "
	    "'rel/dir' must be an absolute path on the cluster, e.g. "
	    "/lustre/<user>/results" },
	{ "SLURM_PARTITION", "gpu,bad part", "environment SLURM_PARTITION "
	    "(cluster 'default'): partition 'bad part' is not a SLURM "
	    "partition name (letters, digits, '.', '_', '-')" },
};

START_TEST(test_env_bad)
{
	char	*cause;

	setenv("SLURM_HOSTNAME", "h", 1);
	setenv(badenv[_i].var, badenv[_i].value, 1);
	cause = load_err(NULL);
	ck_assert_str_eq(cause, badenv[_i].msg);
	free(cause);
}
END_TEST

/* An empty variable counts as unset. */
START_TEST(test_env_empty_ignored)
{
	struct config	 cfg;
	char		*cause = NULL;

	setenv("SLURM_HOSTNAME", "h", 1);
	setenv("SLURM_USER", "", 1);
	setenv("SLURM_PORT", "", 1);
	ck_assert_int_eq(config_load(NULL, &cfg, &cause), 0);
	ck_assert_ptr_null(cfg.clusters[0].user);
	ck_assert_int_eq(cfg.clusters[0].port, 0);
	config_free(&cfg);
}
END_TEST

START_TEST(test_default_path)
{
	char	*p = config_default_path(), *want;

	want = xasprintf("%s/sqdeck/clusters.yaml", home);
	ck_assert_str_eq(p, want);
	free(want);
	free(p);
}
END_TEST

static Suite *
config_suite(void)
{
	Suite	*s = suite_create("config");
	TCase	*tc = tcase_create("config");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_clusters_key);
	tcase_add_loop_test(tc, test_bad_files, 0, sizeof bad / sizeof bad[0]);
	tcase_add_loop_test(tc, test_bad_inline, 0, sizeof inl / sizeof inl[0]);
	tcase_add_test(tc, test_persist);
	tcase_add_test(tc, test_jump);
	tcase_add_test(tc, test_nccl_null_and_partial);
	tcase_add_test(tc, test_nccl_probe_keys);
	tcase_add_test(tc, test_image_cache_owners);
	tcase_add_test(tc, test_no_file_no_env);
	tcase_add_test(tc, test_missing_given_file);
	tcase_add_test(tc, test_empty_file);
	tcase_add_test(tc, test_env_only);
	tcase_add_test(tc, test_xdg_default_path);
	tcase_add_test(tc, test_env_overrides_first);
	tcase_add_test(tc, test_env_target);
	tcase_add_test(tc, test_env_target_unknown);
	tcase_add_loop_test(tc, test_env_bad, 0,
	    sizeof badenv / sizeof badenv[0]);
	tcase_add_test(tc, test_env_empty_ignored);
	tcase_add_test(tc, test_default_path);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(config_suite)
