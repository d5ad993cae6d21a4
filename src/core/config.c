/*
 * clusters.yaml (libyaml document API, so every node keeps its line and
 * column) and the environment overrides (README, "Clusters, job specs
 * and resource defaults").
 */
#include "config.h"
#include "sshconf.h"
#include "yamldoc.h"
#include "str.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

enum ktype {
	K_NAME,		/* cluster name: [A-Za-z0-9._-] */
	K_HOSTS,	/* list or comma string of host names */
	K_JUMPS,	/* list or comma string of [user@]host[:port] */
	K_STR,		/* one word, no blanks */
	K_PATH,		/* local path, ~ expanded */
	K_ABS,		/* absolute remote path */
	K_PARTS,	/* list or comma string of partition names */
	K_USERS,	/* list or comma string of user names or uids */
	K_PART,		/* one partition name */
	K_INT,		/* whole number in [min, max] */
	K_HOURS,	/* hours, 0 < h <= CONFIG_MAX_TIME_HOURS */
	K_BOOL,
	K_CONTAINER,	/* auto | pyxis | none */
	K_ENV,		/* map NAME: value */
	K_CMD,		/* one line of shell */
	K_SECS,		/* duration: 600, 600s, 10m, 1h; 0 or no: off */
};

struct ckey {
	const char	*name;
	enum ktype	 type;
	size_t		 off;
	int		 min;
	int		 max;
};

#define F(f) offsetof(struct cluster, f)
static const struct ckey ckeys[] = {
	{ "name", K_NAME, F(name), 0, 0 },
	{ "hosts", K_HOSTS, F(hosts), 0, 0 },
	{ "user", K_STR, F(user), 0, 0 },
	{ "port", K_INT, F(port), 1, 65535 },
	{ "key", K_PATH, F(key_path), 0, 0 },
	{ "certificate", K_PATH, F(cert_path), 0, 0 },
	{ "jump", K_JUMPS, F(jumps), 0, 0 },
	{ "known_hosts", K_PATH, F(known_hosts), 0, 0 },
	{ "partitions", K_PARTS, F(partitions), 0, 0 },
	{ "account", K_STR, F(account), 0, 0 },
	{ "results_root", K_ABS, F(results_root), 0, 0 },
	{ "cpu_partition", K_PART, F(cpu_partition), 0, 0 },
	{ "image_cache", K_ABS, F(image_cache), 0, 0 },
	{ "image_cache_owners", K_USERS, F(image_cache_owners), 0, 0 },
	{ "container", K_CONTAINER, F(container), 0, 0 },
	{ "time_hours", K_HOURS, F(time_hours), 0, 0 },
	{ "requeue", K_BOOL, F(requeue), 0, 0 },
	{ "poll_interval", K_INT, F(poll_interval), 1, 3600 },
	{ "min_poll_interval", K_INT, F(min_poll_interval), 1, 3600 },
	{ "max_scheduler_calls", K_INT, F(max_scheduler_calls), 1, 10000 },
	{ "history_days", K_INT, F(history_days), 1, 365 },
	{ "history", K_BOOL, F(history), 0, 0 },
	{ "connect_timeout", K_INT, F(connect_timeout), 1, 600 },
	{ "command_timeout", K_INT, F(command_timeout), 1, 86400 },
	{ "gpus_per_node", K_INT, F(gpus_per_node), 1, 64 },
	{ "nccl_env", K_ENV, F(nccl_env), 0, 0 },
	{ "nccl_probe_command", K_CMD, F(nccl_probe_command), 0, 0 },
	{ "nccl_probe_timeout", K_INT, F(nccl_probe_timeout), 1, 3600 },
	{ "persist", K_SECS, F(persist), 0, 604800 },
};
#undef F
#define NCKEYS (sizeof ckeys / sizeof ckeys[0])

/*
 * Environment overrides, applied in this order (so SLURM_PORT beats
 * SSH_PORT).
 */
static const struct {
	const char	*var;
	const char	*key;
} envkeys[] = {
	{ "SLURM_HOSTNAME", "hosts" },
	{ "SLURM_USER", "user" },
	{ "SSH_PORT", "port" },
	{ "SLURM_PORT", "port" },
	{ "SLURM_PARTITION", "partitions" },
	{ "SSH_KEY_PATH", "key" },
	{ "SSH_KNOWN_HOSTS", "known_hosts" },
	{ "SLURM_BASE_RESULTS_DIR", "results_root" },
	{ "SLURM_ACCOUNT", "account" },
	{ "SLURM_TIME_HOURS", "time_hours" },
	{ "SLURM_USE_REQUEUE", "requeue" },
};

