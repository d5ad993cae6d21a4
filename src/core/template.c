#include "template.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "embedded.h"

enum tkind {
	T_DIRECTIVE,	/* goes into an #SBATCH line as it is */
	T_DIRPATH,	/* T_DIRECTIVE and absolute */
	T_TIME,		/* SLURM time limit */
	T_COUNT,	/* integer >= 1 */
	T_COUNT0,	/* integer >= 0 */
	T_SWITCH,	/* "1"/"0" -> on/off line */
	T_SBATCH_LINES,	/* "#SBATCH --..." lines, each checked */
	T_EXPORT_LINES,	/* "export NAME='...'" lines, each checked */
	T_FRAGMENT,	/* shell lines from our own code */
	T_WORD,		/* shell-quoted */
	T_COMMAND,	/* shell-quoted, not empty */
	T_PATHWORD,	/* "" or absolute, shell-quoted */
	T_SQSH,		/* "" or absolute .sqsh, shell-quoted */
	T_PICK,		/* "1"/"0" -> on/off text in a line; unset: "0" */
	T_ARRAY,	/* "" or sbatch --array (array.h) -> its line; unset: "" */
};

struct tvar {
	const char	*name;
	enum tkind	 kind;
	const char	*on;	/* T_SWITCH */
	const char	*off;
};

static const struct tvar tvars[] = {
	{ "JOB_NAME", T_DIRECTIVE, NULL, NULL },
	{ "PARTITION", T_DIRECTIVE, NULL, NULL },
	{ "NUM_NODES", T_COUNT, NULL, NULL },
	{ "NUM_GPUS", T_COUNT0, NULL, NULL },
	{ "CPUS_PER_TASK", T_COUNT, NULL, NULL },
	{ "TIME", T_TIME, NULL, NULL },
	{ "LOG_DIR", T_DIRPATH, NULL, NULL },
	{ "REQUEUE", T_SWITCH, "#SBATCH --requeue", "#SBATCH --no-requeue" },
	{ "SBATCH_EXTRA", T_SBATCH_LINES, NULL, NULL },
	{ "IMAGE", T_SQSH, NULL, NULL },
	{ "IMAGE_OWNERS", T_WORD, NULL, NULL },
	{ "CONTAINER_MOUNTS", T_WORD, NULL, NULL },
	{ "JOB_DIR", T_PATHWORD, NULL, NULL },
	{ "COMMAND", T_COMMAND, NULL, NULL },
	{ "ENV_FILE", T_PATHWORD, NULL, NULL },
	{ "SECRET_NAMES", T_WORD, NULL, NULL },
	{ "RESULTS_DIR", T_PATHWORD, NULL, NULL },
	{ "EXTRA_ENV", T_EXPORT_LINES, NULL, NULL },
	{ "PRE_STEP", T_FRAGMENT, NULL, NULL },
	{ "PROGRAM_TIMEOUT", T_COUNT0, NULL, NULL },
	{ "PROGRAM_GRACE", T_COUNT0, NULL, NULL },
	{ "ARRAY", T_ARRAY, NULL, NULL },
	/* An array's tasks each write their own log in the array's dir. */
	{ "LOG_FILE", T_PICK, "%A/main_%a", "%j/main" },
};
#define NTVARS (sizeof tvars / sizeof tvars[0])

static const struct tvar *
tvar_find(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < NTVARS; i++) {
		if (strlen(tvars[i].name) == len &&
		    strncmp(tvars[i].name, name, len) == 0)
			return &tvars[i];
	}
	return NULL;
}

void
template_vars_init(struct template_vars *tv)
{
	tv->v = NULL;
	tv->n = 0;
}

void
template_vars_free(struct template_vars *tv)
{
	size_t	i;

	for (i = 0; i < tv->n; i++) {
		free(tv->v[i].name);
		free(tv->v[i].value);
	}
	free(tv->v);
	template_vars_init(tv);
}

