/*
 * Preflight: one script (templates/remote/preflight.sh) over one channel;
 * its key=value output is parsed and judged by pure functions.
 */
#include "preflight.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "rsh.h"
#include "slurm.h"

#define PREFLIGHT_MARK	"sqdeck-preflight=1"

static const char *preflight_tools[PF_NTOOLS] = {
	"sbatch", "squeue", "sacct", "scancel", "sinfo", "srun", "enroot"
};

const char *
preflight_tool_name(enum preflight_tool t)
{
	return (t < PF_NTOOLS) ? preflight_tools[t] : "?";
}

/*
 * Sent on stdin of "/bin/sh -s" (rsh_wrap), so it runs the same under any
 * login shell (csh included); it is not run by rsh_run because its answer
 * may be kept by the shared login (conn_exec_cached).
 */
char *
preflight_script(const char *results_root)
{
	struct buf	 b;
	char		*s;

	buf_init(&b);
	rsh_var(&b, "root", results_root);
	rsh_embed(&b, "preflight.sh");
	s = rsh_wrap(b.data);
	buf_free(&b);
	return s;
}

int
preflight_line_has_pyxis(const char *line)
{
	static const char	 opt[] = "--container-image";
	const char		*p = line;
	char			 after;

	while ((p = strstr(p, opt)) != NULL) {
		after = p[sizeof opt - 1];
		/* Whole option: not "x--container-image", not a longer name. */
		if ((p == line || isspace((unsigned char)p[-1]) || p[-1] == ',') &&
		    (after == '\0' || after == '=' || after == '[' ||
		    isspace((unsigned char)after)))
			return 1;
		p += sizeof opt - 1;
	}
	return 0;
}

