#include <sys/stat.h>
#include <sys/wait.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"
#include "lint.h"
#include "embedded.h"
#include "template.h"
#include "triage.h"
#include "util.h"

#define SINGLE "slurm/singlenode.sbatch.tmpl"
#define MULTI "slurm/multinode.sbatch.tmpl"

/* The values the golden files were rendered with. */
static void
golden_vars(struct template_vars *tv, int nodes)
{
	struct buf	 extra;
	struct strv	 env = { 0 };
	char		*lines, *cause = NULL;

	template_vars_init(tv);
	template_set(tv, "JOB_NAME", nodes > 1 ? "sd-golden-2n" : "sd-golden-1n");
	template_set(tv, "PARTITION", "gpu");
	template_setf(tv, "NUM_NODES", "%d", nodes);
	template_set(tv, "NUM_GPUS", "4");
	template_set(tv, "CPUS_PER_TASK", "16");
	template_set(tv, "TIME", "4:00:00");
	template_set(tv, "LOG_DIR", "/lustre/results/logs");
	template_set(tv, "REQUEUE", nodes > 1 ? "0" : "1");

	buf_init(&extra);
	ck_assert_int_eq(template_sbatch_line(&extra, "account", "sdtb",
	    &cause), 0);
	if (nodes > 1) {
		ck_assert_int_eq(template_sbatch_line(&extra, "exclusive", NULL,
		    &cause), 0);
		ck_assert_int_eq(template_sbatch_line(&extra, "exclude", "sdn9",
		    &cause), 0);
	}
	template_set(tv, "SBATCH_EXTRA", extra.data);
	buf_free(&extra);

	template_set(tv, "IMAGE",
	    "/lustre/images/nvcr.io+nvidia+tao+tao-toolkit+5.5.0-pyt.sqsh");
	template_set(tv, "IMAGE_OWNERS", nodes > 1 ? "" : ". tao-team");
	template_set(tv, "CONTAINER_MOUNTS",
	    "/lustre/data/coco:/data:ro,/lustre/results/job1:/results");
	template_set(tv, "COMMAND", "tao model classification_pyt train "
	    "-e /results/specs/spec.yaml -r '/results/it'\\''s out' \"$HOME\"");
	template_set(tv, "ENV_FILE", nodes > 1 ? "" :
	    "/lustre/results/job1/job_sd-golden-1n.env");
	template_set(tv, "SECRET_NAMES", nodes > 1 ? "" : "HF_TOKEN NGC_KEY");
	if (nodes > 1) {
		strv_add(&env, "NCCL_P2P_DISABLE=1");
		strv_add(&env, "NCCL_SOCKET_IFNAME=eth0");
	}
	ck_assert_int_eq(template_export_lines(&env, &lines, &cause), 0);
	template_set(tv, "EXTRA_ENV", lines);
	free(lines);
	strv_free(&env);
	template_set(tv, "PRE_STEP", "");
	template_set(tv, "RESULTS_DIR", "/lustre/results/job1/results");
	/* 0.95 of 4 h, and the grace capped at 120 s (plan.c). */
	template_set(tv, "PROGRAM_TIMEOUT", "13680");
	template_set(tv, "PROGRAM_GRACE", "120");
	template_set(tv, "JOB_DIR", "/lustre/results/job1");
}

/* Render, compare with the golden file byte for byte, bash -n, lint. */
static void
check_golden(const char *tmpl, int nodes, const char *golden)
{
	struct template_vars	 tv;
	char			*out, *want, *cause = NULL;
	size_t			 len;
	FILE			*f;

	golden_vars(&tv, nodes);
	if (template_render_embedded(tmpl, &tv, &out, &cause) != 0)
		ck_abort_msg("render %s: %s", tmpl, cause);
	template_vars_free(&tv);

	if (getenv("SQDECK_UPDATE_GOLDEN") != NULL) {
		f = fopen(test_data(golden), "w");
		ck_assert_ptr_nonnull(f);
		fputs(out, f);
		fclose(f);
	}
	if (file_read(test_data(golden), &want, &len, &cause) != 0)
		ck_abort_msg("%s", cause);
	ck_assert_uint_eq(len, strlen(out));
	ck_assert_str_eq(out, want);

	if (lint_bash_syntax(golden, out, &cause) != 0)
		ck_abort_msg("bash -n: %s", cause);
	if (lint_script(golden, out, NULL, 0, &cause) != 0)
		ck_abort_msg("lint: %s", cause);
	ck_assert_ptr_null(strstr(out, "@@"));
	free(out);
	free(want);
}

START_TEST(test_golden_single)
{
	check_golden(SINGLE, 1, "golden/singlenode.sbatch");
}
END_TEST

