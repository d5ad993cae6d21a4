/*
 * retry_exclude() on arbitrary failed node lists, sinfo replies and
 * inherited exclusions ("failed\0sinfo\0inherited"): no crash, no leak, the
 * same answer twice, and a result of plain names never names a node twice
 * (names with blanks or commas are SLURM's to refuse).
 */
#include "fuzz.h"
#include "retry.h"
#include "util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv	 out;
	char		*copy = fuzz_cstr(data, size), *part[3], *x, *y, *note;
	size_t		 n, i, j;

	n = fuzz_split(copy, size, part, 3);
	x = retry_exclude(part[0], n > 1 ? part[1] : NULL, n > 2 ? part[2] :
	    NULL, &note);
	fuzz_check(x != NULL, "NULL result");
	y = retry_exclude(part[0], n > 1 ? part[1] : NULL, n > 2 ? part[2] :
	    NULL, NULL);
	fuzz_check(strcmp(x, y) == 0, "two answers");
	free(y);
	memset(&out, 0, sizeof out);
	if (*x != '\0' && strpbrk(x, " \t\n\r\v\f") == NULL)
		strv_split(&out, x, ',');
	for (i = 0; i < out.n && i < 256; i++) {
		for (j = i + 1; j < out.n && j < 256; j++)
			fuzz_check(strcmp(out.v[i], out.v[j]) != 0,
			    "%s twice", out.v[i]);
	}
	strv_free(&out);
	free(note);
	free(x);
	free(copy);
	return 0;
}