static const char *
vars_get(const struct template_vars *tv, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < tv->n; i++) {
		if (strlen(tv->v[i].name) == len &&
		    strncmp(tv->v[i].name, name, len) == 0)
			return tv->v[i].value;
	}
	return NULL;
}

void
template_set(struct template_vars *tv, const char *name, const char *value)
{
	size_t	i;

	for (i = 0; i < tv->n; i++) {
		if (strcmp(tv->v[i].name, name) == 0) {
			free(tv->v[i].value);
			tv->v[i].value = xstrdup(value);
			return;
		}
	}
	tv->v = xrealloc(tv->v, (tv->n + 1) * sizeof *tv->v);
	tv->v[tv->n].name = xstrdup(name);
	tv->v[tv->n].value = xstrdup(value);
	tv->n++;
}

void
template_setf(struct template_vars *tv, const char *name, const char *fmt, ...)
{
	va_list	 ap;
	char	*value;

	va_start(ap, fmt);
	value = xvasprintf(fmt, ap);
	va_end(ap);
	template_set(tv, name, value);
	free(value);
}

/* Characters that survive an #SBATCH line untouched (no %, #, quotes). */
static int
directive_char(int c)
{
	return isalnum(c) || (c != '\0' && strchr("._,:/+=@-", c) != NULL);
}

/* Describe a character for a message without printing control bytes. */
static char *
char_name(int c)
{
	if (c == ' ')
		return xstrdup("a space");
	if (isprint(c))
		return xasprintf("'%c'", c);
	return xasprintf("character 0x%02x", c & 0xff);
}

static int
check_directive(const char *var, const char *v, char **cause)
{
	const char	*p;
	char		*what;

	if (*v == '\0')
		return cause_set(cause, "template variable %s is empty", var);
	for (p = v; *p != '\0'; p++) {
		if (!directive_char((unsigned char)*p)) {
			what = char_name((unsigned char)*p);
			cause_set(cause, "template variable %s: %s cannot go "
			    "into an #SBATCH line (allowed: letters, digits "
			    "and ._,:/+=@-)", var, what);
			free(what);
			return -1;
		}
	}
	return 0;
}

static int
check_count(const char *var, const char *v, int min, char **cause)
{
	const char	*p;

	for (p = v; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			break;
	}
	if (*v == '\0' || *p != '\0' || (v[0] == '0' && v[1] != '\0') ||
	    strlen(v) > 6 || atoi(v) < min) {
		return cause_set(cause, "template variable %s: \"%s\" is not "
		    "a whole number >= %d", var, v, min);
	}
	return 0;
}

static int
check_time(const char *var, const char *v, char **cause)
{
	const char	*p;

	for (p = v; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) && *p != ':' && *p != '-')
			break;
	}
	if (!isdigit((unsigned char)*v) || *p != '\0') {
		return cause_set(cause, "template variable %s: \"%s\" is not "
		    "a SLURM time limit (like 4:00:00 or 1-00:00:00)", var, v);
	}
	return 0;
}

/* Each line "#SBATCH --opt[=value]" with a safe option and value. */
static int
check_sbatch_lines(const char *var, const char *v, char **cause)
{
	const char	*line = v, *end, *p;
	size_t		 n;
	int		 lineno = 0;

	while (*line != '\0') {
		lineno++;
		end = strchr(line, '\n');
		n = end != NULL ? (size_t)(end - line) : strlen(line);
		if (n < 11 || strncmp(line, "#SBATCH --", 10) != 0)
			goto bad;
		for (p = line + 10; p < line + n && *p != '='; p++) {
			if (!islower((unsigned char)*p) && *p != '-')
				goto bad;
		}
		if (p < line + n) {
			for (p++; p < line + n; p++) {
				if (!directive_char((unsigned char)*p))
					goto bad;
			}
		}
		line += n;
		if (*line == '\n')
			line++;
	}
	return 0;
bad:
	return cause_set(cause, "template variable %s: line %d is not "
	    "\"#SBATCH --option[=value]\" with a safe value (build it with "
	    "template_sbatch_line)", var, lineno);
}

