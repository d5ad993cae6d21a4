/*
 * The pure parts of submit, no cluster: the job dir layout, the tar
 * stream, base64/hex/sha256, sidecar quoting, the remote scripts run by
 * the local /bin/sh (the check script on real squashfs files, the launch
 * script with stand-ins for sbatch, squeue and scontrol), the reply
 * parsers and SQDECK_TEST_FAULT's parser.  Moved here from the
 * integration suites so that `make check` runs them.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>

#include "testutil.h"
#include "enc.h"
#include "image.h"
#include "jobdir.h"
#include "rsh.h"
#include "lint.h"
#include "submit.h"
#include "util.h"

/* Run argv, stdout captured (no shell). */
static int
run(char *const argv[], char **out)
{
	const char	*dir = test_tmpdir();
	char		*of;
	pid_t		 pid;
	int		 status, fd;

	of = xasprintf("%s/run.out", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		dup2(fd, 0);
		dup2(fd, 2);
		fd = open(of, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(file_read(of, out, NULL, NULL), 0);
	free(of);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A remote script run by the local sh, as the login node would. */
static int
sh_run(const char *script, char **out)
{
	char	*argv[4];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = (char *)script;
	argv[3] = NULL;
	return run(argv, out);
}

START_TEST(test_layout)
{
	struct jobdir	 l;
	char		*name, *p;

	name = submit_job_name("train", "sd-20261129T164500-1a2b3c");
	ck_assert_str_eq(name, "train-20261129T164500-1a2b3c");
	free(name);
	name = submit_job_name(NULL, "sd-x");
	ck_assert_str_eq(name, "sqdeck-x");
	free(name);

	jobdir_make(&l, "/lustre/r/", "train-1", "sd-1");
	ck_assert_str_eq(l.job_dir, "/lustre/r/train-1");
	ck_assert_str_eq(l.spec_path, "/lustre/r/train-1/specs/spec.yaml");
	ck_assert_str_eq(l.log_dir, "/lustre/r/train-1/logs");
	ck_assert_str_eq(l.results_dir, "/lustre/r/train-1/results");
	ck_assert_str_eq(l.sbatch_path,
	    "/lustre/r/train-1/sbatch/job_sd-1.sbatch");
	ck_assert_str_eq(l.sbatch_rel, "sbatch/job_sd-1.sbatch");
	ck_assert_str_eq(l.env_path, "/lustre/r/train-1/job_sd-1.env");
	ck_assert_str_eq(l.env_rel, "job_sd-1.env");
	/* The single paths the readers use are the same ones. */
	p = jobdir_path(l.job_dir, JOBDIR_SBATCH, "sd-1");
	ck_assert_str_eq(p, l.sbatch_path);
	free(p);
	p = jobdir_path(l.job_dir, JOBDIR_ENV, "sd-1");
	ck_assert_str_eq(p, l.env_path);
	free(p);
	p = jobdir_path(l.job_dir, JOBDIR_STATUS, NULL);
	ck_assert_str_eq(p, "/lustre/r/train-1/results/status.json");
	free(p);
	p = jobdir_job_logs(l.log_dir, "train-1", "42");
	ck_assert_str_eq(p, "/lustre/r/train-1/logs/train-1-42");
	free(p);
	jobdir_free(&l);
}
END_TEST

START_TEST(test_sha256)
{
	char	 hex[65], big[1000], *m;

	enc_sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	enc_sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the padding spills into a second block. */
	enc_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopn"
	    "opq", 56, hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	memset(big, 'a', sizeof big);
	enc_sha256_hex(big, sizeof big, hex);
	ck_assert_str_eq(hex, "41edece42d63e8d9bf515a9ba6932e1c"
	    "20cbc9f5a5d134645adb5db1b9737ea3");

	m = submit_file_member("cfg/a.yaml");
	ck_assert_str_eq(m, "files/cfg/a.yaml");
	free(m);
	m = submit_file_member("../up/b.txt");
	ck_assert_str_eq(m, "files/b.txt");
	free(m);
	m = submit_file_member("/abs/c.txt");
	ck_assert_str_eq(m, "files/c.txt");
	free(m);
}
END_TEST

/* The stage stream is a tar that GNU tar reads back byte for byte. */
START_TEST(test_tar)
{
	struct buf	 b;
	char		 path[4200], *out = NULL, big[3000];
	char		*argv[8];
	struct stat	 sb;

	memset(big, 'x', sizeof big);
	big[sizeof big - 1] = '\0';
	buf_init(&b);
	enc_tar_add(&b, "specs/spec.yaml", "image: a\n", 9, 0644);
	enc_tar_add(&b, "job_sd-1.env", "K='v'\n", 6, 0600);
	enc_tar_add(&b, "big.txt", big, strlen(big), 0644);
	enc_tar_end(&b);
	ck_assert_int_eq(b.len % 512, 0);
	snprintf(path, sizeof path, "%s/t.tar", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(path, b.data, b.len, 0600, NULL), 0);
	buf_free(&b);

	argv[0] = "tar"; argv[1] = "-tvf"; argv[2] = path; argv[3] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "-rw------- "));
	ck_assert_ptr_nonnull(strstr(out, "job_sd-1.env"));
	ck_assert_ptr_nonnull(strstr(out, "specs/spec.yaml"));
	free(out);
	argv[0] = "tar"; argv[1] = "-xOf"; argv[2] = path;
	argv[3] = "big.txt"; argv[4] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_str_eq(out, big);
	free(out);
	ck_assert_int_eq(stat(path, &sb), 0);
}
END_TEST

/*
 * A name ending in / is a directory entry: stage.sh makes only the job
 * dir and tar makes specs/ ... files/ (mode 700 under umask 077).
 */
START_TEST(test_tar_dirs)
{
	struct buf	 b;
	char		*path, *dir, *out = NULL, *cmd;
	char		*argv[6];
	struct stat	 sb;

	buf_init(&b);
	enc_tar_add(&b, "logs/", NULL, 0, 0700);
	enc_tar_add(&b, "specs/", NULL, 0, 0700);
	enc_tar_add(&b, "specs/spec.yaml", "image: a\n", 9, 0644);
	enc_tar_end(&b);
	path = xasprintf("%s/d.tar", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(path, b.data, b.len, 0600, NULL), 0);
	buf_free(&b);
	argv[0] = "tar"; argv[1] = "-tvf"; argv[2] = path; argv[3] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_msg(strstr(out, "drwx------ ") != NULL &&
	    strstr(out, " logs/\n") != NULL, "no directory entry: %s", out);
	free(out);
	dir = xasprintf("%s/x", test_tmpdir());
	mkdir(dir, 0700);
	cmd = xasprintf("cd '%s' && umask 077 && tar -x -f '%s' "
	    "--no-same-owner", dir, path);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(path);
	path = xasprintf("%s/logs", dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_int_eq(sb.st_mode & 07777, 0700);
	free(path);
	free(dir);
}
END_TEST

/* The sidecar is sourced by sh: awkward values come back unchanged. */
START_TEST(test_sidecar)
{
	struct lint_secret	 sec[] = {
		{ "HF_TOKEN", "hf_it's \"quoted\" $HOME `x` \\n" },
		{ "B", "line1\nline2" },
	};
	struct lint_secret	 bad = { "NOT-A-NAME", "v" };
	char			*text, *cause = NULL, *out, *script;
	char			*argv[4];

	ck_assert_int_eq(submit_sidecar(sec, 2, &text, &cause), 0);
	script = xasprintf("%sprintf '%%s|%%s' \"$HF_TOKEN\" \"$B\"", text);
	argv[0] = "/bin/sh"; argv[1] = "-c"; argv[2] = script; argv[3] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_str_eq(out, "hf_it's \"quoted\" $HOME `x` \\n|line1\nline2");
	free(out);
	free(script);
	free(text);
	ck_assert_int_eq(submit_sidecar(&bad, 1, &text, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "NOT-A-NAME"));
	free(cause);
}
END_TEST

/*
 * The check script run by the local sh on real squashfs files: what it
 * reports feeds image_sqsh_check, which accepts the whole image and
 * refuses the truncated copy; paths are reported by index.
 */
START_TEST(test_check_script)
{
	struct submit_check	 ck;
	const char		*paths[3];
	char			 root[4200], img[4200], half[4200], *cmd;
	char			*script, *out, *cause = NULL, *argv[4];
	char			 odd[4200];

	snprintf(root, sizeof root, "%s/root", test_tmpdir());
	snprintf(img, sizeof img, "%s/img.sqsh", test_tmpdir());
	snprintf(half, sizeof half, "%s/half.sqsh", test_tmpdir());
	snprintf(odd, sizeof odd, "%s/it's a dir", test_tmpdir());
	mkdir(root, 0700);
	mkdir(odd, 0700);
	cmd = xasprintf("head -c 50000 /dev/urandom >'%s/f' && "
	    "mksquashfs '%s' '%s' -noappend -quiet -no-progress >/dev/null && "
	    "head -c $(( $(stat -c %%s '%s') / 2 )) '%s' >'%s'", root, root,
	    img, img, img, half);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);

	paths[0] = root;
	paths[1] = "/nonexistent/sqdeck/x";
	paths[2] = odd;
	script = submit_check_script(paths, 3, img, "nvcr.io");
	argv[0] = "/bin/sh"; argv[1] = "-c"; argv[2] = script; argv[3] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_int_eq(submit_check_parse(out, 3, &ck, &cause), 0);
	ck_assert_int_eq(ck.exists[0], 1);
	ck_assert_int_eq(ck.exists[1], 0);
	ck_assert_int_eq(ck.exists[2], 1);
	ck_assert_int_eq(ck.image_exists, 1);
	ck_assert_uint_eq(ck.headlen, IMAGE_SQSH_HEADER);
	ck_assert_int_eq(ck.creds, 0);
	ck_assert_int_eq(image_sqsh_check(ck.head, ck.headlen, ck.image_size,
	    img, &cause), 0);
	submit_check_free(&ck);
	free(script);
	free(out);

	script = submit_check_script(NULL, 0, half, NULL);
	argv[2] = script;
	ck_assert_int_eq(run(argv, &out), 0);
	ck_assert_int_eq(submit_check_parse(out, 0, &ck, &cause), 0);
	ck_assert_int_eq(ck.image_exists, 1);
	ck_assert_int_eq(image_sqsh_check(ck.head, ck.headlen, ck.image_size,
	    half, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "truncated"));
	free(cause);
	submit_check_free(&ck);
	free(script);
	free(out);

	/* A script cut short is an error, not "all paths missing". */
	ck_assert_int_eq(submit_check_parse("path 0 1\n", 2, &ck, &cause), -1);
	free(cause);
	submit_check_free(&ck);
}
END_TEST

/*
 * imgfast (one stat for the image, its directory, its digest and our
 * uid) prints the very lines of report and cstat as they were before it
 * (stat, od | tr, id, stat, stat, head | tr): the gate compares them with
 * the text the client validated, so one byte apart would refuse a good
 * cached image.  Each digest case: a clean one, one with bytes tr drops,
 * a symlink, none; and no prefix (a spec's own .sqsh: the image line).
 */
static const char *imgfast_ref =
    "ref() {\n"
    "	printf 'image 1 %s %s\\n' \"$(stat -L -c %s -- \"$1\")\" "
    "\"$(od -An -v -tx1 -N96 -- \"$1\" | tr -d ' \\n')\"\n"
    "	[ -n \"$2\" ] || return 0\n"
    "	printf '%sme %s\\n' \"$2\" \"$(id -u)\"\n"
    "	printf '%sfile %s\\n' \"$2\" \"$(stat -c '%u %a %U' -- \"$1\")\"\n"
    "	printf '%sdir %s\\n' \"$2\" \"$(stat -L -c '%u %a' -- \"${1%/*}\")\"\n"
    "	if [ -L \"$1.digest\" ]; then printf '%sdigest link\\n' \"$2\"\n"
    "	elif [ -f \"$1.digest\" ]; then printf '%sdigest %s %s\\n' \"$2\" "
    "\"$(stat -c '%u %a' -- \"$1.digest\")\" "
    "\"$(head -c 100 -- \"$1.digest\" | tr -cd 'a-z0-9:')\"; fi\n"
    "}\n";

START_TEST(test_imgfast_same_lines)
{
	struct buf	 b;
	char		*img, *out = NULL;
	const char	*digest[] = {
		"printf 'sha256:%s\\n' 0123abcdef >\"$f.digest\"",
		"printf 'sha256:AB c\\001d\\033[1m:ef\\n\\n2nd' >\"$f.digest\"",
		"ln -s /etc/passwd \"$f.digest\"",
		":",
	};
	size_t		 i;

	img = xasprintf("%s/it's img.sqsh", test_tmpdir());
	for (i = 0; i < sizeof digest / sizeof digest[0]; i++) {
		buf_init(&b);
		rsh_var(&b, "f", img);
		buf_printf(&b, "rm -f -- \"$f\" \"$f.digest\"\n"
		    "head -c 300 /dev/urandom >\"$f\" && chmod 640 \"$f\"\n"
		    "%s\n", digest[i]);
		buf_adds(&b, rsh_text("lib-report.sh"));
		buf_adds(&b, rsh_text("lib-cstat.sh"));
		buf_adds(&b, imgfast_ref);
		/* Its fp line (imgfast_known) is its own: not compared. */
		buf_adds(&b, "a=$(imgfast \"$f\" 'cache ') || echo imgfast failed\n"
		    "a=$(printf '%s\\n' \"$a\" | sed '/^image fp /d')\n"
		    "r=$(ref \"$f\" 'cache ')\n"
		    "[ \"$a\" = \"$r\" ] || printf 'DIFF\\n%s\\n--\\n%s\\n' \"$a\" \"$r\"\n"
		    "a=$(imgfast \"$f\" '') || echo imgfast failed\n"
		    "a=$(printf '%s\\n' \"$a\" | sed '/^image fp /d')\n"
		    "r=$(ref \"$f\" '')\n"
		    "[ \"$a\" = \"$r\" ] || printf 'DIFF\\n%s\\n--\\n%s\\n' \"$a\" \"$r\"\n"
		    "r=$(printf 'image 1 %s' \"$(report \"$f\")\")\n"
		    "[ \"$a\" = \"$r\" ] || printf 'DIFF report\\n%s\\n--\\n%s\\n' \"$a\" \"$r\"\n"
		    "r=$(ref \"$f\" 'cache ' | sed 1d)\n"
		    "a=$(cstat \"$f\" 'cache ')\n"
		    "[ \"$a\" = \"$r\" ] || printf 'DIFF cstat\\n%s\\n--\\n%s\\n' \"$a\" \"$r\"\n"
		    "echo end\n");
		ck_assert_int_eq(sh_run(b.data, &out), 0);
		ck_assert_msg(strcmp(out, "end\n") == 0, "digest case %zu: %s",
		    i, out);
		free(out);
		buf_free(&b);
	}
	/* A symlinked image: imgfast declines, the caller asks the others. */
	buf_init(&b);
	rsh_var(&b, "f", img);
	buf_adds(&b, "ln -sf \"$f\" \"$f.l\"");
	ck_assert_int_eq(system(b.data), 0);
	buf_free(&b);
	buf_init(&b);
	rsh_var(&b, "f", img);
	buf_adds(&b, rsh_text("lib-cstat.sh"));
	buf_adds(&b, "imgfast \"$f.l\" 'cache ' || echo declined\n");
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	ck_assert_str_eq(out, "declined\n");
	free(out);
	buf_free(&b);
	free(img);
}
END_TEST

/*
 * The warm path: given the lines the client validated (KNOWN), imgfast
 * takes the header and the digest from them while the image's and the
 * digest's device, inode, mtime and ctime are the ones KNOWN's fp line
 * holds (od and head are not started); once either file is written its
 * fp line differs and they are read again.  Here KNOWN carries a header
 * and a digest that are not the file's: seeing them back proves they were
 * reused, seeing the file's proves they were read.
 */
START_TEST(test_imgfast_known)
{
	struct buf	 b;
	char		*img, *out = NULL;

	img = xasprintf("%s/known img.sqsh", test_tmpdir());
	buf_init(&b);
	rsh_var(&b, "f", img);
	buf_adds(&b, "rm -f -- \"$f\" \"$f.digest\"\n"
	    "printf 'hsqs0123' >\"$f\" && printf 'sha256:abc\\n' >\"$f.digest\"\n");
	buf_adds(&b, rsh_text("lib-report.sh"));
	buf_adds(&b, rsh_text("lib-cstat.sh"));
	buf_adds(&b, "a=$(imgfast \"$f\" 'cache ') || echo imgfast failed\n"
	    "printf '%s\\n' \"$a\" | grep -q '^image fp ' || echo no fp line\n"
	    /* KNOWN with another header and digest, the same fp line. */
	    "k=$(printf '%s\\n' \"$a\" | sed 's/^image 1 8 .*/image 1 8 00ff/;"
	    " s/sha256:abc$/sha256:kept/')\n"
	    "c=$(imgfast \"$f\" 'cache ' \"$k\")\n"
	    "[ \"$c\" = \"$k\" ] || printf 'NOT REUSED\\n%s\\n--\\n%s\\n' \"$c\" \"$k\"\n"
	    "sleep 0.05; printf 'hsqs4567' >\"$f\"\n"
	    "c=$(imgfast \"$f\" 'cache ' \"$k\")\n"
	    "case $c in *'image 1 8 6873717334353637'*'sha256:abc'*) ;;\n"
	    "*) printf 'NOT READ AGAIN\\n%s\\n' \"$c\" ;; esac\n"
	    "a=$(imgfast \"$f\" 'cache ')\n"
	    "k=$(printf '%s\\n' \"$a\" | sed 's/sha256:abc$/sha256:kept/')\n"
	    "sleep 0.05; printf 'sha256:abd\\n' >\"$f.digest\"\n"
	    "c=$(imgfast \"$f\" 'cache ' \"$k\")\n"
	    "case $c in *'sha256:abd') ;; *) printf 'DIGEST NOT READ\\n%s\\n' \"$c\" ;; esac\n"
	    "echo end\n");
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	ck_assert_msg(strcmp(out, "end\n") == 0, "%s", out);
	free(out);
	buf_free(&b);
	free(img);
}
END_TEST

/*
 * stage.sh without a tar (no supporting files): one mkdir makes the job
 * dir and its folders, the shell writes each file byte for byte (quotes,
 * $( ), backslashes, trailing newlines), every file mode 600 and every
 * folder 700 under umask 077, the sidecar's mode said; a job dir that
 * exists already is refused with nothing written into it.
 */
START_TEST(test_stage_text)
{
	static const char *const names[] = { "specs/spec.yaml",
	    "sbatch/j.sbatch", "job.env" };
	static const char *const texts[] = {
	    "name: 'it''s'\ncommand: echo $(id) `id` \\ \"x\"\n\n\n",
	    "#!/bin/bash\necho \"$HOME\" '$x'\n",
	    "TOKEN='s3cr3t'\\''q'\n" };
	static const char *const dirs[] = { "", "/specs", "/env", "/meta",
	    "/sbatch", "/logs", "/results", "/files" };
	struct buf	 b;
	struct stat	 sb;
	char		*jd, *out = NULL, *p, *text, var[16];
	size_t		 i, len;

	jd = xasprintf("%s/stage it's dir", test_tmpdir());
	buf_init(&b);
	rsh_var(&b, "jd", jd);
	rsh_var(&b, "envf", "job.env");
	rsh_var(&b, "nfiles", "3");
	for (i = 0; i < 3; i++) {
		snprintf(var, sizeof var, "fn%zu", i);
		rsh_var(&b, var, names[i]);
		snprintf(var, sizeof var, "ft%zu", i);
		rsh_var(&b, var, texts[i]);
	}
	buf_adds(&b, "umask 022\n");
	rsh_embed(&b, "lib-wipe.sh");
	rsh_embed(&b, "stage.sh");
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	ck_assert_str_eq(out, "sqdeck-env-mode=600\nsqdeck-stage=ok\n");
	free(out);
	for (i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", jd, names[i]);
		ck_assert_int_eq(file_read(p, &text, &len, NULL), 0);
		ck_assert_uint_eq(len, strlen(texts[i]));
		ck_assert_msg(memcmp(text, texts[i], len) == 0, "%s: %s",
		    names[i], text);
		ck_assert_int_eq(stat(p, &sb), 0);
		ck_assert_int_eq(sb.st_mode & 07777, 0600);
		free(text);
		free(p);
	}
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		p = xasprintf("%s%s", jd, dirs[i]);
		ck_assert_int_eq(stat(p, &sb), 0);
		ck_assert_int_eq(sb.st_mode & 07777, 0700);
		free(p);
	}
	/* Sent again (again=0): refused, nothing written into it. */
	p = xasprintf("%s/specs/spec.yaml", jd);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	ck_assert_msg(strstr(out, "sqdeck-stage-error=") != NULL &&
	    strstr(out, "sqdeck-stage=ok") == NULL, "%s", out);
	free(out);
	ck_assert_int_eq(stat(p, &sb), -1);
	free(p);
	buf_free(&b);
	free(jd);
}
END_TEST

