/* Placeholder until the wizard suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
wizard_suite(void)
{
	return suite_create("wizard");
}

TEST_MAIN(wizard_suite)
