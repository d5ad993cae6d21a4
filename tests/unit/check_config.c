/* Placeholder until the config suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
config_suite(void)
{
	return suite_create("config");
}

TEST_MAIN(config_suite)
