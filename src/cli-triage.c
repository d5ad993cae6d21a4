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
#include "triage.h"

/* Only the end of a log matters, and training logs can be huge. */
#define TRIAGE_TAIL (256 * 1024)

struct logpart {
	const char	*name;
	size_t		 off;	/* where this file starts in the text */
};

static void
triage_usage(FILE *f)
{
	cli_fprintf(f, "usage: sqdeck triage [--state STATE] [--exit CODE[:SIGNAL]] "
	    "[--json] [LOGFILE...]\n"
	    "  --state  the SLURM state (sacct State), e.g. FAILED, NODE_FAIL\n"
	    "  --exit   the exit status as sacct prints it, e.g. 3:0 or 0:9\n"
	    "  LOGFILE  main.out, main.err (- for stdin); the last 256 KiB "
	    "of each is read\n");
}

/* Append the tail of a file (or stdin) to b. */
static int
read_tail(const char *path, struct buf *b, char **cause)
{
	struct stat	 sb;
	struct buf	 all;
	char		 chunk[8192];
	const char	*nl;
	size_t		 skip;
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
	skip = 0;
	if (all.len > TRIAGE_TAIL) {
		skip = all.len - TRIAGE_TAIL;
		cut = 1;
	}
	/* Drop the partial first line of a cut tail. */
	if (cut && all.len > skip &&
	    (nl = memchr(all.data + skip, '\n', all.len - skip)) != NULL)
		skip = (size_t)(nl - all.data) + 1;
	if (all.len > skip)
		buf_add(b, all.data + skip, all.len - skip);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		buf_add(b, "\n", 1);
	buf_free(&all);
	return 0;
}

static void
print_json(const struct triage_result *res, const char *state,
    const char *exitstr, const char *file)
{
	cJSON	*o, *m, *a;
	char	*ev;
	int	 i;

	o = cJSON_CreateObject();
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

int
cli_triage(struct cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "state", required_argument, NULL, 's' },
		{ "exit", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct triage_input	 in;
	struct triage_result	 res;
	struct logpart		*parts = NULL;
	struct buf		 text;
	const char		*state = NULL, *exitstr = NULL, *file = NULL;
	char			*cause = NULL;
	int			 ch, json = 0, i, nfiles, rc = EXIT_USAGE;

	(void)cli;
	memset(&in, 0, sizeof in);
	buf_init(&text);
	while ((ch = getopt_long(argc, argv, "s:e:jh", longopts, NULL)) != -1) {
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
		case 'h':
			triage_usage(stdout);
			return EXIT_OK;
		default:
			triage_usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0 && state == NULL && exitstr == NULL) {
		cli_fprintf(stderr, "sqdeck: triage: nothing to classify: give "
		    "LOGFILEs, --state or --exit\n");
		triage_usage(stderr);
		return EXIT_USAGE;
	}
	if (exitstr != NULL) {
		if (triage_parse_exit(exitstr, &in.exit_code, &in.exit_signal,
		    &cause) != 0) {
			cli_fprintf(stderr, "sqdeck: triage: --exit: %s\n", cause);
			free(cause);
			return EXIT_USAGE;
		}
		in.has_exit = 1;
	}
	if (state != NULL && !state_known(state)) {
		cli_fprintf(stderr, "sqdeck: triage: warning: '%s' is not a "
		    "SLURM state sqdeck knows; only the exit status and "
		    "logs are used\n", state);
	}
	in.state = state;

	nfiles = argc;
	parts = xcalloc((size_t)nfiles + 1, sizeof *parts);
	for (i = 0; i < nfiles; i++) {
		parts[i].name = argv[i];
		parts[i].off = text.len;
		if (read_tail(argv[i], &text, &cause) != 0) {
			cli_fprintf(stderr, "sqdeck: triage: %s\n", cause);
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
		print_json(&res, state, exitstr, file != NULL ? file : "");
	else {
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
	buf_free(&text);
	return rc;
}