static void
preflight_set(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static void
preflight_add_part(struct preflight *pf, char *value)
{
	struct preflight_partition	*pp;
	char				*name, *time, *avail, *f[3];
	long				 minutes;
	char				*cause = NULL, *end;
	size_t				 i, k;
	int				 nodes = 0, cpus = 0, gpus = 0;
	int				 have_gres = 0, is_default = 0;

	name = value;
	if ((time = strchr(name, '|')) == NULL)
		return;
	*time++ = '\0';
	if ((avail = strchr(time, '|')) != NULL)
		*avail++ = '\0';
	/* Then, optional: nodes, CPUs per node, GRES (%D %c %G). */
	f[0] = f[1] = f[2] = NULL;
	for (k = 0, end = avail; end != NULL && k < 3; k++) {
		if ((end = strchr(end, '|')) == NULL)
			break;
		*end++ = '\0';
		f[k] = end;
	}
	if (f[0] != NULL)
		nodes = (int)strtol(f[0], NULL, 10);
	if (f[1] != NULL)
		cpus = (int)strtol(f[1], NULL, 10);	/* "64+": 64 */
	if (f[2] != NULL) {
		str_trim(f[2]);
		have_gres = 1;
		gpus = strcmp(f[2], "(null)") == 0 ? 0 : plan_gres_gpus(f[2]);
	}
	str_trim(name);
	/* sinfo's %P marks the default partition with '*'. */
	if ((k = strlen(name)) > 0 && name[k - 1] == '*') {
		name[k - 1] = '\0';
		is_default = 1;
	}
	if (*name == '\0')
		return;
	for (i = 0; i < pf->nparts; i++) {
		/* sinfo splits a partition over lines by node kind. */
		if (strcmp(pf->parts[i].name, name) == 0) {
			pp = &pf->parts[i];
			pp->nodes += nodes > 0 ? nodes : 0;
			if (cpus > pp->cpus)
				pp->cpus = cpus;
			if (have_gres && gpus > pp->gpus)
				pp->gpus = gpus;
			pp->is_default |= is_default;
			return;
		}
	}
	pf->parts = xrealloc(pf->parts, (pf->nparts + 1) * sizeof *pf->parts);
	pp = &pf->parts[pf->nparts++];
	memset(pp, 0, sizeof *pp);
	pp->name = xstrdup(name);
	pp->exists = 1;
	pp->max_time = xstrdup(str_trim(time));
	pp->avail = xstrdup(avail != NULL ? str_trim(avail) : "");
	pp->nodes = nodes > 0 ? nodes : 0;
	pp->cpus = cpus > 0 ? cpus : 0;
	pp->gres_known = have_gres;
	pp->gpus = gpus;
	pp->is_default = is_default;
	if (slurm_maxtime_minutes(pp->max_time, &minutes, &cause) != 0) {
		free(cause);
		minutes = -1;
	}
	pp->max_minutes = minutes;
}

int
preflight_parse(const char *text, struct preflight *pf, char **cause)
{
	const char	*line, *nl;
	char		*l, *key, *value;
	size_t		 len;
	int		 started = 0;
	unsigned	 t;

	memset(pf, 0, sizeof *pf);
	pf->sinfo_rc = -1;
	for (line = text; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = strchr(line, '\n');
		if (nl == NULL)
			nl = line + strlen(line);
		len = nl - line;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		l = xstrndup(line, len);
		if (!started) {
			/* Login banners and .bashrc noise come first. */
			started = strcmp(l, PREFLIGHT_MARK) == 0;
			free(l);
			continue;
		}
		key = l;
		if ((value = strchr(l, '=')) == NULL) {
			free(l);
			continue;
		}
		*value++ = '\0';
		if (strcmp(key, "end") == 0)
			pf->complete = 1;
		else if (strcmp(key, "user") == 0)
			preflight_set(&pf->user, value);
		else if (strcmp(key, "home") == 0)
			preflight_set(&pf->home, value);
		else if (strcmp(key, "hostname") == 0)
			preflight_set(&pf->login_host, value);
		else if (strncmp(key, "tool.", 5) == 0 ||
		    strncmp(key, "version.", 8) == 0) {
			int	 is_tool = key[0] == 't';
			char	*name = strchr(key, '.') + 1;

			for (t = 0; t < PF_NTOOLS; t++) {
				if (strcmp(name, preflight_tools[t]) != 0)
					continue;
				if (is_tool && *value != '\0')
					preflight_set(&pf->tools[t].path,
					    value);
				else if (!is_tool && *value != '\0')
					preflight_set(&pf->tools[t].version,
					    value);
			}
		} else if (strcmp(key, "srun.help") == 0)
			strv_add(&pf->srun_help, value);
		else if (strcmp(key, "storage.root") == 0)
			preflight_set(&pf->storage_root, value);
		else if (strcmp(key, "storage.default") == 0)
			pf->storage_default = atoi(value) == 1;
		else if (strcmp(key, "storage.created") == 0)
			pf->storage_created = atoi(value) == 1;
		else if (strcmp(key, "storage.exists") == 0)
			pf->storage_exists = atoi(value) == 1;
		else if (strcmp(key, "storage.writable") == 0)
			pf->storage_writable = atoi(value) == 1;
		else if (strcmp(key, "storage.error") == 0)
			preflight_set(&pf->storage_error, str_trim(value));
		else if (strcmp(key, "sinfo.rc") == 0)
			pf->sinfo_rc = atoi(value);
		else if (strcmp(key, "sinfo") == 0)
			preflight_add_part(pf, value);
		else if (strcmp(key, "sinfo.error") == 0) {
			if (pf->sinfo_error == NULL)
				preflight_set(&pf->sinfo_error, str_trim(value));
			else {
				char *s = xasprintf("%s %s", pf->sinfo_error,
				    str_trim(value));
				free(pf->sinfo_error);
				pf->sinfo_error = s;
			}
		}
		/* Unknown keys: a newer script, ignored. */
		free(l);
	}
	if (!started) {
		preflight_free(pf);
		return cause_set(cause, "the preflight script printed no "
		    "result (no '%s' line): the login node's shell may not be "
		    "POSIX or /bin/sh is missing", PREFLIGHT_MARK);
	}
	for (t = 0; t < pf->srun_help.n; t++) {
		if (preflight_line_has_pyxis(pf->srun_help.v[t]))
			pf->pyxis = 1;
	}
	return 0;
}

const struct preflight_partition *
preflight_find(const struct preflight *pf, const char *name)
{
	size_t	i;

	for (i = 0; i < pf->nparts; i++) {
		if (strcmp(pf->parts[i].name, name) == 0)
			return &pf->parts[i];
	}
	return NULL;
}

static void
preflight_free_parts(struct preflight_partition *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].max_time);
		free(v[i].avail);
	}
	free(v);
}

static char *
preflight_part_list(const struct preflight *pf)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < pf->nparts; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", pf->parts[i].name);
	if (b.len == 0)
		buf_adds(&b, "none");
	return buf_steal(&b);
}

/*
 * No 'partitions:' for this cluster: the package's default names are
 * another site's.  When none of them exists, the cluster's own default
 * partition (sinfo's '*') is used, and said; without one the problem
 * names the partitions there are.  1: partitions was replaced by *use;
 * -1: the problem was added; 0: the names given stand.
 */