/* A value of NAME='...' in a script. */
static int
script_has(const char *script, const char *assign)
{
	return strstr(script, assign) != NULL;
}

/*
 * Issue 24: the import job reserves at least 120 min; the client's limit
 * follows it (it killed the import at 60 min before), and never outlives
 * a reservation that a partition's MaxTime caps.
 */
START_TEST(test_import_limits)
{
	struct submit_convert_args	 a;
	char				*script;
	int				 t, m;

	memset(&a, 0, sizeof a);
	a.cache_dir = "/c";
	a.cache_name = "n.sqsh";
	a.uri = "docker://r#i:1";
	a.partition = "cpu";
	a.job_name = "j-import";
	a.max_minutes = -1;
	script = submit_convert_script(&a);
	ck_assert_msg(script_has(script, "tmo='7080'\n") &&
	    script_has(script, "mins='120'\n"), "%s", script);
	free(script);
	a.timeout = 3600;
	script = submit_convert_script(&a);
	ck_assert(script_has(script, "tmo='3600'\n"));
	ck_assert(script_has(script, "mins='120'\n"));
	free(script);

	submit_import_limits(0, -1, &t, &m);
	ck_assert_int_eq(t, 7080);
	ck_assert_int_eq(m, 120);
	submit_import_limits(10000, -1, &t, &m);
	ck_assert_int_eq(t, 10000);
	ck_assert_int_eq(m, 169);
	/* MaxTime 60: the reservation is 60 min, the client waits 58. */
	submit_import_limits(0, 60, &t, &m);
	ck_assert_int_eq(m, 60);
	ck_assert_int_eq(t, 3480);
	submit_import_limits(7200, 60, &t, &m);
	ck_assert_int_eq(t, 3480);
	submit_import_limits(600, 60, &t, &m);
	ck_assert_int_eq(t, 600);
	ck_assert_int_eq(m, 60);
}
END_TEST