struct load {
	const char	 *file;
	yaml_document_t	  doc;
	char		 *cause;
	yaml_mark_t	 *cmarks;	/* where each cluster starts */
	int		 *cfile;	/* cluster came from the file */
	size_t		  acl;		/* clusters allocated */
};

/* clusters.yaml's size limit: a few clusters fit in kilobytes. */
#define CONFIG_FILE_MAX	(4U * 1024 * 1024)

static const char *
env_get(const char *name)
{
	const char	*v = getenv(name);

	return (v != NULL && *v != '\0') ? v : NULL;
}

static const struct ckey *
ckey_find(const char *name)
{
	size_t	i;

	for (i = 0; i < NCKEYS; i++) {
		if (strcmp(ckeys[i].name, name) == 0)
			return &ckeys[i];
	}
	return NULL;
}

static char *
unknown_key(const char *key, const char *where)
{
	const char	*names[NCKEYS];
	size_t		 i;

	for (i = 0; i < NCKEYS; i++)
		names[i] = ckeys[i].name;
	return yamldoc_unknown_key(key, where, names, NCKEYS);
}

/* A word safe in paths, SLURM options and ssh: no blanks, no controls. */
static int
word_ok(const char *s, const char *extra)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && strchr(extra, *s) == NULL)
			return 0;
	}
	return 1;
}

static int
env_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	return word_ok(s, "_");
}

static char *
check_host(const char *s)
{
	if (strchr(s, '@') != NULL)
		return xasprintf("host '%s' contains '@': put the user name in "
		    "'user' (or SLURM_USER) and only the host in 'hosts'", s);
	if (*s == '-' || !word_ok(s, ".-_:[]"))
		return xasprintf("host '%s' is not a host name or address", s);
	return NULL;
}

/* One bastion: [user@]host[:port], as ProxyJump writes it. */
static char *
check_jump(const char *s)
{
	struct sshconf_hop	*h;
	char			*cause = NULL, *err;
	int			 n;

	if (str_has_control(s, 0))
		return xstrdup("a jump host has control characters");
	if ((n = sshconf_hops(s, &h, &cause)) < 0) {
		err = xasprintf("jump: %s (write [user@]host[:port])", cause);
		free(cause);
		return err;
	}
	sshconf_hops_free(h, n);
	if (n != 1)
		return xasprintf("jump '%s' is not one [user@]host[:port]", s);
	return NULL;
}

/* The first blank entry of a comma-separated value, said with the fix. */
static char *
blank_item(const char *key, const char *s)
{
	const char	*p = s, *end;
	int		 n = 1;

	if (strchr(s, ',') == NULL)
		return NULL;	/* one name: checked as a name */
	for (;;) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return xasprintf("%s: entry %d of \"%s\" is blank: "
			    "remove the extra comma", key, n, s);
		if (*end == '\0')
			return NULL;
		p = end + 1;
		n++;
	}
}

static char *
check_partition(const char *s)
{
	if (!word_ok(s, "._-"))
		return xasprintf("partition '%s' is not a SLURM partition name "
		    "(letters, digits, '.', '_', '-')", s);
	return NULL;
}

static char *
check_user(const char *s)
{
	if (*s == '-' || !word_ok(s, "._-"))
		return xasprintf("'%s' is not a user name or uid (letters, "
		    "digits, '.', '_', '-')", s);
	return NULL;
}

static char *
expand_tilde(const char *s, char **err)
{
	const char	*home;

	*err = NULL;
	if (*s != '~')
		return xstrdup(s);
	if (s[1] != '\0' && s[1] != '/') {
		*err = xasprintf("'%s': ~user paths are not supported, write "
		    "the full path", s);
		return NULL;
	}
	home = getenv("HOME");
	if (home == NULL || *home == '\0') {
		*err = xasprintf("'%s': HOME is not set, write the full path",
		    s);
		return NULL;
	}
	return xasprintf("%s%s", home, s + 1);
}

/*
 * Set one key of a cluster from a string.  For list keys, append adds one
 * item (a YAML sequence item); otherwise the string is a comma list that
 * replaces the list (a scalar in the file or an environment variable).
 * Returns NULL or a message without location.
 */
