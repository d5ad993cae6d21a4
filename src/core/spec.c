/*
 * The job spec YAML: parse (libyaml document API, so errors carry line and
 * column) and validate; spec-write.c writes it back.
 */
#include "spec.h"
#include "array.h"
#include "jobid.h"
#include "yamldoc.h"
#include "str.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define TIME_MAX_MINUTES	(30 * 24 * 60)	/* a typo guard, not policy */

enum stype {
	S_NAME,		/* job name prefix */
	S_LINE,		/* one line of text */
	S_TEXT,		/* text, may span lines (command) */
	S_WORD,		/* partition, cluster */
	S_INT,
	S_TIME,
	S_BOOL,
	S_DATASETS,
	S_MOUNTS,
	S_ENV,
	S_SECRETS,
	S_FILES,
	S_AFTER,
	S_ARRAY,	/* sbatch --array (array.h) */
};

struct skey {
	const char	*name;
	enum stype	 type;
	size_t		 off;
	int		 min;
	int		 max;
};

#define F(f) offsetof(struct spec, f)
static const struct skey skeys[] = {
	{ "name", S_NAME, F(name), 0, 0 },
	{ "image", S_LINE, F(image), 0, 0 },
	{ "command", S_TEXT, F(command), 0, 0 },
	{ "network_arch", S_LINE, F(network_arch), 0, 0 },
	{ "action", S_LINE, F(action), 0, 0 },
	{ "datasets", S_DATASETS, F(datasets), 0, 0 },
	{ "mounts", S_MOUNTS, 0, 0, 0 },
	{ "nodes", S_INT, F(nodes), 1, SPEC_NODES_MAX },
	{ "gpus", S_INT, F(gpus), 0, SPEC_GPUS_MAX },
	{ "gpus_per_node", S_INT, F(gpus_per_node), 1, 64 },
	{ "cpus", S_INT, F(cpus), 1, SPEC_CPUS_MAX },
	{ "time", S_TIME, F(time_minutes), 0, 0 },
	{ "partition", S_WORD, F(partition), 0, 0 },
	{ "env", S_ENV, 0, 0, 0 },
	{ "secrets", S_SECRETS, 0, 0, 0 },
	{ "files", S_FILES, 0, 0, 0 },
	{ "requeue", S_BOOL, F(requeue), 0, 0 },
	{ "retry_budget", S_INT, F(retry_budget), 0, 10 },
	{ "force_reconvert", S_BOOL, F(force_reconvert), 0, 0 },
	{ "cluster", S_WORD, F(cluster), 0, 0 },
	{ "after", S_AFTER, 0, 0, 0 },
	{ "array", S_ARRAY, F(array), 0, 0 },
};
#undef F
#define NSKEYS (sizeof skeys / sizeof skeys[0])

struct parse {
	const char	*file;
	yaml_document_t	 doc;
	char		*cause;
};

void
spec_init(struct spec *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->gpus = -1;
	sp->requeue = -1;
	sp->retry_budget = SPEC_RETRY_BUDGET;
}

void
spec_free(struct spec *sp)
{
	size_t	i;

	free(sp->path);
	free(sp->name);
	free(sp->image);
	free(sp->command);
	free(sp->network_arch);
	free(sp->action);
	strv_free(&sp->datasets);
	for (i = 0; i < sp->nmounts; i++) {
		free(sp->mounts[i].src);
		free(sp->mounts[i].dst);
	}
	free(sp->mounts);
	free(sp->partition);
	for (i = 0; i < sp->nenv; i++) {
		free(sp->env[i].name);
		free(sp->env[i].value);
	}
	free(sp->env);
	strv_free(&sp->secrets);
	strv_free(&sp->after_ok);
	strv_free(&sp->after_any);
	for (i = 0; i < sp->nfiles; i++) {
		free(sp->files[i].path);
		free(sp->files[i].sha256);
	}
	free(sp->files);
	free(sp->cluster);
	free(sp->array);
	spec_init(sp);
}

/* String checks: NULL if fine, else a message without location. */

static int
ident_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	}
	return 1;
}

static char *
check_spec_name(const char *s)
{
	const char	*p;

	if (strlen(s) > SPEC_NAME_MAX || !isalnum((unsigned char)*s))
		goto bad;
	for (p = s; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("._-", *p) == NULL)
			goto bad;
	}
	return NULL;
bad:
	return xasprintf("name '%s' must start with a letter or digit and "
	    "use only letters, digits, '.', '_', '-' (at most %d)", s,
	    SPEC_NAME_MAX);
}

static char *
check_line(const char *what, const char *s)
{
	if (str_blank(s))
		return xasprintf("%s must not be empty", what);
	if (str_has_control(s, 0))
		return xasprintf("%s must be one line without control "
		    "characters", what);
	return NULL;
}

