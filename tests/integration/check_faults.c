/*
 * Fault injection at every step of submit, against the real local cluster
 * (tests/cluster/up; source $SDTB_DIR/env.sh first).
 *
 * Each case runs the real binary ($SQDECK_BIN) with SQDECK_TEST_FAULT
 * (see src/submit/submit.h): the SSH connection cut before or after the remote
 * command of each step (the login node's sshd of that session is killed:
 * a real drop), sqdeck SIGKILLed before or after each step, and the
 * cluster's sshd restarted while a submit is stopped half way.  A warm
 * submit is one round trip: check, stage and launch are its parts, each
 * cut is made inside the one script (check: before it, or after the gate;
 * stage: after the gate, or after staging; launch: after staging, or
 * after it all), and their kills are before it is sent or once its reply
 * is back.  A job's cleanup job (NAME-wipe) is not one of its jobs.  After the
 * faulted run, with the real SLURM and the real record files:
 *
 *	- at most one SLURM job carries the case's job names, one per name;
 *	- every record file parses;
 *	- a record with a SLURM id names a job that exists under its name; a
 *	  live record without one, or an existing job no record references,
 *	  is only allowed while the record is marked for the next submit
 *	  (its lock file left by an interrupted submit);
 *	- no secrets sidecar is left for a record that has no job, unless it
 *	  is so marked.
 *
 * Then, as a user would, the submit is run again while it does not
 * report success (some cases fault the re-run too), and:
 *
 *	- exactly one job exists for the case, referenced by exactly one
 *	  record; every other record is ERROR without a job; no lock file
 *	  (nothing unresolved) and no sidecar of a job-less record is left;
 *	- that job COMPLETES, and 'sqdeck status' turns its record COMPLETE.
 *
 * Cases run concurrently (each in its own HOME and state dir), so the whole
 * suite takes about a minute.  Jobs are trivial ('true' on the cpu
 * partition); any job of ours still queued at the end is cancelled by id.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>

#include "itutil.h"
#include "record.h"
#include "submit.h"
#include "util.h"

#define PARALLEL	6	/* sshd's MaxStartups starts dropping at 10 */
#define MAX_RUNS	3

/* --- cases --------------------------------------------------------------- */

struct fcase {
	const char	*fault[MAX_RUNS];	/* per run; NULL: none */
	int		 own_image;	/* converts its own image */
	const char	*restart;	/* stop point: sshd restarted there */
	int		 long_only;	/* only with SQDECK_CHECK_LONG=1 */

	char		 dir[4200];	/* HOME, state, config, spec */
	char		 prefix[128];	/* spec name; job names "prefix-..." */
	char		*spec;
	int		 runs;
	int		 rc[MAX_RUNS];	/* exit status, 128+signal if killed */
	pid_t		 pid;
	char		*job;		/* the one job at the end */
};

