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

/* Helpers shared by the YAML readers (config, spec). */
const char *yamldoc_scalar(yaml_node_t *);
/* A plain scalar meaning null: empty, ~, null, Null, NULL. */
int	 yamldoc_is_null(yaml_node_t *);
/* "a list", "a map" or "a value", for messages. */
const char *yamldoc_kind(yaml_node_t *);
/* "unknown key 'x' in WHERE: did you mean 'y'? (known keys: ...)" */
char	*yamldoc_unknown_key(const char *key, const char *where,
	     const char *const *known, size_t nknown);

#endif
