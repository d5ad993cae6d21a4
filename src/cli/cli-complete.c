/*
 * sqdeck __complete WORD...: the candidates for the last word of a
 * command line, for the shell completions of completion/ (bash and zsh
 * call it with the words after "sqdeck", the one being completed last,
 * maybe empty).  Everything comes from the verb table (cli_entries: the
 * verbs, each verb's options, what its arguments are), clusters.yaml and
 * the local records: nothing is contacted, nothing is written.
 *
 * One candidate a line, already matched against the word; a last line
 * ":files" asks the shell to offer file names too.  A word "--opt=V" is
 * answered with whole "--opt=VALUE" words.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record.h"

/* The global options, before the verb (cli_main's). */
static const struct option comp_global[] = {
	{ "cluster", required_argument, NULL, 'C' },
	{ "color", required_argument, NULL, 'O' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

struct comp {
	const char		*config;	/* -c FILE */
	const char		*cluster;	/* --cluster NAME */
	const struct cli_entry	*e;		/* the verb, once seen */
	int			 unknown;	/* a verb that is none */
	int			 nargs;		/* its arguments so far */
	int			 dashdash;	/* after "--": arguments only */
	const char		*pending;	/* an option waiting for its value */
	const char		*prefix;	/* printed before each candidate */
	const char		*word;		/* what candidates must start with */
	int			 files;
};

/* A candidate that matches the word; none a shell would split or show
   as something else (blanks, control characters). */
static void
comp_put(struct comp *c, const char *s)
{
	const unsigned char	*p;

	if (s == NULL || strncmp(s, c->word, strlen(c->word)) != 0)
		return;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p <= ' ' || *p == 0x7f)
			return;
	}
	printf("%s%s\n", c->prefix, s);
}

static void
comp_clusters(struct comp *c)
{
	struct config	 cfg;
	char		*cause = NULL;
	size_t		 i;

	if (config_load(c->config, &cfg, &cause) != 0) {
		free(cause);
		return;
	}
	for (i = 0; i < cfg.nclusters; i++)
		comp_put(c, cfg.clusters[i].name);
	config_free(&cfg);
}

static void
comp_id(const char *id, const char *sid, void *arg)
{
	comp_put(arg, id);
	comp_put(arg, sid);
}

/*
 * Record ids and their SLURM ids, of --cluster's cluster when given: from
 * the index the last verb saved (records.index), read but not written
 * here, so a Tab reads no record file it did not change since.
 */
static void
comp_ids(struct comp *c)
{
	struct record_index	*ix = record_index_new();
	char			*cause = NULL;

	(void)record_index_load(ix);
	if (record_index_each(ix, c->cluster, comp_id, c, &cause) != 0)
		free(cause);
	record_index_free(ix);
}

/*
 * A comma-separated list's next word (--state, --format): each of words
 * after what the word already holds up to its last comma.
 */
