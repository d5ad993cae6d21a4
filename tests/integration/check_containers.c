/*
 * The container path for real: Pyxis + Enroot + the password registry of
 * tests/cluster/containers (source $SDTB_DIR/env.sh first).  Every job
 * here runs in the test image (busybox + bash, ID=sdtb-tools, WORKDIR
 * /opt) through the real conversion on the cpu partition, except the one
 * that tests 'container: none'.
 *
 * Without the containers stack (SDTB_CONTAINERS=absent: no vendor
 * archives) no test is registered: each prints one "skipped" line with
 * the reason, and scripts/check fails when the archives were there.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdarg.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "itutil.h"
#include "util.h"

/* A string member of the JSON reply, or "" if it has none. */
static const char *
jstr(cJSON *j, const char *key)
{
	const char	*v = it_jstr(j, key);

	return v != NULL ? v : "";
}

/*
 * Each test: private HOME, state and config; a clusters.yaml whose one
 * cluster takes host, user and key from the env and has its own image
 * cache (so a test's first submit really converts).
 */
static void
setup_with(const char *extra)
{
	char	path[4200], *yaml;

	it_setup();
	snprintf(path, sizeof path, "%s/config", tmpdir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/config/sqdeck", tmpdir);
	mkdir(path, 0700);
	unsetenv("SQDECK_IMPORT_TIMEOUT");
	unsetenv("SQDECK_REGISTRY_PASSWORD");
	unsetenv("NGC_KEY");
	yaml = xasprintf("- name: sdtb\n  hosts: %s\n"
	    "  image_cache: %s/cx-cache/%s\n%s", it_env("SLURM_HOSTNAME"),
	    it_env("SDTB_LUSTRE"), unique, extra);
	snprintf(path, sizeof path, "%s/config/sqdeck/clusters.yaml", tmpdir);
	ck_assert_int_eq(file_write_atomic(path, yaml, strlen(yaml), 0600,
	    NULL), 0);
	free(yaml);
}

static void
setup(void)
{
	setup_with("");
}

static void
setup_none(void)
{
	setup_with("  container: none\n");
}

/* The test's own image cache on the cluster goes too. */
static void
teardown(void)
{
	free(ssh_out("rm -rf %s/cx-cache/%s", it_env("SDTB_LUSTRE"), unique));
	it_teardown();
}

static char *
registry_password(void)
{
	char	*pw = NULL;

	ck_assert_int_eq(file_read(it_env("SDTB_REGISTRY_PASSWORD_FILE"), &pw,
	    NULL, NULL), 0);
	str_trim(pw);
	ck_assert_uint_gt(strlen(pw), 8);
	return pw;
}

/* The real registry password into Enroot's netrc, through sqdeck. */
static void
creds_install(const char *password)
{
	char	*out = NULL, *err = NULL;

	/*
	 * SQDECK_CX_CREDS_BIN: another binary installs them, so that a run
	 * of an older sqdeck (the fails-before-the-fix check) gets as far
	 * as the bug it is about.
	 */
	const char	*bin = getenv("SQDECK_CX_CREDS_BIN") != NULL ?
			    getenv("SQDECK_CX_CREDS_BIN") :
			    it_env("SQDECK_BIN");
	char *const	 argv[] = { (char *)bin, "creds", "install",
			    "--registry",
			    (char *)it_env("SDTB_REGISTRY"), "--login",
			    (char *)it_env("SDTB_REGISTRY_USER"), NULL };

	setenv("SQDECK_REGISTRY_PASSWORD", password, 1);
	ck_assert_msg(run(argv, NULL, &out, &err) == 0, "%s%s", out, err);
	unsetenv("SQDECK_REGISTRY_PASSWORD");
	free(out);
	free(err);
}

static void
creds_ok(void)
{
	char	*pw = registry_password();

	creds_install(pw);
	free(pw);
}

#define wait_end(id)	it_wait_end((id), "State", 240, 1)

static char *
main_out(cJSON *j)
{
	return ssh_out("cat %s/logs/%s-%s/main.out %s/logs/%s-%s/main.err",
	    jstr(j, "job_dir"), jstr(j, "name"), jstr(j, "job_id"),
	    jstr(j, "job_dir"), jstr(j, "name"), jstr(j, "job_id"));
}

/* Submit, wait for the end, check COMPLETED; returns the submit JSON. */
static cJSON *
submit_ok(const char *spec, char **log)
{
	cJSON	*j;
	char	*out = NULL, *err = NULL, *state;

	ck_assert_msg(it_sd(&j, &out, &err, NULL, "submit", spec, "--json",
	    NULL) == 0, "%s\n%s", out, err);
	free(out);
	free(err);
	ck_assert_str_ne(jstr(j, "job_id"), "");
	state = wait_end(jstr(j, "job_id"));
	*log = main_out(j);
	ck_assert_msg(strcmp(state, "COMPLETED") == 0, "%s: %s", state, *log);
	free(state);
	return j;
}

/* A refused submit: stops at the image step, no job of that name. */
static cJSON *
submit_refused(const char *spec, const char *want)
{
	cJSON	*j;
	char	*out = NULL, *err = NULL, *n;

	ck_assert_int_ne(it_sd(&j, &out, &err, NULL, "submit", spec, "--json",
	    NULL), 0);
	ck_assert_msg(strcmp(jstr(j, "failed_step"), "image") == 0, "%s\n%s",
	    out, err);
	ck_assert_msg(strstr(jstr(j, "error"), want) != NULL,
	    "want '%s' in: %s", want, jstr(j, "error"));
	n = ssh_out("squeue --me -h -t all -n '%s' -o %%i | wc -l",
	    jstr(j, "name"));
	ck_assert_str_eq(n, "0\n");
	free(n);
	free(out);
	free(err);
	return j;
}

/* sacct -P fields of the import job (by its unique name). */
static char *
import_job(cJSON *j, const char *fields, const char *re)
{
	/*
	 * sacct shows a placeholder name for a few seconds (README), and
	 * the other fields of a just-ended job lag behind its state: wait
	 * until the line matches what the case is about to read.
	 */
	return it_ssh_until(60, re, "sacct -X -n -P --name '%s' -o %s",
	    jstr(j, "import_job"), fields);
}

/* --- acceptance 1: preflight ------------------------------------------------ */

START_TEST(test_preflight_pyxis)
{
	cJSON	*j;
	char	*out = NULL;

	ck_assert_int_eq(it_sd(&j, NULL, NULL, NULL, "preflight", "--json",
	    NULL), 0);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "pyxis")));
	ck_assert_str_eq(jstr(j, "container_mode"), "pyxis");
	cJSON_Delete(j);
	ck_assert_int_eq(it_sd(NULL, &out, NULL, NULL, "preflight", NULL), 0);
	ck_assert_msg(strstr(out, "container mode: pyxis") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "enroot     ok") != NULL, "%s", out);
	free(out);
}
END_TEST

