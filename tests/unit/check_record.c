/* record: local job records, atomic updates under flock (sqdeck(1): JOB
   RECORDS AND STATES). */
#include "testutil.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <malloc.h>
#include <regex.h>
#include <signal.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "monitor.h"
#include "ops.h"
#include "ends.h"
#include "react.h"
#include "record.h"
#include "util.h"

static char	*state_home;

/* Every test gets its own XDG_STATE_HOME (Check forks per test). */
static void
setup(void)
{
	state_home = xstrdup(test_tmpdir());
	setenv("XDG_STATE_HOME", state_home, 1);
}

static void
teardown(void)
{
	char	*cmd = xasprintf("rm -rf '%s'", state_home);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", state_home);
	free(cmd);
	free(state_home);
}

static char *
new_record(const char *cluster, const char *job_name)
{
	struct record	*r = record_new(cluster);
	char		*cause = NULL, *id;

	r->image = xstrdup("nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt");
	r->network_arch = xstrdup("dino");
	r->action = xstrdup("train");
	r->results_root = xstrdup("/lustre/alice/results");
	r->job_name = xstrdup(job_name);
	r->nodes = 2;
	r->gpus = 16;
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	return id;
}

static char *
path_of(const char *id)
{
	char	*dir = record_dir(), *path;

	path = xasprintf("%s/%s.json", dir, id);
	free(dir);
	return path;
}

static void
write_file(const char *path, const char *text)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_create_load)
{
	struct record	*r;
	struct stat	 sb;
	regex_t		 re;
	char		*id, *path, *cause = NULL, *text, *dir;

	id = new_record("polar", "tao-dino-train");
	ck_assert_int_eq(regcomp(&re, "^sd-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$",
	    REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_msg(regexec(&re, id, 0, NULL, 0) == 0, "id %s", id);
	regfree(&re);

	/* Under $XDG_STATE_HOME/sqdeck/records, private. */
	dir = record_dir();
	text = xasprintf("%s/sqdeck/records", state_home);
	ck_assert_str_eq(dir, text);
	free(text);
	free(dir);
	path = path_of(id);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);

	ck_assert_msg(record_load(id, &r, &cause) == 0, "%s", cause);
	ck_assert_str_eq(r->id, id);
	ck_assert_str_eq(r->cluster, "polar");
	ck_assert_str_eq(r->platform, "slurm");
	ck_assert_str_eq(r->storage_tier, "A");
	ck_assert_str_eq(r->image, "nvcr.io#nvidia/tao/tao-toolkit:5.5.0-pyt");
	ck_assert_str_eq(r->network_arch, "dino");
	ck_assert_str_eq(r->action, "train");
	ck_assert_str_eq(r->results_root, "/lustre/alice/results");
	ck_assert_int_eq(r->nodes, 2);
	ck_assert_int_eq(r->gpus, 16);
	ck_assert_ptr_null(r->job_dir);
	ck_assert_ptr_null(record_slurm_id(r));
	ck_assert_int_eq(r->state, RSTATE_PENDING);
	ck_assert_int_eq(r->err_class, ERR_NONE);
	ck_assert_uint_eq(r->nhistory, 1);
	ck_assert_str_eq(r->history[0].source, "create");
	ck_assert_int_eq(r->history[0].state, RSTATE_PENDING);
	ck_assert_str_eq(r->created, r->history[0].time);
	ck_assert_uint_eq(strlen(r->created), 20);	/* 2026-11-29T16:45:00Z */
	ck_assert_int_eq(r->created[19], 'Z');
	record_free(r);

	/* The file is plain JSON a script can read. */
	ck_assert_int_eq(file_read(path, &text, NULL, NULL), 0);
	{
		cJSON	*o = cJSON_Parse(text);

		ck_assert_ptr_nonnull(o);
		ck_assert_str_eq(cJSON_GetObjectItem(o, "state")->valuestring,
		    "PENDING");
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "slurm_id")));
		ck_assert(cJSON_IsArray(cJSON_GetObjectItem(o, "history")));
		cJSON_Delete(o);
	}
	free(text);
	free(path);
	free(id);
}
END_TEST

START_TEST(test_create_fails)
{
	struct record	*r;
	char		*cause = NULL, *blocker, *path, *before, *after;
	char		*id;

	/* An id that is taken is refused and the file is left alone. */
	id = new_record("polar", "first");
	path = path_of(id);
	ck_assert_int_eq(file_read(path, &before, NULL, NULL), 0);
	r = record_new("polar");
	r->id = xstrdup(id);
	ck_assert_int_eq(record_create(r, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "already exists"));
	free(cause);
	record_free(r);
	ck_assert_int_eq(file_read(path, &after, NULL, NULL), 0);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(path);
	free(id);

	/* An id that would escape the directory is refused. */
	r = record_new("polar");
	r->id = xstrdup("../../etc/x");
	ck_assert_int_eq(record_create(r, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "is not a record id"));
	free(cause);
	record_free(r);

	/* No directory, no record: the caller must not launch. */
	blocker = xasprintf("%s/file", state_home);
	write_file(blocker, "not a directory\n");
	setenv("XDG_STATE_HOME", blocker, 1);
	r = record_new("polar");
	ck_assert_int_eq(record_create(r, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "cannot create directory"));
	ck_assert_ptr_nonnull(strstr(cause, blocker));
	free(cause);
	record_free(r);
	free(blocker);
}
END_TEST

START_TEST(test_transitions)
{
	struct record	*r;
	char		*id, *cause = NULL;

	id = new_record("polar", "job");
	ck_assert_int_eq(record_set_slurm_id(id, "4471", NULL), 0);
	ck_assert_int_eq(record_transition(id, RSTATE_RUNNING, "PENDING",
	    "submit", "sbatch: job 4471", NULL), 0);
	/* The same observation twice is one entry. */
	ck_assert_int_eq(record_transition(id, RSTATE_RUNNING, "RUNNING",
	    "poll", "", NULL), 0);
	ck_assert_int_eq(record_transition(id, RSTATE_RUNNING, "RUNNING",
	    "poll", "", NULL), 0);
	/* A requeue: same state, new SLURM id kept after the old one. */
	ck_assert_int_eq(record_set_slurm_id(id, "4471", NULL), 0);
	ck_assert_int_eq(record_set_slurm_id(id, "4502", NULL), 0);
	ck_assert_int_eq(record_transition(id, RSTATE_ERROR, "NODE_FAIL",
	    "poll", "NODE_FAIL", NULL), 0);
	ck_assert_int_eq(record_set_err(id, ERR_INFRA, "node-fail", NULL), 0);
	ck_assert_int_eq(record_set(id, "job_dir", "/lustre/alice/results/j1",
	    NULL), 0);
	ck_assert_int_eq(record_set(id, "log_dir", "/lustre/alice/logs", NULL),
	    0);

	ck_assert_int_eq(record_set(id, "id", "other", &cause), -1);
	ck_assert_str_eq(cause, "record field 'id' cannot be set");
	free(cause);
	ck_assert_int_eq(record_set(id, "nosuch", "x", &cause), -1);
	free(cause);
	ck_assert_int_eq(record_set_slurm_id(id, "", &cause), -1);
	free(cause);

	ck_assert_int_eq(record_load(id, &r, NULL), 0);
	ck_assert_uint_eq(r->nhistory, 4);
	ck_assert_str_eq(r->history[1].source, "submit");
	ck_assert_str_eq(r->history[1].native, "PENDING");
	ck_assert_str_eq(r->history[1].message, "sbatch: job 4471");
	ck_assert_int_eq(r->history[2].state, RSTATE_RUNNING);
	ck_assert_str_eq(r->history[2].native, "RUNNING");
	ck_assert_int_eq(r->history[3].state, RSTATE_ERROR);
	ck_assert_int_eq(r->state, RSTATE_ERROR);
	ck_assert_str_eq(r->native, "NODE_FAIL");
	ck_assert_int_eq(r->err_class, ERR_INFRA);
	ck_assert_str_eq(r->err_rule, "node-fail");
	ck_assert_uint_eq(r->slurm_ids.n, 2);
	ck_assert_str_eq(r->slurm_ids.v[0], "4471");
	ck_assert_str_eq(record_slurm_id(r), "4502");
	ck_assert_str_eq(r->job_dir, "/lustre/alice/results/j1");
	ck_assert_str_eq(r->log_dir, "/lustre/alice/logs");
	ck_assert(strcmp(r->updated, r->created) >= 0);
	record_free(r);

	/* Updates to a record that does not exist name it. */
	ck_assert_int_eq(record_transition("sd-20990101T000000-abcdef",
	    RSTATE_CANCELED, "CANCELLED", "cancel:cli", "", &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "no record "
	    "sd-20990101T000000-abcdef"));
	free(cause);
	ck_assert_int_eq(record_load("../x", &r, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "'../x' is not a record id"));
	free(cause);
	free(id);
}
END_TEST