static struct fcase cases[] = {
	{ .fault = { NULL } },			/* baseline; converts first */
	{ .fault = { "cut-before:preflight" } },
	{ .fault = { "cut-after:preflight" }, .long_only = 1 },
	{ .fault = { "kill-before:preflight" }, .long_only = 1 },
	{ .fault = { "kill-after:preflight" } },
	{ .fault = { "cut-before:check" }, .long_only = 1 },
	{ .fault = { "cut-after:check" } },
	{ .fault = { "kill-before:check" } },
	{ .fault = { "kill-after:check" }, .long_only = 1 },
	{ .fault = { "cut-before:image" }, .own_image = 1, .long_only = 1 },
	{ .fault = { "cut-after:image" }, .own_image = 1 },
	{ .fault = { "kill-before:image" }, .own_image = 1, .long_only = 1 },
	{ .fault = { "kill-after:image" }, .own_image = 1, .long_only = 1 },
	{ .fault = { "kill-before:record" }, .long_only = 1 },
	{ .fault = { "kill-after:record" } },
	{ .fault = { "kill-before:render" }, .long_only = 1 },
	{ .fault = { "kill-after:render" } },
	{ .fault = { "cut-before:stage" }, .long_only = 1 },
	{ .fault = { "cut-after:stage" } },
	{ .fault = { "kill-before:stage" }, .long_only = 1 },
	{ .fault = { "kill-after:stage" } },
	{ .fault = { "cut-before:launch" }, .long_only = 1 },
	{ .fault = { "cut-after:launch" } },
	{ .fault = { "kill-before:launch" }, .long_only = 1 },
	{ .fault = { "kill-after:launch" } },
	{ .fault = { "after-sbatch" } },
	{ .fault = { "empty-reply" } },
	/* The lookup by name after a lost reply (the job is held). */
	{ .fault = { "after-sbatch,cut-before:reconcile" }, .long_only = 1 },
	{ .fault = { "after-sbatch,cut-after:reconcile" } },
	{ .fault = { "after-sbatch,kill-before:reconcile" }, .long_only = 1 },
	{ .fault = { "after-sbatch,kill-after:reconcile" }, .long_only = 1 },
	/* The release of the job found (mkdir of its log dir + release). */
	{ .fault = { "after-sbatch,cut-before:release" }, .long_only = 1 },
	{ .fault = { "after-sbatch,cut-after:release" }, .long_only = 1 },
	{ .fault = { "after-sbatch,kill-before:release" } },
	{ .fault = { "after-sbatch,kill-after:release" }, .long_only = 1 },
	/* The removal of a failed submit's secrets file. */
	{ .fault = { "cut-before:stage,cut-before:wipe" }, .long_only = 1 },
	{ .fault = { "cut-after:stage,cut-after:wipe" }, .long_only = 1 },
	{ .fault = { "cut-after:stage,kill-before:wipe" } },
	/* The re-run itself interrupted while it finishes the first. */
	{ .fault = { "kill-after:launch", "kill-before:recover" } },
	{ .fault = { "kill-after:launch", "kill-after:recover" }, .long_only = 1 },
	{ .fault = { "kill-after:launch", "cut-before:reconcile" } },
	{ .fault = { "kill-after:launch", "kill-before:release" }, .long_only = 1 },
	{ .fault = { "kill-before:launch", "kill-after:reconcile" }, .long_only = 1 },
	{ .fault = { "kill-after:stage", "cut-before:wipe" }, .long_only = 1 },
	/* sshd restarted (our session killed, listener SIGHUP) mid-submit. */
	{ .fault = { "stop-before:check" }, .restart = "check", .long_only = 1 },
	{ .fault = { "stop-before:launch" }, .restart = "launch" },
	{ .fault = { "stop-after:stage" }, .restart = "stage", .long_only = 1 },
};
#define NCASES_ALL (sizeof cases / sizeof cases[0])

/*
 * scripts/check runs a quick set that still covers every step and every
 * kind of fault (cut, kill, stop, lost reply, a faulted re-run);
 * `make check-long` (SQDECK_CHECK_LONG=1) runs all of them.
 */
static size_t	ncases = NCASES_ALL;

static void
cases_select(void)
{
	const char	*all = getenv("SQDECK_CHECK_LONG");
	size_t		 i;

	if (all != NULL && strcmp(all, "1") == 0)
		return;
	for (i = 0, ncases = 0; i < NCASES_ALL; i++) {
		if (!cases[i].long_only)
			cases[ncases++] = cases[i];
	}
}

static const char *
case_name(const struct fcase *c)
{
	static char	buf[256];

	snprintf(buf, sizeof buf, "[%s%s%s]", c->fault[0] != NULL ?
	    c->fault[0] : "no fault", c->fault[1] != NULL ? " then " : "",
	    c->fault[1] != NULL ? c->fault[1] : "");
	return buf;
}

#define NOHOLDER "- name: default\n  hosts: [127.0.0.1]\n  persist: no\n"

