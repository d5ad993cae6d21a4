/*
 * sqdeck submit and creds install against the real local cluster
 * (tests/cluster/up; source $SDTB_DIR/env.sh first).  Every test runs the
 * real binary ($SQDECK_BIN) and checks the result with the real ssh
 * client and SLURM commands on the cluster.  The pure parts (layout, tar
 * stream, sidecar quoting, the remote scripts run by the local /bin/sh,
 * the parsers) are in tests/unit/check_submit.c.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "itutil.h"
#include "enc.h"
#include "image.h"
#include "record.h"
#include "submit.h"
#include "util.h"

/* --- process helpers
   --------------------------------------------------------- */

static int
jbool(cJSON *j, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, key));
}

/* --- fixtures ---------------------------------------------------------------
   */

static void
need_cluster(void)
{
	static const char *const more[] = { "SDTB_LUSTRE", NULL };

	it_need_cluster(more);
	/* Every job runs in the registry image: Enroot needs the creds. */
	it_registry_creds(tmpdir);
}

/* Each test: private HOME, config and state dirs; a unique tag. */
static void
setup(void)
{
	it_setup();
	unsetenv("HF_TOKEN");
	unsetenv("NGC_KEY");
}

#define wait_end(id)	it_wait_end((id), "State", 120, 1)

/* How many jobs squeue (-t all) knows under this exact name. */
static int
jobs_named(const char *name)
{
	char	*out, *p;
	int	 n = 0;

	out = ssh_out("squeue --me -h -t all -n '%s' -o '%%i'", name);
	for (p = strtok(out, "\n"); p != NULL; p = strtok(NULL, "\n"))
		n++;
	free(out);
	return n;
}

/* --- against the cluster ------------------------------------------------- */

/* a. A job submitted with the CLI runs to COMPLETED and reports SUCCESS. */
START_TEST(test_complete)
{
	struct record	*r;
	cJSON		*j;
	char		*spec, *err, *state, *out;
	const char	*id, *dir, *name;

	need_cluster();
	spec = write_spec("name: sdsub-ok-%s\n"
	    "image: %s\n"
	    "command: echo \"hello-%s from $(hostname) in $PWD\"\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, it_image(), unique);
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "submit failed: %s", err);
	ck_assert(jbool(j, "ok"));
	ck_assert_str_eq(it_jstr(j, "container_mode"), "pyxis");
	id = it_jstr(j, "job_id");
	dir = it_jstr(j, "job_dir");
	name = it_jstr(j, "name");
	ck_assert_ptr_nonnull(id);
	/* Each step is printed as it happens. */
	ck_assert_ptr_nonnull(strstr(err, "preflight"));
	ck_assert_ptr_nonnull(strstr(err, "launch"));

	state = wait_end(id);
	ck_assert_str_eq(state, "COMPLETED");
	free(state);
	out = ssh_out("cat '%s/logs/%s-%s/main.out'", dir, name, id);
	ck_assert_msg(strstr(out, "hello-") != NULL && strstr(out, dir) !=
	    NULL, "main.out: %s", out);
	free(out);
	out = ssh_out("cat '%s/results/status.json'; ls '%s/specs' '%s/env' "
	    "'%s/meta' '%s/sbatch'", dir, dir, dir, dir, dir);
	ck_assert_msg(strstr(out, "SUCCESS") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "spec.yaml"));
	ck_assert_ptr_nonnull(strstr(out, "spec.json"));
	ck_assert_ptr_nonnull(strstr(out, "env.json"));
	ck_assert_ptr_nonnull(strstr(out, "meta.json"));
	ck_assert_ptr_nonnull(strstr(out, ".sbatch"));
	free(out);

	r = it_load_record(it_jstr(j, "record_id"));
	ck_assert_str_eq(record_slurm_id(r), id);
	ck_assert_str_eq(r->job_dir, dir);
	ck_assert_int_ge(r->nhistory, 2);
	ck_assert_str_eq(r->history[0].source, "create");
	ck_assert_str_eq(r->history[r->nhistory - 1].source, "submit");
	record_free(r);
	cJSON_Delete(j);
	free(err);
	free(spec);
}
END_TEST