/*
 * Acceptance 2 and bugs 1 + 3: a registry image is converted once on cpu
 * (-n1 -c4 --mem=7200M, --chdir=/tmp, >= 120 min), then runs on gpu in
 * the container: the image's os-release, the job dir as the working
 * directory, the status.json written inside is the one sqdeck reads.
 */
START_TEST(test_registry_image)
{
	cJSON	*j, *j2, *st;
	char	*spec, *log, *f, *want, *out = NULL, *n;

	creds_ok();
	spec = write_spec("name: cx-img-%s\nimage: %s\n"
	    "command: 'cat /etc/os-release; echo \"pwd=$PWD\"; "
	    "ls specs/spec.yaml; printf \"%%s\\n\" "
	    "\"{\\\"status\\\": \\\"SUCCESS\\\", \\\"from\\\": "
	    "\\\"inside-%s\\\"}\" >results/status.json'\n"
	    "gpus: 1\ncpus: 1\ntime: 10m\n", unique, it_env("SDTB_IMAGE"),
	    unique);
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "container_mode"), "pyxis");
	ck_assert_str_eq(jstr(j, "image_action"), "converted");
	/* The image's own os-release, not the node's Debian. */
	ck_assert_msg(strstr(log, "ID=sdtb-tools") != NULL, "%s", log);
	ck_assert_msg(strstr(log, "Debian") == NULL, "%s", log);
	want = xasprintf("pwd=%s\n", jstr(j, "job_dir"));
	ck_assert_msg(strstr(log, want) != NULL, "want %s in %s", want, log);
	ck_assert_msg(strstr(log, "specs/spec.yaml") != NULL, "%s", log);
	free(want);
	/* The status.json the workload wrote inside is the one on disk. */
	f = ssh_out("cat %s/results/status.json", jstr(j, "job_dir"));
	want = xasprintf("\"inside-%s\"", unique);
	ck_assert_msg(strstr(f, want) != NULL, "%s", f);
	free(want);
	free(f);
	/* ... and the one sqdeck reads: the record ends COMPLETED. */
	for (int i = 0; i < 30; i++) {
		ck_assert_int_eq(it_sd(&st, &out, NULL, NULL, "status",
		    jstr(j, "record_id"), "--json", NULL), 0);
		free(out);
		out = cJSON_PrintUnformatted(st);
		cJSON_Delete(st);
		if (strstr(out, "\"state\":\"COMPLETED\"") != NULL)
			break;
		free(out);
		out = NULL;
		sleep(1);
	}
	ck_assert_msg(out != NULL, "record did not end COMPLETED");
	free(out);
	/* The import job: cpu, 4 CPUs, 7200M, /tmp, 2 h; the job on gpu. */
	f = import_job(j, "Partition,AllocCPUS,ReqMem,WorkDir,Timelimit",
	    "^[^|]+\\|[^|]+\\|[^|]+\\|");
	ck_assert_str_eq(f, "cpu|4|7200M|/tmp|02:00:00\n");
	free(f);
	f = ssh_out("sacct -j %s -X -n -P -o Partition", jstr(j, "job_id"));
	ck_assert_str_eq(f, "gpu\n");
	free(f);
	free(log);

	/* Converted once: the next submit reuses it, no import job. */
	j2 = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j2, "image_action"), "cached");
	ck_assert_str_eq(jstr(j2, "image_sqsh"), jstr(j, "image_sqsh"));
	n = ssh_out("sacct -X -n -P -S now-1hours --name '%s' -o JobID | "
	    "wc -l", jstr(j2, "import_job"));
	ck_assert_str_eq(n, "0\n");
	free(n);
	cJSON_Delete(j2);
	cJSON_Delete(j);
	free(log);
	free(spec);
}
END_TEST

