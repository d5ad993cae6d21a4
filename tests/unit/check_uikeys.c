/* Placeholder until the uikeys suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
uikeys_suite(void)
{
	return suite_create("uikeys");
}

TEST_MAIN(uikeys_suite)