START_TEST(test_golden_multi)
{
	check_golden(MULTI, 2, "golden/multinode.sbatch");
}
END_TEST

/* Required lines (sqdeck(1), TEMPLATES) are in the rendered scripts. */
START_TEST(test_required_lines)
{
	struct template_vars	 tv;
	char			*out, *cause = NULL;

	golden_vars(&tv, 2);
	ck_assert_int_eq(template_render_embedded(MULTI, &tv, &out, &cause), 0);
	ck_assert_ptr_nonnull(strstr(out,
	    "\n#SBATCH --output=/lustre/results/logs/%x-%j/main.out\n"));
	ck_assert_ptr_nonnull(strstr(out,
	    "\n#SBATCH --error=/lustre/results/logs/%x-%j/main.err\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n#SBATCH --nodes=2\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n#SBATCH --wait-all-nodes=1\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n#SBATCH --ntasks-per-node=1\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n#SBATCH --no-requeue\n"));
	ck_assert_ptr_null(strstr(out, "--requeue\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nexport WORLD_SIZE=2\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nexport NUM_GPU_PER_NODE=4\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nexport MASTER_PORT=29500\n"));
	ck_assert_ptr_nonnull(strstr(out,
	    "scontrol show hostnames \"$SLURM_JOB_NODELIST\""));
	ck_assert_ptr_nonnull(strstr(out, "\nexport TAO_NODE_COUNT=\"$WORLD_SIZE\"\n"));
	/* Per task: inside the single-quoted step, expanded by its shell. */
	ck_assert_ptr_nonnull(strstr(out, "\nfi\n"
	    "export NODE_RANK=\"$SLURM_NODEID\"\n"
	    "export TAO_NODE_RANK=\"$SLURM_PROCID\"\n"
	    "exec bash -c \"$SQDECK_COMMAND\"'\n"));
	/* Its try-again line is the one the triage knows. */
	ck_assert_ptr_nonnull(strstr(template_embedded(SINGLE),
	    TRIAGE_STEP_RETRIED));
	ck_assert_ptr_nonnull(strstr(template_embedded(MULTI),
	    TRIAGE_STEP_RETRIED));
	/* The program starts on no node before every node is in (marks). */
	ck_assert_ptr_nonnull(strstr(out, "\nexport SQDECK_STEP_NODES=\"${SLURM_JOB_NUM_NODES:-1}\"\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nexport NCCL_P2P_DISABLE='1'\n"));
	free(out);

	template_set(&tv, "REQUEUE", "1");
	ck_assert_int_eq(template_render_embedded(SINGLE, &tv, &out, &cause), 0);
	ck_assert_ptr_nonnull(strstr(out, "\n#SBATCH --requeue\n"));
	ck_assert_ptr_null(strstr(out, "--no-requeue"));
	ck_assert_ptr_null(strstr(out, "--nodes"));
	ck_assert_ptr_null(strstr(out, "WORLD_SIZE"));
	/* The sidecar is parsed, never sourced (the job can rewrite it). */
	ck_assert_ptr_nonnull(strstr(out, "\tsqdeck_env_load \"$SQDECK_ENV_FILE\"\n"));
	ck_assert_ptr_null(strstr(out, ". \"$SQDECK_ENV_FILE\""));
	ck_assert_ptr_nonnull(strstr(out, "trap sqdeck_wipe EXIT\n"));
	/* The wipe never writes through a link the job put there. */
	ck_assert_ptr_null(strstr(out, "shred"));
	ck_assert_ptr_nonnull(strstr(out, "oflag=nofollow,nonblock"));
	ck_assert_ptr_nonnull(strstr(out, "[ ! -L \"$f\" ]"));
	free(out);
	template_vars_free(&tv);
}
END_TEST

/*
 * The job's script reads the secrets sidecar outside the container, and
 * the job can rewrite it from inside (issue 24): a command or another
 * variable put there is never run or set; the spec's own names keep
 * values with quotes and newlines.  The old script sourced the file.
 */
