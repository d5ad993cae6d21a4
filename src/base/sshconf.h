#ifndef SSHCONF_H
#define SSHCONF_H

#include <stddef.h>

/*
 * Reading OpenSSH's client config (ssh_config(5)) for one Host alias:
 * the few keywords sqdeck acts on itself (libssh 0.10 turns ProxyJump
 * into a local ssh(1) and ignores CertificateFile).  As ssh does, the
 * first value found for a keyword wins; Host lines with patterns (*, ?,
 * !negated), "Match all" and Include (globs, relative to ~/.ssh or
 * /etc/ssh) are followed; other Match criteria never match.  Each value
 * keeps where it came from (file:line) for -v.
 */

enum {
	SSHCONF_HOSTNAME,
	SSHCONF_USER,
	SSHCONF_PORT,
	SSHCONF_IDENTITYFILE,
	SSHCONF_PROXYJUMP,
	SSHCONF_PROXYCOMMAND,
	SSHCONF_CERTIFICATEFILE,
	SSHCONF_N
};

struct sshconf_val {
	char	*value;		/* NULL: not set */
	char	*where;		/* "file:line" */
};

struct sshconf {
	struct sshconf_val	v[SSHCONF_N];
};

/* The keyword's name as ssh_config spells it ("HostName"). */
const char	*sshconf_keyword(int);

/*
 * Resolve alias through the files (NULL-terminated; a missing file is
 * skipped, an unreadable one is an error), home for ~ and %d.  Values
 * are expanded: ~, %d, %h (HostName, else alias), %r (User), %%.
 * Returns 0, or -1 and a cause (Include nested too deep, a file that
 * cannot be read).
 */
int		 sshconf_resolve(const char *const *files, const char *alias,
		     const char *home, struct sshconf *, char **cause);
void		 sshconf_free(struct sshconf *);

/* fnmatch-like for ssh's patterns: * and ? only. */
int		 sshconf_match(const char *pattern, const char *s);

/* One hop of a jump list: "[user@]host[:port]" or "ssh://...". */
struct sshconf_hop {
	char	*user;		/* NULL: not given */
	char	*host;
	int	 port;		/* 0: not given */
};
/*
 * Split a ProxyJump / jump: value on commas into hops.  Returns the
 * number of hops (0 for "none"), or -1 and a cause for a malformed hop.
 */
int		 sshconf_hops(const char *s, struct sshconf_hop **, char **cause);
void		 sshconf_hops_free(struct sshconf_hop *, int n);

#endif
