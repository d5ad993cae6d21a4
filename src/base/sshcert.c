#include "sshcert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc.h"
#include "util.h"

/* The length-prefixed key fields after the nonce, per certificate type. */
static const struct {
	const char	*type;
	int		 fields;
} certtypes[] = {
	{ "ssh-rsa-cert-v01@openssh.com", 2 },		/* e, n */
	{ "ssh-dss-cert-v01@openssh.com", 4 },		/* p, q, g, y */
	{ "ecdsa-sha2-nistp256-cert-v01@openssh.com", 2 }, /* curve, Q */
	{ "ecdsa-sha2-nistp384-cert-v01@openssh.com", 2 },
	{ "ecdsa-sha2-nistp521-cert-v01@openssh.com", 2 },
	{ "ssh-ed25519-cert-v01@openssh.com", 1 },	/* pk */
	{ "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", 3 }, /* + app */
	{ "sk-ssh-ed25519-cert-v01@openssh.com", 2 },
};

struct rd {
	const unsigned char	*p;
	size_t			 left;
};

static int
rd_u32(struct rd *r, uint32_t *v)
{
	if (r->left < 4)
		return -1;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
	    (uint32_t)r->p[2] << 8 | (uint32_t)r->p[3];
	r->p += 4;
	r->left -= 4;
	return 0;
}

static int
rd_u64(struct rd *r, uint64_t *v)
{
	uint32_t	hi, lo;

	if (rd_u32(r, &hi) != 0 || rd_u32(r, &lo) != 0)
		return -1;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

/* A string: its bytes and length (not copied). */
static int
rd_str(struct rd *r, const unsigned char **s, size_t *len)
{
	uint32_t	n;

	if (rd_u32(r, &n) != 0 || n > r->left)
		return -1;
	*s = r->p;
	*len = n;
	r->p += n;
	r->left -= n;
	return 0;
}

/* Base64 of a -cert.pub file into out; its length, or -1. */
static long
unbase64(const char *s, size_t n, unsigned char *out)
{
	uint32_t	acc = 0;
	size_t		i, o = 0;
	int		bits = 0, v, pad = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (pad != 0 || (v = enc_base64_value((unsigned char)s[i])) < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return pad > 2 ? -1 : (long)o;
}

int
sshcert_parse(const char *text, struct sshcert *c, char **cause)
{
	const unsigned char	*s;
	const char		*t, *b, *e;
	unsigned char		*blob;
	struct rd		 r;
	size_t			 len, i, tlen;
	uint64_t		 serial;
	uint32_t		 kind;
	long			 n;
	int			 k, fields = -1;

	memset(c, 0, sizeof *c);
	t = text + strspn(text, " \t\r\n");
	tlen = strcspn(t, " \t\r\n");
	b = t + tlen;
	b += strspn(b, " \t");
	e = b + strcspn(b, " \t\r\n");
	if (tlen == 0 || e == b)
		return cause_set(cause, "not a certificate: want 'TYPE BASE64 "
		    "[COMMENT]' (an OpenSSH -cert.pub file)");
	for (i = 0; i < sizeof certtypes / sizeof certtypes[0]; i++) {
		if (strlen(certtypes[i].type) == tlen &&
		    strncmp(certtypes[i].type, t, tlen) == 0)
			fields = certtypes[i].fields;
	}
	if (fields < 0)
		return cause_set(cause, "not a certificate: its type '%.*s' "
		    "is not one of OpenSSH's *-cert-v01@openssh.com",
		    (int)(tlen > 64 ? 64 : tlen), t);
	blob = xmalloc((size_t)(e - b) + 1);
	if ((n = unbase64(b, (size_t)(e - b), blob)) < 0) {
		free(blob);
		return cause_set(cause, "the certificate's base64 is damaged");
	}
	r.p = blob;
	r.left = (size_t)n;
	if (rd_str(&r, &s, &len) != 0 || len != tlen ||
	    memcmp(s, t, tlen) != 0)
		goto bad;
	if (rd_str(&r, &s, &len) != 0)		/* nonce */
		goto bad;
	s = r.p;
	for (k = 0; k < fields; k++) {
		const unsigned char	*f;

		if (rd_str(&r, &f, &len) != 0)
			goto bad;
	}
	c->nkeyfields = (size_t)(r.p - s);
	c->keyfields = xmalloc(c->nkeyfields + 1);
	memcpy(c->keyfields, s, c->nkeyfields);
	if (rd_u64(&r, &serial) != 0 || rd_u32(&r, &kind) != 0)
		goto bad;
	if (kind != 1) {
		free(blob);
		return cause_set(cause, "a host certificate, not a user's");
	}
	if (rd_str(&r, &s, &len) != 0)
		goto bad;
	c->key_id = xstrndup((const char *)s, len);
	if (rd_str(&r, &s, &len) != 0 ||		/* principals */
	    rd_u64(&r, &c->valid_after) != 0 ||
	    rd_u64(&r, &c->valid_before) != 0)
		goto bad;
	c->type = xstrndup(t, tlen);
	free(blob);
	return 0;
bad:
	free(blob);
	sshcert_free(c);
	return cause_set(cause, "the certificate is cut short or damaged");
}

int
sshcert_matches(const struct sshcert *c, const char *pub_b64)
{
	unsigned char		*blob;
	const unsigned char	*t;
	struct rd		 r;
	size_t			 len;
	long			 n;
	int			 yes = 0;

	blob = xmalloc(strlen(pub_b64) + 1);
	n = unbase64(pub_b64, strlen(pub_b64), blob);
	if (n >= 0) {
		/* A plain key's blob: its type, then the same fields. */
		r.p = blob;
		r.left = (size_t)n;
		if (rd_str(&r, &t, &len) == 0 && r.left == c->nkeyfields &&
		    memcmp(r.p, c->keyfields, c->nkeyfields) == 0)
			yes = 1;
	}
	free(blob);
	return yes;
}

void
sshcert_free(struct sshcert *c)
{
	free(c->type);
	free(c->key_id);
	free(c->keyfields);
	memset(c, 0, sizeof *c);
}

int
sshcert_when(const struct sshcert *c, time_t now)
{
	uint64_t	t = now < 0 ? 0 : (uint64_t)now;

	if (t < c->valid_after)
		return -1;
	if (c->valid_before != SSHCERT_FOREVER && t >= c->valid_before)
		return 1;
	return 0;
}

void
sshcert_time(uint64_t v, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t;

	if (v == SSHCERT_FOREVER || v > (uint64_t)INT64_MAX / 2) {
		snprintf(buf, len, "forever");
		return;
	}
	t = (time_t)v;
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
}