static char *
check_word(const char *what, const char *s)
{
	const char	*p;

	for (p = s; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("._-", *p) == NULL)
			break;
	}
	if (*s == '\0' || *p != '\0')
		return xasprintf("%s '%s' must be letters, digits, '.', '_' or "
		    "'-'", what, s);
	return NULL;
}

/* One partition or a comma list of them ("gpu,gpu_long"): -p takes both. */
static char *
check_partitions(const char *s)
{
	struct strv	 v = { 0 };
	char		*err = NULL;
	size_t		 i;

	strv_split(&v, s, ',');
	if (v.n == 0 || s[strlen(s) - 1] == ',' || *s == ',' ||
	    strstr(s, ",,") != NULL)
		err = xasprintf("partition '%s' must be a name or a comma "
		    "list of names, without empty entries", s);
	for (i = 0; err == NULL && i < v.n; i++)
		err = check_word("partition", v.v[i]);
	strv_free(&v);
	return err;
}

static char *
check_sha256(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++) {
		if (!isxdigit((unsigned char)s[i]))
			break;
	}
	if (i != 64 || s[i] != '\0')
		return xasprintf("sha256 '%s' must be 64 hex digits (run "
		    "sha256sum on the file)", s);
	return NULL;
}

int
spec_secret_name(const char *name)
{
	static const char *exact[] = {
		"NGC_KEY", "NGC_API_KEY", "NGC_CLI_API_KEY", "HF_TOKEN",
		"HUGGING_FACE_HUB_TOKEN", "WANDB_API_KEY",
		"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN",
		"PASSWORD", "PASSWD", "TOKEN", "SECRET", "API_KEY", NULL
	};
	static const char *suffix[] = {
		"_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_API_KEY",
		"_SECRET_KEY", "_ACCESS_KEY", "_CREDENTIALS", NULL
	};
	char		 up[256];
	size_t		 i, n = strlen(name);

	if (n >= sizeof up)
		n = sizeof up - 1;
	for (i = 0; i < n; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[n] = '\0';
	for (i = 0; exact[i] != NULL; i++) {
		if (strcmp(up, exact[i]) == 0)
			return 1;
	}
	for (i = 0; suffix[i] != NULL; i++) {
		if (str_has_suffix(up, suffix[i]))
			return 1;
	}
	return 0;
}

static char *
check_env(const char *name, const char *value)
{
	if (!ident_ok(name))
		return xasprintf("env name '%s' is not a shell variable name "
		    "(letters, digits, '_'; not starting with a digit)", name);
	if (spec_secret_name(name))
		return xasprintf("env %s looks like a secret: list it under "
		    "'secrets: [%s]' and export its value when you submit, "
		    "instead of writing it in the file", name, name);
	if (value != NULL && str_has_control(value, 1))
		return xasprintf("env %s: the value must not contain control "
		    "characters", name);
	return NULL;
}

/*
 * Never echo what was written as a secret name: it might be the value
 * pasted in the wrong place.
 */
static char *
check_secret(size_t idx, const char *s)
{
	const char	*eq = strchr(s, '=');
	char		*name;

	if (eq != NULL) {
		name = xstrndup(s, (size_t)(eq - s));
		if (ident_ok(name)) {
			char	*m = xasprintf("secrets lists names only: item "
			    "%zu carries a value ('%s=...'): remove the value "
			    "from the file and export %s when you submit", idx,
			    name, name);

			free(name);
			return m;
		}
		free(name);
	}
	if (!ident_ok(s))
		return xasprintf("item %zu of secrets is not a variable name "
		    "(letters, digits, '_'): secrets lists names like "
		    "HF_TOKEN, never values", idx);
	if (strncasecmp(s, "hf_", 3) == 0 && strlen(s) >= 30)
		return xasprintf("item %zu of secrets looks like a Hugging Face "
		    "token, not a name: write the variable name (e.g. "
		    "HF_TOKEN) and export the token when you submit", idx);
	return NULL;
}

/* A part of a SLURM time (D, H, MM, SS): 1 to 9 digits. */
static int
time_part(const char *s, size_t n, long *out)
{
	return (*out = str_digits_n(s, n)) < 0 ? -1 : 0;
}

int
spec_parse_time(const char *s, int *minutes, char **cause)
{
	int	seconds;

	return spec_parse_time_exact(s, minutes, &seconds, cause);
}

int
spec_parse_time_exact(const char *s, int *minutes, int *seconds, char **cause)
{
	const char	*p, *colon, *dash;
	char		*end;
	double		 secs = 0, v;
	long		 d = 0, h = 0, m = 0, sec = 0;
	int		 ncolon = 0;

	for (p = s; *p != '\0'; p++)
		ncolon += *p == ':';
	dash = strchr(s, '-');
	if (ncolon > 0 || dash != NULL) {
		/* SLURM forms: H:MM:SS, D-H, D-H:MM:SS. */
		p = s;
		if (dash != NULL) {
			if (time_part(p, (size_t)(dash - p), &d) != 0)
				goto bad;
			p = dash + 1;
		}
		if (ncolon == 0) {
			if (dash == NULL || time_part(p, strlen(p), &h) != 0)
				goto bad;
		} else if (ncolon == 2) {
			colon = strchr(p, ':');
			if (time_part(p, (size_t)(colon - p), &h) != 0)
				goto bad;
			p = colon + 1;
			colon = strchr(p, ':');
			if (time_part(p, (size_t)(colon - p), &m) != 0 ||
			    colon - p != 2 || m > 59)
				goto bad;
			p = colon + 1;
			if (time_part(p, strlen(p), &sec) != 0 ||
			    strlen(p) != 2 || sec > 59)
				goto bad;
		} else if (ncolon == 1 && dash == NULL)
			return cause_set(cause, "time '%s' is ambiguous (SLURM "
			    "reads A:B as minutes:seconds): write e.g. 30m, "
			    "1h30m or 1:30:00", s);
		else
			goto bad;
		secs = (double)d * 86400 + (double)h * 3600 + (double)m * 60 +
		    (double)sec;
	} else {
		/* A number of hours, or units: 4h, 90m, 1h30m, 2d. */
		errno = 0;
		v = strtod(s, &end);
		if (end != s && *end == '\0' && errno == 0 &&
		    isdigit((unsigned char)*s))
			secs = v * 3600;
		else {
			p = s;
			if (*p == '\0')
				goto bad;
			while (*p != '\0') {
				if (!isdigit((unsigned char)*p))
					goto bad;
				errno = 0;
				v = strtod(p, &end);
				if (end == p || errno != 0)
					goto bad;
				switch (*end) {
				case 'd':
					secs += v * 86400;
					break;
				case 'h':
					secs += v * 3600;
					break;
				case 'm':
					secs += v * 60;
					break;
				case 's':
					secs += v;
					break;
				default:
					goto bad;
				}
				p = end + 1;
			}
		}
	}
	if (!isfinite(secs) || secs <= 0)
		return cause_set(cause, "time '%s' must be more than zero", s);
	if (secs > (double)TIME_MAX_MINUTES * 60)
		return cause_set(cause, "time '%s' is more than 30 days: write "
		    "the time the job needs, e.g. 4h", s);
	*minutes = (int)ceil(secs / 60);
	*seconds = (int)ceil(secs);
	return 0;
bad:
	return cause_set(cause, "time '%s' is not a duration: write e.g. 4h, "
	    "90m, 1h30m, 3:30:00 or a number of hours", s);
}

int
spec_parse_mount(const char *s, struct spec_mount *mt, char **cause)
{
	struct strv	 parts;
	size_t		 i;
	int		 ro = 0, rc = -1;

	memset(mt, 0, sizeof *mt);
	memset(&parts, 0, sizeof parts);
	if (*s == '\0' || strpbrk(s, ", \t\n\r") != NULL ||
	    str_has_control(s, 0)) {
		cause_set(cause, "mount '%s' must not contain blanks or commas "
		    "(Pyxis separates mounts with commas)", s);
		goto out;
	}
	if (strstr(s, "://") != NULL) {
		cause_set(cause, "mount '%s': SRC must be an absolute path on "
		    "the cluster, not a URI: write e.g. /lustre/data:/data", s);
		goto out;
	}
	/* strv_split drops empty items: count the colons ourselves. */
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == ':' && (i == 0 || s[i + 1] == ':' ||
		    s[i + 1] == '\0'))
			goto shape;
	}
	strv_split(&parts, s, ':');
	if (parts.n < 2 || parts.n > 3)
		goto shape;
	if (parts.n == 3) {
		if (strcmp(parts.v[2], "ro") == 0)
			ro = 1;
		else if (strcmp(parts.v[2], "rw") != 0) {
			cause_set(cause, "mount '%s': unknown flag '%s', use ro "
			    "or rw", s, parts.v[2]);
			goto out;
		}
	}
	for (i = 0; i < 2; i++) {
		if (*parts.v[i] != '/') {
			cause_set(cause, "mount '%s': %s '%s' must be an "
			    "absolute path%s", s, i == 0 ? "SRC" : "DST",
			    parts.v[i], i == 0 ? " on the cluster" :
			    " in the container");
			goto out;
		}
	}
	mt->src = xstrdup(parts.v[0]);
	mt->dst = xstrdup(parts.v[1]);
	mt->ro = ro;
	rc = 0;
	goto out;