/* Triage's class and evidence survive a write and a read (issue 16). */
START_TEST(test_err_evidence)
{
	struct record	*r, *back;
	char		*json, *cause = NULL;

	r = record_new("polar");
	free(r->id);
	r->id = xstrdup("sd-20260101T000000-abcdef");
	r->created = xstrdup("2026-01-01T00:00:00Z");
	r->updated = xstrdup("2026-01-01T00:00:00Z");
	r->state = RSTATE_ERROR;
	r->err_class = ERR_UNKNOWN;
	r->err_rule = xstrdup("signal");
	r->err_evidence = xstrdup("last lines: step 12100 loss 1.99 | "
	    "step 12110 loss 1.98");
	json = record_to_json(r);
	ck_assert_ptr_nonnull(strstr(json, "\"err_evidence\""));
	ck_assert_msg(record_from_json(json, strlen(json), "test", &back,
	    &cause) == 0, "%s", cause);
	ck_assert_int_eq(back->err_class, ERR_UNKNOWN);
	ck_assert_str_eq(back->err_rule, "signal");
	ck_assert_str_eq(back->err_evidence, r->err_evidence);
	record_free(back);
	record_free(r);
	free(json);
}
END_TEST

START_TEST(test_retry)
{
	struct record	*old, *r;
	char		*id, *cause = NULL;

	id = new_record("polar", "job");
	ck_assert_int_eq(record_set(id, "job_dir", "/lustre/j", NULL), 0);
	ck_assert_int_eq(record_set_slurm_id(id, "77", NULL), 0);
	ck_assert_int_eq(record_load(id, &old, NULL), 0);
	r = record_new_retry(old);
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	ck_assert_str_ne(r->id, old->id);
	record_free(r);
	r = NULL;

	/* The retry record names the old one and carries the workload. */
	{
		struct record_list	list;
		size_t			i;

		ck_assert_int_eq(record_list(&list, NULL), 0);
		ck_assert_uint_eq(list.n, 2);
		for (i = 0; i < list.n; i++) {
			if (list.v[i]->retry_of != NULL)
				r = list.v[i];
		}
		ck_assert_ptr_nonnull(r);
		ck_assert_str_eq(r->retry_of, id);
		ck_assert_int_eq(r->retry_count, 1);
		ck_assert_str_eq(r->job_dir, "/lustre/j");
		ck_assert_str_eq(r->image, old->image);
		ck_assert_int_eq(r->gpus, 16);
		ck_assert_ptr_null(record_slurm_id(r));
		ck_assert_int_eq(r->state, RSTATE_PENDING);
		ck_assert_str_eq(r->history[0].message, "record opened (retry)");
		record_list_free(&list);
	}
	record_free(old);
	free(id);
}
END_TEST

/*
 * Issue 12 item 2: what a retry needs (secret names, budget) is kept in
 * the local record at submit time and carried to the retry record; an
 * older record without them says so (retry_known 0).
 */
START_TEST(test_retry_info)
{
	struct record	*r, *n;
	char		*cause = NULL, *json, *id;

	r = record_new("polar");
	strv_add(&r->secrets, "HF_TOKEN");
	strv_add(&r->secrets, "NGC_KEY");
	r->retry_budget = 3;
	r->retry_known = 1;
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	ck_assert_int_eq(record_load(id, &r, &cause), 0);
	ck_assert_int_eq(r->retry_known, 1);
	ck_assert_int_eq(r->retry_budget, 3);
	ck_assert_uint_eq(r->secrets.n, 2);
	ck_assert_str_eq(r->secrets.v[1], "NGC_KEY");
	/*
	 * A retry runs the first submit's script, whose sidecar is the first
	 * record's: the retry's poll and cancel must remove that one.
	 */
	r->job_dir = xstrdup("/j");
	r->env_file = xstrdup("/j/job_sd-root.env");
	n = record_new_retry(r);
	{
		char	*env = ops_env_path(n);

		ck_assert_str_eq(env, "/j/job_sd-root.env");
		free(env);
	}
	ck_assert_int_eq(n->retry_known, 1);
	ck_assert_int_eq(n->retry_budget, 3);
	ck_assert_uint_eq(n->secrets.n, 2);
	ck_assert_str_eq(n->secrets.v[0], "HF_TOKEN");
	record_free(n);
	/* No secrets is written too: an empty list, known. */
	strv_free(&r->secrets);
	json = record_to_json(r);
	ck_assert_ptr_nonnull(strstr(json, "\"secrets\":"));
	record_free(r);
	ck_assert_int_eq(record_from_json(json, strlen(json), "t", &r,
	    &cause), 0);
	ck_assert_int_eq(r->retry_known, 1);
	ck_assert_uint_eq(r->secrets.n, 0);
	record_free(r);
	free(json);
	/* A record from before: neither field. */
	r = record_new("polar");
	r->id = xstrdup("sd-old");
	r->created = xstrdup("2026-01-01T00:00:00Z");
	json = record_to_json(r);
	record_free(r);
	ck_assert_ptr_null(strstr(json, "secrets"));
	ck_assert_int_eq(record_from_json(json, strlen(json), "t", &r,
	    &cause), 0);
	ck_assert_int_eq(r->retry_known, 0);
	record_free(r);
	free(json);
	/* One without the other is refused. */
	json = xstrdup("{\"id\":\"sd-x\",\"created\":\"x\",\"state\":"
	    "\"ERROR\",\"history\":[],\"secrets\":[\"A\"]}");
	ck_assert_int_eq(record_from_json(json, strlen(json), "t", &r,
	    &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "retry_budget"));
	free(cause);
	free(json);
	free(id);
}
END_TEST

