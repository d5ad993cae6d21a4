/* Placeholder until the conn suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
conn_suite(void)
{
	return suite_create("conn");
}

TEST_MAIN(conn_suite)
