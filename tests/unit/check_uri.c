#include "testutil.h"
#include "uri.h"
#include "util.h"

static void
expect_path(const char *uri, const char *root, const char *want)
{
	char	*path, *cause = NULL;

	if (uri_resolve("dataset", uri, root, &path, &cause) != 0)
		ck_abort_msg("%s: %s", uri, cause);
	ck_assert_str_eq(path, want);
	free(path);
}

static void
expect_refused(const char *uri, const char *root, const char *msg)
{
	char	*path = (char *)1, *cause = NULL;

	ck_assert_int_eq(uri_resolve("dataset", uri, root, &path, &cause), -1);
	ck_assert_ptr_null(path);
	ck_assert_str_eq(cause, msg);
	free(cause);
}

START_TEST(test_lustre)
{
	expect_path("lustre:///lustre/data/coco", NULL, "/lustre/data/coco");
	expect_path("lustre:///lustre/data/coco/", NULL, "/lustre/data/coco");
	expect_path("lustre:////lustre//data/./coco", NULL, "/lustre/data/coco");
	expect_path("lustre:///", NULL, "/");
	expect_path("lustre:///a/.hidden/..x/x..", NULL, "/a/.hidden/..x/x..");
	expect_path("lustre:///a b/c", NULL, "/a b/c");
	expect_refused("lustre://fs1/data", NULL, "dataset \"lustre://fs1/"
	    "data\": lustre:// takes no host; write lustre:///absolute/path "
	    "(three slashes)");
	expect_refused("lustre://", NULL, "dataset \"lustre://\": lustre:// "
	    "takes no host; write lustre:///absolute/path (three slashes)");
	expect_refused("lustre:///a/../etc", NULL, "dataset \"lustre:///a/../"
	    "etc\": \"..\" is not allowed in a storage path; write the "
	    "absolute path without it");
	expect_refused("lustre:///a/..", NULL, "dataset \"lustre:///a/..\": "
	    "\"..\" is not allowed in a storage path; write the absolute path "
	    "without it");
}
END_TEST

START_TEST(test_slurm)
{
	expect_path("slurm://results/job1/out", "/lustre/results",
	    "/lustre/results/job1/out");
	expect_path("slurm://results/job1/out", "/lustre/results/",
	    "/lustre/results/job1/out");
	expect_path("slurm://results", "/lustre/results", "/lustre/results");
	expect_path("slurm://results/", "/lustre/results", "/lustre/results");
	expect_refused("slurm://results/job1", NULL, "dataset \"slurm://"
	    "results/job1\": slurm://results/ needs a results root: set "
	    "SLURM_BASE_RESULTS_DIR or results_root in clusters.yaml");
	expect_refused("slurm://results/job1", "", "dataset \"slurm://"
	    "results/job1\": slurm://results/ needs a results root: set "
	    "SLURM_BASE_RESULTS_DIR or results_root in clusters.yaml");
	expect_refused("slurm://results/job1", "lustre/results", "dataset "
	    "\"slurm://results/job1\": the results root \"lustre/results\" is "
	    "not an absolute path; fix SLURM_BASE_RESULTS_DIR or results_root");
	expect_refused("slurm://results/../../etc", "/lustre/results",
	    "dataset \"slurm://results/../../etc\": \"..\" is not allowed in "
	    "a storage path; write the absolute path without it");
	expect_refused("slurm://resultsx/a", "/r", "dataset \"slurm://"
	    "resultsx/a\": unknown slurm:// area \"resultsx\"; the only one "
	    "is slurm://results/<path> (under the results root)");
	expect_refused("slurm:///abs", "/r", "dataset \"slurm:///abs\": "
	    "unknown slurm:// area \"\"; the only one is slurm://results/<path> "
	    "(under the results root)");
	/* A root with ".." is refused too: the result must stay plain. */
	expect_refused("slurm://results/a", "/lustre/../r", "dataset \"slurm://"
	    "results/a\": \"..\" is not allowed in a storage path; write the "
	    "absolute path without it");
	/*
	 * Found by tests/fuzz (uri_resolve): a control character in the root
	 * gave a path that lustre:// of the same path refuses.
	 */
	expect_refused("slurm://results/a", "/lustre/\033[2Jr", "dataset "
	    "\"slurm://results/a\": the results root contains a control "
	    "character; fix SLURM_BASE_RESULTS_DIR or results_root");
}
END_TEST

START_TEST(test_refused)
{
	/* file:// dataset: local to this machine. */
	expect_refused("file:///home/me/coco", "/r", "dataset \"file:///home/"
	    "me/coco\": file:// names a file on this machine, which the "
	    "cluster cannot read; copy the data to the cluster's shared "
	    "storage and write lustre:///<path on the cluster>");
	expect_refused("/lustre/data/coco", "/r", "dataset \"/lustre/data/"
	    "coco\" is a plain local path; if it is on the cluster's shared "
	    "storage write lustre:///lustre/data/coco");
	expect_refused("data/coco", "/r", "dataset \"data/coco\" is a relative "
	    "local path, which the cluster cannot read; write lustre:///"
	    "<absolute path on the cluster's shared storage>");
	expect_refused("./coco", "/r", "dataset \"./coco\" is a relative "
	    "local path, which the cluster cannot read; write lustre:///"
	    "<absolute path on the cluster's shared storage>");
	expect_refused("~/coco", "/r", "dataset \"~/coco\" is a relative "
	    "local path, which the cluster cannot read; write lustre:///"
	    "<absolute path on the cluster's shared storage>");
	expect_refused("s3://bucket/coco", "/r", "dataset \"s3://bucket/coco\": "
	    "s3:// is not supported for a cluster; stage the data to shared "
	    "storage before submitting (never inside the GPU allocation) and "
	    "write lustre:///<path>");
	expect_refused("https://x.org/a.tgz", "/r", "dataset \"https://x.org/"
	    "a.tgz\": https:// is not supported for a cluster; stage the data "
	    "to shared storage before submitting (never inside the GPU "
	    "allocation) and write lustre:///<path>");
	/* Not a scheme: a relative path with a colon. */
	expect_refused("c:/x", "/r", "dataset \"c:/x\" is a relative local "
	    "path, which the cluster cannot read; write lustre:///<absolute "
	    "path on the cluster's shared storage>");
	expect_refused("1s3://x", "/r", "dataset \"1s3://x\" is a relative "
	    "local path, which the cluster cannot read; write lustre:///"
	    "<absolute path on the cluster's shared storage>");
	expect_refused("", "/r", "dataset is empty");
	expect_refused("lustre:///a\nb", "/r", "dataset \"lustre:///a\nb\" "
	    "contains a control character");
}
END_TEST

START_TEST(test_what)
{
	char	*path, *cause = NULL;

	ck_assert_int_eq(uri_resolve("mount source", "file:///x", NULL, &path,
	    &cause), -1);
	ck_assert(str_has_prefix(cause, "mount source \"file:///x\": "));
	free(cause);
}
END_TEST

static Suite *
uri_suite(void)
{
	Suite	*s = suite_create("uri");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_lustre);
	tcase_add_test(tc, test_slurm);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_what);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(uri_suite)
