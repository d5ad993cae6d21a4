/*
 * The SSH layer and preflight against the real local cluster
 * (tests/cluster/up; its env, $SDTB_DIR/env.sh, must be in the
 * environment).  The "preflight-parse" case needs no cluster: it runs the
 * parser and the verdict on output captured from it (tests/data/).
 *
 * Nothing here touches the real ~/.ssh: each test that connects sets HOME
 * to a private temporary directory (Check forks per test).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "it-lib.h"

#include "conn.h"
#include "preflight.h"

static char	tmp[4096];

/* Private HOME (no ~/.ssh of the user), no agent: BatchMode, key only. */
static void
setup(void)
{
	snprintf(tmp, sizeof tmp, "%s", test_tmpdir());
	setenv("HOME", tmp, 1);
	unsetenv("SSH_AUTH_SOCK");
	unsetenv("SQDECK_CLUSTER");
}

static void
teardown(void)
{
	char	cmd[4200];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static char *
tmpfile_path(const char *name)
{
	return xasprintf("%s/%s", tmp, name);
}

static struct conn *
cluster_conn(const char *const *hosts, size_t nhosts, const char *key,
    const char *known_hosts, int command_timeout)
{
	static const char	*one[1];
	struct conn_opts	 o;

	memset(&o, 0, sizeof o);
	if (hosts == NULL) {
		one[0] = it_env("SLURM_HOSTNAME");
		hosts = one;
		nhosts = 1;
	}
	o.hosts = hosts;
	o.nhosts = nhosts;
	o.user = it_env("SLURM_USER");
	o.port = atoi(it_env("SLURM_PORT"));
	o.key_path = key != NULL ? key : it_env("SSH_KEY_PATH");
	o.known_hosts = known_hosts != NULL ? known_hosts :
	    it_env("SSH_KNOWN_HOSTS");
	o.ssh_config = "";
	o.connect_timeout = 5;
	o.command_timeout = command_timeout;
	return conn_new(&o);
}

static void
exec_ok(struct conn *c, const char *cmd, struct conn_result *r)
{
	char	*cause = NULL;

	if (conn_exec(c, cmd, NULL, 0, r, &cause) != 0)
		ck_abort_msg("exec '%s' failed: %s", cmd, cause);
}

/* ------------------------------------------------------------ exec */

START_TEST(exec_stdout_stderr_status)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;

	exec_ok(c, "echo out; echo err >&2; id -un; exit 7", &r);
	ck_assert_str_eq(r.out, "out\nsqdeck\n");
	ck_assert_uint_eq(r.outlen, strlen(r.out));
	ck_assert_uint_eq(r.outlen, 11);
	ck_assert_str_eq(r.err, "err\n");
	ck_assert_int_eq(r.status, 7);
	conn_result_free(&r);
	exec_ok(c, "true", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, 0);
	conn_result_free(&r);
	ck_assert_str_eq(conn_host(c), it_env("SLURM_HOSTNAME"));
	conn_free(c);
}
END_TEST

START_TEST(exec_stdin_roundtrip)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;
	size_t			 n = 3 << 20, i;
	unsigned char		*p = xmalloc(n);
	char			*cause = NULL, want[32];

	/* Binary, larger than the SSH windows: exercises flow control. */
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + (i >> 9));
	ck_assert_int_eq(conn_exec(c, "cat", p, n, &r, &cause), 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, n);
	ck_assert(memcmp(r.out, p, n) == 0);
	conn_result_free(&r);

	ck_assert_int_eq(conn_exec(c, "wc -c", p, n, &r, &cause), 0);
	snprintf(want, sizeof want, "%zu\n", n);
	ck_assert_str_eq(r.out, want);
	conn_result_free(&r);

	/* A command that never reads stdin still finishes. */
	ck_assert_int_eq(conn_exec(c, "echo done", p, n, &r, &cause), 0);
	ck_assert_str_eq(r.out, "done\n");
	conn_result_free(&r);
	free(p);
	conn_free(c);
}
END_TEST

START_TEST(exec_payload_not_in_argv)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;
	char			*cause = NULL, *secret, *cmd;

	secret = xasprintf("SDTB-SECRET-%ld-%ld", (long)getpid(),
	    (long)time(NULL));
	/* While the command holds the payload, nothing's argv shows it. */
	cmd = xasprintf("v=$(cat); ps -ww -eo args | grep -c '[S]DTB-SECRET-%ld'; "
	    "printf '%%s' \"$v\"", (long)getpid());
	ck_assert_int_eq(conn_exec(c, cmd, secret, strlen(secret), &r,
	    &cause), 0);
	ck_assert_msg(strncmp(r.out, "0\n", 2) == 0, "payload seen in argv: "
	    "%s", r.out);
	ck_assert_str_eq(r.out + 2, secret);
	conn_result_free(&r);
	free(cmd);

	/* Control: the same probe does see a value that IS in an argv. */
	cmd = xasprintf("sh -c 'ps -ww -eo args | grep -c \"[S]DTB-SECRET-%ld\"' "
	    "%s", (long)getpid(), secret);
	ck_assert_int_eq(conn_exec(c, cmd, NULL, 0, &r, &cause), 0);
	ck_assert_msg(atoi(r.out) >= 1, "control probe saw nothing: %s",
	    r.out);
	conn_result_free(&r);
	free(cmd);
	free(secret);
	conn_free(c);
}
END_TEST

