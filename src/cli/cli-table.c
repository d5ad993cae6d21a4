#include <sys/ioctl.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "ops.h"
#include "text.h"
#include "util.h"

/*
 * The tables of jobs, history and records: --format picks the columns,
 * a column that says the same on every row (one cluster) is left out, and
 * the NAME column gets the width the others leave (sqdeck(1)).
 */

/* The terminal's width: $COLUMNS, the tty's, or 0 (not known: a pipe). */
static size_t
cli_table_cols(void)
{
	struct winsize	 ws;
	const char	*s = getenv("COLUMNS");
	long		 n;

	if (s != NULL && cli_number(s, 20, 10000, &n) == 0)
		return (size_t)n;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) ==
	    0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

int
cli_table_format(const struct cli_table *t, const char *fmt, char **cause)
{
	char	*copy, *word, *save;
	size_t	 c, n = 0;
	int	 ret = 0;

	copy = xstrdup(fmt);
	for (word = strtok_r(copy, ",", &save); word != NULL;
	    word = strtok_r(NULL, ",", &save), n++) {
		for (c = 0; c < t->ncol; c++) {
			if (strcasecmp(word, t->keys[c]) == 0)
				break;
		}
		if (c == t->ncol) {
			*cause = xasprintf("--format: no column '%s' (give "
			    "some of: %s)", word, t->keylist);
			ret = -1;
			break;
		}
	}
	if (ret == 0 && n == 0) {
		*cause = xasprintf("--format: name at least one column (%s)",
		    t->keylist);
		ret = -1;
	}
	free(copy);
	return ret;
}

/* The columns to print, in order, into sel: --format's, or every one
   but those that say the same on every row. */
static size_t
cli_table_pick(const struct cli_table *t, const char *fmt,
    char *const *cells, size_t nrows, size_t *sel)
{
	char	*copy, *word, *save;
	size_t	 c, i, n = 0;

	if (fmt != NULL) {
		copy = xstrdup(fmt);
		for (word = strtok_r(copy, ",", &save); word != NULL;
		    word = strtok_r(NULL, ",", &save)) {
			for (c = 0; c < t->ncol; c++) {
				if (strcasecmp(word, t->keys[c]) == 0)
					sel[n++] = c;
			}
		}
		free(copy);
		return n;
	}
	for (c = 0; c < t->ncol; c++) {
		if ((t->flags[c] & CLI_COL_ONE) && nrows > 0) {
			for (i = 1; i < nrows; i++) {
				if (strcmp(cells[i * t->ncol + c],
				    cells[c]) != 0)
					break;
			}
			if (i == nrows)
				continue;
		}
		sel[n++] = c;
	}
	return n;
}

/* The flexible column's width: what the others leave, in bounds. */
static size_t
cli_table_flex(char **v, size_t nrows, size_t nsel, size_t flex,
    const char *const *head)
{
	size_t	cols = cli_table_cols(), used = 0, w, i, c;

	if (cols == 0)
		return CLI_NAME_MAX;
	for (c = 0; c < nsel; c++) {
		if (c == flex || c + 1 == nsel)
			continue;	/* the last one is not padded */
		w = text_width(head[c]);
		for (i = 0; i < nrows; i++) {
			if (text_width(v[i * nsel + c]) > w)
				w = text_width(v[i * nsel + c]);
		}
		used += w + 2;
	}
	if (flex + 1 != nsel)
		used += 2;
	w = cols > used ? cols - used : 0;
	if (w < CLI_NAME_MIN)
		w = CLI_NAME_MIN;
	return w > CLI_NAME_MAX ? CLI_NAME_MAX : w;
}

/* A cell cut to w cells, an ellipsis ("...") ending what was cut. */
static char *
cli_table_cut(const char *s, size_t w)
{
	size_t	n;

	if (text_width(s) <= w)
		return xstrdup(s);
	n = text_fit(s, w > 3 ? w - 3 : 0, NULL);
	return xasprintf("%.*s...", (int)n, s);
}

void
cli_table_print(const struct cli_table *t, const char *fmt, char **cells,
    size_t nrows, int color)
{
	const char	**head;
	char		**v, *clean;
	size_t		 *sel, nsel, i, c, flex = (size_t)-1, w;

	sel = xcalloc(t->ncol + 1, sizeof *sel);
	nsel = cli_table_pick(t, fmt, cells, nrows, sel);
	head = xcalloc(nsel + 1, sizeof *head);
	v = xcalloc(nrows * nsel + 1, sizeof *v);
	for (c = 0; c < nsel; c++) {
		head[c] = t->head[sel[c]];
		if (t->flags[sel[c]] & CLI_COL_FLEX)
			flex = c;
		for (i = 0; i < nrows; i++) {
			/* Cleaned here, so the cut counts what is shown. */
			v[i * nsel + c] = ops_clean(cells[i * t->ncol +
			    sel[c]]);
		}
	}
	if (flex != (size_t)-1) {
		w = cli_table_flex(v, nrows, nsel, flex, head);
		for (i = 0; i < nrows; i++) {
			clean = v[i * nsel + flex];
			v[i * nsel + flex] = cli_table_cut(clean, w);
			free(clean);
		}
	}
	ops_table_print(stdout, head, nsel, v, nrows, color);
	for (i = 0; i < nrows * nsel; i++)
		free(v[i]);
	free(v);
	free(head);
	free(sel);
}

int
cli_table_match(const char *pattern, const char *name)
{
	if (strpbrk(pattern, "*?[") != NULL)
		return fnmatch(pattern, name, 0) == 0;
	return strstr(name, pattern) != NULL;
}

int
cli_table_state(const char *list, const char *word, const char *slurm)
{
	char	*copy, *s, *save;
	int	 hit = 0;

	copy = xstrdup(list);
	for (s = strtok_r(copy, ",", &save); s != NULL && !hit;
	    s = strtok_r(NULL, ",", &save)) {
		if (strcasecmp(s, word) == 0 || (slurm != NULL &&
		    strncasecmp(s, slurm, strlen(s)) == 0 &&
		    (slurm[strlen(s)] == '\0' || slurm[strlen(s)] == ' ' ||
		    slurm[strlen(s)] == '+')))
			hit = 1;
	}
	free(copy);
	return hit;
}
