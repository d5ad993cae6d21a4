/*
 * record_from_json() on arbitrary record files.  The bytes are passed with
 * their length and nothing after them (a record file read from disk), so
 * ASan catches a read past len.  -1 iff *cause is set; an accepted record
 * survives record_to_json() -> record_from_json() -> record_to_json()
 * unchanged (what is written is what is read back).
 */
#include "fuzz.h"
#include "record.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record	*r, *r2;
	char		*json, *json2, *cause = NULL;
	int		 rc;

	rc = record_from_json((const char *)data, size, "fuzz.json", &r,
	    &cause);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	fuzz_check((rc == 0) == (r != NULL), "rc %d", rc);
	free(cause);
	if (rc != 0)
		return 0;

	record_slurm_id(r);
	json = record_to_json(r);
	if (record_from_json(json, strlen(json), "again.json", &r2,
	    &cause) != 0)
		fuzz_check(0, "written record does not load: %s\n%s", cause,
		    json);
	json2 = record_to_json(r2);
	fuzz_check(strcmp(json, json2) == 0, "round trip changed:\n%s\n%s",
	    json, json2);
	free(json);
	free(json2);
	record_free(r2);
	record_free(r);
	return 0;
}