START_TEST(exec_timeout_bounded)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 1);
	struct conn_result	 r;
	char			*cause = NULL;
	double			 t0;

	exec_ok(c, "true", &r);		/* connect outside the timing */
	conn_result_free(&r);
	t0 = it_now();
	ck_assert_int_eq(conn_exec(c, "sleep 30", NULL, 0, &r, &cause), -1);
	ck_assert_msg(it_now() - t0 < 4, "timeout took %.1f s", it_now() - t0);
	ck_assert_ptr_nonnull(strstr(cause, "did not finish within 1 s"));
	free(cause);
	conn_result_free(&r);
	/* The session survives a timed-out command. */
	exec_ok(c, "echo alive", &r);
	ck_assert_str_eq(r.out, "alive\n");
	conn_result_free(&r);
	conn_free(c);
}
END_TEST

START_TEST(exec_output_cap)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;
	char			*cause = NULL;

	ck_assert_int_eq(conn_exec_limit(c, "yes", NULL, 0, 10, 1000, &r,
	    &cause), 0);
	ck_assert_int_eq(r.truncated, 1);
	ck_assert_uint_eq(r.outlen, 1000);
	ck_assert_uint_eq(strlen(r.out), 1000);
	ck_assert(strncmp(r.out, "y\ny\n", 4) == 0);
	conn_result_free(&r);
	ck_assert_int_eq(conn_exec_limit(c, "echo small", NULL, 0, 10, 1000,
	    &r, &cause), 0);
	ck_assert_int_eq(r.truncated, 0);
	ck_assert_str_eq(r.out, "small\n");
	conn_result_free(&r);
	conn_free(c);
}
END_TEST

/* ------------------------------------------------------------ host keys */

START_TEST(hostkey_unknown_refused)
{
	char		*kh = tmpfile_path("known_hosts"), *cause = NULL, *hint;
	char		*after = NULL;
	struct conn	*c;
	FILE		*f;

	ck_assert_ptr_nonnull(f = fopen(kh, "w"));
	fclose(f);
	c = cluster_conn(NULL, 0, NULL, kh, 0);
	ck_assert_int_eq(conn_connect(c, &cause), -1);
	ck_assert_msg(strstr(cause, "is not in") != NULL, "%s", cause);
	hint = xasprintf("ssh-keyscan -p %s %s >> %s", it_env("SLURM_PORT"),
	    it_env("SLURM_HOSTNAME"), kh);
	ck_assert_msg(strstr(cause, hint) != NULL, "no '%s' in: %s", hint,
	    cause);
	ck_assert_ptr_nonnull(strstr(cause, "SHA256:"));
	ck_assert(!conn_connected(c));
	/* Never auto-accepted: the file is still empty. */
	ck_assert_int_eq(file_read(kh, &after, NULL, NULL), 0);
	ck_assert_str_eq(after, "");
	free(after);
	free(hint);
	free(cause);
	conn_free(c);
	free(kh);
}
END_TEST

