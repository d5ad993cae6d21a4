#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "eff.h"
#include "ops.h"
#include "record.h"
#include "triage.h"

/* Only the end of a log matters, and training logs can be huge. */
#define TRIAGE_TAIL (256 * 1024)

struct logpart {
	const char	*name;
	size_t		 off;	/* where this file starts in the text */
};

/*
 * Append the last TRIAGE_TAIL bytes of data to b, without the partial
 * first line when that is cut (cut: data itself began mid-file).
 */
static void
tail_add(struct buf *b, const char *data, size_t len, int cut)
{
	const char	*nl;
	size_t		 skip = 0;

	if (len > TRIAGE_TAIL) {
		skip = len - TRIAGE_TAIL;
		cut = 1;
	}
	if (cut && len > skip &&
	    (nl = memchr(data + skip, '\n', len - skip)) != NULL)
		skip = (size_t)(nl - data) + 1;
	if (len > skip)
		buf_add(b, data + skip, len - skip);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		buf_add(b, "\n", 1);
}

/* Append the tail of a file (or stdin) to b. */
static int
read_tail(const char *path, struct buf *b, char **cause)
{
	struct stat	 sb;
	struct buf	 all;
	char		 chunk[8192];
	ssize_t		 n;
	off_t		 from = 0;
	int		 fd, cut = 0;

	if (strcmp(path, "-") == 0)
		fd = dup(STDIN_FILENO);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cause_set(cause, "cannot open log %s: %s", path,
		    strerror(errno));
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size > TRIAGE_TAIL) {
		from = sb.st_size - TRIAGE_TAIL;
		if (lseek(fd, from, SEEK_SET) < 0)
			from = 0;
		cut = from != 0;
	}
	buf_init(&all);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cause_set(cause, "cannot read log %s: %s", path,
			    strerror(errno));
			close(fd);
			buf_free(&all);
			return -1;
		}
		if (n == 0)
			break;
		buf_add(&all, chunk, (size_t)n);
		/* A pipe has no size: keep a window of twice the tail. */
		if (all.len > 2 * TRIAGE_TAIL) {
			memmove(all.data, all.data + all.len - TRIAGE_TAIL,
			    TRIAGE_TAIL);
			all.len = TRIAGE_TAIL;
			all.data[all.len] = '\0';
			cut = 1;
		}
	}
	close(fd);
	tail_add(b, all.data, all.len, cut);
	buf_free(&all);
	return 0;
}

/* Whether a triage argument names a job rather than a log file. */
static int
is_job_arg(const char *a)
{
	const char	*p;

	if (strcmp(a, "-") == 0 || access(a, F_OK) == 0)
		return 0;
	if (strncmp(a, "sd-", 3) == 0)
		return 1;
	for (p = a; *p >= '0' && *p <= '9'; p++)
		;
	return p != a && *p == '\0';
}

/*
 * triage ID: the job's state and exit code from sacct (the record's when
 * sacct has none) and the end of its main.out and main.err from the
 * cluster, as the job's own files (parts, at most 2).  Returns 0, or -1
 * after saying why on stderr.
 */