/* A refused image: the submit stops at the image step, no job exists. */
static void
expect_image_refused(const char *image, const char *want, cJSON **jp)
{
	cJSON	*j;
	char	*spec, *err, *out;

	spec = write_spec("name: sdsub-bad-%s\nimage: %s\n"
	    "command: 'true'\ngpus: 1\ncpus: 1\ntime: 5m\n", unique, image);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL), 1);
	ck_assert(!jbool(j, "ok"));
	ck_assert_str_eq(it_jstr(j, "failed_step"), "image");
	ck_assert_msg(strstr(it_jstr(j, "error"), want) != NULL, "error: %s",
	    it_jstr(j, "error"));
	ck_assert_ptr_nonnull(strstr(err, want));
	/* Nothing reached the gpu partition, no record was opened. */
	ck_assert_int_eq(jobs_named(it_jstr(j, "name")), 0);
	ck_assert_ptr_null(it_jstr(j, "state"));
	out = ssh_out("test -e '%s' && echo exists || echo absent",
	    it_jstr(j, "job_dir"));
	ck_assert_str_eq(out, "absent\n");
	free(out);
	free(err);
	free(spec);
	if (jp != NULL)
		*jp = j;
	else
		cJSON_Delete(j);
}


/* b. A .sqsh path is validated on the cluster: truncated is refused. */
START_TEST(test_image_sqsh_path)
{
	cJSON	*j;
	char	*spec, *err, *out, path[512], good[512];

	need_cluster();
	snprintf(good, sizeof good, "%s/sdsub-img-%s.sqsh",
	    getenv("SDTB_LUSTRE"), unique);
	snprintf(path, sizeof path, "%s/sdsub-trunc-%s.sqsh",
	    getenv("SDTB_LUSTRE"), unique);
	out = ssh_out("set -e; d=$(mktemp -d); head -c 40000 /dev/urandom "
	    ">$d/f; mksquashfs $d '%s' -noappend -quiet -no-progress "
	    ">/dev/null; head -c 20000 '%s' >'%s'; rm -rf $d; echo ok", good,
	    good, path);
	ck_assert_str_eq(out, "ok\n");
	free(out);
	expect_image_refused(path, "truncated", NULL);

	spec = write_spec("name: sdsub-sq-%s\nimage: %s\ncommand: 'true'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, good);
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "%s", err);
	ck_assert_str_eq(it_jstr(j, "image_action"), "sqsh");
	ck_assert_str_eq(it_jstr(j, "image_sqsh"), good);
	free(wait_end(it_jstr(j, "job_id")));
	cJSON_Delete(j);
	free(err);
	free(spec);
	free(ssh_out("rm -f '%s' '%s'", good, path));
}
END_TEST


/* c. A missing dataset stops the submit before anything is written. */
START_TEST(test_missing_dataset)
{
	cJSON	*j;
	char	*spec, *err, *before, *after, root[512];

	need_cluster();
	snprintf(root, sizeof root, "%s/sdsub-root-%s", getenv("SDTB_LUSTRE"),
	    unique);
	free(ssh_out("mkdir -p '%s' '%s/data-ok'", root, root));
	setenv("SLURM_BASE_RESULTS_DIR", root, 1);
	before = ssh_out("find '%s' | sort", root);
	spec = write_spec("name: sdsub-ds-%s\n"
	    "image: %s\ncommand: 'true'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\ndatasets:\n"
	    "  - lustre://%s/data-ok\n  - lustre://%s/no-such-%s\n", unique,
	    it_image(), root, root, unique);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL), 1);
	ck_assert_str_eq(it_jstr(j, "failed_step"), "check");
	ck_assert_msg(strstr(it_jstr(j, "error"), "no-such-") != NULL, "%s",
	    it_jstr(j, "error"));
	ck_assert_ptr_null(strstr(it_jstr(j, "error"), "data-ok"));
	after = ssh_out("find '%s' | sort", root);
	ck_assert_str_eq(after, before);
	/* Stopped before the image step: no import job. */
	ck_assert_ptr_null(it_jstr(j, "import_job"));
	snprintf(root, sizeof root, "%s/sdsub-root-%s", getenv("SDTB_LUSTRE"),
	    unique);
	ck_assert_int_eq(jobs_named(it_jstr(j, "name")), 0);
	free(ssh_out("rm -rf '%s'", root));
	cJSON_Delete(j);
	free(before);
	free(after);
	free(err);
	free(spec);
}
END_TEST

