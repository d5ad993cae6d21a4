/*
 * Issue 12, the parsing and terminal items: each test failed (crash, leak,
 * Check timeout or assertion) on the code before its fix.  Quadratic code is
 * caught by Check's timeout (CK_DEFAULT_TIMEOUT), never by a clock here.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <locale.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "cli.h"
#include "monitor.h"
#include "ops.h"
#include "retry.h"
#include "submit.h"
#include "text.h"
#include "ui-text.h"
#include "util.h"

#define REP	TEXT_REPLACEMENT

static char *
slurp_file(FILE *f, size_t *lenp)
{
	struct buf	b;
	char		chunk[4096];
	size_t		n;

	rewind(f);
	buf_init(&b);
	buf_add(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	*lenp = b.len;
	return buf_steal(&b);
}

/* None of the bytes that drive a terminal. */
static void
ck_terminal_safe(const char *s, size_t len)
{
	ck_assert_msg(memchr(s, 0x1b, len) == NULL, "ESC in \"%s\"", s);
	ck_assert_msg(text_utf8_valid(s, len), "raw 8-bit byte in \"%s\"", s);
	ck_assert_msg(memmem(s, len, "\xc2\x9b", 2) == NULL, "U+009B in %s", s);
	ck_assert_msg(memmem(s, len, "\xe2\x80\xae", 3) == NULL, "U+202E");
}

/* Item 1: tqdm's "\r  0%|" at the start of a line crashed the TUI. */
START_TEST(test_tqdm_cr_first)
{
	char	*s;

	s = uitext_sanitize("\r  0%|", 6, UITEXT_MULTILINE);
	ck_assert_str_eq(s, "  0%|");
	free(s);
	s = uitext_sanitize("\r", 1, UITEXT_MULTILINE);
	ck_assert_str_eq(s, "");
	free(s);
	s = uitext_sanitize("\r 10%\r 50%\r100%", 15, UITEXT_MULTILINE);
	ck_assert_str_eq(s, "100%");
	free(s);
}
END_TEST

/* Item 1: the log pane's partial line stays bounded under \r-only output. */
START_TEST(test_partial_bounded)
{
	struct buf	b;
	size_t		i, keep;

	buf_init(&b);
	for (i = 0; i < 20000; i++)
		buf_printf(&b, "\r%5zu/20000 |#####     |", i);
	keep = uitext_partial_keep(b.data, b.len, 8192);
	ck_assert_uint_gt(keep, 0);
	ck_assert_uint_le(b.len - keep, 8192);
	ck_assert_int_eq(b.data[keep], '\r');
	ck_assert_ptr_nonnull(strstr(b.data + keep, "19999/20000"));
	/* Small: nothing dropped.  No \r at all: shown as a line. */
	ck_assert_uint_eq(uitext_partial_keep("\rab", 3, 8192), 0);
	memset(b.data, 'x', b.len);
	ck_assert_uint_eq(uitext_partial_keep(b.data, b.len, 8192), b.len);
	buf_free(&b);
}
END_TEST

/* Item 9: the verbs' sanitiser is the TUI's. */
START_TEST(test_cli_sanitiser)
{
	static const char in[] = "a\x1b]0;title\x07" "b\x9b" "2Jc\xc2\x9b"
	    "d\xe2\x80\xae" "e\x1b[31mf\x1b" "cg\tz\r\nh";
	char	*s, *out;
	size_t	 len;
	FILE	*f;

	s = ops_sanitize(in, sizeof in - 1, &len);
	ck_terminal_safe(s, len);
	ck_assert_str_eq(s, "ab" REP "2Jc" REP "d" REP "efg\tz\nh");
	free(s);
	s = ops_clean(in);
	ck_terminal_safe(s, strlen(s));
	ck_assert_ptr_null(strchr(s, '\n'));
	free(s);
	/* The same through the CLI's printf: errors echo file values. */
	ck_assert_ptr_nonnull(f = tmpfile());
	cli_fprintf(f, "sqdeck: spec x.yaml:1:7: bad image '%s'\n", in);
	out = slurp_file(f, &len);
	fclose(f);
	ck_terminal_safe(out, len);
	ck_assert_ptr_nonnull(strstr(out, "bad image 'ab"));
	free(out);
}
END_TEST

