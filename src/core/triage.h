#ifndef TRIAGE_H
#define TRIAGE_H

#include <stddef.h>

#include "state.h"

/*
 * Failure triage (sqdeck(1): retries): why did a job fail?  INFRA failures
 * (the node, the GPU, the fabric) get a new record and a resubmit within the
 * retry budget; PROGRAM and CONFIG failures surface at once.  Pure: the caller
 * reads the logs.  The rules are one table in triage.c, tried in order.
 */

struct triage_rule {
	const char	*name;		/* stable id: "nccl-transport" */
	enum err_class	 class;
	const char	*states;	/* "NODE_FAIL|BOOT_FAIL", NULL: any */
	const char	*exit;		/* "0:53" (code:signal), NULL: any */
	const char	*pattern;	/* POSIX ERE on one log line, NULL: none */
	const char	*unless;	/* ERE: the matched line must not match */
	int		 icase;		/* pattern is case-insensitive */
	const char	*why;		/* what it means and what to do */
};

struct triage_input {
	const char	*state;		/* SLURM state as printed, NULL: unknown */
	int		 has_exit;
	int		 exit_code;
	int		 exit_signal;
	const char	*log;		/* tail of main.out/main.err, NULL: none */
	size_t		 loglen;
};

#define TRIAGE_LINE_MAX 512
#define TRIAGE_TAIL_MAX 3

struct triage_result {
	enum err_class		 class;
	int			 retry;	/* class == ERR_INFRA */
	const struct triage_rule *rule;
	/* The log line that matched (control characters removed). */
	char			 line[TRIAGE_LINE_MAX];
	int			 has_line;
	size_t			 line_off;	/* byte offset of it in the log */
	/*
	 * The last meaningful lines of the log (oldest first), for a verdict
	 * no line decided: what a human reads first.
	 */
	char			 tail[TRIAGE_TAIL_MAX][TRIAGE_LINE_MAX];
	int			 ntail;
};

/*
 * What the sbatch templates print before they try a step again in the
 * job's allocation, because it failed before the program started on every
 * node (sqdeck(1): retries).  The container-setup errors of the tries
 * before the last such line are not the job's verdict: triage_classify()
 * passes over them.
 */
#define TRIAGE_STEP_RETRIED "sqdeck: the step failed before the program started"

/* Classify; always decides (the last rule matches anything). */
void	 triage_classify(const struct triage_input *, struct triage_result *);

/*
 * The evidence of a result as one string (allocated): the quoted line, or
 * "last lines: A | B | C" when no line decided; NULL if the log was empty.
 */
char	*triage_evidence(const struct triage_result *);

/* "3:0", "0:9" or "3" -> code and signal.  Errors name the input. */
int	 triage_parse_exit(const char *, int *code, int *signal, char **cause);

/* The rule table, for tests and documentation. */
const struct triage_rule *triage_rules(size_t *n);

#endif
