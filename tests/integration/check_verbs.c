/* Placeholder until the verbs suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
verbs_suite(void)
{
	return suite_create("verbs");
}

TEST_MAIN(verbs_suite)
