/* Placeholder until the lint suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
lint_suite(void)
{
	return suite_create("lint");
}

TEST_MAIN(lint_suite)