static int
preflight_cluster_default(struct preflight *pf, const struct strv *partitions,
    struct strv *use)
{
	const struct preflight_partition	*def = NULL;
	char					*list, *m;
	size_t					 i;

	if (pf->sinfo_rc != 0 || partitions == NULL)
		return 0;
	for (i = 0; i < partitions->n; i++) {
		if (preflight_find(pf, partitions->v[i]) != NULL)
			return 0;
	}
	for (i = 0; i < pf->nparts && def == NULL; i++) {
		if (pf->parts[i].is_default)
			def = &pf->parts[i];
	}
	list = preflight_part_list(pf);
	if (def == NULL) {
		m = xasprintf("no partitions are set for this cluster "
		    "('partitions:' in clusters.yaml, or SLURM_PARTITION), none "
		    "of sqdeck's default names (" CONFIG_DEFAULT_PARTITIONS ") "
		    "exists here and the cluster has no default partition: set "
		    "'partitions:' for this cluster to some of: %s", list);
		strv_add(&pf->problems, m);
		free(m);
		free(list);
		return -1;
	}
	m = xasprintf("no partitions are set for this cluster ('partitions:' "
	    "in clusters.yaml, or SLURM_PARTITION) and none of sqdeck's "
	    "default names (" CONFIG_DEFAULT_PARTITIONS ") exists here: using "
	    "the cluster's default partition %s (sinfo marks it with '*'); "
	    "its partitions: %s", def->name, list);
	strv_add(&pf->warnings, m);
	free(m);
	free(list);
	strv_add(use, def->name);
	pf->cluster_default = 1;
	return 1;
}