shape:
	cause_set(cause, "mount '%s' must be SRC:DST or SRC:DST:ro with "
	    "absolute paths, e.g. /lustre/data:/data:ro", s);
out:
	strv_free(&parts);
	return rc;
}

int
spec_add_mount(struct spec *sp, const char *s, char **cause)
{
	struct spec_mount	mt;

	if (spec_parse_mount(s, &mt, cause) != 0)
		return -1;
	sp->mounts = xrealloc(sp->mounts, (sp->nmounts + 1) *
	    sizeof *sp->mounts);
	sp->mounts[sp->nmounts++] = mt;
	return 0;
}

static size_t
env_find(const struct spec *sp, const char *name)
{
	size_t	i;

	for (i = 0; i < sp->nenv; i++) {
		if (strcmp(sp->env[i].name, name) == 0)
			break;
	}
	return i;
}

int
spec_add_env(struct spec *sp, const char *name, const char *value,
    char **cause)
{
	char	*err;

	if ((err = check_env(name, value)) != NULL) {
		*cause = err;
		return -1;
	}
	if (env_find(sp, name) != sp->nenv)
		return cause_set(cause, "env %s is set twice: keep one", name);
	sp->env = xrealloc(sp->env, (sp->nenv + 1) * sizeof *sp->env);
	sp->env[sp->nenv].name = xstrdup(name);
	sp->env[sp->nenv].value = xstrdup(value != NULL ? value : "");
	sp->nenv++;
	return 0;
}