/*
 * The gate of the one round trip (submit.sh): it passes only when every
 * path exists and the image lines are the ones validated before; its
 * answer names the part that stopped it.
 */
static char *
gate_run(const char *path, const char *img, const char *want)
{
	struct buf	 b;
	char		*out, *argv[4];

	buf_init(&b);
	rsh_var(&b, "img", img);
	rsh_var(&b, "reg", "");
	rsh_var(&b, "want", want);
	rsh_var(&b, "cutat", "");
	buf_adds(&b, "set -- ");
	buf_add_quoted(&b, path);
	buf_adds(&b, "\n");
	rsh_embed(&b, "lib-report.sh");
	rsh_embed(&b, "lib-cstat.sh");
	rsh_embed(&b, "check.sh");
	rsh_embed(&b, "submit.sh");
	buf_adds(&b, "echo passed\n");
	argv[0] = "/bin/sh"; argv[1] = "-c"; argv[2] = b.data; argv[3] = NULL;
	ck_assert_int_eq(run(argv, &out), 0);
	buf_free(&b);
	return out;
}

START_TEST(test_gate)
{
	char	img[4200], *out, *text, *bad;

	snprintf(img, sizeof img, "%s/gate.sqsh", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(img, "hsqs0123456789", 14, 0600,
	    NULL), 0);
	/* Nothing validated yet: the check answers, nothing goes on. */
	out = gate_run(test_tmpdir(), img, "");
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-gate=image\n"));
	ck_assert_ptr_null(strstr(out, "passed"));
	text = submit_imgok_text(out);
	ck_assert_msg(str_has_prefix(text, "image 1 14 "), "%s", text);
	free(out);
	/* The lines validated: on to the stage. */
	out = gate_run(test_tmpdir(), img, text);
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-gate=ok\npassed\n"));
	free(out);
	out = gate_run(test_tmpdir(), img, "-");
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-gate=ok\npassed\n"));
	free(out);
	/* The file changed since (another size): checked again. */
	ck_assert_int_eq(file_write_atomic(img, "hsqs0123456789abc", 17,
	    0600, NULL), 0);
	out = gate_run(test_tmpdir(), img, text);
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-gate=image\n"));
	ck_assert_ptr_null(strstr(out, "passed"));
	free(out);
	/* A missing path stops it first. */
	bad = xasprintf("%s/no-such-dir", test_tmpdir());
	out = gate_run(bad, img, "-");
	ck_assert_ptr_nonnull(strstr(out, "path 0 0\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-gate=check\n"));
	ck_assert_ptr_null(strstr(out, "passed"));
	free(out);
	free(bad);
	free(text);
}
END_TEST