START_TEST(hostkey_changed_refused)
{
	char		*kh = tmpfile_path("known_hosts"), *cause = NULL, *hint;
	char		*cmd, *before = NULL, *after = NULL, *out = NULL;
	struct conn	*c;
	struct conn_result r;

	/* A freshly generated key that the cluster does not have. */
	cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -f %s/other && "
	    "printf '[%s]:%s %%s\\n' \"$(cut -d' ' -f1,2 %s/other.pub)\" > %s",
	    tmp, it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"), tmp, kh);
	ck_assert_int_eq(it_sh(cmd, &out), 0);
	free(out);
	free(cmd);
	ck_assert_int_eq(file_read(kh, &before, NULL, NULL), 0);
	c = cluster_conn(NULL, 0, NULL, kh, 0);
	ck_assert_int_eq(conn_exec(c, "touch should-not-run", NULL, 0, &r,
	    &cause), -1);
	conn_result_free(&r);
	ck_assert_msg(strstr(cause, "HOST KEY CHANGED") != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(cause, "man-in-the-middle"));
	hint = xasprintf("ssh-keygen -R '[%s]:%s' -f %s",
	    it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"), kh);
	ck_assert_msg(strstr(cause, hint) != NULL, "no '%s' in: %s", hint,
	    cause);
	ck_assert_ptr_nonnull(strstr(cause, "ssh-keyscan -p"));
	ck_assert_int_eq(file_read(kh, &after, NULL, NULL), 0);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(hint);
	free(cause);
	conn_free(c);
	free(kh);
}
END_TEST

/* ------------------------------------------------------------ auth */

START_TEST(auth_wrong_key_refused)
{
	char		*key = tmpfile_path("id_wrong"), *cmd, *cause = NULL;
	char		*want;
	struct conn	*c;
	double		 t0;

	cmd = xasprintf("ssh-keygen -q -t ed25519 -N '' -f %s", key);
	ck_assert_int_eq(it_sh(cmd, NULL), 0);
	free(cmd);
	c = cluster_conn(NULL, 0, key, NULL, 0);
	t0 = it_now();
	ck_assert_int_eq(conn_connect(c, &cause), -1);
	/* No prompt: a prompt would wait; this returns at once. */
	ck_assert_msg(it_now() - t0 < 5, "took %.1f s", it_now() - t0);
	want = xasprintf("login refused for %s@%s", it_env("SLURM_USER"),
	    it_env("SLURM_HOSTNAME"));
	ck_assert_msg(strstr(cause, want) != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(cause, key));
	ck_assert_ptr_nonnull(strstr(cause, "ssh-copy-id"));
	ck_assert_ptr_nonnull(strstr(cause, "SSH_AUTH_SOCK not set"));
	ck_assert_ptr_nonnull(strstr(cause, "2FA"));
	free(want);
	free(cause);
	conn_free(c);
	free(key);
}
END_TEST

START_TEST(auth_encrypted_key_no_prompt)
{
	char		*key = tmpfile_path("id_enc"), *cmd, *cause = NULL;
	struct conn	*c;
	double		 t0;

	cmd = xasprintf("ssh-keygen -q -t ed25519 -N 'a passphrase' -f %s",
	    key);
	ck_assert_int_eq(it_sh(cmd, NULL), 0);
	free(cmd);
	c = cluster_conn(NULL, 0, key, NULL, 0);
	t0 = it_now();
	ck_assert_int_eq(conn_connect(c, &cause), -1);
	ck_assert_msg(it_now() - t0 < 5, "took %.1f s", it_now() - t0);
	ck_assert_msg(strstr(cause, "passphrase-protected") != NULL, "%s",
	    cause);
	ck_assert_ptr_nonnull(strstr(cause, "ssh-add"));
	free(cause);
	conn_free(c);
	free(key);
}
END_TEST

/* ------------------------------------------------------------ failover */

START_TEST(failover_second_host)
{
	const char		*hosts[2];
	struct conn		*c;
	struct conn_result	 r;

	hosts[0] = "127.0.0.2";		/* loopback, nothing listens */
	hosts[1] = it_env("SLURM_HOSTNAME");
	c = cluster_conn(hosts, 2, NULL, NULL, 0);
	exec_ok(c, "echo up", &r);
	ck_assert_str_eq(r.out, "up\n");
	ck_assert_str_eq(conn_host(c), hosts[1]);
	conn_result_free(&r);
	conn_free(c);
}
END_TEST

START_TEST(failover_closed_port)
{
	const char		*hosts[2];
	char			*closed;
	struct conn		*c;
	struct conn_result	 r;

	closed = xasprintf("%s:1", it_env("SLURM_HOSTNAME"));
	hosts[0] = closed;
	hosts[1] = it_env("SLURM_HOSTNAME");
	c = cluster_conn(hosts, 2, NULL, NULL, 0);
	exec_ok(c, "echo up", &r);
	ck_assert_str_eq(conn_host(c), hosts[1]);
	conn_result_free(&r);
	conn_free(c);
	free(closed);
}
END_TEST

START_TEST(failover_all_down)
{
	const char	*hosts[2] = { "127.0.0.2", "127.0.0.1:1" };
	struct conn	*c;
	char		*cause = NULL;

	c = cluster_conn(hosts, 2, NULL, NULL, 0);
	ck_assert_int_eq(conn_connect(c, &cause), -1);
	ck_assert_msg(strstr(cause, "127.0.0.2:") != NULL &&
	    strstr(cause, "127.0.0.1:1:") != NULL, "%s", cause);
	ck_assert_ptr_nonnull(strstr(cause, "any of the 2 login hosts"));
	free(cause);
	conn_free(c);
}
END_TEST

/* ------------------------------------------------------------ one session */

/* sshd logs "Accepted publickey for U from A port P ssh2": count ours. */
static int
count_accepted(const char *log, long from, int port)
{
	FILE	*f;
	char	 line[2048], pat[64];
	int	 n = 0;

	snprintf(pat, sizeof pat, " port %d ssh2", port);
	ck_assert_ptr_nonnull(f = fopen(log, "r"));
	fseek(f, from, SEEK_SET);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strstr(line, "Accepted publickey") != NULL &&
		    strstr(line, pat) != NULL)
			n++;
	}
	fclose(f);
	return n;
}

START_TEST(one_connection_for_many_commands)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;
	struct conn_stats	 st;
	struct stat		 sb;
	char			*log, *first = NULL;
	int			 i;

	log = xasprintf("%s/log/sshd.log", it_env("SDTB_DIR"));
	ck_assert_int_eq(stat(log, &sb), 0);
	for (i = 0; i < 20; i++) {
		exec_ok(c, "echo $SSH_CONNECTION", &r);
		ck_assert_int_eq(r.status, 0);
		if (first == NULL)
			first = xstrdup(r.out);
		else	/* same client address and port every time */
			ck_assert_str_eq(r.out, first);
		conn_result_free(&r);
	}
	conn_get_stats(c, &st);
	ck_assert_uint_eq(st.handshakes, 1);
	ck_assert_uint_eq(st.channels, 20);
	ck_assert_int_ne(conn_local_port(c), 0);
	/* +1 "Accepted publickey" for this connection, in sshd's own log
	 * (other users of the cluster may log theirs meanwhile). */
	ck_assert_int_eq(count_accepted(log, sb.st_size, conn_local_port(c)),
	    1);
	free(first);
	free(log);
	conn_free(c);
}
END_TEST

START_TEST(broken_session_reconnects)
{
	struct conn		*c = cluster_conn(NULL, 0, NULL, NULL, 0);
	struct conn_result	 r;
	struct conn_stats	 st;
	char			 proc[64];
	pid_t			 pid;
	int			 i;

	/* The parent of the remote shell is our session's sshd process. */
	exec_ok(c, "echo $PPID", &r);
	pid = (pid_t)atol(r.out);
	conn_result_free(&r);
	ck_assert_int_gt(pid, 1);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	snprintf(proc, sizeof proc, "/proc/%ld", (long)pid);
	for (i = 0; i < 50 && access(proc, F_OK) == 0; i++)
		usleep(20000);

	exec_ok(c, "echo $PPID", &r);
	ck_assert_int_ne(atol(r.out), pid);
	conn_result_free(&r);
	conn_get_stats(c, &st);
	ck_assert_uint_eq(st.handshakes, 2);
	ck_assert_uint_eq(st.reconnects, 1);
	conn_free(c);
}
END_TEST

/* ------------------------------------------------------------ ssh_config */

