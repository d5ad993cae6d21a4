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

static Suite *
pending_suite(void)
{
	Suite	*s = suite_create("pending");
	TCase	*tc = tcase_create("pending");

	tcase_add_test(tc, test_codes);
	tcase_add_test(tc, test_match);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(pending_suite)
