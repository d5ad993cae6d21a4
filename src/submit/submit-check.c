/*
 * Submit steps before anything is written: the local reading of the spec
 * (image reference, supporting files), the preflight and the plan, and
 * the check round trip (sqdeck(1): submit): every dataset and mount source,
 * the image (or its cache file) header and size, the registry's credentials.
 */
#include "submit-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "enc.h"
#include "record.h"
#include "uri.h"

char *
submit_check_script(const char *const *paths, size_t n, const char *image,
    const char *registry)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	rsh_var(&b, "img", image);
	rsh_var(&b, "reg", registry);
	buf_adds(&b, "set --");
	for (i = 0; i < n; i++) {
		buf_adds(&b, " ");
		buf_add_quoted(&b, paths[i]);
	}
	buf_adds(&b, "\n");
	rsh_embed(&b, "lib-report.sh");
	rsh_embed(&b, "lib-cstat.sh");
	rsh_embed(&b, "check.sh");
	return buf_steal(&b);
}

int
submit_check_parse(const char *out, size_t npaths, struct submit_check *ck,
    char **cause)
{
	char		*copy, *line, *next, hex[512];
	unsigned long	 idx;
	unsigned long long size;
	size_t		 seen = 0;
	int		 v, end = 0, image = 0;

	memset(ck, 0, sizeof *ck);
	image_cache_stat_init(&ck->cache);
	ck->npaths = npaths;
	ck->exists = xcalloc(npaths + 1, sizeof *ck->exists);
	copy = xstrdup(out);
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sscanf(line, "path %lu %d", &idx, &v) == 2) {
			if (idx < npaths) {
				ck->exists[idx] = v;
				seen++;
			}
		} else if (strcmp(line, "image 0") == 0) {
			image = 1;
		} else if (sscanf(line, "image 1 %llu %511s", &size,
		    hex) >= 1) {
			image = 1;
			ck->image_exists = 1;
			ck->image_size = size;
			if (sscanf(line, "image 1 %llu %511s", &size, hex) == 2)
				ck->headlen = enc_unhex(hex, ck->head,
				    sizeof ck->head);
		} else if (sscanf(line, "creds %d", &v) == 1) {
			ck->creds = v;
		} else if (str_has_prefix(line, "cache ")) {
			image_cache_stat_line(&ck->cache, line + 6);
		} else if (strcmp(line, "end") == 0)
			end = 1;
	}
	free(copy);
	if (!end || !image || seen != npaths) {
		return cause_set(cause, "the check script on the login node "
		    "stopped early (%zu of %zu paths reported)", seen, npaths);
	}
	return 0;
}

void
submit_check_free(struct submit_check *ck)
{
	free(ck->exists);
	memset(ck, 0, sizeof *ck);
}
char *
submit_file_member(const char *path)
{
	const char	*p;

	/* A clean relative path keeps its shape; anything else its name. */
	if (*path != '/' && strstr(path, "..") == NULL)
		p = path;
	else if ((p = strrchr(path, '/')) != NULL)
		p++;
	else
		p = path;
	while (str_has_prefix(p, "./"))
		p += 2;
	return xasprintf("files/%s", p);
}

/* --- remote helpers ------------------------------------------------------ */

/* --- the steps ----------------------------------------------------------- */

/* The spec read here: its image reference, the record id and job name. */
int
submit_step_local(struct submit_ctx *x, char **cause)
{
	char	*why = NULL;

	submit_spec_sha(x->sp, x->s->cl->name, x->spec_sha);
	if (image_parse(x->sp->image, &x->img, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_CHECK, cause, "%s", why);
		free(why);
		return -1;
	}
	x->res->image = image_display(&x->img);
	x->record_id = x->o->record_id != NULL && *x->o->record_id != '\0' ?
	    xstrdup(x->o->record_id) : record_new_id();
	x->res->record_id = xstrdup(x->record_id);
	x->res->job_name = submit_job_name(x->sp->name, x->record_id);
	return SUBMIT_NEXT;
}

/*
 * Supporting files are staged only when closed by a checksum (sqdeck(1):
 * IMAGES AND STORAGE): read them here, before anything remote, and compare.
 */