static int
is_shell_var(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return 0;
	for (i = 1; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	}
	return 1;
}

/* Length of a word quoted the way shell_quote() does it, or 0. */
static size_t
quoted_len(const char *s, size_t n)
{
	size_t	i = 0;

	while (i < n) {
		if (s[i] == '\'') {
			for (i++; i < n && s[i] != '\''; i++)
				;
			if (i == n)
				return 0;
			i++;
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\'')
			i += 2;
		else
			return 0;
	}
	return i;
}

/* Each line "export NAME=<quoted word>"; quotes may span lines. */
static int
check_export_lines(const char *var, const char *v, char **cause)
{
	const char	*p = v, *eq, *q;
	int		 lineno = 1, start = 1;
	size_t		 i, end;

	while (*p != '\0') {
		start = lineno;
		if (strncmp(p, "export ", 7) != 0)
			goto bad;
		if ((eq = strchr(p + 7, '=')) == NULL ||
		    !is_shell_var(p + 7, eq - (p + 7)))
			goto bad;
		/* The quoted word ends at the first newline outside quotes. */
		q = eq + 1;
		end = 0;
		for (i = 0; q[i] != '\0'; i++) {
			if (q[i] == '\'') {
				for (i++; q[i] != '\0' && q[i] != '\''; i++) {
					if (q[i] == '\n')
						lineno++;
				}
				if (q[i] == '\0')
					goto bad;
			} else if (q[i] == '\\' && q[i + 1] == '\'')
				i++;
			else if (q[i] == '\n')
				break;
		}
		end = i;
		if (end == 0 || quoted_len(q, end) != end)
			goto bad;
		p = q + end;
		if (*p == '\n') {
			p++;
			lineno++;
		}
	}
	return 0;
bad:
	return cause_set(cause, "template variable %s: line %d is not "
	    "\"export NAME='value'\" (build it with template_export_lines)",
	    var, start);
}

static int
check_abs(const char *var, const char *v, char **cause)
{
	if (*v != '/') {
		return cause_set(cause, "template variable %s: \"%s\" is not "
		    "an absolute path", var, v);
	}
	return 0;
}

static int
check_sqsh(const char *var, const char *v, char **cause)
{
	if (*v == '\0')
		return 0;
	if (*v != '/' || (!str_has_suffix(v, ".sqsh") &&
	    !str_has_suffix(v, ".squashfs"))) {
		return cause_set(cause, "template variable %s: \"%s\" is not an "
		    "absolute .sqsh path; a job runs only a converted image (a "
		    "registry URI would make Pyxis pull it inside the GPU "
		    "allocation), or \"\" for container mode none", var, v);
	}
	return 0;
}

/* Append v as whole lines (newline-terminated), nothing if empty. */
static void
add_lines(struct buf *b, const char *v)
{
	size_t	n = strlen(v);

	if (n == 0)
		return;
	buf_add(b, v, n);
	if (v[n - 1] != '\n')
		buf_add(b, "\n", 1);
}

static int
is_line_kind(enum tkind k)
{
	return k == T_SWITCH || k == T_SBATCH_LINES || k == T_EXPORT_LINES ||
	    k == T_FRAGMENT || k == T_ARRAY;
}