START_TEST(test_sidecar_not_sourced)
{
	struct template_vars	 tv;
	const char		*dir = test_tmpdir();
	char			*out, *cause = NULL, *a, *b, *fn, *cmd, *got;
	char			*want;
	char			 path[4200];
	size_t			 len;
	FILE			*f;
	int			 st;

	golden_vars(&tv, 1);
	ck_assert_int_eq(template_render_embedded(SINGLE, &tv, &out, &cause),
	    0);
	template_vars_free(&tv);
	a = strstr(out, "sqdeck_env_load() {");
	ck_assert_ptr_nonnull(a);
	b = strstr(a, "\n}\n");
	ck_assert_ptr_nonnull(b);
	fn = xstrndup(a, (size_t)(b + 3 - a));
	snprintf(path, sizeof path, "%s/side.env", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "# sqdeck secrets: sourced by the job, then wiped\n"
	    "HF_TOKEN='x'\\''y$(touch %s/pwned)\nline2'\n"
	    "LD_PRELOAD='/evil.so'\nNGC_KEY='plain'\n$(touch %s/pwned2)\n"
	    "PATH='/evil'\n", dir, dir);
	fclose(f);
	snprintf(path, sizeof path, "%s/t.sh", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "set -euo pipefail\nSQDECK_SECRET_NAMES='HF_TOKEN NGC_KEY'"
	    "\n%s\nsqdeck_env_load side.env\nprintf '%%s|%%s|%%s' "
	    "\"$HF_TOKEN\" \"$NGC_KEY\" \"${LD_PRELOAD-unset}\" >got\n", fn);
	fclose(f);
	/* (valgrind's run gives its children an LD_PRELOAD of its own) */
	cmd = xasprintf("cd %s && env -u LD_PRELOAD bash t.sh 2>err", dir);
	st = system(cmd);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	snprintf(path, sizeof path, "%s/got", dir);
	ck_assert_int_eq(file_read(path, &got, &len, &cause), 0);
	want = xasprintf("x'y$(touch %s/pwned)\nline2|plain|unset", dir);
	ck_assert_str_eq(got, want);
	snprintf(path, sizeof path, "%s/pwned", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	snprintf(path, sizeof path, "%s/pwned2", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	free(want);
	free(got);
	free(cmd);
	free(fn);
	free(out);
}
END_TEST

/*
 * A cached image is checked again at job start (issue 24): the rendered
 * function itself, run by bash on real files and directories.
 */
static int
image_trust_case(const char *dir, const char *fn, const char *file,
    const char *owners, char **why)
{
	char	*cmd, path[PATH_MAX], *cause = NULL;
	size_t	 len;
	FILE	*f;
	int	 st;

	snprintf(path, sizeof path, "%s/trust.sh", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "set -euo pipefail\n%s\nsqdeck_image_trusted \"$1\" \"$2\" "
	    ">%s/why\n", fn, dir);
	fclose(f);
	cmd = xasprintf("env -u LD_PRELOAD bash %s '%s' '%s'", path, file,
	    owners);
	st = system(cmd);
	free(cmd);
	ck_assert(WIFEXITED(st));
	snprintf(path, sizeof path, "%s/why", dir);
	ck_assert_int_eq(file_read(path, why, &len, &cause), 0);
	return WEXITSTATUS(st);
}

START_TEST(test_image_trust_at_start)
{
	struct template_vars	 tv;
	char			*out, *cause = NULL, *a, *b, *fn, *why;
	char			 dir[] = "/tmp/sqdeck-trust.XXXXXX";
	char			 sub[256], img[512], ln[512];
	FILE			*f;

	golden_vars(&tv, 1);
	ck_assert_int_eq(template_render_embedded(SINGLE, &tv, &out, &cause),
	    0);
	template_vars_free(&tv);
	/* The check runs before the step, and only with owners set. */
	ck_assert_ptr_nonnull(strstr(out, "SQDECK_IMAGE_OWNERS='. tao-team'"));
	a = strstr(out, "sqdeck_image_trusted() {");
	ck_assert_ptr_nonnull(a);
	ck_assert(a < strstr(out, "\"${launch[@]}\""));
	b = strstr(a, "\n}\n");
	ck_assert_ptr_nonnull(b);
	fn = xstrndup(a, (size_t)(b + 3 - a));

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/cache", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(img, sizeof img, "%s/img.sqsh", sub);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	fputs("hsqs", f);
	fclose(f);
	ck_assert_int_eq(chmod(sub, 0755), 0);
	ck_assert_int_eq(chmod(img, 0644), 0);
	ck_assert_int_eq(image_trust_case(dir, fn, img, ".", &why), 0);
	free(why);

	/* The group may swap it: refused, and said why. */
	ck_assert_int_eq(chmod(sub, 0775), 0);
	ck_assert_int_eq(image_trust_case(dir, fn, img, ".", &why), 1);
	ck_assert_ptr_nonnull(strstr(why, "without the sticky bit"));
	free(why);
	/* The sticky bit: only the owner may remove or rename it. */
	ck_assert_int_eq(chmod(sub, 01777), 0);
	ck_assert_int_eq(image_trust_case(dir, fn, img, ".", &why), 0);
	free(why);

	ck_assert_int_eq(chmod(img, 0664), 0);
	ck_assert_int_eq(image_trust_case(dir, fn, img, ".", &why), 1);
	ck_assert_ptr_nonnull(strstr(why, "writable by others"));
	free(why);
	ck_assert_int_eq(chmod(img, 0644), 0);

	snprintf(ln, sizeof ln, "%s/link.sqsh", sub);
	ck_assert_int_eq(symlink(img, ln), 0);
	ck_assert_int_eq(image_trust_case(dir, fn, ln, ".", &why), 1);
	ck_assert_ptr_nonnull(strstr(why, "not a regular file"));
	free(why);

	/* Another owner: only when image_cache_owners names it. */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(img, 65534, 65534), 0);
		ck_assert_int_eq(image_trust_case(dir, fn, img, ".", &why), 1);
		ck_assert_ptr_nonnull(strstr(why, "not to you or"));
		free(why);
		ck_assert_int_eq(image_trust_case(dir, fn, img, ". 65534",
		    &why), 0);
		free(why);
	}
	cause = xasprintf("rm -rf %s", dir);
	ck_assert_int_eq(system(cause), 0);
	free(cause);
	free(fn);
	free(out);
}
END_TEST

