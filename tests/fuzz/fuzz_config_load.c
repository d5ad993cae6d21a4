/*
 * config_load() on arbitrary clusters.yaml text.  The input is the file;
 * it is written to a memfd and loaded through /proc/self/fd/N, the same
 * path a real file takes.  If its first line is "#env: VAR=value;..." (a
 * YAML comment) those variables are set for the load, so the environment
 * overrides are fuzzed too.  No crash, no leak; -1 iff *cause is set; a
 * loaded config has a current cluster, each cluster has a unique name, at
 * least one host and one partition.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "config.h"

static const char *envvars[] = {
	"SQDECK_CLUSTER", "SLURM_HOSTNAME", "SLURM_USER", "SSH_PORT",
	"SLURM_PORT", "SLURM_PARTITION", "SSH_KEY_PATH", "SSH_KNOWN_HOSTS",
	"SLURM_BASE_RESULTS_DIR", "SLURM_ACCOUNT", "SLURM_TIME_HOURS",
	"SLURM_USE_REQUEUE",
};
#define NENVVARS (sizeof envvars / sizeof envvars[0])

static int	 fd = -1;
static char	 path[64];

static void
env_clear(void)
{
	size_t	i;

	for (i = 0; i < NENVVARS; i++)
		unsetenv(envvars[i]);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if ((fd = memfd_create("clusters.yaml", 0)) == -1)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	env_clear();
	setenv("HOME", "/home/fuzz", 1);	/* for "~/" paths */
	return 0;
}

/* "#env: A=1;B=2" on the first line: set those of envvars[]. */
static void
env_set(const char *text)
{
	char	*line, *item, *next, *eq;
	size_t	 i;

	if (strncmp(text, "#env:", 5) != 0)
		return;
	line = xstrndup(text + 5, strcspn(text + 5, "\n"));
	for (item = line; item != NULL; item = next) {
		if ((next = strchr(item, ';')) != NULL)
			*next++ = '\0';
		while (*item == ' ')
			item++;
		if ((eq = strchr(item, '=')) == NULL)
			continue;
		*eq = '\0';
		for (i = 0; i < NENVVARS; i++) {
			if (strcmp(item, envvars[i]) == 0)
				setenv(item, eq + 1, 1);
		}
	}
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	 cfg;
	struct cluster	*c;
	char		*text = fuzz_cstr(data, size), *cause = NULL;
	size_t		 i, j;
	int		 rc;

	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	env_set(text);

	rc = config_load(path, &cfg, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	if (rc == 0) {
		fuzz_check(cfg.nclusters > 0 && cfg.current < cfg.nclusters,
		    "%zu clusters, current %zu", cfg.nclusters, cfg.current);
		fuzz_check(config_cluster(&cfg, NULL, NULL) ==
		    &cfg.clusters[cfg.current], "current cluster");
		for (i = 0; i < cfg.nclusters; i++) {
			c = &cfg.clusters[i];
			fuzz_check(c->name != NULL && *c->name != '\0',
			    "cluster %zu has no name", i);
			fuzz_check(c->hosts.n > 0 && c->partitions.n > 0,
			    "cluster %s: %zu hosts, %zu partitions", c->name,
			    c->hosts.n, c->partitions.n);
			for (j = 0; j < c->hosts.n; j++)
				fuzz_check(*c->hosts.v[j] != '\0', "empty host");
			fuzz_check(config_cluster(&cfg, c->name, NULL) == c,
			    "cluster name %s not unique", c->name);
			config_container_name(c->container);
		}
		fuzz_check(config_cluster(&cfg, "no such cluster!", &cause) ==
		    NULL && cause != NULL, "unknown cluster found");
		free(cause);
		config_free(&cfg);
	} else
		free(cause);

	env_clear();
	free(text);
	return 0;
}