START_TEST(test_corrupt)
{
	struct record_list	 list;
	struct record		*r;
	char			*good, *bad, *path, *cause = NULL, *text;
	char			*dir, *other, *goodpath;

	good = new_record("polar", "good");
	bad = new_record("polar", "bad");
	path = path_of(bad);
	write_file(path, "{\"id\": \"truncated");

	/* Listed as corrupt with its path, the good one still listed. */
	ck_assert_int_eq(record_list(&list, NULL), 0);
	ck_assert_uint_eq(list.n, 1);
	ck_assert_str_eq(list.v[0]->id, good);
	ck_assert_uint_eq(list.corrupt.n, 1);
	ck_assert_msg(str_has_prefix(list.corrupt.v[0], path), "%s",
	    list.corrupt.v[0]);
	ck_assert_ptr_nonnull(strstr(list.corrupt.v[0], "not valid JSON"));
	record_list_free(&list);

	/* An update refuses it and leaves the bytes alone. */
	ck_assert_int_eq(record_transition(bad, RSTATE_RUNNING, "RUNNING",
	    "poll", "", &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, path));
	free(cause);
	ck_assert_int_eq(file_read(path, &text, NULL, NULL), 0);
	ck_assert_str_eq(text, "{\"id\": \"truncated");
	free(text);

	/* Valid JSON but not a record: named too. */
	write_file(path, "{\"id\": 3, \"state\": \"RUNNING\"}\n");
	ck_assert_int_eq(record_load(bad, &r, &cause), -1);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(cause, "\"id\" is not a string"));
	free(cause);

	/* A record whose id is not its file name. */
	dir = record_dir();
	other = xasprintf("%s/sd-20990101T000000-000000.json", dir);
	goodpath = path_of(good);
	ck_assert_int_eq(file_read(goodpath, &text, NULL, NULL), 0);
	free(goodpath);
	write_file(other, text);
	free(text);
	ck_assert_int_eq(record_list(&list, NULL), 0);
	ck_assert_uint_eq(list.n, 1);
	ck_assert_uint_eq(list.corrupt.n, 2);
	record_list_free(&list);

	/* Leftover temp files of a killed writer are not records. */
	text = xasprintf("%s/%s.json.tmp.12345", dir, good);
	write_file(text, "{\"id\": \"half");
	free(text);
	ck_assert_int_eq(record_list(&list, NULL), 0);
	ck_assert_uint_eq(list.corrupt.n, 2);
	record_list_free(&list);
	/* ...and the next create (under the lock) removes them. */
	free(new_record("polar", "next"));
	text = xasprintf("%s/%s.json.tmp.12345", dir, good);
	ck_assert_int_eq(access(text, F_OK), -1);
	free(text);

	free(other);
	free(dir);
	free(path);
	free(good);
	free(bad);
}
END_TEST

/* Rewrite one string member in a record's file, as an old file has it. */
static void
file_member(const char *id, const char *name, const char *value)
{
	char	*path = path_of(id), *text = NULL, *p, *q, *fixed, *key;

	ck_assert_int_eq(file_read(path, &text, NULL, NULL), 0);
	key = xasprintf("\"%s\"", name);
	p = strstr(text, key);
	ck_assert_ptr_nonnull(p);
	p = strchr(p + strlen(key), '"');	/* its value */
	ck_assert_ptr_nonnull(p);
	p++;
	q = strchr(p, '"');
	ck_assert_ptr_nonnull(q);
	fixed = xasprintf("%.*s%s%s", (int)(p - text), text, value, q);
	write_file(path, fixed);
	free(fixed);
	free(key);
	free(text);
	free(path);
}

/* One creation second, whatever the clock did between the creates. */
static void
same_created(const char *id)
{
	file_member(id, "created", "2026-11-29T16:45:00Z");
}

START_TEST(test_list_order)
{
	struct record_list	 list;
	struct record		*r;
	char			*cause = NULL;
	static const char	*ids[] = {
		"sd-20261129T164502-00000c", "sd-20261129T164500-00000a",
		"sd-20261129T164501-00000b",
	};
	size_t			 i;

	/* Empty (no directory yet) is not an error. */
	ck_assert_int_eq(record_list(&list, NULL), 0);
	ck_assert_uint_eq(list.n, 0);
	record_list_free(&list);

	for (i = 0; i < 3; i++) {
		r = record_new("c");
		r->id = xstrdup(ids[i]);
		ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
		record_free(r);
		same_created(ids[i]);
	}
	/* Same creation second: the id (time, then random) orders them. */
	ck_assert_int_eq(record_list(&list, NULL), 0);
	ck_assert_uint_eq(list.n, 3);
	ck_assert_str_eq(list.v[0]->id, ids[1]);
	ck_assert_str_eq(list.v[1]->id, ids[2]);
	ck_assert_str_eq(list.v[2]->id, ids[0]);
	record_list_free(&list);
}
END_TEST

/*
 * The index (issue 17): a refresh reads the new and changed files only,
 * forgets removed ones, and finds a job's record by cluster and SLURM id.
 */
START_TEST(test_index)
{
	struct record_index	*ix = record_index_new();
	struct record_list	 fresh;
	char			*a, *b, *cause = NULL, *path;
	unsigned long		 before;

	ck_assert_int_eq(record_index_refresh(ix, &fresh, &cause), 0);
	ck_assert_uint_eq(fresh.n, 0);	/* no directory yet */
	record_list_free(&fresh);
	a = new_record("polar", "job-a");
	b = new_record("polar", "job-b");
	ck_assert_int_eq(record_set_slurm_id(a, "101", &cause), 0);
	ck_assert_int_eq(record_set_slurm_id(b, "202", &cause), 0);
	ck_assert_int_eq(record_index_refresh(ix, &fresh, &cause), 0);
	ck_assert_uint_eq(fresh.n, 2);
	ck_assert_uint_eq(record_index_size(ix), 2);
	record_list_free(&fresh);
	ck_assert_str_eq(record_index_find(ix, "polar", "101"), a);
	ck_assert_str_eq(record_index_find(ix, "polar", "202"), b);
	ck_assert_ptr_null(record_index_find(ix, "other", "101"));
	ck_assert_ptr_null(record_index_find(ix, "polar", "303"));

	/* Nothing changed: no file is read again, only the listing. */
	before = record_reads_here();
	ck_assert_int_eq(record_index_refresh(ix, &fresh, &cause), 0);
	ck_assert_uint_eq(fresh.n, 0);
	ck_assert_uint_eq(record_reads_here() - before, 1);
	record_list_free(&fresh);

	/* A requeue's new id: that one file is read again. */
	ck_assert_int_eq(record_set_slurm_id(b, "203", &cause), 0);
	ck_assert_int_eq(record_index_refresh(ix, &fresh, &cause), 0);
	ck_assert_uint_eq(fresh.n, 1);
	ck_assert_str_eq(fresh.v[0]->id, b);
	record_list_free(&fresh);
	ck_assert_str_eq(record_index_find(ix, "polar", "203"), b);
	ck_assert_str_eq(record_index_find(ix, "polar", "202"), b);

	/* A removed file leaves the index; a bad one is said. */
	path = path_of(a);
	ck_assert_int_eq(unlink(path), 0);
	free(path);
	path = path_of("sd-20261129T164500-0000ff");
	write_file(path, "{ not json");
	free(path);
	ck_assert_int_eq(record_index_refresh(ix, &fresh, &cause), 0);
	ck_assert_uint_eq(fresh.corrupt.n, 1);
	record_list_free(&fresh);
	ck_assert_ptr_null(record_index_find(ix, "polar", "101"));
	ck_assert_uint_eq(record_index_size(ix), 2);
	record_index_free(ix);
	free(a);
	free(b);
}
END_TEST


/* Seconds after which a directory's listing stands (LISTED_SLACK + 1). */
#define LISTED_WAIT 3