static struct conn *
alias_conn(const char *config)
{
	static const char	*hosts[] = { "sdtb-alias" };
	struct conn_opts	 o;

	memset(&o, 0, sizeof o);
	o.hosts = hosts;
	o.nhosts = 1;
	o.known_hosts = it_env("SSH_KNOWN_HOSTS");
	o.ssh_config = config;
	o.connect_timeout = 5;
	return conn_new(&o);
}

START_TEST(ssh_config_alias)
{
	char			*cfg = tmpfile_path("config"), *text, *cause = NULL;
	char			*target;
	struct conn		*c;
	struct conn_result	 r;

	text = xasprintf("Host sdtb-alias\n"
	    "  HostName %s\n  Port %s\n  User %s\n  IdentityFile %s\n",
	    it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"),
	    it_env("SLURM_USER"), it_env("SSH_KEY_PATH"));
	ck_assert_int_eq(file_write_atomic(cfg, text, strlen(text), 0600,
	    &cause), 0);
	c = alias_conn(cfg);
	exec_ok(c, "id -un", &r);
	ck_assert_str_eq(r.out, "sqdeck\n");
	conn_result_free(&r);
	ck_assert_str_eq(conn_host(c), "sdtb-alias");
	target = xasprintf("%s@%s:%s", it_env("SLURM_USER"),
	    it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"));
	ck_assert_str_eq(conn_target(c), target);
	free(target);
	conn_free(c);
	free(text);

	/* Control: without the IdentityFile line there is no key to use. */
	text = xasprintf("Host sdtb-alias\n  HostName %s\n  Port %s\n"
	    "  User %s\n", it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"),
	    it_env("SLURM_USER"));
	ck_assert_int_eq(file_write_atomic(cfg, text, strlen(text), 0600,
	    &cause), 0);
	c = alias_conn(cfg);
	ck_assert_int_eq(conn_connect(c, &cause), -1);
	ck_assert_msg(strstr(cause, "login refused") != NULL, "%s", cause);
	free(cause);
	conn_free(c);
	free(text);
	free(cfg);
}
END_TEST

/*
 * ProxyCommand from ssh_config (libssh 0.10 turns ProxyJump into the same
 * "ssh ... -W" command): here the proxy is the cluster's own sshd, with
 * -F /dev/null and explicit files so the local ssh reads nothing of ~.
 */
START_TEST(ssh_config_proxycommand)
{
	char			*cfg = tmpfile_path("config"), *text, *cause = NULL;
	struct conn		*c;
	struct conn_result	 r;

	text = xasprintf("Host sdtb-alias\n"
	    "  HostName %s\n  Port %s\n  User %s\n  IdentityFile %s\n"
	    "  ProxyCommand ssh -F /dev/null -o BatchMode=yes "
	    "-o StrictHostKeyChecking=yes -o UserKnownHostsFile=%s "
	    "-o IdentitiesOnly=yes -i %s -p %s %s@%s -W %%h:%%p\n",
	    it_env("SLURM_HOSTNAME"), it_env("SLURM_PORT"),
	    it_env("SLURM_USER"), it_env("SSH_KEY_PATH"),
	    it_env("SSH_KNOWN_HOSTS"), it_env("SSH_KEY_PATH"),
	    it_env("SLURM_PORT"), it_env("SLURM_USER"),
	    it_env("SLURM_HOSTNAME"));
	ck_assert_int_eq(file_write_atomic(cfg, text, strlen(text), 0600,
	    &cause), 0);
	c = alias_conn(cfg);
	exec_ok(c, "echo $SSH_CONNECTION", &r);
	/* Through the proxy, sshd sees the connection come from itself:
	 * the forwarded one, not ours (our side is a socketpair). */
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(conn_local_port(c), 0);
	conn_result_free(&r);
	exec_ok(c, "id -un", &r);
	ck_assert_str_eq(r.out, "sqdeck\n");
	conn_result_free(&r);
	conn_free(c);
	free(text);
	free(cfg);
}
END_TEST

/* ------------------------------------------------------------ preflight */

/* Run the sqdeck binary with extra env; returns its exit status. */
static int
run_sqdeck(const char *envs, const char *args, char **out)
{
	char		*cmd;
	int		 rc;
	const char	*bin = getenv("SQDECK_BIN");

	/* make check-integration sets it; else the binary of this build. */
	if (bin == NULL || *bin == '\0')
		bin = TOP_BUILDDIR "/sqdeck";
	/*
	 * No clusters.yaml: the environment defines the cluster.  A private
	 * runtime dir: the login holder starts cold in each test (and ends
	 * when teardown removes its socket).
	 */
	cmd = xasprintf("mkdir -p -m 700 %s/rt && env XDG_CONFIG_HOME=%s/xdg "
	    "XDG_STATE_HOME=%s/state XDG_RUNTIME_DIR=%s/rt %s %s %s </dev/null "
	    "2>&1", tmp, tmp, tmp, tmp, envs, bin, args);
	rc = it_sh(cmd, out);
	free(cmd);
	return rc;
}

START_TEST(preflight_passes)
{
	char	*out = NULL;
	cJSON	*j, *p;

	const char	*cx = getenv("SDTB_CONTAINERS");
	int		 pyxis = cx != NULL && strcmp(cx, "pyxis") == 0;

	/*
	 * With tests/cluster/containers: Pyxis and Enroot are found.
	 * Without: an image cannot run and auto mode says so (bug 2).
	 */
	ck_assert_int_eq(run_sqdeck("", "preflight", &out), pyxis ? 0 : 1);
	if (pyxis) {
		ck_assert_msg(strstr(out, "container mode: pyxis (srun "
		    "--container-image)") != NULL, "%s", out);
		ck_assert_msg(strstr(out, "enroot     ok") != NULL, "%s", out);
		ck_assert_ptr_nonnull(strstr(out, "result: OK"));
	} else
		ck_assert_msg(strstr(out, "set 'container: none'") != NULL,
		    "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "1 connection, 1 channel"));
	free(out);

	ck_assert_int_eq(run_sqdeck("", "preflight --json", &out),
	    pyxis ? 0 : 1);
	ck_assert_ptr_nonnull(j = cJSON_Parse(out));
	ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")), pyxis);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "container_mode")->valuestring,
	    pyxis ? "pyxis" : "none");
	ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(j, "pyxis")), pyxis);
	p = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "partitions"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(p, "name")->valuestring,
	    it_env("SLURM_PARTITION"));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(p, "exists")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
	    "storage"), "writable")));
	cJSON_Delete(j);
	free(out);
}
END_TEST

