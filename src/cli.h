#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "config.h"

/* Exit codes of every verb. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the operation failed (message printed) */
#define EXIT_USAGE	2	/* bad command line or bad input file */

/* Options that come before the verb, shared by all verbs. */
struct cli {
	const char	*config_path;	/* -c FILE */
	const char	*cluster;	/* --cluster NAME */
	int		 verbose;	/* -v */
};

/* Parse global options; no verb runs tui (the screen lives in libui). */
int	 cli_main(int argc, char **argv, int (*tui)(struct cli *));

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

/* The verbs: argv[0] is the verb name; getopt-style from argv[1]. */
int	 cli_preflight(struct cli *, int argc, char **argv);
int	 cli_records(struct cli *, int argc, char **argv);
int	 cli_triage(struct cli *, int argc, char **argv);
int	 cli_submit(struct cli *, int argc, char **argv);
int	 cli_status(struct cli *, int argc, char **argv);
int	 cli_logs(struct cli *, int argc, char **argv);
int	 cli_cancel(struct cli *, int argc, char **argv);
int	 cli_jobs(struct cli *, int argc, char **argv);
int	 cli_history(struct cli *, int argc, char **argv);
int	 cli_creds(struct cli *, int argc, char **argv);
int	 cli_retry(struct cli *, int argc, char **argv);
int	 cli_login(struct cli *, int argc, char **argv);
int	 cli_logout(struct cli *, int argc, char **argv);

#endif
