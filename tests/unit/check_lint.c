#include <signal.h>

#include "testutil.h"
#include "lint.h"
#include "util.h"

#define FIX "secrets go in the env sidecar (ENV_FILE), never in the script"
#define XTRACE "turns on xtrace, which prints every command with its values " \
	"(secrets included) into the job log; remove it"

static void
expect_ok(const char *script)
{
	char	*cause = NULL;

	if (lint_script("job.sbatch", script, NULL, 0, &cause) != 0)
		ck_abort_msg("refused: %s\n%s", cause, script);
}

/* Refused with exactly msg; and the message never holds the secret. */
static void
expect_refused(const char *script, const struct lint_secret *secrets,
    size_t n, const char *msg)
{
	char	*cause = NULL;
	size_t	 i;

	if (lint_script("job.sbatch", script, secrets, n, &cause) == 0)
		ck_abort_msg("accepted: %s", script);
	ck_assert_str_eq(cause, msg);
	for (i = 0; i < n; i++) {
		if (*secrets[i].value != '\0')
			ck_assert_ptr_null(strstr(cause, secrets[i].value));
	}
	free(cause);
}

START_TEST(test_secret_values)
{
	struct lint_secret	s[] = {
		{ "NGC_KEY", "" },			/* empty: ignored */
		{ "HF_TOKEN", "tok-Very-Secret-123" },
		{ "DB_PASS", "it's#hidden" },
	};

	expect_ok("#!/bin/bash\necho hi\n");
	ck_assert_int_eq(lint_script("x", "echo hi\n", s, 3, NULL), 0);
	expect_refused("#!/bin/bash\necho a\nexport T=tok-Very-Secret-123\n",
	    s, 3, "job.sbatch line 3: contains the value of secret HF_TOKEN; "
	    FIX);
	/* As a substring. */
	expect_refused("x=abctok-Very-Secret-123xyz\n", s, 3,
	    "job.sbatch line 1: contains the value of secret HF_TOKEN; " FIX);
	/* Raw. */
	expect_refused("a\nb\nc\nit's#hidden\n", s, 3,
	    "job.sbatch line 4: contains the value of secret DB_PASS; " FIX);
	/* As shell_quote writes it. */
	expect_refused("a\nx='it'\\''s#hidden'\n", s, 3,
	    "job.sbatch line 2: contains the value of secret DB_PASS; " FIX);
	/* '#'-escaped for an #SBATCH line. */
	expect_refused("#SBATCH --comment=it's\\#hidden\n", s, 3,
	    "job.sbatch line 1: contains the value of secret DB_PASS; " FIX);
	/* A secret in a comment is still a leak. */
	expect_refused("# tok-Very-Secret-123\n", s, 3,
	    "job.sbatch line 1: contains the value of secret HF_TOKEN; " FIX);
	/* The first place it appears is named. */
	expect_refused("1\n2\nx='it'\\''s#hidden'\nit's#hidden\n", s + 2, 1,
	    "job.sbatch line 3: contains the value of secret DB_PASS; " FIX);
}
END_TEST

START_TEST(test_secret_no_name)
{
	struct lint_secret	s = { NULL, "abcdefgh" };
	char			*cause = NULL;

	ck_assert_int_eq(lint_script("f", "abcdefgh", &s, 1, &cause), -1);
	ck_assert_str_eq(cause, "f line 1: contains the value of secret ?; "
	    FIX);
	free(cause);
}
END_TEST

static char *
b64(const char *in)
{
	static const char	 t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	struct buf		 b;
	size_t			 n = strlen(in), i;
	unsigned		 v;

	buf_init(&b);
	for (i = 0; i < n; i += 3) {
		v = (unsigned char)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)in[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)in[i + 2];
		buf_add(&b, &t[(v >> 18) & 63], 1);
		buf_add(&b, &t[(v >> 12) & 63], 1);
		buf_add(&b, i + 1 < n ? &t[(v >> 6) & 63] : "=", 1);
		buf_add(&b, i + 2 < n ? &t[v & 63] : "=", 1);
	}
	return buf_steal(&b);
}

