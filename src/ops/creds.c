/*
 * Enroot registry credentials on the cluster (sqdeck(1): creds), see creds.h.
 */
#include "creds.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rsh.h"
#include "util.h"

char *
creds_machine(const char *registry, char **cause)
{
	const char	*p, *colon;
	size_t		 n;

	if (registry == NULL || *registry == '\0') {
		cause_set(cause, "the registry is empty: give HOST or "
		    "HOST:PORT, e.g. nvcr.io or 10.0.0.1:5000");
		return NULL;
	}
	colon = strchr(registry, ':');
	n = colon != NULL ? (size_t)(colon - registry) : strlen(registry);
	for (p = registry; p < registry + n; p++) {
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			break;
	}
	if (n == 0 || p != registry + n || *registry == '-' ||
	    *registry == '.') {
		cause_set(cause, "registry '%s': the host may hold only "
		    "letters, digits, '.' and '-': give HOST or HOST:PORT, "
		    "without a scheme or a path", registry);
		return NULL;
	}
	if (colon != NULL) {
		for (p = colon + 1; isdigit((unsigned char)*p); p++)
			;
		if (p == colon + 1 || *p != '\0' || p - colon > 6) {
			cause_set(cause, "registry '%s': the port must be a "
			    "number: give HOST or HOST:PORT", registry);
			return NULL;
		}
	}
	return xstrndup(registry, n);
}

/* Login and key become netrc fields: no blanks, nothing enroot evaluates. */
static int
creds_word(const char *what, const char *v, char **cause)
{
	const char	*p;

	if (v == NULL || *v == '\0')
		return cause_set(cause, "the %s is empty", what);
	for (p = v; *p != '\0'; p++) {
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return cause_set(cause, "the %s contains blanks or "
			    "control characters, which a netrc line cannot "
			    "hold: paste it alone", what);
	}
	return 0;
}

int
creds_install(struct conn *c, const char *registry, const char *login,
    const char *key, struct creds *cr, char **cause)
{
	struct conn_result	 res;
	struct buf		 b;
	char			*why = NULL, *line, *next, *v, *m;
	int			 ok = 0, rc = -1;

	memset(cr, 0, sizeof *cr);
	if (registry == NULL) {
		cr->machines = xstrdup("nvcr.io authn.nvidia.com");
		cr->login = xstrdup("$oauthtoken");
	} else {
		if ((m = creds_machine(registry, cause)) == NULL)
			return -1;
		cr->machines = m;
		if (login == NULL && strcmp(m, "nvcr.io") == 0)
			login = "$oauthtoken";
		if (login == NULL) {
			creds_free(cr);
			return cause_set(cause, "registry %s needs a login: "
			    "give --login USER", registry);
		}
		cr->login = xstrdup(login);
	}
	if (creds_word("login", cr->login, cause) != 0 ||
	    creds_word(registry == NULL ? "NGC key" : "password", key,
	    cause) != 0) {
		creds_free(cr);
		return -1;
	}
	/*
	 * Enroot runs a password that starts with '$' through the shell
	 * (it stands for a variable there): a literal one would be lost.
	 */
	if (*key == '$') {
		creds_free(cr);
		return cause_set(cause, "the %s starts with '$', which Enroot "
		    "would expand as a shell variable instead of sending it: "
		    "such a password cannot be stored in its credentials",
		    registry == NULL ? "NGC key" : "password");
	}
	buf_init(&b);
	rsh_var(&b, "key", key);
	rsh_var(&b, "login", cr->login);
	rsh_var(&b, "machines", cr->machines);
	rsh_embed(&b, "creds.sh");
	if (rsh_run(c, b.data, 0, &res, &why) != 0) {
		memset(b.data, 0, b.len);
		buf_free(&b);
		cause_set(cause, "installing enroot credentials: %s", why);
		free(why);
		creds_free(cr);
		return -1;
	}
	memset(b.data, 0, b.len);
	buf_free(&b);
	for (line = res.out; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-creds") == 0)
			ok = strcmp(v, "ok") == 0;
		else if (strcmp(line, "sqdeck-creds-path") == 0) {
			free(cr->path);
			cr->path = xstrdup(v);
		} else if (strcmp(line, "sqdeck-creds-kept") == 0)
			cr->kept = atoi(v);
		else if (strcmp(line, "sqdeck-creds-error") == 0) {
			cause_set(cause, "installing enroot credentials on the "
			    "cluster: %s", v);
			goto out;
		}
	}
	if (!ok) {
		cause_set(cause, "installing enroot credentials: the script "
		    "did not finish (exit %d%s%.200s)", res.status,
		    res.errlen ? ", stderr: " : "", res.err);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		creds_free(cr);
	conn_result_free(&res);
	return rc;
}

void
creds_free(struct creds *cr)
{
	free(cr->path);
	free(cr->machines);
	free(cr->login);
	memset(cr, 0, sizeof *cr);
}
