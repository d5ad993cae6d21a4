/* Placeholder until the spec suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
spec_suite(void)
{
	return suite_create("spec");
}

TEST_MAIN(spec_suite)