static char *
key_set(const struct ckey *k, struct cluster *c, const char *s, int append)
{
	void		*field = (char *)c + k->off;
	char		**sp = field, *end, *err, *v;
	struct strv	*sv = field, items;
	long		 l;
	double		 d;
	size_t		 i;
	int		 b;

	switch (k->type) {
	case K_NAME:
		if (!word_ok(s, "._-"))
			return xasprintf("name '%s' must be letters, digits, "
			    "'.', '_' or '-'", s);
		free(*sp);
		*sp = xstrdup(s);
		return NULL;
	case K_STR:
		if (!word_ok(s, "._-@+=,:/"))
			return xasprintf("%s '%s' must be one word without "
			    "blanks or control characters", k->name, s);
		free(*sp);
		*sp = xstrdup(s);
		return NULL;
	case K_PATH:
		if ((v = expand_tilde(s, &err)) == NULL)
			return err;
		if (*v == '\0') {
			free(v);
			return xasprintf("%s must not be empty", k->name);
		}
		free(*sp);
		*sp = v;
		return NULL;
	case K_ABS:
		/* Control characters would reach remote commands and the
		   screen: refuse them, and do not echo them back either. */
		if (str_has_control(s, 0))
			return xasprintf("%s must be an absolute path "
			    "without control characters", k->name);
		if (*s != '/')
			return xasprintf("%s '%s' must be an absolute path on "
			    "the cluster, e.g. /lustre/<user>/results", k->name,
			    s);
		free(*sp);
		*sp = xstrdup(s);
		return NULL;
	case K_PART:
		if ((err = check_partition(s)) != NULL)
			return err;
		free(*sp);
		*sp = xstrdup(s);
		return NULL;
	case K_HOSTS:
	case K_JUMPS:
	case K_PARTS:
	case K_USERS:
		memset(&items, 0, sizeof items);
		if (append)
			strv_add(&items, s);
		else
			strv_split(&items, s, ',');
		if (items.n == 0) {
			strv_free(&items);
			return xasprintf("%s has no names: give at least one",
			    k->name);
		}
		/* "a, ,b": a blank name is an error, as in a list. */
		if (!append && (err = blank_item(k->name, s)) != NULL) {
			strv_free(&items);
			return err;
		}
		for (i = 0; i < items.n; i++) {
			err = k->type == K_HOSTS ? check_host(items.v[i]) :
			    k->type == K_JUMPS ? check_jump(items.v[i]) :
			    k->type == K_USERS ? check_user(items.v[i]) :
			    check_partition(items.v[i]);
			if (err != NULL) {
				strv_free(&items);
				return err;
			}
		}
		if (!append)
			strv_free(sv);
		for (i = 0; i < items.n; i++)
			strv_add(sv, items.v[i]);
		strv_free(&items);
		return NULL;
	case K_INT:
		errno = 0;
		l = strtol(s, &end, 10);
		if (*s == '\0' || *end != '\0' || errno != 0 || l < k->min ||
		    l > k->max)
			return xasprintf("%s must be a whole number from %d to "
			    "%d, not '%s'", k->name, k->min, k->max, s);
		*(int *)field = (int)l;
		return NULL;
	case K_SECS:
		if (strcmp(s, "no") == 0 || strcmp(s, "off") == 0) {
			*(int *)field = 0;
			return NULL;
		}
		errno = 0;
		l = strtol(s, &end, 10);
		if (end != s && errno == 0 && l >= 0) {
			if (strcmp(end, "m") == 0 && l <= k->max / 60)
				l *= 60;
			else if (strcmp(end, "h") == 0 && l <= k->max / 3600)
				l *= 3600;
			else if (*end != '\0' && strcmp(end, "s") != 0)
				l = -1;
		} else
			l = -1;
		if (l < k->min || l > k->max)
			return xasprintf("%s must be a duration like 600, 10m "
			    "or 1h (at most 7 days), or no, not '%s'", k->name,
			    s);
		*(int *)field = (int)l;
		return NULL;
	case K_HOURS:
		errno = 0;
		d = strtod(s, &end);
		if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(d) ||
		    d <= 0 || d > CONFIG_MAX_TIME_HOURS)
			return xasprintf("%s must be a number of hours above 0 "
			    "and at most %d (more than 4 is checked against the "
			    "partition's MaxTime at submit), not '%s'",
			    k->name, CONFIG_MAX_TIME_HOURS, s);
		*(double *)field = d;
		return NULL;
	case K_BOOL:
		if (str_bool(s, &b) != 0)
			return xasprintf("%s must be true or false, not '%s'",
			    k->name, s);
		*(int *)field = b;
		return NULL;
	case K_CONTAINER:
		if (strcmp(s, "auto") == 0)
			c->container = CONTAINER_AUTO;
		else if (strcmp(s, "pyxis") == 0)
			c->container = CONTAINER_PYXIS;
		else if (strcmp(s, "none") == 0)
			c->container = CONTAINER_NONE;
		else
			return xasprintf("unknown container mode '%s': use "
			    "auto, pyxis or none", s);
		return NULL;
	case K_ENV:
		break;
	case K_CMD:
		/* It goes into the job script as a quoted bash -c string. */
		if (*s == '\0' || str_has_control(s, 0))
			return xasprintf("%s must be one line of shell without "
			    "control characters", k->name);
		free(*sp);
		*sp = xstrdup(s);
		return NULL;
	}
	return xasprintf("%s must be a map of NAME: value", k->name);
}