/*
 * sbatch refuses for want of a valid account: the message says where the
 * account comes from (issue 24), and the staged dir is removed.
 */
START_TEST(test_account_refused_says_where)
{
	char	*spec, *err = NULL, *out = NULL, *old;

	need_cluster();
	old = getenv("SLURM_ACCOUNT") != NULL ?
	    xstrdup(getenv("SLURM_ACCOUNT")) : NULL;
	setenv("SLURM_ACCOUNT", "sdsub-no-such-account", 1);
	spec = write_spec("name: sdsub-acct-%s\nimage: %s\ncommand: 'true'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, it_image());
	ck_assert_int_eq(it_sd(NULL, &out, &err, NULL, "submit", "--hold",
	    spec, NULL), 1);
	if (old != NULL)
		setenv("SLURM_ACCOUNT", old, 1);
	else
		unsetenv("SLURM_ACCOUNT");
	ck_assert_msg(strstr(err, "Invalid account") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "set SLURM_ACCOUNT (or 'account:' for the "
	    "cluster in clusters.yaml) to an account you may use") != NULL,
	    "%s", err);
	/* The steps' lines: the staged dir went with the refusal. */
	ck_assert_msg(strstr(out, "sbatch queued nothing") != NULL ||
	    strstr(err, "sbatch queued nothing") != NULL, "%s%s", out, err);
	free(out);
	free(old);
	free(err);
	free(spec);
}
END_TEST

/* d. An ambiguous launch ends with exactly one job, and the record on it. */
static void
ambiguous(const char *fault)
{
	struct record	*r;
	cJSON		*j;
	char		*spec, *err, *out, *state;

	need_cluster();
	setenv("SQDECK_TEST_FAULT", fault, 1);
	spec = write_spec("name: sdsub-amb-%s\n"
	    "image: %s\n"
	    "command: echo adopted-ok\ngpus: 1\ncpus: 1\ntime: 5m\n", unique,
	    it_image());
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "%s", err);
	ck_assert(jbool(j, "ambiguous"));
	ck_assert(jbool(j, "adopted"));
	ck_assert(!jbool(j, "resubmitted"));
	ck_assert_ptr_nonnull(strstr(err, "AMBIGUOUS"));
	ck_assert_int_eq(jobs_named(it_jstr(j, "name")), 1);
	out = ssh_out("squeue --me -h -t all -n '%s' -o '%%i'",
	    it_jstr(j, "name"));
	str_trim(out);
	ck_assert_str_eq(out, it_jstr(j, "job_id"));
	r = it_load_record(it_jstr(j, "record_id"));
	ck_assert_str_eq(record_slurm_id(r), out);
	record_free(r);
	/* Released with its log dir: it really runs. */
	state = wait_end(out);
	ck_assert_str_eq(state, "COMPLETED");
	free(state);
	free(out);
	ck_assert_int_eq(jobs_named(it_jstr(j, "name")), 1);
	cJSON_Delete(j);
	free(err);
	free(spec);
}

