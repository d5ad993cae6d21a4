/*
 * Submit step image (sqdeck(1): IMAGES AND STORAGE): a .sqsh is validated; a
 * registry image is converted once with enroot import inside srun on the CPU
 * partition, under flock, into a temp name, validated and renamed into the
 * cache (never a registry URI to --container-image).
 */
#include "submit-int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creds.h"
#include "enc.h"
#include "slurm.h"

/*
 * The allocation outlives the timeout a little (timeout kills srun), and
 * is never below SUBMIT_IMPORT_MINUTES: a big image takes that long to
 * pull and squash.  A partition MaxTime below it caps it (more would be
 * refused).  The client's limit follows the reservation: without one
 * asked for, the import may use all of it but the margin, and never more
 * than a capped reservation allows.
 */
void
submit_import_limits(int asked, int max_minutes, int *timeout, int *minutes)
{
	int	t = asked > 0 ? asked : SUBMIT_IMPORT_MINUTES * 60 -
	    SUBMIT_IMPORT_MARGIN;
	int	m = (t + SUBMIT_IMPORT_MARGIN + 59) / 60;

	if (m < SUBMIT_IMPORT_MINUTES)
		m = SUBMIT_IMPORT_MINUTES;
	if (max_minutes > 0 && m > max_minutes)
		m = max_minutes;
	if (t > m * 60 - SUBMIT_IMPORT_MARGIN && m * 60 > 2 *
	    SUBMIT_IMPORT_MARGIN)
		t = m * 60 - SUBMIT_IMPORT_MARGIN;
	*timeout = t;
	*minutes = m;
}

char *
submit_convert_script(const struct submit_convert_args *a)
{
	struct buf	b;
	char		num[32];
	int		minutes, timeout;

	submit_import_limits(a->timeout, a->max_minutes, &timeout, &minutes);
	buf_init(&b);
	rsh_var(&b, "mreg", a->digest_registry);
	rsh_var(&b, "mrepo", a->digest_repo);
	rsh_var(&b, "mref", a->digest_ref);
	rsh_var(&b, "pin", a->pinned);
	rsh_var(&b, "cache", a->cache_dir);
	rsh_var(&b, "name", a->cache_name);
	rsh_var(&b, "uri", a->uri);
	rsh_var(&b, "part", a->partition);
	rsh_var(&b, "acct", a->account);
	rsh_var(&b, "job", a->job_name);
	snprintf(num, sizeof num, "%d", timeout);
	rsh_var(&b, "tmo", num);
	snprintf(num, sizeof num, "%d", minutes);
	rsh_var(&b, "mins", num);
	rsh_var(&b, "force", a->force ? "1" : "0");
	rsh_embed(&b, "lib-report.sh");
	rsh_embed(&b, "lib-sqsh-ok.sh");
	rsh_embed(&b, "lib-cstat.sh");
	rsh_embed(&b, "lib-mdig.sh");
	rsh_embed(&b, "convert.sh");
	return buf_steal(&b);
}