static void
case_env(const struct fcase *c)
{
	char	path[4300];

	snprintf(path, sizeof path, "%s/home", c->dir);
	setenv("HOME", path, 1);
	snprintf(path, sizeof path, "%s/state", c->dir);
	setenv("XDG_STATE_HOME", path, 1);
	snprintf(path, sizeof path, "%s/config", c->dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	/*
	 * The cases kill or stop the sshd of sqdeck's own connection: no
	 * shared login (the holder would own that connection).  The SLURM_*
	 * variables fill in the rest of this cluster.
	 */
	snprintf(path, sizeof path, "%s/config/sqdeck", c->dir);
	ck_assert_int_eq(mkdir_p(path, 0700, NULL), 0);
	snprintf(path, sizeof path, "%s/config/sqdeck/clusters.yaml", c->dir);
	ck_assert_int_eq(file_write_atomic(path, NOHOLDER,
	    strlen(NOHOLDER), 0600, NULL), 0);
}

/* Tag the test registry's image again as ref (tests/cluster/push-image). */
static void
tag_image(const char *ref)
{
	char	*cmd;
	int	 rc;

	cmd = xasprintf("'%s/tests/cluster/push-image' --copy-of "
	    "sdtb/tools:1 '%s'", TOP_SRCDIR, ref);
	rc = system(cmd);
	ck_assert_msg(rc == 0, "%s failed", cmd);
	free(cmd);
}

static void
case_init(struct fcase *c, size_t i)
{
	char	path[4300], *text;

	snprintf(c->dir, sizeof c->dir, "%s/c%zu", tmpdir, i);
	mkdir(c->dir, 0700);
	snprintf(path, sizeof path, "%s/home", c->dir);
	mkdir(path, 0700);
	snprintf(c->prefix, sizeof c->prefix, "sdf%s-%zu", unique, i);
	/* A secret, so that every case has a sidecar to account for. */
	/*
	 * The registry image under a tag of this run (own_image: of this
	 * case), so that the image step really converts.
	 */
	text = xasprintf("sdtb/tools:faults-%s%s", unique,
	    c->own_image ? c->prefix : "");
	tag_image(text);
	free(text);
	text = xasprintf("name: %s\n"
	    "image: %s#sdtb/tools:faults-%s%s\n"
	    "command: 'test -n \"$HF_TOKEN\"'\n"
	    "partition: cpu\ngpus: 0\ncpus: 1\ntime: 2m\n"
	    "secrets: [HF_TOKEN]\n", c->prefix, getenv("SDTB_REGISTRY"),
	    unique, c->own_image ? c->prefix : "");
	c->spec = xasprintf("%s/spec.yaml", c->dir);
	ck_assert_int_eq(file_write_atomic(c->spec, text, strlen(text), 0644,
	    NULL), 0);
	free(text);
}

/* Start run number c->runs of the case's submit. */
static void
case_spawn(struct fcase *c)
{
	char		 of[4300];
	const char	*fault = c->fault[c->runs];
	pid_t		 pid;
	int		 fd;

	snprintf(of, sizeof of, "%s/run%d.out", c->dir, c->runs);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		case_env(c);
		if (fault != NULL)
			setenv("SQDECK_TEST_FAULT", fault, 1);
		else
			unsetenv("SQDECK_TEST_FAULT");
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		fd = open(of, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(getenv("SQDECK_BIN"), "sqdeck", "submit", c->spec,
		    (char *)NULL);
		_exit(127);
	}
	c->pid = pid;
}

static int
exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* Run number `run` of every case that needs it, PARALLEL at a time. */
static void
run_all(int run)
{
	size_t	 i, next = 0, active = 0;
	pid_t	 pid;
	int	 status;

	for (;;) {
		while (active < PARALLEL && next < ncases) {
			struct fcase *c = &cases[next++];

			/* A run that reported success is not repeated. */
			if (c->restart != NULL || c->runs != run ||
			    (run > 0 && c->rc[run - 1] == 0))
				continue;
			case_spawn(c);
			active++;
		}
		if (active == 0)
			break;
		pid = waitpid(-1, &status, 0);
		ck_assert_int_gt(pid, 0);
		for (i = 0; i < ncases; i++) {
			if (cases[i].pid == pid) {
				cases[i].rc[cases[i].runs++] =
				    exit_code(status);
				cases[i].pid = 0;
				active--;
			}
		}
	}
}

/* --- what SLURM and the files say ---------------------------------------- */

struct sjob {
	char	*id;
	char	*name;
	char	*state;
};
static struct sjob	*sjobs;
static size_t		 nsjobs;
static struct strv	 sidecars;	/* existing job_*.env of our job dirs */
static char		*results_root;

static void
cluster_snapshot(void)
{
	char	*out, *line, *next, *f[3];
	size_t	 i, k;

	for (i = 0; i < nsjobs; i++) {
		free(sjobs[i].id);
		free(sjobs[i].name);
		free(sjobs[i].state);
	}
	free(sjobs);
	sjobs = NULL;
	nsjobs = 0;
	strv_free(&sidecars);
	memset(&sidecars, 0, sizeof sidecars);
	/* squeue knows the held and the just-finished; sacct the rest. */
	out = ssh_out("squeue --me -h -t all -o '%%i|%%j|%%T'; echo ==; "
	    "sacct -X -n -P -o JobIDRaw,JobName,State -S now-30minutes | "
	    "grep '|sdf%s'; echo ==; ls -1 %s/sdf%s-*/job_*.env "
	    "2>/dev/null; true", unique, results_root, unique);
	k = 0;
	for (line = out; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strcmp(line, "==") == 0) {
			k++;
			continue;
		}
		if (k == 2) {
			if (*line != '\0')
				strv_add(&sidecars, line);
			continue;
		}
		f[0] = line;
		if ((f[1] = strchr(f[0], '|')) == NULL ||
		    (f[2] = strchr(++f[1], '|')) == NULL)
			continue;
		f[1][-1] = '\0';
		*f[2]++ = '\0';
		if (!str_has_prefix(f[1], "sdf") || strstr(f[1], unique) ==
		    NULL || str_has_suffix(f[1], "-import") ||
		    str_has_suffix(f[1], "-wipe"))
			continue;
		for (i = 0; i < nsjobs; i++) {
			if (strcmp(sjobs[i].id, f[0]) == 0)
				break;
		}
		if (i < nsjobs)
			continue;	/* squeue first: it is fresher */
		sjobs = xrealloc(sjobs, (nsjobs + 1) * sizeof *sjobs);
		sjobs[nsjobs].id = xstrdup(f[0]);
		sjobs[nsjobs].name = xstrdup(f[1]);
		sjobs[nsjobs].state = xstrdup(f[2]);
		nsjobs++;
	}
	free(out);
}