static void
preflight_evaluate_as(struct preflight *pf, const struct strv *partitions,
    int package_default, enum container_mode wanted)
{
	const struct preflight_partition	*found;
	struct preflight_partition		*w;
	struct strv				 use = { 0 };
	const char				*where;
	char					*list;
	size_t					 i;
	unsigned				 t;
	int					 cd;

	preflight_free_parts(pf->wanted, pf->nwanted);
	pf->wanted = NULL;
	pf->nwanted = 0;
	pf->cluster_default = 0;
	strv_free(&pf->problems);
	strv_free(&pf->warnings);
	where = pf->login_host != NULL ? pf->login_host : "the login node";

	if (!pf->complete)
		strv_add(&pf->problems, "the preflight script stopped before "
		    "its end (output cut short): run it again; if this "
		    "persists, look at `sqdeck preflight --raw` and the "
		    "login node's shell startup files");

	for (t = PF_SBATCH; t <= PF_SINFO; t++) {
		if (pf->tools[t].path != NULL)
			continue;
		list = xasprintf("%s not found in the PATH of a "
		    "non-interactive SSH session on %s: SLURM's client tools "
		    "must be reachable without an interactive login (set PATH "
		    "in ~/.bashrc before any interactive-only part, or ask the "
		    "cluster's admins)", preflight_tools[t], where);
		strv_add(&pf->problems, list);
		free(list);
	}
	if (pf->tools[PF_SRUN].path == NULL)
		strv_add(&pf->warnings, "srun not found on the login node: "
		    "registry images cannot be converted (enroot import runs "
		    "inside srun)");

	if (pf->storage_root == NULL)
		strv_add(&pf->problems, "the storage root was not checked "
		    "(output cut short)");
	else if (!pf->storage_exists && pf->storage_default) {
		list = xasprintf("cannot create the default storage root %s "
		    "on the cluster%s%s: set SLURM_BASE_RESULTS_DIR to a "
		    "writable directory on shared storage", pf->storage_root,
		    pf->storage_error ? ": " : "",
		    pf->storage_error ? pf->storage_error : "");
		strv_add(&pf->problems, list);
		free(list);
	} else if (!pf->storage_exists) {
		list = xasprintf("storage root %s does not exist on the "
		    "cluster: create it (mkdir -p %s) or fix "
		    "SLURM_BASE_RESULTS_DIR", pf->storage_root,
		    pf->storage_root);
		strv_add(&pf->problems, list);
		free(list);
	} else if (!pf->storage_writable) {
		list = xasprintf("storage root %s is not writable by %s%s%s: "
		    "fix its permissions or choose another "
		    "SLURM_BASE_RESULTS_DIR", pf->storage_root,
		    pf->user ? pf->user : "the cluster user",
		    pf->storage_error ? ": " : "",
		    pf->storage_error ? pf->storage_error : "");
		strv_add(&pf->problems, list);
		free(list);
	}
	if (pf->storage_root != NULL && pf->storage_default) {
		list = xasprintf("SLURM_BASE_RESULTS_DIR is not set: using "
		    "%s%s; it must be on storage the compute nodes share",
		    pf->storage_root, pf->storage_created ? " (created now)" :
		    "");
		strv_add(&pf->warnings, list);
		free(list);
	}

	cd = package_default ? preflight_cluster_default(pf, partitions,
	    &use) : 0;
	if (cd == 1)
		partitions = &use;
	if (cd < 0)
		;	/* said, with the partitions there are */
	else if (partitions == NULL || partitions->n == 0)
		strv_add(&pf->problems, "no partition configured: set "
		    "SLURM_PARTITION (comma-separated, the first is the "
		    "default)");
	else if (pf->sinfo_rc != 0) {
		list = xasprintf("sinfo failed (exit %d)%s%s: the partitions "
		    "could not be checked; is slurmctld reachable from %s?",
		    pf->sinfo_rc, pf->sinfo_error ? ": " : "",
		    pf->sinfo_error ? pf->sinfo_error : "", where);
		strv_add(&pf->problems, list);
		free(list);
	} else {
		pf->wanted = xcalloc(partitions->n, sizeof *pf->wanted);
		pf->nwanted = partitions->n;
		for (i = 0; i < partitions->n; i++) {
			w = &pf->wanted[i];
			found = preflight_find(pf, partitions->v[i]);
			w->name = xstrdup(partitions->v[i]);
			w->exists = found != NULL;
			w->max_time = found ? xstrdup(found->max_time) : NULL;
			w->avail = found ? xstrdup(found->avail) : NULL;
			w->max_minutes = found ? found->max_minutes : -1;
			if (found != NULL)
				continue;
			list = preflight_part_list(pf);
			if (i == 0) {
				char *m = xasprintf("partition '%s' (the first "
				    "in SLURM_PARTITION, used by default) does "
				    "not exist on this cluster; its partitions "
				    "are: %s. Set SLURM_PARTITION to one of "
				    "them", w->name, list);
				strv_add(&pf->problems, m);
				free(m);
			} else {
				char *m = xasprintf("partition '%s' does not "
				    "exist on this cluster (its partitions: "
				    "%s)", w->name, list);
				strv_add(&pf->warnings, m);
				free(m);
			}
			free(list);
		}
	}

	switch (wanted) {
	case CONTAINER_PYXIS:
		pf->container = CONTAINER_PYXIS;
		if (!pf->pyxis)
			strv_add(&pf->problems, "container mode pyxis is "
			    "configured, but srun has no --container-image "
			    "(Pyxis is not installed): set the container mode "
			    "to none or ask the cluster's admins for Pyxis");
		break;
	case CONTAINER_NONE:
		pf->container = CONTAINER_NONE;
		break;
	default:
		/*
		 * auto: Pyxis when srun has it.  Without it an image cannot
		 * run in a container, and running the command on the bare
		 * node instead must be asked for, never fallen into.
		 */
		pf->container = pf->pyxis ? CONTAINER_PYXIS : CONTAINER_NONE;
		if (!pf->pyxis)
			strv_add(&pf->problems, "srun has no --container-image "
			    "(Pyxis is not installed), so a job's image cannot "
			    "run in a container: set 'container: none' for this "
			    "cluster in clusters.yaml to run commands directly "
			    "on the nodes, or ask the cluster's admins for "
			    "Pyxis");
		break;
	}
	if (pf->container == CONTAINER_PYXIS &&
	    pf->tools[PF_ENROOT].path == NULL)
		strv_add(&pf->warnings, "enroot not found on the login node: "
		    "converting registry images needs it on the CPU nodes");

	strv_free(&use);
	pf->ok = pf->problems.n == 0;
}

void
preflight_evaluate(struct preflight *pf, const struct strv *partitions,
    enum container_mode wanted)
{
	preflight_evaluate_as(pf, partitions, 0, wanted);
}

/*
 * A registry image is converted by a job on cpu_partition: a site whose
 * CPU queue has another name would fail every such submit at the image
 * step.  A .sqsh file still runs, so this is a warning, naming the
 * partitions there are.
 */
