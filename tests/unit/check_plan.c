/* Placeholder until the plan suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
plan_suite(void)
{
	return suite_create("plan");
}

TEST_MAIN(plan_suite)