/* n finished records as bench/run's records_spread writes them. */
static void
spread_records(size_t n)
{
	char	*dir = record_dir(), *path, *text, *cause = NULL;
	size_t	 i;

	ck_assert_int_eq(mkdir_p(dir, 0700, &cause), 0);
	for (i = 1; i <= n; i++) {
		path = xasprintf("%s/sd-20260101T000000-%06zx.json", dir, i);
		text = xasprintf("{ \"version\": 1, \"id\": "
		    "\"sd-20260101T000000-%06zx\", \"cluster\": \"c%02zu\", "
		    "\"platform\": \"slurm\", \"image\": \"nvcr.io#nvidia/"
		    "tao:5.0\", \"storage_tier\": \"A\", \"job_name\": "
		    "\"bench-train-%zu\", \"partition\": \"gpu\", \"native\": "
		    "\"CANCELLED\", \"created\": \"2026-01-01T00:00:00Z\", "
		    "\"updated\": \"2026-01-01T00:00:00Z\", \"state\": "
		    "\"CANCELED\", \"err_class\": \"NONE\", \"nodes\": 1, "
		    "\"gpus\": 4, \"retry_count\": 0, \"slurm_ids\": "
		    "[\"%zu\"], \"history\": [ { \"time\": "
		    "\"2026-01-01T00:00:00Z\", \"state\": \"CANCELED\", "
		    "\"native\": \"CANCELLED\", \"source\": \"cancel:cli\", "
		    "\"message\": \"bench row\" } ] }\n", i, 1 + i % 32,
		    i % 977, 900000 + i);
		write_file(path, text);
		free(text);
		free(path);
	}
	free(dir);
}

#if TEST_HEAP_SIZES
/*
 * Issue 25: the index of a week of history (193,000 files) is shared by
 * the TUI's threads and stays small: per record its id, cluster (kept
 * once), SLURM ids and times, and the row the jobs pane shows until the
 * records thread took it.  main kept five malloc'd strings and a list
 * per record in each of 32 indexes (~300 bytes each).  mallinfo2 counts
 * what it holds; a malloc it does not see (a sanitizer's) is skipped.
 * Once the rows are taken, what the TUI keeps for the session: an
 * entry of 64 bytes with a pointer to its row, in an array grown
 * twice, made 119 bytes a record (fails the bound); 56, the row's index
 * in a list freed with the rows, in an array grown by an eighth and
 * trimmed to a sixty-fourth past the last, make 108.
 */
static void
rows_none(const struct record_brief *b, void *arg)
{
	(void)b;
	(*(size_t *)arg)++;
}

START_TEST(test_index_compact)
{
	struct record_index	*ix;
	struct strv		 corrupt = { 0 };
	size_t			 used0, nrows = 0;
	char			*cause = NULL;
	int			 measure;
	size_t			 n = 4000;

	spread_records(n);
	measure = test_heap_measurable();
	used0 = test_heap_used();
	ix = record_index_new();
	ck_assert_msg(record_index_refresh(ix, NULL, &cause) == 0, "%s",
	    cause);
	ck_assert_uint_eq(record_index_size(ix), n);
	test_heap_per(measure, used0, n, 186, "record");
	ck_assert_msg(record_index_rows(ix, &corrupt, rows_none, &nrows,
	    &cause) == 0, "%s", cause);
	ck_assert_uint_eq(nrows, n);
	strv_free(&corrupt);
	test_heap_per(measure, used0, n, 112,
	    "record once its rows are taken");
	record_index_free(ix);
}
END_TEST
#endif

struct rows_seen {
	size_t		n;
	char		last[64];
	int		ordered;
	const char	*state;
};

static void
rows_count(const struct record_brief *b, void *arg)
{
	struct rows_seen	*rs = arg;

	if (rs->n > 0 && strcmp(rs->last, b->id) > 0)
		rs->ordered = 0;
	snprintf(rs->last, sizeof rs->last, "%s", b->id);
	if (rs->n++ == 0)
		rs->state = b->state;
}

/*
 * The records thread's rows come from the shared index: every readable
 * record with a SLURM id once, oldest first, and every corrupt file
 * even when another thread's refresh read it first; a second call (the
 * rows were dropped) reads the files again and gives the same.
 */
START_TEST(test_index_rows)
{
	struct record_index	*ix = record_index_new();
	struct rows_seen	 rs;
	struct strv		 corrupt;
	char			*cause = NULL, *path;
	int			 pass;

	spread_records(50);
	path = path_of("sd-20261129T164500-0000ff");
	write_file(path, "{ not json");
	free(path);
	/* A poll's refresh reads them first. */
	ck_assert_int_eq(record_index_refresh(ix, NULL, &cause), 0);
	for (pass = 0; pass < 2; pass++) {
		memset(&rs, 0, sizeof rs);
		rs.ordered = 1;
		memset(&corrupt, 0, sizeof corrupt);
		ck_assert_msg(record_index_rows(ix, &corrupt, rows_count, &rs,
		    &cause) == 0, "%s", cause);
		ck_assert_uint_eq(rs.n, 50);
		ck_assert(rs.ordered);
		ck_assert_str_eq(rs.last, "sd-20260101T000000-000032");
		ck_assert_str_eq(rs.state, "CANCELLED");
		ck_assert_uint_eq(corrupt.n, 1);
		ck_assert_ptr_nonnull(strstr(corrupt.v[0], "0000ff"));
		strv_free(&corrupt);
	}
	ck_assert_str_eq(record_index_find(ix, "c03", "900002"),
	    "sd-20260101T000000-000002");
	record_index_free(ix);
}
END_TEST

/*
 * What a poll reads (issue 17): the cluster's records not ended and the
 * ended ones updated since a time; the others cost a stat, not a parse.
 */