START_TEST(test_parsers)
{
	struct submit_launch		l;
	struct submit_convert_result	c;

	submit_launch_parse("sqdeck-sbatch-rc=0\nsqdeck-out=42\n"
	    "sqdeck-release-rc=0\nsqdeck-state=PENDING None\n", &l);
	ck_assert_int_eq(l.sbatch_rc, 0);
	ck_assert_str_eq(l.out, "42");
	ck_assert_int_eq(l.released, 1);
	ck_assert_str_eq(l.state, "PENDING");
	ck_assert_str_eq(l.reason, "None");
	submit_launch_free(&l);

	/* Release refused while still held: not released. */
	submit_launch_parse("sqdeck-sbatch-rc=0\nsqdeck-out=42\n"
	    "sqdeck-release-rc=1\nsqdeck-release-msg=boom\n"
	    "sqdeck-state=PENDING JobHeldUser\n", &l);
	ck_assert_int_eq(l.released, 0);
	ck_assert_str_eq(l.release_msg, "boom");
	submit_launch_free(&l);

	/* Release refused because the job already ran: fine. */
	submit_launch_parse("sqdeck-release-rc=1\n"
	    "sqdeck-state=COMPLETED None\n", &l);
	ck_assert_int_eq(l.released, 1);
	ck_assert_int_eq(l.sbatch_rc, -1);
	submit_launch_free(&l);

	submit_convert_parse("[INFO] Fetching\nsqdeck-rc=1\n[ERROR] 404\n"
	    "sqdeck-convert=failed\n", &c);
	ck_assert_int_eq(c.verdict, SUBMIT_CONVERT_FAILED);
	ck_assert_int_eq(c.rc, 1);
	ck_assert_str_eq(c.output, "[INFO] Fetching\n[ERROR] 404");
	submit_convert_free(&c);
	/* No verdict line: the script died. */
	submit_convert_parse("sqdeck-rc=0\n", &c);
	ck_assert_int_eq(c.verdict, SUBMIT_CONVERT_ERROR);
	submit_convert_free(&c);
}
END_TEST