void
submit_convert_parse(const char *out, struct submit_convert_result *r)
{
	char			*copy, *line, *next, *v, hex[512];
	unsigned long long	 size;
	struct buf		 output, detail, qos;

	memset(r, 0, sizeof *r);
	image_cache_stat_init(&r->cache);
	r->rc = -1;
	buf_init(&output);
	buf_init(&detail);
	buf_init(&qos);
	copy = xstrdup(out != NULL ? out : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!str_has_prefix(line, "sqdeck-")) {
			if (*line != '\0')
				submit_addline(&output, line);
			continue;
		}
		v = strchr(line, '=');
		if (v == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-convert") == 0) {
			if (strcmp(v, "cached") == 0)
				r->verdict = SUBMIT_CONVERT_CACHED;
			else if (strcmp(v, "converted") == 0)
				r->verdict = SUBMIT_CONVERT_CONVERTED;
			else if (strcmp(v, "failed") == 0)
				r->verdict = SUBMIT_CONVERT_FAILED;
			else if (strcmp(v, "timeout") == 0)
				r->verdict = SUBMIT_CONVERT_TIMEOUT;
			else if (strcmp(v, "invalid") == 0)
				r->verdict = SUBMIT_CONVERT_INVALID;
			else if (strcmp(v, "lock") == 0)
				r->verdict = SUBMIT_CONVERT_LOCK;
			else if (strcmp(v, "qos") == 0)
				r->verdict = SUBMIT_CONVERT_QOS;
			else
				r->verdict = SUBMIT_CONVERT_ERROR;
		} else if (strcmp(line, "sqdeck-rc") == 0)
			r->rc = atoi(v);
		else if (strcmp(line, "sqdeck-detail") == 0)
			submit_addline(&detail, v);
		else if (strcmp(line, "sqdeck-cache") == 0)
			image_cache_stat_line(&r->cache, v);
		else if (strcmp(line, "sqdeck-qos") == 0) {
			/* One reason per refusal: "A", or "A, then B". */
			if (qos.len == 0)
				buf_adds(&qos, v);
			else if (strcmp(qos.data + (qos.len > strlen(v) ?
			    qos.len - strlen(v) : 0), v) != 0) {
				buf_adds(&qos, ", then ");
				buf_adds(&qos, v);
			}
		}
		else if (strcmp(line, "sqdeck-file") == 0) {
			hex[0] = '\0';
			if (sscanf(v, "%llu %511s", &size, hex) >= 1) {
				r->size = size;
				r->headlen = enc_unhex(hex, r->head,
				    sizeof r->head);
			}
		}
	}
	free(copy);
	r->output = submit_lines(&output);
	r->detail = submit_lines(&detail);
	r->qos = submit_lines(&qos);
}

void
submit_convert_free(struct submit_convert_result *r)
{
	free(r->output);
	free(r->detail);
	free(r->qos);
	memset(r, 0, sizeof *r);
}


char *
submit_cache_dir(struct submit_ctx *x)
{
	if (x->s->cl->image_cache != NULL)
		return xstrdup(x->s->cl->image_cache);
	return xasprintf("%s/.sqsh", x->results_root);
}

/*
 * Explain enroot's credential failures (sqdeck(1): creds).  Enroot prints no
 * error of its own when the registry refuses it: its last words are who it
 * authenticated as.  Returns a hint to free, or NULL.
 */
static char *
submit_enroot_hint(const struct image_ref *img, const char *output)
{
	const char	*reg, *u;
	char		*machine, *user, *hint;
	int		 ngc;

	if (output == NULL)
		return NULL;
	reg = img->registry != NULL ? img->registry : "registry-1.docker.io";
	machine = creds_machine(reg, NULL);
	if (machine == NULL)
		machine = xstrdup(reg);
	ngc = strcmp(machine, "nvcr.io") == 0;
	if (strstr(output, "<anonymous>") != NULL) {
		hint = xasprintf("\nhint: enroot has no credentials for %s on "
		    "the cluster and pulled as <anonymous>, which the registry "
		    "refused: run %s and submit again", machine, ngc ?
		    "'sqdeck creds install' (reads NGC_KEY)" :
		    "'sqdeck creds install --registry HOST --login USER' "
		    "(reads SQDECK_REGISTRY_PASSWORD)");
	} else if (strstr(output, "Could not process JSON input") != NULL) {
		hint = xasprintf("\nhint: the registry refused the pull: enroot "
		    "has no valid credentials for %s on the cluster; run %s and "
		    "submit again", machine, ngc ? "'sqdeck creds install' "
		    "(reads NGC_KEY)" : "'sqdeck creds install --registry "
		    "HOST --login USER'");
	} else if ((u = strstr(output, "Authenticating with user: ")) != NULL &&
	    strstr(u, "[ERROR]") == NULL) {
		u += strlen("Authenticating with user: ");
		user = xstrndup(u, strcspn(u, "\r\n"));
		hint = xasprintf("\nhint: the registry %s refused the credentials "
		    "of user %s from ~/.config/enroot/.credentials: the password "
		    "is wrong, or %s may not read this repository; install the "
		    "right ones with 'sqdeck creds install%s'", machine, user,
		    user, ngc ? "" : " --registry HOST --login USER");
		free(user);
	} else if (strstr(output, "401") != NULL ||
	    strstr(output, "Unauthorized") != NULL) {
		hint = xasprintf("\nhint: the registry answered 401: check the "
		    "credentials for %s ('sqdeck creds install')", machine);
	} else
		hint = NULL;
	free(machine);
	return hint;
}

