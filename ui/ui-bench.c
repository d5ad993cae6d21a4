/*
 * The frame bench (SQDECK_BENCH_FRAMES=ROWS[,ROWS...]): the screen built
 * and drawn off screen (newterm on /dev/null, 160x50) with that many
 * rows, timed inside the process.  Four kinds of frame: a key (the cursor
 * moves, the frame is drawn), a poll (a snapshot where every row's run
 * time moved is merged and drawn), an idle poll (the snapshot an idle
 * board's poll brings: one row changed state, the running rows' times
 * moved) and a tick (the clock's frame: nothing changed).  Prints p50/p99
 * wall times, p50/p99 CPU times of the thread (what a loaded machine does
 * not inflate), sqdeck's own allocations per frame (util.c's x*alloc)
 * and the RSS.
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

/* A frame's wall and CPU times. */
struct bench_t {
	struct timespec	w, c;
};

static void
bench_now(struct bench_t *t)
{
	clock_gettime(CLOCK_MONOTONIC, &t->w);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t->c);
}

/* n rows of one cluster; gen changes every job's elapsed time. */
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

/*
 * An idle board's snapshot after bench_rows(n, gen): the running rows a
 * second older, and one row's state changed (a job ended).
 */
static struct jobtable_row *
bench_rows_idle(size_t n, long gen)
{
	struct jobtable_row	*v = bench_rows(n, gen);
	size_t			 i, k = n > 0 ? (size_t)gen * 7919 % n : 0;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i].state, "RUNNING") == 0)
			v[i].elapsed++;
	}
	if (n > 0) {
		free(v[k].state);
		v[k].state = xstrdup(gen % 2 ? "COMPLETED" : "FAILED");
	}
	return v;
}

enum { BK_KEY, BK_POLL, BK_IDLE, BK_TICK, BK_COUNT };

struct bench_kind {
	double		wall[BENCH_FRAMES];
	double		cpu[BENCH_FRAMES];
	unsigned long	allocs;
};

/* One frame: what changed (rows, or a cursor move), then the frame. */
static void
bench_frame(struct ui *ui, struct bench_kind *k, size_t i, int kind,
    size_t nrows)
{
	struct jobtable_row	*rows = NULL;
	struct bench_t		 t0, t1;
	unsigned long		 a0;

	/* The worker's part, not timed: the rows of its snapshot. */
	if (kind == BK_POLL)
		rows = bench_rows(nrows, (long)i + 1);
	else if (kind == BK_IDLE)
		rows = bench_rows_idle(nrows, (long)i + 1);
	a0 = util_allocs_here();
	bench_now(&t0);
	if (kind == BK_KEY)
		jobtable_move(ui->jt, i % 40 < 20 ? 1 : -1);
	else if (rows != NULL)
		jobtable_merge(ui->jt, "bench", rows, nrows, time(NULL));
	ui_draw(ui);
	bench_now(&t1);
	k->allocs += util_allocs_here() - a0;
	k->wall[i] = bench_ms(&t0.w, &t1.w);
	k->cpu[i] = bench_ms(&t0.c, &t1.c);
	if (rows != NULL)
		bench_rows_free(rows, nrows);
}

static void
bench_one(size_t nrows, FILE *out)
{
	static const char *const names[BK_COUNT] = { "key", "poll", "idle",
	    "tick" };
	struct ui		 ui;
	struct ucluster		*c;
	struct jobtable_row	*rows;
	struct bench_kind	*k;
	size_t			 i;
	int			 kind;

	memset(&ui, 0, sizeof ui);
	ui.jt = jobtable_create();
	jobtable_set_sort(ui.jt, JT_STATE, 0);	/* the first screen's sort */
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

	/*
	 * Frames of each kind in turn, so that a loaded machine's slow
	 * moments fall on every kind alike.
	 */
	k = xcalloc(BK_COUNT, sizeof *k);
	for (i = 0; i < BENCH_FRAMES; i++) {
		for (kind = 0; kind < BK_COUNT; kind++)
			bench_frame(&ui, &k[kind], i, kind, nrows);
	}
	fprintf(out, "frames rows=%zu", nrows);
	for (kind = 0; kind < BK_COUNT; kind++) {
		fprintf(out, " %s p50=%.3f p99=%.3f ms cpu50=%.3f cpu99=%.3f "
		    "ms allocs=%.1f", names[kind],
		    bench_pct(k[kind].wall, BENCH_FRAMES, 50),
		    bench_pct(k[kind].wall, BENCH_FRAMES, 99),
		    bench_pct(k[kind].cpu, BENCH_FRAMES, 50),
		    bench_pct(k[kind].cpu, BENCH_FRAMES, 99),
		    (double)k[kind].allocs / BENCH_FRAMES);
	}
	fprintf(out, " rss=%ld KiB\n", bench_rss_kib());
	free(k);
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