/* Every line of the single-node template appears, in order, in multi. */
START_TEST(test_multi_superset)
{
	const char	*s = template_embedded(SINGLE);
	const char	*m = template_embedded(MULTI);
	const char	*eol, *found;
	char		*line;
	size_t		 extra = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(m);
	while (*s != '\0') {
		eol = strchr(s, '\n');
		ck_assert_ptr_nonnull(eol);
		line = xstrndup(s, eol + 1 - s);
		/* Find it at a line start at or after m. */
		for (found = m; (found = strstr(found, line)) != NULL; found++) {
			if (found == template_embedded(MULTI) ||
			    found[-1] == '\n')
				break;
		}
		if (found == NULL)
			ck_abort_msg("single-node line not in multi-node "
			    "(in order): %s", line);
		for (; m < found; m++)
			extra += *m == '\n';
		m = found + strlen(line);
		free(line);
		s = eol + 1;
	}
	/* Strict: the multi-node template has lines of its own. */
	ck_assert_uint_gt(extra, 10);
}
END_TEST

/* The renderer's quoting survives a real bash. */
START_TEST(test_command_quoting)
{
	const char		*nasty = "echo 'a' \"b\" $(id) `x` ; rm -rf ~ \\ \n#x %s";
	struct template_vars	 tv;
	char			*out, *cause = NULL, *start, *end, *assign;
	char			 got[256];
	int			 fd[2], status;
	ssize_t			 n;
	size_t			 len;
	pid_t			 pid;

	golden_vars(&tv, 1);
	template_set(&tv, "COMMAND", nasty);
	ck_assert_int_eq(template_render_embedded(SINGLE, &tv, &out, &cause), 0);
	template_vars_free(&tv);
	start = strstr(out, "export SQDECK_COMMAND=");
	ck_assert_ptr_nonnull(start);
	end = strstr(start, "\n\n");
	ck_assert_ptr_nonnull(end);
	assign = xasprintf("%.*s\nprintf %%s \"$SQDECK_COMMAND\"",
	    (int)(end - start), start);

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execlp("bash", "bash", "-c", assign, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	/* bash may write in several pieces: read to EOF. */
	len = 0;
	while ((n = read(fd[0], got + len, sizeof got - 1 - len)) > 0)
		len += n;
	close(fd[0]);
	waitpid(pid, &status, 0);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	got[len] = '\0';
	ck_assert_str_eq(got, nasty);
	free(assign);
	free(out);
}
END_TEST

static char *
render_text(const char *text, const char *name, const char *value,
    char **cause)
{
	struct template_vars	 tv;
	char			*out;
	int			 r;

	template_vars_init(&tv);
	if (name != NULL)
		template_set(&tv, name, value);
	*cause = NULL;
	r = template_render("t.tmpl", text, &tv, &out, cause);
	template_vars_free(&tv);
	if (r != 0) {
		ck_assert_ptr_null(out);
		ck_assert_ptr_nonnull(*cause);
		return NULL;
	}
	return out;
}

/* Render text with one variable; expect failure with exactly msg. */
static void
expect_error(const char *text, const char *name, const char *value,
    const char *msg)
{
	char	*out, *cause;

	out = render_text(text, name, value, &cause);
	if (out != NULL)
		ck_abort_msg("rendered, expected: %s\ngot: %s", msg, out);
	ck_assert_str_eq(cause, msg);
	free(cause);
}

static void
expect_output(const char *text, const char *name, const char *value,
    const char *want)
{
	char	*out, *cause;

	out = render_text(text, name, value, &cause);
	if (out == NULL)
		ck_abort_msg("%s", cause);
	ck_assert_str_eq(out, want);
	free(out);
}

START_TEST(test_leftover)
{
	/* A known placeholder with no value. */
	expect_error("#!/bin/bash\n#SBATCH --job-name=@@JOB_NAME@@\n",
	    NULL, NULL,
	    "t.tmpl line 2: @@JOB_NAME@@ has no value (leftover placeholder)");
	/* One the renderer does not know: named, with its line. */
	expect_error("a\nb\nx=@@X@@\n", "JOB_NAME", "j",
	    "t.tmpl line 3: unknown placeholder @@X@@");
	expect_error("@@job_name@@\n", NULL, NULL,
	    "t.tmpl line 1: unknown placeholder @@job_name@@");
	/* A variable the renderer does not know. */
	expect_error("x\n", "JOBNAME", "j",
	    "template variable JOBNAME is not known to the renderer");
	/* Text that only looks a bit like a placeholder stays as it is. */
	expect_output("a@@ b @@@@ c@@-@@\n", NULL, NULL, "a@@ b @@@@ c@@-@@\n");
	/* A known variable the template does not use is fine. */
	expect_output("plain", "NUM_NODES", "3", "plain");
	/* Two on one line, no newline at the end. */
	expect_output("@@JOB_NAME@@-@@JOB_NAME@@", "JOB_NAME", "j", "j-j");
}
END_TEST

START_TEST(test_directive_kinds)
{
	expect_output("--job-name=@@JOB_NAME@@\n", "JOB_NAME", "sd-a_b.1",
	    "--job-name=sd-a_b.1\n");
	expect_error("@@JOB_NAME@@\n", "JOB_NAME", "a b",
	    "template variable JOB_NAME: a space cannot go into an #SBATCH "
	    "line (allowed: letters, digits and ._,:/+=@-)");
	expect_error("@@JOB_NAME@@\n", "JOB_NAME", "a\nb",
	    "template variable JOB_NAME: character 0x0a cannot go into an "
	    "#SBATCH line (allowed: letters, digits and ._,:/+=@-)");
	expect_error("@@PARTITION@@\n", "PARTITION", "gpu#x",
	    "template variable PARTITION: '#' cannot go into an #SBATCH line "
	    "(allowed: letters, digits and ._,:/+=@-)");
	expect_error("@@JOB_NAME@@\n", "JOB_NAME", "%j",
	    "template variable JOB_NAME: '%' cannot go into an #SBATCH line "
	    "(allowed: letters, digits and ._,:/+=@-)");
	expect_error("@@PARTITION@@\n", "PARTITION", "",
	    "template variable PARTITION is empty");
	expect_output("@@LOG_DIR@@\n", "LOG_DIR", "/l/logs", "/l/logs\n");
	expect_error("@@LOG_DIR@@\n", "LOG_DIR", "logs",
	    "template variable LOG_DIR: \"logs\" is not an absolute path");
	expect_error("@@LOG_DIR@@\n", "LOG_DIR", "/a b",
	    "template variable LOG_DIR: a space cannot go into an #SBATCH "
	    "line (allowed: letters, digits and ._,:/+=@-)");

	expect_output("@@TIME@@\n", "TIME", "1-00:00:00", "1-00:00:00\n");
	expect_output("@@TIME@@\n", "TIME", "240", "240\n");
	expect_error("@@TIME@@\n", "TIME", "4h",
	    "template variable TIME: \"4h\" is not a SLURM time limit (like "
	    "4:00:00 or 1-00:00:00)");
	expect_error("@@TIME@@\n", "TIME", ":30", "template variable TIME: "
	    "\":30\" is not a SLURM time limit (like 4:00:00 or 1-00:00:00)");

	expect_output("@@NUM_GPUS@@\n", "NUM_GPUS", "0", "0\n");
	expect_output("@@NUM_NODES@@\n", "NUM_NODES", "16", "16\n");
	expect_error("@@NUM_NODES@@\n", "NUM_NODES", "0",
	    "template variable NUM_NODES: \"0\" is not a whole number >= 1");
	expect_error("@@CPUS_PER_TASK@@\n", "CPUS_PER_TASK", "016",
	    "template variable CPUS_PER_TASK: \"016\" is not a whole number >= 1");
	expect_error("@@NUM_GPUS@@\n", "NUM_GPUS", "-1",
	    "template variable NUM_GPUS: \"-1\" is not a whole number >= 0");
	expect_error("@@NUM_GPUS@@\n", "NUM_GPUS", "",
	    "template variable NUM_GPUS: \"\" is not a whole number >= 0");
	expect_error("@@NUM_GPUS@@\n", "NUM_GPUS", "1234567",
	    "template variable NUM_GPUS: \"1234567\" is not a whole number >= 0");
}
END_TEST

START_TEST(test_shell_kinds)
{
	expect_output("x=@@CONTAINER_MOUNTS@@\n", "CONTAINER_MOUNTS",
	    "/a:/b,/c d:/e", "x='/a:/b,/c d:/e'\n");
	expect_output("x=@@CONTAINER_MOUNTS@@\n", "CONTAINER_MOUNTS", "",
	    "x=''\n");
	expect_output("x=@@COMMAND@@\n", "COMMAND", "it's", "x='it'\\''s'\n");
	expect_error("x=@@COMMAND@@\n", "COMMAND", "",
	    "template variable COMMAND is empty");
	expect_output("x=@@ENV_FILE@@\n", "ENV_FILE", "", "x=''\n");
	expect_output("x=@@ENV_FILE@@\n", "ENV_FILE", "/l/j.env",
	    "x='/l/j.env'\n");
	expect_error("x=@@ENV_FILE@@\n", "ENV_FILE", "j.env",
	    "template variable ENV_FILE: \"j.env\" is not an absolute path");

	expect_output("x=@@IMAGE@@\n", "IMAGE", "", "x=''\n");
	expect_output("x=@@IMAGE@@\n", "IMAGE", "/l/i.sqsh", "x='/l/i.sqsh'\n");
	expect_output("x=@@IMAGE@@\n", "IMAGE", "/l/i.squashfs",
	    "x='/l/i.squashfs'\n");
	expect_error("x=@@IMAGE@@\n", "IMAGE", "docker://nvcr.io#nvidia/x:1",
	    "template variable IMAGE: \"docker://nvcr.io#nvidia/x:1\" is not "
	    "an absolute .sqsh path; a job runs only a converted image (a "
	    "registry URI would make Pyxis pull it inside the GPU "
	    "allocation), or \"\" for container mode none");
	expect_error("x=@@IMAGE@@\n", "IMAGE", "i.sqsh",
	    "template variable IMAGE: \"i.sqsh\" is not an absolute .sqsh "
	    "path; a job runs only a converted image (a registry URI would "
	    "make Pyxis pull it inside the GPU allocation), or \"\" for "
	    "container mode none");
	expect_error("x=@@IMAGE@@\n", "IMAGE", "/l/dir",
	    "template variable IMAGE: \"/l/dir\" is not an absolute .sqsh "
	    "path; a job runs only a converted image (a registry URI would "
	    "make Pyxis pull it inside the GPU allocation), or \"\" for "
	    "container mode none");
}
END_TEST

START_TEST(test_line_kinds)
{
	expect_output("a\n@@REQUEUE@@\nb\n", "REQUEUE", "1",
	    "a\n#SBATCH --requeue\nb\n");
	expect_output("a\n@@REQUEUE@@\nb\n", "REQUEUE", "0",
	    "a\n#SBATCH --no-requeue\nb\n");
	expect_error("@@REQUEUE@@\n", "REQUEUE", "yes",
	    "template variable REQUEUE: \"yes\" is not 1 or 0");
	/* An empty line kind removes its line; a value gets its newline. */
	expect_output("a\n@@PRE_STEP@@\nb\n", "PRE_STEP", "", "a\nb\n");
	expect_output("a\n@@PRE_STEP@@\nb\n", "PRE_STEP", "x\ny",
	    "a\nx\ny\nb\n");
	expect_output("a\n@@PRE_STEP@@", "PRE_STEP", "x\n", "a\nx\n");
	expect_error("a\nx @@PRE_STEP@@\n", "PRE_STEP", "",
	    "t.tmpl line 2: @@PRE_STEP@@ must be alone on its line");
	expect_error("@@EXTRA_ENV@@ \n", "EXTRA_ENV", "",
	    "t.tmpl line 1: @@EXTRA_ENV@@ must be alone on its line");

	expect_output("@@SBATCH_EXTRA@@\n", "SBATCH_EXTRA",
	    "#SBATCH --account=a\n#SBATCH --exclusive\n",
	    "#SBATCH --account=a\n#SBATCH --exclusive\n");
	expect_error("@@SBATCH_EXTRA@@\n", "SBATCH_EXTRA",
	    "#SBATCH --account=a\necho hi\n",
	    "template variable SBATCH_EXTRA: line 2 is not \"#SBATCH "
	    "--option[=value]\" with a safe value (build it with "
	    "template_sbatch_line)");
	expect_error("@@SBATCH_EXTRA@@\n", "SBATCH_EXTRA",
	    "#SBATCH --comment=a b\n",
	    "template variable SBATCH_EXTRA: line 1 is not \"#SBATCH "
	    "--option[=value]\" with a safe value (build it with "
	    "template_sbatch_line)");
	expect_error("@@SBATCH_EXTRA@@\n", "SBATCH_EXTRA", "#SBATCH --X=1",
	    "template variable SBATCH_EXTRA: line 1 is not \"#SBATCH "
	    "--option[=value]\" with a safe value (build it with "
	    "template_sbatch_line)");

	expect_output("@@EXTRA_ENV@@\n", "EXTRA_ENV",
	    "export A='1'\nexport B_2='x'\\''y\nz'\n",
	    "export A='1'\nexport B_2='x'\\''y\nz'\n");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV", "export A=$(id)\n",
	    "template variable EXTRA_ENV: line 1 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV",
	    "export A='1'\nexport 9A='1'\n",
	    "template variable EXTRA_ENV: line 2 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV", "export A='1'; id\n",
	    "template variable EXTRA_ENV: line 1 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV", "export A='1\n",
	    "template variable EXTRA_ENV: line 1 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV", "export A=\n",
	    "template variable EXTRA_ENV: line 1 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
	expect_error("@@EXTRA_ENV@@\n", "EXTRA_ENV", "A='1'\n",
	    "template variable EXTRA_ENV: line 1 is not \"export "
	    "NAME='value'\" (build it with template_export_lines)");
}
END_TEST

START_TEST(test_builders)
{
	struct buf	 b;
	struct strv	 sv = { 0 };
	char		*out, *cause = NULL;

	buf_init(&b);
	ck_assert_int_eq(template_sbatch_line(&b, "account", "proj-1", &cause), 0);
	ck_assert_int_eq(template_sbatch_line(&b, "exclusive", NULL, &cause), 0);
	ck_assert_str_eq(b.data, "#SBATCH --account=proj-1\n#SBATCH --exclusive\n");
	ck_assert_int_eq(template_sbatch_line(&b, "Account", "x", &cause), -1);
	ck_assert_str_eq(cause, "#SBATCH option \"Account\" is not a long "
	    "option name (a-z and -)");
	free(cause);
	ck_assert_int_eq(template_sbatch_line(&b, "acc ount", "x", &cause), -1);
	free(cause);
	ck_assert_int_eq(template_sbatch_line(&b, "exclude", "", &cause), -1);
	ck_assert_str_eq(cause, "#SBATCH --exclude: empty value");
	free(cause);
	ck_assert_int_eq(template_sbatch_line(&b, "comment", "a\"b", &cause), -1);
	ck_assert_str_eq(cause, "#SBATCH --comment: '\"' cannot go into an "
	    "#SBATCH line (allowed: letters, digits and ._,:/+=@-)");
	free(cause);
	buf_free(&b);

	ck_assert_int_eq(template_export_lines(&sv, &out, &cause), 0);
	ck_assert_str_eq(out, "");
	free(out);
	strv_add(&sv, "NCCL_IB_DISABLE=1");
	strv_add(&sv, "X=it's = ok");
	ck_assert_int_eq(template_export_lines(&sv, &out, &cause), 0);
	ck_assert_str_eq(out, "export NCCL_IB_DISABLE='1'\n"
	    "export X='it'\\''s = ok'\n");
	/* What the builder makes, the renderer accepts. */
	expect_output("@@EXTRA_ENV@@\n", "EXTRA_ENV", out, out);
	free(out);
	strv_add(&sv, "BAD-NAME=1");
	ck_assert_int_eq(template_export_lines(&sv, &out, &cause), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(cause, "environment setting \"BAD-NAME\" is not "
	    "NAME=value with NAME a shell variable name");
	free(cause);
	strv_free(&sv);
	strv_add(&sv, "NOEQUALS");
	ck_assert_int_eq(template_export_lines(&sv, &out, &cause), -1);
	ck_assert_str_eq(cause, "environment setting \"NOEQUALS\" is not "
	    "NAME=value with NAME a shell variable name");
	free(cause);
	strv_free(&sv);
}
END_TEST

START_TEST(test_embedded)
{
	struct template_vars	 tv;
	char			*out, *cause = NULL;

	ck_assert_ptr_nonnull(template_embedded(SINGLE));
	ck_assert_ptr_nonnull(template_embedded(MULTI));
	ck_assert_ptr_nonnull(template_embedded("nccl_allreduce_probe.py"));
	ck_assert_ptr_null(template_embedded("slurm/none.tmpl"));
	ck_assert_str_eq(template_sbatch_name(1), SINGLE);
	ck_assert_str_eq(template_sbatch_name(2), MULTI);
	ck_assert_str_eq(template_sbatch_name(0), SINGLE);

	template_vars_init(&tv);
	ck_assert_int_eq(template_render_embedded("slurm/none.tmpl", &tv, &out,
	    &cause), -1);
	ck_assert_str_eq(cause, "no template called slurm/none.tmpl in this "
	    "sqdeck build");
	free(cause);
	/* An embedded template with nothing set names its first placeholder. */
	ck_assert_int_eq(template_render_embedded(SINGLE, &tv, &out, &cause), -1);
	ck_assert_str_eq(cause, "slurm/singlenode.sbatch.tmpl line 3: "
	    "@@JOB_NAME@@ has no value (leftover placeholder)");
	free(cause);
	template_vars_free(&tv);
}
END_TEST

/*
 * Every embedded file is its source file, byte for byte (tools/embed round
 * trip).  An awk-based generator once turned the templates' "\\n' \\" into a
 * real newline and a lost line continuation under mawk; this compares bytes
 * and lengths, whichever awk, sed or compiler the machine has.
 */
static void
same_bytes(const struct embedded_file *f, const char *dir)
{
	char	*path, *text, *cause = NULL;
	size_t	 len;

	path = xasprintf("%s/%s/%s", TOP_SRCDIR, dir, f->name);
	if (file_read(path, &text, &len, &cause) != 0)
		ck_abort_msg("%s", cause);
	ck_assert_msg(f->len == len, "%s: embedded %zu bytes, file has %zu",
	    path, f->len, len);
	ck_assert_msg(memcmp(f->data, text, len) == 0,
	    "%s: embedded bytes differ from the file", path);
	ck_assert_int_eq(f->data[len], '\0');
	free(text);
	free(path);
}

START_TEST(test_embedded_matches_files)
{
	const struct embedded_file	*f;
	size_t				 n = 0;

	for (f = embedded_files; f->name != NULL; f++, n++)
		same_bytes(f, "templates");
	/* 2 sbatch templates, the probe, 34 remote scripts. */
	ck_assert_uint_eq(n, 37);
}
END_TEST

/* The generator keeps every byte class: \ at line end, quotes, tabs, ??,
 * CR, ESC, bytes >= 0x80, NUL, and a file without a final newline. */
extern const struct embedded_file embed_tricky[];

START_TEST(test_embed_generator_bytes)
{
	ck_assert_str_eq(embed_tricky[0].name, "tests/data/embed/tricky.txt");
	same_bytes(&embed_tricky[0], ".");
	ck_assert_ptr_null(embed_tricky[1].name);
	ck_assert_ptr_nonnull(memchr(embed_tricky[0].data, '\0',
	    embed_tricky[0].len));
}
END_TEST

/* The probe is valid Python (torch is not installed here). */
START_TEST(test_probe_compiles)
{
	const char	*dir = test_tmpdir();
	char		*cmd;
	const char	*probe;
	int		 r;

	probe = template_embedded("nccl_allreduce_probe.py");
	ck_assert_ptr_nonnull(strstr(probe, "NCCL_PROBE_OK"));
	ck_assert_ptr_nonnull(strstr(probe, "all_reduce"));
	ck_assert_ptr_nonnull(strstr(probe, "backend=\"nccl\""));
	cmd = xasprintf("PYTHONPYCACHEPREFIX=%s python3 -m py_compile "
	    "%s/templates/nccl_allreduce_probe.py", dir, TOP_SRCDIR);
	r = system(cmd);
	ck_assert_int_eq(r, 0);
	free(cmd);
	/* Without torch it must fail loudly, not print OK. */
	cmd = xasprintf("cd %s && python3 -c 'import torch' 2>/dev/null || "
	    "{ python3 %s/templates/nccl_allreduce_probe.py > out 2> err; "
	    "test $? -eq 2 && grep -q NCCL_PROBE_FAIL err && "
	    "! grep -q NCCL_PROBE_OK out; }", dir, TOP_SRCDIR);
	r = system(cmd);
	ck_assert_int_eq(r, 0);
	free(cmd);
}
END_TEST

static Suite *
template_suite(void)
{
	Suite	*s = suite_create("template");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_golden_single);
	tcase_add_test(tc, test_golden_multi);
	tcase_add_test(tc, test_required_lines);
	tcase_add_test(tc, test_sidecar_not_sourced);
	tcase_add_test(tc, test_image_trust_at_start);
	tcase_add_test(tc, test_multi_superset);
	tcase_add_test(tc, test_command_quoting);
	tcase_add_test(tc, test_leftover);
	tcase_add_test(tc, test_directive_kinds);
	tcase_add_test(tc, test_shell_kinds);
	tcase_add_test(tc, test_line_kinds);
	tcase_add_test(tc, test_builders);
	tcase_add_test(tc, test_embedded);
	tcase_add_test(tc, test_embedded_matches_files);
	tcase_add_test(tc, test_embed_generator_bytes);
	tcase_add_test(tc, test_probe_compiles);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(template_suite)