START_TEST(test_token_patterns)
{
	char	*legacy, *line;

	/* NGC personal keys: nvapi- and 64 characters. */
	expect_refused("#!/bin/bash\nexport NGC_API_KEY=nvapi-Ab3_d-"
	    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV\n",
	    NULL, 0, "job.sbatch line 2: looks like an NGC API key "
	    "(nvapi-...); " FIX);
	expect_ok("echo nvapi-short\n");
	/* Legacy NGC keys: base64 of "<id>:<uuid>". */
	legacy = b64("abcdefghijklmnopqrstuvwxyz:01234567-89ab-cdef-0123-"
	    "456789abcdef");
	ck_assert_uint_eq(strlen(legacy), 84);
	line = xasprintf("a\nb\nk='%s'\n", legacy);
	expect_refused(line, NULL, 0, "job.sbatch line 3: looks like a legacy "
	    "NGC API key (base64 of id:uuid); " FIX);
	free(line);
	free(legacy);
	/* Long base64 that is not a key, and long paths, are fine. */
	legacy = b64("just some long harmless text that is not shaped like "
	    "a key at all, no uuid");
	line = xasprintf("x=%s\n", legacy);
	expect_ok(line);
	free(line);
	free(legacy);
	expect_ok("cd /lustre/projects/teamvision/experiments/classification"
	    "/resnet50/runs/2024/attempt12/checkpoints/final/export\n");

	expect_refused("export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCD\n",
	    NULL, 0, "job.sbatch line 1: looks like a Hugging Face token "
	    "(hf_...); " FIX);
	expect_ok("python train.py --hf_cache /l/cache\n");
	expect_ok("x=hf_abc\n");
	expect_refused("aws=AKIAIOSFODNN7EXAMPLE\n", NULL, 0,
	    "job.sbatch line 1: looks like an AWS access key id (AKIA...); " FIX);
	expect_refused("aws=ASIAIOSFODNN7EXAMPLE\n", NULL, 0,
	    "job.sbatch line 1: looks like an AWS access key id (AKIA...); " FIX);
	expect_ok("echo AKIA_is_not_a_key\n");
	expect_ok("echo xAKIAIOSFODNN7EXAMPLE\n");
	expect_refused("t=ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ\n", NULL, 0,
	    "job.sbatch line 1: looks like a GitHub token (ghp_...); " FIX);
	expect_refused("cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\n",
	    NULL, 0, "job.sbatch line 2: looks like a private key block; " FIX);
	expect_refused("a\nmysql --password=hunter2\n", NULL, 0,
	    "job.sbatch line 2: looks like a password (password=); " FIX);
	expect_refused("export DB_PASSWORD = x\n", NULL, 0,
	    "job.sbatch line 1: looks like a password (password=); " FIX);
	expect_ok("echo 'password is read from the sidecar'\n");
}
END_TEST

START_TEST(test_xtrace)
{
	expect_refused("#!/bin/bash\nset -euo pipefail\nset -x\n", NULL, 0,
	    "job.sbatch line 3: \"set -x\" " XTRACE);
	expect_refused("set -euxo pipefail\n", NULL, 0,
	    "job.sbatch line 1: \"set -euxo\" " XTRACE);
	expect_refused("set -e -x\n", NULL, 0,
	    "job.sbatch line 1: \"set -x\" " XTRACE);
	expect_refused("  set -o xtrace\n", NULL, 0,
	    "job.sbatch line 1: \"set -o xtrace\" " XTRACE);
	expect_refused("set -eo xtrace\n", NULL, 0,
	    "job.sbatch line 1: \"set -eo xtrace\" " XTRACE);
	expect_refused("true; set -x; true\n", NULL, 0,
	    "job.sbatch line 1: \"set -x\" " XTRACE);
	expect_refused("srun bash -x run.sh\n", NULL, 0,
	    "job.sbatch line 1: \"bash -x\" " XTRACE);
	expect_refused("/bin/bash -ex run.sh\n", NULL, 0,
	    "job.sbatch line 1: \"bash -ex\" " XTRACE);
	expect_refused("sh -o xtrace run.sh\n", NULL, 0,
	    "job.sbatch line 1: \"sh -o xtrace\" " XTRACE);
	/* Inside a quoted command string: it still runs. */
	expect_refused("export C='set -x; python t.py'\n", NULL, 0,
	    "job.sbatch line 1: \"set -x\" " XTRACE);
	expect_refused("srun bash -c \"set -x\"\n", NULL, 0,
	    "job.sbatch line 1: \"set -x\" " XTRACE);
	/* The #! line counts; other comments do not. */
	expect_refused("#!/bin/bash -x\necho\n", NULL, 0,
	    "job.sbatch line 1: \"bash -x\" " XTRACE);
	expect_refused("#!/usr/bin/env bash -ex\n", NULL, 0,
	    "job.sbatch line 1: \"bash -ex\" " XTRACE);
	expect_ok("#!/bin/bash\n# set -x would leak\n  # bash -x too\n");

	expect_ok("set +x\nset -e\nset -euo pipefail\nset -- -x\n");
	expect_ok("bash -c 'exec python'\nbash --norc -c true\n");
	expect_ok("echo settings -x\nreset -x\nbashful -x\n");
	expect_ok("tar -xf a.tar\nsrun --exclusive true\n");
	expect_ok("set\n");
	expect_ok("set -o pipefail\n");
}
END_TEST