START_TEST(preflight_missing_partition)
{
	char	*out = NULL;

	ck_assert_int_eq(run_sqdeck("SLURM_PARTITION=nosuch", "preflight",
	    &out), 1);
	ck_assert_msg(strstr(out, "partition 'nosuch'") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "cpu, gpu"));
	ck_assert_ptr_nonnull(strstr(out, "result: FAILED"));
	free(out);
}
END_TEST

START_TEST(preflight_failover_and_refusals)
{
	char	*out = NULL, *e, *kh;
	FILE	*f;

	e = xasprintf("SLURM_HOSTNAME=127.0.0.2,%s", it_env("SLURM_HOSTNAME"));
	ck_assert_int_eq(run_sqdeck(e, "preflight", &out), 0);
	free(out);
	free(e);

	kh = tmpfile_path("empty_known_hosts");
	ck_assert_ptr_nonnull(f = fopen(kh, "w"));
	fclose(f);
	e = xasprintf("SSH_KNOWN_HOSTS=%s", kh);
	ck_assert_int_eq(run_sqdeck(e, "preflight", &out), 1);
	ck_assert_msg(strstr(out, "ssh-keyscan") != NULL, "%s", out);
	free(out);
	free(e);
	free(kh);
}
END_TEST

/*
 * Issue 26 item 9: no partitions set (SLURM_PARTITION empty, no
 * clusters.yaml): the package's names (polar, ...) are not on this
 * cluster, so its own default partition (sinfo's '*': gpu) is used and
 * said; a dry-run submit asks for it.  Failed before: polar MISSING.
 */
START_TEST(preflight_cluster_default_partition)
{
	char	*out = NULL, *spec, *args;
	FILE	*f;

	ck_assert_int_eq(run_sqdeck("SLURM_PARTITION=", "preflight", &out), 0);
	ck_assert_msg(strstr(out, "partition  ok       gpu: MaxTime 4:00:00, "
	    "up (the cluster's default: no partitions set)") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "using the cluster's default partition gpu "
	    "(sinfo marks it with '*'); its partitions: cpu, gpu") != NULL,
	    "%s", out);
	ck_assert_ptr_null(strstr(out, "MISSING"));
	free(out);
	spec = tmpfile_path("default-part.yaml");
	ck_assert_ptr_nonnull(f = fopen(spec, "w"));
	fprintf(f, "name: t\nimage: %s\ncommand: hostname\ngpus: 1\n"
	    "time: 10m\n", it_env("SDTB_IMAGE_SQSH"));
	fclose(f);
	args = xasprintf("submit --dry-run %s", spec);
	run_sqdeck("SLURM_PARTITION=", args, &out);
	ck_assert_msg(strstr(out, "#SBATCH --partition=gpu\n") != NULL, "%s",
	    out);
	ck_assert_msg(strstr(out, "partition gpu: the cluster's default") !=
	    NULL, "%s", out);
	free(out);
	free(args);
	free(spec);
}
END_TEST

/*
 * Issue 24: plain preflight checks the conversion partition and names
 * the ones there are (it said "ready" while every registry-image submit
 * failed at the image step).
 */
START_TEST(preflight_cpu_partition)
{
	char	*out = NULL, *dir, *path;
	FILE	*f;
	int	 rc;

	dir = xasprintf("%s/xdg/sqdeck", tmp);
	path = xasprintf("mkdir -p %s", dir);
	ck_assert_int_eq(system(path), 0);
	free(path);
	path = xasprintf("%s/clusters.yaml", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "clusters:\n  - name: sdtb\n    hosts: [127.0.0.1]\n"
	    "    cpu_partition: cpux\n");
	fclose(f);
	rc = run_sqdeck("", "preflight", &out);
	unlink(path);
	free(path);
	free(dir);
	if (getenv("SDTB_CONTAINERS") == NULL ||
	    strcmp(getenv("SDTB_CONTAINERS"), "pyxis") != 0) {
		/* No Pyxis: no conversion, nothing to check. */
		ck_assert_ptr_null(strstr(out, "cpu part"));
		free(out);
		return;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(out, "cpu part   MISSING  cpux: converts registry "
	    "images (cpu_partition): not on this cluster") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "the image conversion partition 'cpux' "
	    "(cpu_partition in clusters.yaml) does not exist on this cluster; "
	    "its partitions are: cpu, gpu") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "result: OK, ready to submit .sqsh images; "
	    "registry images cannot be converted") != NULL, "%s", out);
	free(out);
	/* The default, cpu, exists here. */
	ck_assert_int_eq(run_sqdeck("", "preflight", &out), 0);
	ck_assert_msg(strstr(out, "cpu part   ok       cpu: converts") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "result: OK, ready to submit\n") != NULL,
	    "%s", out);
	free(out);
}
END_TEST