START_TEST(test_index_select)
{
	struct record_index	*ix = record_index_new();
	struct record_list	 l;
	char			*live, *old, *recent, *other, *cause = NULL;
	unsigned long		 before;
	size_t			 i;

	live = new_record("polar", "live");
	old = new_record("polar", "old");
	recent = new_record("polar", "recent");
	other = new_record("other", "live");
	ck_assert_int_eq(record_transition(live, RSTATE_RUNNING, "RUNNING",
	    "poll", "", &cause), 0);
	ck_assert_int_eq(record_transition(old, RSTATE_COMPLETE, "COMPLETED",
	    "poll", "", &cause), 0);
	ck_assert_int_eq(record_transition(recent, RSTATE_COMPLETE,
	    "COMPLETED", "poll", "", &cause), 0);
	file_member(old, "updated", "2020-01-01T00:00:00Z");

	ck_assert_int_eq(record_index_select(ix, "polar", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	for (i = 0; i < l.n; i++) {
		ck_assert_str_ne(l.v[i]->id, old);
		ck_assert_str_eq(l.v[i]->cluster, "polar");
	}
	record_list_free(&l);
	/* Known files: the listing and the two selected ones are read. */
	before = record_reads_here();
	ck_assert_int_eq(record_index_select(ix, "polar", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(record_reads_here() - before, 3);
	record_list_free(&l);
	/* (time_t)-1: every record of the cluster. */
	ck_assert_int_eq(record_index_select(ix, "polar", (time_t)-1, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.n, 3);
	record_list_free(&l);
	record_index_free(ix);
	free(live);
	free(old);
	free(recent);
	free(other);
}
END_TEST

static void
child_updates(const char *id, const char *tag, int n)
{
	char	*msg, *cause = NULL, *extra;
	int	 i;

	for (i = 0; i < n; i++) {
		msg = xasprintf("%s %d", tag, i);
		if (record_transition(id, i % 2 ? RSTATE_RUNNING :
		    RSTATE_PENDING, i % 2 ? "RUNNING" : "REQUEUED", "poll", msg,
		    &cause) != 0) {
			fprintf(stderr, "%s\n", cause);
			_exit(1);
		}
		free(msg);
		/* Now and then a new record too, so files get created. */
		if (i % 25 == 0) {
			extra = new_record("polar", tag);
			free(extra);
		}
	}
	_exit(0);
}

/* How many history entries carry "tag N", checking N runs 0, 1, 2... */
static int
count_tag(const struct record *r, const char *tag)
{
	char	*want;
	size_t	 i;
	int	 n = 0;

	for (i = 0; i < r->nhistory; i++) {
		if (!str_has_prefix(r->history[i].message, tag) ||
		    r->history[i].message[strlen(tag)] != ' ')
			continue;
		want = xasprintf("%s %d", tag, n);
		ck_assert_str_eq(r->history[i].message, want);
		free(want);
		n++;
	}
	return n;
}

/*
 * Issue 25: a poll of one cluster looks at that cluster's records in its
 * window only.  32 clusters each walked the whole index (a week of
 * history, 193,000 entries) and strcmp'd every entry's cluster on every
 * poll: 40 % of the idle TUI's CPU.  Here 320 old records over 32
 * clusters; c05 has 10 of them, plus one running and one just ended.
 */
START_TEST(test_index_select_cluster)
{
	struct record_index	*ix = record_index_new();
	struct record_list	 l;
	char			*live, *recent, *later, *cause = NULL;
	char			*path, *tmp;
	unsigned long		 v;

	spread_records(320);
	live = new_record("c05", "live");
	recent = new_record("c05", "recent");
	ck_assert_int_eq(record_transition(live, RSTATE_RUNNING, "RUNNING",
	    "poll", "", &cause), 0);
	ck_assert_int_eq(record_transition(recent, RSTATE_COMPLETE,
	    "COMPLETED", "poll", "", &cause), 0);

	v = record_index_visits(ix);
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	record_list_free(&l);
	/* The running one, the ended one, the first too old: not 322. */
	ck_assert_uint_eq(record_index_visits(ix) - v, 3);
	v = record_index_visits(ix);
	ck_assert_int_eq(record_index_select(ix, "c06", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_uint_eq(record_index_visits(ix) - v, 1);
	v = record_index_visits(ix);
	ck_assert_int_eq(record_index_select(ix, "nowhere", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_uint_eq(record_index_visits(ix) - v, 0);
	/* Every record of c05 when asked for all: its 12, no other. */
	v = record_index_visits(ix);
	ck_assert_int_eq(record_index_select(ix, "c05", (time_t)-1, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.n, 12);
	record_list_free(&l);
	ck_assert_uint_eq(record_index_visits(ix) - v, 12);
	/* A record written since: the lists follow the directory. */
	later = new_record("c06", "later");
	ck_assert_int_eq(record_transition(later, RSTATE_ERROR, "FAILED",
	    "poll", "", &cause), 0);
	ck_assert_int_eq(record_index_select(ix, "c06", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0]->id, later);
	record_list_free(&l);
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	record_list_free(&l);
	/*
	 * A record rewritten (older now), replaced by rename as its writers
	 * do: read again, out of the window.
	 */
	file_member(recent, "updated", "2020-01-01T00:00:00Z");
	path = path_of(recent);
	tmp = xasprintf("%s.tmp", path);
	ck_assert_int_eq(rename(path, tmp), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
	free(tmp);
	free(path);
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0]->id, live);
	record_list_free(&l);
	/* A record removed: its cluster's run shrinks. */
	ck_assert_int_eq(record_discard(later, &cause), 0);
	ck_assert_int_eq(record_index_select(ix, "c06", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_int_eq(record_index_select(ix, "c06", (time_t)-1, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.n, 10);
	record_list_free(&l);
	record_index_free(ix);
	free(live);
	free(recent);
	free(later);
}
END_TEST

/* Issue 3, acceptance 3: SIGKILL in the middle of 1000 updates. */
START_TEST(test_kill_mid_update)
{
	struct record_list	 list;
	struct record		*r;
	struct timespec		 ts;
	pid_t			 pid;
	char			*id, *cause = NULL, tag[16];
	int			 st, round, n;

	id = new_record("polar", "victim");
	for (round = 0; round < 3; round++) {
		snprintf(tag, sizeof tag, "kill%d", round);
		pid = fork();
		ck_assert_int_ne(pid, -1);
		if (pid == 0)
			child_updates(id, tag, 1000);
		/* Let it get going, then kill it at an uneven moment. */
		do {
			ts.tv_sec = 0;
			ts.tv_nsec = 2 * 1000 * 1000;
			nanosleep(&ts, NULL);
			ck_assert_msg(record_load(id, &r, &cause) == 0, "%s",
			    cause);
			n = count_tag(r, tag);
			record_free(r);
		} while (n < 30 + 40 * round);
		ts.tv_nsec = (1 + 3 * round) * 1000 * 1000 + 333333;
		nanosleep(&ts, NULL);
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		    "the child finished before it was killed");

		/* Every record file still parses. */
		ck_assert_msg(record_list(&list, &cause) == 0, "%s", cause);
		ck_assert_msg(list.corrupt.n == 0, "corrupt: %s",
		    list.corrupt.v[0]);
		ck_assert_uint_ge(list.n, 2);
		record_list_free(&list);

		/* The victim's committed updates are all there, in order. */
		ck_assert_int_eq(record_load(id, &r, NULL), 0);
		ck_assert_int_ge(count_tag(r, tag), n);
		record_free(r);

		/* The lock died with the child: the next update goes through.
		   */
		ck_assert_msg(record_transition(id, RSTATE_UNKNOWN, "", "test",
		    "after kill", &cause) == 0, "%s", cause);
		ck_assert_int_eq(record_load(id, &r, NULL), 0);
		ck_assert_int_eq(r->state, RSTATE_UNKNOWN);
		ck_assert_str_eq(r->history[r->nhistory - 1].message,
		    "after kill");
		record_free(r);
	}
	free(id);
}
END_TEST

/* Issue 3, acceptance 3: two processes, one record, no lost transition. */
START_TEST(test_two_writers)
{
	struct record	*r;
	pid_t		 a, b;
	char		*id, *cause = NULL;
	int		 st;
	enum { N = 300 };

	id = new_record("polar", "shared");
	a = fork();
	ck_assert_int_ne(a, -1);
	if (a == 0)
		child_updates(id, "A", N);
	b = fork();
	ck_assert_int_ne(b, -1);
	if (b == 0)
		child_updates(id, "B", N);
	ck_assert_int_eq(waitpid(a, &st, 0), a);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(waitpid(b, &st, 0), b);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	ck_assert_msg(record_load(id, &r, &cause) == 0, "%s", cause);
	/* Each writer's entries are all there, in its own order. */
	ck_assert_int_eq(count_tag(r, "A"), N);
	ck_assert_int_eq(count_tag(r, "B"), N);
	ck_assert_uint_eq(r->nhistory, 1 + 2 * N);
	record_free(r);
	free(id);
}
END_TEST

/* Run the built binary with this test's XDG_STATE_HOME. */
static int
run(const char *args, char **out)
{
	const char	*bin = getenv("SQDECK_BIN");
	char		*cmd, *path, *cause = NULL;
	int		 st;

	if (bin == NULL)
		bin = TOP_BUILDDIR "/sqdeck";
	path = xasprintf("%s/cli-out", state_home);
	cmd = xasprintf("%s records %s >%s 2>&1", bin, args, path);
	st = system(cmd);
	ck_assert(st != -1 && WIFEXITED(st));
	ck_assert_msg(file_read(path, out, NULL, &cause) == 0, "%s", cause);
	unlink(path);
	free(path);
	free(cmd);
	return WEXITSTATUS(st);
}

START_TEST(test_cli)
{
	struct record	*r;
	cJSON		*o, *a;
	char		*out, *id, *old, *cause = NULL, *path, *json;

	ck_assert_int_eq(run("", &out), 0);
	ck_assert_str_eq(out, "no records (--all shows older ones)\n");
	free(out);

	id = new_record("polar", "tao-dino-train");
	ck_assert_int_eq(record_set_slurm_id(id, "4471", NULL), 0);
	ck_assert_int_eq(record_transition(id, RSTATE_ERROR, "NODE_FAIL",
	    "poll", "", NULL), 0);
	ck_assert_int_eq(record_set_err(id, ERR_INFRA, "node-fail", NULL), 0);

	/* A finished record last touched long ago: only with --all. */
	r = record_new("grizzly");
	r->job_name = xstrdup("old\x1b[2Jjob");
	r->state = RSTATE_COMPLETE;
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	old = xstrdup(r->id);
	free(r->updated);
	r->updated = xstrdup("2020-01-01T00:00:00Z");
	json = record_to_json(r);
	path = path_of(old);
	ck_assert_int_eq(file_write_atomic(path, json, strlen(json), 0600,
	    NULL), 0);
	free(json);
	free(path);
	record_free(r);

	ck_assert_int_eq(run("", &out), 0);
	ck_assert(str_has_prefix(out, "ID "));
	/* One cluster on every row: its column says nothing (issue 26.7). */
	ck_assert_ptr_null(strstr(out, "CLUSTER"));
	ck_assert_ptr_nonnull(strstr(out, "SLURM ID"));
	ck_assert_ptr_nonnull(strstr(out, id));
	ck_assert_ptr_nonnull(strstr(out, "4471"));
	/* SLURM's word for the record state ERROR (issue 18). */
	ck_assert_ptr_nonnull(strstr(out, "FAILED/INFRA"));
	ck_assert_ptr_nonnull(strstr(out, "tao-dino-train"));
	ck_assert_ptr_null(strstr(out, old));
	free(out);

	ck_assert_int_eq(run("--all", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "CLUSTER"));
	ck_assert_ptr_nonnull(strstr(out, old));
	/* Terminal escapes from a job name are removed whole. */
	ck_assert_ptr_nonnull(strstr(out, "oldjob"));
	ck_assert_ptr_null(strchr(out, 0x1b));
	free(out);

	/* --state, --name, --format (issue 26: the CLI tables). */
	ck_assert_int_eq(run("--all --state failed", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, id));
	ck_assert_ptr_null(strstr(out, old));
	free(out);
	ck_assert_int_eq(run("--all --state NODE_FAIL", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, id));
	ck_assert_ptr_null(strstr(out, old));
	free(out);
	ck_assert_int_eq(run("--all --name 'old*'", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, old));
	ck_assert_ptr_null(strstr(out, id));
	free(out);
	ck_assert_int_eq(run("--all --name dino", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, id));
	ck_assert_ptr_null(strstr(out, old));
	free(out);
	ck_assert_int_eq(run("--all --format job_id,state", &out), 0);
	ck_assert_msg(str_has_prefix(out, "SLURM ID  STATE\n"), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "4471      FAILED/INFRA\n"));
	ck_assert_ptr_null(strstr(out, "tao-dino-train"));
	free(out);
	ck_assert_int_eq(run("--format job_id,bogus", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "no column 'bogus'"));
	free(out);

	ck_assert_int_eq(run("--json --all", &out), 0);
	o = cJSON_Parse(out);
	ck_assert_ptr_nonnull(o);
	/* The one vocabulary (issue 26.2): SLURM's word beside ours. */
	ck_assert_int_eq(cJSON_GetObjectItem(o, "schema")->valueint, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "verb")->valuestring,
	    "records");
	a = cJSON_GetObjectItem(o, "records");
	ck_assert_int_eq(cJSON_GetArraySize(a), 2);
	{
		cJSON	*e, *x = NULL;

		cJSON_ArrayForEach(e, a) {
			if (strcmp(cJSON_GetObjectItem(e, "record_id")->
			    valuestring, id) == 0)
				x = e;
		}
		ck_assert_ptr_nonnull(x);
		ck_assert_str_eq(cJSON_GetObjectItem(x, "job_id")->valuestring,
		    "4471");
		ck_assert_str_eq(cJSON_GetObjectItem(x, "state")->valuestring,
		    "FAILED");
		ck_assert_str_eq(cJSON_GetObjectItem(x, "slurm_state")->
		    valuestring, "NODE_FAIL");
		ck_assert_str_eq(cJSON_GetObjectItem(x, "err_class")->
		    valuestring, "INFRA");
		ck_assert_str_eq(cJSON_GetObjectItem(x, "name")->valuestring,
		    "tao-dino-train");
		ck_assert_ptr_null(cJSON_GetObjectItem(x, "id"));
		ck_assert_ptr_null(cJSON_GetObjectItem(x, "native"));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(x, "retry_of")));
	}
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "corrupt")),
	    0);
	cJSON_Delete(o);
	free(out);

	/* A corrupt file: named on stderr, exit 1, the rest still listed. */
	path = path_of(old);
	write_file(path, "{");
	ck_assert_int_eq(run("--all", &out), 1);
	ck_assert_ptr_nonnull(strstr(out, id));
	ck_assert_ptr_nonnull(strstr(out, "corrupt record "));
	ck_assert_ptr_nonnull(strstr(out, path));
	free(out);
	free(path);

	ck_assert_int_eq(run("--bogus", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "usage: sqdeck records"));
	free(out);
	ck_assert_int_eq(run("extra", &out), 2);
	free(out);
	free(old);
	free(id);
}
END_TEST

/*
 * An ended job's row keeps the limit it ran under: the record's
 * time_limit (monitor.c's row_from_record read none, and the table and
 * --json printed 0:25 and "limit": -1 once the job left sacct's window).
 */
/*
 * A CLI start does not read every record to find those of the implicit
 * "default" cluster (ops_adopt; a week of history is 193,000 files):
 * once, for records of an older sqdeck, then only while record_create's
 * mark says one may wait.
 */
/*
 * ops_find_in: a job's record through the index, reading that one file.
 * The TUI's log pane looked up the job under the cursor with ops_find,
 * which read and held every record (193,000 files with a week of
 * history, 170 MB of heap at once, issue 25).  The answers are ops_find's.
 */
START_TEST(test_find_in_reads)
{
	struct record_index	*ix = record_index_new();
	struct record		*r, *q;
	const char		*sids[] = { "4242", "5003", "9999", "12_3" };
	const char		*clusters[] = { "c1", "c2", NULL };
	char			*cause = NULL, *id, sid[16];
	unsigned long		 before, reads_in, reads_all;
	long			 n1, n2;
	size_t			 i, k;
	int			 rc1, rc2;

	for (i = 0; i < 30; i++) {
		id = new_record("c1", "find-in");
		snprintf(sid, sizeof sid, "%zu", 5000 + i);
		ck_assert_int_eq(record_set_slurm_id(id, sid, NULL), 0);
		free(id);
	}
	/* 4242 on both clusters, twice on c1 (a retry's reused number). */
	for (i = 0; i < 3; i++) {
		id = new_record(i == 1 ? "c2" : "c1", "find-in-4242");
		ck_assert_int_eq(record_set_slurm_id(id, "4242", NULL), 0);
		free(id);
	}
	ck_assert_int_eq(record_index_refresh(ix, NULL, &cause), 0);
	for (i = 0; i < sizeof sids / sizeof *sids; i++) {
		for (k = 0; k < sizeof clusters / sizeof *clusters; k++) {
			r = q = NULL;
			n1 = n2 = 0;
			before = record_reads_here();
			rc1 = ops_find_in(ix, sids[i], clusters[k], &r, &n1,
			    &cause);
			reads_in = record_reads_here() - before;
			free(cause);
			cause = NULL;
			before = record_reads_here();
			rc2 = ops_find(sids[i], clusters[k], &q, &n2, &cause);
			reads_all = record_reads_here() - before;
			free(cause);
			cause = NULL;
			ck_assert_int_eq(rc1, rc2);
			ck_assert_int_eq(n1, n2);
			ck_assert_int_eq(r == NULL, q == NULL);
			if (r != NULL)
				ck_assert_str_eq(r->id, q->id);
			if (strcmp(sids[i], "12_3") != 0) {
				/*
				 * A listing per cluster looked at (this one,
				 * then any) and the one record, not 33.
				 */
				ck_assert_uint_le(reads_in, 3);
				ck_assert_uint_ge(reads_all, 33);
			}
			record_free(r);
			record_free(q);
		}
	}
	record_index_free(ix);
}
END_TEST

START_TEST(test_adopt_reads)
{
	struct config	 cfg;
	struct strv	 said;
	struct record	*r;
	char		*cause = NULL, *yaml, *id, *old, *path, *dir;
	unsigned long	 before;
	int		 i;

	memset(&said, 0, sizeof said);
	unsetenv("SLURM_HOSTNAME");
	unsetenv("SQDECK_CLUSTER");
	yaml = xasprintf("%s/clusters.yaml", state_home);
	write_file(yaml, "clusters:\n  - name: dummy\n    hosts: 127.0.0.1\n"
	    "    user: nobody\n    port: 1\n");
	ck_assert_msg(config_load(yaml, &cfg, &cause) == 0, "%s", cause);
	for (i = 0; i < 5; i++)
		free(new_record("dummy", "adopt-reads"));
	/* As an older sqdeck wrote it: no mark. */
	old = xstrdup("sd-20260101T000000-0ld0ld");
	path = path_of(old);
	write_file(path, "{ \"version\": 1, \"id\": \"sd-20260101T000000-"
	    "0ld0ld\", \"cluster\": \"default\", \"platform\": \"slurm\", "
	    "\"image\": \"a#b:1\", \"storage_tier\": \"A\", \"job_name\": "
	    "\"old\", \"partition\": \"gpu\", \"native\": \"RUNNING\", "
	    "\"created\": \"2026-01-01T00:00:00Z\", \"updated\": "
	    "\"2026-01-01T00:00:00Z\", \"state\": \"RUNNING\", \"err_class\": "
	    "\"NONE\", \"nodes\": 1, \"gpus\": 4, \"host\": \"127.0.0.1\", "
	    "\"user\": \"nobody\", \"port\": 1, \"retry_count\": 0, "
	    "\"slurm_id\": \"4243\", \"slurm_ids\": [\"4243\"], "
	    "\"history\": [] }\n");
	free(path);
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 1);
	ck_assert_int_eq(record_load(old, &r, &cause), 0);
	ck_assert_str_eq(r->cluster, "dummy");
	record_free(r);

	/* Nothing waits: no listing, no read (main read all 6 each time). */
	before = record_reads_here();
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 0);
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 0);
	ck_assert_uint_eq(record_reads_here() - before, 0);

	/* One made under "default" now: its mark makes the next look. */
	r = record_new("default");
	r->image = xstrdup("a#b:1");
	r->job_name = xstrdup("adopt-new");
	r->host = xstrdup("127.0.0.1");
	r->user = xstrdup("nobody");
	r->port = 1;
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	id = xstrdup(r->id);
	record_free(r);
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 1);
	ck_assert_int_eq(record_load(id, &r, &cause), 0);
	ck_assert_str_eq(r->cluster, "dummy");
	record_free(r);
	before = record_reads_here();
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 0);
	ck_assert_uint_eq(record_reads_here() - before, 0);

	/* One no cluster takes (another host) keeps the mark: looked at
	   again, as a config may come to have its host. */
	r = record_new("default");
	r->image = xstrdup("a#b:1");
	r->job_name = xstrdup("adopt-none");
	r->host = xstrdup("192.0.2.1");
	r->user = xstrdup("nobody");
	ck_assert_msg(record_create(r, &cause) == 0, "%s", cause);
	record_free(r);
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 0);
	before = record_reads_here();
	ck_assert_uint_eq(ops_adopt(&cfg, &said), 0);
	ck_assert_uint_gt(record_reads_here() - before, 0);
	dir = record_dir();
	path = xasprintf("%s/.default-records", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	free(path);
	free(dir);

	strv_free(&said);
	config_free(&cfg);
	free(id);
	free(old);
	free(yaml);
}
END_TEST

