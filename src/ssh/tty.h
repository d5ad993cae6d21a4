#ifndef TTY_H
#define TTY_H

#include "conn.h"

/*
 * The CLI's answer to a second-factor prompt: the server's text on the
 * controlling terminal (/dev/tty, so pipes and redirections do not
 * matter), echo off for hidden prompts, the terminal restored even when
 * interrupted.  No terminal: -1 at once, never a hang.  A conn_prompt_fn.
 */
int	 tty_prompt(void *arg, const char *cluster, const char *name,
	     const char *instruction, const char *note,
	     const struct conn_prompt *prompts, size_t n, char **answers,
	     char **cause);

#endif