/*
 * Issue 24: SLURM_USER unset: the login name used (the local one here,
 * which the cluster refuses) is named, not "?".
 */
START_TEST(login_name_said_when_user_unset)
{
	char	*out = NULL, *m;
	int	 rc;

	rc = run_sqdeck("SLURM_USER=", "preflight", &out);
	if (strcmp(getenv("USER") != NULL ? getenv("USER") : "", "sqdeck") ==
	    0 && rc == 0) {
		ck_assert_msg(strstr(out, "SLURM_USER is not set") != NULL,
		    "%s", out);
		free(out);
		return;
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_ptr_null(strstr(out, "login refused for ?@"));
	m = xasprintf("SLURM_USER is not set, nor 'user:' in clusters.yaml");
	ck_assert_msg(strstr(out, m) != NULL, "%s", out);
	ck_assert_msg(strstr(out, "(login name ") != NULL, "%s", out);
	free(m);
	free(out);
}
END_TEST

/* ------------------------------------------------------------ parser */

static void
parse_file(const char *name, struct preflight *pf)
{
	char	*text = NULL, *cause = NULL;

	ck_assert_int_eq(file_read(test_data(name), &text, NULL, &cause), 0);
	ck_assert_msg(preflight_parse(text, pf, &cause) == 0, "%s", cause);
	free(text);
}

static void
want(struct strv *sv, const char *a)
{
	sv->v = NULL;
	sv->n = 0;
	strv_split(sv, a, ',');
}

static int
has(const struct strv *sv, const char *needle)
{
	size_t	i;

	for (i = 0; i < sv->n; i++) {
		if (strstr(sv->v[i], needle) != NULL)
			return 1;
	}
	return 0;
}

/*
 * sinfo's %P marks the default partition with '*'.  Without partitions
 * set, the package's names give way to it; without one, the problem names
 * what there is.  The conversion partition is checked under Pyxis.
 */
START_TEST(parse_default_mark)
{
	static const char	*text = "sqdeck-preflight=1\nuser=u\n"
	    "tool.sbatch=/b/sbatch\ntool.squeue=/b/squeue\n"
	    "tool.sacct=/b/sacct\ntool.scancel=/b/scancel\n"
	    "tool.sinfo=/b/sinfo\ntool.srun=/b/srun\ntool.enroot=/b/enroot\n"
	    "storage.root=/r\nstorage.exists=1\nstorage.writable=1\n"
	    "sinfo.rc=0\nsinfo=cpu|infinite|up|2|64|(null)\n"
	    "sinfo=gpu*|4:00:00|up|2|64|gpu:4\nend=1\n";
	struct preflight	 pf;
	struct cluster		 cl;
	char			*cause = NULL, *nostar, *p;

	memset(&cl, 0, sizeof cl);
	cl.name = (char *)"x";
	cl.user = (char *)"u";
	want(&cl.partitions, "polar,polar3,polar4,grizzly");
	cl.partitions_default = 1;
	cl.container = CONTAINER_NONE;
	ck_assert_msg(preflight_parse(text, &pf, &cause) == 0, "%s", cause);
	ck_assert_ptr_nonnull(preflight_find(&pf, "gpu"));
	ck_assert_int_eq(preflight_find(&pf, "gpu")->is_default, 1);
	ck_assert_int_eq(preflight_find(&pf, "cpu")->is_default, 0);
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert_uint_eq(pf.nwanted, 1);
	ck_assert_str_eq(pf.wanted[0].name, "gpu");
	ck_assert_int_eq(pf.cluster_default, 1);
	ck_assert(has(&pf.warnings, "using the cluster's default partition "
	    "gpu"));
	ck_assert_ptr_null(pf.cpu_partition);	/* no Pyxis: no conversion */
	/* Partitions given: they stand, '*' or not. */
	cl.partitions_default = 0;
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "partition 'polar'"));
	/* Pyxis: the conversion partition, cpu by default, is checked. */
	cl.container = CONTAINER_PYXIS;
	cl.partitions_default = 1;
	pf.pyxis = 1;
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert_str_eq(pf.cpu_partition, "cpu");
	ck_assert_int_eq(pf.cpu_exists, 1);
	cl.cpu_partition = (char *)"cpux";
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert_int_eq(pf.ok, 1);	/* a .sqsh still runs */
	ck_assert_int_eq(pf.cpu_exists, 0);
	ck_assert(has(&pf.warnings, "the image conversion partition 'cpux' "
	    "(cpu_partition in clusters.yaml) does not exist on this "
	    "cluster; its partitions are: cpu, gpu"));
	/* No user set: the name logged in as is said. */
	cl.user = NULL;
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert(has(&pf.warnings, "SLURM_USER is not set (nor 'user:' for "
	    "cluster 'x' in clusters.yaml): logged in as u"));
	preflight_free(&pf);
	/* No '*': a problem naming the partitions there are. */
	nostar = xstrdup(text);
	p = strstr(nostar, "gpu*");
	memmove(p + 3, p + 4, strlen(p + 4) + 1);
	ck_assert_msg(preflight_parse(nostar, &pf, &cause) == 0, "%s", cause);
	cl.container = CONTAINER_NONE;
	cl.user = (char *)"u";
	preflight_evaluate_cluster(&pf, &cl);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert_uint_eq(pf.problems.n, 1);
	ck_assert(has(&pf.problems, "the cluster has no default partition: "
	    "set 'partitions:' for this cluster to some of: cpu, gpu"));
	preflight_free(&pf);
	free(nostar);
	strv_free(&cl.partitions);
}
END_TEST

