#ifndef SSHCERT_H
#define SSHCERT_H

#include <stdint.h>
#include <time.h>

/*
 * What sqdeck reads of an OpenSSH certificate (the "-cert.pub" file a
 * site's tool hands out: sshproxy, step ssh, a portal): its key id and
 * validity, so an expired or not-yet-valid certificate is named as such
 * instead of a login the server merely refuses.  The layout is OpenSSH's
 * PROTOCOL.certkeys; libssh 0.10 loads the certificate but says nothing
 * of its validity.  Pure: no I/O.
 */
struct sshcert {
	char		*type;		/* ssh-ed25519-cert-v01@openssh.com */
	char		*key_id;
	uint64_t	 valid_after;	/* seconds since the epoch */
	uint64_t	 valid_before;	/* SSHCERT_FOREVER: no end */
	unsigned char	*keyfields;	/* the public key's own fields */
	size_t		 nkeyfields;
};
#define SSHCERT_FOREVER UINT64_MAX

/* Parse the text of a -cert.pub file (TYPE BASE64 [COMMENT]). */
int	 sshcert_parse(const char *text, struct sshcert *, char **cause);
void	 sshcert_free(struct sshcert *);
/*
 * Does the certificate certify this public key (base64 of its blob, as
 * ssh_pki_export_pubkey_base64 gives it)?  1 yes, 0 no.
 */
int	 sshcert_matches(const struct sshcert *, const char *pub_b64);
/* -1 not valid yet, 0 valid at now, 1 expired. */
int	 sshcert_when(const struct sshcert *, time_t now);
/* "2026-12-01 10:00 UTC" (or "forever") into buf. */
void	 sshcert_time(uint64_t, char *buf, size_t len);

#endif
