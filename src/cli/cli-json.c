#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "record.h"
#include "state.h"

/*
 * The one JSON vocabulary of every verb (sqdeck(1): JSON OUTPUT, and
 * doc/sqdeck.schema.json): "schema" and "verb" on top, job_id for SLURM's
 * id, record_id for sqdeck's, state in the six words with SLURM's own in
 * slurm_state, null for what is not known.
 */

cJSON *
cli_json_doc(const char *verb)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "schema", CLI_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "verb", verb);
	return o;
}

void
cli_json_state(cJSON *o, enum rstate state, const char *slurm,
    enum err_class err)
{
	cJSON_AddStringToObject(o, "state", state_word(state));
	cli_json_str(o, "slurm_state", slurm != NULL && *slurm != '\0' ?
	    slurm : NULL);
	cli_json_str(o, "err_class", err != ERR_NONE ? err_class_name(err) :
	    NULL);
}

void
cli_json_num(cJSON *o, const char *key, double value, int known)
{
	if (known)
		cJSON_AddNumberToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

/* A record's stored key, as the vocabulary names it. */
static const char *
cli_json_key(const char *key)
{
	static const char *const map[][2] = {
		{ "id", "record_id" },
		{ "slurm_id", "job_id" },
		{ "slurm_ids", "job_ids" },
		{ "job_name", "name" },
		{ "native", "slurm_state" },
	};
	size_t	i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		if (strcmp(key, map[i][0]) == 0)
			return map[i][1];
	}
	return key;
}

/* A record's history: the state in the vocabulary, SLURM's beside it. */
static cJSON *
cli_json_history(const cJSON *h)
{
	const cJSON	*e, *f;
	cJSON		*a = cJSON_CreateArray(), *n;
	enum rstate	 s;

	cJSON_ArrayForEach(e, h) {
		n = cJSON_CreateObject();
		cJSON_ArrayForEach(f, e) {
			if (strcmp(f->string, "state") == 0) {
				if (state_from_name(cJSON_GetStringValue(f),
				    &s) != 0)
					s = RSTATE_UNKNOWN;
				cJSON_AddStringToObject(n, "state",
				    state_word(s));
			} else
				cJSON_AddItemToObject(n, cli_json_key(f->string),
				    cJSON_Duplicate(f, 1));
		}
		cJSON_AddItemToArray(a, n);
	}
	return a;
}

cJSON *
cli_json_record(const struct record *r)
{
	cJSON		*stored, *o;
	const cJSON	*f;
	char		*s;

	s = record_to_json(r);
	stored = cJSON_Parse(s);
	free(s);
	if (stored == NULL)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_ArrayForEach(f, stored) {
		if (strcmp(f->string, "version") == 0)
			continue;
		if (strcmp(f->string, "state") == 0)
			cJSON_AddStringToObject(o, "state", state_word(r->state));
		else if (strcmp(f->string, "err_class") == 0)
			cli_json_str(o, "err_class", r->err_class != ERR_NONE ?
			    err_class_name(r->err_class) : NULL);
		else if (strcmp(f->string, "history") == 0)
			cJSON_AddItemToObject(o, "history",
			    cli_json_history(f));
		else if (strcmp(f->string, "native") == 0)
			cli_json_str(o, "slurm_state", r->native != NULL &&
			    *r->native != '\0' ? r->native : NULL);
		else
			cJSON_AddItemToObject(o, cli_json_key(f->string),
			    cJSON_Duplicate(f, 1));
	}
	cJSON_Delete(stored);
	/* Known only for a record a retry can rerun: null, not left out. */
	if (!cJSON_HasObjectItem(o, "secrets"))
		cJSON_AddNullToObject(o, "secrets");
	if (!cJSON_HasObjectItem(o, "retry_budget"))
		cJSON_AddNullToObject(o, "retry_budget");
	cli_json_array(o, r);
	return o;
}
