/* Shared by every integration suite (it-lib.h). */
#include <sys/stat.h>
#include <sys/wait.h>

#include <time.h>

#include "testutil.h"
#include "it-lib.h"
#include "util.h"

const char *
it_env(const char *name)
{
	const char	*v = getenv(name);

	ck_assert_msg(v != NULL && *v != '\0', "%s is not set: source "
	    "$SDTB_DIR/env.sh (tests/cluster/up) first", name);
	return v;
}

double
it_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
it_sh(const char *cmd, char **out)
{
	FILE		*f;
	struct buf	 b;
	char		 chunk[4096];
	size_t		 n;
	int		 st;

	buf_init(&b);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	st = pclose(f);
	if (out != NULL)
		*out = buf_steal(&b);
	buf_free(&b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *
it_bin(void)
{
	const char	*b = getenv("SQDECK_BIN");

	return b != NULL && *b != '\0' ? b : TOP_BUILDDIR "/sqdeck";
}

void
it_private_dirs(const char *root)
{
	char	*p;

	p = xasprintf("%s/home", root);
	mkdir(p, 0700);
	setenv("HOME", p, 1);
	free(p);
	p = xasprintf("%s/state", root);
	setenv("XDG_STATE_HOME", p, 1);
	free(p);
	p = xasprintf("%s/config", root);
	setenv("XDG_CONFIG_HOME", p, 1);
	free(p);
}

TCase *
it_tcase(Suite *s, const char *name, double timeout, void (*setup)(void),
    void (*teardown)(void))
{
	TCase	*tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, teardown);
	if (timeout > 0)
		tcase_set_timeout(tc, timeout);
	suite_add_tcase(s, tc);
	return tc;
}