char *
spec_mounts_string(const struct spec *sp)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_adds(&b, "");
	for (i = 0; i < sp->nmounts; i++) {
		buf_printf(&b, "%s%s:%s%s", i ? "," : "", sp->mounts[i].src,
		    sp->mounts[i].dst, sp->mounts[i].ro ? ":ro" : "");
	}
	return buf_steal(&b);
}

/* YAML side. */

static int
perr(struct parse *ps, yaml_node_t *n, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *raw;

	va_start(ap, fmt);
	raw = xvasprintf(fmt, ap);
	va_end(ap);
	/* A value quoted in it is the file's: no line of its own. */
	msg = str_escape_controls(raw);
	free(raw);
	free(ps->cause);
	if (n != NULL)
		ps->cause = xasprintf("%s:%zu:%zu: %s", ps->file,
		    n->start_mark.line + 1, n->start_mark.column + 1, msg);
	else
		ps->cause = xasprintf("%s: %s", ps->file, msg);
	free(msg);
	return -1;
}

/* Report err (consumed) at node n. */
static int
perr_take(struct parse *ps, yaml_node_t *n, char *err)
{
	perr(ps, n, "%s", err);
	free(err);
	return -1;
}

static yaml_node_t *
get(struct parse *ps, int idx)
{
	return yaml_document_get_node(&ps->doc, idx);
}

static int
want_list(struct parse *ps, yaml_node_t *v, const char *key,
    const char *example)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return 0;
	return perr(ps, v, "%s must be a list, not %s: write e.g. '%s: [%s]'",
	    key, yamldoc_kind(v), key, example);
}

static int
want_scalar_item(struct parse *ps, yaml_node_t *n, const char *key)
{
	if (n->type == YAML_SCALAR_NODE && !yamldoc_is_null(n))
		return 0;
	return perr(ps, n, "each item of %s must be a value, not %s", key,
	    yamldoc_is_null(n) ? "empty" : yamldoc_kind(n));
}

static int
parse_files(struct parse *ps, struct spec *sp, yaml_node_t *v)
{
	static const char	*known[] = { "path", "sha256" };
	yaml_node_item_t	*it;
	yaml_node_pair_t	*p;
	yaml_node_t		*item, *k, *val, *pathn, *shan;
	struct spec_file	*f;
	char			*err, *where;
	size_t			 idx, i;

	if (want_list(ps, v, "files", "{path: cfg.yaml, sha256: ...}") != 0)
		return -1;
	for (it = v->data.sequence.items.start;
	    it < v->data.sequence.items.top; it++) {
		item = get(ps, *it);
		idx = (size_t)(it - v->data.sequence.items.start) + 1;
		if (item->type != YAML_MAPPING_NODE)
			return perr(ps, item, "item %zu of files must be a map "
			    "{path: ..., sha256: ...}, not %s", idx,
			    yamldoc_kind(item));
		pathn = shan = NULL;
		for (p = item->data.mapping.pairs.start;
		    p < item->data.mapping.pairs.top; p++) {
			k = get(ps, p->key);
			val = get(ps, p->value);
			if (k->type != YAML_SCALAR_NODE) {
				return perr(ps, k, "keys in item %zu of files "
				    "must be plain words", idx);
			}
			for (i = 0; i < 2; i++) {
				if (strcmp(yamldoc_scalar(k), known[i]) == 0)
					break;
			}
			if (i == 2) {
				where = xasprintf("item %zu of files", idx);
				err = yamldoc_unknown_key(yamldoc_scalar(k),
				    where, known, 2);
				free(where);
				return perr_take(ps, k, err);
			}
			if ((i == 0 ? pathn : shan) != NULL)
				return perr(ps, k, "key '%s' appears twice in "
				    "item %zu of files: keep one", known[i],
				    idx);
			if (val->type != YAML_SCALAR_NODE || yamldoc_is_null(val))
				return perr(ps, val, "%s in item %zu of files "
				    "must be a value, not %s", known[i], idx,
				    yamldoc_is_null(val) ? "empty" : yamldoc_kind(val));
			if (i == 0)
				pathn = val;
			else
				shan = val;
		}
		if (pathn == NULL || shan == NULL)
			return perr(ps, item, "item %zu of files needs both "
			    "path and sha256 (supporting files are staged only "
			    "when closed by a checksum)", idx);
		if ((err = check_line("path", yamldoc_scalar(pathn))) != NULL)
			return perr_take(ps, pathn, err);
		if ((err = check_sha256(yamldoc_scalar(shan))) != NULL)
			return perr_take(ps, shan, err);
		sp->files = xrealloc(sp->files, (sp->nfiles + 1) *
		    sizeof *sp->files);
		f = &sp->files[sp->nfiles++];
		f->path = xstrdup(yamldoc_scalar(pathn));
		f->sha256 = xstrdup(yamldoc_scalar(shan));
		for (i = 0; f->sha256[i] != '\0'; i++)
			f->sha256[i] = (char)tolower((unsigned char)f->sha256[i]);
	}
	return 0;
}

