/*
 * triage against the public-source catalog (issue 16): every entry of
 * tests/data/triage/catalog.tsv is a few lines as SLURM, the NVIDIA driver,
 * CUDA, NCCL, PyTorch, Enroot or Pyxis print them, with the class a human
 * gave it and where the message is documented or reported.  The suite prints
 * accuracy per class (all entries, the tuning split, the held-out split) and
 * the confusion matrix, and fails when:
 *
 *  - a PROGRAM, CONFIG or UNKNOWN entry is classed INFRA (a false INFRA
 *    retries a bug on other nodes and burns the retry budget);
 *  - overall accuracy is under 95 %;
 *  - any class's accuracy is below the stored baseline, or any wrong cell of
 *    the confusion matrix holds more entries than the baseline
 *    (tests/data/triage/baseline.tsv);
 *  - a verdict quotes no evidence: a rule with a pattern must quote a line
 *    of the excerpt, a verdict from the state or exit status alone must
 *    carry the last meaningful lines of a non-empty log.
 *
 * After a deliberate change (new entries, better rules) write the new
 * baseline with SQDECK_TRIAGE_BASELINE_OUT=tests/data/triage/baseline.tsv
 * and commit it with the reason.
 */
#include "testutil.h"

#include "triage.h"
#include "util.h"

#define NCLASS		5	/* enum err_class: NONE .. UNKNOWN */
#define MAXENTRIES	1024

struct entry {
	char		*id;
	enum err_class	 class;
	int		 held;		/* split "held": written after tuning */
	char		*state;		/* NULL: "-" */
	char		*exit;		/* NULL: "-" */
	char		*category;
	char		*file;
	char		*provenance;
};

struct catalog {
	struct entry	 v[MAXENTRIES];
	size_t		 n;
	char		*text;
};

static char *
field_or_null(char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

static void
catalog_load(struct catalog *c)
{
	char	*cause = NULL, *line, *next, *f[8];
	size_t	 len, nf, lineno = 0;
	struct entry *e;

	memset(c, 0, sizeof *c);
	ck_assert_msg(file_read(test_data("triage/catalog.tsv"), &c->text, &len,
	    &cause) == 0, "%s", cause);
	for (line = c->text; line != NULL && *line != '\0'; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line == '#' || *line == '\0')
			continue;
		for (nf = 0; nf < 8; nf++) {
			f[nf] = line;
			line = strchr(line, '\t');
			if (line == NULL) {
				nf++;
				break;
			}
			*line++ = '\0';
		}
		ck_assert_msg(nf == 8 && line == NULL, "catalog.tsv:%zu: want 8 "
		    "tab-separated fields (id class split state exit category "
		    "file provenance)", lineno);
		ck_assert_uint_lt(c->n, MAXENTRIES);
		e = &c->v[c->n++];
		e->id = f[0];
		ck_assert_msg(err_class_from_name(f[1], &e->class) == 0 &&
		    e->class != ERR_NONE, "catalog.tsv:%zu: class '%s'", lineno,
		    f[1]);
		ck_assert_msg(strcmp(f[2], "tune") == 0 || strcmp(f[2], "held") ==
		    0, "catalog.tsv:%zu: split '%s'", lineno, f[2]);
		e->held = strcmp(f[2], "held") == 0;
		e->state = field_or_null(f[3]);
		e->exit = field_or_null(f[4]);
		e->category = f[5];
		e->file = f[6];
		e->provenance = f[7];
		ck_assert_msg(strlen(e->provenance) > 8, "catalog.tsv:%zu: %s has "
		    "no provenance", lineno, e->id);
	}
}

struct outcome {
	enum err_class	 got;
	const char	*rule;
	int		 fallback;	/* decided by state/exit, not a line */
};

