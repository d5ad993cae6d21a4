#include <string.h>

#include "color.h"

int
color_parse_when(const char *s, enum color_when *w)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "auto") == 0)
		*w = CW_AUTO;
	else if (strcmp(s, "always") == 0)
		*w = CW_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*w = CW_NEVER;
	else
		return -1;
	return 0;
}

int
color_env_off(const char *no_color)
{
	return no_color != NULL && *no_color != '\0';
}

int
color_enabled(enum color_when w, int tty, const char *no_color,
    const char *term)
{
	switch (w) {
	case CW_ALWAYS:
		return 1;
	case CW_NEVER:
		return 0;
	case CW_AUTO:
		break;
	}
	/* A pipe, a file or a terminal that cannot show colours: none. */
	if (!tty || color_env_off(no_color))
		return 0;
	return term != NULL && *term != '\0' && strcmp(term, "dumb") != 0;
}
