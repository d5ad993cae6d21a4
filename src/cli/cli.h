#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "color.h"
#include "config.h"
#include "jobid.h"
#include "state.h"

/* Options that come before the verb, shared by all verbs. */
struct cli {
	const char	*config_path;	/* -c FILE */
	const char	*cluster;	/* --cluster NAME */
	int		 verbose;	/* -v */
	enum color_when	 color_when;	/* --color=WHEN, before or after the
					   verb */
	int		 color;		/* the tables are coloured: decided
					   from color_when before the verb runs */
};

/*
 * logs --pager (cli-pager.c): the whole log at path (64 MiB at most) in
 * $PAGER, else less, else more; shown is the path for messages.
 */
struct conn;
int	 cli_logs_pager(struct conn *, const char *path, int err,
	     const char *shown);

/* Parse global options; no verb runs tui (the screen lives in libui). */
int	 cli_main(int argc, char **argv, int (*tui)(const char *config_path));

/*
 * Load the config and select the cluster (--cluster, or the first one).
 * Prints the error and returns -1 on failure.  CLI_CONFIG calls it.
 */
int	 cli_load(struct cli *, struct config *, struct cluster **);

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
/* A string member of o, or null when value is NULL. */
void	 cli_json_str(cJSON *o, const char *key, const char *value);

/*
 * The one JSON vocabulary (cli-json.c; sqdeck(1): JSON OUTPUT; the JSON
 * Schema doc/sqdeck.schema.json).  Every --json document is an object
 * made by cli_json_doc(): "schema" (CLI_JSON_SCHEMA, raised on any change
 * a script must know) and "verb".
 */
#define CLI_JSON_SCHEMA	1
cJSON	*cli_json_doc(const char *verb);
/* "state" (state_word()), "slurm_state" (SLURM's word, or null) and
   "err_class" (null for none) of a job. */
void	 cli_json_state(cJSON *, enum rstate, const char *slurm,
	     enum err_class);
/* A number member, or null when not known. */
void	 cli_json_num(cJSON *, const char *key, double value, int known);
/* A record in the vocabulary (record_id, job_id, name, slurm_state...):
   what records and status print; NULL if it cannot be made. */
struct record;
/* An array record's "array" object, null for one job (cli-json-array.c). */
void	 cli_json_array(cJSON *, const struct record *);
char	*cli_array_summary(const struct record *);
cJSON	*cli_json_record(const struct record *);
/* A job's GPU use (cli-gpu.c): {gpus: [...], no_nvidia_smi, said}, as gpu
   --json prints them; status ID --json --gpu adds it as "gpu". */
struct gpuuse_reply;
cJSON	*cli_json_gpu(const struct gpuuse_reply *);

/*
 * The tables of jobs, history and records (cli-table.c): keys[] are
 * --format's names of the columns, keylist them for a message.
 */
#define CLI_COL_FLEX	0x1	/* NAME: gets the width the others leave */
#define CLI_COL_ONE	0x2	/* left out when every row says the same */
#define CLI_NAME_MIN	16	/* the NAME column's bounds, in cells */
#define CLI_NAME_MAX	40
struct cli_table {
	const char *const	*head;
	const char *const	*keys;
	const int		*flags;
	size_t			 ncol;
	const char		*keylist;
};
/* Check --format (comma-separated keys): 0, or -1 and a cause. */
int	 cli_table_format(const struct cli_table *, const char *fmt,
	     char **cause);
/* cells (nrows * t->ncol) as a table of --format's columns (fmt NULL:
   all but the CLI_COL_ONE that say one thing), NAME cut to fit. */
void	 cli_table_print(const struct cli_table *, const char *fmt,
	     char **cells, size_t nrows, int color);
/* --name: a glob (fnmatch) if it has * ? [, else a part of the name. */
int	 cli_table_match(const char *pattern, const char *name);
/* --state LIST (comma-separated, any case): the vocabulary's word, or
   SLURM's own (TIMEOUT, "CANCELLED by 0" for CANCELLED). */