static void
run_entry(const struct entry *e, struct outcome *o)
{
	struct triage_input	 in;
	struct triage_result	 res;
	char			*text, *path, *cause = NULL, *nl;
	size_t			 len;
	int			 i;

	memset(&in, 0, sizeof in);
	in.state = e->state;
	if (e->exit != NULL) {
		ck_assert_msg(triage_parse_exit(e->exit, &in.exit_code,
		    &in.exit_signal, &cause) == 0, "%s: %s", e->id, cause);
		in.has_exit = 1;
	}
	path = xasprintf("triage/%s", e->file);
	ck_assert_msg(file_read(test_data(path), &text, &len, &cause) == 0,
	    "%s: %s", e->id, cause);
	free(path);
	in.log = text;
	in.loglen = len;
	triage_classify(&in, &res);

	o->got = res.class;
	o->rule = res.rule->name;
	o->fallback = res.rule->pattern == NULL;
	ck_assert_int_eq(res.retry, res.class == ERR_INFRA);
	if (res.rule->pattern != NULL) {
		/* The quoted evidence is a line of the excerpt, as printed. */
		ck_assert_msg(res.has_line, "%s: rule %s quotes no line", e->id,
		    res.rule->name);
		ck_assert_msg(strstr(text, res.line) != NULL, "%s: evidence '%s' "
		    "is not a line of %s", e->id, res.line, e->file);
	} else {
		/* No line decided: the last meaningful lines stand in. */
		for (nl = text; *nl == '\n' || *nl == ' '; nl++)
			;
		ck_assert_msg(*nl == '\0' || res.ntail > 0, "%s: verdict by "
		    "%s without the last lines of the log", e->id,
		    res.rule->name);
		for (i = 0; i < res.ntail; i++)
			ck_assert_msg(strstr(text, res.tail[i]) != NULL,
			    "%s: tail line '%s' not in the log", e->id,
			    res.tail[i]);
	}
	free(text);
}

static const char *
cname(int c)
{
	return err_class_name((enum err_class)c);
}

struct tally {
	unsigned	m[NCLASS][NCLASS];	/* [expected][got] */
	unsigned	n[NCLASS];
};

static void
tally_print(const char *title, const struct tally *t)
{
	unsigned	total = 0, right = 0;
	int		e;

	for (e = 1; e < NCLASS; e++) {
		total += t->n[e];
		right += t->m[e][e];
	}
	printf("%s: %u/%u right (%.1f %%)\n", title, right, total,
	    total ? 100.0 * right / total : 100.0);
	for (e = 1; e < NCLASS; e++) {
		if (t->n[e] == 0)
			continue;
		printf("  %-8s %3u/%-3u %5.1f %%\n", cname(e), t->m[e][e],
		    t->n[e], 100.0 * t->m[e][e] / t->n[e]);
	}
}

static void
matrix_print(const struct tally *t)
{
	int	e, g;

	printf("confusion matrix (rows: catalog class, columns: verdict)\n");
	printf("  %-8s", "");
	for (g = 1; g < NCLASS; g++)
		printf(" %8s", cname(g));
	printf("\n");
	for (e = 1; e < NCLASS; e++) {
		printf("  %-8s", cname(e));
		for (g = 1; g < NCLASS; g++)
			printf(" %8u", t->m[e][g]);
		printf("\n");
	}
}

static void
baseline_load(unsigned base[NCLASS][NCLASS])
{
	char		*text, *cause = NULL, *line, *next, a[32], b[32];
	size_t		 len;
	unsigned	 n;
	enum err_class	 e, g;

	memset(base, 0, sizeof(unsigned) * NCLASS * NCLASS);
	ck_assert_msg(file_read(test_data("triage/baseline.tsv"), &text, &len,
	    &cause) == 0, "%s", cause);
	for (line = text; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line == '#' || *line == '\0')
			continue;
		ck_assert_msg(sscanf(line, "%31s %31s %u", a, b, &n) == 3 &&
		    err_class_from_name(a, &e) == 0 &&
		    err_class_from_name(b, &g) == 0, "baseline.tsv: bad line "
		    "'%s'", line);
		base[e][g] = n;
	}
	free(text);
}

static void
baseline_write(const char *path, const struct tally *t)
{
	FILE	*f = fopen(path, "w");
	int	 e, g;

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fprintf(f, "# Accepted confusion matrix of tests/data/triage/catalog.tsv"
	    " (check_triage_catalog):\n# catalog class, verdict, entries.  "
	    "Accuracy per class and every wrong cell\n# may only get better; "
	    "rewrite with SQDECK_TRIAGE_BASELINE_OUT=<this file>.\n");
	for (e = 1; e < NCLASS; e++)
		for (g = 1; g < NCLASS; g++)
			if (t->m[e][g] != 0)
				fprintf(f, "%s\t%s\t%u\n", cname(e), cname(g),
				    t->m[e][g]);
	fclose(f);
}

