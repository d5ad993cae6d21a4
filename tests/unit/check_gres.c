/*
 * Free GPUs per partition (src/slurm/gres.c): sinfo output captured on the local
 * cluster with a job holding 3 of sdn1's 4 fake GPUs
 * (tests/data/slurm/gres-sdtb.txt), and the Gres / GresUsed forms of
 * other SLURM versions and sites.
 */
#include "testutil.h"
#include "gres.h"
#include "util.h"

START_TEST(test_gpus)
{
	ck_assert_int_eq(gres_gpus("gpu:4"), 4);
	ck_assert_int_eq(gres_gpus("gpu:0"), 0);
	ck_assert_int_eq(gres_gpus("gpu:a100:4(S:0-1)"), 4);
	ck_assert_int_eq(gres_gpus("gpu:(null):2(IDX:0-1)"), 2);
	ck_assert_int_eq(gres_gpus("gpu:a100:2(IDX:0,2),gpu:v100:1(IDX:3)"),
	    3);
	ck_assert_int_eq(gres_gpus("fpga:1,gpu:2"), 2);
	ck_assert_int_eq(gres_gpus("gpu"), 1);
	ck_assert_int_eq(gres_gpus("(null)"), 0);
	ck_assert_int_eq(gres_gpus(""), 0);
	ck_assert_int_eq(gres_gpus("gpuxyz:3"), 0);
	ck_assert_int_eq(gres_gpus("gpu:x"), -1);
	ck_assert_int_eq(gres_gpus(NULL), -1);
}
END_TEST

START_TEST(test_captured)
{
	struct gres_parts	 gp;
	char			*text = NULL, *cause = NULL;

	memset(&gp, 0, sizeof gp);
	ck_assert_int_eq(file_read(test_data("slurm/gres-sdtb.txt"), &text,
	    NULL, &cause), 0);
	ck_assert_int_eq(gres_parse(text, &gp, &cause), 0);
	ck_assert_uint_eq(gp.n, 2);
	ck_assert_str_eq(gp.v[0].name, "cpu");
	ck_assert_str_eq(gp.v[1].name, "gpu");
	ck_assert_int_eq(gp.v[1].total, 8);
	ck_assert_int_eq(gp.v[1].idle, 5);	/* 1 on sdn1, 4 on sdn2 */
	gres_free(&gp);
	free(text);
}
END_TEST

START_TEST(test_states)
{
	struct gres_parts	 gp;
	char			*cause = NULL, *cmd;

	memset(&gp, 0, sizeof gp);
	/* Drained and not-responding nodes have no idle GPU; '*' default. */
	ck_assert_int_eq(gres_parse("gpu*\037n1\037drain\037gpu:8\037gpu:0\n"
	    "gpu*\037n2\037idle*\037gpu:8\037gpu:0\n"
	    "gpu*\037n3\037mix\037gpu:8\037gpu:(null):6(IDX:0-5)\n"
	    "bad line\n", &gp, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "first at line 4"));
	free(cause);
	ck_assert_uint_eq(gp.n, 1);
	ck_assert_str_eq(gp.v[0].name, "gpu");
	ck_assert_int_eq(gp.v[0].total, 24);
	ck_assert_int_eq(gp.v[0].idle, 2);
	gres_free(&gp);
	cmd = gres_cmd();
	ck_assert_ptr_nonnull(strstr(cmd, "sinfo -h -N -O 'PartitionName:0\037'"
	    ",'NodeHost:0\037',"));
	ck_assert_ptr_nonnull(strstr(cmd, ",'GresUsed:0'"));
	free(cmd);
}
END_TEST

static Suite *
gres_suite(void)
{
	Suite	*s = suite_create("gres");
	TCase	*tc = tcase_create("gres");

	tcase_add_test(tc, test_gpus);
	tcase_add_test(tc, test_captured);
	tcase_add_test(tc, test_states);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(gres_suite)