/* --- bug 4: credentials ------------------------------------------------------ */

/* grep -r for s under dir on this machine: 1 if found. */
static int
found_under(const char *dir, const char *s)
{
	char	*cmd;
	int	 rc;

	cmd = xasprintf("grep -r -q -F -e \"$SQDECK_T_SECRET\" '%s' "
	    "2>/dev/null", dir);
	setenv("SQDECK_T_SECRET", s, 1);
	rc = system(cmd);
	unsetenv("SQDECK_T_SECRET");
	free(cmd);
	return WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

/*
 * The secret anywhere on the cluster side: the test cluster's logs and
 * spools (slurmctld, slurmd, sshd: this machine, read as root), the job
 * dir, and what slurmdbd keeps of the job and its import job (script,
 * environment, submit line).  1 if found.
 */
static int
found_on_cluster(const char *secret, cJSON *j)
{
	const char	*d = getenv("SDTB_DIR") != NULL ? getenv("SDTB_DIR") :
			    "/tmp/sdtb";
	char		*cmd, *out = NULL, path[4200];
	int		 rc;

	snprintf(path, sizeof path, "%s/log", d);
	if (found_under(path, secret))
		return 1;
	snprintf(path, sizeof path, "%s/spool", d);
	if (found_under(path, secret))
		return 1;
	if (found_under(jstr(j, "job_dir"), secret))
		return 1;
	cmd = xasprintf("read -r s; "
	    "for id in %s $(sacct -X -n -P -S now-2hours --name '%s' "
	    "-o JobID); do "
	    "sacct -j \"$id\" -n -P --batch-script 2>/dev/null; "
	    "sacct -j \"$id\" -n -P --env-vars 2>/dev/null; "
	    "sacct -j \"$id\" -n -P -o JobName,SubmitLine%%2000,WorkDir "
	    "2>/dev/null; done >\"$HOME/.cx-dbd.$$\"; "
	    "test -s \"$HOME/.cx-dbd.$$\" && echo dbd-rows; "
	    "grep -q -F -e \"$s\" \"$HOME/.cx-dbd.$$\" && echo found-dbd; "
	    "rm -f \"$HOME/.cx-dbd.$$\"",
	    jstr(j, "job_id"), jstr(j, "import_job"));
	ck_assert_int_eq(ssh_run(cmd, secret, &out), 0);
	free(cmd);
	/* slurmdbd answered: the check can fail. */
	ck_assert_msg(strstr(out, "dbd-rows") != NULL, "%s", out);
	rc = strstr(out, "found") != NULL;
	free(out);
	return rc;
}

/*
 * Import from the password registry fails before 'creds install' (enroot
 * authenticates as <anonymous>) and succeeds after; the netrc line is
 * the one Enroot reads; a wrong password and a repository the
 * credentials cannot read are refused with the hint; the password is in
 * no record, log, job file or slurmdbd field.
 */
START_TEST(test_creds)
{
	cJSON	*j;
	char	*spec, *log, *pw, *line, *want, *out = NULL, *err = NULL;
	char	 path[4200];

	pw = registry_password();
	free(ssh_out("rm -f ~/.config/enroot/.credentials"));
	spec = write_spec("name: cx-cred-%s\nimage: %s\ncommand: 'cat "
	    "/etc/os-release'\ngpus: 1\ncpus: 1\ntime: 5m\n", unique,
	    it_env("SDTB_IMAGE"));
	j = submit_refused(spec, "<anonymous>");
	ck_assert_msg(strstr(jstr(j, "error"), "creds install") != NULL, "%s",
	    jstr(j, "error"));
	cJSON_Delete(j);

	/* A wrong password: enroot is refused, sqdeck says why. */
	creds_install("not-the-password");
	j = submit_refused(spec, "enroot import");
	ck_assert_msg(strstr(jstr(j, "error"), "credentials") != NULL, "%s",
	    jstr(j, "error"));
	cJSON_Delete(j);

	creds_install(pw);
	line = ssh_out("stat -c %%a ~/.config/enroot/.credentials; "
	    "grep -c '^machine 10.231.0.1 login %s password ' "
	    "~/.config/enroot/.credentials", it_env("SDTB_REGISTRY_USER"));
	ck_assert_str_eq(line, "600\n1\n");
	free(line);
	/* The machine is the host, without the port Enroot does not match. */
	want = ssh_out("grep -c ':5000' ~/.config/enroot/.credentials || "
	    "true");
	ck_assert_str_eq(want, "0\n");
	free(want);
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "image_action"), "converted");
	ck_assert_msg(strstr(log, "ID=sdtb-tools") != NULL, "%s", log);
	free(log);
	/* Nowhere: records, this machine's test dir, the cluster. */
	snprintf(path, sizeof path, "%s/state", tmpdir);
	ck_assert(!found_under(path, pw));
	ck_assert(!found_on_cluster(pw, j));
	cJSON_Delete(j);

	/* A repository these credentials cannot read (registry :5001). */
	free(spec);
	spec = write_spec("name: cx-priv-%s\nimage: %s\ncommand: true\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique,
	    it_env("SDTB_IMAGE_PRIVATE"));
	j = submit_refused(spec, "enroot import");
	ck_assert_msg(strstr(jstr(j, "error"), "credentials") != NULL, "%s",
	    jstr(j, "error"));
	cJSON_Delete(j);
	free(out);
	free(err);
	free(spec);
	free(pw);
}
END_TEST