START_TEST(test_catalog)
{
	static struct catalog	 c;
	struct tally		 all, tune, held;
	struct outcome		 o;
	unsigned		 base[NCLASS][NCLASS], bn[NCLASS];
	unsigned		 right = 0, total = 0, fallback = 0, cats = 0;
	const char		*out;
	size_t			 i;
	int			 e, g, bad = 0;

	catalog_load(&c);
	memset(&all, 0, sizeof all);
	memset(&tune, 0, sizeof tune);
	memset(&held, 0, sizeof held);
	for (i = 0; i < c.n; i++) {
		run_entry(&c.v[i], &o);
		all.m[c.v[i].class][o.got]++;
		all.n[c.v[i].class]++;
		if (c.v[i].held) {
			held.m[c.v[i].class][o.got]++;
			held.n[c.v[i].class]++;
		} else {
			tune.m[c.v[i].class][o.got]++;
			tune.n[c.v[i].class]++;
		}
		if (o.fallback)
			fallback++;
		if (o.got != c.v[i].class)
			printf("miss %-36s %-7s -> %-7s (rule %s)\n",
			    c.v[i].id, cname(c.v[i].class), cname(o.got),
			    o.rule);
	}
	for (i = 0; i < c.n; i++) {
		size_t	j;

		for (j = 0; j < i; j++)
			if (strcmp(c.v[i].category, c.v[j].category) == 0)
				break;
		cats += j == i;
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(c.v[i].id, c.v[j].id) != 0,
			    "duplicate catalog id %s", c.v[i].id);
	}
	printf("triage catalog: %zu entries, %u categories, %u decided by "
	    "state/exit alone\n", c.n, cats, fallback);
	tally_print("all", &all);
	tally_print("tuning split", &tune);
	tally_print("held-out split", &held);
	matrix_print(&all);
	fflush(stdout);

	ck_assert_msg(c.n >= 150, "the catalog has %zu entries, want at least "
	    "150", c.n);
	/* A false INFRA retries a bug on other nodes: never. */
	for (e = 1; e < NCLASS; e++) {
		if (e != ERR_INFRA)
			ck_assert_msg(all.m[e][ERR_INFRA] == 0, "%u %s entries "
			    "classed INFRA", all.m[e][ERR_INFRA], cname(e));
		right += all.m[e][e];
		total += all.n[e];
	}
	ck_assert_msg(right * 100 >= total * 95, "accuracy %u/%u is under "
	    "95 %%", right, total);

	if ((out = getenv("SQDECK_TRIAGE_BASELINE_OUT")) != NULL) {
		baseline_write(out, &all);
		printf("baseline written to %s\n", out);
		return;
	}
	baseline_load(base);
	for (e = 1; e < NCLASS; e++) {
		bn[e] = 0;
		for (g = 1; g < NCLASS; g++)
			bn[e] += base[e][g];
	}
	for (e = 1; e < NCLASS; e++) {
		/* right/n >= base_right/base_n, in integers. */
		if (bn[e] != 0 && (unsigned long)all.m[e][e] * bn[e] <
		    (unsigned long)base[e][e] * all.n[e]) {
			printf("accuracy of %s fell: %u/%u, baseline %u/%u\n",
			    cname(e), all.m[e][e], all.n[e], base[e][e], bn[e]);
			bad = 1;
		}
		for (g = 1; g < NCLASS; g++) {
			if (g != e && all.m[e][g] > base[e][g]) {
				printf("confusion %s -> %s rose: %u, baseline "
				    "%u\n", cname(e), cname(g), all.m[e][g],
				    base[e][g]);
				bad = 1;
			}
		}
	}
	fflush(stdout);
	ck_assert_msg(!bad, "triage got worse than tests/data/triage/"
	    "baseline.tsv (see above); if the change is deliberate, rewrite it "
	    "with SQDECK_TRIAGE_BASELINE_OUT");
}
END_TEST

static Suite *
catalog_suite(void)
{
	Suite	*s = suite_create("triage_catalog");
	TCase	*tc = tcase_create("catalog");

	tcase_add_test(tc, test_catalog);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(catalog_suite)