/* Check v for its kind and append its rendered form to b. */
static int
add_value(struct buf *b, const struct tvar *t, const char *v, char **cause)
{
	switch (t->kind) {
	case T_DIRPATH:
		if (check_abs(t->name, v, cause) != 0)
			return -1;
		/* FALLTHROUGH */
	case T_DIRECTIVE:
		if (check_directive(t->name, v, cause) != 0)
			return -1;
		buf_adds(b, v);
		break;
	case T_TIME:
		if (check_time(t->name, v, cause) != 0)
			return -1;
		buf_adds(b, v);
		break;
	case T_COUNT:
	case T_COUNT0:
		if (check_count(t->name, v, t->kind == T_COUNT, cause) != 0)
			return -1;
		buf_adds(b, v);
		break;
	case T_SWITCH:
		if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0) {
			return cause_set(cause, "template variable %s: \"%s\" "
			    "is not 1 or 0", t->name, v);
		}
		add_lines(b, *v == '1' ? t->on : t->off);
		break;
	case T_PICK:
		if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0) {
			return cause_set(cause, "template variable %s: \"%s\" "
			    "is not 1 or 0", t->name, v);
		}
		buf_adds(b, *v == '1' ? t->on : t->off);
		break;
	case T_ARRAY:
		if (*v == '\0')
			break;
		if (array_parse(v, NULL, cause) != 0)
			return -1;
		buf_printf(b, "#SBATCH --array=%s\n", v);
		break;
	case T_SBATCH_LINES:
		if (check_sbatch_lines(t->name, v, cause) != 0)
			return -1;
		add_lines(b, v);
		break;
	case T_EXPORT_LINES:
		if (check_export_lines(t->name, v, cause) != 0)
			return -1;
		add_lines(b, v);
		break;
	case T_FRAGMENT:
		add_lines(b, v);
		break;
	case T_COMMAND:
		if (*v == '\0') {
			return cause_set(cause, "template variable %s is empty",
			    t->name);
		}
		buf_add_quoted(b, v);
		break;
	case T_PATHWORD:
		if (*v != '\0' && check_abs(t->name, v, cause) != 0)
			return -1;
		buf_add_quoted(b, v);
		break;
	case T_SQSH:
		if (check_sqsh(t->name, v, cause) != 0)
			return -1;
		/* FALLTHROUGH */
	case T_WORD:
		buf_add_quoted(b, v);
		break;
	}
	return 0;
}

/* Length of NAME in "@@NAME@@" at p (p points at "@@"), or 0. */
static size_t
placeholder_len(const char *p)
{
	size_t	n = 0;

	if (p[0] != '@' || p[1] != '@')
		return 0;
	while (isalnum((unsigned char)p[2 + n]) || p[2 + n] == '_')
		n++;
	if (n == 0 || p[2 + n] != '@' || p[3 + n] != '@')
		return 0;
	return n;
}

int
template_render(const char *name, const char *text,
    const struct template_vars *tv, char **out, char **cause)
{
	struct buf		 b;
	const struct tvar	*t;
	const char		*line, *eol, *p, *v;
	size_t			 i, n, linelen;
	int			 lineno = 0;

	*out = NULL;
	for (i = 0; i < tv->n; i++) {
		if (tvar_find(tv->v[i].name, strlen(tv->v[i].name)) == NULL) {
			return cause_set(cause, "template variable %s is not "
			    "known to the renderer", tv->v[i].name);
		}
	}

	buf_init(&b);
	buf_adds(&b, "");
	for (line = text; *line != '\0'; line = eol) {
		lineno++;
		eol = strchr(line, '\n');
		eol = eol != NULL ? eol + 1 : line + strlen(line);
		linelen = eol - line;
		if (linelen > 0 && line[linelen - 1] == '\n')
			linelen--;

		for (p = line; p < line + linelen; ) {
			if ((n = placeholder_len(p)) == 0 ||
			    p + n + 4 > line + linelen) {
				buf_add(&b, p, 1);
				p++;
				continue;
			}
			if ((t = tvar_find(p + 2, n)) == NULL) {
				cause_set(cause, "%s line %d: unknown "
				    "placeholder @@%.*s@@", name, lineno,
				    (int)n, p + 2);
				goto fail;
			}
			v = vars_get(tv, p + 2, n);
			/* Added later: a caller that predates them means off. */
			if (v == NULL && t->kind == T_PICK)
				v = "0";
			if (v == NULL && t->kind == T_ARRAY)
				v = "";
			if (v == NULL) {
				cause_set(cause, "%s line %d: @@%s@@ has no "
				    "value (leftover placeholder)", name,
				    lineno, t->name);
				goto fail;
			}
			if (is_line_kind(t->kind)) {
				if (p != line || n + 4 != linelen) {
					cause_set(cause, "%s line %d: @@%s@@ "
					    "must be alone on its line", name,
					    lineno, t->name);
					goto fail;
				}
				if (add_value(&b, t, v, cause) != 0)
					goto fail;
				break;
			}
			if (add_value(&b, t, v, cause) != 0)
				goto fail;
			p += n + 4;
		}
		if (p == line + linelen && line[linelen] == '\n')
			buf_add(&b, "\n", 1);
	}
	*out = buf_steal(&b);
	return 0;

fail:
	buf_free(&b);
	return -1;
}