/*
 * creds install --stdin on a terminal: it asks, echo off, the password
 * never appears on the terminal, and it works.
 */
START_TEST(test_creds_tty)
{
	char	 buf[8192], *pw, *line;
	size_t	 len = 0;
	ssize_t	 n;
	pid_t	 pid;
	int	 master, status;
	struct pollfd pfd;

	pw = registry_password();
	free(ssh_out("rm -f ~/.config/enroot/.credentials"));
	pid = forkpty(&master, NULL, NULL, NULL);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(it_env("SQDECK_BIN"), "sqdeck", "creds", "install",
		    "--stdin", "--registry", it_env("SDTB_REGISTRY"), "--login",
		    it_env("SDTB_REGISTRY_USER"), (char *)NULL);
		_exit(127);
	}
	/* Wait for the prompt: echo is off by then. */
	while (strstr(buf, "not echoed") == NULL) {
		pfd.fd = master;
		pfd.events = POLLIN;
		ck_assert_int_gt(poll(&pfd, 1, 30000), 0);
		n = read(master, buf + len, sizeof buf - 1 - len);
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
		buf[len] = '\0';
	}
	ck_assert_int_eq(write(master, pw, strlen(pw)), (ssize_t)strlen(pw));
	ck_assert_int_eq(write(master, "\n", 1), 1);
	for (;;) {
		pfd.fd = master;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 60000) <= 0)
			break;
		n = read(master, buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(master);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
	    buf);
	ck_assert_msg(strstr(buf, "registry password (not echoed): ") != NULL,
	    "%s", buf);
	ck_assert_msg(strstr(buf, pw) == NULL, "the password was echoed: %s",
	    buf);
	ck_assert_msg(strstr(buf, "credentials installed") != NULL, "%s", buf);
	line = ssh_out("grep -c '^machine 10.231.0.1 login %s password ' "
	    "~/.config/enroot/.credentials", it_env("SDTB_REGISTRY_USER"));
	ck_assert_str_eq(line, "1\n");
	free(line);
	free(pw);
}
END_TEST

/* --- failure cases, all real -------------------------------------------------- */

