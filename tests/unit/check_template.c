/* Placeholder until the template suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
template_suite(void)
{
	return suite_create("template");
}

TEST_MAIN(template_suite)