static int
fetch_job(struct cli *cli, const char *arg, struct buf *text,
    struct logpart *parts, int *nparts, char **state, char **exitstr,
    char **job)
{
	struct config		 cfg;
	struct cluster		*cl;
	struct record		*rec = NULL;
	struct conn		*c = NULL;
	struct conn_result	 res;
	struct eff		 e;
	struct ops_log		 log;
	struct state_map	 sm;
	char			*cmd = NULL, *path, *cause = NULL, *sp;
	long			 sid = 0;
	int			 rc, k, ret = -1;

	memset(&res, 0, sizeof res);
	memset(&e, 0, sizeof e);
	memset(&log, 0, sizeof log);
	*nparts = 0;
	if (cli_load(cli, &cfg, &cl) != 0)
		return -1;
	if ((rc = ops_find(arg, cl->name, &rec, &sid, &cause)) < 0) {
		cli_error("triage", "%s", cause);
		goto out;
	}
	if (rec != NULL && rec->cluster != NULL &&
	    strcmp(rec->cluster, cl->name) != 0 &&
	    (cl = cli_record_cluster(&cfg, rec, &cause)) == NULL) {
		cli_error("triage", "record %s: %s", rec->id,
		    cause);
		goto out;
	}
	if (sid <= 0) {
		cli_error("triage", "record %s has no SLURM job "
		    "id: nothing was launched, so nothing ended", rec->id);
		goto out;
	}
	*job = xasprintf("%ld on %s", sid, cl->name);
	c = conn_new_cluster(cl);
	if ((cmd = eff_cmd(sid, &cause)) == NULL ||
	    conn_exec(c, cmd, NULL, 0, &res, &cause) != 0) {
		cli_error("triage", "job %ld: %s", sid, cause);
		goto out;
	}
	if (res.status == 0 && eff_parse(res.out, sid, &e, &cause) == 0) {
		/* "CANCELLED by 1000": the state is the first word. */
		*state = xstrdup(e.state);
		if ((sp = strchr(*state, ' ')) != NULL)
			*sp = '\0';
		*exitstr = e.exit_code != NULL ? xstrdup(e.exit_code) : NULL;
	} else if (rec == NULL) {
		cli_error("triage", "job %ld: %s, and no sqdeck "
		    "record has it: nothing to triage", sid, cause != NULL ?
		    cause : "sacct failed");
		goto out;
	} else {
		cli_error("triage", "sacct has no state for job "
		    "%ld (%s): the record's last known state is used", sid,
		    cause != NULL ? cause : "sacct failed");
		if (rec->native != NULL && *rec->native != '\0')
			*state = xstrdup(rec->native);
		if (rec->exit_code != NULL)
			*exitstr = xstrdup(rec->exit_code);
	}
	free(cause);
	cause = NULL;
	if (*state != NULL && state_map(*state, STATUS_MISSING, &sm) == 0 &&
	    !sm.terminal)
		cli_error("triage", "job %ld is %s: it has not "
		    "ended, so this is a verdict on its logs so far", sid,
		    *state);
	if (rec == NULL) {
		cli_error("triage", "SLURM job %ld has no sqdeck "
		    "record, so its logs are not known: classified by its "
		    "state and exit code only", sid);
		ret = 0;
		goto out;
	}
	for (k = 0; k < 2; k++) {
		if ((path = ops_log_path(rec, k)) == NULL)
			continue;
		rc = ops_log_tail(c, path, 1000000, &log, &cause);
		free(path);
		if (rc != 0) {
			cli_error("triage", "%s", cause);
			goto out;
		}
		if (!log.missing) {
			parts[*nparts].name = k ? "main.err" : "main.out";
			parts[*nparts].off = text->len;
			(*nparts)++;
			tail_add(text, log.data != NULL ? log.data : "", log.len,
			    log.cut);
		}
		ops_log_free(&log);
		memset(&log, 0, sizeof log);
	}
	if (*nparts == 0)
		cli_error("triage", "job %ld has no main.out or "
		    "main.err: classified by its state and exit code only",
		    sid);
	ret = 0;
out:
	ops_log_free(&log);
	conn_result_free(&res);
	eff_free(&e);
	free(cmd);
	free(cause);
	record_free(rec);
	conn_free(c);
	config_free(&cfg);
	return ret;
}

static void
print_json(const struct triage_result *res, const char *state,
    const char *exitstr, const char *file, const char *job)
{
	cJSON	*o, *m, *a;
	char	*ev;
	int	 i;

	o = cJSON_CreateObject();
	if (job != NULL)
		cJSON_AddStringToObject(o, "job", job);
	cJSON_AddStringToObject(o, "class", err_class_name(res->class));
	cJSON_AddStringToObject(o, "rule", res->rule->name);
	cJSON_AddBoolToObject(o, "retry", res->retry);
	cJSON_AddStringToObject(o, "why", res->rule->why);
	if (state != NULL)
		cJSON_AddStringToObject(o, "state", state);
	else
		cJSON_AddNullToObject(o, "state");
	if (exitstr != NULL)
		cJSON_AddStringToObject(o, "exit", exitstr);
	else
		cJSON_AddNullToObject(o, "exit");
	/* The evidence: the line quoted, or the log's last lines. */
	if ((ev = triage_evidence(res)) != NULL)
		cJSON_AddStringToObject(o, "evidence", ev);
	else
		cJSON_AddNullToObject(o, "evidence");
	free(ev);
	if (res->has_line) {
		m = cJSON_AddObjectToObject(o, "match");
		cJSON_AddStringToObject(m, "file", file);
		cJSON_AddStringToObject(m, "line", res->line);
	} else
		cJSON_AddNullToObject(o, "match");
	a = cJSON_AddArrayToObject(o, "last_lines");
	for (i = 0; i < res->ntail; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(res->tail[i]));
	cli_json(stdout, o, 0);
	cJSON_Delete(o);
}

