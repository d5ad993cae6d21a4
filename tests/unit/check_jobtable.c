/* Placeholder until the jobtable suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
jobtable_suite(void)
{
	return suite_create("jobtable");
}

TEST_MAIN(jobtable_suite)