START_TEST(test_ambiguous_drop)
{
	ambiguous("after-sbatch");
}
END_TEST

START_TEST(test_ambiguous_empty)
{
	ambiguous("empty-reply");
}
END_TEST

static int
has_canary(const char *text, const char *a, const char *b)
{
	return text != NULL && (strstr(text, a) != NULL ||
	    strstr(text, b) != NULL);
}

/*
 * e. Canary secrets: HF_TOKEN for the job, NGC_KEY for enroot.  After a
 * full run no sbatch file, record, log, staged file, slurmdbd script or
 * env, nor any process argv sampled during the run holds them; the job
 * saw them; the sidecar is gone.
 */
START_TEST(test_canary)
{
	struct dirent	*de;
	cJSON		*j;
	DIR		*d;
	char		 hf[128], ngc[128], psfile[4200], *spec, *err, *out;
	char		*creds_before, *state, *canaries, *text, path[4400];
	const char	*id, *dir;
	pid_t		 sampler;
	int		 rc, samples;

	need_cluster();
	snprintf(hf, sizeof hf, "hf_CanaryHF%s%08x", unique, (unsigned)rand());
	snprintf(ngc, sizeof ngc, "nvapi-CanaryNGC%s%08x", unique,
	    (unsigned)rand());
	canaries = xasprintf("%s\n%s\n", hf, ngc);

	/* Every process's argv on this machine, every 20 ms. */
	snprintf(psfile, sizeof psfile, "%s/ps.txt", tmpdir);
	sampler = fork();
	ck_assert_int_ge(sampler, 0);
	if (sampler == 0) {
		char	cmd[9000];

		snprintf(cmd, sizeof cmd, "while :; do ps -eo args >>'%s'; "
		    "echo --- >>'%s'; sleep 0.02; done", psfile, psfile);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}

	creds_before = ssh_out("f=$HOME/.config/enroot/.credentials; test -e "
	    "$f && echo present || echo absent");
	setenv("NGC_KEY", ngc, 1);
	rc = it_sd(NULL, &out, &err, NULL, "creds", "install", NULL);
	ck_assert_msg(rc == 0, "creds: %s", err);
	ck_assert(!has_canary(out, hf, ngc) && !has_canary(err, hf, ngc));
	free(out);
	free(err);

	setenv("HF_TOKEN", hf, 1);
	spec = write_spec("name: sdsub-canary-%s\n"
	    "image: %s\n"
	    "command: echo \"hf_len=${#HF_TOKEN} ngc_len=${#NGC_KEY}\"\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\nsecrets: [HF_TOKEN, NGC_KEY]\n",
	    unique, it_image());
	rc = it_sd(&j, &out, &err, NULL, "submit", "--json", spec, NULL);
	ck_assert_msg(rc == 0, "submit: %s", err);
	ck_assert(!has_canary(out, hf, ngc) && !has_canary(err, hf, ngc));
	free(out);
	free(err);
	id = it_jstr(j, "job_id");
	dir = it_jstr(j, "job_dir");
	state = wait_end(id);
	ck_assert_str_eq(state, "COMPLETED");
	free(state);
	kill(sampler, SIGTERM);
	waitpid(sampler, NULL, 0);

	/* The job had both values. */
	out = ssh_out("cat '%s/logs/%s-%s/main.out'", dir,
	    it_jstr(j, "name"), id);
	text = xasprintf("hf_len=%zu ngc_len=%zu", strlen(hf), strlen(ngc));
	ck_assert_msg(strstr(out, text) != NULL, "main.out: %s", out);
	free(text);
	free(out);

	/* Nothing on the cluster's job dir (script, specs, logs...). */
	text = xasprintf("grep -rlF -f /dev/stdin '%s' || echo clean", dir);
	ck_assert_int_eq(ssh_run(text, canaries, &out), 0);
	ck_assert_str_eq(out, "clean\n");
	free(out);
	free(text);
	/* The sidecar was wiped by the job. */
	out = ssh_out("test -e '%s' && echo present || echo gone",
	    it_jstr(j, "env_path"));
	ck_assert_str_eq(out, "gone\n");
	free(out);

	/* slurmdbd keeps the script and env (AccountingStoreFlags). */
	text = xasprintf("sacct -j %s --batch-script; sacct -j %s --env-vars",
	    id, id);
	/* slurmdbd stores them a little after the job record: wait a bit. */
	for (int tries = 0; tries < 30; tries++) {
		ck_assert_int_eq(ssh_run(text, NULL, &out), 0);
		if (strstr(out, "#SBATCH --job-name=") != NULL &&
		    strstr(out, "SLURM_CONF=") != NULL)
			break;
		free(out);
		out = NULL;
		sleep(1);
	}
	ck_assert_msg(out != NULL, "sacct never showed the script and env "
	    "of job %s", id);
	ck_assert(!has_canary(out, hf, ngc));
	free(out);
	free(text);

	/* Local records. */
	snprintf(path, sizeof path, "%s/state/sqdeck/records", tmpdir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		char	p[4700];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", path, de->d_name);
		ck_assert_int_eq(file_read(p, &text, NULL, NULL), 0);
		ck_assert_msg(!has_canary(text, hf, ngc), "canary in %s", p);
		free(text);
	}
	closedir(d);

	/* No argv seen during the run. */
	ck_assert_int_eq(file_read(psfile, &text, NULL, NULL), 0);
	samples = 0;
	for (out = text; (out = strstr(out, "\n---\n")) != NULL; out++)
		samples++;
	ck_assert_int_gt(samples, 10);
	ck_assert_msg(!has_canary(text, hf, ngc), "canary in a process argv");
	free(text);

	/* enroot's credentials hold the key, mode 600, both machines. */
	ck_assert_int_eq(ssh_run("f=$HOME/.config/enroot/.credentials; "
	    "stat -c %a $f; grep -cF -f /dev/stdin $f", canaries, &out), 0);
	ck_assert_str_eq(out, "600\n2\n");
	free(out);
	if (strcmp(creds_before, "absent\n") == 0)
		free(ssh_out("rm -f $HOME/.config/enroot/.credentials"));
	free(creds_before);
	cJSON_Delete(j);
	free(canaries);
	free(spec);
}
END_TEST