static void
comp_list(struct comp *c, const char *words)
{
	const char	*comma = strrchr(c->word, ',');
	char		*copy, *w, *save, *cand;
	int		 head = comma != NULL ? (int)(comma - c->word + 1) : 0;

	copy = xstrdup(words);
	for (w = strtok_r(copy, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		cand = xasprintf("%.*s%s", head, c->word, w);
		comp_put(c, cand);
		free(cand);
	}
	free(copy);
}

/* The value of an option: by its name ("c" is -c). */
static void
comp_value(struct comp *c, const char *name)
{
	if (strcmp(name, "cluster") == 0)
		comp_clusters(c);
	else if (strcmp(name, "c") == 0)
		c->files = 1;
	else if (strcmp(name, "color") == 0) {
		comp_put(c, "auto");
		comp_put(c, "always");
		comp_put(c, "never");
	} else if (c->e != NULL && c->e->id_option != NULL &&
	    strcmp(name, c->e->id_option) == 0)
		comp_ids(c);
	else if (strcmp(name, "state") == 0)
		comp_list(c, "PENDING,RUNNING,COMPLETED,FAILED,CANCELLED,"
		    "UNKNOWN");
	else if (strcmp(name, "format") == 0 && c->e != NULL &&
	    c->e->columns != NULL)
		comp_list(c, c->e->columns);
}

static void
comp_longopts(struct comp *c, const struct option *o)
{
	char	buf[64];

	for (; o != NULL && o->name != NULL; o++) {
		if (strcmp(o->name, "color") == 0) {
			comp_put(c, "--color=auto");
			comp_put(c, "--color=always");
			comp_put(c, "--color=never");
			continue;
		}
		snprintf(buf, sizeof buf, "--%s", o->name);
		comp_put(c, buf);
	}
}

/* The options where the word is: the global ones, or the verb's. */
static void
comp_options(struct comp *c)
{
	static const struct option	 after[] = {
		{ "color", required_argument, NULL, 0 },
		{ "help", no_argument, NULL, 0 },
		{ NULL, 0, NULL, 0 }
	};

	if (c->e == NULL) {
		comp_put(c, "-c");
		comp_put(c, "-v");
		comp_longopts(c, comp_global);
		return;
	}
	comp_longopts(c, c->e->longopts);
	if (c->e->flags & CLI_CLUSTER)
		comp_put(c, "--cluster");
	comp_longopts(c, after);
}

static void
comp_args(struct comp *c)
{
	const struct cli_entry	*const *e;
	const char		*w;
	size_t			 len;

	if (c->e == NULL) {
		for (e = cli_entries; *e != NULL; e++)
			comp_put(c, (*e)->name);
		comp_put(c, "help");
		return;
	}
	if (c->e->args_max >= 0 && c->nargs >= c->e->args_max)
		return;
	if (c->e->args_kind & CLI_ARG_ID)
		comp_ids(c);
	if (c->e->args_kind & CLI_ARG_CLUSTER)
		comp_clusters(c);
	if (c->e->args_kind & CLI_ARG_FILE)
		c->files = 1;
	/* Fixed words, as the usage's first ones ("install"). */
	for (w = c->e->args_words; w != NULL && *w != '\0' && c->nargs == 0;
	    w += len + (w[len] != '\0')) {
		char	word[32];

		len = strcspn(w, " ");
		if (len > 0 && len < sizeof word) {
			memcpy(word, w, len);
			word[len] = '\0';
			comp_put(c, word);
		}
	}
}

/* The long option "--name" (a word, "=" and its value cut off). */
static const struct option *
comp_long(const struct option *o, const char *word)
{
	size_t	len = strcspn(word + 2, "=");

	for (; o != NULL && o->name != NULL; o++) {
		if (strlen(o->name) == len && strncmp(o->name, word + 2,
		    len) == 0)
			return o;
	}
	return NULL;
}

/* A short option cluster "-n5", "-jn": one that takes a value waits for
   it unless the rest of the word is the value. */
static void
comp_short(struct comp *c, const char *word, const char *shortopts)
{
	const struct option	*o;
	const char		*p;

	for (word++; *word != '\0'; word++) {
		if ((p = strchr(shortopts, *word)) == NULL || p[1] != ':')
			continue;
		if (word[1] != '\0')
			return;
		c->pending = "";
		for (o = c->e != NULL ? c->e->longopts : NULL;
		    o != NULL && o->name != NULL; o++) {
			if (o->val == *word)
				c->pending = o->name;
		}
		if (c->e == NULL && *word == 'c')
			c->pending = "c";
		return;
	}
}

/* One word before the last: what it makes of the line. */
static void
comp_word(struct comp *c, const char *w)
{
	const struct cli_entry	*const *e;
	const struct option	*o;
	const char		*eq;

	if (c->pending != NULL) {
		if (strcmp(c->pending, "c") == 0)
			c->config = w;
		else if (strcmp(c->pending, "cluster") == 0)
			c->cluster = w;
		c->pending = NULL;
		return;
	}
	if (c->dashdash || w[0] != '-' || w[1] == '\0') {
		if (c->e != NULL) {
			c->nargs++;
			return;
		}
		for (e = cli_entries; *e != NULL; e++) {
			if (strcmp((*e)->name, w) == 0)
				c->e = *e;
		}
		c->unknown = c->e == NULL;
		return;
	}
	if (strcmp(w, "--") == 0) {
		c->dashdash = c->e != NULL;
		return;
	}
	if (w[1] != '-') {
		comp_short(c, w, c->e != NULL ? (c->e->shortopts != NULL ?
		    c->e->shortopts : "") : "c:");
		return;
	}
	eq = strchr(w, '=');
	if (strncmp(w, "--cluster", 9) == 0 && (w[9] == '\0' || w[9] == '='))
		o = &comp_global[0];
	else if (strncmp(w, "--color", 7) == 0 && (w[7] == '\0' ||
	    w[7] == '='))
		o = &comp_global[1];
	else
		o = comp_long(c->e != NULL ? c->e->longopts : comp_global, w);
	if (o == NULL || o->has_arg != required_argument)
		return;
	if (eq == NULL)
		c->pending = o->name;
	else if (strcmp(o->name, "cluster") == 0)
		c->cluster = eq + 1;
}

int
cli_complete(int argc, char **argv)
{
	struct comp	 c;
	char		*name, *prefix;
	const char	*cur, *eq;
	int		 i;

	memset(&c, 0, sizeof c);
	c.prefix = "";
	for (i = 0; i + 1 < argc && !c.unknown; i++)
		comp_word(&c, argv[i]);
	if (c.unknown)
		return EXIT_OK;
	cur = argc > 0 ? argv[argc - 1] : "";
	c.word = cur;
	if (c.pending != NULL)
		comp_value(&c, c.pending);
	else if (!c.dashdash && strncmp(cur, "--", 2) == 0 &&
	    (eq = strchr(cur, '=')) != NULL) {
		name = xasprintf("%.*s", (int)(eq - cur - 2), cur + 2);
		prefix = xasprintf("%.*s", (int)(eq + 1 - cur), cur);
		c.prefix = prefix;
		c.word = eq + 1;
		comp_value(&c, name);
		free(prefix);
		free(name);
	} else if (!c.dashdash && cur[0] == '-')
		comp_options(&c);
	else
		comp_args(&c);
	if (c.files)
		printf(":files\n");
	return EXIT_OK;
}
