#ifndef TESTUTIL_H
#define TESTUTIL_H

/* Shared by the Check suites (unit and integration). */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Path of a file under tests/data/ (static buffer). */
static inline const char *
test_data(const char *name)
{
	static char	path[4096];

	snprintf(path, sizeof path, "%s/data/%s", TESTS_SRCDIR, name);
	return path;
}

/* A fresh private directory under $TMPDIR (static buffer). */
static inline const char *
test_tmpdir(void)
{
	static char	path[4096];
	const char	*t = getenv("TMPDIR");

	snprintf(path, sizeof path, "%s/slurmdeck-test.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL)
		abort();
	return path;
}

/* main() for a test program made of one suite. */
#define TEST_MAIN(make_suite)						\
int									\
main(void)								\
{									\
	SRunner	*sr = srunner_create(make_suite());			\
	int	 nfailed;						\
									\
	srunner_run_all(sr, CK_NORMAL);					\
	nfailed = srunner_ntests_failed(sr);				\
	srunner_free(sr);						\
	return nfailed == 0 ? 0 : 1;					\
}

#endif
