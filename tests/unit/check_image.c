/* Placeholder until the image suite is written: it must not stay empty. */
#include "testutil.h"

static Suite *
image_suite(void)
{
	return suite_create("image");
}

TEST_MAIN(image_suite)