START_TEST(test_templates_pass)
{
	char	*cause = NULL;
	char	*path, *text;
	size_t	 i;
	const char *names[] = { "golden/singlenode.sbatch",
	    "golden/multinode.sbatch" };

	for (i = 0; i < 2; i++) {
		path = xstrdup(test_data(names[i]));
		if (file_read(path, &text, NULL, &cause) != 0)
			ck_abort_msg("%s", cause);
		if (lint_script(names[i], text, NULL, 0, &cause) != 0)
			ck_abort_msg("%s", cause);
		free(text);
		free(path);
	}
}
END_TEST

START_TEST(test_bash_syntax)
{
	char	*cause = NULL;

	ck_assert_int_eq(lint_bash_syntax("ok.sh", "#!/bin/bash\necho hi\n",
	    &cause), 0);
	ck_assert_int_eq(lint_bash_syntax("empty.sh", "", &cause), 0);
	ck_assert_int_eq(lint_bash_syntax("bad.sh", "#!/bin/bash\nif true; "
	    "then\necho\n", &cause), -1);
	ck_assert_str_eq(cause, "bad.sh: syntax error: line 4: syntax error: "
	    "unexpected end of file");
	free(cause);
	ck_assert_int_eq(lint_bash_syntax("bad2.sh", "echo a\nfi\n", &cause), -1);
	ck_assert_str_eq(cause, "bad2.sh: syntax error: line 2: syntax error "
	    "near unexpected token `fi'; line 2: `fi'");
	free(cause);
	/* -n only parses: nothing runs. */
	ck_assert_int_eq(lint_bash_syntax("x.sh", "exit 3\nfalse\n", &cause), 0);
}
END_TEST

/* Bigger than a pipe buffer, valid and invalid (bash stops reading early). */
START_TEST(test_bash_syntax_large)
{
	struct buf	 b;
	char		*cause = NULL;
	int		 i;

	buf_init(&b);
	for (i = 0; i < 40000; i++)
		buf_printf(&b, "echo line %d 'quoted text here'\n", i);
	ck_assert_uint_gt(b.len, 1 << 20);
	ck_assert_int_eq(lint_bash_syntax("big.sh", b.data, &cause), 0);
	buf_free(&b);

	buf_init(&b);
	buf_adds(&b, "fi\n");
	for (i = 0; i < 40000; i++)
		buf_printf(&b, "echo line %d 'quoted text here'\n", i);
	ck_assert_int_eq(lint_bash_syntax("bigbad.sh", b.data, &cause), -1);
	ck_assert(str_has_prefix(cause, "bigbad.sh: syntax error: line 1: "));
	free(cause);
	buf_free(&b);
	/* We are still alive: SIGPIPE did not kill the process. */
	ck_assert_int_eq(raise(0), 0);
}
END_TEST

/* bash comes from PATH; with none to be found the cause says so. */
START_TEST(test_bash_missing)
{
	char	*cause = NULL;

	/* An empty PATH means the usual /usr/bin:/bin. */
	setenv("PATH", "", 1);
	ck_assert_int_eq(lint_bash_syntax("x.sh", "true\n", &cause), 0);
	setenv("PATH", "/nonexistent", 1);
	ck_assert_int_eq(lint_bash_syntax("x.sh", "true\n", &cause), -1);
	ck_assert_str_eq(cause, "bash -n: bash not found in PATH");
	free(cause);
}
END_TEST

static Suite *
lint_suite(void)
{
	Suite	*s = suite_create("lint");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_secret_values);
	tcase_add_test(tc, test_secret_no_name);
	tcase_add_test(tc, test_token_patterns);
	tcase_add_test(tc, test_xtrace);
	tcase_add_test(tc, test_templates_pass);
	tcase_add_test(tc, test_bash_syntax);
	tcase_add_test(tc, test_bash_syntax_large);
	tcase_add_test(tc, test_bash_missing);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(lint_suite)
