/* Placeholder until the faults suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
faults_suite(void)
{
	return suite_create("faults");
}

TEST_MAIN(faults_suite)
