/* Placeholder until the msgq suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
msgq_suite(void)
{
	return suite_create("msgq");
}

TEST_MAIN(msgq_suite)
