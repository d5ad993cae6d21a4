#include <sys/stat.h>

#include "testutil.h"
#include "util.h"
#include "str.h"
#include "preflight.h"
#include "rsh.h"
#include "sshcert.h"
#include "sshconf.h"
#include "text.h"

#include <sys/wait.h>

#include <fcntl.h>

START_TEST(test_shell_quote)
{
	char	*q;

	q = shell_quote("plain");
	ck_assert_str_eq(q, "'plain'");
	free(q);
	q = shell_quote("it's $HOME `x` \"y\"");
	ck_assert_str_eq(q, "'it'\\''s $HOME `x` \"y\"'");
	free(q);
	q = shell_quote("");
	ck_assert_str_eq(q, "''");
	free(q);
}
END_TEST

/* The quoted form must come back unchanged through a real shell. */
START_TEST(test_shell_quote_roundtrip)
{
	const char	*nasty = "a'b\"c$(id) ;|&\n\t*?[x]~ \\";
	char		*q, *cmd, line[256];
	FILE		*p;

	q = shell_quote(nasty);
	cmd = xasprintf("printf %%s %s", q);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(line, 1, sizeof line - 1, p);
	line[n] = '\0';
	pclose(p);
	ck_assert_str_eq(line, nasty);
	free(q);
	free(cmd);
}
END_TEST

/* str.c: the helpers config, spec, slurm and triage share. */
/* A file's value quoted in a message: no control byte reaches it raw. */
START_TEST(test_escape_controls)
{
	char	*e;

	e = str_escape_controls("a\x1b[31mRED\rsqdeck: submitted\nx\t\x01\x7f\xc2\x9b");
	ck_assert_str_eq(e, "a\\e[31mRED\\rsqdeck: submitted\\nx\\t\\x01\\x7f"
	    "\xc2\x9b");
	free(e);
	e = str_escape_controls("");
	ck_assert_str_eq(e, "");
	free(e);
}
END_TEST

