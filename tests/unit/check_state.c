/* state: SLURM state -> record state (sqdeck(1): JOB RECORDS AND STATES),
   status.json verdicts. */
#include "testutil.h"

#include "state.h"
#include "util.h"

struct row {
	const char	*slurm;
	enum status_verdict verdict;
	enum rstate	 state;
	const char	*native;
	enum err_class	 err;
	int		 triage;
};

/* The table of sqdeck(1), JOB RECORDS AND STATES, row by row, plus the extra
   22.05 states and short forms. */
static const struct row rows[] = {
	{ "PENDING",		STATUS_MISSING,	RSTATE_PENDING,	"PENDING", ERR_NONE, 0 },
	{ "RUNNING",		STATUS_MISSING,	RSTATE_RUNNING,	"RUNNING", ERR_NONE, 0 },
	{ "COMPLETING",		STATUS_MISSING,	RSTATE_RUNNING,	"COMPLETING", ERR_NONE, 0 },
	{ "SUSPENDED",		STATUS_MISSING,	RSTATE_RUNNING,	"SUSPENDED", ERR_NONE, 0 },
	{ "STOPPED",		STATUS_MISSING,	RSTATE_RUNNING,	"STOPPED", ERR_NONE, 0 },
	{ "COMPLETED",		STATUS_PASS,	RSTATE_COMPLETE, "COMPLETED", ERR_NONE, 0 },
	{ "COMPLETED",		STATUS_FAIL,	RSTATE_ERROR,	"COMPLETED", ERR_NONE, 1 },
	{ "COMPLETED",		STATUS_MISSING,	RSTATE_ERROR,	"COMPLETED", ERR_NONE, 1 },
	{ "FAILED",		STATUS_PASS,	RSTATE_ERROR,	"FAILED", ERR_NONE, 1 },
	{ "OUT_OF_MEMORY",	STATUS_MISSING,	RSTATE_ERROR,	"OUT_OF_MEMORY", ERR_NONE, 1 },
	{ "DEADLINE",		STATUS_MISSING,	RSTATE_ERROR,	"DEADLINE", ERR_NONE, 1 },
	{ "TIMEOUT",		STATUS_MISSING,	RSTATE_ERROR,	"TIMEOUT", ERR_NONE, 1 },
	{ "NODE_FAIL",		STATUS_MISSING,	RSTATE_ERROR,	"NODE_FAIL", ERR_INFRA, 0 },
	{ "BOOT_FAIL",		STATUS_MISSING,	RSTATE_ERROR,	"BOOT_FAIL", ERR_INFRA, 0 },
	{ "CANCELLED",		STATUS_MISSING,	RSTATE_CANCELED, "CANCELLED", ERR_NONE, 0 },
	{ "CANCELLED by 12345",	STATUS_MISSING,	RSTATE_CANCELED, "CANCELLED", ERR_NONE, 0 },
	{ "CANCELLED+",		STATUS_MISSING,	RSTATE_CANCELED, "CANCELLED", ERR_NONE, 0 },
	{ "PREEMPTED",		STATUS_MISSING,	RSTATE_CANCELED, "PREEMPTED", ERR_NONE, 0 },
	{ "REVOKED",		STATUS_MISSING,	RSTATE_CANCELED, "REVOKED", ERR_NONE, 0 },
	/* Not in that table: squeue's transient states. */
	{ "CONFIGURING",	STATUS_MISSING,	RSTATE_RUNNING,	"CONFIGURING", ERR_NONE, 0 },
	{ "RESIZING",		STATUS_MISSING,	RSTATE_RUNNING,	"RESIZING", ERR_NONE, 0 },
	{ "SIGNALING",		STATUS_MISSING,	RSTATE_RUNNING,	"SIGNALING", ERR_NONE, 0 },
	{ "STAGE_OUT",		STATUS_MISSING,	RSTATE_RUNNING,	"STAGE_OUT", ERR_NONE, 0 },
	{ "REQUEUED",		STATUS_MISSING,	RSTATE_PENDING,	"REQUEUED", ERR_NONE, 0 },
	{ "REQUEUE_FED",	STATUS_MISSING,	RSTATE_PENDING,	"REQUEUE_FED", ERR_NONE, 0 },
	{ "REQUEUE_HOLD",	STATUS_MISSING,	RSTATE_PENDING,	"REQUEUE_HOLD", ERR_NONE, 0 },
	{ "RESV_DEL_HOLD",	STATUS_MISSING,	RSTATE_PENDING,	"RESV_DEL_HOLD", ERR_NONE, 0 },
	{ "SPECIAL_EXIT",	STATUS_MISSING,	RSTATE_ERROR,	"SPECIAL_EXIT", ERR_NONE, 1 },
	/* squeue %t short forms. */
	{ "PD",			STATUS_MISSING,	RSTATE_PENDING,	"PENDING", ERR_NONE, 0 },
	{ "R",			STATUS_MISSING,	RSTATE_RUNNING,	"RUNNING", ERR_NONE, 0 },
	{ "CG",			STATUS_MISSING,	RSTATE_RUNNING,	"COMPLETING", ERR_NONE, 0 },
	{ "CF",			STATUS_MISSING,	RSTATE_RUNNING,	"CONFIGURING", ERR_NONE, 0 },
	{ "S",			STATUS_MISSING,	RSTATE_RUNNING,	"SUSPENDED", ERR_NONE, 0 },
	{ "ST",			STATUS_MISSING,	RSTATE_RUNNING,	"STOPPED", ERR_NONE, 0 },
	{ "CD",			STATUS_PASS,	RSTATE_COMPLETE, "COMPLETED", ERR_NONE, 0 },
	{ "F",			STATUS_MISSING,	RSTATE_ERROR,	"FAILED", ERR_NONE, 1 },
	{ "TO",			STATUS_MISSING,	RSTATE_ERROR,	"TIMEOUT", ERR_NONE, 1 },
	{ "OOM",		STATUS_MISSING,	RSTATE_ERROR,	"OUT_OF_MEMORY", ERR_NONE, 1 },
	{ "NF",			STATUS_MISSING,	RSTATE_ERROR,	"NODE_FAIL", ERR_INFRA, 0 },
	{ "BF",			STATUS_MISSING,	RSTATE_ERROR,	"BOOT_FAIL", ERR_INFRA, 0 },
	{ "CA",			STATUS_MISSING,	RSTATE_CANCELED, "CANCELLED", ERR_NONE, 0 },
	{ "PR",			STATUS_MISSING,	RSTATE_CANCELED, "PREEMPTED", ERR_NONE, 0 },
	{ "RV",			STATUS_MISSING,	RSTATE_CANCELED, "REVOKED", ERR_NONE, 0 },
	{ "DL",			STATUS_MISSING,	RSTATE_ERROR,	"DEADLINE", ERR_NONE, 1 },
	{ "SE",			STATUS_MISSING,	RSTATE_ERROR,	"SPECIAL_EXIT", ERR_NONE, 1 },
	{ "RQ",			STATUS_MISSING,	RSTATE_PENDING,	"REQUEUED", ERR_NONE, 0 },
	{ "RH",			STATUS_MISSING,	RSTATE_PENDING,	"REQUEUE_HOLD", ERR_NONE, 0 },
	{ "RF",			STATUS_MISSING,	RSTATE_PENDING,	"REQUEUE_FED", ERR_NONE, 0 },
	{ "RD",			STATUS_MISSING,	RSTATE_PENDING,	"RESV_DEL_HOLD", ERR_NONE, 0 },
	{ "RS",			STATUS_MISSING,	RSTATE_RUNNING,	"RESIZING", ERR_NONE, 0 },
	{ "SI",			STATUS_MISSING,	RSTATE_RUNNING,	"SIGNALING", ERR_NONE, 0 },
	{ "SO",			STATUS_MISSING,	RSTATE_RUNNING,	"STAGE_OUT", ERR_NONE, 0 },
	/* sacct -o State (width 10) cuts long words and adds '+'. */
	{ "OUT_OF_ME+",		STATUS_MISSING,	RSTATE_ERROR,	"OUT_OF_MEMORY", ERR_NONE, 1 },
	{ "REQUEUE_H+",		STATUS_MISSING,	RSTATE_PENDING,	"REQUEUE_HOLD", ERR_NONE, 0 },
	{ "  RUNNING \n",	STATUS_MISSING,	RSTATE_RUNNING,	"RUNNING", ERR_NONE, 0 },
};

