#ifndef YAMLDOC_H
#define YAMLDOC_H

#include <stddef.h>

#include <yaml.h>

/*
 * Load exactly one YAML document from text.  On failure *cause says where
 * (file:line:column) and how to fix it; more than one document is refused
 * with one_doc_fix as the advice.  On success the caller owns *doc.
 */
int	 yamldoc_load(const char *file, const char *text, size_t len,
	     yaml_document_t *doc, const char *one_doc_fix, char **cause);

#endif
