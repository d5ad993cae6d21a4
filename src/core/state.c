#include "state.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "util.h"

/*
 * Every base state SLURM 22.05+ prints (sacct, squeue %T and %t, scontrol),
 * with the mapping of sqdeck(1), JOB RECORDS AND STATES.  Order does not
 * matter except for the prefix match of truncated words, which must stay
 * unambiguous (checked by the tests).
 */
static const struct state_entry {
	const char	*name;
	const char	*brief;		/* squeue %t */
	enum rstate	 state;
	enum err_class	 err;
	int		 triage;	/* the logs must say why it failed */
} state_table[] = {
	{ "PENDING",		"PD",	RSTATE_PENDING,	 ERR_NONE,  0 },
	/* Requeued or held again: back in the queue under the same id. */
	{ "REQUEUED",		"RQ",	RSTATE_PENDING,	 ERR_NONE,  0 },
	{ "REQUEUE_FED",	"RF",	RSTATE_PENDING,	 ERR_NONE,  0 },
	{ "REQUEUE_HOLD",	"RH",	RSTATE_PENDING,	 ERR_NONE,  0 },
	{ "RESV_DEL_HOLD",	"RD",	RSTATE_PENDING,	 ERR_NONE,  0 },
	{ "RUNNING",		"R",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "COMPLETING",		"CG",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	/* Still scheduler-managed: the job holds (or is getting) its nodes. */
	{ "SUSPENDED",		"S",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "STOPPED",		"ST",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "CONFIGURING",	"CF",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "RESIZING",		"RS",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "SIGNALING",		"SI",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	{ "STAGE_OUT",		"SO",	RSTATE_RUNNING,	 ERR_NONE,  0 },
	/* Decided by status.json, see state_map(). */
	{ "COMPLETED",		"CD",	RSTATE_COMPLETE, ERR_NONE,  0 },
	{ "FAILED",		"F",	RSTATE_ERROR,	 ERR_NONE,  1 },
	{ "OUT_OF_MEMORY",	"OOM",	RSTATE_ERROR,	 ERR_NONE,  1 },
	{ "DEADLINE",		"DL",	RSTATE_ERROR,	 ERR_NONE,  1 },
	{ "TIMEOUT",		"TO",	RSTATE_ERROR,	 ERR_NONE,  1 },
	{ "SPECIAL_EXIT",	"SE",	RSTATE_ERROR,	 ERR_NONE,  1 },
	{ "NODE_FAIL",		"NF",	RSTATE_ERROR,	 ERR_INFRA, 0 },
	{ "BOOT_FAIL",		"BF",	RSTATE_ERROR,	 ERR_INFRA, 0 },
	{ "CANCELLED",		"CA",	RSTATE_CANCELED, ERR_NONE,  0 },
	{ "PREEMPTED",		"PR",	RSTATE_CANCELED, ERR_NONE,  0 },
	{ "REVOKED",		"RV",	RSTATE_CANCELED, ERR_NONE,  0 },
};
#define NSTATES (sizeof state_table / sizeof state_table[0])

static const char *rstate_names[] = {
	"UNKNOWN", "PENDING", "RUNNING", "COMPLETE", "ERROR", "CANCELED"
};
static const char *err_names[] = { "NONE", "INFRA", "PROGRAM", "CONFIG",
    "UNKNOWN" };
static const char *verdict_names[] = { "missing", "pass", "fail" };

static void
copy_trunc(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void
state_base(const char *slurm, char *buf, size_t len)
{
	const char	*p = slurm, *end;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (p == NULL)
		return;
	while (isspace((unsigned char)*p))
		p++;
	/* Flags may follow a ',' ("RUNNING,EXPEDITING" on 25.11 and later). */
	for (end = p; *end != '\0' && *end != ',' &&
	    !isspace((unsigned char)*end); end++)
		/* nothing */;
	/* sacct marks a cut-off column with '+': "CANCELLED+", "OUT_OF_ME+". */
	while (end > p && end[-1] == '+')
		end--;
	copy_trunc(buf, len, p, (size_t)(end - p));
}

/*
 * Find a table entry: exact long or short name, or, for a word sacct cut
 * off (it ended in '+'), the one long name it is a prefix of.
 */
static const struct state_entry *
state_lookup(const char *slurm)
{
	char				 word[STATE_NATIVE_MAX];
	const struct state_entry	*found = NULL;
	const char			*p;
	size_t				 i, n;
	int				 cut;

	state_base(slurm, word, sizeof word);
	if (*word == '\0')
		return NULL;
	for (i = 0; i < NSTATES; i++) {
		if (strcasecmp(word, state_table[i].name) == 0 ||
		    strcasecmp(word, state_table[i].brief) == 0)
			return &state_table[i];
	}
	for (p = slurm; isspace((unsigned char)*p); p++)
		/* nothing */;
	n = strlen(word);
	cut = p[n] == '+';
	if (!cut || n < 3)
		return NULL;
	for (i = 0; i < NSTATES; i++) {
		if (strncasecmp(word, state_table[i].name, n) != 0)
			continue;
		if (found != NULL)
			return NULL;	/* ambiguous */
		found = &state_table[i];
	}
	return found;
}

int
state_known(const char *slurm)
{
	return state_lookup(slurm) != NULL;
}

int
state_map(const char *slurm, enum status_verdict verdict, struct state_map *m)
{
	const struct state_entry	*e;
	const char			*p = slurm != NULL ? slurm : "";
	size_t				 n;

	memset(m, 0, sizeof *m);
	while (isspace((unsigned char)*p))
		p++;
	n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	copy_trunc(m->raw, sizeof m->raw, p, n);

	m->state = RSTATE_UNKNOWN;
	if (n == 0)
		return 0;	/* not found: UNKNOWN is the answer, not an error */
	e = state_lookup(p);
	if (e == NULL) {
		/* Keep what SLURM said so the history shows it. */
		copy_trunc(m->native, sizeof m->native, p, n);
		return -1;
	}
	copy_trunc(m->native, sizeof m->native, e->name, strlen(e->name));
	m->state = e->state;
	m->err = e->err;
	m->needs_triage = e->triage;
	if (strcmp(e->name, "COMPLETED") == 0) {
		/* The batch script exited 0; only the workload can say it
		   worked. */
		m->needs_status = 1;
		if (verdict != STATUS_PASS) {
			m->state = RSTATE_ERROR;
			m->needs_triage = 1;
		}
	}
	m->terminal = state_terminal(m->state);
	return 0;
}

static enum status_verdict
verdict_of(const cJSON *obj, int *decided)
{
	static const char	*pass[] = { "success", "succeeded", "pass",
	    "passed", "complete", "completed", "ok", NULL };
	static const char	*fail[] = { "failure", "failed", "fail",
	    "error", NULL };
	const cJSON		*st, *ec;
	size_t			 i;

	*decided = 0;
	if (!cJSON_IsObject(obj))
		return STATUS_MISSING;
	st = cJSON_GetObjectItemCaseSensitive(obj, "status");
	if (cJSON_IsString(st) && st->valuestring != NULL) {
		*decided = 1;
		for (i = 0; pass[i] != NULL; i++) {
			if (strcasecmp(st->valuestring, pass[i]) == 0)
				return STATUS_PASS;
		}
		for (i = 0; fail[i] != NULL; i++) {
			if (strcasecmp(st->valuestring, fail[i]) == 0)
				return STATUS_FAIL;
		}
		return STATUS_MISSING;	/* STARTED, RUNNING: never finished */
	}
	ec = cJSON_GetObjectItemCaseSensitive(obj, "exit_code");
	if (cJSON_IsNumber(ec)) {
		*decided = 1;
		return ec->valuedouble == 0 ? STATUS_PASS : STATUS_FAIL;
	}
	return STATUS_MISSING;
}

enum status_verdict
state_status_verdict(const char *text, size_t len)
{
	enum status_verdict	 v = STATUS_MISSING, one;
	cJSON			*obj;
	const char		*line, *end, *stop, *rest = NULL;
	int			 decided;

	if (text == NULL || len == 0)
		return STATUS_MISSING;
	/* One object, nothing after it but blanks? */
	obj = cJSON_ParseWithLengthOpts(text, len, &rest, 0);
	while (obj != NULL && rest < text + len) {
		if (!isspace((unsigned char)*rest++)) {
			cJSON_Delete(obj);
			obj = NULL;
		}
	}
	if (obj != NULL) {
		v = verdict_of(obj, &decided);
		cJSON_Delete(obj);
		return v;
	}
	/* JSON lines: the last object with a verdict field wins. */
	stop = text + len;
	for (line = text; line < stop; line = end + 1) {
		end = memchr(line, '\n', (size_t)(stop - line));
		if (end == NULL)
			end = stop;
		obj = cJSON_ParseWithLength(line, (size_t)(end - line));
		if (obj != NULL) {
			one = verdict_of(obj, &decided);
			if (decided)
				v = one;
			cJSON_Delete(obj);
		}
	}
	return v;
}

int
state_terminal(enum rstate s)
{
	return s == RSTATE_COMPLETE || s == RSTATE_ERROR ||
	    s == RSTATE_CANCELED;
}

const char *
state_name(enum rstate s)
{
	if ((size_t)s >= sizeof rstate_names / sizeof rstate_names[0])
		return "UNKNOWN";
	return rstate_names[s];
}

const char *
state_word(enum rstate s)
{
	switch (s) {
	case RSTATE_COMPLETE:
		return "COMPLETED";
	case RSTATE_ERROR:
		return "FAILED";
	case RSTATE_CANCELED:
		return "CANCELLED";
	default:
		return state_name(s);
	}
}

const char *
state_word_of(const char *slurm)
{
	struct state_map	m;

	if (state_map(slurm, STATUS_PASS, &m) != 0)
		return state_word(RSTATE_UNKNOWN);
	return state_word(m.state);
}

int
state_from_name(const char *name, enum rstate *s)
{
	size_t	i;

	for (i = 0; i < sizeof rstate_names / sizeof rstate_names[0]; i++) {
		if (name != NULL && strcmp(name, rstate_names[i]) == 0) {
			*s = (enum rstate)i;
			return 0;
		}
	}
	return -1;
}

const char *
err_class_name(enum err_class c)
{
	if ((size_t)c >= sizeof err_names / sizeof err_names[0])
		return "NONE";
	return err_names[c];
}

int
err_class_from_name(const char *name, enum err_class *c)
{
	size_t	i;

	for (i = 0; i < sizeof err_names / sizeof err_names[0]; i++) {
		if (name != NULL && strcmp(name, err_names[i]) == 0) {
			*c = (enum err_class)i;
			return 0;
		}
	}
	return -1;
}

const char *
status_verdict_name(enum status_verdict v)
{
	if ((size_t)v >= sizeof verdict_names / sizeof verdict_names[0])
		return "missing";
	return verdict_names[v];
}

const char *
state_sgr(const char *word)
{
	struct state_map	m;
	char			base[64];
	size_t			n;

	if (word == NULL)
		return NULL;
	/* "FAILED/INFRA", "CANCELLED by 0": the word before the detail. */
	n = strcspn(word, "/ ");
	if (n == 0 || n >= sizeof base)
		return NULL;
	memcpy(base, word, n);
	base[n] = '\0';
	if (state_map(base, STATUS_PASS, &m) != 0)
		return NULL;
	switch (m.state) {
	case RSTATE_PENDING:
		return "33";
	case RSTATE_RUNNING:
		return "32";
	case RSTATE_COMPLETE:
		return "34";
	case RSTATE_ERROR:
		return "1;31";
	case RSTATE_CANCELED:
		return "35";
	default:
		return NULL;
	}
}