static void
cluster_init(struct cluster *c)
{
	memset(c, 0, sizeof *c);
	c->requeue = -1;
	c->history = -1;
	c->persist = -1;
}

static void
cluster_free(struct cluster *c)
{
	free(c->name);
	strv_free(&c->hosts);
	strv_free(&c->jumps);
	free(c->user);
	free(c->key_path);
	free(c->cert_path);
	free(c->known_hosts);
	strv_free(&c->partitions);
	free(c->account);
	free(c->results_root);
	free(c->cpu_partition);
	free(c->image_cache);
	strv_free(&c->image_cache_owners);
	strv_free(&c->nccl_env);
	free(c->nccl_probe_command);
}

static struct cluster *
cluster_add(struct config *cfg, struct load *l)
{
	struct cluster	*c;

	/* Doubling: a file of 10 000 clusters loads in linear time. */
	if (cfg->nclusters + 1 > l->acl) {
		l->acl = 2 * (cfg->nclusters + 1) > 16 ?
		    2 * (cfg->nclusters + 1) : 16;
		cfg->clusters = xrealloc(cfg->clusters,
		    l->acl * sizeof *cfg->clusters);
		l->cmarks = xrealloc(l->cmarks, l->acl * sizeof *l->cmarks);
		l->cfile = xrealloc(l->cfile, l->acl * sizeof *l->cfile);
	}
	l->cfile[cfg->nclusters] = 0;
	c = &cfg->clusters[cfg->nclusters++];
	cluster_init(c);
	return c;
}

static int
load_error(struct load *l, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *raw;

	va_start(ap, fmt);
	raw = xvasprintf(fmt, ap);
	va_end(ap);
	/* A value quoted in it is the file's: no line of its own. */
	msg = str_escape_controls(raw);
	free(raw);
	free(l->cause);
	if (m != NULL)
		l->cause = xasprintf("%s:%zu:%zu: %s", l->file, m->line + 1,
		    m->column + 1, msg);
	else
		l->cause = xasprintf("%s: %s", l->file, msg);
	free(msg);
	return -1;
}

static int
load_env_map(struct load *l, yaml_node_t *map, struct strv *sv,
    const char *where)
{
	yaml_node_pair_t	*p;
	yaml_node_t		*k, *v;
	char			*item;

	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&l->doc, p->key);
		v = yaml_document_get_node(&l->doc, p->value);
		if (k->type != YAML_SCALAR_NODE || !env_name_ok(yamldoc_scalar(k)))
			return load_error(l, &k->start_mark,
			    "nccl_env in %s: '%s' is not a "
			    "variable name (letters, digits, '_')", where,
			    k->type == YAML_SCALAR_NODE ? yamldoc_scalar(k) : "?");
		if (v->type != YAML_SCALAR_NODE)
			return load_error(l, &v->start_mark,
			    "nccl_env in %s: %s must be a "
			    "plain value, not %s", where, yamldoc_scalar(k),
			    yamldoc_kind(v));
		item = xasprintf("%s=%s", yamldoc_scalar(k), yamldoc_is_null(v) ? "" :
		    yamldoc_scalar(v));
		strv_add(sv, item);
		free(item);
	}
	return 0;
}

