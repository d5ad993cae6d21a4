#ifndef STATE_H
#define STATE_H

#include <stddef.h>

/*
 * SLURM job state -> record state (sqdeck(1): JOB RECORDS AND STATES).  Pure:
 * no I/O.
 *
 * The record knows six states; SLURM knows dozens.  The native SLURM word is
 * kept next to the record state (the "sub-state") so nothing is lost.
 */

enum rstate {
	RSTATE_UNKNOWN = 0,	/* not found, or a word we do not know */
	RSTATE_PENDING,
	RSTATE_RUNNING,
	RSTATE_COMPLETE,
	RSTATE_ERROR,
	RSTATE_CANCELED,
};

/* Why a job failed; set by the state alone (NODE_FAIL) or by triage. */
enum err_class {
	ERR_NONE = 0,
	ERR_INFRA,	/* the cluster's fault: retry on another allocation */
	ERR_PROGRAM,	/* the workload's fault: surface it, no retry */
	ERR_CONFIG,	/* the user's setup: credentials, image, paths, limits */
	ERR_UNKNOWN,	/* no evidence either way: tell a human, no retry */
};

/*
 * What results_dir/status.json says about a job SLURM reports COMPLETED.
 * See state_status_verdict() for the file format.
 */
enum status_verdict {
	STATUS_MISSING = 0,	/* no file, empty, or no verdict in it */
	STATUS_PASS,
	STATUS_FAIL,
};

#define STATE_NATIVE_MAX 64

struct state_map {
	enum rstate	 state;
	enum err_class	 err;		/* ERR_NONE unless the state decides */
	int		 terminal;	/* state_terminal(state) */
	int		 needs_status;	/* COMPLETED: read status.json first */
	int		 needs_triage;	/* a failure the logs must explain */
	/* Base SLURM word ("CANCELLED"), or the raw text if unknown. */
	char		 native[STATE_NATIVE_MAX];
	/* The trimmed input ("CANCELLED by 1001"), for history messages. */
	char		 raw[STATE_NATIVE_MAX];
};

/*
 * Map a state from sacct (-o State%30), squeue (%T, or the short %t form)
 * or scontrol.  NULL or blank means "not found" -> UNKNOWN.  verdict only
 * matters for COMPLETED.  Returns 0, or -1 for a word not in the table
 * (the map then says UNKNOWN and keeps the raw text in native).
 */
int		 state_map(const char *slurm, enum status_verdict,
		     struct state_map *);

/* The base word of a SLURM state into buf: "CANCELLED+" -> "CANCELLED". */
void		 state_base(const char *slurm, char *buf, size_t len);

/* Is this a SLURM state word we know (long or short form)? */
int		 state_known(const char *slurm);

/*
 * Parse the text of results_dir/status.json.  The file is one JSON object or
 * JSON lines (one object per line, as TAO's status logger writes).  The last
 * object that has a "status" string decides: "SUCCESS", "SUCCEEDED", "PASS",
 * "PASSED", "COMPLETE", "COMPLETED", "OK" (any case) -> PASS; "FAILURE",
 * "FAILED", "FAIL", "ERROR" -> FAIL; anything else ("STARTED", "RUNNING")
 * means the workload never reported its end -> MISSING.  An object with a
 * numeric "exit_code" and no "status" counts too: 0 -> PASS, else FAIL.
 * Text that is not JSON, or has no such object, is MISSING.
 */
enum status_verdict state_status_verdict(const char *text, size_t len);

/* No further SLURM transition is expected (COMPLETE, ERROR, CANCELED). */
int		 state_terminal(enum rstate);

const char	*state_name(enum rstate);
/*
 * The word the screen and the CLI's text show: SLURM's own spelling
 * (PENDING RUNNING COMPLETED FAILED CANCELLED UNKNOWN), one vocabulary
 * beside the native sub-state.  state_name() is the record's stored word
 * (COMPLETE, ERROR, CANCELED), kept in records and --json.
 */
const char	*state_word(enum rstate);
/*
 * The one vocabulary's word (state_word()) for a SLURM state as sacct,
 * squeue or scontrol print it: "CANCELLED by 1001" -> CANCELLED, "TIMEOUT"
 * -> FAILED, "CD" -> COMPLETED; NULL, blank or a word SLURM does not have
 * ("ENDED") -> UNKNOWN.  SLURM's COMPLETED is taken at its word (no
 * status.json here).
 */
const char	*state_word_of(const char *slurm);
/* Parse a record state name (exact, upper case); -1 if unknown. */
int		 state_from_name(const char *, enum rstate *);
const char	*err_class_name(enum err_class);	/* "NONE", "INFRA" ... */
int		 err_class_from_name(const char *, enum err_class *);
const char	*status_verdict_name(enum status_verdict);

/*
 * The SGR parameters ("32", "1;31") a coloured table gives a state word
 * as the verbs print it: SLURM's ("RUNNING", "CANCELLED by 0",
 * "OUT_OF_MEMORY"), the record's ("FAILED/INFRA").  Green running, yellow
 * pending, red failed, magenta cancelled, blue completed; NULL for a word
 * it does not know (left plain).
 */
const char	*state_sgr(const char *word);

#endif