int
submit_step_files(struct submit_ctx *x, char **cause)
{
	const struct spec_file	*f;
	char			*path, *dir, *slash, *data, *why = NULL;
	char			 hex[65];
	size_t			 i, len;

	if (x->sp->nfiles == 0)
		return 0;
	x->files = xcalloc(x->sp->nfiles, sizeof *x->files);
	x->members = xcalloc(x->sp->nfiles, sizeof *x->members);
	dir = xstrdup(x->sp->path != NULL ? x->sp->path : "./x");
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}
	for (i = 0; i < x->sp->nfiles; i++) {
		f = &x->sp->files[i];
		path = *f->path == '/' ? xstrdup(f->path) : xasprintf("%s/%s",
		    dir, f->path);
		/* Checked before it is read: a FIFO or /dev/zero is refused. */
		if (file_read_max(path, SUBMIT_FILE_MAX, &data, &len,
		    &why) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "files: "
			    "supporting file %s: %s; only small regular files "
			    "(up to %d MiB) are staged: put anything else on "
			    "shared storage and mount it", f->path, why,
			    SUBMIT_FILE_MAX >> 20);
			goto fail;
		}
		buf_init(&x->files[i]);
		buf_add(&x->files[i], data, len);
		free(data);
		enc_sha256_hex(x->files[i].data, len, hex);
		if (strcasecmp(hex, f->sha256) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "supporting "
			    "file %s has sha256 %s but the spec says %s: update "
			    "the spec (sha256sum %s) or restore the file",
			    f->path, hex, f->sha256, path);
			goto fail;
		}
		x->members[i] = submit_file_member(f->path);
		if (strlen(x->members[i]) >= 100) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "supporting "
			    "file %s: the path is too long to stage (99 bytes "
			    "at most)", f->path);
			goto fail;
		}
		free(path);
	}
	free(dir);
	return 0;
fail:
	free(why);
	free(path);
	free(dir);
	return -1;
}

static int
submit_plan(struct submit_ctx *x, char **cause)
{
	const struct preflight	*pf = &x->s->pf;
	struct plan_limit	*lim;
	char			*why = NULL;
	size_t			 i;
	int			 rc;

	lim = xcalloc(pf->nparts + 1, sizeof *lim);
	for (i = 0; i < pf->nparts; i++) {
		lim[i].name = pf->parts[i].name;
		lim[i].max_minutes = pf->parts[i].max_minutes < 0 ?
		    PLAN_UNLIMITED : (int)pf->parts[i].max_minutes;
		lim[i].state = pf->parts[i].avail;
		lim[i].nodes = pf->parts[i].nodes;
		lim[i].cpus = pf->parts[i].cpus;
		lim[i].gres_known = pf->parts[i].gres_known;
		lim[i].gpus_per_node = pf->parts[i].gpus;
		lim[i].is_default = pf->parts[i].is_default;
	}
	rc = plan_make(x->sp, x->s->cl, lim, pf->nparts, &x->plan, &why);
	free(lim);
	if (rc != 0) {
		submit_fail(x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
		return -1;
	}
	/* plan_make checked each partition against sinfo's list. */
	return 0;
}

/* The paths submit checks: datasets (resolved) and mount sources. */
static int
submit_paths(struct submit_ctx *x, struct strv *paths, struct strv *what,
    char **cause)
{
	char	*path, *why = NULL;
	size_t	 i;

	for (i = 0; i < x->sp->datasets.n; i++) {
		if (uri_resolve("dataset", x->sp->datasets.v[i],
		    x->results_root, &path, &why) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "%s", why);
			free(why);
			return -1;
		}
		strv_add(paths, path);
		free(path);
		path = xasprintf("dataset %s", x->sp->datasets.v[i]);
		strv_add(what, path);
		free(path);
	}
	for (i = 0; i < x->sp->nmounts; i++) {
		strv_add(paths, x->sp->mounts[i].src);
		path = xasprintf("mount source %s (mount %s:%s)",
		    x->sp->mounts[i].src, x->sp->mounts[i].src,
		    x->sp->mounts[i].dst);
		strv_add(what, path);
		free(path);
	}
	return 0;
}