START_TEST(test_encodings)
{
	struct buf	 b;
	unsigned char	 bytes[4] = { 0x00, 0xab, 0x7f, 0xff }, back[8];
	char		 hex[9];

	enc_hex(hex, bytes, sizeof bytes);
	ck_assert_str_eq(hex, "00ab7fff");
	ck_assert_uint_eq(enc_unhex("00AB7fff", back, sizeof back), 4);
	ck_assert_int_eq(memcmp(back, bytes, 4), 0);
	/* od's output cut short or garbled stops at the first bad digit. */
	ck_assert_uint_eq(enc_unhex("00a", back, sizeof back), 1);
	ck_assert_uint_eq(enc_unhex("0g11", back, sizeof back), 0);
	buf_init(&b);
	enc_base64(&b, "Ma", 2);
	enc_base64(&b, "n", 1);
	enc_base64(&b, "Man", 3);
	buf_add(&b, "", 1);
	ck_assert_str_eq(b.data, "TWE=bg==TWFu");
	buf_free(&b);
}
END_TEST

/* A value reaches the remote sh as it was: quoted assignments. */
START_TEST(test_var_quoting)
{
	static const char	*v = "it's \"q\" $HOME `id` \\ ;|&\nline2 *";
	struct buf		 b;
	char			*out;

	buf_init(&b);
	rsh_var(&b, "v", v);
	rsh_var(&b, "none", NULL);
	buf_adds(&b, "printf '%s|%s' \"$v\" \"$none\"");
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	ck_assert_str_eq(out, "it's \"q\" $HOME `id` \\ ;|&\nline2 *|");
	free(out);
	buf_free(&b);
}
END_TEST

/*
 * The job dir (with its sbatch/) and a bin dir of stand-ins made by the
 * shell command make, run in bin; bin goes first on PATH.  Returns the
 * PATH before, for the caller to put back.
 */
static char *
launch_standins(const char *bin, const char *jd, const char *make)
{
	char	*path, *cmd, *old;

	mkdir(bin, 0700);
	mkdir(jd, 0700);
	path = xasprintf("%s/sbatch", jd);
	mkdir(path, 0700);
	free(path);
	cmd = xasprintf("cd '%s' && %s", bin, make);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	old = xstrdup(getenv("PATH"));
	path = xasprintf("%s:%s", bin, old);
	setenv("PATH", path, 1);
	free(path);
	return old;
}

/*
 * The launch script (templates/remote/launch.sh) run by the local sh in
 * a job dir whose name needs quoting, with stand-ins for sbatch, squeue
 * and scontrol: what it prints is what submit_launch_parse reads.
 */
