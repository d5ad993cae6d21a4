/* Placeholder: environment only.  The YAML loader replaces this (issue 3). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

static char *
env_dup(const char *name)
{
	const char	*v = getenv(name);

	return (v != NULL && *v != '\0') ? xstrdup(v) : NULL;
}

int
config_load(const char *path, struct config *cfg, char **cause)
{
	struct cluster	*c;
	const char	*v;

	memset(cfg, 0, sizeof *cfg);
	if (path != NULL)
		cfg->path = xstrdup(path);
	if (getenv("SLURM_HOSTNAME") == NULL)
		return cause_set(cause, "no cluster configured: set SLURM_HOSTNAME "
		    "and SLURM_USER, or write clusters.yaml");
	cfg->clusters = xcalloc(1, sizeof *cfg->clusters);
	cfg->nclusters = 1;
	c = &cfg->clusters[0];
	c->name = xstrdup("default");
	strv_split(&c->hosts, getenv("SLURM_HOSTNAME"), ',');
	c->user = env_dup("SLURM_USER");
	if ((v = getenv("SLURM_PORT")) != NULL)
		c->port = atoi(v);
	c->key_path = env_dup("SSH_KEY_PATH");
	c->known_hosts = env_dup("SSH_KNOWN_HOSTS");
	strv_split(&c->partitions, getenv("SLURM_PARTITION") ?
	    getenv("SLURM_PARTITION") : "polar,polar3,polar4,grizzly", ',');
	c->account = env_dup("SLURM_ACCOUNT");
	c->results_root = env_dup("SLURM_BASE_RESULTS_DIR");
	c->requeue = -1;
	return 0;
}

struct cluster *
config_cluster(struct config *cfg, const char *name, char **cause)
{
	size_t	i;

	for (i = 0; i < cfg->nclusters; i++) {
		if (name == NULL || strcmp(cfg->clusters[i].name, name) == 0)
			return &cfg->clusters[i];
	}
	cause_set(cause, "no cluster named '%s'", name ? name : "(any)");
	return NULL;
}

void
config_free(struct config *cfg)
{
	size_t	i;

	for (i = 0; i < cfg->nclusters; i++) {
		struct cluster	*c = &cfg->clusters[i];

		free(c->name);
		strv_free(&c->hosts);
		free(c->user);
		free(c->key_path);
		free(c->known_hosts);
		strv_free(&c->partitions);
		free(c->account);
		free(c->results_root);
		free(c->cpu_partition);
		free(c->image_cache);
	}
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