START_TEST(test_failures)
{
	cJSON	*j;
	char	*spec, *image, *out;

	creds_ok();
	/* An image that is not in the registry. */
	image = xasprintf("%s#sdtb/tools:nosuch-%s", it_env("SDTB_REGISTRY"),
	    unique);
	spec = write_spec("name: cx-miss-%s\nimage: %s\ncommand: true\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, image);
	j = submit_refused(spec, "enroot import");
	out = ssh_out("ls -a %s/cx-cache/%s 2>/dev/null | grep -c tmp || true",
	    it_env("SDTB_LUSTRE"), unique);
	ck_assert_str_eq(out, "0\n");
	free(out);
	cJSON_Delete(j);
	free(spec);
	free(image);

	/* A registry that accepts the connection and never answers. */
	setenv("SQDECK_IMPORT_TIMEOUT", "15", 1);
	image = xasprintf("%s#sdtb/tools:1", it_env("SDTB_REGISTRY_SILENT"));
	spec = write_spec("name: cx-hang-%s\nimage: %s\ncommand: true\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, image);
	j = submit_refused(spec, "did not finish in 15 s");
	unsetenv("SQDECK_IMPORT_TIMEOUT");
	/* The import job was killed with it, its temp file removed. */
	for (int i = 0; i < 30; i++) {
		out = ssh_out("squeue --me -h -n '%s' -o %%i | wc -l",
		    jstr(j, "import_job"));
		if (strcmp(out, "0\n") == 0)
			break;
		free(out);
		out = NULL;
		sleep(1);
	}
	ck_assert_msg(out != NULL, "the import job outlived its timeout");
	free(out);
	out = ssh_out("ls -a %s/cx-cache/%s 2>/dev/null | grep -c tmp || true",
	    it_env("SDTB_LUSTRE"), unique);
	ck_assert_str_eq(out, "0\n");
	free(out);
	cJSON_Delete(j);
	free(spec);
	free(image);

}
END_TEST

START_TEST(test_bad_sqsh)
{
	cJSON	*j;
	char	*spec, *good, *dir, *log, *cmd;

	creds_ok();
	/* A good image first, converted by sqdeck; then damaged copies. */
	spec = write_spec("name: cx-sq-%s\nimage: %s\ncommand: true\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, it_env("SDTB_IMAGE"));
	j = submit_ok(spec, &log);
	good = xstrdup(jstr(j, "image_sqsh"));
	cJSON_Delete(j);
	free(log);
	free(spec);
	dir = xasprintf("%s/cx-cache/%s", it_env("SDTB_LUSTRE"), unique);
	cmd = xasprintf("cd %s && s=$(stat -c %%s %s) && "
	    "head -c $((s / 2)) %s >truncated.sqsh && "
	    "head -c 65536 /dev/urandom >garbage.sqsh", dir, good, good);
	ck_assert_int_eq(ssh_run(cmd, NULL, NULL), 0);
	free(cmd);
	spec = write_spec("name: cx-tr-%s\nimage: %s/truncated.sqsh\n"
	    "command: true\ngpus: 1\ncpus: 1\ntime: 5m\n", unique, dir);
	cJSON_Delete(submit_refused(spec, "truncated"));
	free(spec);
	spec = write_spec("name: cx-gb-%s\nimage: %s/garbage.sqsh\n"
	    "command: true\ngpus: 1\ncpus: 1\ntime: 5m\n", unique, dir);
	cJSON_Delete(submit_refused(spec, "no hsqs magic"));
	free(spec);
	/* The good one by path runs in the container. */
	spec = write_spec("name: cx-ok-%s\nimage: %s\ncommand: 'head -n 1 "
	    "/etc/os-release'\ngpus: 1\ncpus: 1\ntime: 5m\n", unique, good);
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "image_action"), "sqsh");
	ck_assert_msg(strstr(log, "ID=sdtb-tools") != NULL, "%s", log);
	cJSON_Delete(j);
	free(log);
	free(spec);
	free(good);
	free(dir);
}
END_TEST

/* --- bug 5: a secret reaches the program in the container, nothing else ------ */

START_TEST(test_secret_in_container)
{
	cJSON	*j;
	char	*spec, *log, secret[40], path[4200];
	int	 i;

	creds_ok();
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	for (i = 0; i < 31; i++)
		secret[i] = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
		    "23456789"[rand() % 57];
	secret[31] = '\0';
	setenv("SQDECK_CANARY", secret, 1);
	spec = write_spec("name: cx-sec-%s\nimage: %s\nsecrets: "
	    "[SQDECK_CANARY]\ncommand: 'echo \"canary_len=${#SQDECK_CANARY} "
	    "$(head -n 1 /etc/os-release)\"'\ngpus: 1\ncpus: 1\ntime: 5m\n",
	    unique, it_env("SDTB_IMAGE"));
	j = submit_ok(spec, &log);
	unsetenv("SQDECK_CANARY");
	/* Inside the image (its os-release), with the whole value. */
	ck_assert_msg(strstr(log, "canary_len=31 ID=sdtb-tools") != NULL, "%s",
	    log);
	ck_assert(strstr(log, secret) == NULL);
	snprintf(path, sizeof path, "%s/state", tmpdir);
	ck_assert(!found_under(path, secret));
	ck_assert(!found_on_cluster(secret, j));
	cJSON_Delete(j);
	free(log);
	free(spec);
}
END_TEST

/* --- bug 6: two nodes, both in the container ------------------------------------ */

START_TEST(test_multinode)
{
	cJSON	*j;
	char	*spec, *log, *line, *p, host[2][64], master[2][64], os[2][64];
	char	 pwd[2][1024];
	int	 rank[2], world[2], n = 0;

	creds_ok();
	spec = write_spec("name: cx-mn-%s\nimage: %s\n"
	    "command: 'echo \"RDV host=$(hostname) rank=$NODE_RANK "
	    "world=$WORLD_SIZE master=$MASTER_ADDR os=$(head -n 1 "
	    "/etc/os-release) pwd=$PWD\"'\n"
	    "nodes: 2\ngpus: 4\ngpus_per_node: 2\ncpus: 1\ntime: 10m\n",
	    unique, it_env("SDTB_IMAGE"));
	j = submit_ok(spec, &log);
	for (line = log; line != NULL && *line != '\0'; line = p) {
		if ((p = strchr(line, '\n')) != NULL)
			*p++ = '\0';
		if (strncmp(line, "RDV ", 4) != 0)
			continue;
		ck_assert_msg(n < 2, "more than two ranks: %s", line);
		ck_assert_int_eq(sscanf(line, "RDV host=%63s rank=%d world=%d "
		    "master=%63s os=%63s pwd=%1023s", host[n], &rank[n],
		    &world[n], master[n], os[n], pwd[n]), 6);
		n++;
	}
	ck_assert_msg(n == 2, "expected a line per node, got %d", n);
	ck_assert_str_ne(host[0], host[1]);
	ck_assert_int_eq(rank[0] + rank[1], 1);
	ck_assert_int_eq(world[0], 2);
	ck_assert_int_eq(world[1], 2);
	ck_assert_str_eq(master[0], master[1]);
	ck_assert_str_eq(master[0], rank[0] == 0 ? host[0] : host[1]);
	ck_assert_str_eq(os[0], "ID=sdtb-tools");
	ck_assert_str_eq(os[1], "ID=sdtb-tools");
	ck_assert_str_eq(pwd[0], jstr(j, "job_dir"));
	ck_assert_str_eq(pwd[1], jstr(j, "job_dir"));
	cJSON_Delete(j);
	free(log);
	free(spec);
}
END_TEST

/* --- bug 7: :latest with force_reconvert really imports again -------------------- */

static void
push_latest(const char *stamp)
{
	char	*argv[6], *tool;

	tool = xasprintf("%s/tests/cluster/push-image", TOP_SRCDIR);
	argv[0] = tool;
	argv[1] = "--stamp";
	argv[2] = (char *)stamp;
	argv[3] = "sdtb/tools:latest";
	argv[4] = NULL;
	ck_assert_int_eq(run(argv, NULL, NULL, NULL), 0);
	free(tool);
}

START_TEST(test_latest_force)
{
	cJSON	*j;
	char	*spec, *log, *a, *b;

	creds_ok();
	a = xasprintf("SQDECK_STAMP=a-%s", unique);
	b = xasprintf("SQDECK_STAMP=b-%s", unique);
	push_latest(a + strlen("SQDECK_STAMP="));
	spec = write_spec("name: cx-lat-%s\nimage: %s\ncommand: 'cat "
	    "/etc/os-release'\ngpus: 1\ncpus: 1\ntime: 5m\n", unique,
	    it_env("SDTB_IMAGE_LATEST"));
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "image_action"), "converted");
	ck_assert_msg(strstr(log, a) != NULL, "%s", log);
	cJSON_Delete(j);
	free(log);

	/* New content under :latest: the cache is reused without force. */
	push_latest(b + strlen("SQDECK_STAMP="));
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "image_action"), "cached");
	ck_assert_msg(strstr(log, a) != NULL, "%s", log);
	cJSON_Delete(j);
	free(log);
	free(spec);

	/* force_reconvert: imported again, the new content runs. */
	spec = write_spec("name: cx-lat-%s\nimage: %s\nforce_reconvert: true\n"
	    "command: 'cat /etc/os-release'\ngpus: 1\ncpus: 1\ntime: 5m\n",
	    unique, it_env("SDTB_IMAGE_LATEST"));
	j = submit_ok(spec, &log);
	ck_assert_str_eq(jstr(j, "image_action"), "converted");
	ck_assert_msg(strstr(log, b) != NULL, "%s", log);
	ck_assert_msg(strstr(log, a) == NULL, "%s", log);
	free(import_job(j, "JobID", "."));
	cJSON_Delete(j);
	free(log);
	free(spec);
	free(a);
	free(b);
}
END_TEST

