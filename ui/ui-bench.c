/*
 * The frame bench (SQDECK_BENCH_FRAMES=ROWS[,ROWS...]): the screen built
 * and drawn off screen (newterm on /dev/null, 160x50) with that many
 * rows, timed inside the process.  Two kinds of frame: a key (the cursor
 * moves, the frame is drawn) and a poll (a snapshot of every row is
 * merged, the table is sorted again and drawn).  Prints p50/p99 times,
 * sqdeck's own allocations per frame (util.c's x*alloc) and the RSS.
 */
#include "ui-int.h"

#define BENCH_FRAMES	300

static const char *const bench_states[] = {
	"RUNNING", "PENDING", "COMPLETED", "FAILED", "CANCELLED", "RUNNING",
	"PENDING", "TIMEOUT",
};

static double
bench_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static int
bench_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as bench/run's key-to-screen figure. */
static double
bench_pct(double *v, size_t n, int p)
{
	size_t	k = (n * (size_t)p + 99) / 100;

	qsort(v, n, sizeof *v, bench_cmp);
	return v[k > 0 ? k - 1 : 0];
}

static long
bench_rss_kib(void)
{
	FILE	*f = fopen("/proc/self/status", "r");
	char	 line[256];
	long	 kib = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

/* n rows of one cluster; gen changes the running jobs' elapsed time. */
static struct jobtable_row *
bench_rows(size_t n, long gen)
{
	struct jobtable_row	*v = xcalloc(n + 1, sizeof *v);
	size_t			 i;

	for (i = 0; i < n; i++) {
		v[i].cluster = xstrdup("bench");
		v[i].id = xasprintf("%zu", 100000 + i);
		v[i].name = xasprintf("train-%zu-dino", i);
		v[i].partition = xstrdup(i % 3 ? "gpu" : "gpu-long");
		v[i].state = xstrdup(bench_states[i % 8]);
		v[i].elapsed = (long)(i % 7200) + gen;
		v[i].limit = 14400;
		v[i].nodes = 1 + (int)(i % 4);
		v[i].reason = xstrdup(i % 8 == 1 ? "Priority" : "");
	}
	return v;
}

static void
bench_rows_free(struct jobtable_row *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		jobtable_row_clear(&v[i]);
	free(v);
}

static void
bench_one(size_t nrows, FILE *out)
{
	struct ui		 ui;
	struct ucluster		*c;
	struct jobtable_row	*rows;
	struct timespec		 t0, t1;
	double			 key[BENCH_FRAMES], poll[BENCH_FRAMES];
	unsigned long		 a0, akey = 0, apoll = 0;
	size_t			 i;

	memset(&ui, 0, sizeof ui);
	ui.jt = jobtable_create();
	ui.focus = PANE_JOBS;
	ui.log.follow = 1;
	wizard_init(&ui.wiz);
	c = cluster_find(&ui, "bench", 1);
	c->health = CLUSTER_OK;
	c->last_ok = time(NULL);
	ui.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	if (!color_env_off(getenv("NO_COLOR")) && has_colors()) {
		start_color();
		use_default_colors();
		ui.color = 1;
	}
	styles_init(&ui);
	rows = bench_rows(nrows, 0);
	jobtable_merge(ui.jt, "bench", rows, nrows, time(NULL));
	bench_rows_free(rows, nrows);
	ui_draw(&ui);	/* the first frame sizes the columns */

	for (i = 0; i < BENCH_FRAMES; i++) {
		a0 = util_allocs_here();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		jobtable_move(ui.jt, i % 40 < 20 ? 1 : -1);
		ui_draw(&ui);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		akey += util_allocs_here() - a0;
		key[i] = bench_ms(&t0, &t1);
	}
	for (i = 0; i < BENCH_FRAMES; i++) {
		rows = bench_rows(nrows, (long)i + 1);	/* the worker's part */
		a0 = util_allocs_here();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		jobtable_merge(ui.jt, "bench", rows, nrows, time(NULL));
		ui_draw(&ui);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		apoll += util_allocs_here() - a0;
		poll[i] = bench_ms(&t0, &t1);
		bench_rows_free(rows, nrows);
	}
	fprintf(out, "frames rows=%zu key p50=%.3f p99=%.3f ms allocs=%.1f "
	    "poll p50=%.3f p99=%.3f ms allocs=%.1f rss=%ld KiB\n", nrows,
	    bench_pct(key, BENCH_FRAMES, 50), bench_pct(key, BENCH_FRAMES, 99),
	    (double)akey / BENCH_FRAMES, bench_pct(poll, BENCH_FRAMES, 50),
	    bench_pct(poll, BENCH_FRAMES, 99), (double)apoll / BENCH_FRAMES,
	    bench_rss_kib());
	ui_free(&ui);
}

int
ui_bench(const char *spec)
{
	SCREEN		*sp;
	FILE		*out, *in;
	struct strv	 sizes;
	const char	*term = getenv("TERM");
	char		*end;
	size_t		 i;
	long		 n;

	memset(&sizes, 0, sizeof sizes);
	strv_split(&sizes, *spec != '\0' ? spec : "10,10000", ',');
	for (i = 0; i < sizes.n; i++) {
		n = strtol(sizes.v[i], &end, 10);
		if (*end != '\0' || n < 0 || n > 1000000) {
			fprintf(stderr, "sqdeck: SQDECK_BENCH_FRAMES: '%s' is "
			    "not a number of rows (0 to 1000000); use e.g. "
			    "10,10000\n", sizes.v[i]);
			strv_free(&sizes);
			return EXIT_USAGE;
		}
	}
	setlocale(LC_ALL, "");
	setenv("LINES", "50", 1);
	setenv("COLUMNS", "160", 1);
	if ((out = fopen("/dev/null", "w")) == NULL ||
	    (in = fopen("/dev/null", "r")) == NULL ||
	    (sp = newterm(term != NULL && *term != '\0' ? term :
	    "xterm-256color", out, in)) == NULL) {
		fprintf(stderr, "sqdeck: SQDECK_BENCH_FRAMES: cannot set up "
		    "an off-screen terminal (TERM=%s)\n", term ? term : "");
		strv_free(&sizes);
		return EXIT_FAIL;
	}
	set_term(sp);
	for (i = 0; i < sizes.n; i++) {
		n = strtol(sizes.v[i], NULL, 10);
		bench_one((size_t)n, stdout);
		fflush(stdout);
	}
	endwin();
	delscreen(sp);
	fclose(out);
	fclose(in);
	strv_free(&sizes);
	return EXIT_OK;
}
