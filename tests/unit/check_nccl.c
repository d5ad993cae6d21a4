/* Placeholder until the nccl suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
nccl_suite(void)
{
	return suite_create("nccl");
}

TEST_MAIN(nccl_suite)
