#include "yamldoc.h"

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
