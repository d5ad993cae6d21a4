/*
 * Submit step secrets (README: secrets): the spec's secret NAMES, values from
 * the local environment (a missing one stops the submit), the sidecar the
 * job sources, and its removal when the job will not run.
 */
#include "submit-int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "state.h"

static int
submit_identifier(const char *s)
{
	if (s == NULL || (!isalpha((unsigned char)*s) && *s != '_'))
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	}
	return 1;
}

int
submit_sidecar(const struct lint_secret *sec, size_t n, char **out,
    char **cause)
{
	struct buf	b;
	size_t		i;

	*out = NULL;
	buf_init(&b);
	buf_adds(&b, "# sqdeck secrets: sourced by the job, then wiped\n");
	for (i = 0; i < n; i++) {
		if (!submit_identifier(sec[i].name)) {
			buf_free(&b);
			return cause_set(cause, "secret name \"%s\" is not a "
			    "shell variable name", sec[i].name);
		}
		buf_printf(&b, "%s=", sec[i].name);
		buf_add_quoted(&b, sec[i].value);
		buf_adds(&b, "\n");
	}
	*out = buf_steal(&b);
	return 0;
}


static const char *
submit_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* Values of the spec's secrets; a missing one stops here. */
int
submit_step_values(struct submit_ctx *x, char **cause)
{
	const char	*(*get)(const char *, void *);
	const char	*v;
	struct buf	 missing;
	size_t		 i;

	get = x->o->secret != NULL ? x->o->secret : submit_getenv;
	x->nsec = x->sp->secrets.n;
	x->sec = xcalloc(x->nsec + 1, sizeof *x->sec);
	buf_init(&missing);
	for (i = 0; i < x->nsec; i++) {
		x->sec[i].name = x->sp->secrets.v[i];
		v = get(x->sp->secrets.v[i], x->o->arg);
		if (v == NULL || *v == '\0') {
			buf_printf(&missing, "%s%s", missing.len ? ", " : "",
			    x->sp->secrets.v[i]);
			v = "";
		}
		x->sec[i].value = v;
		strv_add(&x->res->secrets, x->sp->secrets.v[i]);
	}
	if (missing.len != 0 && x->o->dry_run) {
		/* A dry run shows the script; values are only linted. */
		submit_say(x, SUBMIT_STEP_SECRETS, "warning: not set here: %s "
		    "(a real submit stops on this)", missing.data);
	} else if (missing.len != 0) {
		submit_fail(x, SUBMIT_STEP_SECRETS, cause, "secret%s %s %s "
		    "listed in the spec but not set in this environment: "
		    "export %s before submitting (values are read here and "
		    "sent only over SSH stdin)", strchr(missing.data, ',') ?
		    "s" : "", missing.data, strchr(missing.data, ',') ? "are" :
		    "is", strchr(missing.data, ',') ? "them" : "it");
		buf_free(&missing);
		return -1;
	}
	buf_free(&missing);
	return 0;
}

/* 4. Secrets: names only on the screen (README: secrets). */
int
submit_step_secrets(struct submit_ctx *x, char **cause)
{
	struct buf	b;
	size_t		i;

	(void)cause;
	if (x->nsec == 0) {
		submit_say(x, SUBMIT_STEP_SECRETS, "none");
		return SUBMIT_NEXT;
	}
	buf_init(&b);
	for (i = 0; i < x->nsec; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", x->sec[i].name);
	submit_say(x, SUBMIT_STEP_SECRETS, "%s from the local environment -> "
	    "%s (mode 600, %s)", b.data, x->lay.env_path, x->sp->array != NULL ?
	    "read by every task, wiped by the cleanup job after the last" :
	    "sourced then wiped by the job");
	buf_free(&b);
	return SUBMIT_NEXT;
}

/*
 * Remove a sidecar; 0 once it is known to be gone.  rm -f can be repeated,
 * so a dropped connection gets one more try (on a new one).
 */
int
submit_rm_sidecar(struct submit_faults *f, struct conn *c, const char *path)
{
	struct conn_result	 res;
	struct buf		 b;
	int			 rc = -1, try;

	buf_init(&b);
	rsh_var(&b, "f", path);
	rsh_embed(&b, "wipe.sh");
	for (try = 0; try < 2 && rc != 0; try++) {
		if (submit_remote(f, "wipe", c, b.data, 0, &res, NULL) != 0)
			continue;
		if (strstr(res.out, "sqdeck-wiped=ok") != NULL)
			rc = 0;
		conn_result_free(&res);
	}
	buf_free(&b);
	return rc;
}

/*
 * The sidecar of a job that will not run must not stay behind.  Returns
 * -1 when it may still be there: the record keeps "submit:unwiped" and
 * the next submit's recover removes it.
 */
int
submit_wipe(struct submit_ctx *x)
{
	char	*text, *why = NULL;

	if (x->nsec == 0 || x->lay.env_path == NULL || x->res->slurm_id ||
	    x->unresolved != NULL)
		return 0;
	if (submit_rm_sidecar(&x->faults, x->s->conn, x->lay.env_path) != 0)
		return -1;
	if (x->record_open) {
		text = xasprintf("secrets file %s removed", x->lay.env_path);
		if (record_transition(x->record_id, RSTATE_ERROR, "", "submit",
		    text, &why) != 0) {
			free(why);
			free(text);
			return -1;
		}
		free(text);
	}
	return 0;
}

/* --- interrupted submits (see submit.h) ------------------------------------
   */