/* creds install keeps other machines' lines and replaces ours. */
START_TEST(test_creds_merge)
{
	char	*out, *err, *saved;
	int	 rc;

	need_cluster();
	saved = ssh_out("cat $HOME/.config/enroot/.credentials 2>/dev/null");
	ck_assert_int_eq(ssh_run("mkdir -p $HOME/.config/enroot && cat "
	    ">$HOME/.config/enroot/.credentials", "machine example.org login "
	    "bob password keep-me\nmachine nvcr.io login $oauthtoken "
	    "password old-key\n", NULL), 0);
	rc = it_sd(NULL, &out, &err, "nvapi-merge-test\n", "creds", "install",
	    "--stdin", NULL);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "1 line for other machines kept"));
	free(out);
	free(err);
	out = ssh_out("f=$HOME/.config/enroot/.credentials; stat -c %%a $f; "
	    "cat $f");
	ck_assert_str_eq(out, "600\nmachine example.org login bob password "
	    "keep-me\nmachine nvcr.io login $oauthtoken password "
	    "nvapi-merge-test\nmachine authn.nvidia.com login $oauthtoken "
	    "password nvapi-merge-test\n");
	free(out);
	if (*saved == '\0')
		free(ssh_out("rm -f $HOME/.config/enroot/.credentials"));
	else
		ck_assert_int_eq(ssh_run("cat >$HOME/.config/enroot/"
		    ".credentials", saved, NULL), 0);
	free(saved);

	/* No key at all: a usage error, nothing contacted. */
	ck_assert_int_eq(it_sd(NULL, NULL, &err, NULL, "creds", "install",
	    NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "NGC_KEY"));
	free(err);
}
END_TEST

