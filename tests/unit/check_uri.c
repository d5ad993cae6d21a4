/* Placeholder until the uri suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
uri_suite(void)
{
	return suite_create("uri");
}

TEST_MAIN(uri_suite)