static int
submit_convert(struct submit_ctx *x, const char *cache_dir,
    const char *cache_name, const char *cache_path, int force, char **cause)
{
	struct submit_convert_args	 a;
	struct submit_convert_result	 cr;
	struct conn_result		 res;
	const char			*cpu, *env;
	char				*script, *uri, *why = NULL, *job, *repo;
	char				*hint;
	int				 timeout, minutes, rc = -1;

	cpu = x->s->cl->cpu_partition != NULL ? x->s->cl->cpu_partition :
	    "cpu";
	if ((preflight_find(&x->s->pf, cpu) == NULL ||
	    !preflight_find(&x->s->pf, cpu)->exists) &&
	    submit_preflight_refresh(x->s, &why) != 0) {
		rc = submit_fail(x, SUBMIT_STEP_IMAGE, cause, "%s", why);
		free(why);
		return rc;
	}
	if (preflight_find(&x->s->pf, cpu) == NULL ||
	    !preflight_find(&x->s->pf, cpu)->exists) {
		return submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image %s "
		    "must be converted to .sqsh on a CPU partition, but "
		    "partition %s does not exist: set cpu_partition in "
		    "clusters.yaml, or convert it yourself and give the .sqsh "
		    "path", x->res->image, cpu);
	}
	timeout = x->o->import_timeout;
	if (timeout <= 0 && (env = getenv("SQDECK_IMPORT_TIMEOUT")) != NULL)
		timeout = atoi(env);
	uri = image_pyxis(&x->img);
	job = xasprintf("%s-import", x->res->job_name);
	free(x->res->import_job);
	x->res->import_job = xstrdup(job);
	memset(&a, 0, sizeof a);
	a.cache_dir = cache_dir;
	a.cache_name = cache_name;
	a.uri = uri;
	a.partition = cpu;
	a.account = x->plan.account;
	a.job_name = job;
	a.timeout = timeout;
	a.force = force;
	a.digest_registry = x->img.registry != NULL ? x->img.registry :
	    "registry-1.docker.io";
	repo = strchr(x->img.repository, '/') == NULL && x->img.registry ==
	    NULL ? xasprintf("library/%s", x->img.repository) :
	    xstrdup(x->img.repository);
	a.digest_repo = repo;
	a.digest_ref = x->img.digest != NULL ? x->img.digest :
	    x->img.tag != NULL ? x->img.tag : "latest";
	a.pinned = x->img.digest;
	if (slurm_maxtime_minutes(preflight_find(&x->s->pf, cpu)->max_time,
	    &a.max_minutes, NULL) != 0)
		a.max_minutes = -1;
	/* The script's limits: the one said and waited for is the same. */
	submit_import_limits(timeout, a.max_minutes, &timeout, &minutes);
	a.timeout = timeout;
	submit_say(x, SUBMIT_STEP_IMAGE, "converting %s: srun -p %s -J %s "
	    "--time=%d enroot import (timeout %d s, under a lock in %s)",
	    x->res->image, cpu, job, minutes, timeout, cache_dir);
	script = submit_convert_script(&a);
	free(uri);
	free(job);
	free(repo);
	/* Waiting for the lock can take one import, the import another. */
	if (submit_xremote(x, script, 2 * timeout + 180, &res, &why) != 0) {
		free(script);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converting %s: %s "
		    "(nothing was submitted)", x->res->image, why);
		free(why);
		return -1;
	}
	free(script);
	submit_convert_parse(res.out, &cr);
	switch (cr.verdict) {
	case SUBMIT_CONVERT_CACHED:
	case SUBMIT_CONVERT_CONVERTED:
		if (image_sqsh_check(cr.head, cr.headlen, cr.size, cache_path,
		    &why) != 0 || image_cache_trust(&cr.cache,
		    &x->s->cl->image_cache_owners, x->img.digest, cache_path,
		    &why) != 0) {
			submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converted "
			    "image refused: %s", why);
			free(why);
			goto out;
		}
		x->res->image_action = cr.verdict == SUBMIT_CONVERT_CACHED ?
		    SUBMIT_IMAGE_CACHED : SUBMIT_IMAGE_CONVERTED;
		if (cr.qos != NULL)
			submit_say(x, SUBMIT_STEP_IMAGE, "the QOS refused "
			    "--mem=7200M (%s): converted with partition %s's "
			    "default memory", cr.qos, cpu);
		submit_say(x, SUBMIT_STEP_IMAGE, "%s %s (%" PRIu64 " bytes, "
		    "squashfs 4.0)", cr.verdict == SUBMIT_CONVERT_CACHED ?
		    "another submit converted it meanwhile: reusing" :
		    "converted once into", cache_path, cr.size);
		rc = 0;
		break;
	case SUBMIT_CONVERT_FAILED:
		hint = submit_enroot_hint(&x->img, cr.output);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "failed (exit %d); nothing was submitted. enroot said:\n"
		    "%s%s", x->res->image, cr.rc, cr.output != NULL ?
		    cr.output : "(no output)", hint != NULL ? hint : "");
		free(hint);
		break;
	case SUBMIT_CONVERT_TIMEOUT:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "did not finish in %d s and was killed; nothing was "
		    "submitted (raise SQDECK_IMPORT_TIMEOUT for a big "
		    "image). enroot said:\n%s", x->res->image, timeout,
		    cr.output != NULL ? cr.output : "(no output)");
		break;
	case SUBMIT_CONVERT_INVALID:
		image_sqsh_check(cr.head, cr.headlen, cr.size, "the result",
		    &why);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "exited 0 but wrote an invalid image (%s); it was deleted "
		    "and nothing was submitted. enroot said:\n%s",
		    x->res->image, why != NULL ? why : "no squashfs header",
		    cr.output != NULL ? cr.output : "(no output)");
		free(why);
		break;
	case SUBMIT_CONVERT_QOS:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "the import job for "
		    "%s was refused by a QOS memory limit, with --mem=7200M and "
		    "again with partition %s's default memory (%s); nothing "
		    "was submitted: ask for a QOS that allows 7200M on %s, or "
		    "set cpu_partition in clusters.yaml to a partition that "
		    "does. srun said:\n%s", x->res->image, cpu, cr.qos, cpu,
		    cr.output != NULL ? cr.output : "(no output)");
		break;
	case SUBMIT_CONVERT_LOCK:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "another conversion "
		    "of %s held the lock in %s for too long; try again later",
		    x->res->image, cache_dir);
		break;
	case SUBMIT_CONVERT_ERROR:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converting %s on "
		    "the cluster failed: %s (exit %d%s%.300s)", x->res->image,
		    cr.detail != NULL ? cr.detail : "the script stopped",
		    res.status, res.errlen ? ", stderr: " : "", res.err);
		break;
	}