static int
name_is_case(const char *name, const struct fcase *c)
{
	size_t	n = strlen(c->prefix);

	return strncmp(name, c->prefix, n) == 0 && name[n] == '-';
}

static int
has_sidecar(const struct record *r)
{
	char	*path;
	size_t	 i;
	int	 found = 0;

	if (r->job_dir == NULL)
		return 0;
	path = xasprintf("%s/job_%s.env", r->job_dir, r->id);
	for (i = 0; i < sidecars.n; i++) {
		if (strcmp(sidecars.v[i], path) == 0)
			found = 1;
	}
	free(path);
	return found;
}

/* An interrupted submit left this record for the next one. */
static int
marked(const struct record *r)
{
	char	*dir = record_dir(), *path;
	int	 fd, free_lock = 0;

	path = xasprintf("%s/.submit-%s.lock", dir, r->id);
	if ((fd = open(path, O_RDWR)) >= 0) {
		/* Every run has ended: nobody may hold it. */
		free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
		close(fd);
		ck_assert_msg(free_lock, "%s is still locked", path);
	}
	free(path);
	free(dir);
	return free_lock;
}

static void
load_records(const struct fcase *c, struct record_list *list)
{
	char	*why = NULL;

	case_env(c);
	ck_assert_msg(record_list(list, &why) == 0, "%s %s", case_name(c),
	    why);
	ck_assert_msg(list->corrupt.n == 0, "%s: a record does not parse: %s",
	    case_name(c), list->corrupt.v[0]);
}

