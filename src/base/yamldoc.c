#include "yamldoc.h"

#include <string.h>

#include "util.h"

int
yamldoc_load(const char *file, const char *text, size_t len,
    yaml_document_t *doc, const char *one_doc_fix, char **cause)
{
	yaml_parser_t	 p;
	yaml_document_t	 extra;
	int		 rc = -1;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, doc))
		goto syntax;
	if (!yaml_parser_load(&p, &extra)) {
		yaml_document_delete(doc);
		goto syntax;
	}
	if (yaml_document_get_root_node(&extra) != NULL) {
		yaml_document_delete(&extra);
		yaml_document_delete(doc);
		cause_set(cause, "%s: more than one YAML document ('---'): %s",
		    file, one_doc_fix);
		goto out;
	}
	yaml_document_delete(&extra);
	rc = 0;
	goto out;

syntax:
	if (p.error == YAML_READER_ERROR)
		cause_set(cause, "%s: %s at byte %zu: save the file as UTF-8",
		    file, p.problem ? p.problem : "unreadable text",
		    p.problem_offset);
	else if (p.context != NULL)
		cause_set(cause, "%s:%zu:%zu: YAML syntax error: %s (%s at "
		    "line %zu column %zu): check indentation (spaces, not "
		    "tabs) and quote values containing ': ' or ' #'", file,
		    p.problem_mark.line + 1, p.problem_mark.column + 1,
		    p.problem ? p.problem : "?", p.context,
		    p.context_mark.line + 1, p.context_mark.column + 1);
	else
		cause_set(cause, "%s:%zu:%zu: YAML syntax error: %s: check "
		    "indentation (spaces, not tabs) and quote values "
		    "containing ': ' or ' #'", file,
		    p.problem_mark.line + 1, p.problem_mark.column + 1,
		    p.problem ? p.problem : "?");
out:
	yaml_parser_delete(&p);
	return rc;
}

const char *
yamldoc_scalar(yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int
yamldoc_is_null(yaml_node_t *n)
{
	const char	*v;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = yamldoc_scalar(n);
	return (*v == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
	    strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0);
}

const char *
yamldoc_kind(yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a map";
	default:
		return "a value";
	}
}

/* Edit distance, for "did you mean". Keys are short. */
static size_t
distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j, d[32][32], c;

	if (la >= 32 || lb >= 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	}
	return d[la][lb];
}

char *
yamldoc_unknown_key(const char *key, const char *where,
    const char *const *known, size_t nknown)
{
	struct buf	 b;
	const char	*best = NULL;
	size_t		 i, d, bestd = 3;

	buf_init(&b);
	for (i = 0; i < nknown; i++) {
		if ((d = distance(key, known[i])) < bestd) {
			bestd = d;
			best = known[i];
		}
	}
	buf_printf(&b, "unknown key '%s' in %s", key, where);
	if (best != NULL)
		buf_printf(&b, ": did you mean '%s'?", best);
	buf_adds(&b, " (known keys: ");
	for (i = 0; i < nknown; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", known[i]);
	buf_adds(&b, ")");
	return buf_steal(&b);
}
