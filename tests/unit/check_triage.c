/* Placeholder until the triage suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
triage_suite(void)
{
	return suite_create("triage");
}

TEST_MAIN(triage_suite)