/* Item 11: --json is valid UTF-8 whatever the cluster put in a name. */
START_TEST(test_json_utf8)
{
	cJSON	*o;
	char	*out;
	size_t	 len;
	FILE	*f;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "job\xff\xfe" "caf\xc3\xa9\xc0\xaf");
	cJSON_AddStringToObject(o, "ok", "\xe6\x97\xa5");
	ck_assert_ptr_nonnull(f = tmpfile());
	cli_json(f, o, 1);
	cJSON_Delete(o);
	out = slurp_file(f, &len);
	fclose(f);
	ck_assert_msg(text_utf8_valid(out, len), "%s", out);
	ck_assert_str_eq(out, "{\"name\":\"job" REP REP "caf\xc3\xa9" REP REP
	    "\",\"ok\":\"\xe6\x97\xa5\"}\n");
	o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	cJSON_Delete(o);
	free(out);
}
END_TEST

/* Item 10: a repeated sqdeck-state line leaked the first one. */
START_TEST(test_launch_parse_repeat)
{
	struct submit_launch	l;

	submit_launch_parse("sqdeck-sbatch-rc=0\nsqdeck-out=41\n"
	    "sqdeck-state=PENDING JobHeldUser\nsqdeck-state=RUNNING None\n"
	    "sqdeck-state=COMPLETING\n", &l);
	ck_assert_str_eq(l.out, "41");
	ck_assert_str_eq(l.state, "COMPLETING");
	ck_assert_ptr_null(l.reason);
	submit_launch_free(&l);	/* LeakSanitizer checks the rest */
}
END_TEST