/* --- bug 3: a QOS memory limit below the conversion's 7200M ----------------- */

/*
 * The QOS and the partition of the qos case: one name, chosen in the
 * runner process (an unchecked fixture), so that qos_teardown removes them
 * there whether the test passed or not.
 */
static char	qos_name[64];
static int	qos_registered;	/* the test is in the run */

/* A command as the cluster's admin: root here, like tests/cluster/up. */
static int
admin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
admin(const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd, *full;
	int	 rc;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("SLURM_CONF=\"$SDTB_DIR/etc/slurm.conf\"; "
	    "export SLURM_CONF; %s", cmd);
	rc = system(full);
	free(full);
	free(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void
qos_setup(void)
{
	snprintf(qos_name, sizeof qos_name, "sdqos%ld%04x",
	    (long)time(NULL) % 100000, (unsigned)getpid() & 0xffff);
}

/* Its jobs, its partition, then the QOS: nothing else is touched. */
static void
qos_teardown(void)
{
	if (!qos_registered || getenv("SDTB_DIR") == NULL)
		return;
	if (admin("q=%s; scancel -p \"$q\" 2>/dev/null; "
	    "if scontrol show partition \"$q\" >/dev/null 2>&1; then "
	    "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do "
	    "scontrol delete PartitionName=\"$q\" 2>/dev/null && break; "
	    "sleep 2; done; fi; "
	    "if sacctmgr -n -P show qos \"$q\" format=name | grep -qx \"$q\"; "
	    "then sacctmgr -i delete qos \"$q\" >/dev/null; fi; "
	    "! scontrol show partition \"$q\" >/dev/null 2>&1 && "
	    "! sacctmgr -n -P show qos \"$q\" format=name | grep -qx \"$q\"",
	    qos_name) != 0)
		fprintf(stderr, "containers: could not remove the QOS and "
		    "partition %s\n", qos_name);
}

/*
 * The import job runs on the partition of clusters.yaml's cpu_partition,
 * whose QOS caps a job's memory at 2000M (MaxTRESPerJob=mem=2000M,
 * sacctmgr): below the conversion's 7200M.  With the partition's default
 * memory above the cap too, submit stops at the image step with the fix
 * (a QOS that allows 7200M, or another cpu_partition) and no job; with a
 * default below the cap, the conversion runs with it and submit says the
 * QOS refused 7200M.  The import job is the only job of that partition.
 */
START_TEST(test_qos_memory)
{
	cJSON	*j;
	char	*enforce, *nodes, *spec, *out = NULL, *err = NULL, *want, *f;
	char	*yaml = NULL, path[4200];
	int	 rc;

	creds_ok();
	/* slurmctld reads AccountingStorageEnforce only when it starts. */
	enforce = ssh_out("scontrol show config | "
	    "sed -n 's/^AccountingStorageEnforce *= *//p'");
	ck_assert_msg(strstr(enforce, "limits") != NULL, "the cluster's "
	    "slurmctld does not enforce QOS limits (AccountingStorageEnforce "
	    "= %s): tests/cluster/up sets associations,limits and restarts a "
	    "slurmctld started without it", str_trim(enforce));
	free(enforce);
	/* Without memory counted a QOS memory cap refuses nothing. */
	enforce = ssh_out("scontrol show config | "
	    "sed -n 's/^SelectTypeParameters *= *//p'");
	ck_assert_msg(strstr(enforce, "MEMORY") != NULL, "the cluster's "
	    "slurmctld does not count memory (SelectTypeParameters = %s): "
	    "tests/cluster/up sets CR_Core_Memory and restarts daemons "
	    "started without it", str_trim(enforce));
	free(enforce);
	out = ssh_out("sinfo -h -p cpu -o %%N");
	str_trim(out);
	ck_assert_uint_gt(strlen(out), 0);
	nodes = shell_quote(out);	/* sinfo's text: quoted */
	free(out);
	out = NULL;
	ck_assert_int_eq(admin("sacctmgr -i add qos %s "
	    "MaxTRESPerJob=mem=2000M >/dev/null", qos_name), 0);
	/* slurmctld learns the new QOS from slurmdbd: a moment. */
	ck_assert_int_eq(admin("for i in 1 2 3 4 5 6 7 8 9 10; do scontrol "
	    "create PartitionName=%s Nodes=%s QOS=%s DefMemPerNode=3000 "
	    "MaxTime=INFINITE State=UP && exit 0; sleep 1; done; exit 1",
	    qos_name, nodes, qos_name), 0);
	free(nodes);
	snprintf(path, sizeof path, "%s/config/sqdeck/clusters.yaml", tmpdir);
	ck_assert_int_eq(file_read(path, &yaml, NULL, NULL), 0);
	f = xasprintf("%s  cpu_partition: %s\n", yaml, qos_name);
	ck_assert_int_eq(file_write_atomic(path, f, strlen(f), 0600, NULL), 0);
	free(f);
	free(yaml);
	/* A bound: a hold nobody noticed must not wait the default hour. */
	setenv("SQDECK_IMPORT_TIMEOUT", "180", 1);

	/* 7200M and the default 3000M are both over the cap: refused. */
	spec = write_spec("name: cx-qos-%s\nimage: %s\ncommand: true\n"
	    "gpus: 1\ncpus: 1\ntime: 5m\n", unique, it_env("SDTB_IMAGE"));
	rc = it_sd(&j, &out, &err, NULL, "submit", spec, "--json", NULL);
	ck_assert_msg(rc != 0, "submitted: %s\n%s", out, err);
	ck_assert_str_eq(jstr(j, "failed_step"), "image");
	ck_assert_msg(strstr(err, "sqdeck: submit failed at step image: the "
	    "import job for ") != NULL, "%s", err);
	want = xasprintf(" was refused by a QOS memory limit, with "
	    "--mem=7200M and again with partition %s's default memory (",
	    qos_name);
	ck_assert_msg(strstr(err, want) != NULL, "want '%s' in:\n%s", want,
	    err);
	free(want);
	want = xasprintf("nothing was submitted: ask for a QOS that allows "
	    "7200M on %s, or set cpu_partition in clusters.yaml to a "
	    "partition that does.", qos_name);
	ck_assert_msg(strstr(err, want) != NULL, "want '%s' in:\n%s", want,
	    err);
	free(want);
	/* What SLURM said names the QOS (a hold reason or srun's error). */
	ck_assert_msg(strstr(strstr(err, "default memory ("), "QOS") != NULL,
	    "%s", err);
	fprintf(stderr, "qos refusal, as the operator saw it:\n%s", err);
	free(out);
	free(err);
	/* No job, no import job left queued, no temp file in the cache. */
	out = ssh_out("squeue --me -h -t all -n '%s' -o %%i | wc -l; "
	    "squeue -h -p %s -o %%i | wc -l; "
	    "ls -a %s/cx-cache/%s 2>/dev/null | grep -c tmp || true",
	    jstr(j, "name"), qos_name, it_env("SDTB_LUSTRE"), unique);
	ck_assert_str_eq(out, "0\n0\n0\n");
	free(out);
	cJSON_Delete(j);
	free(spec);

	/* The partition's default memory under the cap: converted with it. */
	ck_assert_int_eq(admin("scontrol update PartitionName=%s "
	    "DefMemPerNode=1000", qos_name), 0);
	spec = write_spec("name: cx-qos2-%s\nimage: %s\n"
	    "command: 'cat /etc/os-release'\ngpus: 1\ncpus: 1\ntime: 5m\n",
	    unique, it_env("SDTB_IMAGE"));
	ck_assert_msg(it_sd(&j, &out, &err, NULL, "submit", spec, "--json",
	    NULL) == 0, "%s\n%s", out, err);
	ck_assert_str_eq(jstr(j, "image_action"), "converted");
	ck_assert_msg(strstr(err, "the QOS refused --mem=7200M (") != NULL,
	    "%s", err);
	want = xasprintf("): converted with partition %s's default memory\n",
	    qos_name);
	ck_assert_msg(strstr(err, want) != NULL, "want '%s' in:\n%s", want,
	    err);
	free(want);
	free(out);
	free(err);
	/* The import job that ran had the default 1000M, on that partition. */
	f = import_job(j, "Partition,ReqMem,State", "\\|COMPLETED$");
	want = xasprintf("%s|1000M|COMPLETED\n", qos_name);
	ck_assert_msg(strstr(f, want) != NULL, "want '%s' in:\n%s", want, f);
	free(want);
	free(f);
	f = wait_end(jstr(j, "job_id"));
	ck_assert_str_eq(f, "COMPLETED");
	free(f);
	cJSON_Delete(j);
	free(spec);
	unsetenv("SQDECK_IMPORT_TIMEOUT");
}
END_TEST

/* --- container: none, the bare-node case ---------------------------------------- */

START_TEST(test_container_none)
{
	cJSON	*j;
	char	*spec, *log, *out = NULL, *err = NULL, *state;

	creds_ok();
	spec = write_spec("name: cx-none-%s\nimage: %s\ncommand: 'head -n 1 "
	    "/etc/os-release; echo \"pwd=$PWD\"'\ngpus: 1\ncpus: 1\n"
	    "time: 5m\n", unique, it_env("SDTB_IMAGE"));
	ck_assert_int_eq(it_sd(NULL, &out, NULL, NULL, "preflight", NULL), 0);
	ck_assert_msg(strstr(out, "container mode: none (configured") != NULL,
	    "%s", out);
	free(out);
	ck_assert_msg(it_sd(&j, &out, &err, NULL, "submit", spec, "--json",
	    NULL) == 0, "%s\n%s", out, err);
	/* One line says so. */
	ck_assert_msg(strstr(err, "container mode none ('container: none' in "
	    "clusters.yaml: the command runs directly on the nodes, not in "
	    "the image)") != NULL, "%s", err);
	ck_assert_str_eq(jstr(j, "container_mode"), "none");
	state = wait_end(jstr(j, "job_id"));
	log = main_out(j);
	ck_assert_msg(strcmp(state, "COMPLETED") == 0, "%s: %s", state, log);
	/* The node's own system, not the image. */
	ck_assert_msg(strstr(log, "sdtb-tools") == NULL, "%s", log);
	ck_assert_msg(strstr(log, "Debian") != NULL, "%s", log);
	cJSON_Delete(j);
	free(state);
	free(log);
	free(out);
	free(err);
	free(spec);
}
END_TEST

static int
str_in_list(const char *list, const char *name)
{
	size_t	n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)) != NULL; p += n) {
		if ((p == list || p[-1] == ',') && (p[n] == '\0' ||
		    p[n] == ','))
			return 1;
	}
	return 0;
}

