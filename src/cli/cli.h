#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "config.h"

/* Options that come before the verb, shared by all verbs. */
struct cli {
	const char	*config_path;	/* -c FILE */
	const char	*cluster;	/* --cluster NAME */
	int		 verbose;	/* -v */
};

/* Parse global options; no verb runs tui (the screen lives in libui). */
int	 cli_main(int argc, char **argv, int (*tui)(const char *config_path));

/*
 * Load the config and select the cluster (--cluster, or the first one).
 * Prints the error and returns -1 on failure.
 */
int	 cli_load(struct cli *, struct config *, struct cluster **);
/* Records made under a cluster name now gone: moved by host and user,
   said on stderr (ops_adopt). */
void	 cli_adopt(const struct config *);
/* The cluster of a record, or NULL with a cause saying how to fix it. */
struct record;
struct cluster	*cli_record_cluster(struct config *, const struct record *,
		     char **cause);

/*
 * Every line a verb prints on a terminal goes through these: the text is
 * formatted, then made safe by text_sanitize() (escape sequences removed;
 * C0, C1 (raw 0x9b and UTF-8 U+009B), bidi controls and invalid UTF-8
 * replaced; newlines and tabs kept), so a value from a spec, clusters.yaml,
 * a record or the cluster cannot drive the terminal.
 */
void	 cli_printf(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 cli_fprintf(FILE *, const char *, ...)
	     __attribute__((format(printf, 2, 3)));
/* Raw text (a script, a log) through the same sanitiser. */
void	 cli_fputs(const char *, FILE *);
/*
 * A JSON document and a newline (formatted, or one line with compact):
 * every string is valid UTF-8 (invalid bytes become U+FFFD), whatever the
 * cluster put in a job name or a log.
 */
void	 cli_json(FILE *, const cJSON *, int compact);

/*
 * A verb, as tmux's cmd_entry: each cli-*.c exports one.  sqdeck --help
 * lists them (name, usage, summary); sqdeck VERB --help prints
 * "usage: sqdeck NAME USAGE" and the help lines.  exec gets argv[0] = the
 * verb name and parses the rest with cli_getopt().
 */
struct cli_entry {
	const char		*name;
	const char		*usage;		/* after "sqdeck NAME " */
	const char		*summary;	/* its line in sqdeck --help */
	const char		*help;		/* under the usage, or NULL */
	const char		*shortopts;	/* getopt's, without h */
	const struct option	*longopts;	/* without help and cluster */
	int			 flags;
#define CLI_CLUSTER	0x1	/* uses a cluster: --cluster after it too */
	int			(*exec)(struct cli *, int, char **);
};

/* Every verb, in the order of sqdeck --help; NULL at the end. */
extern const struct cli_entry *const cli_entries[];

extern const struct cli_entry cli_preflight_entry;
extern const struct cli_entry cli_submit_entry;
extern const struct cli_entry cli_status_entry;
extern const struct cli_entry cli_logs_entry;
extern const struct cli_entry cli_cancel_entry;
extern const struct cli_entry cli_jobs_entry;
extern const struct cli_entry cli_history_entry;
extern const struct cli_entry cli_creds_entry;
extern const struct cli_entry cli_retry_entry;
extern const struct cli_entry cli_login_entry;
extern const struct cli_entry cli_logout_entry;
extern const struct cli_entry cli_records_entry;
extern const struct cli_entry cli_triage_entry;

/* What cli_getopt() returns besides an option of the verb and -1. */
#define CLI_OPT_HELP	(-2)	/* --help printed on stdout */
#define CLI_OPT_BAD	(-3)	/* a bad option said, with the usage */
/* The verb's exit status for CLI_OPT_HELP and CLI_OPT_BAD. */
#define CLI_OPT_EXIT(ch)	((ch) == CLI_OPT_HELP ? EXIT_OK : EXIT_USAGE)

/*
 * getopt_long() over the verb's options plus --help and, for CLI_CLUSTER
 * verbs, --cluster NAME (the same as before the verb; the later one
 * wins).  Returns the next option of the verb's own, -1 after the last,
 * or CLI_OPT_HELP / CLI_OPT_BAD: a bad option is named with the verb
 * ("sqdeck: logs: unknown option '--x'") and the usage follows.
 */
int	 cli_getopt(struct cli *, const struct cli_entry *, int argc,
	     char **argv);
/* "usage: sqdeck NAME USAGE" and the help lines. */
void	 cli_usage(const struct cli_entry *, FILE *);

/*
 * A whole number from min to max (strtol's: base 10, nothing after it)
 * into *out: 0, or -1 when s is not one.  *out is left alone on -1.
 */
int	 cli_number(const char *s, long min, long max, long *out);

/* A record's state as the verbs print it: "ERROR/INFRA", "RUNNING". */
struct record;
const char	*cli_state_text(const struct record *, char *buf, size_t len);

/*
 * "sqdeck: VERB: MESSAGE" (or "sqdeck: MESSAGE" with verb NULL) and a
 * newline on stderr, through the sanitiser like cli_fprintf().
 */
void	 cli_error(const char *verb, const char *, ...)
	     __attribute__((format(printf, 2, 3)));

#endif