START_TEST(test_str)
{
	struct strv	v = { 0 };
	const char	*p;
	int		b = 7;

	ck_assert_int_eq(str_bool("Yes", &b), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(str_bool("OFF", &b), 0);
	ck_assert_int_eq(b, 0);
	b = 7;
	ck_assert_int_eq(str_bool("2", &b), -1);
	ck_assert_int_eq(b, 7);
	ck_assert(str_has_control("a\x1b[31m", 1));
	ck_assert(str_has_control("a\x7f", 0));
	ck_assert(str_has_control("a\nb", 0));
	ck_assert(!str_has_control("a\nb\tc", 1));
	ck_assert(!str_has_control("caf\xc3\xa9", 0));
	ck_assert(str_blank(" \t\n"));
	ck_assert(str_blank(""));
	ck_assert(!str_blank(" x"));
	ck_assert(str_blank_n("  x", 2));
	ck_assert_int_eq(str_digits_n("0042:", 4), 42);
	ck_assert_int_eq(str_digits_n("123456789", 9), 123456789);
	ck_assert_int_eq(str_digits_n("1234567890", 10), -1);
	ck_assert_int_eq(str_digits_n("12a", 3), -1);
	ck_assert_int_eq(str_digits_n("", 0), -1);
	p = "0042-7";
	ck_assert_int_eq(str_number(&p, 100), 42);
	ck_assert_str_eq(p, "-7");
	p = "101";
	ck_assert_int_eq(str_number(&p, 100), -1);
	ck_assert_str_eq(p, "101");
	p = "100";
	ck_assert_int_eq(str_number(&p, 100), 100);
	p = "5";
	ck_assert_int_eq(str_number(&p, 0), -1);
	p = "-1";
	ck_assert_int_eq(str_number(&p, 100), -1);
	p = " 1";
	ck_assert_int_eq(str_number(&p, 100), -1);
	p = "99999999999999999999999";
	ck_assert_int_eq(str_number(&p, 2147483647L), -1);
	strv_add(&v, "gpu");
	strv_add(&v, "cpu");
	ck_assert(strv_has(&v, "cpu"));
	ck_assert(!strv_has(&v, "cp"));
	strv_free(&v);
}
END_TEST

/*
 * Every login-node script starts by clearing the variables that change
 * what SLURM's tools print (lib-slurmenv.sh): run through a real /bin/sh
 * with SQUEUE_STATES=PD (which hides running jobs even from squeue -j).
 */
START_TEST(test_rsh_clears_slurm_env)
{
	char	*script, *q, *cmd, out[64] = "";
	FILE	*p;
	size_t	 n;

	script = rsh_wrap("printf '%s,%s,%s' \"${SQUEUE_STATES-unset}\" "
	    "\"${SLURM_TIME_FORMAT-unset}\" \"${SD_KEPT-unset}\"");
	q = shell_quote(script);
	cmd = xasprintf("SQUEUE_STATES=PD SLURM_TIME_FORMAT=relative "
	    "SD_KEPT=kept /bin/sh -c %s", q);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_str_eq(out, "unset,unset,kept");
	free(cmd);
	free(q);
	free(script);
}
END_TEST

/* Issue 26.12: logs -n counts a \r progress bar's frames as lines. */
START_TEST(test_tail_start)
{
	const char	*bar = "hdr\n 10%\r 20%\r 30%\r 40%\r";
	const char	*crlf = "a\r\nb\r\nc\r\n";
	const char	*nl = "a\nb\nc";

	ck_assert_str_eq(bar + text_tail_start(bar, strlen(bar), 2),
	    " 30%\r 40%\r");
	ck_assert_str_eq(bar + text_tail_start(bar, strlen(bar), 4),
	    " 10%\r 20%\r 30%\r 40%\r");
	ck_assert_uint_eq(text_tail_start(bar, strlen(bar), 5), 0);
	ck_assert_uint_eq(text_tail_start(bar, strlen(bar), 50), 0);
	ck_assert_str_eq(crlf + text_tail_start(crlf, strlen(crlf), 2),
	    "b\r\nc\r\n");
	ck_assert_str_eq(nl + text_tail_start(nl, strlen(nl), 1), "c");
	ck_assert_str_eq(nl + text_tail_start(nl, strlen(nl), 2), "b\nc");
	ck_assert_uint_eq(text_tail_start(nl, strlen(nl), 0), strlen(nl));
	ck_assert_uint_eq(text_tail_start("", 0, 3), 0);
}
END_TEST

START_TEST(test_buf)
{
	struct buf	 b;
	char		*s;

	buf_init(&b);
	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	ck_assert(str_has_prefix(b.data, "0,1,2,"));
	ck_assert(str_has_suffix(b.data, "998,999,"));
	s = buf_steal(&b);
	ck_assert_ptr_null(b.data);
	free(s);
}
END_TEST

START_TEST(test_strv_split)
{
	struct strv	sv = { 0 };

	strv_split(&sv, " a, b ,,c ,", ',');
	ck_assert_uint_eq(sv.n, 3);
	ck_assert_str_eq(sv.v[0], "a");
	ck_assert_str_eq(sv.v[1], "b");
	ck_assert_str_eq(sv.v[2], "c");
	ck_assert_ptr_null(sv.v[3]);
	strv_free(&sv);
}
END_TEST

START_TEST(test_atomic_write)
{
	const char	*dir = test_tmpdir();
	char		*path = xasprintf("%s/sub/dir/f.json", dir);
	char		*sub = xasprintf("%s/sub/dir", dir);
	char		*data = NULL, *cause = NULL;
	size_t		 len;
	struct stat	 st;

	ck_assert_int_eq(mkdir_p(sub, 0700, &cause), 0);
	ck_assert_int_eq(file_write_atomic(path, "hello", 5, 0600, &cause), 0);
	ck_assert_int_eq(file_read(path, &data, &len, &cause), 0);
	ck_assert_uint_eq(len, 5);
	ck_assert_str_eq(data, "hello");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	free(data);
	/* A missing directory fails with the path in the message. */
	free(path);
	path = xasprintf("%s/nope/f", dir);
	ck_assert_int_eq(file_write_atomic(path, "x", 1, 0600, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "nope"));
	free(cause);
	free(path);
	free(sub);
}
END_TEST

/*
 * Issue 12 item 8: a symlink planted at the temp name (<path>.tmp.<pid>)
 * must not be followed: the file it points to keeps its content and mode.
 */
START_TEST(test_atomic_write_symlink)
{
	const char	*dir = test_tmpdir();
	char		*path = xasprintf("%s/rec.json", dir);
	char		*victim = xasprintf("%s/victim", dir);
	char		*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	char		*data = NULL, *cause = NULL;
	struct stat	 st;
	FILE		*f;

	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("precious", f);
	fclose(f);
	ck_assert_int_eq(chmod(victim, 0644), 0);
	ck_assert_int_eq(symlink(victim, tmp), 0);
	ck_assert_msg(file_write_atomic(path, "new", 3, 0600, &cause) == 0,
	    "%s", cause);
	ck_assert_int_eq(file_read(victim, &data, NULL, NULL), 0);
	ck_assert_str_eq(data, "precious");
	free(data);
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(file_read(path, &data, NULL, NULL), 0);
	ck_assert_str_eq(data, "new");
	free(data);
	free(path);
	free(victim);
	free(tmp);
}
END_TEST

/* Item 8: no HOME and no XDG dir: refuse (it used to be /tmp). */
START_TEST(test_path_check)
{
	const char	*dir = test_tmpdir();
	char		*cause = NULL, *p, *state;

	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	ck_assert_int_eq(path_check(&cause), -1);
	ck_assert_msg(strstr(cause, "HOME is not set") != NULL, "%s", cause);
	free(cause);
	state = path_state_dir();
	ck_assert_msg(strncmp(state, "/tmp", 4) != 0, "%s", state);
	free(state);
	setenv("HOME", "", 1);
	ck_assert_int_eq(path_check(&cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "HOME is empty"));
	free(cause);
	setenv("HOME", "relative", 1);
	ck_assert_int_eq(path_check(&cause), -1);
	free(cause);
	setenv("HOME", dir, 1);
	ck_assert_msg(path_check(&cause) == 0, "%s", cause);
	/* Only XDG dirs, no HOME: fine. */
	unsetenv("HOME");
	setenv("XDG_STATE_HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1);
	ck_assert_msg(path_check(&cause) == 0, "%s", cause);
	setenv("XDG_STATE_HOME", "rel/state", 1);
	ck_assert_int_eq(path_check(&cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "XDG_STATE_HOME"));
	free(cause);
	/* An existing sqdeck dir that others can write is refused. */
	setenv("XDG_STATE_HOME", dir, 1);
	p = xasprintf("%s/sqdeck", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_msg(path_check(&cause) == 0, "%s", cause);
	ck_assert_int_eq(chmod(p, 0777), 0);
	ck_assert_int_eq(path_check(&cause), -1);
	ck_assert_msg(strstr(cause, "chmod go-w") != NULL, "%s", cause);
	free(cause);
	ck_assert_int_eq(chmod(p, 0770), 0);
	ck_assert_int_eq(path_check(&cause), -1);
	free(cause);
	ck_assert_int_eq(chmod(p, 0755), 0);
	ck_assert_msg(path_check(&cause) == 0, "%s", cause);
	free(p);
	/* Another owner's dir: only root can make one here. */
	if (geteuid() == 0) {
		p = xasprintf("%s/sqdeck", dir);
		ck_assert_int_eq(chown(p, 65534, 65534), 0);
		ck_assert_int_eq(path_check(&cause), -1);
		ck_assert_msg(strstr(cause, "belongs to uid 65534") != NULL,
		    "%s", cause);
		free(cause);
		free(p);
	}
}
END_TEST

/*
 * Issue 12 item 4: the preflight's write probe in the storage root must
 * not follow a symlink planted under the name it would use.  The script
 * runs here under /bin/sh, whose $$ is known before it starts, with
 * every pid-named probe path planted.
 */
START_TEST(test_preflight_probe_symlink)
{
	const char	*dir = test_tmpdir();
	char		*victim = xasprintf("%s/victim", dir);
	char		*root = xasprintf("%s/root", dir);
	char		*script, *link, *data = NULL, go;
	int		 fds[2], st;
	pid_t		 pid;
	FILE		*f;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("precious", f);
	fclose(f);
	script = preflight_script(root);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(126);
		st = open("/dev/null", O_WRONLY);
		dup2(st, 1);
		dup2(st, 2);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	link = xasprintf("%s/.sqdeck-preflight.%ld", root, (long)pid);
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_eq(write(fds[1], "g", 1), 1);
	close(fds[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(file_read(victim, &data, NULL, NULL), 0);
	ck_assert_msg(strcmp(data, "precious") == 0, "the probe wrote "
	    "through the planted symlink: victim now '%s'", data);
	free(data);
	free(link);
	free(script);
	free(root);
	free(victim);
}
END_TEST

START_TEST(test_strv_many)
{
	struct strv	 sv = { 0 };
	char		 item[32];
	size_t		 i;

	for (i = 0; i < 70000; i++) {
		snprintf(item, sizeof item, "sdn%zu", i);
		strv_add(&sv, item);
		ck_assert_ptr_null(sv.v[sv.n]);
	}
	ck_assert_uint_eq(sv.n, 70000);
	ck_assert_str_eq(sv.v[0], "sdn0");
	ck_assert_str_eq(sv.v[65536], "sdn65536");
	ck_assert_str_eq(sv.v[69999], "sdn69999");
	strv_free(&sv);
	ck_assert_ptr_null(sv.v);
	strv_add(&sv, "again");
	ck_assert_uint_eq(sv.n, 1);
	strv_free(&sv);
}
END_TEST

/*
 * OpenSSH certificates made here by ssh-keygen (a CA signs a user key
 * with -V windows): key id and validity read back, each window judged.
 */
static char *
make_cert(const char *dir, const char *type, const char *name,
    const char *validity)
{
	char	*cmd, *path, *text = NULL, *cause = NULL;

	cmd = xasprintf("cd %s && { [ -f ca ] || ssh-keygen -q -t ed25519 "
	    "-N '' -f ca; } && rm -f %s %s.pub %s-cert.pub && "
	    "ssh-keygen -q -t %s -N '' -f %s && ssh-keygen -q -s ca "
	    "-I 'id of %s' -n sqdeck -V '%s' %s.pub", dir, name, name, name,
	    type, name, name, validity, name);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	free(cmd);
	path = xasprintf("%s/%s-cert.pub", dir, name);
	ck_assert_msg(file_read(path, &text, NULL, &cause) == 0, "%s", cause);
	free(path);
	return text;
}

static void
put_file(const char *dir, const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", dir, name), *cause = NULL;

	ck_assert_msg(file_write_atomic(path, text, strlen(text), 0600,
	    &cause) == 0, "%s", cause);
	free(path);
}

START_TEST(test_sshconf)
{
	const char	*dir = test_tmpdir();
	const char	*files[3] = { NULL, NULL, NULL };
	struct sshconf	 sc;
	struct sshconf_hop *h;
	char		*cfg, *sys, *cause = NULL, *where;
	int		 n;

	put_file(dir, "config",
	    "# user config\n"
	    "Host other\n"
	    "  HostName wrong.example\n"
	    "Host gpu *.hpc !bad.hpc\n"
	    "  HostName = login.%h.example\n"
	    "  User alice\n"
	    "Host gpu\n"
	    "  User bob\n"
	    "  Port 2200\n"
	    "  Include conf.d/*.conf\n"
	    "Match all\n"
	    "  IdentityFile ~/.ssh/id_%r\n"
	    "  CertificateFile \"%d/certs/%h-cert.pub\"\n");
	where = xasprintf("%s/conf.d", dir);
	ck_assert_int_eq(mkdir_p(where, 0700, &cause), 0);
	free(where);
	put_file(dir, "conf.d/jump.conf",
	    "ProxyJump carol@bastion.example:2222,hop2\n"
	    "Host *\n"
	    "  Port 9999\n");
	cfg = xasprintf("%s/config", dir);
	sys = xasprintf("%s/system", dir);
	put_file(dir, "system", "Host *\n  User root\n  Port 22\n"
	    "  ProxyCommand ssh -W %h:%p gw\n");
	files[0] = cfg;
	files[1] = sys;
	ck_assert_msg(sshconf_resolve(files, "gpu", "/home/u", &sc, &cause) ==
	    0, "%s", cause);
	ck_assert_str_eq(sc.v[SSHCONF_HOSTNAME].value, "login.gpu.example");
	where = xasprintf("%s:5", cfg);
	ck_assert_str_eq(sc.v[SSHCONF_HOSTNAME].where, where);
	free(where);
	/* The first value wins: alice (line 6), not bob. */
	ck_assert_str_eq(sc.v[SSHCONF_USER].value, "alice");
	ck_assert_str_eq(sc.v[SSHCONF_PORT].value, "2200");
	ck_assert_str_eq(sc.v[SSHCONF_PROXYJUMP].value,
	    "carol@bastion.example:2222,hop2");
	where = xasprintf("%s/conf.d/jump.conf:1", dir);
	ck_assert_str_eq(sc.v[SSHCONF_PROXYJUMP].where, where);
	free(where);
	ck_assert_str_eq(sc.v[SSHCONF_IDENTITYFILE].value,
	    "/home/u/.ssh/id_alice");
	ck_assert_str_eq(sc.v[SSHCONF_CERTIFICATEFILE].value,
	    "/home/u/certs/login.gpu.example-cert.pub");
	ck_assert_str_eq(sc.v[SSHCONF_PROXYCOMMAND].value,
	    "ssh -W %h:%p gw");
	sshconf_free(&sc);

	/* A negated pattern; the system file's values fill the rest. */
	ck_assert_int_eq(sshconf_resolve(files, "bad.hpc", "/h", &sc, &cause),
	    0);
	ck_assert_ptr_null(sc.v[SSHCONF_HOSTNAME].value);
	ck_assert_str_eq(sc.v[SSHCONF_USER].value, "root");
	ck_assert_ptr_null(sc.v[SSHCONF_PROXYJUMP].value);
	sshconf_free(&sc);
	ck_assert_int_eq(sshconf_resolve(files, "a.hpc", "/h", &sc, &cause),
	    0);
	ck_assert_str_eq(sc.v[SSHCONF_HOSTNAME].value, "login.a.hpc.example");
	ck_assert_str_eq(sc.v[SSHCONF_USER].value, "alice");
	ck_assert_str_eq(sc.v[SSHCONF_PORT].value, "22");
	sshconf_free(&sc);

	/* A missing file is skipped; an Include loop is an error. */
	files[0] = "/nonexistent/sqdeck/config";
	files[1] = NULL;
	ck_assert_int_eq(sshconf_resolve(files, "gpu", "/h", &sc, &cause), 0);
	ck_assert_ptr_null(sc.v[SSHCONF_USER].value);
	sshconf_free(&sc);
	put_file(dir, "loop", "Include loop\n");
	free(sys);
	sys = xasprintf("%s/loop", dir);
	files[0] = sys;
	ck_assert_int_eq(sshconf_resolve(files, "gpu", "/h", &sc, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "nested"));
	free(cause);
	cause = NULL;

	ck_assert(sshconf_match("*.hpc", "A.HPC"));
	ck_assert(sshconf_match("l?gin*", "login1"));
	ck_assert(!sshconf_match("l?gin", "lgin"));

	n = sshconf_hops("ssh://u@b1:2225, [::1]:22 ,b3", &h, &cause);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(h[0].user, "u");
	ck_assert_str_eq(h[0].host, "b1");
	ck_assert_int_eq(h[0].port, 2225);
	ck_assert_str_eq(h[1].host, "::1");
	ck_assert_int_eq(h[1].port, 22);
	ck_assert_ptr_null(h[2].user);
	ck_assert_int_eq(h[2].port, 0);
	sshconf_hops_free(h, n);
	ck_assert_int_eq(sshconf_hops("none", &h, &cause), 0);
	ck_assert_int_eq(sshconf_hops("b:99999", &h, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "port"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(sshconf_hops("-oProxyCommand=x", &h, &cause), -1);
	free(cause);
	free(cfg);
	free(sys);
}
END_TEST

START_TEST(test_sshcert)
{
	const char	*dir = test_tmpdir();
	struct sshcert	 c;
	char		*text, *cause = NULL, buf[64];
	time_t		 now = time(NULL);

	text = make_cert(dir, "ed25519", "valid", "-1h:+1h");
	ck_assert_msg(sshcert_parse(text, &c, &cause) == 0, "%s", cause);
	ck_assert_str_eq(c.type, "ssh-ed25519-cert-v01@openssh.com");
	ck_assert_str_eq(c.key_id, "id of valid");
	ck_assert(c.valid_after <= (uint64_t)now - 3500 &&
	    c.valid_after >= (uint64_t)now - 3700);
	ck_assert(c.valid_before >= (uint64_t)now + 3500 &&
	    c.valid_before <= (uint64_t)now + 3700);
	ck_assert_int_eq(sshcert_when(&c, now), 0);
	ck_assert_int_eq(sshcert_when(&c, now + 7200), 1);
	ck_assert_int_eq(sshcert_when(&c, now - 7200), -1);
	{
		char	*pub = NULL, *p2 = NULL;
		char	*path = xasprintf("%s/valid.pub", dir);

		ck_assert_int_eq(file_read(path, &pub, NULL, &cause), 0);
		free(path);
		*strchr(strchr(pub, ' ') + 1, ' ') = '\0';
		ck_assert(sshcert_matches(&c, strchr(pub, ' ') + 1));
		p2 = make_cert(dir, "ed25519", "valid2", "-1h:+1h");
		free(p2);
		path = xasprintf("%s/valid2.pub", dir);
		free(pub);
		ck_assert_int_eq(file_read(path, &pub, NULL, &cause), 0);
		free(path);
		*strchr(strchr(pub, ' ') + 1, ' ') = '\0';
		ck_assert(!sshcert_matches(&c, strchr(pub, ' ') + 1));
		free(pub);
	}
	sshcert_free(&c);
	free(text);

	text = make_cert(dir, "rsa", "expired", "-2d:-1d");
	ck_assert_msg(sshcert_parse(text, &c, &cause) == 0, "%s", cause);
	ck_assert_str_eq(c.type, "ssh-rsa-cert-v01@openssh.com");
	ck_assert_int_eq(sshcert_when(&c, now), 1);
	sshcert_free(&c);
	free(text);

	text = make_cert(dir, "ecdsa", "later", "+1d:+2d");
	ck_assert_msg(sshcert_parse(text, &c, &cause) == 0, "%s", cause);
	ck_assert_int_eq(sshcert_when(&c, now), -1);
	sshcert_free(&c);
	free(text);

	text = make_cert(dir, "ed25519", "always", "always:forever");
	ck_assert_msg(sshcert_parse(text, &c, &cause) == 0, "%s", cause);
	ck_assert(c.valid_before == SSHCERT_FOREVER);
	ck_assert_int_eq(sshcert_when(&c, now), 0);
	sshcert_time(c.valid_before, buf, sizeof buf);
	ck_assert_str_eq(buf, "forever");
	sshcert_time(0, buf, sizeof buf);
	ck_assert_str_eq(buf, "1970-01-01 00:00:00 UTC");
	sshcert_free(&c);
	/* Cut short anywhere: refused, never read past the end. */
	{
		char	*sp = strchr(text, ' '), *cut;
		size_t	 n;

		ck_assert_ptr_nonnull(sp);
		for (n = 8; n < strlen(sp + 1); n += 7) {
			cut = xasprintf("%.*s", (int)(sp - text + 1 + n),
			    text);
			if (sshcert_parse(cut, &c, &cause) == 0)
				sshcert_free(&c);
			else {
				ck_assert_ptr_nonnull(cause);
				free(cause);
				cause = NULL;
			}
			free(cut);
		}
	}
	sshcert_free(&c);
	free(text);

	/* A plain public key is not a certificate. */
	ck_assert_int_eq(sshcert_parse("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA "
	    "x", &c, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "not a certificate"));
	free(cause);
}
END_TEST

static Suite *
util_suite(void)
{
	Suite	*s = suite_create("util");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_shell_quote);
	tcase_add_test(tc, test_sshcert);
	tcase_add_test(tc, test_sshconf);
	tcase_add_test(tc, test_shell_quote_roundtrip);
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_strv_split);
	tcase_add_test(tc, test_strv_many);
	tcase_add_test(tc, test_atomic_write);
	tcase_add_test(tc, test_atomic_write_symlink);
	tcase_add_test(tc, test_path_check);
	tcase_add_test(tc, test_str);
	tcase_add_test(tc, test_tail_start);
	tcase_add_test(tc, test_rsh_clears_slurm_env);
	tcase_add_test(tc, test_preflight_probe_symlink);
	tcase_add_test(tc, test_escape_controls);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(util_suite)
