#ifndef CREDS_H
#define CREDS_H

#include "conn.h"

/*
 * Registry credentials for Enroot on the cluster (sqdeck(1): creds), for the
 * creds verb (cli-creds.c); submit reads the machine name for its hints.
 */
struct creds {
	char	*path;		/* the credentials file on the cluster */
	int	 kept;		/* lines for other machines kept */
	char	*machines;	/* the machines written, space-separated */
	char	*login;
};
/*
 * Install a registry password in Enroot's netrc: one round trip
 * (templates/remote/creds.sh), the key only on stdin, umask 077, other
 * machines' lines kept.  registry NULL: the NGC key for nvcr.io and
 * authn.nvidia.com, login $oauthtoken; otherwise "HOST[:PORT]" (the line
 * names HOST: Enroot's curl matches the host without the port) with login
 * (required).
 */
int	 creds_install(struct conn *, const char *registry, const char *login,
	     const char *key, struct creds *, char **cause);
/* The netrc machine of a registry: "host:5000" -> "host"; NULL if bad. */
char	*creds_machine(const char *registry, char **cause);
void	 creds_free(struct creds *);

#endif
