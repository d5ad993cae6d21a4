/*
 * Why pending, in words (src/slurm/pending.c): the reason codes squeue prints
 * (as captured from the local cluster: "Dependency", "JobHeldUser",
 * "Resources", "Priority", "ReqNodeNotAvail, UnavailableNodes:sdn1") and
 * the limit families by prefix.
 */
#include "testutil.h"
#include "pending.h"

START_TEST(test_codes)
{
	static const char *known[] = {
		"Priority", "Resources", "QOSMaxGRESPerUser", "AssocGrpGRES",
		"ReqNodeNotAvail", "Dependency", "PartitionTimeLimit",
		"JobHeldUser", "JobHeldAdmin", "BeginTime",
		"DependencyNeverSatisfied", "AssocGrpCpuLimit",
		"QOSMaxCpuPerUserLimit", "AssocMaxWallDurationPerJobLimit",
		"QOSGrpGRES", "InvalidAccount",
	};
	struct pending_why	why;
	size_t			i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		ck_assert_msg(pending_explain(known[i], &why) == 0,
		    "%s not explained", known[i]);
		ck_assert_ptr_nonnull(why.sentence);
		ck_assert_ptr_nonnull(why.fix);
		ck_assert_int_gt((int)strlen(why.fix), 10);
	}
}
END_TEST

START_TEST(test_match)
{
	struct pending_why	why;
	char			*t;

	/* Whole codes, not prefixes of longer ones. */
	ck_assert_int_eq(pending_explain("Dependency", &why), 0);
	ck_assert_str_eq(why.code, "Dependency");
	ck_assert_int_eq(pending_explain("DependencyNeverSatisfied", &why), 0);
	ck_assert_str_eq(why.code, "DependencyNeverSatisfied");
	ck_assert_ptr_nonnull(strstr(why.sentence, "never"));
	/* squeue's long form, and the parenthesised %R form. */
	ck_assert_int_eq(pending_explain("ReqNodeNotAvail, "
	    "UnavailableNodes:sdn1", &why), 0);
	ck_assert_str_eq(why.code, "ReqNodeNotAvail");
	ck_assert_int_eq(pending_explain("(Resources)", &why), 0);
	ck_assert_str_eq(why.code, "Resources");
	/* Exact QOS code before its family. */
	ck_assert_int_eq(pending_explain("QOSMaxGRESPerUser", &why), 0);
	ck_assert_str_eq(why.code, "QOSMaxGRESPerUser");
	ck_assert_int_eq(pending_explain("QOSMaxNodePerJobLimit", &why), 0);
	ck_assert_str_eq(why.code, "QOSMax");
	/* Unknown, empty, None. */
	ck_assert_int_eq(pending_explain("Prioritized", &why), -1);
	ck_assert_int_eq(pending_explain("", &why), -1);
	ck_assert_int_eq(pending_explain(NULL, &why), -1);
	ck_assert_int_eq(pending_explain("None", &why), -1);
	ck_assert_ptr_null(pending_text("WeirdNewReason"));
	t = pending_text("JobHeldUser");
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "Fix: Release it with scontrol "
	    "release"));
	free(t);
}
END_TEST

/*
 * Issue 26.8: the descriptions slurmctld 22.05-26.05 puts in state_desc,
 * which squeue %r prints in place of the code (texts from
 * job_scheduler.c, acct_policy.c, job_mgr.c, reservation.c).
 */
START_TEST(test_descriptions)
{
	static const struct { const char *text, *code; } d[] = {
		{ "Nodes required for job are DOWN, DRAINED or reserved for "
		  "jobs in higher priority partitions", "ReqNodeNotAvail" },
		{ "Nodes required for job are DOWN, DRAINED, REBOOTING or "
		  "reserved for jobs in higher priority partitions",
		  "ReqNodeNotAvail" },
		{ "(Nodes required for job are DOWN, DRAINED or reserved for "
		  "jobs in higher priority partitions)", "ReqNodeNotAvail" },
		{ "ReqNodeNotAvail, Reserved for maintenance",
		  "ReqNodeNotAvail" },
		{ "Job is at or exceeds QOS normal's group max TRES(gres/gpu) "
		  "minutes of 600 with 612", "QOSGrp" },
		{ "Job is at or exceeds QOS normal's group wall limit of 60 "
		  "with 61", "QOSGrp" },
		{ "Job is at or exceeds QOS normal's max TRES(cpu) minutes of "
		  "10 with 20", "QOSMax" },
		{ "Job is at or exceeds association (acc=a/user=u/part=p) "
		  "group max TRES(cpu) minutes of 1 with 2", "AssocGrp" },
		{ "Job is at or exceeds association (acc=a/user=u/part=p) max "
		  "TRES(cpu) minutes of 1 with 2", "AssocMax" },
		{ "uid 1001 not in group permitted to use this partition "
		  "(gpu). groups allowed: staff", "AccountNotAllowed" },
		{ "Reservation maint was deleted", "ReservationDeleted" },
		{ "Reservation maint is invalid", "ReservationInvalid" },
		{ "Reservation maint, which this job was running under, has "
		  "ended", "ReservationEnded" },
		{ "job requeued in held state", "JobHeldUser" },
		{ "Unable to load job batch script",
		  "launch failed requeued held" },
	};
	struct pending_why	why;
	size_t			i;
	char			*t;

	for (i = 0; i < sizeof d / sizeof d[0]; i++) {
		ck_assert_msg(pending_explain(d[i].text, &why) == 0,
		    "%s not explained", d[i].text);
		ck_assert_str_eq(why.code, d[i].code);
		ck_assert_ptr_nonnull(why.sentence);
		ck_assert_ptr_nonnull(why.fix);
	}
	ck_assert_int_eq(pending_explain("Nodes required", &why), -1);
	ck_assert_int_eq(pending_explain("Reservation x was moved", &why), 0);
	ck_assert_str_eq(why.code, "Reservation");
	ck_assert_int_eq(pending_explain("uid 5 has a hat", &why), -1);
	t = pending_text("Nodes required for job are DOWN, DRAINED or "
	    "reserved for jobs in higher priority partitions");
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "drained"));
	free(t);
}
END_TEST

static Suite *
pending_suite(void)
{
	Suite	*s = suite_create("pending");
	TCase	*tc = tcase_create("pending");

	tcase_add_test(tc, test_codes);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_descriptions);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(pending_suite)