static int
parse_secrets(struct parse *ps, struct spec *sp, yaml_node_t *v,
    yaml_mark_t **marks)
{
	yaml_node_item_t	*it;
	yaml_node_t		*item, *k;
	char			*err;
	size_t			 idx, i;

	if (v->type == YAML_MAPPING_NODE) {
		/* secrets: {HF_TOKEN: hf_...} -- never echo the value. */
		if (v->data.mapping.pairs.start == v->data.mapping.pairs.top)
			k = v;
		else
			k = get(ps, v->data.mapping.pairs.start->key);
		return perr(ps, v, "secrets lists names only, never values: "
		    "write 'secrets: [%s]' and export %s when you submit",
		    k->type == YAML_SCALAR_NODE && ident_ok(yamldoc_scalar(k)) ?
		    yamldoc_scalar(k) : "NAME", k->type == YAML_SCALAR_NODE &&
		    ident_ok(yamldoc_scalar(k)) ? yamldoc_scalar(k) : "it");
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return perr(ps, v, "secrets must be a list of names, e.g. "
		    "'secrets: [HF_TOKEN]'");
	for (it = v->data.sequence.items.start;
	    it < v->data.sequence.items.top; it++) {
		item = get(ps, *it);
		idx = (size_t)(it - v->data.sequence.items.start) + 1;
		if (item->type == YAML_MAPPING_NODE)
			return perr(ps, item, "secrets lists names only: item "
			    "%zu is a map (NAME: value): write just the name "
			    "and export it when you submit", idx);
		if (want_scalar_item(ps, item, "secrets") != 0)
			return -1;
		if ((err = check_secret(idx, yamldoc_scalar(item))) != NULL)
			return perr_take(ps, item, err);
		for (i = 0; i < sp->secrets.n; i++) {
			if (strcmp(sp->secrets.v[i], yamldoc_scalar(item)) == 0)
				return perr(ps, item, "secret %s is listed "
				    "twice: keep one", yamldoc_scalar(item));
		}
		*marks = xrealloc(*marks, (sp->secrets.n + 1) * sizeof **marks);
		(*marks)[sp->secrets.n] = item->start_mark;
		strv_add(&sp->secrets, yamldoc_scalar(item));
	}
	return 0;
}

/* One list of after: (which: "ok" or "any"): SLURM job ids or tasks. */
static int
parse_after_list(struct parse *ps, struct strv *to, const char *which,
    yaml_node_t *v)
{
	yaml_node_item_t	*it;
	yaml_node_t		*item;
	struct jobid		 j;

	if (v->type != YAML_SEQUENCE_NODE)
		return perr(ps, v, "after%s must be a list of SLURM job ids, "
		    "e.g. 'after%s: [1234, 1235]'", which, which);
	for (it = v->data.sequence.items.start;
	    it < v->data.sequence.items.top; it++) {
		item = get(ps, *it);
		if (want_scalar_item(ps, item, "after") != 0)
			return -1;
		jobid_parse(yamldoc_scalar(item), &j);
		if (j.kind != JOBID_JOB && j.kind != JOBID_TASK)
			return perr(ps, item, "after: '%s' is not a SLURM job "
			    "id (1234) or array task (1234_5)",
			    yamldoc_scalar(item));
		if (!strv_has(to, yamldoc_scalar(item)))
			strv_add(to, yamldoc_scalar(item));
	}
	return 0;
}

/*
 * after: [ID, ...] (afterok), or a map of ok: and any: lists (afterok,
 * afterany).
 */
static int
parse_after(struct parse *ps, struct spec *sp, yaml_node_t *v)
{
	yaml_node_pair_t	*p;
	yaml_node_t		*k;
	const char		*w;

	if (v->type == YAML_SEQUENCE_NODE)
		return parse_after_list(ps, &sp->after_ok, "", v);
	if (v->type != YAML_MAPPING_NODE)
		return perr(ps, v, "after must be a list of SLURM job ids "
		    "('after: [1234]') or a map of ok: and any: lists "
		    "('after: {ok: [1234], any: [1240]}')");
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	    p++) {
		k = get(ps, p->key);
		w = k->type == YAML_SCALAR_NODE ? yamldoc_scalar(k) : "";
		if (strcmp(w, "ok") == 0) {
			if (parse_after_list(ps, &sp->after_ok, ".ok",
			    get(ps, p->value)) != 0)
				return -1;
		} else if (strcmp(w, "any") == 0) {
			if (parse_after_list(ps, &sp->after_any, ".any",
			    get(ps, p->value)) != 0)
				return -1;
		} else
			return perr(ps, k, "after: takes ok: (start when they "
			    "completed) and any: (when they ended), not '%s'",
			    w);
	}
	return 0;
}

