#ifndef FUZZ_H
#define FUZZ_H

/*
 * Helpers shared by the libFuzzer targets in tests/fuzz/.  Built by
 * tests/fuzz/run, not by automake.
 *
 * libFuzzer hands a target bytes that are not NUL-terminated; the functions
 * under test take C strings, so each target copies the input first.  The
 * copy is exactly size + 1 bytes, so ASan catches a read past the end.
 *
 * Inputs that carry several strings split them at NUL bytes (a string
 * cannot hold one, so no separator is lost).  The seed generator in
 * tests/fuzz/run writes seeds in the same layout.
 *
 * A target must free everything it allocates (LeakSanitizer is on), and
 * reports a broken property with fuzz_check(), which aborts: libFuzzer saves
 * the input as a crash file.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

/* A NUL-terminated copy of data. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char	*s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split the copy s (of size bytes) at NUL bytes: parts[i] points into s.
 * Returns the number of parts (at least 1, at most max); once max - 1
 * parts are found, the last one is the rest up to its first NUL.
 */
static inline size_t
fuzz_split(char *s, size_t size, char **parts, size_t max)
{
	size_t	n = 0, i, start = 0;

	for (i = 0; i < size && n + 1 < max; i++) {
		if (s[i] == '\0') {
			parts[n++] = s + start;
			start = i + 1;
		}
	}
	parts[n++] = s + start;
	return n;
}

#define fuzz_check(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_check failed: %s: ", #cond);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

#endif
