/*
 * template_render() with arbitrary template text and values.  Input: the
 * template text, then NUL-separated items:
 *	NAME=value	template_set(NAME, value)
 *	+opt=value	template_sbatch_line(opt, value) (+opt alone: no value)
 *	!NAME=value	an item for template_export_lines()
 * The lines built by template_sbatch_line() and template_export_lines()
 * must be accepted by the renderer as SBATCH_EXTRA and EXTRA_ENV (their
 * documented use).  The same values are also rendered into both embedded
 * sbatch templates.  No crash, no leak; -1 iff *cause is set.
 */
#include "fuzz.h"
#include "template.h"

#define MAXPARTS 64

static void
render(const char *name, const char *text, const struct template_vars *tv)
{
	char	*out, *cause = NULL;
	int	 rc;

	if (text != NULL)
		rc = template_render(name, text, tv, &out, &cause);
	else
		rc = template_render_embedded(name, tv, &out, &cause);
	fuzz_check((rc == -1) == (cause != NULL), "%s: rc %d", name, rc);
	fuzz_check((rc == 0) == (out != NULL), "%s: rc %d", name, rc);
	free(out);
	free(cause);
}

/* value must render as var on a line of its own. */
static void
render_line(const char *var, const char *value)
{
	struct template_vars	 tv;
	char			*text, *out, *cause = NULL;

	template_vars_init(&tv);
	template_set(&tv, var, value);
	text = xasprintf("#!/bin/bash\n@@%s@@\necho\n", var);
	if (template_render("line", text, &tv, &out, &cause) != 0)
		fuzz_check(0, "%s \"%s\" refused: %s", var, value, cause);
	free(out);
	free(text);
	template_vars_free(&tv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template_vars	 tv;
	struct strv		 env = { 0 };
	struct buf		 extra;
	char			*s = fuzz_cstr(data, size), *part[MAXPARTS];
	char			*eq, *lines, *cause = NULL;
	size_t			 n, i;

	template_vars_init(&tv);
	buf_init(&extra);
	n = fuzz_split(s, size, part, MAXPARTS);
	for (i = 1; i < n; i++) {
		if (part[i][0] == '!') {
			strv_add(&env, part[i] + 1);
			continue;
		}
		eq = strchr(part[i], '=');
		if (part[i][0] == '+') {
			if (eq != NULL)
				*eq++ = '\0';
			if (template_sbatch_line(&extra, part[i] + 1, eq,
			    &cause) != 0) {
				fuzz_check(cause != NULL, "no cause");
				free(cause);
				cause = NULL;
			}
			continue;
		}
		if (eq == NULL)
			continue;
		*eq++ = '\0';
		template_set(&tv, part[i], eq);
	}

	if (extra.len > 0)
		render_line("SBATCH_EXTRA", extra.data);
	if (template_export_lines(&env, &lines, &cause) == 0) {
		fuzz_check(lines != NULL, "no lines");
		render_line("EXTRA_ENV", lines);
		free(lines);
	} else {
		fuzz_check(cause != NULL && lines == NULL, "no cause");
		free(cause);
	}

	render("fuzz.tmpl", part[0], &tv);
	render(template_sbatch_name(1), NULL, &tv);
	render(template_sbatch_name(2), NULL, &tv);

	strv_free(&env);
	buf_free(&extra);
	template_vars_free(&tv);
	free(s);
	return 0;
}
