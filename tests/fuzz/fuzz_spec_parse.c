/*
 * spec_parse() on arbitrary job spec YAML.  The bytes are passed with their
 * length and nothing after them, so ASan catches a read past len.  -1 iff
 * *cause is set; an accepted spec passes spec_validate() (same rules) and
 * survives spec_write() -> spec_parse() -> spec_write() unchanged.
 */
#include "fuzz.h"
#include "spec.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec	 sp, sp2;
	struct buf	 out, out2;
	char		*cause = NULL, *mounts;
	int		 rc;

	rc = spec_parse((const char *)data, size, "fuzz.yaml", &sp, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	if (rc != 0) {
		free(cause);
		spec_free(&sp);		/* must be safe after a failure */
		return 0;
	}
	fuzz_check(sp.image != NULL && sp.command != NULL, "required keys");
	if (spec_validate(&sp, &cause) != 0)
		fuzz_check(0, "parsed spec does not validate: %s", cause);
	mounts = spec_mounts_string(&sp);
	fuzz_check(mounts != NULL, "mounts");
	free(mounts);

	buf_init(&out);
	if (spec_write(&sp, &out, &cause) != 0)
		fuzz_check(0, "parsed spec cannot be written: %s", cause);
	if (spec_parse(out.data, out.len, "written.yaml", &sp2, &cause) != 0)
		fuzz_check(0, "written spec does not parse: %s\n%s", cause,
		    out.data);
	buf_init(&out2);
	if (spec_write(&sp2, &out2, &cause) != 0)
		fuzz_check(0, "reparsed spec cannot be written: %s", cause);
	fuzz_check(out.len == out2.len && memcmp(out.data, out2.data,
	    out.len) == 0, "round trip changed:\n%s\n---\n%s", out.data,
	    out2.data);
	buf_free(&out);
	buf_free(&out2);
	spec_free(&sp2);
	spec_free(&sp);
	return 0;
}