START_TEST(test_r16_table)
{
	const struct row	*r = &rows[_i];
	struct state_map	 m;

	ck_assert_int_eq(state_map(r->slurm, r->verdict, &m), 0);
	ck_assert_msg(m.state == r->state, "%s/%s: state %s, want %s",
	    r->slurm, status_verdict_name(r->verdict), state_name(m.state),
	    state_name(r->state));
	ck_assert_str_eq(m.native, r->native);
	ck_assert_msg(m.err == r->err, "%s: err %s", r->slurm,
	    err_class_name(m.err));
	ck_assert_int_eq(m.needs_triage, r->triage);
	ck_assert_int_eq(m.terminal, state_terminal(r->state));
	ck_assert_int_eq(m.needs_status, strcmp(r->native, "COMPLETED") == 0);
}
END_TEST

/* The base states of Slurm 22.05+ (squeue(1) JOB STATE CODES, sacct(1)). */
static const char *slurm_states[] = {
	"BOOT_FAIL", "CANCELLED", "COMPLETED", "COMPLETING", "CONFIGURING",
	"DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "PENDING",
	"PREEMPTED", "REQUEUE_FED", "REQUEUE_HOLD", "REQUEUED", "RESIZING",
	"RESV_DEL_HOLD", "REVOKED", "RUNNING", "SIGNALING", "SPECIAL_EXIT",
	"STAGE_OUT", "STOPPED", "SUSPENDED", "TIMEOUT",
};