char *
spec_dependency(const struct spec *sp)
{
	struct buf	b;
	size_t		i;

	if (sp->after_ok.n == 0 && sp->after_any.n == 0)
		return NULL;
	buf_init(&b);
	if (sp->after_ok.n > 0)
		buf_adds(&b, "afterok");
	for (i = 0; i < sp->after_ok.n; i++)
		buf_printf(&b, ":%s", sp->after_ok.v[i]);
	if (sp->after_any.n > 0)
		buf_printf(&b, "%safterany", b.len != 0 ? "," : "");
	for (i = 0; i < sp->after_any.n; i++)
		buf_printf(&b, ":%s", sp->after_any.v[i]);
	return buf_steal(&b);
}

static int
parse_value(struct parse *ps, struct spec *sp, const struct skey *sk,
    yaml_node_t *v, yaml_mark_t **smarks)
{
	yaml_node_item_t	*it;
	yaml_node_pair_t	*p;
	yaml_node_t		*item, *k, *val;
	char			*err = NULL, *end;
	const char		*s;
	void			*field = (char *)sp + sk->off;
	long			 l;
	int			 b;

	switch (sk->type) {
	case S_DATASETS:
	case S_MOUNTS:
		if (want_list(ps, v, sk->name, sk->type == S_DATASETS ?
		    "lustre:///data/set1" : "/lustre/data:/data:ro") != 0)
			return -1;
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			item = get(ps, *it);
			if (want_scalar_item(ps, item, sk->name) != 0)
				return -1;
			if (sk->type == S_MOUNTS) {
				if (spec_add_mount(sp, yamldoc_scalar(item), &err) != 0)
					return perr_take(ps, item, err);
				continue;
			}
			if ((err = check_line("a dataset", yamldoc_scalar(item))) !=
			    NULL)
				return perr_take(ps, item, err);
			strv_add(&sp->datasets, yamldoc_scalar(item));
		}
		return 0;
	case S_ENV:
		if (v->type != YAML_MAPPING_NODE)
			return perr(ps, v, "env must be a map of NAME: value, "
			    "not %s", yamldoc_kind(v));
		for (p = v->data.mapping.pairs.start;
		    p < v->data.mapping.pairs.top; p++) {
			k = get(ps, p->key);
			val = get(ps, p->value);
			if (k->type != YAML_SCALAR_NODE)
				return perr(ps, k, "env names must be plain "
				    "words, not %s", yamldoc_kind(k));
			if (val->type != YAML_SCALAR_NODE)
				return perr(ps, val, "env %s must be a plain "
				    "value, not %s", yamldoc_scalar(k), yamldoc_kind(val));
			if (spec_add_env(sp, yamldoc_scalar(k), yamldoc_is_null(val) ? "" :
			    yamldoc_scalar(val), &err) != 0)
				return perr_take(ps, k, err);
		}
		return 0;
	case S_SECRETS:
		return parse_secrets(ps, sp, v, smarks);
	case S_FILES:
		return parse_files(ps, sp, v);
	case S_AFTER:
		return parse_after(ps, sp, v);
	default:
		break;
	}

	if (v->type != YAML_SCALAR_NODE)
		return perr(ps, v, "%s must be a single value, not %s",
		    sk->name, yamldoc_kind(v));
	s = yamldoc_scalar(v);
	switch (sk->type) {
	case S_NAME:
		err = check_spec_name(s);
		break;
	case S_LINE:
		err = check_line(sk->name, s);
		break;
	case S_TEXT:
		if (str_blank(s))
			err = xasprintf("%s must not be empty", sk->name);
		else if (str_has_control(s, 1))
			err = xasprintf("%s must not contain control "
			    "characters", sk->name);
		break;
	case S_WORD:
		err = check_word(sk->name, s);
		break;
	case S_ARRAY:
		if (array_parse(s, NULL, &err) != 0)
			return perr_take(ps, v, err);
		break;
	case S_INT:
		errno = 0;
		l = strtol(s, &end, 10);
		if (*s == '\0' || *end != '\0' || errno != 0 || l < sk->min ||
		    l > sk->max)
			return perr(ps, v, "%s must be a whole number from %d "
			    "to %d, not '%s'", sk->name, sk->min, sk->max, s);
		*(int *)field = (int)l;
		return 0;
	case S_TIME:
		if (spec_parse_time_exact(s, field, &sp->time_seconds,
		    &err) != 0)
			return perr_take(ps, v, err);
		return 0;
	case S_BOOL:
		if (str_bool(s, &b) != 0)
			return perr(ps, v, "%s must be true or false, not '%s'",
			    sk->name, s);
		*(int *)field = b;
		return 0;
	default:
		break;
	}
	if (err != NULL)
		return perr_take(ps, v, err);
	free(*(char **)field);
	*(char **)field = xstrdup(s);
	return 0;
}