struct cx_test {
	const char	*name;
	const TTest	*test;
	int		 tcase;	/* 0 pyxis, 1 none (container: none), 2 qos */
};

static Suite *
containers_suite(void)
{
	static const struct cx_test tests[] = {
		{ "preflight_pyxis", NULL, 0 },
		{ "registry_image", NULL, 0 },
		{ "creds", NULL, 0 },
		{ "creds_tty", NULL, 0 },
		{ "failures", NULL, 0 },
		{ "bad_sqsh", NULL, 0 },
		{ "secret_in_container", NULL, 0 },
		{ "multinode", NULL, 0 },
		{ "latest_force", NULL, 0 },
		{ "container_none", NULL, 1 },
		{ "qos_memory", NULL, 2 },
	};
	const TTest *ts[] = { test_preflight_pyxis, test_registry_image,
	    test_creds, test_creds_tty, test_failures, test_bad_sqsh,
	    test_secret_in_container, test_multinode, test_latest_force,
	    test_container_none, test_qos_memory };
	Suite		*s = suite_create("containers");
	TCase		*tc[3];
	const char	*mode = getenv("SDTB_CONTAINERS");
	const char	*why = getenv("SDTB_CONTAINERS_WHY");
	const char	*only = getenv("SQDECK_CX_ONLY");
	size_t		 i;

	tc[0] = it_tcase(s, "pyxis", 600, setup, teardown);
	tc[1] = it_tcase(s, "none", 300, setup_none, teardown);
	/* Its QOS and partition are removed in the runner, pass or fail. */
	tc[2] = it_tcase(s, "qos", 600, setup, teardown);
	tcase_add_unchecked_fixture(tc[2], qos_setup, qos_teardown);
	for (i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		if (mode == NULL || strcmp(mode, "pyxis") != 0) {
			/* One line per test; not run, not counted. */
			printf("skipped: containers/%s: %s\n", tests[i].name,
			    mode == NULL ? "SDTB_CONTAINERS is not set "
			    "(source $SDTB_DIR/env.sh from tests/cluster/up)" :
			    why != NULL ? why : "no containers in the cluster");
			continue;
		}
		/* SQDECK_CX_ONLY=name,name: a developer's quick run. */
		if (only != NULL && !str_in_list(only, tests[i].name))
			continue;
		tcase_add_test(tc[tests[i].tcase], ts[i]);
		qos_registered |= tests[i].tcase == 2;
	}
	fflush(stdout);
	return s;
}

TEST_MAIN(containers_suite)