START_TEST(test_every_state_known)
{
	const char		*s = slurm_states[_i];
	struct state_map	 m;
	char			 cut[16];

	ck_assert_msg(state_known(s), "%s unknown", s);
	ck_assert_int_eq(state_map(s, STATUS_PASS, &m), 0);
	ck_assert_str_eq(m.native, s);
	ck_assert_int_ne(m.state, RSTATE_UNKNOWN);
	/* What sacct's default width makes of it must map to the same word. */
	if (strlen(s) > 10) {
		snprintf(cut, sizeof cut, "%.9s+", s);
		ck_assert_int_eq(state_map(cut, STATUS_PASS, &m), 0);
		ck_assert_msg(strcmp(m.native, s) == 0, "%s -> %s, want %s",
		    cut, m.native, s);
	}
}
END_TEST

START_TEST(test_unknown_and_missing)
{
	struct state_map	m;

	/* Not found: UNKNOWN, and not an error. */
	ck_assert_int_eq(state_map(NULL, STATUS_MISSING, &m), 0);
	ck_assert_int_eq(m.state, RSTATE_UNKNOWN);
	ck_assert_str_eq(m.native, "");
	ck_assert_int_eq(state_map("   ", STATUS_MISSING, &m), 0);
	ck_assert_int_eq(m.state, RSTATE_UNKNOWN);
	ck_assert_int_eq(m.terminal, 0);

	/* A word we do not know: UNKNOWN, raw text kept. */
	ck_assert_int_eq(state_map("LAUNCH_FAILED by mars", STATUS_MISSING,
	    &m), -1);
	ck_assert_int_eq(m.state, RSTATE_UNKNOWN);
	ck_assert_str_eq(m.native, "LAUNCH_FAILED by mars");
	ck_assert_str_eq(m.raw, "LAUNCH_FAILED by mars");
	ck_assert(!state_known("LAUNCH_FAILED"));

	/* A cut word that fits two states is not guessed. */
	ck_assert_int_eq(state_map("RE+", STATUS_MISSING, &m), -1);
	ck_assert_int_eq(state_map("REQUEUE+", STATUS_MISSING, &m), -1);
	/* Without the '+' a prefix is not a state. */
	ck_assert_int_eq(state_map("CANCEL", STATUS_MISSING, &m), -1);

	/* Raw keeps the "by uid" detail for the history message. */
	ck_assert_int_eq(state_map(" CANCELLED by 1001 ", STATUS_MISSING, &m),
	    0);
	ck_assert_str_eq(m.raw, "CANCELLED by 1001");

	/* Longer than the buffer: truncated, not overflowed. */
	ck_assert_int_eq(state_map("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
	    "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", STATUS_MISSING,
	    &m), -1);
	ck_assert_uint_eq(strlen(m.native), STATE_NATIVE_MAX - 1);
}
END_TEST