static const char *
required_hint(const char *key)
{
	if (strcmp(key, "image") == 0)
		return "add e.g. 'image: nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt' "
		    "(a registry image or an absolute .sqsh path)";
	return "add the command to run in the container, e.g. 'command: "
	    "python train.py'";
}

static int
parse_doc(struct parse *ps, const char *text, size_t len)
{
	free(ps->cause);
	ps->cause = NULL;
	return yamldoc_load(ps->file, text, len, &ps->doc,
	    "keep one job per file", &ps->cause);
}

int
spec_parse(const char *text, size_t len, const char *name, struct spec *sp,
    char **cause)
{
	struct parse		 ps;
	yaml_node_t		*root, *k, *v;
	yaml_node_pair_t	*p;
	yaml_mark_t		*smarks = NULL, start = { 0, 0, 0 };
	const struct skey	*sk;
	const char		*known[NSKEYS];
	unsigned int		 seen = 0;
	size_t			 i;
	int			 loaded = 0;

	spec_init(sp);
	memset(&ps, 0, sizeof ps);
	ps.file = name;
	if (parse_doc(&ps, text, len) != 0)
		goto fail;
	loaded = 1;
	root = yaml_document_get_root_node(&ps.doc);
	if (root == NULL || yamldoc_is_null(root)) {
		perr(&ps, NULL, "empty job spec: write at least 'image:' and "
		    "'command:'");
		goto fail;
	}
	if (root->type != YAML_MAPPING_NODE) {
		perr(&ps, root, "a job spec is a map of keys (image: ..., "
		    "command: ...), not %s", yamldoc_kind(root));
		goto fail;
	}
	start = root->start_mark;
	for (i = 0; i < NSKEYS; i++)
		known[i] = skeys[i].name;
	for (p = root->data.mapping.pairs.start;
	    p < root->data.mapping.pairs.top; p++) {
		k = get(&ps, p->key);
		v = get(&ps, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			perr(&ps, k, "keys must be plain words, not %s",
			    yamldoc_kind(k));
			goto fail;
		}
		for (i = 0; i < NSKEYS; i++) {
			if (strcmp(skeys[i].name, yamldoc_scalar(k)) == 0)
				break;
		}
		if (i == NSKEYS) {
			perr_take(&ps, k, yamldoc_unknown_key(
			    yamldoc_scalar(k), "the job spec", known, NSKEYS));
			goto fail;
		}
		sk = &skeys[i];
		if (seen & (1U << i)) {
			perr(&ps, k, "key '%s' appears twice: keep one",
			    sk->name);
			goto fail;
		}
		seen |= 1U << i;
		if (yamldoc_is_null(v))
			continue;
		if (parse_value(&ps, sp, sk, v, &smarks) != 0)
			goto fail;
	}
	for (i = 0; i < sp->secrets.n; i++) {
		if (env_find(sp, sp->secrets.v[i]) != sp->nenv) {
			free(ps.cause);
			ps.cause = xasprintf("%s:%zu:%zu: %s is in both env and "
			    "secrets: remove it from env (secret values come "
			    "from your environment when you submit)", name,
			    smarks[i].line + 1, smarks[i].column + 1,
			    sp->secrets.v[i]);
			goto fail;
		}
	}
	for (i = 0; i < 2; i++) {
		const char	*key = i == 0 ? "image" : "command";

		if ((i == 0 ? sp->image : sp->command) == NULL) {
			ps.cause = xasprintf("%s:%zu:%zu: missing required key "
			    "'%s': %s", name, start.line + 1, start.column + 1,
			    key, required_hint(key));
			goto fail;
		}
	}
	yaml_document_delete(&ps.doc);
	free(smarks);
	return 0;

fail:
	if (loaded)
		yaml_document_delete(&ps.doc);
	free(smarks);
	spec_free(sp);
	if (cause != NULL)
		*cause = ps.cause;
	else
		free(ps.cause);
	return -1;
}