START_TEST(test_record_limit)
{
	struct record	r;

	memset(&r, 0, sizeof r);
	ck_assert_int_eq(record_limit(&r), -1);
	r.time_limit = xstrdup("0:05:00");
	ck_assert_int_eq(record_limit(&r), 300);
	free(r.time_limit);
	r.time_limit = xstrdup("1-02:00:00");
	ck_assert_int_eq(record_limit(&r), 26 * 3600);
	free(r.time_limit);
	r.time_limit = xstrdup("UNLIMITED");
	ck_assert_int_eq(record_limit(&r), -1);
	free(r.time_limit);
}
END_TEST

/*
 * The reaction's notes (react.h): a poll notes each end, the reaction of
 * that cluster takes each note once, never another cluster's, and not
 * after a failed poll.
 */
START_TEST(test_react_notes)
{
	struct monitor_snapshot	 snap;
	struct stat		 st;
	char			*a, *b;

	a = xasprintf("%s/sqdeck/react-due/r-one.due", state_home);
	b = xasprintf("%s/sqdeck/react-due/r-two.1.due", state_home);
	ends_note("one", "r-one");
	ends_note("two", "r-two.1");
	ck_assert_int_eq(stat(a, &st), 0);
	ck_assert_int_eq(st.st_mode & 077, 0);
	ck_assert_int_eq(stat(b, &st), 0);

	memset(&snap, 0, sizeof snap);
	snap.cluster = xstrdup("one");
	/* squeue did not answer: nothing is taken. */
	ck_assert_int_eq(react_after_poll(NULL, &snap), 0);
	ck_assert_int_eq(stat(a, &st), 0);
	/* No such record: taken, nothing retried, the other cluster's kept. */
	snap.ok = 1;
	ck_assert_int_eq(react_after_poll(NULL, &snap), 0);
	ck_assert_int_eq(stat(a, &st), -1);
	ck_assert_int_eq(stat(b, &st), 0);
	ck_assert_uint_eq(snap.events.n, 0);
	free(snap.cluster);
	snap.cluster = xstrdup("two");
	ck_assert_int_eq(react_after_poll(NULL, &snap), 0);
	ck_assert_int_eq(stat(b, &st), -1);
	monitor_snapshot_free(&snap);
	free(a);
	free(b);
}
END_TEST