/* Lines captured with sacct on the real cluster (tests/data/logs/README.md). */
static void
check_sacct_file(const char *name)
{
	static const struct {
		const char	*id;
		enum rstate	 state;
		const char	*native;
	} want[] = {
		{ "34", RSTATE_ERROR, "FAILED" },
		{ "35", RSTATE_ERROR, "FAILED" },
		{ "36", RSTATE_ERROR, "TIMEOUT" },
		{ "37", RSTATE_ERROR, "FAILED" },
		{ "38", RSTATE_CANCELED, "CANCELLED" },
	};
	struct state_map	 m;
	char			*text, *cause = NULL, *line, *save = NULL;
	char			*id, *state, *end;
	size_t			 i = 0;

	ck_assert_msg(file_read(test_data(name), &text, NULL, &cause) == 0,
	    "%s", cause);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		str_trim(line);
		/* JobID, State (may hold spaces), ExitCode. */
		id = line;
		state = strchr(line, ' ');
		ck_assert_ptr_nonnull(state);
		*state++ = '\0';
		end = strrchr(state, ' ');
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		ck_assert_uint_lt(i, sizeof want / sizeof want[0]);
		ck_assert_str_eq(id, want[i].id);
		ck_assert_int_eq(state_map(state, STATUS_MISSING, &m), 0);
		ck_assert_int_eq(m.state, want[i].state);
		ck_assert_str_eq(m.native, want[i].native);
		ck_assert(m.terminal);
		i++;
	}
	ck_assert_uint_eq(i, sizeof want / sizeof want[0]);
	free(text);
}

START_TEST(test_real_sacct)
{
	check_sacct_file("logs/sacct-state30.txt");
	check_sacct_file("logs/sacct-state10.txt");
}
END_TEST

static enum status_verdict
verdict_file(const char *name)
{
	enum status_verdict	 v;
	char			*text, *cause = NULL;
	size_t			 len;

	ck_assert_msg(file_read(test_data(name), &text, &len, &cause) == 0,
	    "%s", cause);
	v = state_status_verdict(text, len);
	free(text);
	return v;
}

#define VERDICT(s) state_status_verdict((s), strlen(s))

START_TEST(test_status_json)
{
	/* TAO's JSON lines: the last status decides. */
	ck_assert_int_eq(verdict_file("logs/tao-status-success.json"),
	    STATUS_PASS);
	ck_assert_int_eq(verdict_file("logs/tao-status-failure.json"),
	    STATUS_FAIL);
	ck_assert_int_eq(verdict_file("logs/tao-status-unfinished.json"),
	    STATUS_MISSING);

	ck_assert_int_eq(VERDICT("{\"status\": \"pass\"}"), STATUS_PASS);
	ck_assert_int_eq(VERDICT("{\"status\": \"Completed\"}\n"), STATUS_PASS);
	ck_assert_int_eq(VERDICT("{\"status\": \"FAILED\"}"), STATUS_FAIL);
	ck_assert_int_eq(VERDICT("{\"status\": \"error\", \"exit_code\": 0}"),
	    STATUS_FAIL);
	ck_assert_int_eq(VERDICT("{\"exit_code\": 0}"), STATUS_PASS);
	ck_assert_int_eq(VERDICT("{\"exit_code\": 137}"), STATUS_FAIL);
	ck_assert_int_eq(VERDICT("{\"status\": \"SKIPPED\"}"), STATUS_MISSING);
	ck_assert_int_eq(VERDICT("{\"status\": 1}"), STATUS_MISSING);
	ck_assert_int_eq(VERDICT("[\"SUCCESS\"]"), STATUS_MISSING);
	ck_assert_int_eq(VERDICT(""), STATUS_MISSING);
	ck_assert_int_eq(VERDICT("SUCCESS"), STATUS_MISSING);
	ck_assert_int_eq(state_status_verdict(NULL, 0), STATUS_MISSING);
	/* A torn last line does not hide the verdict before it... */
	ck_assert_int_eq(VERDICT("{\"status\": \"FAILURE\"}\n{\"status\": \"SU"),
	    STATUS_FAIL);
	/* ...and lines without a verdict field do not reset it. */
	ck_assert_int_eq(VERDICT("{\"status\": \"SUCCESS\"}\n{\"epoch\": 3}\n"),
	    STATUS_PASS);
	/* A later non-final status does reset it: the run went on. */
	ck_assert_int_eq(VERDICT("{\"status\": \"SUCCESS\"}\n"
	    "{\"status\": \"STARTED\"}\n"), STATUS_MISSING);
}
END_TEST