/* The properties that must hold after any run, faulted or not. */
static void
check_consistent(const struct fcase *c, const char *when)
{
	struct record_list	 list;
	const struct record	*r;
	const char		*sid;
	size_t			 i, j, njobs = 0, refs;

	load_records(c, &list);
	for (j = 0; j < nsjobs; j++) {
		if (!name_is_case(sjobs[j].name, c))
			continue;
		njobs++;
		/* Exactly one record owns the job's name... */
		refs = 0;
		for (i = 0; i < list.n; i++) {
			r = list.v[i];
			if (r->job_name == NULL ||
			    strcmp(r->job_name, sjobs[j].name) != 0)
				continue;
			refs++;
			sid = record_slurm_id(r);
			/* ...and names the job, or is left for a re-run. */
			ck_assert_msg((sid != NULL && strcmp(sid,
			    sjobs[j].id) == 0) || (sid == NULL && marked(r)),
			    "%s %s: job %s (%s) exists but record %s says "
			    "%s, SLURM id %s", case_name(c), when, sjobs[j].id,
			    sjobs[j].name, r->id, state_name(r->state),
			    sid != NULL ? sid : "none");
		}
		ck_assert_msg(refs == 1, "%s %s: job %s (%s) is named by %zu "
		    "records", case_name(c), when, sjobs[j].id, sjobs[j].name,
		    refs);
	}
	ck_assert_msg(njobs <= 1, "%s %s: %zu jobs were queued",
	    case_name(c), when, njobs);

	for (i = 0; i < list.n; i++) {
		r = list.v[i];
		sid = record_slurm_id(r);
		for (j = 0; j < nsjobs; j++) {
			if (r->job_name != NULL &&
			    strcmp(sjobs[j].name, r->job_name) == 0)
				break;
		}
		if (sid != NULL) {
			/* No record claims a job that does not exist. */
			ck_assert_msg(j < nsjobs && strcmp(sjobs[j].id, sid) ==
			    0, "%s %s: record %s claims SLURM job %s, which "
			    "does not exist under %s", case_name(c), when,
			    r->id, sid, r->job_name);
			continue;
		}
		if (marked(r))
			continue;
		/* Not left for a re-run: it must say it failed, no job. */
		ck_assert_msg(r->state == RSTATE_ERROR, "%s %s: record %s is "
		    "%s without a SLURM id and nothing will finish it",
		    case_name(c), when, r->id, state_name(r->state));
		ck_assert_msg(j == nsjobs, "%s %s: record %s says ERROR but "
		    "job %s exists", case_name(c), when, r->id,
		    j < nsjobs ? sjobs[j].id : "");
		ck_assert_msg(!has_sidecar(r), "%s %s: the secrets file of "
		    "record %s (no job) was left behind", case_name(c), when,
		    r->id);
	}
	record_list_free(&list);
}

/* After the re-runs: one job, one record on it, nothing left over. */
static void
check_converged(struct fcase *c)
{
	struct record_list	 list;
	const struct record	*r;
	size_t			 i, j, owners = 0;

	check_consistent(c, "after the re-run");
	for (j = 0; j < nsjobs; j++) {
		if (name_is_case(sjobs[j].name, c))
			break;
	}
	ck_assert_msg(j < nsjobs, "%s: no job after %d runs (exit %d, %d, "
	    "%d)", case_name(c), c->runs, c->rc[0], c->rc[1], c->rc[2]);
	c->job = xstrdup(sjobs[j].id);
	load_records(c, &list);
	for (i = 0; i < list.n; i++) {
		r = list.v[i];
		ck_assert_msg(!marked(r), "%s: record %s is still unresolved",
		    case_name(c), r->id);
		if (record_slurm_id(r) != NULL) {
			owners++;
			ck_assert_str_eq(record_slurm_id(r), c->job);
		}
	}
	ck_assert_msg(owners == 1, "%s: %zu records own job %s",
	    case_name(c), owners, c->job);
	record_list_free(&list);
}

