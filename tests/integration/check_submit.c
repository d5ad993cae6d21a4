/* Placeholder until the submit suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
submit_suite(void)
{
	return suite_create("submit");
}

TEST_MAIN(submit_suite)