int	 cli_table_state(const char *list, const char *word,
	     const char *slurm);

/*
 * A verb, as tmux's cmd_entry: each cli-*.c exports one.  sqdeck --help
 * lists them (name, usage, summary); sqdeck VERB --help prints
 * "usage: sqdeck NAME USAGE" and the help lines.  The entry says what the
 * verb needs and cli.c makes it, once, for every verb alike: it parses
 * the options (cli_getopt(), each of the verb's own handed to option()),
 * checks the number of arguments, runs check(), loads clusters.yaml and
 * picks the cluster (CLI_CONFIG), looks up the jobs the arguments name
 * (CLI_TARGET), makes the connection (CLI_CONN), calls exec() with all of
 * it in a struct cli_ctx, and frees it all after.  A verb whose needs
 * depend on its arguments (triage ID or LOGFILE, logout with or without a
 * cluster) asks for them from exec() with cli_need().
 */
struct cli_ctx;
struct cli_entry {
	const char		*name;
	const char		*usage;		/* after "sqdeck NAME " */
	const char		*summary;	/* its line in sqdeck --help */
	const char		*help;		/* under the usage, or NULL */
	const char		*shortopts;	/* getopt's, without h */
	const struct option	*longopts;	/* without help and cluster */
	int			 flags;
#define CLI_CLUSTER	0x01	/* uses a cluster: --cluster after it too */
#define CLI_CONFIG	0x02	/* clusters.yaml loaded, the cluster picked */
#define CLI_TARGET	0x04	/* each argument a job (jobid.h) and its record;
				   the cluster follows the first record's */
#define CLI_TASKS	0x08	/* CLI_TARGET: array tasks taken as they are */
#define CLI_OWN		0x10	/* CLI_TARGET: a record of a cluster other
				   than --cluster's is refused */
#define CLI_CONN	0x20	/* a connection to the cluster (made lazily) */
	int			 args_min;	/* positional arguments */
	int			 args_max;	/* -1: any number */
	const char		*args_few;	/* said before the usage, or NULL */
	const char		*args_many;	/* idem; names the argument when
						   the verb takes none */
	/* What sqdeck __complete offers (cli-complete.c): the arguments'
	   kinds, fixed first words ("install"), the long option whose value
	   is a job id. */
	int			 args_kind;
#define CLI_ARG_ID	0x1	/* record and SLURM ids of the local records */
#define CLI_ARG_CLUSTER	0x2	/* cluster names from clusters.yaml */
#define CLI_ARG_FILE	0x4	/* file names */
	const char		*args_words;
	const char		*id_option;
	/* --format's column names, comma-separated (NULL: no --format);
	   --state's values are the state words. */
	const char		*columns;
	size_t			 optsize;	/* the verb's options, zeroed */
	/* One option of the verb's (arg: its value): CLI_GO, or the exit
	   status after saying why. */
	int			(*option)(struct cli_ctx *, int ch,
				    const char *arg);
	/* The options and arguments together, before anything is loaded:
	   CLI_GO or the exit status.  NULL: nothing to check. */
	int			(*check)(struct cli_ctx *);
	int			(*exec)(struct cli_ctx *);	/* the action */
};

/* What option, check and cli_need return to go on (an exit status else). */
#define CLI_GO	(-1)

/* A job an argument names, looked up once (CLI_TARGET). */
struct cli_target {
	const char	*arg;
	struct jobid	 id;	/* what the argument is */
	struct record	*rec;	/* NULL: an array task, or a SLURM job
				   without a record */
	long		 sid;	/* its SLURM job id, 0 if none */
	struct cluster	*cl;	/* the record's cluster, else the picked one */
};

