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

#endif