static int
load_cluster(struct load *l, struct config *cfg, yaml_node_t *map,
    size_t idx)
{
	yaml_node_pair_t	*p;
	yaml_node_t		*k, *v, *item;
	yaml_node_item_t	*it;
	const struct ckey	*ck;
	struct cluster		*c;
	char			*where, *err;
	const char		*name = NULL;
	unsigned int		 seen = 0;
	size_t			 i;
	int			 rc = -1;

	if (map->type != YAML_MAPPING_NODE)
		return load_error(l, &map->start_mark,
		    "cluster #%zu must be a map of keys "
		    "(name: ..., hosts: ...), not %s", idx + 1, yamldoc_kind(map));

	/* Find the name first so every message can say which cluster. */
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&l->doc, p->key);
		v = yaml_document_get_node(&l->doc, p->value);
		if (k->type == YAML_SCALAR_NODE &&
		    strcmp(yamldoc_scalar(k), "name") == 0 &&
		    v->type == YAML_SCALAR_NODE && !yamldoc_is_null(v))
			name = yamldoc_scalar(v);
	}
	if (name != NULL)
		where = xasprintf("cluster '%s'", name);
	else
		where = xasprintf("cluster #%zu", idx + 1);

	c = cluster_add(cfg, l);
	l->cmarks[cfg->nclusters - 1] = map->start_mark;
	l->cfile[cfg->nclusters - 1] = 1;
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&l->doc, p->key);
		v = yaml_document_get_node(&l->doc, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			load_error(l, &k->start_mark,
			    "keys in %s must be plain words, "
			    "not %s", where, yamldoc_kind(k));
			goto out;
		}
		if ((ck = ckey_find(yamldoc_scalar(k))) == NULL) {
			err = unknown_key(yamldoc_scalar(k), where);
			load_error(l, &k->start_mark, "%s", err);
			free(err);
			goto out;
		}
		i = (size_t)(ck - ckeys);
		if (seen & (1U << i)) {
			load_error(l, &k->start_mark,
			    "key '%s' appears twice in %s: keep "
			    "one", ck->name, where);
			goto out;
		}
		seen |= 1U << i;
		if (yamldoc_is_null(v))
			continue;
		if (v->type == YAML_SCALAR_NODE && ck->type != K_ENV) {
			if ((err = key_set(ck, c, yamldoc_scalar(v), 0)) != NULL) {
				load_error(l, &v->start_mark,
				    "%s: %s", where, err);
				free(err);
				goto out;
			}
		} else if (v->type == YAML_SEQUENCE_NODE &&
		    (ck->type == K_HOSTS || ck->type == K_JUMPS ||
		    ck->type == K_PARTS || ck->type == K_USERS)) {
			for (it = v->data.sequence.items.start;
			    it < v->data.sequence.items.top; it++) {
				item = yaml_document_get_node(&l->doc, *it);
				if (item->type != YAML_SCALAR_NODE ||
				    yamldoc_is_null(item)) {
					load_error(l, &item->start_mark,
					    "%s: each item of "
					    "%s must be a name, not %s", where,
					    ck->name, yamldoc_is_null(item) ?
					    "empty" : yamldoc_kind(item));
					goto out;
				}
				if ((err = key_set(ck, c, yamldoc_scalar(item), 1))
				    != NULL) {
					load_error(l, &item->start_mark,
					    "%s: %s", where,
					    err);
					free(err);
					goto out;
				}
			}
		} else if (v->type == YAML_MAPPING_NODE && ck->type == K_ENV) {
			if (load_env_map(l, v, &c->nccl_env, where) != 0)
				goto out;
		} else {
			load_error(l, &v->start_mark,
			    "%s: %s must be %s, not %s", where,
			    ck->name,
			    ck->type == K_ENV ? "a map of NAME: value" :
			    (ck->type == K_HOSTS || ck->type == K_JUMPS ||
			    ck->type == K_PARTS || ck->type == K_USERS) ?
			    "a list or a comma-separated string" :
			    "a single value", yamldoc_kind(v));
			goto out;
		}
	}
	if (c->name == NULL) {
		load_error(l, &map->start_mark,
		    "%s has no name: add 'name: <cluster name>'",
		    where);
		goto out;
	}
	for (i = 0; i + 1 < cfg->nclusters; i++) {
		if (strcmp(cfg->clusters[i].name, c->name) == 0) {
			load_error(l, &map->start_mark,
			    "duplicate cluster name '%s' (first "
			    "at line %zu): rename one", c->name,
			    l->cmarks[i].line + 1);
			goto out;
		}
	}
	rc = 0;