START_TEST(test_names)
{
	enum rstate	s;
	enum err_class	c;
	int		i;

	for (i = RSTATE_UNKNOWN; i <= RSTATE_CANCELED; i++) {
		ck_assert_int_eq(state_from_name(state_name(i), &s), 0);
		ck_assert_int_eq(s, i);
	}
	ck_assert_str_eq(state_name(RSTATE_CANCELED), "CANCELED");
	ck_assert_str_eq(state_name(RSTATE_COMPLETE), "COMPLETE");
	ck_assert_int_eq(state_from_name("CANCELLED", &s), -1);
	ck_assert_int_eq(state_from_name("running", &s), -1);
	ck_assert_int_eq(state_from_name(NULL, &s), -1);
	ck_assert_str_eq(state_name((enum rstate)99), "UNKNOWN");
	for (i = ERR_NONE; i <= ERR_UNKNOWN; i++) {
		ck_assert_int_eq(err_class_from_name(err_class_name(i), &c), 0);
		ck_assert_int_eq(c, i);
	}
	ck_assert_str_eq(err_class_name(ERR_INFRA), "INFRA");
	ck_assert_int_eq(err_class_from_name("infra", &c), -1);
	ck_assert_str_eq(status_verdict_name(STATUS_PASS), "pass");
}
END_TEST

START_TEST(test_terminal)
{
	ck_assert(!state_terminal(RSTATE_UNKNOWN));
	ck_assert(!state_terminal(RSTATE_PENDING));
	ck_assert(!state_terminal(RSTATE_RUNNING));
	ck_assert(state_terminal(RSTATE_COMPLETE));
	ck_assert(state_terminal(RSTATE_ERROR));
	ck_assert(state_terminal(RSTATE_CANCELED));
}
END_TEST

START_TEST(test_base)
{
	char	buf[8];

	state_base("CANCELLED by 1001", buf, sizeof buf);
	ck_assert_str_eq(buf, "CANCELL");	/* truncated to fit */
	state_base(" TIMEOUT+ ", buf, sizeof buf);
	ck_assert_str_eq(buf, "TIMEOUT");
	state_base(NULL, buf, sizeof buf);
	ck_assert_str_eq(buf, "");
}
END_TEST

/*
 * The one vocabulary of --json's "state" (issue 26 item 2): SLURM's word
 * with its detail, short forms and the failures it spells its own way all
 * land on the six words; what SLURM does not say is UNKNOWN.
 */
START_TEST(test_word_of)
{
	ck_assert_str_eq(state_word_of("CANCELLED by 1001"), "CANCELLED");
	ck_assert_str_eq(state_word_of("CANCELLED+"), "CANCELLED");
	ck_assert_str_eq(state_word_of("CA"), "CANCELLED");
	ck_assert_str_eq(state_word_of("TIMEOUT"), "FAILED");
	ck_assert_str_eq(state_word_of("OUT_OF_MEMORY"), "FAILED");
	ck_assert_str_eq(state_word_of("NODE_FAIL"), "FAILED");
	ck_assert_str_eq(state_word_of("FAILED"), "FAILED");
	ck_assert_str_eq(state_word_of("COMPLETED"), "COMPLETED");
	ck_assert_str_eq(state_word_of("CD"), "COMPLETED");
	ck_assert_str_eq(state_word_of("PENDING"), "PENDING");
	ck_assert_str_eq(state_word_of("PD"), "PENDING");
	ck_assert_str_eq(state_word_of("RUNNING"), "RUNNING");
	ck_assert_str_eq(state_word_of("COMPLETING"), "RUNNING");
	ck_assert_str_eq(state_word_of("ENDED"), "UNKNOWN");
	ck_assert_str_eq(state_word_of(""), "UNKNOWN");
	ck_assert_str_eq(state_word_of(NULL), "UNKNOWN");
	/* The record's stored words never leak into the vocabulary. */
	ck_assert_str_eq(state_word(RSTATE_COMPLETE), "COMPLETED");
	ck_assert_str_eq(state_word(RSTATE_ERROR), "FAILED");
	ck_assert_str_eq(state_word(RSTATE_CANCELED), "CANCELLED");
}
END_TEST

static Suite *
state_suite(void)
{
	Suite	*s = suite_create("state");
	TCase	*tc = tcase_create("core");

	tcase_add_loop_test(tc, test_r16_table, 0,
	    sizeof rows / sizeof rows[0]);
	tcase_add_loop_test(tc, test_every_state_known, 0,
	    sizeof slurm_states / sizeof slurm_states[0]);
	tcase_add_test(tc, test_unknown_and_missing);
	tcase_add_test(tc, test_real_sacct);
	tcase_add_test(tc, test_status_json);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_terminal);
	tcase_add_test(tc, test_base);
	tcase_add_test(tc, test_word_of);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(state_suite)