/*
 * Issue 25: a CLI run starts from the index the last one saved
 * (records.index), so a poll of one cluster with a week of history
 * reads that cluster's few files, not every record once per run; what a
 * run reads is still what the files say now.
 */
START_TEST(test_index_saved)
{
	struct record_index	*ix;
	struct record_list	 l;
	char			*live, *path, *text, *cause = NULL;
	char			*arr, *dir;
	unsigned long		 before;
	size_t			 len;

	spread_records(640);
	live = new_record("c05", "live");
	ck_assert_int_eq(record_transition(live, RSTATE_RUNNING, "RUNNING",
	    "poll", "", &cause), 0);
	/* A cancelled array whose tasks still run: asked until they end. */
	dir = record_dir();
	arr = xasprintf("%s/sd-20260101T000000-a77a77.json", dir);
	write_file(arr, "{ \"version\": 1, \"id\": \"sd-20260101T000000-"
	    "a77a77\", \"cluster\": \"c07\", \"created\": "
	    "\"2026-01-01T00:00:00Z\", \"updated\": \"2026-01-01T00:00:00Z\", "
	    "\"state\": \"CANCELED\", \"err_class\": \"NONE\", \"array\": "
	    "\"0-1\", \"array_tasks\": \"0=CANCELLED 1=RUNNING\", "
	    "\"slurm_ids\": [\"77\"], \"history\": [] }\n");
	/* The first run reads every file once and keeps what it learnt. */
	ix = record_index_new();
	ck_assert_int_eq(record_index_load(ix), -1);	/* none yet */
	before = record_reads_here();
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	record_list_free(&l);
	ck_assert_uint_ge(record_reads_here() - before, 642);
	ck_assert_int_eq(record_index_save(ix, &cause), 0);
	record_index_free(ix);

	/* The next run: a listing at most, and c05's one live record. */
	sleep(LISTED_WAIT);
	ix = record_index_new();
	ck_assert_int_eq(record_index_load(ix), 0);
	ck_assert_uint_eq(record_index_size(ix), 642);
	before = record_reads_here();
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0]->id, live);
	record_list_free(&l);
	ck_assert_uint_le(record_reads_here() - before, 2);
	ck_assert_uint_le(record_index_visits(ix), 2);
	/* The array: old and ended, but its tasks run. */
	ck_assert_int_eq(record_index_select(ix, "c07", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	record_list_free(&l);
	/* Every cluster: the two still moving, and no corrupt file. */
	ck_assert_int_eq(record_index_recent(ix, time(NULL) - 3600, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.corrupt.n, 0);
	record_list_free(&l);
	ck_assert_int_eq(record_index_save(ix, &cause), 0);
	record_index_free(ix);

	/* Changed since it was saved: the file is read again. */
	ck_assert_int_eq(record_transition(live, RSTATE_COMPLETE, "COMPLETED",
	    "poll", "", &cause), 0);
	ix = record_index_new();
	ck_assert_int_eq(record_index_load(ix), 0);
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_int_eq(l.v[0]->state, RSTATE_COMPLETE);
	record_list_free(&l);
	/* Gone since: out of the index. */
	ck_assert_int_eq(unlink(arr), 0);
	ck_assert_int_eq(record_index_select(ix, "c07", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 0);
	record_list_free(&l);
	/* A file that does not parse is said every run. */
	path = xasprintf("%s/sd-20260101T000000-bad0bd.json", dir);
	write_file(path, "{ not json");
	ck_assert_int_eq(record_index_recent(ix, time(NULL) - 3600, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.corrupt.n, 1);
	record_list_free(&l);
	ck_assert_int_eq(record_index_save(ix, &cause), 0);
	record_index_free(ix);
	sleep(LISTED_WAIT);
	ix = record_index_new();
	ck_assert_int_eq(record_index_load(ix), 0);
	ck_assert_int_eq(record_index_recent(ix, time(NULL) - 3600, &l,
	    &cause), 0);
	ck_assert_uint_eq(l.corrupt.n, 1);
	ck_assert_uint_eq(l.n, 1);	/* c05's, ended just now */
	record_list_free(&l);
	record_index_free(ix);
	free(path);

	/*
	 * A damaged index is not used: every file is read, as without.
	 * Cut at a line's end first (every line whole: distcheck in CI
	 * once found a half that ended so, and the index was used), then
	 * within a line.
	 */
	path = record_index_path();
	ck_assert_int_eq(file_read(path, &text, &len, &cause), 0);
	{
		char	*cut = memchr(text, '\n', len);
		size_t	 at;

		ck_assert_ptr_nonnull(cut);	/* the header */
		for (at = len / 2; at > 0 && text[at - 1] != '\n'; at--)
			;
		ck_assert_uint_gt(at, (size_t)(cut - text) + 1);
		write_file(path, "");
		ix = record_index_new();
		ck_assert_int_eq(record_index_load(ix), -1);	/* empty */
		record_index_free(ix);
		ck_assert_int_eq(file_write_atomic(path, text, at, 0600,
		    &cause), 0);
		ix = record_index_new();
		ck_assert_msg(record_index_load(ix) == -1, "an index cut at "
		    "its line %zu's end was used", at);
		record_index_free(ix);
		at = len / 2;
		if (text[at - 1] == '\n')
			at--;		/* within a line */
		ck_assert_int_eq(file_write_atomic(path, text, at, 0600,
		    &cause), 0);
	}
	free(text);
	ix = record_index_new();
	ck_assert_int_eq(record_index_load(ix), -1);
	before = record_reads_here();
	ck_assert_int_eq(record_index_select(ix, "c05", time(NULL) - 3600,
	    &l, &cause), 0);
	ck_assert_uint_eq(l.n, 1);
	record_list_free(&l);
	ck_assert_uint_ge(record_reads_here() - before, 640);
	record_index_free(ix);
	free(path);
	free(arr);
	free(dir);
	free(live);
}
END_TEST

static Suite *
record_suite(void)
{
	Suite	*s = suite_create("record");
	TCase	*tc = tcase_create("core");
	TCase	*conc = tcase_create("concurrency");
	TCase	*saved = tcase_create("saved");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_load);
	tcase_add_test(tc, test_create_fails);
	tcase_add_test(tc, test_transitions);
	tcase_add_test(tc, test_retry);
	tcase_add_test(tc, test_retry_info);
	tcase_add_test(tc, test_err_evidence);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_list_order);
	tcase_add_test(tc, test_index);
	tcase_add_test(tc, test_index_select);
	tcase_add_test(tc, test_index_select_cluster);
#if TEST_HEAP_SIZES
	tcase_add_test(tc, test_index_compact);
#endif
	tcase_add_test(tc, test_index_rows);
	tcase_add_test(tc, test_cli);
	tcase_add_test(tc, test_react_notes);
	tcase_add_test(tc, test_record_limit);
	tcase_add_test(tc, test_adopt_reads);
	tcase_add_test(tc, test_find_in_reads);
	suite_add_tcase(s, tc);

	/* Waits twice for a listing to stand (LISTED_WAIT). */
	tcase_add_checked_fixture(saved, setup, teardown);
	tcase_set_timeout(saved, 60);
	tcase_add_test(saved, test_index_saved);
	suite_add_tcase(s, saved);

	tcase_add_checked_fixture(conc, setup, teardown);
	tcase_set_timeout(conc, 600);
	tcase_add_test(conc, test_kill_mid_update);
	tcase_add_test(conc, test_two_writers);
	suite_add_tcase(s, conc);
	return s;
}

TEST_MAIN(record_suite)
