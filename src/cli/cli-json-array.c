/*
 * An array record in JSON (sqdeck(1): JSON OUTPUT, ARRAYS): "array" is
 * null for one job, else its --array value, its tasks counted in the one
 * vocabulary, the failed ones and every task's state.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "record.h"

void
cli_json_array(cJSON *o, const struct record *r)
{
	static const struct {
		const char	*key;
		enum rstate	 st;
	} keys[] = {
		{ "running", RSTATE_RUNNING },
		{ "pending", RSTATE_PENDING },
		{ "completed", RSTATE_COMPLETE },
		{ "failed", RSTATE_ERROR },
		{ "cancelled", RSTATE_CANCELED },
		{ "other", RSTATE_UNKNOWN },
	};
	struct array_status	 as;
	cJSON			*a, *c, *f, *t, *e;
	char			*summary, *tasks;
	size_t			 i, k, n;

	cJSON_DeleteItemFromObject(o, "array_tasks");
	cJSON_DeleteItemFromObject(o, "array");
	if (r->array == NULL || array_status_load(&as, r->array,
	    r->array_tasks) != 0) {
		cJSON_AddNullToObject(o, "array");
		return;
	}
	/* The verdict first: it settles tasks no row showed. */
	array_status_verdict(&as, &summary, &tasks);
	a = cJSON_AddObjectToObject(o, "array");
	cJSON_AddStringToObject(a, "spec", r->array);
	cJSON_AddNumberToObject(a, "tasks", (double)as.n);
	c = cJSON_AddObjectToObject(a, "counts");
	for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		for (i = n = 0; i < as.n; i++)
			n += as.st[i] == keys[k].st;
		cJSON_AddNumberToObject(c, keys[k].key, (double)n);
	}
	f = cJSON_AddArrayToObject(a, "failed");
	t = cJSON_AddArrayToObject(a, "task_states");
	for (i = 0; i < as.n; i++) {
		if (as.st[i] == RSTATE_ERROR)
			cJSON_AddItemToArray(f, cJSON_CreateNumber(as.idx[i]));
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "task", as.idx[i]);
		cJSON_AddStringToObject(e, "state", state_word(as.st[i]));
		cJSON_AddItemToArray(t, e);
	}
	cJSON_AddStringToObject(a, "summary", summary);
	free(summary);
	free(tasks);
	array_status_free(&as);
}

/* "2 running, 1 pending, 1 failed (task 3) of 4 tasks", or NULL. */
char *
cli_array_summary(const struct record *r)
{
	struct array_status	 as;
	char			*summary, *tasks;

	if (r->array == NULL || array_status_load(&as, r->array,
	    r->array_tasks) != 0)
		return NULL;
	array_status_verdict(&as, &summary, &tasks);
	free(tasks);
	array_status_free(&as);
	return summary;
}
