#ifndef LINT_H
#define LINT_H

#include <stddef.h>

/*
 * Gate for a rendered job script before it leaves this machine (sqdeck(1):
 * TEMPLATES). Messages name the script, the line and what matched, never the
 * secret.
 */

struct lint_secret {
	const char	*name;		/* e.g. HF_TOKEN */
	const char	*value;		/* empty values are ignored */
};

/*
 * Refuse a script that contains any secret value (also as a substring, also
 * in its shell-quoted or '#'-escaped form), a known token pattern (NGC API
 * keys nvapi-... and the legacy base64 form, Hugging Face hf_..., AWS
 * AKIA/ASIA key ids, GitHub tokens, private key blocks, password=), or
 * anything that turns on xtrace (set -x, set -o xtrace, bash -x, a -x on
 * the #! line).  name is used in messages.
 */
int	 lint_script(const char *name, const char *script,
	     const struct lint_secret *, size_t, char **cause);

/*
 * Run "bash -n" locally with the script on its stdin (fork/exec, no shell
 * command line).  On failure the cause carries bash's own message.
 */
int	 lint_bash_syntax(const char *name, const char *script, char **cause);

/*
 * The shape of a script for bash -n: a hash of this bash (lint_bash_id)
 * and the script with every copy of stamp, a record id's
 * YYYYmmddTHHMMSS-xxxxxx, replaced by one fixed text of that form.  Such
 * a text of digits, 'T', '-' and a-f, wherever it stands, is inside one
 * word: no quote, operator, blank or expansion is in it, and holding a
 * 'T' and a '-' it is never a reserved word, an fd number or a name to
 * assign.  bash parses two scripts of one shape alike, so bash -n's
 * verdict on one is its verdict on the other.  -1 (no shape: run bash -n)
 * when stamp is not of that form or the fixed text is in the script.
 */
int	 lint_shape_key(const char *script, const char *stamp,
	     const char *bash_id, char out[65]);
/* The bash bash -n runs: its path, device, inode, size and mtime. */
char	*lint_bash_id(void);

#endif
