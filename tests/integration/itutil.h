#ifndef ITUTIL_H
#define ITUTIL_H

/*
 * Shared by the integration suites: the cluster's env, and commands run
 * with the real OpenSSH client (not our conn.c) to check what the product
 * did.  dir is the suite's private temp dir, for the captured output.
 */

#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>

#include "testutil.h"
#include "util.h"

/* Fail, never skip, when the env of $SDTB_DIR/env.sh is missing. */
static inline void
it_need_env(const char *const *vars)
{
	const char *const	*v;

	for (v = vars; *v != NULL; v++)
		ck_assert_msg(getenv(*v) != NULL, "%s is not set: source "
		    "$SDTB_DIR/env.sh (tests/cluster/up) first", *v);
}

/*
 * Run argv with stdin from in (may be NULL), stdout and stderr captured.
 * No shell: canary values passed in the environment never reach an argv.
 */
static inline int
it_run(const char *dir, char *const argv[], const char *in, char **out,
    char **err)
{
	char	 of[4200], ef[4200], inf[4200];
	pid_t	 pid;
	int	 status, fd;

	snprintf(of, sizeof of, "%s/run.out", dir);
	snprintf(ef, sizeof ef, "%s/run.err", dir);
	snprintf(inf, sizeof inf, "%s/run.in", dir);
	if (in != NULL) {
		fd = open(inf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, in, strlen(in)), (ssize_t)strlen(in));
		close(fd);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(in != NULL ? inf : "/dev/null", O_RDONLY);
		dup2(fd, 0);
		fd = open(of, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		fd = open(ef, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (out != NULL)
		ck_assert_int_eq(file_read(of, out, NULL, NULL), 0);
	if (err != NULL)
		ck_assert_int_eq(file_read(ef, err, NULL, NULL), 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A command on the cluster through OpenSSH; returns its exit status. */
static inline int
it_ssh_run(const char *dir, const char *cmd, const char *in, char **out)
{
	char	 port[32], kh[4200], target[512];
	char	*argv[] = { "ssh", "-F", "/dev/null", "-p", port, "-i",
		    getenv("SSH_KEY_PATH"), "-o", "BatchMode=yes", "-o",
		    "StrictHostKeyChecking=yes", "-o", kh, "-o",
		    "GlobalKnownHostsFile=/dev/null", target, (char *)cmd,
		    NULL };

	snprintf(port, sizeof port, "%s", getenv("SLURM_PORT"));
	snprintf(kh, sizeof kh, "UserKnownHostsFile=%s",
	    getenv("SSH_KNOWN_HOSTS"));
	snprintf(target, sizeof target, "%s@%s", getenv("SLURM_USER"),
	    getenv("SLURM_HOSTNAME"));
	return it_run(dir, argv, in, out, NULL);
}

/* The stdout of a command on the cluster (printf-style). */
static inline char *
it_ssh_out(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline char *
it_ssh_out(const char *dir, const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd, *out = NULL;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	it_ssh_run(dir, cmd, NULL, &out);
	free(cmd);
	return out;
}

/*
 * Register a test that runs a job (in the registry image).  On a cluster
 * that came up without containers (SDTB_CONTAINERS=absent: no vendor
 * archives) it is not registered: one "skipped:" line says so and why,
 * and it is not counted.  An env that was never sourced still fails.
 */
#define it_add_job_test(tc, t)	it_add_job_test_named((tc), (t), #t)

static inline void
it_add_job_test_named(TCase *tc, const TTest *t, const char *name)
{
	const char	*m = getenv("SDTB_CONTAINERS");
	const char	*why = getenv("SDTB_CONTAINERS_WHY");

	if (m != NULL && strcmp(m, "absent") == 0) {
		printf("skipped: %s: the cluster has no containers (%s)\n",
		    name, why != NULL ? why : "no reason given");
		fflush(stdout);
		return;
	}
	tcase_add_test(tc, t);
}

/*
 * The registry image of tests/cluster/containers ($SDTB_IMAGE): every
 * suite that runs a job runs it in this image through the real
 * conversion.  Fails, never skips, when the cluster has no containers.
 */
static inline const char *
it_image(void)
{
	const char	*v = getenv("SDTB_IMAGE");

	ck_assert_msg(v != NULL && *v != '\0', "SDTB_IMAGE is not set: the "
	    "cluster has no containers (%s); source $SDTB_DIR/env.sh from "
	    "tests/cluster/up with the vendor archives",
	    getenv("SDTB_CONTAINERS_WHY") != NULL ?
	    getenv("SDTB_CONTAINERS_WHY") : "SDTB_CONTAINERS not set");
	return v;
}

/*
 * Enroot's credentials for the test registry, installed with the real
 * 'sqdeck creds install' (the password from its file, through the
 * environment, never argv).  Other machines' lines are kept.
 */
static inline void
it_registry_creds(const char *dir)
{
	char		*pw = NULL, *out = NULL, *err = NULL;
	char *const	 argv[] = { (char *)getenv("SQDECK_BIN"), "creds",
			    "install", "--registry",
			    (char *)getenv("SDTB_REGISTRY"), "--login",
			    (char *)getenv("SDTB_REGISTRY_USER"), NULL };

	it_image();
	ck_assert_msg(getenv("SQDECK_BIN") != NULL, "SQDECK_BIN is not set");
	ck_assert_int_eq(file_read(getenv("SDTB_REGISTRY_PASSWORD_FILE"), &pw,
	    NULL, NULL), 0);
	str_trim(pw);
	setenv("SQDECK_REGISTRY_PASSWORD", pw, 1);
	ck_assert_msg(it_run(dir, argv, NULL, &out, &err) == 0,
	    "creds install: %s%s", out, err);
	unsetenv("SQDECK_REGISTRY_PASSWORD");
	free(pw);
	free(out);
	free(err);
}

#endif
