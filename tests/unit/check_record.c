/* Placeholder until the record suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
record_suite(void)
{
	return suite_create("record");
}

TEST_MAIN(record_suite)