/* Supporting files are staged only with a matching sha256. */
START_TEST(test_files)
{
	cJSON	*j;
	char	*spec, *err, *out, dir[4200], path[4300], hex[65];
	const char *content = "epochs: 3\n";

	need_cluster();
	snprintf(dir, sizeof dir, "%s/cfg", tmpdir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/train.yaml", dir);
	ck_assert_int_eq(file_write_atomic(path, content, strlen(content),
	    0644, NULL), 0);
	enc_sha256_hex(content, strlen(content), hex);

	/* Wrong checksum: refused before anything remote is written. */
	spec = write_spec("name: sdsub-files-%s\n"
	    "image: %s\ncommand: 'true'\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\nfiles:\n  - path: cfg/train.yaml\n"
	    "    sha256: %064d\n", unique, it_image(), 0);
	ck_assert_int_eq(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL), 1);
	ck_assert_str_eq(it_jstr(j, "failed_step"), "check");
	ck_assert_ptr_nonnull(strstr(it_jstr(j, "error"), hex));
	ck_assert_ptr_null(it_jstr(j, "import_job"));
	cJSON_Delete(j);
	free(err);
	free(spec);

	spec = write_spec("name: sdsub-files-%s\n"
	    "image: %s\n"
	    "command: cat files/cfg/train.yaml\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\nfiles:\n  - path: cfg/train.yaml\n"
	    "    sha256: %s\n", unique, it_image(), hex);
	ck_assert_msg(it_sd(&j, NULL, &err, NULL, "submit", "--json", spec,
	    NULL) == 0, "%s", err);
	free(wait_end(it_jstr(j, "job_id")));
	out = ssh_out("cat '%s/files/cfg/train.yaml'; cat '%s/logs/%s-%s/"
	    "main.out'", it_jstr(j, "job_dir"), it_jstr(j, "job_dir"),
	    it_jstr(j, "name"), it_jstr(j, "job_id"));
	ck_assert_msg(strncmp(out, "epochs: 3\n", 10) == 0 &&
	    strstr(out + 10, "epochs: 3") != NULL, "%s", out);
	free(out);
	cJSON_Delete(j);
	free(err);
	free(spec);
}
END_TEST

/* f. --dry-run of a 2-node spec: valid bash, no @@, nothing written. */
START_TEST(test_dry_run)
{
	char	*spec, *out, *err, *argv[4], *chk, path[4200];
	DIR	*d;
	int	 rc;

	need_cluster();
	setenv("HF_TOKEN", "hf_DryRunCanary0123456789", 1);
	spec = write_spec("name: sdsub-dry-%s\n"
	    "image: %s#sdtb/tools:dry-%s\n"
	    "command: torchrun train.py --epochs 1\n"
	    "nodes: 2\ngpus: 8\ngpus_per_node: 4\ntime: 30m\n"
	    "secrets: [HF_TOKEN]\nenv:\n  TAO_LOG_LEVEL: debug\n", unique,
	    (it_image(), getenv("SDTB_REGISTRY")), unique);
	rc = it_sd(NULL, &out, &err, NULL, "submit", "--dry-run", spec, NULL);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_ptr_null(strstr(out, "@@"));
	ck_assert_ptr_nonnull(strstr(out, "#SBATCH --nodes=2\n"));
	ck_assert_ptr_nonnull(strstr(out, "export WORLD_SIZE=2\n"));
	ck_assert_ptr_nonnull(strstr(out, "TAO_LOG_LEVEL='debug'"));
	ck_assert_ptr_null(strstr(out, "hf_DryRunCanary"));
	ck_assert_ptr_null(strstr(err, "hf_DryRunCanary"));
	ck_assert_ptr_nonnull(strstr(err, "HF_TOKEN"));
	ck_assert_ptr_nonnull(strstr(err, "would convert"));
	argv[0] = "bash"; argv[1] = "-n"; argv[2] = NULL;
	ck_assert_int_eq(run(argv, out, NULL, NULL), 0);

	/* No job dir on the cluster, no record here. */
	chk = ssh_out("ls -d %s/results/sdsub-dry-%s* 2>/dev/null | wc -l",
	    getenv("SDTB_LUSTRE"), unique);
	ck_assert_str_eq(chk, "0\n");
	free(chk);
	snprintf(path, sizeof path, "%s/state/sqdeck/records", tmpdir);
	d = opendir(path);
	if (d != NULL) {
		struct dirent	*de;

		while ((de = readdir(d)) != NULL)
			ck_assert_msg(!str_has_suffix(de->d_name, ".json"),
			    "record %s", de->d_name);
		closedir(d);
	}
	free(out);
	free(err);
	free(spec);
}
END_TEST