/* 1. Preflight, once per session. */
int
submit_step_preflight(struct submit_ctx *x, char **cause)
{
	char	*why = NULL;

	if (submit_preflight(x->s, &x->pf_cached, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
		return -1;
	}
	return SUBMIT_NEXT;
}

/* What the preflight allows: the plan, and the job dir it names. */
int
submit_step_plan(struct submit_ctx *x, char **cause)
{
	struct submit_session	*s = x->s;
	struct submit_result	*res = x->res;
	char			*age;

	res->container = s->pf.container;
	x->results_root = xstrdup(s->pf.storage_root);
	if (submit_plan(x, cause) != 0)
		return -1;
	jobdir_make(&x->lay, x->results_root, res->job_name, x->record_id);
	res->job_dir = xstrdup(x->lay.job_dir);
	res->sbatch_path = xstrdup(x->lay.sbatch_path);
	if (x->nsec != 0)
		res->env_path = xstrdup(x->lay.env_path);
	if (x->pf_cached)
		age = xstrdup(" (cached for this session)");
	else if (s->pf_age >= 0)
		age = xasprintf(" ok (passed %d s ago on this login, reused)",
		    s->pf_age);
	else
		age = xstrdup(" ok");
	submit_say(x, SUBMIT_STEP_PREFLIGHT, "%s%s; container mode %s%s; "
	    "%s: %d node%s x %d GPU%s, %d CPUs/task, %s (program timeout "
	    "%d s, then TERM, KILL %d s later)%s",
	    conn_target(s->conn) != NULL ? conn_target(s->conn) : s->cl->name,
	    age,
	    config_container_name(res->container),
	    res->container == CONTAINER_NONE ? " ('container: none' in "
	    "clusters.yaml: the command runs directly on the nodes, not in "
	    "the image)" : " (srun --container-image, job dir mounted and "
	    "the working directory)",
	    x->plan.partition, x->plan.nodes, x->plan.nodes == 1 ? "" : "s",
	    x->plan.gpus_per_node, x->plan.gpus_per_node == 1 ? "" : "s",
	    x->plan.cpus_per_task, x->plan.time_str, x->plan.timeout_seconds,
	    x->plan.grace_seconds, x->plan.exclusive ? ", exclusive" : "");
	free(age);
	if (x->plan.note != NULL)
		submit_say(x, SUBMIT_STEP_PREFLIGHT, "plan: %s", x->plan.note);
	return SUBMIT_NEXT;
}

/* The missing paths of a check's answer, as the error says them. */
int
submit_check_missing(struct submit_ctx *x, char **cause)
{
	struct buf	 miss;
	size_t		 i;

	buf_init(&miss);
	for (i = 0; i < x->paths.n; i++) {
		if (!x->ck.exists[i])
			buf_printf(&miss, "\n  - %s: %s does not exist",
			    x->what.v[i], x->paths.v[i]);
	}
	if (miss.len != 0) {
		submit_fail(x, SUBMIT_STEP_CHECK, cause, "missing on cluster "
		    "%s (nothing was staged or submitted; correct the path%s in "
		    "the spec):%s", x->s->cl->name, strchr(miss.data + 1, '\n') ?
		    "s" : "", miss.data);
		buf_free(&miss);
		return -1;
	}
	buf_free(&miss);
	return 0;
}

/* The check's answer (x->ck), said. */
void
submit_check_say(struct submit_ctx *x)
{
	submit_say(x, SUBMIT_STEP_CHECK, "%zu path%s exist%s (test -e), "
	    "image file %s %s", x->paths.n, x->paths.n == 1 ? "" : "s",
	    x->paths.n == 1 ? "s" : "", x->image_file, x->ck.image_exists ?
	    "present" : "absent");
	if (x->img.kind == IMAGE_REGISTRY && x->img.registry != NULL &&
	    strcmp(x->img.registry, "nvcr.io") == 0 && !x->ck.creds)
		submit_say(x, SUBMIT_STEP_CHECK, "warning: no enroot "
		    "credentials for nvcr.io on the cluster; a private image "
		    "needs 'sqdeck creds install'");
}

/* The registry whose enroot credentials the check looks for. */
const char *
submit_check_registry(struct submit_ctx *x)
{
	if (x->img.kind != IMAGE_REGISTRY)
		return NULL;
	return x->img.registry ? x->img.registry : "registry-1.docker.io";
}

/*
 * What the check tests, known locally: the paths (datasets resolved, mount
 * sources) and the image file (a .sqsh, or the cache file of a registry
 * image), which the sbatch script names.
 */
int
submit_step_where(struct submit_ctx *x, char **cause)
{
	char	*cache_dir;

	if (x->image_file != NULL)
		return SUBMIT_NEXT;
	if (submit_paths(x, &x->paths, &x->what, cause) != 0)
		return -1;
	if (x->img.kind == IMAGE_SQSH)
		x->image_file = xstrdup(x->img.path);
	else {
		cache_dir = submit_cache_dir(x);
		x->image_file = image_cache_path(&x->img, cache_dir);
		free(cache_dir);
	}
	if (x->res->image_sqsh == NULL)
		x->res->image_sqsh = xstrdup(x->image_file);
	/* Until the round trip says otherwise (submit-launch.c). */
	x->res->image_action = x->img.kind == IMAGE_SQSH ? SUBMIT_IMAGE_SQSH :
	    SUBMIT_IMAGE_CACHED;
	return SUBMIT_NEXT;
}

/* 2. A dry run's round trip: every path and the image (sqdeck(1): submit). */
int
submit_step_check(struct submit_ctx *x, char **cause)
{
	struct conn_result	 cres;
	char			*script, *why = NULL;

	if (submit_step_where(x, cause) != SUBMIT_NEXT)
		return -1;
	script = submit_check_script((const char *const *)x->paths.v,
	    x->paths.n, x->image_file, submit_check_registry(x));
	if (submit_xremote(x, script, 0, &cres, &why) != 0) {
		free(script);
		submit_fail(x, SUBMIT_STEP_CHECK, cause, "checking paths: %s",
		    why);
		free(why);
		return -1;
	}
	free(script);
	submit_check_free(&x->ck);
	if (submit_check_parse(cres.out, x->paths.n, &x->ck, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_CHECK, cause, "%s (exit %d%s%.200s)",
		    why, cres.status, cres.errlen ? ", stderr: " : "", cres.err);
		free(why);
		conn_result_free(&cres);
		return -1;
	}
	conn_result_free(&cres);
	if (submit_check_missing(x, cause) != 0)
		return -1;
	submit_check_say(x);
	return SUBMIT_NEXT;
}
