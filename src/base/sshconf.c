/*
 * OpenSSH client config, read for one alias (see sshconf.h).  Only what
 * sqdeck acts on itself; libssh still reads the rest (ciphers and such).
 */
#include "sshconf.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SSHCONF_DEPTH	16	/* as OpenSSH's READCONF_MAX_DEPTH */

static const char *const sshconf_names[SSHCONF_N] = {
	"HostName", "User", "Port", "IdentityFile", "ProxyJump",
	"ProxyCommand", "CertificateFile",
};

struct sc {
	const char	*alias;
	const char	*home;
	char		*base;		/* where relative Includes are */
	struct sshconf	*out;
};

const char *
sshconf_keyword(int k)
{
	return k >= 0 && k < SSHCONF_N ? sshconf_names[k] : "?";
}

int
sshconf_match(const char *p, const char *s)
{
	for (; *p != '\0'; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (p[1] == '\0')
				return 1;
			for (; *s != '\0'; s++) {
				if (sshconf_match(p + 1, s))
					return 1;
			}
			return 0;
		}
		if (*s == '\0')
			return 0;
		if (*p != '?' && tolower((unsigned char)*p) !=
		    tolower((unsigned char)*s))
			return 0;
	}
	return *s == '\0';
}

/* Next word of *sp (double quotes group), or NULL at the end. */
static char *
sshconf_word(char **sp)
{
	char	*s = *sp, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return NULL;
	if (*s == '"') {
		w = ++s;
		while (*s != '\0' && *s != '"')
			s++;
	} else {
		w = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
	}
	if (*s != '\0')
		*s++ = '\0';
	*sp = s;
	return w;
}

/* A Host line: any positive pattern matches and no negated one does. */
static int
sshconf_host_line(char *args, const char *alias)
{
	char	*w;
	int	 hit = 0;

	while ((w = sshconf_word(&args)) != NULL) {
		if (*w == '!') {
			if (sshconf_match(w + 1, alias))
				return 0;
		} else if (sshconf_match(w, alias))
			hit = 1;
	}
	return hit;
}

static char *
sshconf_tilde(const struct sc *st, const char *p)
{
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0'))
		return xasprintf("%s%s", st->home, p + 1);
	return xstrdup(p);
}

static int	sshconf_file(struct sc *, const char *, int, char **);

static int
sshconf_include(struct sc *st, char *args, int depth, char **cause)
{
	glob_t	 g;
	char	*w, *p, *abs;
	size_t	 i;
	int	 rc = 0;

	while (rc == 0 && (w = sshconf_word(&args)) != NULL) {
		p = sshconf_tilde(st, w);
		abs = *p == '/' ? xstrdup(p) : xasprintf("%s/%s", st->base, p);
		free(p);
		memset(&g, 0, sizeof g);
		if (glob(abs, 0, NULL, &g) == 0) {
			for (i = 0; rc == 0 && i < g.gl_pathc; i++)
				rc = sshconf_file(st, g.gl_pathv[i], depth + 1,
				    cause);
		}
		globfree(&g);
		free(abs);
	}
	return rc;
}

static int
sshconf_key(const char *kw)
{
	int	k;

	for (k = 0; k < SSHCONF_N; k++) {
		if (strcasecmp(kw, sshconf_names[k]) == 0)
			return k;
	}
	return -1;
}

/* One line: returns 0, or -1 and a cause; *active follows Host/Match. */
static int
sshconf_line(struct sc *st, const char *path, size_t lineno, char *s,
    int *active, int depth, char **cause)
{
	struct sshconf_val	*v;
	char			*kw, *w;
	int			 k;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0' || *s == '#')
		return 0;
	kw = s;
	while (*s != '\0' && !isspace((unsigned char)*s) && *s != '=')
		s++;
	if (*s != '\0') {
		*s++ = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '=')
			s++;
	}
	str_trim(s);
	if (strcasecmp(kw, "Host") == 0) {
		*active = sshconf_host_line(s, st->alias);
		return 0;
	}
	if (strcasecmp(kw, "Match") == 0) {
		w = sshconf_word(&s);
		*active = w != NULL && strcasecmp(w, "all") == 0 &&
		    sshconf_word(&s) == NULL;
		return 0;
	}
	if (!*active)
		return 0;
	if (strcasecmp(kw, "Include") == 0)
		return sshconf_include(st, s, depth, cause);
	if ((k = sshconf_key(kw)) < 0)
		return 0;
	v = &st->out->v[k];
	if (v->value != NULL)
		return 0;	/* the first value wins */
	if (k != SSHCONF_PROXYCOMMAND && (w = sshconf_word(&s)) != NULL)
		v->value = xstrdup(w);
	else if (k == SSHCONF_PROXYCOMMAND && *s != '\0')
		v->value = xstrdup(s);
	else
		return 0;
	v->where = xasprintf("%s:%zu", path, lineno);
	return 0;
}

static int
sshconf_file(struct sc *st, const char *path, int depth, char **cause)
{
	FILE	*f;
	char	*line = NULL;
	size_t	 cap = 0, lineno = 0;
	int	 active = 1, rc = 0;

	if (depth > SSHCONF_DEPTH)
		return cause_set(cause, "%s: Include nested more than %d deep",
		    path, SSHCONF_DEPTH);
	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && depth == 0)
			return 0;
		return cause_set(cause, "cannot read ssh config %s: %s", path,
		    strerror(errno));
	}
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		rc = sshconf_line(st, path, lineno, line, &active, depth,
		    cause);
	}
	free(line);
	fclose(f);
	return rc;
}