out:
	free(where);
	return rc;
}

static int
load_doc(struct load *l, const char *text, size_t len)
{
	free(l->cause);
	l->cause = NULL;
	return yamldoc_load(l->file, text, len, &l->doc,
	    "keep everything in one", &l->cause);
}

static int
load_file(struct load *l, struct config *cfg, const char *text, size_t len)
{
	yaml_node_t		*root, *list = NULL, *k, *v;
	yaml_node_pair_t	*p;
	yaml_node_item_t	*it;
	int			 rc = -1;

	if (load_doc(l, text, len) != 0)
		return -1;
	root = yaml_document_get_root_node(&l->doc);
	if (root == NULL || yamldoc_is_null(root)) {
		rc = 0;		/* empty: no clusters */
		goto out;
	}
	if (root->type == YAML_MAPPING_NODE) {
		for (p = root->data.mapping.pairs.start;
		    p < root->data.mapping.pairs.top; p++) {
			k = yaml_document_get_node(&l->doc, p->key);
			v = yaml_document_get_node(&l->doc, p->value);
			if (k->type != YAML_SCALAR_NODE ||
			    strcmp(yamldoc_scalar(k), "clusters") != 0) {
				load_error(l, &k->start_mark,
				    "unknown top-level key '%s': "
				    "the file is a list of clusters, or a map "
				    "with the one key 'clusters'",
				    k->type == YAML_SCALAR_NODE ?
				    yamldoc_scalar(k) : "?");
				goto out;
			}
			if (list != NULL) {
				load_error(l, &k->start_mark,
				    "key 'clusters' appears "
				    "twice: keep one");
				goto out;
			}
			list = v;
		}
		if (list == NULL || yamldoc_is_null(list)) {
			rc = 0;
			goto out;
		}
	} else
		list = root;
	if (list->type != YAML_SEQUENCE_NODE) {
		load_error(l, &list->start_mark,
		    "expected a list of clusters ('- name: "
		    "...'), not %s", yamldoc_kind(list));
		goto out;
	}
	for (it = list->data.sequence.items.start;
	    it < list->data.sequence.items.top; it++) {
		if (load_cluster(l, cfg,
		    yaml_document_get_node(&l->doc, *it),
		    (size_t)(it - list->data.sequence.items.start)) != 0)
			goto out;
	}
	rc = 0;
out:
	yaml_document_delete(&l->doc);
	return rc;
}

static char *
cluster_names(struct config *cfg)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < cfg->nclusters; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", cfg->clusters[i].name);
	return buf_steal(&b);
}

static int
apply_env(struct load *l, struct cluster *c)
{
	const struct ckey	*ck;
	const char		*v;
	char			*err;
	size_t			 i;

	for (i = 0; i < sizeof envkeys / sizeof envkeys[0]; i++) {
		if ((v = env_get(envkeys[i].var)) == NULL)
			continue;
		ck = ckey_find(envkeys[i].key);
		if ((err = key_set(ck, c, v, 0)) != NULL) {
			free(l->cause);
			l->cause = xasprintf("environment %s (cluster "
			    "'%s'): %s", envkeys[i].var, c->name, err);
			free(err);
			return -1;
		}
	}
	return 0;
}

char *
config_default_path(void)
{
	char	*dir = path_config_dir(), *path;

	path = xasprintf("%s/clusters.yaml", dir);
	free(dir);
	return path;
}