START_TEST(parse_sdtb)
{
	struct preflight			 pf;
	const struct preflight_partition	*p;
	struct strv				 parts;

	parse_file("preflight-sdtb.txt", &pf);
	ck_assert_int_eq(pf.complete, 1);
	ck_assert_str_eq(pf.user, "sqdeck");
	ck_assert_str_eq(pf.tools[PF_SBATCH].path, "/usr/bin/sbatch");
	ck_assert_str_eq(pf.tools[PF_SINFO].version, "slurm-wlm 22.05.8");
	ck_assert_ptr_nonnull(pf.tools[PF_ENROOT].path);
	/* srun 22.05 has --container (OCI bundle): that is not Pyxis. */
	ck_assert_uint_eq(pf.srun_help.n, 1);
	ck_assert_int_eq(pf.pyxis, 0);
	ck_assert_str_eq(pf.storage_root, "/tmp/sdtb/lustre/results");
	ck_assert_int_eq(pf.storage_exists && pf.storage_writable, 1);
	ck_assert_int_eq(pf.storage_default, 0);
	ck_assert_uint_eq(pf.nparts, 2);
	ck_assert_ptr_nonnull(p = preflight_find(&pf, "gpu"));
	ck_assert_str_eq(p->max_time, "4:00:00");
	ck_assert_int_eq(p->max_minutes, 240);
	ck_assert_ptr_nonnull(p = preflight_find(&pf, "cpu"));
	ck_assert_int_eq(p->max_minutes, -1);	/* infinite */

	/*
	 * No Pyxis (captured before tests/cluster/containers): auto mode
	 * refuses, with the reason and the way out (bug 2) ...
	 */
	want(&parts, "gpu");
	preflight_evaluate(&pf, &parts, CONTAINER_AUTO);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert_uint_eq(pf.problems.n, 1);
	ck_assert(has(&pf.problems, "srun has no --container-image (Pyxis is "
	    "not installed), so a job's image cannot run in a container: set "
	    "'container: none'"));
	/* ... and 'container: none', said explicitly, passes. */
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert_int_eq(pf.container, CONTAINER_NONE);
	ck_assert_uint_eq(pf.problems.n, 0);
	ck_assert_uint_eq(pf.nwanted, 1);
	ck_assert_int_eq(pf.wanted[0].max_minutes, 240);
	strv_free(&parts);

	/* First partition missing: fails, names it and what exists. */
	want(&parts, "nosuch,cpu");
	preflight_evaluate(&pf, &parts, CONTAINER_AUTO);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "'nosuch'"));
	ck_assert(has(&pf.problems, "cpu, gpu"));
	ck_assert_int_eq(pf.wanted[1].exists, 1);
	strv_free(&parts);

	/* A later one missing: a warning only. */
	want(&parts, "gpu,polar");
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert(has(&pf.warnings, "'polar'"));
	/* Pyxis demanded but absent. */
	preflight_evaluate(&pf, &parts, CONTAINER_PYXIS);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "--container-image"));
	preflight_evaluate(&pf, NULL, CONTAINER_AUTO);
	ck_assert(has(&pf.problems, "SLURM_PARTITION"));
	strv_free(&parts);
	preflight_free(&pf);
}
END_TEST

START_TEST(parse_default_root)
{
	struct preflight	pf;
	struct strv		parts;

	parse_file("preflight-sdtb-default-root.txt", &pf);
	ck_assert_int_eq(pf.storage_default, 1);
	ck_assert_int_eq(pf.storage_created, 1);
	want(&parts, "gpu");
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert(has(&pf.warnings, "SLURM_BASE_RESULTS_DIR is not set: "
	    "using /tmp/sdtb/home/sqdeck/sqdeck (created now)"));
	strv_free(&parts);
	preflight_free(&pf);
}
END_TEST

START_TEST(parse_storage_failures)
{
	struct preflight	pf;
	struct strv		parts;

	want(&parts, "gpu");
	parse_file("preflight-sdtb-readonly.txt", &pf);
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "storage root /usr is not writable by "
	    "sqdeck"));
	ck_assert(has(&pf.problems, "Permission denied"));
	preflight_free(&pf);

	parse_file("preflight-sdtb-noroot.txt", &pf);
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "does not exist on the cluster: create "
	    "it (mkdir -p /tmp/sdtb/lustre/no-such-dir)"));
	preflight_free(&pf);
	strv_free(&parts);
}
END_TEST

START_TEST(parse_tool_failures)
{
	struct preflight	pf;
	struct strv		parts;

	want(&parts, "gpu");
	parse_file("preflight-sdtb-nosinfo.txt", &pf);
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert_int_eq(pf.sinfo_rc, 1);
	ck_assert(has(&pf.problems, "sinfo failed (exit 1)"));
	ck_assert(has(&pf.problems, "Unable to process configuration file"));
	ck_assert_uint_eq(pf.nparts, 0);
	preflight_free(&pf);

	parse_file("preflight-sdtb-nopath.txt", &pf);
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert_ptr_null(pf.tools[PF_SBATCH].path);
	ck_assert(has(&pf.problems, "sbatch not found in the PATH"));
	ck_assert(has(&pf.problems, "scancel not found"));
	ck_assert(has(&pf.warnings, "srun not found"));
	/* five tools, and sinfo could not list the partitions */
	ck_assert_uint_eq(pf.problems.n, 6);
	preflight_free(&pf);
	strv_free(&parts);
}
END_TEST