/* ~, %d, %h, %r and %% in a path or name. */
static char *
sshconf_expand(const struct sc *st, const char *s, const char *host,
    const char *user)
{
	struct buf	 b;
	char		*t;

	t = sshconf_tilde(st, s);
	buf_init(&b);
	for (s = t; *s != '\0'; s++) {
		if (*s != '%' || s[1] == '\0') {
			buf_add(&b, s, 1);
			continue;
		}
		s++;
		if (*s == 'd')
			buf_adds(&b, st->home);
		else if (*s == 'h')
			buf_adds(&b, host);
		else if (*s == 'r' && user != NULL)
			buf_adds(&b, user);
		else if (*s == '%')
			buf_adds(&b, "%");
		else
			buf_printf(&b, "%%%c", *s);
	}
	free(t);
	if (b.data == NULL)
		buf_adds(&b, "");
	return buf_steal(&b);
}

int
sshconf_resolve(const char *const *files, const char *alias, const char *home,
    struct sshconf *out, char **cause)
{
	struct sc	 st;
	const char	*host;
	char		*e, *slash;
	size_t		 i;
	int		 k;

	memset(out, 0, sizeof *out);
	st.alias = alias;
	st.home = home != NULL ? home : "";
	st.out = out;
	for (i = 0; files != NULL && files[i] != NULL; i++) {
		st.base = xstrdup(files[i]);
		if ((slash = strrchr(st.base, '/')) != NULL)
			*slash = '\0';
		else {
			free(st.base);
			st.base = xstrdup(".");
		}
		k = sshconf_file(&st, files[i], 0, cause);
		free(st.base);
		if (k != 0) {
			sshconf_free(out);
			return -1;
		}
	}
	if (out->v[SSHCONF_HOSTNAME].value != NULL) {
		e = sshconf_expand(&st, out->v[SSHCONF_HOSTNAME].value, alias,
		    NULL);
		free(out->v[SSHCONF_HOSTNAME].value);
		out->v[SSHCONF_HOSTNAME].value = e;
	}
	host = out->v[SSHCONF_HOSTNAME].value != NULL ?
	    out->v[SSHCONF_HOSTNAME].value : alias;
	for (k = SSHCONF_IDENTITYFILE; k < SSHCONF_N; k++) {
		if (k == SSHCONF_PROXYJUMP || k == SSHCONF_PROXYCOMMAND ||
		    out->v[k].value == NULL)
			continue;
		e = sshconf_expand(&st, out->v[k].value, host,
		    out->v[SSHCONF_USER].value);
		free(out->v[k].value);
		out->v[k].value = e;
	}
	return 0;
}

void
sshconf_free(struct sshconf *sc)
{
	int	k;

	for (k = 0; k < SSHCONF_N; k++) {
		free(sc->v[k].value);
		free(sc->v[k].where);
	}
	memset(sc, 0, sizeof *sc);
}

static int
sshconf_hop(struct sshconf_hop *h, char *s, char **cause)
{
	char	*at, *colon, *end, *ep;
	long	 p;

	memset(h, 0, sizeof *h);
	if (strncmp(s, "ssh://", 6) == 0)
		s += 6;
	if ((at = strrchr(s, '@')) != NULL) {
		*at = '\0';
		if (*s == '\0')
			return cause_set(cause, "jump host '@%s' has an empty "
			    "user", at + 1);
		h->user = xstrdup(s);
		s = at + 1;
	}
	colon = NULL;
	if (*s == '[' && (end = strchr(s, ']')) != NULL) {
		*end = '\0';
		h->host = xstrdup(s + 1);
		if (end[1] == ':')
			colon = end + 1;
		else if (end[1] != '\0')
			return cause_set(cause, "jump host '%s]%s' is not "
			    "[address]:port", s, end + 1);
	} else {
		if ((colon = strchr(s, ':')) != NULL)
			*colon = '\0';
		h->host = xstrdup(s);
	}
	if (*h->host == '\0' || h->host[0] == '-' ||
	    strpbrk(h->host, " \t/'\"\\$`") != NULL)
		return cause_set(cause, "jump host '%s' is not a host name",
		    h->host);
	if (colon != NULL) {
		p = strtol(colon + 1, &ep, 10);
		if (colon[1] == '\0' || *ep != '\0' || p < 1 || p > 65535)
			return cause_set(cause, "jump host %s: port '%s' is "
			    "not a number from 1 to 65535", h->host,
			    colon + 1);
		h->port = (int)p;
	}
	return 0;
}

int
sshconf_hops(const char *s, struct sshconf_hop **out, char **cause)
{
	struct strv	 parts = { NULL, 0 };
	struct sshconf_hop *h;
	size_t		 i;

	*out = NULL;
	strv_split(&parts, s, ',');
	if (parts.n == 0 || (parts.n == 1 &&
	    strcasecmp(parts.v[0], "none") == 0)) {
		strv_free(&parts);
		return 0;
	}
	h = xcalloc(parts.n, sizeof *h);
	for (i = 0; i < parts.n; i++) {
		if (sshconf_hop(&h[i], parts.v[i], cause) != 0) {
			sshconf_hops_free(h, (int)i + 1);
			strv_free(&parts);
			return -1;
		}
	}
	*out = h;
	i = parts.n;
	strv_free(&parts);
	return (int)i;
}

void
sshconf_hops_free(struct sshconf_hop *h, int n)
{
	int	i;

	if (h == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(h[i].user);
		free(h[i].host);
	}
	free(h);
}