/* One run of a verb: made by cli.c, freed there after exec(). */
struct cli_ctx {
	struct cli		*cli;
	const struct cli_entry	*entry;
	void			*opts;		/* entry->optsize bytes */
	int			 argc;		/* the positional arguments */
	char			**argv;
	int			 have;		/* the CLI_* made so far */
	struct config		 cfg;		/* CLI_CONFIG */
	struct cluster		*cl;		/* CLI_CONFIG (the target's) */
	struct cli_target	*targets;	/* CLI_TARGET, argc of them */
	struct cli_target	*target;	/* the first, or NULL */
	struct conn		*conn;		/* CLI_CONN, to cl */
	struct cli_conn		*conns;		/* every one cli_conn() made */
	size_t			 nconns;
	struct record_index	*rindex;	/* cli_rindex() */
};

/*
 * Make what flags ask for (CLI_CONFIG, CLI_TARGET, CLI_CONN) and is not
 * made yet: CLI_GO, or the exit status after saying why (EXIT_FAIL for
 * the config or a record's cluster, EXIT_USAGE for a job id).
 */
int	 cli_need(struct cli_ctx *, int flags);
/* The connection to a cluster, one per cluster for the run (made lazily:
   nothing is contacted until it is used). */
struct conn	*cli_conn(struct cli_ctx *, struct cluster *);
/*
 * The run's index of the records (record.h), started from the one the
 * last run saved and saved again at the end of the run: a poll reads
 * its cluster's records still moving and recent ones, not a week of
 * history (issue 25).
 */
struct record_index *cli_rindex(struct cli_ctx *);

/*
 * sqdeck __complete WORD...: the candidates for the last word, for the
 * shell completions (completion/); local files only, no network.
 */
int	 cli_complete(int argc, char **argv);

/* Every verb, in the order of sqdeck --help; NULL at the end. */
extern const struct cli_entry *const cli_entries[];

extern const struct cli_entry cli_preflight_entry;
extern const struct cli_entry cli_submit_entry;
extern const struct cli_entry cli_status_entry;
extern const struct cli_entry cli_logs_entry;
extern const struct cli_entry cli_cancel_entry;
extern const struct cli_entry cli_hold_entry;
extern const struct cli_entry cli_release_entry;
extern const struct cli_entry cli_requeue_entry;
extern const struct cli_entry cli_signal_entry;
extern const struct cli_entry cli_time_entry;
extern const struct cli_entry cli_gpu_entry;
extern const struct cli_entry cli_jobs_entry;
extern const struct cli_entry cli_history_entry;
extern const struct cli_entry cli_creds_entry;
extern const struct cli_entry cli_retry_entry;
extern const struct cli_entry cli_login_entry;
extern const struct cli_entry cli_logout_entry;
extern const struct cli_entry cli_records_entry;
extern const struct cli_entry cli_triage_entry;
extern const struct cli_entry cli_shell_entry;
extern const struct cli_entry cli_forward_entry;

/* What cli_getopt() returns besides an option of the verb and -1. */
#define CLI_OPT_HELP	(-2)	/* --help printed on stdout */
#define CLI_OPT_BAD	(-3)	/* a bad option said, with the usage */
/* The verb's exit status for CLI_OPT_HELP and CLI_OPT_BAD. */
#define CLI_OPT_EXIT(ch)	((ch) == CLI_OPT_HELP ? EXIT_OK : EXIT_USAGE)

/*
 * getopt_long() over the verb's options plus --help, --color=WHEN and,
 * for CLI_CLUSTER verbs, --cluster NAME (the same as before the verb;
 * the later one wins).  Returns the next option of the verb's own, -1 after the last,
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

/*
 * The verbs that work in a running job (shell, forward; cli-shell.c).
 * Their options (--node N): cli_node_option checks N is a node name.
 * cli_running_job: the target's job looked up once (cli_need CLI_TARGET
 * and CLI_CONN, enter_where): RUNNING, on node (NULL: its first) when node
 * is one of its nodes; CLI_GO with *w filled, or the exit status after
 * saying why.
 */
struct cli_node_opts {
	const char	*node;
};
extern const struct option cli_node_longopts[];
struct enter_where;
int	 cli_node_option(struct cli_ctx *, int ch, const char *arg);
int	 cli_running_job(struct cli_ctx *, const char *node,
	     struct enter_where *w);

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