out:
	submit_convert_free(&cr);
	conn_result_free(&res);
	return rc;
}

/* 3. Image (sqdeck(1): IMAGES AND STORAGE). */
/*
 * The image lines of a check that passed image_sqsh_check and
 * image_cache_trust, kept locally so that the next submit's gate
 * (submit.sh) compares them and the submit takes one round trip.  Keyed
 * by everything the verdict depends on besides the lines themselves.
 */
static char *
submit_imgok_path(struct submit_ctx *x)
{
	struct buf	 k;
	char		*dir, *path, hex[65];
	size_t		 i;

	buf_init(&k);
	buf_printf(&k, "%s%c%s%c%d%c%s", x->s->cl->name, 0, x->image_file, 0,
	    (int)x->img.kind, 0, x->img.digest != NULL ? x->img.digest : "");
	for (i = 0; i < x->s->cl->image_cache_owners.n; i++)
		buf_printf(&k, "%c%s", 0, x->s->cl->image_cache_owners.v[i]);
	enc_sha256_hex(k.data, k.len, hex);
	buf_free(&k);
	dir = path_state_dir();
	path = xasprintf("%s/imgok/%s", dir, hex);
	free(dir);
	return path;
}

char *
submit_imgok_load(struct submit_ctx *x)
{
	char	*path, *text = NULL;
	size_t	 len;

	if (x->sp->force_reconvert)
		return NULL;
	path = submit_imgok_path(x);
	if (file_read_max(path, 64 * 1024, &text, &len, NULL) != 0)
		text = NULL;
	free(path);
	return text;
}