/* --- sshd restart -------------------------------------------------------- */

/*
 * Kill the login node's sshd processes serving pid's connection (found by
 * its local port with ss), then SIGHUP the listener (sshd re-executes
 * itself) and wait until it accepts again.
 */
static void
restart_sshd(pid_t pid)
{
	char	*cmd, *out, pidfile[4200];
	int	 rc;

	cmd = xasprintf("set -e; p=$(ss -tnpH state established "
	    "'( dport = :%s )' | grep 'pid=%ld,' | awk '{print $3}' | "
	    "sed 's/.*://' | head -1); [ -n \"$p\" ]; "
	    "for s in $(ss -tnpH state established '( sport = :%s and dport = "
	    ":'\"$p\"' )' | grep -o 'pid=[0-9]*' | cut -d= -f2); do "
	    "kill -9 \"$s\"; done", getenv("SLURM_PORT"), (long)pid,
	    getenv("SLURM_PORT"));
	rc = system(cmd);
	free(cmd);
	ck_assert_msg(rc == 0, "could not find and kill the sshd of pid %ld",
	    (long)pid);
	snprintf(pidfile, sizeof pidfile, "%s/run/sshd.pid",
	    getenv("SDTB_DIR") != NULL ? getenv("SDTB_DIR") : "/tmp/sdtb");
	cmd = xasprintf("kill -HUP \"$(cat '%s')\"", pidfile);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	for (rc = 0; rc < 50; rc++) {
		usleep(200000);
		out = ssh_out("echo up");
		if (strstr(out, "up") != NULL) {
			free(out);
			return;
		}
		free(out);
	}
	ck_abort_msg("sshd did not come back after SIGHUP");
}

static void
run_restart(struct fcase *c)
{
	int	status;

	case_spawn(c);
	ck_assert_int_eq(waitpid(c->pid, &status, WUNTRACED), c->pid);
	ck_assert_msg(WIFSTOPPED(status), "%s: sqdeck did not stop at %s "
	    "(exit %d)", case_name(c), c->fault[0], exit_code(status));
	restart_sshd(c->pid);
	kill(c->pid, SIGCONT);
	ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
	c->rc[c->runs++] = exit_code(status);
	c->pid = 0;
	while (c->rc[c->runs - 1] != 0 && c->runs < MAX_RUNS) {
		case_spawn(c);
		ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
		c->rc[c->runs++] = exit_code(status);
	}
}

/* --- tests ---------------------------------------------------------------- */

static void
need_cluster(void)
{
	static const char *const more[] = { "SLURM_BASE_RESULTS_DIR", NULL };

	it_need_cluster(more);
	/* Every job runs in the registry image: Enroot needs the creds. */
	it_registry_creds(tmpdir);
}

/* In the runner process, before the test's fork: teardown knows unique. */
static void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s", test_tmpdir());
	unsetenv("SQDECK_TEST_FAULT");
	unsetenv("SQDECK_CLUSTER");
	unsetenv("NGC_KEY");
	snprintf(unique, sizeof unique, "%ld%04x", (long)time(NULL) % 100000,
	    (unsigned)getpid() & 0xffff);
}

/* Pass or fail: nothing of ours stays queued, our job dirs go. */
static void
teardown(void)
{
	char	*out;

	if (getenv("SLURM_BASE_RESULTS_DIR") == NULL ||
	    getenv("SLURM_HOSTNAME") == NULL)
		return;
	out = ssh_out("squeue --me -h -o '%%i %%j' | awk '$2 ~ /^sdf%s-/ "
	    "{print $1}' | xargs -r scancel; cd '%s' && rm -rf sdf%s-* "
	    ".sqsh/*+sdtb+tools+faults-%s* "
	    ".sqsh/.*+sdtb+tools+faults-%s*", unique,
	    getenv("SLURM_BASE_RESULTS_DIR"), unique, unique, unique);
	free(out);
}