static const struct option triage_options[] = {
	{ "state", required_argument, NULL, 's' },
	{ "exit", required_argument, NULL, 'e' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int
cli_triage(struct cli *cli, int argc, char **argv)
{
	struct triage_input	 in;
	struct triage_result	 res;
	struct logpart		*parts = NULL;
	struct buf		 text;
	const char		*state = NULL, *exitstr = NULL, *file = NULL;
	char			*cause = NULL, *jstate = NULL, *jexit = NULL;
	char			*job = NULL;
	int			 ch, json = 0, i, nfiles, rc = EXIT_USAGE;

	memset(&in, 0, sizeof in);
	buf_init(&text);
	while ((ch = cli_getopt(cli, &cli_triage_entry, argc, argv)) != -1) {
		switch (ch) {
		case 's':
			state = optarg;
			break;
		case 'e':
			exitstr = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			return CLI_OPT_EXIT(ch);
		}
	}
	argc -= optind;
	argv += optind;
	/* triage ID: what it needs is fetched from the cluster. */
	if (argc == 1 && is_job_arg(argv[0])) {
		if (state != NULL || exitstr != NULL) {
			cli_error("triage", "--state and --exit go "
			    "with LOGFILEs: for a job id they come from sacct");
			return EXIT_USAGE;
		}
		parts = xcalloc(3, sizeof *parts);
		if (fetch_job(cli, argv[0], &text, parts, &nfiles, &jstate,
		    &jexit, &job) != 0) {
			rc = EXIT_FAIL;
			goto out;
		}
		state = jstate;
		exitstr = jexit;
	}
	if (argc == 0 && state == NULL && exitstr == NULL) {
		cli_error("triage", "nothing to classify: give "
		    "LOGFILEs, --state or --exit");
		cli_usage(&cli_triage_entry, stderr);
		return EXIT_USAGE;
	}
	if (exitstr != NULL) {
		if (triage_parse_exit(exitstr, &in.exit_code, &in.exit_signal,
		    &cause) != 0) {
			cli_error("triage", "--exit: %s", cause);
			free(cause);
			return EXIT_USAGE;
		}
		in.has_exit = 1;
	}
	if (state != NULL && !state_known(state)) {
		cli_error("triage", "warning: '%s' is not a "
		    "SLURM state sqdeck knows; only the exit status and "
		    "logs are used", state);
	}
	in.state = state;

	if (job == NULL) {
		nfiles = argc;
		parts = xcalloc((size_t)nfiles + 1, sizeof *parts);
	}
	for (i = 0; job == NULL && i < nfiles; i++) {
		parts[i].name = argv[i];
		parts[i].off = text.len;
		if (read_tail(argv[i], &text, &cause) != 0) {
			cli_error("triage", "%s", cause);
			free(cause);
			goto out;
		}
	}
	in.log = text.data;
	in.loglen = text.len;
	triage_classify(&in, &res);

	if (res.has_line) {
		for (i = nfiles - 1; i >= 0; i--) {
			if (res.line_off >= parts[i].off) {
				file = parts[i].name;
				break;
			}
		}
	}
	if (json)
		print_json(&res, state, exitstr, file != NULL ? file : "", job);
	else {
		if (job != NULL)
			cli_printf("job:   %s (%s, exit %s)\n", job,
			    state != NULL ? state : "state unknown",
			    exitstr != NULL ? exitstr : "unknown");
		cli_printf("class: %s\n", err_class_name(res.class));
		cli_printf("rule:  %s\n", res.rule->name);
		cli_printf("retry: %s\n", res.retry ? "yes (infrastructure: "
		    "resubmit within the retry budget)" : "no");
		cli_printf("why:   %s\n", res.rule->why);
		if (res.has_line)
			cli_printf("match: %s: %s\n", file != NULL ? file : "-",
			    res.line);
		for (i = 0; i < res.ntail; i++)
			cli_printf("last:  %s\n", res.tail[i]);
	}
	rc = EXIT_OK;
out:
	free(parts);
	free(jstate);
	free(jexit);
	free(job);
	buf_free(&text);
	return rc;
}

const struct cli_entry cli_triage_entry = {
	.name = "triage",
	.usage = "[--state STATE] [--exit CODE[:SIGNAL]] [--json] "
	    "[LOGFILE...]\n"
	    "       sqdeck triage [--cluster NAME] [--json] ID",
	.summary = "classify a failed job as INFRA, PROGRAM or CONFIG",
	.help = "  --state  the SLURM state (sacct State), e.g. FAILED, "
	    "NODE_FAIL\n"
	    "  --exit   the exit status as sacct prints it, e.g. 3:0 "
	    "or 0:9\n"
	    "  LOGFILE  main.out, main.err (- for stdin); the last 256 "
	    "KiB of each is read\n"
	    "  ID       a SLURM job id or record id: its state and "
	    "exit code from sacct\n"
	    "           and the end of its main.out and main.err are "
	    "fetched from the cluster\n",
	.shortopts = "s:e:j",
	.longopts = triage_options,
	.flags = CLI_CLUSTER,
	.exec = cli_triage,
};