static void
launch_case(const char *fault, int hold, const char *want_state)
{
	struct submit_launch	 l;
	struct stat		 sb;
	char			*bin, *jd, *logs, *script, *out, *path;
	char			*old;

	bin = xasprintf("%s/bin", test_tmpdir());
	jd = xasprintf("%s/it's a job", test_tmpdir());
	logs = xasprintf("%s/logs", jd);
	old = launch_standins(bin, jd, "printf '#!/bin/sh\\necho \"PENDING "
	    "JobHeldUser\"\\n' >squeue && printf '#!/bin/sh\\nexit 0\\n' "
	    ">scontrol && chmod +x squeue scontrol");
	/* The sbatch command line: its values quoted by the caller. */
	script = submit_launch_script(jd, "printf '%s\\n' '42;cl'; "
	    "echo warn >&2", logs, "job-1", fault, hold);
	ck_assert_int_eq(sh_run(script, &out), 0);
	setenv("PATH", old, 1);
	free(old);
	submit_launch_parse(out, &l);
	ck_assert_int_eq(l.sbatch_rc, 0);
	if (fault != NULL && strcmp(fault, "empty-reply") == 0) {
		ck_assert_ptr_null(l.out);
		ck_assert_ptr_null(l.err);
		ck_assert_int_eq(l.released, 0);
	} else {
		ck_assert_str_eq(l.out, "42;cl");
		ck_assert_str_eq(l.err, "warn");
		path = xasprintf("%s/job-1-42", logs);
		ck_assert_int_eq(stat(path, &sb), 0);
		free(path);
		ck_assert_int_eq(l.mkdir_failed, 0);
		if (want_state != NULL)
			ck_assert_str_eq(l.state, want_state);
		else
			ck_assert_ptr_null(l.state);
		ck_assert_int_eq(l.released, 1);
	}
	submit_launch_free(&l);
	free(out);
	free(script);
	free(logs);
	free(jd);
	free(bin);
}

/*
 * The login node's processes on the warm path: imgfast's stat is started
 * by the check's own shell (no $(...) around the check), sbatch by the
 * shell of the one $(...) that takes its stdout.  A stand-in stat and
 * sbatch write their parent's parent: the script's shell when the fork
 * is gone (on main's scripts, a subshell's: this test failed there).
 */
START_TEST(test_remote_forks)
{
	struct buf	 b;
	char		*bin, *jd, *img, *old, *out, *path, *want, *p;
	char		 me[64];
	int		 k;

	bin = xasprintf("%s/forkbin", test_tmpdir());
	jd = xasprintf("%s/fork job", test_tmpdir());
	img = xasprintf("%s/fork.sqsh", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(img, "hsqs0123456789", 14, 0600,
	    NULL), 0);
	old = launch_standins(bin, jd, "printf '#!/bin/sh\\necho $PPID "
	    ">>\"$0.gp\"\\nexec /usr/bin/stat \"$@\"\\n' "
	    ">stat && printf '#!/bin/sh\\nps -o ppid= -p $PPID | tr -d \" \" "
	    ">>\"$0.gp\"\\necho 7\\n' >sbatch && printf '#!/bin/sh\\n' "
	    ">scontrol && chmod +x stat sbatch scontrol");
	buf_init(&b);
	buf_adds(&b, "echo \"main=$$\"\n");
	rsh_var(&b, "img", img);
	rsh_var(&b, "reg", "");
	buf_adds(&b, "set --\n");
	rsh_embed(&b, "lib-report.sh");
	rsh_embed(&b, "lib-cstat.sh");
	rsh_embed(&b, "check.sh");
	buf_adds(&b, "want=\n");
	want = submit_launch_script(jd, "sbatch --parsable", jd, "job-1", "",
	    0);
	buf_adds(&b, want);
	free(want);
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	setenv("PATH", old, 1);
	buf_free(&b);
	ck_assert_ptr_nonnull((p = strstr(out, "main=")));
	snprintf(me, sizeof me, "%.*s\n", (int)strcspn(p + 5, "\n"), p + 5);
	ck_assert_ptr_nonnull(strstr(out, "\nsqdeck-out=7\n"));
	free(out);
	for (k = 0; k < 2; k++) {
		path = xasprintf("%s/%s.gp", bin, k == 0 ? "stat" : "sbatch");
		ck_assert_int_eq(file_read(path, &out, NULL, NULL), 0);
		ck_assert_msg(strcmp(out, me) == 0, "%s %s, the script's "
		    "shell %s", k == 0 ? "stat's parent" :
		    "sbatch's grandparent", out, me);
		free(out);
		free(path);
	}
	free(old);
	free(img);
	free(jd);
	free(bin);
}
END_TEST

/* Two renders of one spec, the stamps of two record ids: one shape. */
START_TEST(test_shape_key)
{
	const char	*a = "#SBATCH -J t-20261203T001414-f68bc9\n"
	    "d='/r/t-20261203T001414-f68bc9'; id=sd-20261203T001414-f68bc9\n";
	const char	*b = "#SBATCH -J t-20270101T000000-0a0b0c\n"
	    "d='/r/t-20270101T000000-0a0b0c'; id=sd-20270101T000000-0a0b0c\n";
	const char	*c = "#SBATCH -J t-20270101T000000-0a0b0c\n"
	    "d='/r/u-20270101T000000-0a0b0c'; id=sd-20270101T000000-0a0b0c\n";
	char		 ka[65], kb[65], kc[65];

	ck_assert_int_eq(lint_shape_key(a, "20261203T001414-f68bc9", "bash 1",
	    ka), 0);
	ck_assert_int_eq(lint_shape_key(b, "20270101T000000-0a0b0c", "bash 1",
	    kb), 0);
	ck_assert_str_eq(ka, kb);
	/* Any other byte apart, or another bash: another shape. */
	ck_assert_int_eq(lint_shape_key(c, "20270101T000000-0a0b0c", "bash 1",
	    kc), 0);
	ck_assert_str_ne(ka, kc);
	ck_assert_int_eq(lint_shape_key(b, "20270101T000000-0a0b0c", "bash 2",
	    kc), 0);
	ck_assert_str_ne(ka, kc);
	/* Not a stamp of that form, or the fixed text there already: none. */
	ck_assert_int_eq(lint_shape_key(a, "2026120T001414-f68bc9", "b", ka),
	    -1);
	ck_assert_int_eq(lint_shape_key(a, "20261203T001414-F68BC9", "b", ka),
	    -1);
	ck_assert_int_eq(lint_shape_key(a, "20261203T001414 f68bc9", "b", ka),
	    -1);
	ck_assert_int_eq(lint_shape_key("x=00000000T000000-000000\n",
	    "20261203T001414-f68bc9", "b", ka), -1);
}
END_TEST

