#ifndef ENC_H
#define ENC_H

#include <stddef.h>
#include <sys/types.h>

#include "util.h"

/*
 * Encodings the remote steps need, one copy each: a ustar stream (the
 * stage's payload), base64 (a payload inside a script), hex (od -tx1
 * replies, random markers) and SHA-256 (supporting files, spec keys).
 */

/* One ustar member; name must be < 100 bytes; "dir/" (no data): a directory. */
void	 enc_tar_add(struct buf *, const char *name, const void *, size_t,
	     mode_t);
/* The two zero blocks that end the archive. */
void	 enc_tar_end(struct buf *);

/* Base64 without line breaks. */
void	 enc_base64(struct buf *, const void *, size_t);
/* The value of a base64 digit (A-Z a-z 0-9 + /), -1 for anything else. */
int	 enc_base64_value(int);

/* Lower-case hex of len bytes into out (2 * len + 1 bytes). */
void	 enc_hex(char *out, const void *, size_t len);
/* Hex digits (od -tx1 with the blanks removed) -> bytes; how many. */
size_t	 enc_unhex(const char *, unsigned char *out, size_t max);

/* SHA-256 of data as 64 lower-case hex digits. */
void	 enc_sha256_hex(const void *, size_t, char out[65]);

#endif
