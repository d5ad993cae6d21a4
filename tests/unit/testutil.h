#ifndef TESTUTIL_H
#define TESTUTIL_H

/* Shared by the Check suites (unit and integration). */

#include <check.h>
#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The heap-size tests (issue 25: bytes a history row holds) read
 * glibc's malloc through mallinfo2(); ASan's malloc is not it, so those
 * tests are not registered in an ASan build (TEST_HEAP_SIZES is 0), and
 * scripts/check runs them natively in its plain build.  Under valgrind,
 * which replaces malloc too, test_heap_measurable() says 0: the test
 * builds and frees what it measures for the memory-error pass and
 * asserts no size; anywhere else a malloc that mallinfo2() does not see
 * fails the test.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_HEAP_SIZES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_HEAP_SIZES 0
#endif
#endif
#ifndef TEST_HEAP_SIZES
#define TEST_HEAP_SIZES 1
#endif

/* Bytes glibc's malloc has given out (heap and mapped). */
static inline size_t
test_heap_used(void)
{
	struct mallinfo2	m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/*
 * Assert that what was given out since used0 is at most bound bytes for
 * each of n things (what names them in the message), unless measure is 0
 * (valgrind: see above).
 */
static inline void
test_heap_per(int measure, size_t used0, size_t n, size_t bound,
    const char *what)
{
	size_t	per = (test_heap_used() - used0) / n;

	if (measure)
		ck_assert_msg(per <= bound, "%zu bytes a %s", per, what);
}

static inline int
test_heap_measurable(void)
{
	const char		*pre = getenv("LD_PRELOAD");
	struct mallinfo2	 m0, m1;
	void *volatile		 probe;

	m0 = mallinfo2();
	probe = calloc(1, 1 << 20);
	m1 = mallinfo2();
	free(probe);
	if (m1.uordblks + m1.hblkhd >= m0.uordblks + m0.hblkhd + (1 << 20))
		return 1;
	if (pre != NULL && strstr(pre, "vgpreload") != NULL)
		return 0;	/* valgrind's malloc: the memory pass */
	ck_abort_msg("mallinfo2() does not see this malloc: the heap-size "
	    "test cannot measure (run it from a plain build, not ASan)");
	return 0;
}

/* Path of a file under tests/data/ (static buffer). */
static inline const char *
test_data(const char *name)
{
	static char	path[4096];

	snprintf(path, sizeof path, "%s/data/%s", TESTS_SRCDIR, name);
	return path;
}

/* Directories made by test_tmpdir(), removed when their maker exits. */
static char	test_tmpdirs[64][4096];
static pid_t	test_tmpdir_pids[64];
static int	test_ntmpdirs;

static inline int
test_rm_entry(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path) == 0 ? 0 : 0;
}

static inline void
test_tmpdir_cleanup(void)
{
	int	i;

	/* Only the process that made a directory removes it: Check forks. */
	for (i = 0; i < test_ntmpdirs; i++) {
		if (test_tmpdir_pids[i] == getpid() &&
		    getenv("SQDECK_KEEP_TMP") == NULL)
			nftw(test_tmpdirs[i], test_rm_entry, 16,
			    FTW_DEPTH | FTW_PHYS);
	}
}

/* A fresh private directory under $TMPDIR (static buffer). */
static inline const char *
test_tmpdir(void)
{
	static char	path[4096];
	const char	*t = getenv("TMPDIR");

	snprintf(path, sizeof path, "%s/sqdeck-test.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL)
		abort();
	if (test_ntmpdirs < 64) {
		if (test_ntmpdirs == 0)
			atexit(test_tmpdir_cleanup);
		snprintf(test_tmpdirs[test_ntmpdirs], sizeof test_tmpdirs[0],
		    "%s", path);
		test_tmpdir_pids[test_ntmpdirs++] = getpid();
	}
	return path;
}

/*
 * The variables that override a cluster's settings
 * (sqdeck(1), ENVIRONMENT) are unset before any unit test: what a test
 * reads is what it set.
 * scripts/check sources the test cluster's env.sh before its distcheck,
 * and check_record's test_adopt_reads failed there (SLURM_USER and
 * SLURM_PORT made the configured cluster another place).
 */
static inline void
test_env_clean(void)
{
	static const char *const vars[] = { "SLURM_HOSTNAME", "SLURM_USER",
	    "SSH_PORT", "SLURM_PORT", "SLURM_PARTITION", "SSH_KEY_PATH",
	    "SSH_KNOWN_HOSTS", "SLURM_BASE_RESULTS_DIR", "SLURM_ACCOUNT",
	    "SLURM_TIME_HOURS", "SLURM_USE_REQUEUE", "SQDECK_CLUSTER" };
	size_t	i;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
}

/* main() for a test program made of one suite. */
#define TEST_MAIN(make_suite)						\
int									\
main(void)								\
{									\
	SRunner	*sr;							\
	int	 nfailed;						\
									\
	test_env_clean();						\
	sr = srunner_create(make_suite());				\
	srunner_run_all(sr, CK_NORMAL);					\
	nfailed = srunner_ntests_failed(sr);				\
	srunner_free(sr);						\
	return nfailed == 0 ? 0 : 1;					\
}

#endif
