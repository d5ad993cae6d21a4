#ifndef COLOR_H
#define COLOR_H

/*
 * Whether the verbs' tables are coloured (--color=WHEN) and whether the
 * screen may use colours at all (NO_COLOR, https://no-color.org).  Pure:
 * the caller passes isatty() and the environment, so every branch is
 * reachable from a unit test.
 */

enum color_when {
	CW_AUTO,	/* a terminal, NO_COLOR unset or empty, TERM not dumb */
	CW_ALWAYS,
	CW_NEVER
};

/* "auto", "always" or "never" into *w: 0, or -1 for anything else. */
int	 color_parse_when(const char *, enum color_when *w);

/* NO_COLOR's value (getenv): set and not empty turns colour off. */
int	 color_env_off(const char *no_color);

/*
 * Colour or not: ALWAYS and NEVER say so; AUTO colours only on a
 * terminal (tty non-zero) with NO_COLOR unset or empty and TERM set and
 * not "dumb".
 */
int	 color_enabled(enum color_when, int tty, const char *no_color,
	     const char *term);

#endif
