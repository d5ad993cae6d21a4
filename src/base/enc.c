/*
 * Encodings: ustar, base64, hex and SHA-256 (see enc.h).
 */
#include "enc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char enc_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char enc_hexdigits[] = "0123456789abcdef";

/* The index of c in an alphabet, or -1. */
static int
enc_index(const char *alphabet, int c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(alphabet, c)) == NULL)
		return -1;
	return (int)(p - alphabet);
}

void
enc_tar_add(struct buf *b, const char *name, const void *data, size_t len,
    mode_t mode)
{
	unsigned char	 h[512];
	unsigned	 sum = 0;
	size_t		 i;
	static const unsigned char zero[512];

	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", (unsigned)(mode & 07777));
	snprintf((char *)h + 108, 8, "%07o", 0U);
	snprintf((char *)h + 116, 8, "%07o", 0U);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)len);
	snprintf((char *)h + 136, 12, "%011llo",
	    (unsigned long long)time(NULL));
	h[156] = (len == 0 && *name != '\0' && name[strlen(name) - 1] == '/') ?
	    '5' : '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	/* The checksum is computed with its own field as blanks. */
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof h; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	buf_add(b, h, sizeof h);
	buf_add(b, data, len);
	if (len % 512 != 0)
		buf_add(b, zero, 512 - len % 512);
}

void
enc_tar_end(struct buf *b)
{
	static const unsigned char zero[1024];

	buf_add(b, zero, sizeof zero);
}

void
enc_base64(struct buf *b, const void *data, size_t len)
{
	const char		*tab = enc_b64;
	const unsigned char	*p = data;
	char			 q[4];
	uint32_t		 v;
	size_t			 i;

	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = tab[v & 63];
		buf_add(b, q, 4);
	}
	if (len - i == 1) {
		v = (uint32_t)p[i] << 16;
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = q[3] = '=';
		buf_add(b, q, 4);
	} else if (len - i == 2) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = '=';
		buf_add(b, q, 4);
	}
}

int
enc_base64_value(int c)
{
	return enc_index(enc_b64, c);
}

void
enc_hex(char *out, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 i;

	for (i = 0; i < len; i++) {
		out[2 * i] = enc_hexdigits[p[i] >> 4];
		out[2 * i + 1] = enc_hexdigits[p[i] & 15];
	}
	out[2 * len] = '\0';
}

static int
enc_hexval(int c)
{
	return enc_index(enc_hexdigits, tolower(c));
}

size_t
enc_unhex(const char *s, unsigned char *out, size_t max)
{
	size_t	n = 0;
	int	hi, lo;

	while (n < max && s[0] != '\0' && s[1] != '\0') {
		if ((hi = enc_hexval(s[0])) < 0 || (lo = enc_hexval(s[1])) < 0)
			break;
		out[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return n;
}

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t	w[64], a, b, c, d, e, f, g, k, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		k = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void
enc_sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t		 h[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};
	const unsigned char	*p = data;
	unsigned char		 tail[128];
	uint64_t		 bits = (uint64_t)len * 8;
	size_t			 i, rest, n;

	for (i = 0; i + 64 <= len; i += 64)
		sha256_block(h, p + i);
	rest = len - i;
	memset(tail, 0, sizeof tail);
	if (rest != 0)
		memcpy(tail, p + i, rest);
	tail[rest] = 0x80;
	n = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[n - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(h, tail);
	if (n == 128)
		sha256_block(h, tail + 64);
	for (i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}