START_TEST(test_matrix)
{
	struct fcase	*c;
	struct buf	 ids;
	char		*out, *line, *next;
	size_t		 i, left;
	int		 run, tries;
	time_t		 t0 = time(NULL);

	need_cluster();
	results_root = xstrdup(getenv("SLURM_BASE_RESULTS_DIR"));
	setenv("HF_TOKEN", "hf_FaultsCanary0123456789abcdef", 1);
	cases_select();
	for (i = 0; i < ncases; i++)
		case_init(&cases[i], i);

	/* The baseline converts the shared image; the others reuse it. */
	case_spawn(&cases[0]);
	ck_assert_int_eq(waitpid(cases[0].pid, &tries, 0), cases[0].pid);
	cases[0].rc[cases[0].runs++] = exit_code(tries);
	ck_assert_msg(cases[0].rc[0] == 0, "the baseline submit failed "
	    "(see %s/run0.out)", cases[0].dir);

	/* 1. Every faulted submit, then what it left. */
	run_all(0);
	for (i = 0; i < ncases; i++) {
		if (cases[i].restart != NULL)
			run_restart(&cases[i]);
	}
	fprintf(stderr, "faults: %zu cases run once in %ld s\n", ncases,
	    (long)(time(NULL) - t0));
	cluster_snapshot();
	for (i = 0; i < ncases; i++)
		check_consistent(&cases[i], "after the fault");

	/* 2. Submit again (faulted re-runs included) until it succeeds. */
	for (run = 1; run < MAX_RUNS; run++)
		run_all(run);
	for (i = 0; i < ncases; i++) {
		c = &cases[i];
		ck_assert_msg(c->rc[c->runs - 1] == 0, "%s: the last of %d "
		    "submits failed with %d (see %s/run%d.out)", case_name(c),
		    c->runs, c->rc[c->runs - 1], c->dir, c->runs - 1);
	}
	cluster_snapshot();
	for (i = 0; i < ncases; i++)
		check_converged(&cases[i]);
	/* Failing runs exit non-zero anyway: look for sanitizer reports. */
	for (i = 0; i < ncases; i++) {
		for (run = 0; run < cases[i].runs; run++) {
			char	path[4300], *text = NULL;

			snprintf(path, sizeof path, "%s/run%d.out",
			    cases[i].dir, run);
			ck_assert_int_eq(file_read(path, &text, NULL, NULL), 0);
			ck_assert_msg(strstr(text, "Sanitizer") == NULL &&
			    strstr(text, "runtime error") == NULL, "%s run %d: "
			    "%s", case_name(&cases[i]), run, text);
			free(text);
		}
	}

	/* 3. Each case's one job completes. */
	buf_init(&ids);
	for (i = 0; i < ncases; i++)
		buf_printf(&ids, "%s%s", i ? "," : "", cases[i].job);
	for (tries = 0; tries < 90; tries++) {
		out = ssh_out("sacct -X -n -P -o JobIDRaw,State -j %s", ids.data);
		left = 0;
		for (line = out; line != NULL; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			if (*line != '\0' && strstr(line, "|COMPLETED") == NULL)
				left++;
			if (strstr(line, "|FAILED") != NULL ||
			    strstr(line, "|CANCELLED") != NULL)
				ck_abort_msg("job %s", line);
		}
		free(out);
		if (left == 0)
			break;
		sleep(1);
	}
	ck_assert_msg(left == 0, "%zu jobs did not complete in 90 s", left);

	/* 4. status follows each record to COMPLETE; nothing left behind. */
	for (i = 0; i < ncases; i++) {
		struct record	*r = NULL;
		struct record_list list;
		char		*cmd, *why = NULL;
		size_t		 k;

		c = &cases[i];
		case_env(c);
		cmd = xasprintf("'%s' status >/dev/null 2>&1",
		    getenv("SQDECK_BIN"));
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
		load_records(c, &list);
		for (k = 0; k < list.n; k++) {
			if (record_slurm_id(list.v[k]) != NULL)
				ck_assert_int_eq(record_load(list.v[k]->id, &r,
				    &why), 0);
		}
		ck_assert_ptr_nonnull(r);
		ck_assert_msg(r->state == RSTATE_COMPLETE, "%s: record %s is "
		    "%s after its job completed", case_name(c), r->id,
		    state_name(r->state));
		record_free(r);
		record_list_free(&list);
	}
	cluster_snapshot();
	ck_assert_msg(sidecars.n == 0, "a secrets file was left: %s",
	    sidecars.v[0]);
	fprintf(stderr, "faults: %zu cases, %d runs at most, done in %ld s\n",
	    ncases, MAX_RUNS, (long)(time(NULL) - t0));
	buf_free(&ids);
}
END_TEST