/*
 * Why one verdict holds for a shape: a stamp's text parses alike
 * wherever it stands.  Each context, valid and broken, checked by bash -n
 * with stamps of all digits, all letters after the '-', and the fixed
 * text: the same verdict each time.
 */
START_TEST(test_shape_verdict)
{
	static const char *const ctx[] = {
		"echo $S\n", "x=$S\n", "x=${v-$S}\n", "x=${v:-$S}\n",
		"cat <<$S\nbody\n$S\n", "cat <<'$S'\nbody\n$S\n",
		"$S() { :; }\n", "case $S in $S) ;; esac\n",
		"[[ -f $S ]]\n", "[[ $S == $S ]]\n", "echo $$S\n",
		"echo ${#S}\n", "a[$S]=1\n", "echo $S>f\n", "{$S}>f\n",
		"echo $(( $S ))\n", "for $S in x; do :; done\n",
		"echo \"$S\" '$S'\n", "# $S\n", "f $S <<< $S\n",
		"$S=1 true\n", "echo $S)\n", "cat <<$S\nbody\n",
		"if $S; then :; fi\n", "x=$S$S-$S\n",
	};
	static const char *const stamps[] = {
		"00000000T000000-000000", "20261203T001414-f68bc9",
		"99999999T999999-abcdef", "12345678T123456-999999",
	};
	struct buf	 b;
	const char	*p;
	char		*why;
	size_t		 i, j;
	int		 first = 0, v;

	for (i = 0; i < sizeof ctx / sizeof ctx[0]; i++) {
		for (j = 0; j < sizeof stamps / sizeof stamps[0]; j++) {
			buf_init(&b);
			for (p = ctx[i]; *p != '\0'; p++) {
				if (p[0] == '$' && p[1] == 'S') {
					buf_adds(&b, stamps[j]);
					p++;
				} else
					buf_add(&b, p, 1);
			}
			buf_add(&b, "", 1);
			why = NULL;
			v = lint_bash_syntax("t", b.data, &why);
			free(why);
			if (j == 0)
				first = v;
			ck_assert_msg(v == first, "context %zu, stamp %s: "
			    "bash -n %d, with %s %d", i, stamps[j], v,
			    stamps[0], first);
			buf_free(&b);
		}
	}
}
END_TEST

START_TEST(test_launch_script)
{
	launch_case(NULL, 0, NULL);
}
END_TEST

START_TEST(test_launch_script_hold)
{
	/* Held on purpose: squeue says so, and nothing is released. */
	launch_case(NULL, 1, "PENDING");
}
END_TEST

START_TEST(test_launch_script_empty_reply)
{
	launch_case("empty-reply", 0, NULL);
}
END_TEST

/*
 * The cleanup job's sbatch runs after the reply: the script ends while it
 * still waits (here, for a file that appears only once the script has
 * ended; the launch before this change waited for it, so this case hung
 * until its timeout), and its answer lands in sbatch/.wipe.* later.
 */
START_TEST(test_launch_cleanup_after_reply)
{
	struct submit_launch	 l;
	struct buf		 b;
	char			*bin, *jd, *logs, *script, *cmd, *out, *flag;
	char			*old, *path;
	int			 k, seen = 0;

	bin = xasprintf("%s/bin", test_tmpdir());
	jd = xasprintf("%s/it's a job", test_tmpdir());
	logs = xasprintf("%s/logs", jd);
	flag = xasprintf("%s/go", test_tmpdir());
	old = launch_standins(bin, jd, "printf '#!/bin/sh\\nexit 0\\n' "
	    ">scontrol && chmod +x scontrol");
	buf_init(&b);
	/* The stand-in sbatch of the cleanup job waits for the flag. */
	path = xasprintf("while [ ! -e %s ]; do sleep 0.05; done; echo 43 "
	    "\"$*\"", flag);
	cmd = shell_quote(path);
	free(path);
	path = xasprintf("sh -c %s wipe", cmd);
	free(cmd);
	rsh_var(&b, "wcmd", path);
	free(path);
	script = submit_launch_script(jd, "echo '42;cl'", logs, "job-1", NULL,
	    0);
	buf_adds(&b, script);
	free(script);
	ck_assert_int_eq(sh_run(b.data, &out), 0);
	buf_free(&b);
	setenv("PATH", old, 1);
	free(old);
	submit_launch_parse(out, &l);
	ck_assert_int_eq(l.released, 1);
	ck_assert_msg(strstr(out, "sqdeck-wipejob=queued 42\n") != NULL,
	    "no cleanup job said: %s", out);
	submit_launch_free(&l);
	free(out);
	ck_assert_int_eq(file_write_atomic(flag, "", 0, 0600, NULL), 0);
	path = shell_quote(jd);
	cmd = xasprintf("cat %s/sbatch/.wipe.* 2>/dev/null", path);
	free(path);
	for (k = 0; k < 200 && !seen; k++) {
		char	*argv[4] = { "/bin/sh", "-c", cmd, NULL };

		if (k != 0)
			usleep(50000);
		ck_assert_int_ge(run(argv, &out), 0);
		seen = strcmp(out, "43 --dependency=afterany:42\n") == 0;
		free(out);
	}
	ck_assert_msg(seen, "the cleanup job's answer is not in sbatch/.wipe.*");
	free(cmd);
	free(flag);
	free(logs);
	free(jd);
	free(bin);
}
END_TEST

