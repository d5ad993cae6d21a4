/*
 * ui/ui-text.c and the one sanitiser under it (src/base/text.c) on arbitrary
 * bytes: no crash, no leak, and what comes out is safe for a terminal in
 * every mode: no ESC, no C0 but \n and \t where kept, no C1 (raw or UTF-8),
 * no bidi control, valid UTF-8.  text_utf8() gives valid UTF-8 that keeps
 * valid input as it is.  Width, prefix, fit and the partial-line bound
 * hold their contracts.
 */
#include <locale.h>

#include "fuzz.h"
#include "text.h"
#include "ui-text.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setlocale(LC_CTYPE, "C.UTF-8");
	return 0;
}

static void
check_safe(const char *s, size_t len, int keep_nl, int keep_tab)
{
	size_t	i, n;
	int32_t	cp;

	fuzz_check(strlen(s) == len, "NUL inside");
	for (i = 0; i < len; i += n) {
		n = text_decode(s + i, len - i, &cp);
		fuzz_check(cp >= 0, "invalid UTF-8 at %zu", i);
		if (cp == '\n')
			fuzz_check(keep_nl, "newline");
		else if (cp == '\t')
			fuzz_check(keep_tab, "tab");
		else
			fuzz_check(cp >= 0x20 && cp != 0x7f &&
			    !(cp >= 0x80 && cp <= 0x9f) &&
			    !(cp >= 0x202a && cp <= 0x202e) &&
			    !(cp >= 0x2066 && cp <= 0x2069),
			    "control U+%04X at %zu", (unsigned)cp, i);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int flags[] = { 0, TEXT_MULTILINE, TEXT_CR_LINES,
	    TEXT_CR_LINES | TEXT_TABS };
	const char	*in = (const char *)data;
	char		*s, *t, *fit;
	size_t		 len, i, keep, n;
	int		 used;

	for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		s = text_sanitize(in, size, flags[i], &len);
		check_safe(s, len, flags[i] != 0, (flags[i] & TEXT_TABS) != 0);
		free(s);
	}
	s = uitext_sanitize(in, size, UITEXT_MULTILINE);
	check_safe(s, strlen(s), 1, 0);
	free(s);
	s = uitext_sanitize(in, size, 0);
	check_safe(s, strlen(s), 0, 0);
	fuzz_check(uitext_width(s) >= 0, "width");
	n = uitext_prefix(s, 10, &used);
	fuzz_check(n <= strlen(s) && used <= 10, "prefix %zu %d", n, used);
	fit = uitext_fit(s, 12, 0);
	fuzz_check(uitext_width(fit) == 12, "fit width %d", uitext_width(fit));
	free(fit);
	free(s);

	t = text_utf8(in, size, &len);
	fuzz_check(text_utf8_valid(t, len), "text_utf8 not valid");
	if (text_utf8_valid(in, size))
		fuzz_check(len == size && memcmp(t, in, size) == 0,
		    "valid input changed");
	free(t);

	keep = uitext_partial_keep(in, size, 64);
	fuzz_check(keep == 0 ? size <= 64 : (keep == size ||
	    (size - keep <= 64 && in[keep] == '\r')), "keep %zu of %zu", keep,
	    size);
	return 0;
}