static void
preflight_check_cpu(struct preflight *pf, const struct cluster *cl)
{
	const struct preflight_partition	*p;
	char					*list, *m;

	free(pf->cpu_partition);
	pf->cpu_partition = NULL;
	pf->cpu_exists = 0;
	if (pf->container != CONTAINER_PYXIS || pf->sinfo_rc != 0)
		return;
	pf->cpu_partition = xstrdup(cl->cpu_partition != NULL ?
	    cl->cpu_partition : "cpu");
	p = preflight_find(pf, pf->cpu_partition);
	pf->cpu_exists = p != NULL;
	list = preflight_part_list(pf);
	if (p == NULL)
		m = xasprintf("the image conversion partition '%s' (%s) does "
		    "not exist on this cluster; its partitions are: %s. A "
		    "registry image cannot be converted (a .sqsh file still "
		    "runs): set cpu_partition for cluster '%s' in clusters.yaml",
		    pf->cpu_partition, cl->cpu_partition != NULL ?
		    "cpu_partition in clusters.yaml" : "the default, "
		    "cpu_partition unset", list, cl->name);
	else if (p->avail != NULL && *p->avail != '\0' &&
	    strcmp(p->avail, "up") != 0)
		m = xasprintf("the image conversion partition '%s' is %s: "
		    "registry images cannot be converted until it is up (its "
		    "partitions: %s)", p->name, p->avail, list);
	else
		m = NULL;
	if (m != NULL)
		strv_add(&pf->warnings, m);
	free(m);
	free(list);
}

void
preflight_evaluate_cluster(struct preflight *pf, const struct cluster *cl)
{
	char	*m;

	preflight_evaluate_as(pf, &cl->partitions, cl->partitions_default,
	    cl->container);
	preflight_check_cpu(pf, cl);
	if (cl->user == NULL) {
		m = xasprintf("SLURM_USER is not set (nor 'user:' for cluster "
		    "'%s' in clusters.yaml): logged in as %s, the name "
		    "~/.ssh/config or the local login gives; set SLURM_USER to "
		    "choose", cl->name, pf->user != NULL ? pf->user : "?");
		strv_add(&pf->warnings, m);
		free(m);
	}
}

int
preflight_run_cached(struct conn *c, const struct cluster *cl,
    struct preflight *pf, int max_age, int *age, char **raw, char **cause)
{
	struct conn_result	 res;
	char			*script, *why = NULL;
	int			 rc, a = -1;

	memset(pf, 0, sizeof *pf);
	if (raw != NULL)
		*raw = NULL;
	if (age != NULL)
		*age = -1;
	script = preflight_script(cl->results_root);
	rc = conn_exec_cached(c, "/bin/sh -s", script, strlen(script),
	    max_age, &res, &a, &why);
	if (rc != 0) {
		free(script);
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	if (raw != NULL)
		*raw = xstrdup(res.out);
	if (preflight_parse(res.out, pf, &why) != 0) {
		cause_set(cause, "%s (exit %d%s%.200s)", why, res.status,
		    res.errlen ? ", stderr: " : "", res.err);
		free(why);
		free(script);
		conn_result_free(&res);
		return -1;
	}
	preflight_evaluate_cluster(pf, cl);
	/*
	 * A check that passed here is kept by the shared login for the next
	 * runs (they evaluate it against their own settings again).  The
	 * script holds no secret.
	 */
	if (a < 0 && pf->ok && pf->complete && res.status == 0 &&
	    conn_remember(c, "/bin/sh -s", script, strlen(script), &res,
	    &why) != 0) {
		free(why);
		why = NULL;
	}
	if (age != NULL)
		*age = a;
	free(script);
	conn_result_free(&res);
	return 0;
}

int
preflight_run(struct conn *c, const struct cluster *cl, struct preflight *pf,
    char **raw, char **cause)
{
	return preflight_run_cached(c, cl, pf, 0, NULL, raw, cause);
}

void
preflight_free(struct preflight *pf)
{
	unsigned	t;

	free(pf->user);
	free(pf->home);
	free(pf->login_host);
	for (t = 0; t < PF_NTOOLS; t++) {
		free(pf->tools[t].path);
		free(pf->tools[t].version);
	}
	strv_free(&pf->srun_help);
	free(pf->storage_root);
	free(pf->storage_error);
	free(pf->sinfo_error);
	free(pf->cpu_partition);
	preflight_free_parts(pf->parts, pf->nparts);
	preflight_free_parts(pf->wanted, pf->nwanted);
	strv_free(&pf->problems);
	strv_free(&pf->warnings);
	memset(pf, 0, sizeof *pf);
}
