#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conn.h"
#include "follow.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"

#define LOGS_CHUNK	(256 * 1024)	/* bytes per read while following */
#define LOGS_DEFAULT_LINES 200		/* tail -n ${N:-200} of the procedure */

static volatile sig_atomic_t logs_stop;

static void
logs_sigint(int sig)
{
	(void)sig;
	logs_stop = 1;
}

static void
logs_sleep(int secs)
{
	struct timespec	ts = { secs, 0 };

	while (!logs_stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void
logs_write(const struct ops_log *log)
{
	char	*s;
	size_t	 len;

	if (log->len == 0)
		return;
	s = ops_sanitize(log->data, log->len, &len);
	fwrite(s, 1, len, stdout);
	fflush(stdout);
	free(s);
}

/* Is the job over?  Asks the cluster (one poll) and reloads the record. */
static int
logs_job_ended(struct conn *c, const struct cluster *cl, const char *id)
{
	struct monitor_opts	 opts;
	struct monitor_snapshot	 snap;
	struct record		*r;
	char			*cause = NULL;
	int			 ended = 0;

	memset(&opts, 0, sizeof opts);
	opts.user = cl->user;
	if (monitor_poll(c, cl->name, &opts, &snap, &cause) != 0) {
		/* Not fatal: the log is still worth following. */
		cli_fprintf(stderr, "sqdeck: logs: %s\n", cause);
		free(cause);
		cause = NULL;
	}
	monitor_snapshot_free(&snap);
	if (record_load(id, &r, &cause) == 0) {
		ended = state_terminal(r->state);
		record_free(r);
	}
	free(cause);
	return ended;
}

static const struct option logs_options[] = {
	{ "err", no_argument, NULL, 'e' },
	{ "follow", no_argument, NULL, 'f' },
	{ "interval", required_argument, NULL, 'i' },
	{ "lines", required_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 }
};

static int
cli_logs(struct cli *cli, int argc, char **argv)
{
	struct config		 cfg;
	struct cluster		*cl;
	struct conn		*c = NULL;
	struct record		*rec = NULL;
	struct ops_log		 log;
	struct sigaction	 sa, oldsa;
	char			*cause = NULL, *path = NULL, *shown = NULL;
	struct follow		 f;
	long			 lines = LOGS_DEFAULT_LINES, interval = 1, sid;
	time_t			 last_poll = 0;
	int			 ch, err = 0, follow = 0, rc, ret = EXIT_FAIL;
	int			 waiting = 0, flags, poll_every;

	memset(&log, 0, sizeof log);
	while ((ch = cli_getopt(cli, &cli_logs_entry, argc, argv)) != -1) {
		switch (ch) {
		case 'e':
			err = 1;
			break;
		case 'f':
			follow = 1;
			break;
		case 'i':
			if (cli_number(optarg, 1, 3600, &interval) != 0) {
				cli_error("logs", "--interval "
				    "must be whole seconds from 1 to 3600, not "
				    "'%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (cli_number(optarg, 0, 1000000, &lines) != 0) {
				cli_error("logs", "-n must be a "
				    "line count from 0 to 1000000, not '%s'",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			return CLI_OPT_EXIT(ch);
		}
	}
	if (argc - optind != 1) {
		cli_error("logs", "%s", argc == optind ?
		    "which job? give one record id or SLURM job id" :
		    "one job at a time");
		cli_usage(&cli_logs_entry, stderr);
		return EXIT_USAGE;
	}
	if (cli_load(cli, &cfg, &cl) != 0)
		return EXIT_FAIL;
	rc = ops_find(argv[optind], cl->name, &rec, &sid, &cause);
	if (rc != 0) {
		if (rc == 1)
			cli_error("logs", "SLURM job %ld has no "
			    "sqdeck record, so its log path is not known",
			    sid);
		else
			cli_error("logs", "%s", cause);
		ret = EXIT_USAGE;
		goto out;
	}
	if (rec->cluster != NULL && strcmp(rec->cluster, cl->name) != 0 &&
	    (cl = cli_record_cluster(&cfg, rec, &cause)) == NULL) {
		cli_error("logs", "record %s: %s", rec->id,
		    cause);
		goto out;
	}
	if ((path = ops_log_path(rec, err)) == NULL) {
		cli_error("logs", "record %s has no %s yet, so "
		    "it has no log", rec->id, record_slurm_id(rec) == NULL ?
		    "SLURM job id" : "job_dir or job_name");
		goto out;
	}
	shown = ops_clean(path);
	c = conn_new_cluster(cl);

	/* R18: tail -n N first. */
	follow_init(&f, path, -1, (int)lines, LOGS_CHUNK);
	if ((flags = follow_read(c, &f, &log, &cause)) < 0) {
		cli_error("logs", "%s", cause);
		goto out;
	}
	if (log.missing && !follow) {
		cli_error("logs", "%s does not exist (yet): the "
		    "job is %s", shown, state_word(rec->state));
		goto out;
	}
	logs_write(&log);
	if (log.cut)
		cli_error("logs", "the first line shown is cut at "
		    "its start: it is longer than the last MiB that sqdeck "
		    "reads (%s on the cluster has it whole)", shown);
	if (log.missing) {
		cli_error("logs", "waiting for log %s", shown);
		waiting = 1;
	}
	ops_log_free(&log);
	if (!follow) {
		ret = EXIT_OK;
		goto out;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = logs_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oldsa);
	poll_every = config_poll_interval(cl);
	if (poll_every < interval)
		poll_every = (int)interval;
	f.ended = state_terminal(rec->state);
	while (!logs_stop) {
		/* Ask SLURM now and then (only look); the log every interval. */
		if (!f.ended && time(NULL) - last_poll >= poll_every) {
			f.ended = logs_job_ended(c, cl, rec->id);
			last_poll = time(NULL);
		}
		if ((flags = follow_read(c, &f, &log, &cause)) < 0) {
			/* A dropped read is retried; the place is kept. */
			cli_fprintf(stderr, "sqdeck: logs: %s\n", cause);
			free(cause);
			cause = NULL;
			ops_log_free(&log);
			if (f.ended)
				break;
			logs_sleep((int)interval);
			continue;
		}
		if (flags & FOLLOW_MISSING) {
			if (!waiting)
				cli_fprintf(stderr, "sqdeck: logs: waiting for "
				    "log %s\n", shown);
			waiting = 1;
		} else {
			if (log.truncated)
				cli_fprintf(stderr, "sqdeck: logs: %s was "
				    "truncated; reading it from the start\n",
				    shown);
			waiting = 0;
			logs_write(&log);
		}
		ops_log_free(&log);
		if (flags & FOLLOW_DONE)
			break;	/* the job is over and its log drained */
		/* A full chunk: more is waiting, read again at once. */
		if (!(flags & (FOLLOW_EOF | FOLLOW_MISSING)))
			continue;
		logs_sleep((int)interval);
	}
	sigaction(SIGINT, &oldsa, NULL);
	if (f.ended && !logs_stop)
		cli_fprintf(stderr, "sqdeck: logs: job ended\n");
	ret = EXIT_OK;
out:
	ops_log_free(&log);
	free(shown);
	free(path);
	free(cause);
	record_free(rec);
	conn_free(c);
	config_free(&cfg);
	return ret;
}

const struct cli_entry cli_logs_entry = {
	.name = "logs",
	.usage = "ID [--cluster NAME] [-n N] [--err] [--follow [--interval "
	    "S]]",
	.summary = "show the job's main.out (or main.err)",
	.help = "  ID          record id or SLURM job id of a tracked job\n"
	    "  -n N        the last N lines (default 200, as the "
	    "procedure says)\n"
	    "  --err       main.err instead of main.out\n"
	    "  --follow    then print what is appended until the job "
	    "ends (or Ctrl-C)\n"
	    "  --interval  seconds between reads while following "
	    "(default 1)\n",
	.shortopts = "efi:n:",
	.longopts = logs_options,
	.flags = CLI_CLUSTER,
	.exec = cli_logs,
};