START_TEST(test_faults_parse)
{
	struct submit_faults	 f;
	char			*cause = NULL;

	ck_assert_int_eq(submit_faults_parse(NULL, &f, &cause), 0);
	ck_assert_int_eq(f.n, 0);
	ck_assert_ptr_null(f.launch);
	ck_assert_int_eq(submit_faults_parse("after-sbatch", &f, &cause), 0);
	ck_assert_str_eq(f.launch, "after-sbatch");
	ck_assert_int_eq(submit_faults_parse("empty-reply,cut-after:stage,"
	    "kill:launch,stop-before:recover", &f, &cause), 0);
	ck_assert_str_eq(f.launch, "empty-reply");
	ck_assert_int_eq(f.n, 3);
	ck_assert_int_eq(f.v[0].kind, SUBMIT_FAULT_CUT_AFTER);
	ck_assert_str_eq(f.v[0].point, "stage");
	ck_assert_int_eq(f.v[1].kind, SUBMIT_FAULT_KILL_AFTER);
	ck_assert_str_eq(f.v[1].point, "launch");
	ck_assert_int_eq(f.v[2].kind, SUBMIT_FAULT_STOP_BEFORE);
	ck_assert_str_eq(f.v[2].point, "recover");
	/* A typo must not pass as "no fault". */
	ck_assert_int_eq(submit_faults_parse("cut-before:stag", &f, &cause),
	    -1);
	ck_assert_ptr_nonnull(strstr(cause, "cut-before:stag"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(submit_faults_parse("cut-during:stage", &f, &cause),
	    -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(submit_faults_parse("after-sbach", &f, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(submit_faults_parse("kill:check,kill:check,"
	    "kill:check,kill:check,kill:check", &f, &cause), -1);
	free(cause);
}
END_TEST

/*
 * Run lib-mdig.sh's mdig against a stand-in curl whose registry answers
 * 401 with realm; returns what the stand-in was asked (one line a call).
 */
static char *
mdig_calls(const char *realm, const char *allow_http)
{
	const char	*dir = test_tmpdir();
	char		*cmd, *out = NULL, *cause = NULL, *path;
	FILE		*f;

	path = xasprintf("mkdir -p %s/bin %s/cfg/enroot && echo 'machine "
	    "reg.example login u password p' >%s/cfg/enroot/.credentials && "
	    "rm -f %s/calls", dir, dir, dir, dir);
	ck_assert_int_eq(system(path), 0);
	free(path);
	path = xasprintf("%s/bin/curl", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\necho \"CURL $*\" >>%s/calls\n"
	    "h=; o=; p=\nfor a; do case $p in -D) h=$a ;; -o) o=$a ;; esac; "
	    "p=$a; done\n"
	    "if [ -n \"$h\" ]; then printf 'HTTP/1.1 401\\r\\n"
	    "Www-Authenticate: Bearer realm=\"%%s\",service=\"svc\","
	    "scope=\"repo:x:pull\"\\r\\n' \"$REALM\" >\"$h\"; "
	    "printf 401; exit 0; fi\n"
	    "case \"$*\" in *--data-urlencode*) echo '{\"token\":\"tk\"}'; "
	    "exit 0 ;; esac\n"
	    "[ -z \"$o\" ] || echo manifest >\"$o\"; printf 200\n", dir);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	cmd = xasprintf("cd %s && PATH=%s/bin:$PATH REALM='%s' "
	    "ENROOT_ALLOW_HTTP=%s ENROOT_CONFIG_PATH=%s/cfg/enroot "
	    "mreg=reg.example mrepo=x mref=1 sh -c '. %s/../templates/remote/"
	    "lib-mdig.sh; mdig' >/dev/null 2>&1", dir, dir, realm,
	    allow_http, dir, TESTS_SRCDIR);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	path = xasprintf("%s/calls", dir);
	ck_assert_msg(file_read(path, &out, NULL, &cause) == 0, "%s", cause);
	free(path);
	return out;
}

/*
 * After a 401 the digest helper follows the registry's auth realm: over
 * https only, and with the netrc only to the registry's own host (issue
 * 24: it went to any host in the netrc, and to file://).
 */
START_TEST(test_mdig_realm)
{
	char	*c, *realm_call;

	/* The registry's own host: the netrc goes along. */
	c = mdig_calls("https://reg.example/token", "no");
	ck_assert_msg((realm_call = strstr(c, "--data-urlencode")) != NULL,
	    "%s", c);
	ck_assert_msg(strstr(c, "--proto =https --max-redirs 0 --netrc-file "
	    "/") != NULL && strstr(c, "/cfg/enroot/.credentials -G") != NULL,
	    "%s", c);
	ck_assert_msg(strstr(c, "Authorization") == NULL, "token in argv: %s",
	    c);
	free(c);
	/* Another host: asked, but without the netrc. */
	c = mdig_calls("https://other.example/token", "no");
	ck_assert_msg(strstr(c, "--netrc-file /dev/null -G") != NULL, "%s", c);
	ck_assert_ptr_null(strstr(c, ".credentials -G"));
	free(c);
	/* file://, or http when enroot does not allow it: not followed. */
	c = mdig_calls("file:///etc/passwd", "no");
	ck_assert_msg(strstr(c, "--data-urlencode") == NULL, "%s", c);
	free(c);
	c = mdig_calls("http://reg.example/token", "no");
	ck_assert_msg(strstr(c, "--data-urlencode") == NULL, "%s", c);
	free(c);
	/* http to the registry itself, when enroot allows http: yes. */
	c = mdig_calls("http://reg.example/token", "1");
	ck_assert_msg(strstr(c, "--proto =http --max-redirs 0 --netrc-file")
	    != NULL, "%s", c);
	free(c);
	c = mdig_calls("http://other.example/token", "1");
	ck_assert_msg(strstr(c, "--data-urlencode") == NULL, "%s", c);
	free(c);
}
END_TEST

static Suite *
submit_suite(void)
{
	Suite	*s = suite_create("submit");
	TCase	*tc = tcase_create("pure");

	tcase_add_test(tc, test_mdig_realm);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_sha256);
	tcase_add_test(tc, test_tar);
	tcase_add_test(tc, test_tar_dirs);
	tcase_add_test(tc, test_imgfast_same_lines);
	tcase_add_test(tc, test_imgfast_known);
	tcase_add_test(tc, test_stage_text);
	tcase_add_test(tc, test_sidecar);
	tcase_add_test(tc, test_check_script);
	tcase_add_test(tc, test_import_limits);
	tcase_add_test(tc, test_gate);
	tcase_add_test(tc, test_parsers);
	tcase_add_test(tc, test_encodings);
	tcase_add_test(tc, test_var_quoting);
	tcase_add_test(tc, test_launch_script);
	tcase_add_test(tc, test_remote_forks);
	tcase_add_test(tc, test_shape_key);
	tcase_add_test(tc, test_shape_verdict);
	tcase_add_test(tc, test_launch_script_hold);
	tcase_add_test(tc, test_launch_script_empty_reply);
	tcase_add_test(tc, test_launch_cleanup_after_reply);
	tcase_add_test(tc, test_faults_parse);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(submit_suite)
