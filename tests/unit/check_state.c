/* Placeholder until the state suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
state_suite(void)
{
	return suite_create("state");
}

TEST_MAIN(state_suite)
