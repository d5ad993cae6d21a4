/* Placeholder until the multinode suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
multinode_suite(void)
{
	return suite_create("multinode");
}

TEST_MAIN(multinode_suite)
