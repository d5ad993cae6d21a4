/* Placeholder until the worker suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
worker_suite(void)
{
	return suite_create("worker");
}

TEST_MAIN(worker_suite)