#define SPEC_FILE_MAX	(4 * 1024 * 1024)

int
spec_load(const char *path, struct spec *sp, char **cause)
{
	char	*text;
	size_t	 len;

	spec_init(sp);
	/* A spec is small; a FIFO or a device is refused, never read. */
	if (file_read_max(path, SPEC_FILE_MAX, &text, &len, cause) != 0)
		return -1;
	if (spec_parse(text, len, path, sp, cause) != 0) {
		free(text);
		return -1;
	}
	free(text);
	sp->path = xstrdup(path);
	return 0;
}

int
spec_validate(const struct spec *sp, char **cause)
{
	const struct skey	*sk;
	struct spec_mount	 mt;
	char			*err = NULL, *m;
	size_t			 i, j;
	int			 v;

	if (sp->image == NULL)
		return cause_set(cause, "missing required key 'image': %s",
		    required_hint("image"));
	if (sp->command == NULL)
		return cause_set(cause, "missing required key 'command': %s",
		    required_hint("command"));
	if (sp->name != NULL && (err = check_spec_name(sp->name)) != NULL)
		goto fail;
	if ((err = check_line("image", sp->image)) != NULL)
		goto fail;
	if (str_blank(sp->command) || str_has_control(sp->command, 1)) {
		err = xstrdup("command must not be empty or contain control "
		    "characters");
		goto fail;
	}
	if (sp->network_arch != NULL &&
	    (err = check_line("network_arch", sp->network_arch)) != NULL)
		goto fail;
	if (sp->action != NULL &&
	    (err = check_line("action", sp->action)) != NULL)
		goto fail;
	if (sp->partition != NULL &&
	    (err = check_partitions(sp->partition)) != NULL)
		goto fail;
	if (sp->cluster != NULL &&
	    (err = check_word("cluster", sp->cluster)) != NULL)
		goto fail;
	if (sp->array != NULL && array_parse(sp->array, NULL, &err) != 0)
		goto fail;
	for (i = 0; i < sp->datasets.n; i++) {
		if ((err = check_line("a dataset", sp->datasets.v[i])) != NULL)
			goto fail;
	}
	for (i = 0; i < sp->nmounts; i++) {
		m = xasprintf("%s:%s%s", sp->mounts[i].src, sp->mounts[i].dst,
		    sp->mounts[i].ro ? ":ro" : "");
		if (spec_parse_mount(m, &mt, &err) != 0) {
			free(m);
			goto fail;
		}
		free(m);
		free(mt.src);
		free(mt.dst);
	}
	for (i = 0; i < NSKEYS; i++) {
		sk = &skeys[i];
		if (sk->type != S_INT)
			continue;
		v = *(const int *)((const char *)sp + sk->off);
		if ((sk->off == offsetof(struct spec, gpus) && v == -1) ||
		    (sk->min == 1 && v == 0))
			continue;	/* unset */
		if (v < sk->min || v > sk->max)
			return cause_set(cause, "%s must be a whole number from "
			    "%d to %d, not %d", sk->name, sk->min, sk->max, v);
	}
	if (sp->time_minutes < 0 || sp->time_minutes > TIME_MAX_MINUTES)
		return cause_set(cause, "time must be more than zero and at "
		    "most 30 days");
	for (i = 0; i < sp->nenv; i++) {
		if ((err = check_env(sp->env[i].name, sp->env[i].value)) != NULL)
			goto fail;
		for (j = 0; j < i; j++) {
			if (strcmp(sp->env[j].name, sp->env[i].name) == 0)
				return cause_set(cause, "env %s is set twice: "
				    "keep one", sp->env[i].name);
		}
	}
	for (i = 0; i < sp->secrets.n; i++) {
		if ((err = check_secret(i + 1, sp->secrets.v[i])) != NULL)
			goto fail;
		if (env_find(sp, sp->secrets.v[i]) != sp->nenv)
			return cause_set(cause, "%s is in both env and secrets: "
			    "remove it from env (secret values come from your "
			    "environment when you submit)", sp->secrets.v[i]);
		for (j = 0; j < i; j++) {
			if (strcmp(sp->secrets.v[j], sp->secrets.v[i]) == 0)
				return cause_set(cause, "secret %s is listed "
				    "twice: keep one", sp->secrets.v[i]);
		}
	}
	for (i = 0; i < sp->nfiles; i++) {
		if ((err = check_line("path", sp->files[i].path)) != NULL ||
		    (err = check_sha256(sp->files[i].sha256)) != NULL)
			goto fail;
	}
	return 0;
fail:
	if (cause != NULL)
		*cause = err;
	else
		free(err);
	return -1;
}