/*
 * status alone (no second submit) finishes a submit that was killed right
 * after sbatch: the held job is adopted, released and runs to COMPLETE.
 */
START_TEST(test_status_recovers)
{
	static struct fcase	 c = { .fault = { "kill-after:launch" } };
	struct record_list	 list;
	const struct record	*r = NULL;
	char			*cmd, *out;
	int			 st, tries;

	need_cluster();
	setenv("HF_TOKEN", "hf_FaultsCanary0123456789abcdef", 1);
	case_init(&c, 99);
	case_spawn(&c);
	ck_assert_int_eq(waitpid(c.pid, &st, 0), c.pid);
	ck_assert_msg(exit_code(st) == 128 + SIGKILL, "submit was not killed: "
	    "%d", exit_code(st));

	/* The killed submit left its record without a SLURM id. */
	load_records(&c, &list);
	ck_assert_uint_eq(list.n, 1);
	ck_assert_ptr_null(record_slurm_id(list.v[0]));
	record_list_free(&list);

	case_env(&c);
	cmd = xasprintf("'%s' status >'%s/status.out' 2>&1",
	    getenv("SQDECK_BIN"), c.dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	load_records(&c, &list);
	ck_assert_uint_eq(list.n, 1);
	r = list.v[0];
	ck_assert_msg(record_slurm_id(r) != NULL, "status did not adopt the "
	    "job of the killed submit (see %s/status.out)", c.dir);
	c.job = xstrdup(record_slurm_id(r));

	/* Exactly one job by that name, and it is the record's. */
	out = ssh_out("squeue -h -t all -n %s -o %%i", r->job_name);
	ck_assert_msg(strncmp(out, c.job, strlen(c.job)) == 0 &&
	    strspn(out, "0123456789") == strlen(c.job) &&
	    strchr(out, '\n') == strrchr(out, '\n'), "more than one job "
	    "named %s: %s", r->job_name, out);
	free(out);
	record_list_free(&list);

	/* Released, so it runs; the secrets file was still there for it. */
	for (tries = 0; tries < 60; tries++) {
		cmd = xasprintf("'%s' status >/dev/null 2>&1",
		    getenv("SQDECK_BIN"));
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
		load_records(&c, &list);
		st = list.v[0]->state;
		record_list_free(&list);
		if (st == RSTATE_COMPLETE || st == RSTATE_ERROR)
			break;
		sleep(1);
	}
	ck_assert_msg(st == RSTATE_COMPLETE, "the adopted job ended %s",
	    state_name(st));
	free(c.job);
	free(c.spec);
}
END_TEST

static Suite *
faults_suite(void)
{
	Suite	*s = suite_create("faults");
	TCase	*tc;

	tc = tcase_create("cluster");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	/* Real conversions and containers: minutes more than bare nodes. */
	tcase_set_timeout(tc, 900);
	it_add_job_test(tc, test_matrix);
	it_add_job_test(tc, test_status_recovers);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(faults_suite)
