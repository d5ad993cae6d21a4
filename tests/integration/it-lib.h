#ifndef IT_LIB_H
#define IT_LIB_H

#include <check.h>

/*
 * Shared by every integration suite, compiled once (it-lib.c) and linked
 * into each: what needs no per-test state.  itutil.h holds the helpers
 * on the running test's private dir (tmpdir, unique); the suites that
 * keep their own dir and setup (conn, holder, verbs) use these alone.
 */

/* A variable of the cluster's env ($SDTB_DIR/env.sh): it must be set and
   not empty, else the test fails saying so. */
const char *it_env(const char *name);

/* Seconds on the monotonic clock: how long a step took, not a date. */
double	 it_now(void);

/*
 * A local shell command (the test cluster's files are on this machine);
 * its stdout into *out (may be NULL).  Its exit status, -1 if it died.
 */
int	 it_sh(const char *cmd, char **out);

/* The binary under test: $SQDECK_BIN, else the one of this build. */
const char *it_bin(void);

/*
 * A test's own HOME, XDG_CONFIG_HOME and XDG_STATE_HOME under root
 * (root/home, root/config, root/state): the real ones are never read or
 * written.  HOME is made; the others are made by the product as needed.
 */
void	 it_private_dirs(const char *root);

/*
 * A case of suite s with its checked fixture (either may be NULL) and
 * timeout in seconds (0: CK_DEFAULT_TIMEOUT's).
 */
TCase	*it_tcase(Suite *s, const char *name, double timeout,
	     void (*setup)(void), void (*teardown)(void));

#endif