const char *
template_embedded(const char *name)
{
	const struct embedded_file	*f;

	for (f = embedded_files; f->name != NULL; f++) {
		if (strcmp(f->name, name) == 0)
			return f->data;
	}
	return NULL;
}

int
template_render_embedded(const char *name, const struct template_vars *tv,
    char **out, char **cause)
{
	const char	*text;

	*out = NULL;
	if ((text = template_embedded(name)) == NULL) {
		return cause_set(cause, "no template called %s in this "
		    "sqdeck build", name);
	}
	return template_render(name, text, tv, out, cause);
}

const char *
template_sbatch_name(int nodes)
{
	return nodes > 1 ? "slurm/multinode.sbatch.tmpl" :
	    "slurm/singlenode.sbatch.tmpl";
}

int
template_sbatch_line(struct buf *b, const char *option, const char *value,
    char **cause)
{
	const char	*p;
	char		*what;

	if (!islower((unsigned char)*option))
		goto bad_option;
	for (p = option; *p != '\0'; p++) {
		if (!islower((unsigned char)*p) && *p != '-')
			goto bad_option;
	}
	if (value != NULL) {
		if (*value == '\0') {
			return cause_set(cause, "#SBATCH --%s: empty value",
			    option);
		}
		for (p = value; *p != '\0'; p++) {
			if (!directive_char((unsigned char)*p)) {
				what = char_name((unsigned char)*p);
				cause_set(cause, "#SBATCH --%s: %s cannot go "
				    "into an #SBATCH line (allowed: letters, "
				    "digits and ._,:/+=@-)", option, what);
				free(what);
				return -1;
			}
		}
		buf_printf(b, "#SBATCH --%s=%s\n", option, value);
	} else
		buf_printf(b, "#SBATCH --%s\n", option);
	return 0;
bad_option:
	return cause_set(cause, "#SBATCH option \"%s\" is not a long option "
	    "name (a-z and -)", option);
}

int
template_export_lines(const struct strv *sv, char **out, char **cause)
{
	struct buf	 b;
	const char	*eq;
	size_t		 i;

	*out = NULL;
	buf_init(&b);
	buf_adds(&b, "");
	for (i = 0; i < sv->n; i++) {
		eq = strchr(sv->v[i], '=');
		if (eq == NULL || !is_shell_var(sv->v[i], eq - sv->v[i])) {
			buf_free(&b);
			return cause_set(cause, "environment setting \"%.*s\" "
			    "is not NAME=value with NAME a shell variable "
			    "name", eq != NULL ? (int)(eq - sv->v[i]) : 40,
			    sv->v[i]);
		}
		buf_printf(&b, "export %.*s=", (int)(eq - sv->v[i]), sv->v[i]);
		buf_add_quoted(&b, eq + 1);
		buf_adds(&b, "\n");
	}
	*out = buf_steal(&b);
	return 0;
}