int
config_load(const char *path, struct config *cfg, char **cause)
{
	struct load	 l;
	struct stat	 sb;
	struct cluster	*c;
	const char	*target;
	char		*file, *text = NULL, *names;
	size_t		 len, i;
	int		 have_file = 0;

	memset(cfg, 0, sizeof *cfg);
	memset(&l, 0, sizeof l);
	file = path != NULL ? xstrdup(path) : config_default_path();
	l.file = file;

	if (path != NULL || stat(file, &sb) == 0 || errno != ENOENT) {
		/* A regular file, bounded: -c /dev/zero or a FIFO is refused. */
		if (file_read_max(file, CONFIG_FILE_MAX, &text, &len,
		    &l.cause) != 0) {
			char	*m = l.cause;

			l.cause = xasprintf("%s%s", m, path != NULL ?
			    " (check the -c path)" : " (fix or remove it; a "
			    "missing default file is fine)");
			free(m);
			goto fail;
		}
		have_file = 1;
		cfg->path = xstrdup(file);
		if (load_file(&l, cfg, text, len) != 0)
			goto fail;
	}

	/* Pick the cluster the environment describes (README). */
	target = env_get("SQDECK_CLUSTER");
	for (i = 0; target != NULL && i < cfg->nclusters; i++) {
		if (strcmp(cfg->clusters[i].name, target) == 0)
			break;
	}
	if (target == NULL && cfg->nclusters > 0)
		i = 0;
	else if (target == NULL || i == cfg->nclusters) {
		if (env_get("SLURM_HOSTNAME") == NULL) {
			if (target != NULL && cfg->nclusters > 0) {
				names = cluster_names(cfg);
				l.cause = xasprintf("SQDECK_CLUSTER='%s' "
				    "names no cluster in %s (clusters: %s): "
				    "unset it, pick one of those, or set "
				    "SLURM_HOSTNAME to define it from the "
				    "environment", target, file, names);
				free(names);
			} else if (have_file)
				l.cause = xasprintf("%s defines no clusters: "
				    "add one (see sqdeck-clusters.yaml(5)) "
				    "or set SLURM_HOSTNAME and SLURM_USER",
				    file);
			else
				l.cause = xasprintf("no cluster configured: "
				    "set SLURM_HOSTNAME (login hosts, "
				    "comma-separated) and SLURM_USER, or write "
				    "%s (see sqdeck-clusters.yaml(5))", file);
			goto fail;
		}
		c = cluster_add(cfg, &l);
		c->name = xstrdup(target != NULL ? target : "default");
		if (!word_ok(c->name, "._-")) {
			l.cause = xasprintf("SQDECK_CLUSTER='%s' is not a "
			    "cluster name (letters, digits, '.', '_', '-')",
			    target);
			goto fail;
		}
		i = cfg->nclusters - 1;
	}
	cfg->current = i;
	if (apply_env(&l, &cfg->clusters[i]) != 0)
		goto fail;

	for (i = 0; i < cfg->nclusters; i++) {
		c = &cfg->clusters[i];
		if (c->hosts.n == 0) {
			if (l.cfile[i])
				load_error(&l, &l.cmarks[i],
				    "cluster '%s' has no "
				    "hosts: add 'hosts: [login1, login2]' (tried "
				    "in order)%s", c->name, i == cfg->current ?
				    " or set SLURM_HOSTNAME" : "");
			else
				l.cause = xasprintf("cluster '%s' has no hosts: "
				    "set SLURM_HOSTNAME", c->name);
			goto fail;
		}
		if (c->partitions.n == 0) {
			strv_split(&c->partitions, CONFIG_DEFAULT_PARTITIONS,
			    ',');
			c->partitions_default = 1;
		}
	}
	free(l.cmarks);
	free(l.cfile);
	free(text);
	free(file);
	return 0;

fail:
	if (cause != NULL)
		*cause = l.cause;
	else
		free(l.cause);
	free(l.cmarks);
	free(l.cfile);
	free(text);
	free(file);
	config_free(cfg);
	return -1;
}

struct cluster *
config_cluster(struct config *cfg, const char *name, char **cause)
{
	size_t	 i;
	char	*names;

	if (name == NULL) {
		if (cfg->current < cfg->nclusters)
			return &cfg->clusters[cfg->current];
		cause_set(cause, "no cluster configured");
		return NULL;
	}
	for (i = 0; i < cfg->nclusters; i++) {
		if (strcmp(cfg->clusters[i].name, name) == 0)
			return &cfg->clusters[i];
	}
	names = cluster_names(cfg);
	cause_set(cause, "no cluster named '%s' (clusters: %s)", name, names);
	free(names);
	return NULL;
}

void
config_free(struct config *cfg)
{
	size_t	i;

	for (i = 0; i < cfg->nclusters; i++)
		cluster_free(&cfg->clusters[i]);
	free(cfg->clusters);
	free(cfg->path);
	memset(cfg, 0, sizeof *cfg);
}

const char *
config_container_name(enum container_mode m)
{
	switch (m) {
	case CONTAINER_PYXIS:
		return "pyxis";
	case CONTAINER_NONE:
		return "none";
	default:
		return "auto";
	}
}

int
config_poll_interval(const struct cluster *cl)
{
	return cl != NULL && cl->poll_interval > 0 ? cl->poll_interval :
	    CONFIG_POLL_INTERVAL;
}