void
submit_imgok_save(struct submit_ctx *x, const char *text)
{
	char	*path, *dir, *slash;

	path = submit_imgok_path(x);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	/* Only a speed-up: a failure costs the next submit a round trip. */
	if (mkdir_p(dir, 0700, NULL) == 0)
		file_write_atomic(path, text, strlen(text), 0600, NULL);
	free(dir);
	free(path);
}

/* The image and cache lines of a check's answer, as check.sh's imgtxt. */
char *
submit_imgok_text(const char *out)
{
	struct buf	 b;
	const char	*line, *next;
	size_t		 n;

	buf_init(&b);
	for (line = out; line != NULL && *line != '\0'; line = next) {
		n = strcspn(line, "\n");
		next = line[n] == '\n' ? line + n + 1 : NULL;
		if (strncmp(line, "end", n) == 0 && n == 3)
			break;
		if (str_has_prefix(line, "image ") ||
		    str_has_prefix(line, "cache ")) {
			if (b.len != 0)
				buf_adds(&b, "\n");
			buf_add(&b, line, n);
		}
	}
	if (b.len == 0)
		buf_adds(&b, "");
	return buf_steal(&b);
}

int
submit_step_image(struct submit_ctx *x, char **cause)
{
	const struct submit_check	*ck = &x->ck;
	const char			*image_file = x->image_file;
	char				*why = NULL, *dir, *name;
	int				 force, rc;

	free(x->res->image_sqsh);
	if (x->img.kind == IMAGE_SQSH) {
		x->res->image_sqsh = xstrdup(x->img.path);
		x->res->image_action = SUBMIT_IMAGE_SQSH;
		if (!ck->image_exists) {
			return submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image "
			    "%s does not exist on the cluster (or is not "
			    "readable): fix 'image:' in the spec",
			    x->img.path);
		}
		if (image_sqsh_check(ck->head, ck->headlen, ck->image_size,
		    x->img.path, &why) != 0) {
			submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image refused: "
			    "%s", why);
			free(why);
			return -1;
		}
		submit_say(x, SUBMIT_STEP_IMAGE, "%s: squashfs 4.0, %" PRIu64
		    " bytes", x->img.path, ck->image_size);
		return 0;
	}

	x->res->image_sqsh = xstrdup(image_file);
	force = x->sp->force_reconvert;
	if (ck->image_exists && !force) {
		if (image_sqsh_check(ck->head, ck->headlen, ck->image_size,
		    image_file, &why) == 0 && image_cache_trust(&ck->cache,
		    &x->s->cl->image_cache_owners, x->img.digest, image_file,
		    &why) == 0) {
			x->res->image_action = SUBMIT_IMAGE_CACHED;
			submit_say(x, SUBMIT_STEP_IMAGE, "%s: reusing the "
			    "cached %s (%" PRIu64 " bytes, squashfs 4.0)%s",
			    x->res->image, image_file, ck->image_size,
			    x->img.latest ? "; :latest is not re-pulled "
			    "unless force_reconvert is set" : "");
			return 0;
		}
		/* A bad cache file is replaced, not used. */
		submit_say(x, SUBMIT_STEP_IMAGE, "cached file refused (%s): "
		    "converting again", why);
		free(why);
		force = 1;
	}
	if (x->o->dry_run) {
		x->res->image_action = SUBMIT_IMAGE_WOULD_CONVERT;
		submit_say(x, SUBMIT_STEP_IMAGE, "%s is not converted yet: a "
		    "submit would convert it once into %s (dry run: not now)",
		    x->res->image, image_file);
		return 0;
	}
	dir = submit_cache_dir(x);
	name = image_cache_name(&x->img);
	rc = submit_convert(x, dir, name, image_file, force, cause);
	free(name);
	free(dir);
	return rc;
}
