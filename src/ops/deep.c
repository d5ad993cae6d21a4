#include "deep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "rsh.h"
#include "util.h"

/* templates/remote/deep.sh, with deep-node.sh as the node's script. */
char *
deep_script(const char *partition, const char *account, const char *job_name)
{
	struct buf	b;

	buf_init(&b);
	rsh_var(&b, "part", partition);
	rsh_var(&b, "acct", account);
	rsh_var(&b, "job", job_name);
	rsh_var(&b, "node", rsh_text("deep-node.sh"));
	rsh_embed(&b, "deep.sh");
	return buf_steal(&b);
}

static char *
value_of(const char *line, const char *key)
{
	size_t	n = strlen(key);

	if (strncmp(line, key, n) != 0 || line[n] != '=')
		return NULL;
	return xstrdup(line + n + 1);
}

void
deep_parse(const char *out, const char *partition, struct deep *d)
{
	struct buf	 other;
	char		*copy, *line, *next, *v;
	int		 end = 0, have_rc = 0;

	memset(d, 0, sizeof *d);
	d->srun_rc = -1;
	d->enroot_list_rc = -1;
	buf_init(&other);
	copy = xstrdup(out != NULL ? out : "");
	for (line = copy; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((v = value_of(line, "srun.rc")) != NULL) {
			d->srun_rc = atoi(v);
			have_rc = 1;
		} else if ((v = value_of(line, "node")) != NULL) {
			free(d->node);
			d->node = xstrdup(v);
		} else if ((v = value_of(line, "enroot")) != NULL) {
			free(d->enroot);
			d->enroot = *v != '\0' ? xstrdup(v) : NULL;
		} else if ((v = value_of(line, "enroot.version")) != NULL) {
			free(d->enroot_version);
			d->enroot_version = xstrdup(v);
		} else if ((v = value_of(line, "enroot.list")) != NULL)
			d->enroot_list_rc = atoi(v);
		else if ((v = value_of(line, "pyxis")) != NULL)
			d->pyxis = strcmp(v, "1") == 0;
		else if ((v = value_of(line, "deep.end")) != NULL)
			end = 1;
		else if (*line != '\0')
			buf_printf(&other, "%s%s", other.len ? "; " : "", line);
		free(v);
	}
	free(copy);
	d->ran = have_rc && end;
	d->output = other.data != NULL ? buf_steal(&other) : NULL;
	buf_free(&other);

	if (!d->ran)
		d->problem = xasprintf("the test job on partition %s did not "
		    "run (srun exit %d%s%s): check the partition "
		    "(cpu_partition in clusters.yaml) and SLURM_ACCOUNT",
		    partition, d->srun_rc, d->output != NULL ? ": " : "",
		    d->output != NULL ? d->output : "");
	else if (d->enroot == NULL)
		d->problem = xasprintf("enroot is not on the PATH of jobs on "
		    "node %s (it may be on the login node only): ask the "
		    "cluster admins to install enroot on the compute nodes",
		    d->node != NULL ? d->node : "?");
	else if (d->enroot_list_rc != 0)
		d->problem = xasprintf("enroot on node %s does not work "
		    "(enroot list exit %d): check ENROOT_RUNTIME_PATH and "
		    "ENROOT_DATA_PATH there with the cluster admins",
		    d->node != NULL ? d->node : "?", d->enroot_list_rc);
	else if (!d->pyxis)
		d->problem = xasprintf("srun on node %s has no "
		    "--container-image: Pyxis is not loaded where jobs run "
		    "(plugstack.conf of the nodes); set 'container: none' to "
		    "run commands without a container",
		    d->node != NULL ? d->node : "?");
	d->ok = d->problem == NULL;
}

void
deep_free(struct deep *d)
{
	free(d->node);
	free(d->enroot);
	free(d->enroot_version);
	free(d->output);
	free(d->problem);
	memset(d, 0, sizeof *d);
}

int
deep_run(struct conn *c, const struct cluster *cl, struct deep *d,
    char **cause)
{
	struct conn_result	 res;
	char			*script, *name, *why = NULL;
	const char		*part;
	int			 rc;

	part = cl->cpu_partition != NULL ? cl->cpu_partition : "cpu";
	name = xasprintf("sqdeck-deep-%ld-%ld", (long)time(NULL),
	    (long)getpid());
	script = deep_script(part, cl->account, name);
	free(name);
	rc = rsh_run_limit(c, script, DEEP_JOB_TIMEOUT, 65536, &res, &why);
	free(script);
	if (rc != 0) {
		cause_set(cause, "deep check: %s", why);
		free(why);
		return -1;
	}
	deep_parse(res.out, part, d);
	conn_result_free(&res);
	return 0;
}

static char *
deep_path(const char *cluster)
{
	char	*dir = path_state_dir(), *p;

	p = xasprintf("%s/deep-%s.json", dir, cluster);
	free(dir);
	return p;
}

int
deep_last(const char *cluster, char **when, char **node)
{
	cJSON	*o, *w, *n;
	char	*path, *text = NULL;
	size_t	 len;
	int	 rc = 1;

	*when = NULL;
	*node = NULL;
	path = deep_path(cluster);
	if (file_read(path, &text, &len, NULL) == 0 &&
	    (o = cJSON_ParseWithLength(text, len)) != NULL) {
		w = cJSON_GetObjectItemCaseSensitive(o, "passed");
		n = cJSON_GetObjectItemCaseSensitive(o, "node");
		if (cJSON_IsString(w)) {
			*when = xstrdup(w->valuestring);
			*node = xstrdup(cJSON_IsString(n) ? n->valuestring :
			    "?");
			rc = 0;
		}
		cJSON_Delete(o);
	}
	free(text);
	free(path);
	return rc;
}

int
deep_store(const char *cluster, const struct deep *d, char **cause)
{
	cJSON		*o;
	char		*path, *dir, *text, when[32];
	time_t		 now = time(NULL);
	int		 rc;

	iso_time_fmt(now, when, sizeof when);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "cluster", cluster);
	cJSON_AddStringToObject(o, "passed", when);
	cJSON_AddStringToObject(o, "node", d->node != NULL ? d->node : "");
	cJSON_AddStringToObject(o, "enroot", d->enroot != NULL ? d->enroot :
	    "");
	cJSON_AddStringToObject(o, "enroot_version", d->enroot_version !=
	    NULL ? d->enroot_version : "");
	cJSON_AddBoolToObject(o, "pyxis", d->pyxis);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	dir = path_state_dir();
	if (mkdir_p(dir, 0700, cause) != 0) {
		free(dir);
		cJSON_free(text);
		return -1;
	}
	free(dir);
	path = deep_path(cluster);
	rc = file_write_atomic(path, text, strlen(text), 0600, cause);
	free(path);
	cJSON_free(text);
	return rc;
}