START_TEST(parse_truncated_and_garbage)
{
	struct preflight	 pf;
	struct strv		 parts;
	char			*text = NULL, *cut, *cause = NULL;

	ck_assert_int_eq(file_read(test_data("preflight-sdtb.txt"), &text,
	    NULL, NULL), 0);
	cut = xstrndup(text, strstr(text, "storage.root") - text);
	ck_assert_int_eq(preflight_parse(cut, &pf, &cause), 0);
	ck_assert_int_eq(pf.complete, 0);
	want(&parts, "gpu");
	preflight_evaluate(&pf, &parts, CONTAINER_AUTO);
	ck_assert_int_eq(pf.ok, 0);
	ck_assert(has(&pf.problems, "cut short"));
	preflight_free(&pf);
	strv_free(&parts);
	free(cut);
	free(text);

	ck_assert_int_eq(preflight_parse("Welcome to the cluster\n", &pf,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "sqdeck-preflight=1"));
	free(cause);
}
END_TEST

/* Captured with tests/cluster/containers: Pyxis and Enroot 3.5.0. */
START_TEST(parse_sdtb_pyxis)
{
	struct preflight	pf;
	struct strv		parts;

	parse_file("preflight-sdtb-pyxis.txt", &pf);
	ck_assert_int_eq(pf.complete, 1);
	ck_assert_int_eq(pf.pyxis, 1);
	ck_assert_ptr_nonnull(pf.tools[PF_ENROOT].path);
	ck_assert_str_eq(pf.tools[PF_ENROOT].version, "3.5.0");
	want(&parts, "gpu");
	preflight_evaluate(&pf, &parts, CONTAINER_AUTO);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert_int_eq(pf.container, CONTAINER_PYXIS);
	ck_assert_uint_eq(pf.problems.n, 0);
	ck_assert_uint_eq(pf.warnings.n, 0);
	/* 'container: none' on a Pyxis cluster: honoured. */
	preflight_evaluate(&pf, &parts, CONTAINER_NONE);
	ck_assert_int_eq(pf.ok, 1);
	ck_assert_int_eq(pf.container, CONTAINER_NONE);
	strv_free(&parts);
	preflight_free(&pf);
}
END_TEST

START_TEST(pyxis_detection)
{
	/* Real, from srun 22.05 --help on tests/cluster: not Pyxis. */
	ck_assert_int_eq(preflight_line_has_pyxis(
	    "      --container             Path to OCI container bundle"), 0);
	/* Real, from Pyxis 0.24.0 on tests/cluster/containers. */
	ck_assert_int_eq(preflight_line_has_pyxis(
	    "      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH"), 1);
	ck_assert_int_eq(preflight_line_has_pyxis("--container-image"), 1);
	ck_assert_int_eq(preflight_line_has_pyxis(
	    "      --container-images=x"), 0);
	ck_assert_int_eq(preflight_line_has_pyxis("x--container-image=y"), 0);
}
END_TEST

START_TEST(script_quotes_root)
{
	char	*s, *path, *cmd, *cause = NULL;

	s = preflight_script("/a b/it's $(reboot)");
	ck_assert_ptr_nonnull(strstr(s, "root='/a b/it'\\''s $(reboot)'\n"));
	/* Valid sh, whatever the root. */
	path = xasprintf("%s/pf.sh", tmp);
	ck_assert_int_eq(file_write_atomic(path, s, strlen(s), 0600, &cause),
	    0);
	cmd = xasprintf("sh -n %s", path);
	ck_assert_int_eq(it_sh(cmd, NULL), 0);
	free(cmd);
	free(path);
	free(s);
	s = preflight_script(NULL);
	ck_assert_ptr_nonnull(strstr(s, "root=''\n"));
	free(s);
}
END_TEST

static Suite *
conn_suite(void)
{
	Suite	*s = suite_create("conn");
	TCase	*tc;

	tc = tcase_create("preflight-parse");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_sdtb);
	tcase_add_test(tc, parse_default_mark);
	tcase_add_test(tc, parse_sdtb_pyxis);
	tcase_add_test(tc, parse_default_root);
	tcase_add_test(tc, parse_storage_failures);
	tcase_add_test(tc, parse_tool_failures);
	tcase_add_test(tc, parse_truncated_and_garbage);
	tcase_add_test(tc, pyxis_detection);
	tcase_add_test(tc, script_quotes_root);
	suite_add_tcase(s, tc);

	tc = tcase_create("cluster");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, exec_stdout_stderr_status);
	tcase_add_test(tc, exec_stdin_roundtrip);
	tcase_add_test(tc, exec_payload_not_in_argv);
	tcase_add_test(tc, exec_timeout_bounded);
	tcase_add_test(tc, exec_output_cap);
	tcase_add_test(tc, hostkey_unknown_refused);
	tcase_add_test(tc, hostkey_changed_refused);
	tcase_add_test(tc, auth_wrong_key_refused);
	tcase_add_test(tc, auth_encrypted_key_no_prompt);
	tcase_add_test(tc, failover_second_host);
	tcase_add_test(tc, failover_closed_port);
	tcase_add_test(tc, failover_all_down);
	tcase_add_test(tc, one_connection_for_many_commands);
	tcase_add_test(tc, broken_session_reconnects);
	tcase_add_test(tc, ssh_config_alias);
	tcase_add_test(tc, ssh_config_proxycommand);
	tcase_add_test(tc, preflight_passes);
	tcase_add_test(tc, preflight_missing_partition);
	tcase_add_test(tc, preflight_cluster_default_partition);
	tcase_add_test(tc, preflight_cpu_partition);
	tcase_add_test(tc, login_name_said_when_user_unset);
	tcase_add_test(tc, preflight_failover_and_refusals);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(conn_suite)
