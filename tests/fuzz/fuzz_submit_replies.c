/*
 * The three replies of a submit (check, image conversion, launch): no
 * crash, no leak (a repeated line is freed), the check's error contract.
 * Input: "npaths\0reply"; the same reply goes to all three parsers.
 */
#include "fuzz.h"
#include "submit.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct submit_check		 ck;
	struct submit_convert_result	 cv;
	struct submit_launch		 l;
	char				*copy = fuzz_cstr(data, size), *part[2];
	char				*cause = NULL;
	const char			*reply;
	size_t				 n, npaths = 0;
	int				 rc;

	n = fuzz_split(copy, size, part, 2);
	if (n == 2)
		npaths = strtoul(part[0], NULL, 10) % 64;
	reply = n == 2 ? part[1] : part[0];

	memset(&ck, 0, sizeof ck);
	rc = submit_check_parse(reply, npaths, &ck, &cause);
	fuzz_check(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check((rc == -1) == (cause != NULL), "rc %d", rc);
	fuzz_check(ck.headlen <= sizeof ck.head, "headlen %zu", ck.headlen);
	free(cause);
	submit_check_free(&ck);

	submit_convert_parse(reply, &cv);
	fuzz_check(cv.headlen <= sizeof cv.head, "headlen %zu", cv.headlen);
	submit_convert_free(&cv);

	submit_launch_parse(reply, &l);
	fuzz_check(l.reason == NULL || l.state != NULL, "reason w/o state");
	submit_launch_free(&l);
	free(copy);
	return 0;
}
