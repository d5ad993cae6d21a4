/* Placeholder until the slurm suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
slurm_suite(void)
{
	return suite_create("slurm");
}

TEST_MAIN(slurm_suite)