/*
 * g. The same spec again: its script has the shape of the first one (the
 * record id's stamp apart, byte for byte on the cluster), so bash -n is
 * not run again; one verdict is kept under the state dir.
 */
START_TEST(test_shape_skip)
{
	cJSON		*j[2];
	char		*spec, *err[2], *sc[2], *p, path[4200];
	const char	*rid;
	struct dirent	*de;
	DIR		*d;
	size_t		 i, n = 0;

	need_cluster();
	spec = write_spec("name: sdsub-shape-%s\nimage: %s\n"
	    "command: 'true'\ngpus: 1\ncpus: 1\ntime: 5m\n", unique,
	    it_image());
	for (i = 0; i < 2; i++) {
		ck_assert_msg(it_sd(&j[i], NULL, &err[i], NULL, "submit",
		    "--hold", "--json", spec, NULL) == 0, "submit %zu: %s", i,
		    err[i]);
		sc[i] = ssh_out("cat '%s'", it_jstr(j[i], "sbatch_path"));
		free(ssh_out("scancel %s", it_jstr(j[i], "job_id")));
		/* The stamp of the record id, as lint_shape_key replaces it. */
		rid = it_jstr(j[i], "record_id") + 3;
		while ((p = strstr(sc[i], rid)) != NULL)
			memcpy(p, "00000000T000000-000000", strlen(rid));
	}
	ck_assert_msg(strstr(err[0], "lint clean, bash -n ok") != NULL, "%s",
	    err[0]);
	ck_assert_msg(strstr(err[1], "bash -n skipped: a script of the same "
	    "shape passed it before") != NULL, "%s", err[1]);
	ck_assert_str_eq(sc[0], sc[1]);
	snprintf(path, sizeof path, "%s/state/sqdeck/lint", tmpdir);
	ck_assert_ptr_nonnull((d = opendir(path)));
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	ck_assert_int_eq(n, 1);
	for (i = 0; i < 2; i++) {
		cJSON_Delete(j[i]);
		free(err[i]);
		free(sc[i]);
	}
	free(spec);
}
END_TEST

static Suite *
submit_suite(void)
{
	Suite	*s = suite_create("submit");
	TCase	*tc;

	tc = it_tcase(s, "cluster", 240, setup, it_teardown);
	it_add_job_test(tc, test_complete);
	it_add_job_test(tc, test_image_sqsh_path);
	it_add_job_test(tc, test_missing_dataset);
	it_add_job_test(tc, test_account_refused_says_where);
	it_add_job_test(tc, test_ambiguous_drop);
	it_add_job_test(tc, test_ambiguous_empty);
	it_add_job_test(tc, test_canary);
	it_add_job_test(tc, test_creds_merge);
	it_add_job_test(tc, test_dry_run);
	it_add_job_test(tc, test_files);
	it_add_job_test(tc, test_shape_skip);
	return s;
}

TEST_MAIN(submit_suite)