/* Item 6: enroot's output is gathered in linear time. */
START_TEST(test_convert_parse_linear)
{
	struct submit_convert_result	r;
	struct buf			b;
	size_t				i, n = 0;
	const char			*p;

	buf_init(&b);
	for (i = 0; i < 200000; i++)
		buf_adds(&b, "enroot: unpacking layer\n");
	buf_adds(&b, "sqdeck-convert=converted\nsqdeck-rc=0\n");
	submit_convert_parse(b.data, &r);
	ck_assert_int_eq(r.verdict, SUBMIT_CONVERT_CONVERTED);
	for (p = r.output; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	ck_assert_uint_eq(n, 199999);
	submit_convert_free(&r);
	buf_free(&b);
}
END_TEST

/* Item 10: retry_exclude with 60 000 nodes (was quadratic: > 60 s). */
START_TEST(test_retry_exclude_large)
{
	struct buf	 b;
	char		*x, *note = NULL;
	size_t		 i, n = 0;
	const char	*p;

	buf_init(&b);
	for (i = 1; i <= 60000; i++)
		buf_printf(&b, "n%zu %s\n", i, i % 3 == 0 ? "down*" : "idle");
	x = retry_exclude("n[1-30000]", b.data, "n59999,n60000", &note);
	for (p = x; *p != '\0'; p++)
		n += *p == ',';
	/* Every third of n1..n30000 is down, then the two inherited. */
	ck_assert_uint_eq(n + 1, 10000 + 2);
	ck_assert(str_has_prefix(x, "n3,n6,n9,"));
	ck_assert(str_has_suffix(x, ",n59999,n60000"));
	free(x);
	free(note);
	buf_free(&b);
}
END_TEST

/* Item 6: a spec's files: entry is checked before it is read. */
START_TEST(test_file_read_max)
{
	const char	*dir = test_tmpdir();
	char		 path[4200], *data = NULL, *cause = NULL;
	size_t		 len;
	int		 fd;

	ck_assert_int_eq(file_read_max("/dev/zero", 1024, &data, &len,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "not a regular file"));
	free(cause);
	snprintf(path, sizeof path, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* No writer: a blocking open would wait for ever (Check's timeout). */
	ck_assert_int_eq(file_read_max(path, 1024, &data, &len, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "not a regular file"));
	free(cause);
	snprintf(path, sizeof path, "%s/big", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	close(fd);
	ck_assert_int_eq(file_read_max(path, 1024, &data, &len, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "4096 bytes"));
	free(cause);
	ck_assert_int_eq(file_read_max(path, 4096, &data, &len, &cause), 0);
	ck_assert_uint_eq(len, 4096);
	free(data);
}
END_TEST

/* Found by tests/fuzz/fuzz_monitor_reply: a header line whose "\n" also
 * starts the next marker gave a section of SIZE_MAX bytes. */
START_TEST(test_reply_empty_section)
{
	static const char	 text[] = "\nSDMab squeue\nSDMab end 0\n";
	struct remote_reply	 rep;
	const struct remote_section *sq;

	ck_assert_int_eq(remote_reply_parse(text, sizeof text - 1, "SDMab",
	    "the poll", &rep, NULL), 0);
	sq = remote_reply_find(&rep, "squeue", NULL);
	ck_assert_ptr_nonnull(sq);
	ck_assert_uint_eq(sq->len, 0);
	ck_assert_int_eq(rep.complete, 1);
	remote_reply_free(&rep);
}
END_TEST

/*
 * The reply protocol end to end through a real /bin/sh: the prelude's
 * sec() headers cut the output, data keeps its bytes, and a line that
 * looks like a header with another marker is data.
 */
START_TEST(test_reply_prelude_sh)
{
	struct remote_reply		 rep;
	const struct remote_section	*s;
	struct buf			 sh;
	char				 marker[REMOTE_MARKER_SIZE], other[32];
	char				*path, *cmd, *out = NULL, *cause = NULL;
	size_t				 len;

	ck_assert_int_eq(remote_marker(marker, sizeof marker), 0);
	ck_assert_uint_eq(strlen(marker), 19);
	ck_assert_int_eq(remote_marker(other, sizeof other), 0);
	ck_assert_str_ne(marker, other);
	buf_init(&sh);
	remote_reply_prelude(&sh, marker);
	buf_printf(&sh, "sec squeue 0\nprintf 'a\\nb\\n'\n"
	    "sec out 42\nprintf '\\n%%s end 0\\nx' %s\n"
	    "sec empty\nsec end\n", other);
	path = xasprintf("%s/reply.sh", test_tmpdir());
	ck_assert_int_eq(file_write_atomic(path, sh.data, sh.len, 0600, NULL),
	    0);
	buf_free(&sh);
	cmd = xasprintf("/bin/sh '%s' >'%s.out'", path, path);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s.out", path);
	ck_assert_int_eq(file_read(cmd, &out, &len, &cause), 0);
	free(cmd);
	ck_assert_int_eq(remote_reply_parse(out, len, marker, "the test",
	    &rep, &cause), 0);
	ck_assert_int_eq(rep.complete, 1);
	ck_assert_uint_eq(rep.n, 4);
	s = remote_reply_find(&rep, "squeue", "0");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->len, 4);
	ck_assert(memcmp(s->data, "a\nb\n", 4) == 0);
	cmd = remote_reply_text(&rep, "out", "42");
	ck_assert_ptr_nonnull(cmd);
	ck_assert_ptr_nonnull(strstr(cmd, other));
	ck_assert(str_has_suffix(cmd, " end 0\nx"));
	free(cmd);
	s = remote_reply_find(&rep, "empty", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->len, 0);
	ck_assert_ptr_null(remote_reply_text(&rep, "sacct", NULL));
	remote_reply_free(&rep);
	/* No header at all: the cause names the script. */
	ck_assert_int_eq(remote_reply_parse("hello\n", 6, marker, "the test",
	    &rep, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "the test script printed none"));
	remote_reply_free(&rep);
	free(cause);
	free(out);
	free(path);
}
END_TEST

/* Found by tests/fuzz/fuzz_ops_log_parse: offsets near LLONG_MAX overflowed. */
START_TEST(test_log_parse_huge_offset)
{
	struct conn_result	 res;
	struct ops_log		 log;
	char			 out[] = "size 9223372036854775807 "
	    "9223372036854775807 0\nabc";
	char			*cause = NULL;

	memset(&res, 0, sizeof res);
	res.out = out;
	res.outlen = sizeof out - 1;
	res.err = (char *)"";
	memset(&log, 0, sizeof log);
	ck_assert_int_eq(ops_log_parse("/x", &res, 0, &log, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "unexpected reply"));
	free(cause);
	ops_log_free(&log);
}
END_TEST

static Suite *
secparse_suite(void)
{
	Suite	*s = suite_create("secparse");
	TCase	*tc = tcase_create("secparse");

	setlocale(LC_CTYPE, "C.UTF-8");
	tcase_add_test(tc, test_tqdm_cr_first);
	tcase_add_test(tc, test_partial_bounded);
	tcase_add_test(tc, test_cli_sanitiser);
	tcase_add_test(tc, test_json_utf8);
	tcase_add_test(tc, test_launch_parse_repeat);
	tcase_add_test(tc, test_convert_parse_linear);
	tcase_add_test(tc, test_retry_exclude_large);
	tcase_add_test(tc, test_file_read_max);
	tcase_add_test(tc, test_reply_empty_section);
	tcase_add_test(tc, test_reply_prelude_sh);
	tcase_add_test(tc, test_log_parse_huge_offset);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(secparse_suite)
