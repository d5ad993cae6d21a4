/* Placeholder until the uitext suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
uitext_suite(void)
{
	return suite_create("uitext");
}

TEST_MAIN(uitext_suite)
