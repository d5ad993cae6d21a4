#include "record.h"
#include "array.h"
#include "str.h"
#include "slurm.h"

#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* Files and listings this thread read (record_reads_here). */
static _Thread_local unsigned long	record_reads;

/* String members, in the order they are written. */
static const struct record_field {
	const char	*name;
	size_t		 off;
	int		 settable;	/* by record_set() */
} record_fields[] = {
	{ "id",			offsetof(struct record, id),		0 },
	{ "cluster",		offsetof(struct record, cluster),	1 },
	{ "platform",		offsetof(struct record, platform),	1 },
	{ "image",		offsetof(struct record, image),		1 },
	{ "network_arch",	offsetof(struct record, network_arch),	1 },
	{ "action",		offsetof(struct record, action),	1 },
	{ "storage_tier",	offsetof(struct record, storage_tier),	1 },
	{ "results_root",	offsetof(struct record, results_root),	1 },
	{ "job_dir",		offsetof(struct record, job_dir),	1 },
	{ "job_name",		offsetof(struct record, job_name),	1 },
	{ "log_dir",		offsetof(struct record, log_dir),	1 },
	{ "partition",		offsetof(struct record, partition),	1 },
	{ "spec_path",		offsetof(struct record, spec_path),	1 },
	{ "env_file",		offsetof(struct record, env_file),	1 },
	{ "sbatch_sha256",	offsetof(struct record, sbatch_sha256),	1 },
	{ "command",		offsetof(struct record, command),	1 },
	{ "host",		offsetof(struct record, host),		1 },
	{ "user",		offsetof(struct record, user),		1 },
	{ "time_limit",		offsetof(struct record, time_limit),	1 },
	{ "native",		offsetof(struct record, native),	0 },
	{ "err_rule",		offsetof(struct record, err_rule),	0 },
	{ "err_evidence",	offsetof(struct record, err_evidence),	0 },
	{ "exit_code",		offsetof(struct record, exit_code),	0 },
	{ "retry_of",		offsetof(struct record, retry_of),	0 },
	{ "array",		offsetof(struct record, array),		1 },
	{ "array_tasks",	offsetof(struct record, array_tasks),	1 },
	{ "created",		offsetof(struct record, created),	0 },
	{ "updated",		offsetof(struct record, updated),	0 },
};
#define NFIELDS (sizeof record_fields / sizeof record_fields[0])

static const struct record_int {
	const char	*name;
	size_t		 off;
} record_ints[] = {
	{ "nodes",		offsetof(struct record, nodes) },
	{ "gpus",		offsetof(struct record, gpus) },
	{ "cpus",		offsetof(struct record, cpus) },
	{ "port",		offsetof(struct record, port) },
	{ "retry_count",	offsetof(struct record, retry_count) },
};
#define NINTS (sizeof record_ints / sizeof record_ints[0])

static char **
field_ptr(struct record *r, const struct record_field *f)
{
	return (char **)((char *)r + f->off);
}

static char *const *
field_cptr(const struct record *r, const struct record_field *f)
{
	return (char *const *)((const char *)r + f->off);
}

static void
replace_str(char **dst, const char *value)
{
	free(*dst);
	*dst = value != NULL ? xstrdup(value) : NULL;
}

/* Ids become file names: no '/', no leading dot, nothing odd. */
static int
id_valid(const char *id, char **cause)
{
	const char	*p;

	if (id == NULL || *id == '\0' || *id == '.' || strlen(id) > 128)
		goto bad;
	for (p = id; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
		    *p != '.')
			goto bad;
	}
	return 0;
bad:
	return cause_set(cause, "'%s' is not a record id (like "
	    "sd-20261129T164500-1a2b3c; see sqdeck records)",
	    id != NULL ? id : "");
}

char *
record_dir(void)
{
	char	*state = path_state_dir(), *dir;

	dir = xasprintf("%s/records", state);
	free(state);
	return dir;
}

char *
record_new_id(void)
{
	unsigned char	 rnd[3];
	char		 stamp[32];
	struct tm	 tm;
	time_t		 t = time(NULL);
	ssize_t		 n;
	int		 fd;

	n = getrandom(rnd, sizeof rnd, GRND_NONBLOCK);
	if (n != (ssize_t)sizeof rnd) {
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd) {
			/* Still unique enough with the pid and the clock. */
			unsigned int v = (unsigned int)getpid() ^
			    (unsigned int)clock();

			rnd[0] = v & 0xff;
			rnd[1] = (v >> 8) & 0xff;
			rnd[2] = (v >> 16) & 0xff;
		}
		if (fd >= 0)
			close(fd);
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	return xasprintf("sd-%s-%02x%02x%02x", stamp, rnd[0], rnd[1], rnd[2]);
}

struct record *
record_new(const char *cluster)
{
	struct record	*r = xcalloc(1, sizeof *r);

	r->cluster = cluster != NULL ? xstrdup(cluster) : NULL;
	r->platform = xstrdup("slurm");
	r->storage_tier = xstrdup("A");
	r->native = xstrdup("");
	r->state = RSTATE_PENDING;
	r->err_class = ERR_NONE;
	r->elapsed = -1;
	return r;
}

struct record *
record_new_retry(const struct record *old)
{
	struct record	*r = record_new(old->cluster);
	size_t		 i;

	for (i = 0; i < NFIELDS; i++) {
		if (!record_fields[i].settable)
			continue;
		replace_str(field_ptr(r, &record_fields[i]),
		    *field_cptr(old, &record_fields[i]));
	}
	r->nodes = old->nodes;
	r->gpus = old->gpus;
	r->cpus = old->cpus;
	r->port = old->port;
	for (i = 0; i < old->secrets.n; i++)
		strv_add(&r->secrets, old->secrets.v[i]);
	r->retry_budget = old->retry_budget;
	r->retry_known = old->retry_known;
	r->retry_of = xstrdup(old->id);
	r->retry_count = old->retry_count + 1;
	return r;
}

static void
event_free(struct record_event *e)
{
	free(e->time);
	free(e->native);
	free(e->source);
	free(e->message);
}

void
record_free(struct record *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < NFIELDS; i++)
		free(*field_ptr(r, &record_fields[i]));
	strv_free(&r->slurm_ids);
	strv_free(&r->secrets);
	for (i = 0; i < r->nhistory; i++)
		event_free(&r->history[i]);
	free(r->history);
	free(r);
}

static void
history_add(struct record *r, const char *time, enum rstate state,
    const char *native, const char *source, const char *message)
{
	struct record_event	*e;

	r->history = xrealloc(r->history,
	    (r->nhistory + 1) * sizeof *r->history);
	e = &r->history[r->nhistory++];
	e->time = xstrdup(time);
	e->state = state;
	e->native = xstrdup(native != NULL ? native : "");
	e->source = xstrdup(source != NULL ? source : "");
	e->message = xstrdup(message != NULL ? message : "");
}

/* The job's time limit in seconds, from the record; -1 if it has none. */
long
record_limit(const struct record *r)
{
	long	secs;

	if (r->time_limit == NULL ||
	    slurm_time_parse(r->time_limit, &secs) != SLURM_TIME_SET)
		return -1;
	return secs;
}

const char *
record_slurm_id(const struct record *r)
{
	if (r->slurm_ids.n == 0)
		return NULL;
	return r->slurm_ids.v[r->slurm_ids.n - 1];
}

char *
record_to_json(const struct record *r)
{
	cJSON		*o, *a, *e;
	const char	*s;
	char		*json, *out;
	size_t		 i;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "version", 1);
	for (i = 0; i < NFIELDS; i++) {
		s = *field_cptr(r, &record_fields[i]);
		if (s != NULL)
			cJSON_AddStringToObject(o, record_fields[i].name, s);
		else
			cJSON_AddNullToObject(o, record_fields[i].name);
	}
	cJSON_AddStringToObject(o, "state", state_name(r->state));
	cJSON_AddStringToObject(o, "err_class", err_class_name(r->err_class));
	for (i = 0; i < NINTS; i++) {
		cJSON_AddNumberToObject(o, record_ints[i].name,
		    *(const int *)((const char *)r + record_ints[i].off));
	}
	if (r->elapsed >= 0)
		cJSON_AddNumberToObject(o, "elapsed", r->elapsed);
	else
		cJSON_AddNullToObject(o, "elapsed");
	if ((s = record_slurm_id(r)) != NULL)
		cJSON_AddStringToObject(o, "slurm_id", s);
	else
		cJSON_AddNullToObject(o, "slurm_id");
	a = cJSON_AddArrayToObject(o, "slurm_ids");
	for (i = 0; i < r->slurm_ids.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->slurm_ids.v[i]));
	if (r->retry_known) {
		a = cJSON_AddArrayToObject(o, "secrets");
		for (i = 0; i < r->secrets.n; i++)
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(r->secrets.v[i]));
		cJSON_AddNumberToObject(o, "retry_budget", r->retry_budget);
	}
	a = cJSON_AddArrayToObject(o, "history");
	for (i = 0; i < r->nhistory; i++) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "time", r->history[i].time);
		cJSON_AddStringToObject(e, "state",
		    state_name(r->history[i].state));
		cJSON_AddStringToObject(e, "native", r->history[i].native);
		cJSON_AddStringToObject(e, "source", r->history[i].source);
		cJSON_AddStringToObject(e, "message", r->history[i].message);
		cJSON_AddItemToArray(a, e);
	}
	json = cJSON_Print(o);
	cJSON_Delete(o);
	if (json == NULL) {
		fputs("sqdeck: out of memory\n", stderr);
		abort();
	}
	out = xasprintf("%s\n", json);
	cJSON_free(json);
	return out;
}

static int
get_str(const cJSON *o, const char *name, int required, char **out,
    const char *what, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (v == NULL || cJSON_IsNull(v)) {
		if (required)
			return cause_set(cause, "%s: missing \"%s\"", what,
			    name);
		return 0;
	}
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return cause_set(cause, "%s: \"%s\" is not a string", what, name);
	replace_str(out, v->valuestring);
	return 0;
}

static int
get_int(const cJSON *o, const char *name, int *out, const char *what,
    char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < 0 || v->valuedouble > 1e9)
		return cause_set(cause, "%s: \"%s\" is not a count", what, name);
	*out = (int)v->valuedouble;
	return 0;
}

static int
parse_event(const cJSON *e, struct record *r, const char *what, char **cause)
{
	const cJSON	*st;
	char		*time = NULL, *native = NULL, *source = NULL;
	char		*message = NULL;
	enum rstate	 state;
	int		 rc = -1;

	if (!cJSON_IsObject(e))
		return cause_set(cause, "%s: a history entry is not an object",
		    what);
	st = cJSON_GetObjectItemCaseSensitive(e, "state");
	if (!cJSON_IsString(st) || state_from_name(st->valuestring, &state) != 0) {
		return cause_set(cause, "%s: history entry %zu has no valid "
		    "\"state\"", what, r->nhistory + 1);
	}
	if (get_str(e, "time", 1, &time, what, cause) != 0 ||
	    get_str(e, "native", 0, &native, what, cause) != 0 ||
	    get_str(e, "source", 0, &source, what, cause) != 0 ||
	    get_str(e, "message", 0, &message, what, cause) != 0)
		goto out;
	history_add(r, time, state, native, source, message);
	rc = 0;
out:
	free(time);
	free(native);
	free(source);
	free(message);
	return rc;
}

int
record_from_json(const char *text, size_t len, const char *what,
    struct record **rp, char **cause)
{
	cJSON		*o;
	const cJSON	*v, *item;
	const char	*end = NULL;
	struct record	*r = NULL;
	size_t		 i;

	*rp = NULL;
	o = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (o == NULL) {
		return cause_set(cause, "%s: not valid JSON (at byte %zu of "
		    "%zu); the file is kept as it is: move it aside or repair "
		    "it", what, end != NULL && end >= text ?
		    (size_t)(end - text) : (size_t)0, len);
	}
	if (!cJSON_IsObject(o)) {
		cause_set(cause, "%s: not a JSON object", what);
		goto fail;
	}
	r = xcalloc(1, sizeof *r);
	for (i = 0; i < NFIELDS; i++) {
		if (get_str(o, record_fields[i].name,
		    strcmp(record_fields[i].name, "id") == 0 ||
		    strcmp(record_fields[i].name, "created") == 0,
		    field_ptr(r, &record_fields[i]), what, cause) != 0)
			goto fail;
	}
	if (id_valid(r->id, NULL) != 0) {
		cause_set(cause, "%s: \"id\" is not a valid record id", what);
		goto fail;
	}
	if (r->native == NULL)
		r->native = xstrdup("");
	for (i = 0; i < NINTS; i++) {
		if (get_int(o, record_ints[i].name,
		    (int *)((char *)r + record_ints[i].off), what, cause) != 0)
			goto fail;
	}
	r->elapsed = -1;
	if (get_int(o, "elapsed", &r->elapsed, what, cause) != 0)
		goto fail;
	v = cJSON_GetObjectItemCaseSensitive(o, "state");
	if (!cJSON_IsString(v) || state_from_name(v->valuestring,
	    &r->state) != 0) {
		cause_set(cause, "%s: \"state\" is missing or not one of "
		    "PENDING, RUNNING, COMPLETE, ERROR, CANCELED, UNKNOWN", what);
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "err_class");
	if (v != NULL && (!cJSON_IsString(v) ||
	    err_class_from_name(v->valuestring, &r->err_class) != 0)) {
		cause_set(cause, "%s: \"err_class\" is not one of NONE, INFRA, "
		    "PROGRAM, CONFIG", what);
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "slurm_ids");
	if (v != NULL && !cJSON_IsArray(v)) {
		cause_set(cause, "%s: \"slurm_ids\" is not an array", what);
		goto fail;
	}
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			cause_set(cause, "%s: \"slurm_ids\" holds a non-string",
			    what);
			goto fail;
		}
		strv_add(&r->slurm_ids, item->valuestring);
	}
	/* Written together at submit time, or neither (an older record). */
	v = cJSON_GetObjectItemCaseSensitive(o, "secrets");
	item = cJSON_GetObjectItemCaseSensitive(o, "retry_budget");
	if ((v != NULL) != (item != NULL)) {
		cause_set(cause, "%s: \"secrets\" and \"retry_budget\" come "
		    "together", what);
		goto fail;
	}
	if (v != NULL) {
		if (!cJSON_IsArray(v)) {
			cause_set(cause, "%s: \"secrets\" is not an array",
			    what);
			goto fail;
		}
		if (get_int(o, "retry_budget", &r->retry_budget, what,
		    cause) != 0)
			goto fail;
		r->retry_known = 1;
		cJSON_ArrayForEach(item, v) {
			if (!cJSON_IsString(item) || item->valuestring == NULL) {
				cause_set(cause, "%s: \"secrets\" holds a "
				    "non-string", what);
				goto fail;
			}
			strv_add(&r->secrets, item->valuestring);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "history");
	if (!cJSON_IsArray(v)) {
		cause_set(cause, "%s: \"history\" is missing or not an array",
		    what);
		goto fail;
	}
	cJSON_ArrayForEach(item, v) {
		if (parse_event(item, r, what, cause) != 0)
			goto fail;
	}
	cJSON_Delete(o);
	*rp = r;
	return 0;

fail:
	cJSON_Delete(o);
	record_free(r);
	return -1;
}

/*
 * Lock the records directory: every read-modify-write holds this, so two
 * processes never both read version N and write N+1.  flock goes away with
 * the process, so a killed writer cannot leave it stuck.
 */
static int
lock_take(const char *dir, char **cause)
{
	char	*path, *state;
	int	 fd;

	/* Records and their lock live only in a directory of ours. */
	state = path_state_dir();
	fd = path_private_dir(state, cause) != 0 ||
	    path_private_dir(dir, cause) != 0 ? -1 : 0;
	free(state);
	if (fd != 0)
		return -1;
	path = xasprintf("%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		cause_set(cause, "cannot open lock file %s: %s", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno == EINTR)
			continue;
		cause_set(cause, "cannot lock %s: %s", path, strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	return fd;
}

static void
lock_drop(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

static char *
record_path(const char *dir, const char *id)
{
	return xasprintf("%s/%s.json", dir, id);
}

static int
record_read(const char *path, const char *id, struct record **rp,
    char **cause)
{
	char	*text;
	size_t	 len;
	int	 rc;

	record_reads++;
	if (file_read(path, &text, &len, NULL) != 0) {
		if (errno == ENOENT) {
			return cause_set(cause, "no record %s (no file %s; "
			    "see sqdeck records)", id, path);
		}
		return cause_set(cause, "cannot read record %s: %s", path,
		    strerror(errno));
	}
	rc = record_from_json(text, len, path, rp, cause);
	free(text);
	if (rc == 0 && strcmp((*rp)->id, id) != 0) {
		cause_set(cause, "%s: \"id\" is %s, not the file's name %s",
		    path, (*rp)->id, id);
		record_free(*rp);
		*rp = NULL;
		return -1;
	}
	return rc;
}

/*
 * Every write syncs the file before its rename: a crash never leaves a
 * record empty or half-written.  dirsync: the rename is synced too; a
 * write whose rename may be lost in a crash without harm skips that
 * (record_create: the caller's next write, before anything is sent,
 * syncs the directory; record_launched: the record before it says a job
 * may exist, and the interrupted submit finds it by name).
 */
static int
record_write(const char *path, struct record *r, int dirsync, char **cause)
{
	char	*json = record_to_json(r);
	int	 rc;

	if (dirsync)
		rc = file_write_atomic(path, json, strlen(json), 0600, cause);
	else {
		rc = file_write_atomic_nodirsync(path, json, strlen(json),
		    0600, cause);
	}
	free(json);
	return rc;
}

/*
 * Remove temp files of writers killed mid-write.  Called under the lock:
 * every writer holds it while its temp file exists, so any left is stale.
 */
static void
remove_stale(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		*path;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".json.tmp.") ==
		    NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		unlink(path);
		free(path);
	}
	closedir(d);
}

/*
 * Records of the implicit cluster "default" wait for the configured
 * cluster with their host to adopt them (ops_adopt).  Finding them must
 * not read every record at each CLI start (a week of history over 32
 * clusters is 193,000 files: seconds): record_create leaves ADOPT_MARK
 * beside such a record, and ops_adopt lists the records only while the
 * mark is there, or once where ADOPT_SCANNED is missing (records of an
 * older sqdeck, which left no mark).  Both are made and removed under
 * the directory's lock, the mark after its record: a record written
 * while a scan runs leaves a mark the scan did not remove.
 */
#define ADOPT_MARK	".default-records"
#define ADOPT_SCANNED	".adopt-scanned"

static int
adopt_touch(const char *dir, const char *name)
{
	char	*path = xasprintf("%s/%s", dir, name);
	int	 fd;

	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void
adopt_remove(const char *dir, const char *name)
{
	char	*path = xasprintf("%s/%s", dir, name);

	unlink(path);
	free(path);
}

int
record_adopt_begin(void)
{
	struct stat	 sb;
	char		*dir = record_dir(), *path;
	int		 fd, need = 1;

	if (stat(dir, &sb) != 0) {
		free(dir);
		return 0;	/* nothing recorded yet */
	}
	if ((fd = lock_take(dir, NULL)) >= 0) {
		path = xasprintf("%s/%s", dir, ADOPT_SCANNED);
		need = lstat(path, &sb) != 0;
		free(path);
		path = xasprintf("%s/%s", dir, ADOPT_MARK);
		if (unlink(path) == 0)
			need = 1;
		free(path);
		lock_drop(fd);
	}
	free(dir);
	return need;
}

void
record_adopt_end(size_t left)
{
	char	*dir = record_dir();
	int	 fd;

	if ((fd = lock_take(dir, NULL)) >= 0) {
		if (left == 0 || adopt_touch(dir, ADOPT_MARK) == 0)
			adopt_touch(dir, ADOPT_SCANNED);
		else
			adopt_remove(dir, ADOPT_SCANNED);
		lock_drop(fd);
	}
	free(dir);
}

int
record_create(struct record *r, char **cause)
{
	struct stat	 sb;
	char		*dir = record_dir(), *path = NULL, *now;
	int		 fd = -1, rc = -1;

	if (r->id == NULL)
		r->id = record_new_id();
	if (id_valid(r->id, cause) != 0)
		goto out;
	if (mkdir_p(dir, 0700, cause) != 0)
		goto out;
	if ((fd = lock_take(dir, cause)) < 0)
		goto out;
	remove_stale(dir);
	path = record_path(dir, r->id);
	if (lstat(path, &sb) == 0) {
		cause_set(cause, "record %s already exists (%s)", r->id, path);
		goto out;
	}
	now = iso_time_now();
	replace_str(&r->created, now);
	replace_str(&r->updated, now);
	if (r->nhistory == 0) {
		history_add(r, now, r->state, r->native, "create",
		    r->retry_of != NULL ? "record opened (retry)" :
		    "record opened");
	}
	free(now);
	rc = record_write(path, r, 0, cause);
	/* Unmarked, the next ops_adopt still looks: it lists them all. */
	if (rc == 0 && r->cluster != NULL && strcmp(r->cluster, "default") ==
	    0 && adopt_touch(dir, ADOPT_MARK) != 0)
		adopt_remove(dir, ADOPT_SCANNED);
out:
	lock_drop(fd);
	free(path);
	free(dir);
	return rc;
}

int
record_discard(const char *id, char **cause)
{
	char	*dir = record_dir(), *path = NULL;
	int	 fd, rc = -1;

	if (id_valid(id, cause) != 0)
		goto out;
	if ((fd = lock_take(dir, cause)) < 0)
		goto out;
	path = record_path(dir, id);
	if (unlink(path) == 0 || errno == ENOENT)
		rc = 0;
	else
		cause_set(cause, "%s: %s", path, strerror(errno));
	lock_drop(fd);
out:
	free(path);
	free(dir);
	return rc;
}

int
record_load(const char *id, struct record **rp, char **cause)
{
	char	*dir, *path;
	int	 rc;

	*rp = NULL;
	if (id_valid(id, cause) != 0)
		return -1;
	dir = record_dir();
	path = record_path(dir, id);
	rc = record_read(path, id, rp, cause);
	free(path);
	free(dir);
	return rc;
}

static int
record_update_sync(const char *id, int (*fn)(struct record *, void *,
    char **), void *arg, int dirsync, char **cause)
{
	struct record	*r = NULL;
	char		*dir = NULL, *path = NULL;
	int		 fd = -1, rc = -1;

	if (id_valid(id, cause) != 0)
		return -1;
	dir = record_dir();
	path = record_path(dir, id);
	if ((fd = lock_take(dir, cause)) < 0)
		goto out;
	/* A corrupt file fails here, so it is never overwritten. */
	if (record_read(path, id, &r, cause) != 0)
		goto out;
	if (fn(r, arg, cause) != 0)
		goto out;
	free(r->updated);
	r->updated = iso_time_now();
	rc = record_write(path, r, dirsync, cause);
out:
	lock_drop(fd);
	record_free(r);
	free(path);
	free(dir);
	return rc;
}

int
record_update(const char *id, int (*fn)(struct record *, void *, char **),
    void *arg, char **cause)
{
	return record_update_sync(id, fn, arg, 1, cause);
}

struct transition {
	enum rstate	 state;
	const char	*native;
	const char	*source;
	const char	*message;
};

static int
do_transition(struct record *r, void *arg, char **cause)
{
	struct transition	*t = arg;
	struct record_event	*last;
	char			*now;

	(void)cause;
	if (r->nhistory > 0) {
		last = &r->history[r->nhistory - 1];
		if (last->state == t->state &&
		    strcmp(last->native, t->native) == 0 &&
		    strcmp(last->message, t->message) == 0)
			return 0;	/* the same observation again */
	}
	now = iso_time_now();
	history_add(r, now, t->state, t->native, t->source, t->message);
	free(now);
	r->state = t->state;
	replace_str(&r->native, t->native);
	return 0;
}

int
record_transition(const char *id, enum rstate state, const char *native,
    const char *source, const char *message, char **cause)
{
	struct transition	t;

	t.state = state;
	t.native = native != NULL ? native : "";
	t.source = source != NULL ? source : "";
	t.message = message != NULL ? message : "";
	return record_update(id, do_transition, &t, cause);
}

static int
do_slurm_id(struct record *r, void *arg, char **cause)
{
	const char	*sid = arg, *cur = record_slurm_id(r);

	(void)cause;
	if (cur == NULL || strcmp(cur, sid) != 0)
		strv_add(&r->slurm_ids, sid);
	return 0;
}

struct launched {
	const char		*sid;
	struct transition	 t;
};

static int
do_launched(struct record *r, void *arg, char **cause)
{
	struct launched	*l = arg;

	if (do_slurm_id(r, (void *)l->sid, cause) != 0)
		return -1;
	return do_transition(r, &l->t, cause);
}

int
record_launched(const char *id, const char *slurm_id, enum rstate state,
    const char *native, const char *source, const char *message,
    char **cause)
{
	struct launched	l;

	if (slurm_id == NULL || *slurm_id == '\0')
		return cause_set(cause, "empty SLURM job id for record %s", id);
	l.sid = slurm_id;
	l.t.state = state;
	l.t.native = native != NULL ? native : "";
	l.t.source = source != NULL ? source : "";
	l.t.message = message != NULL ? message : "";
	return record_update_sync(id, do_launched, &l, 0, cause);
}

int
record_set_slurm_id(const char *id, const char *slurm_id, char **cause)
{
	if (slurm_id == NULL || *slurm_id == '\0')
		return cause_set(cause, "empty SLURM job id for record %s", id);
	return record_update(id, do_slurm_id, (void *)slurm_id, cause);
}

struct set_err {
	enum err_class	 class;
	const char	*rule;
};

static int
do_err(struct record *r, void *arg, char **cause)
{
	struct set_err	*e = arg;

	(void)cause;
	r->err_class = e->class;
	replace_str(&r->err_rule, e->rule);
	return 0;
}

int
record_set_err(const char *id, enum err_class class, const char *rule,
    char **cause)
{
	struct set_err	e = { class, rule };

	return record_update(id, do_err, &e, cause);
}

struct set_field {
	const struct record_field	*f;
	const char			*value;
};

static int
do_set(struct record *r, void *arg, char **cause)
{
	struct set_field	*s = arg;

	(void)cause;
	replace_str(field_ptr(r, s->f), s->value);
	return 0;
}

int
record_set(const char *id, const char *field, const char *value, char **cause)
{
	struct set_field	s;
	size_t			i;

	for (i = 0; i < NFIELDS; i++) {
		if (strcmp(record_fields[i].name, field) == 0 &&
		    record_fields[i].settable)
			break;
	}
	if (i == NFIELDS)
		return cause_set(cause, "record field '%s' cannot be set", field);
	s.f = &record_fields[i];
	s.value = value;
	return record_update(id, do_set, &s, cause);
}

static int
record_cmp(const void *a, const void *b)
{
	const struct record	*ra = *(struct record *const *)a;
	const struct record	*rb = *(struct record *const *)b;
	int			 c;

	c = strcmp(ra->created, rb->created);
	return c != 0 ? c : strcmp(ra->id, rb->id);
}

int
record_dir_open(DIR **dp, char **cause)
{
	char	*dir = record_dir();

	record_reads++;
	if ((*dp = opendir(dir)) == NULL && errno != ENOENT) {
		cause_set(cause, "cannot read %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

int
record_list(struct record_list *list, char **cause)
{
	DIR		*d;
	struct dirent	*de;
	struct record	*r;
	char		*dir, *path, *id, *why;
	size_t		 n;

	memset(list, 0, sizeof *list);
	if (record_dir_open(&d, cause) != 0)
		return -1;
	if (d == NULL)
		return 0;	/* nothing recorded yet */
	dir = record_dir();
	/* No lock: files are only ever replaced whole, by rename. */
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || !str_has_suffix(de->d_name, ".json"))
			continue;
		id = xstrndup(de->d_name, n - 5);
		path = record_path(dir, id);
		why = NULL;
		if (id_valid(id, NULL) != 0) {
			why = xasprintf("%s: file name is not a record id", path);
		} else if (record_read(path, id, &r, &why) == 0) {
			list->v = xrealloc(list->v,
			    (list->n + 1) * sizeof *list->v);
			list->v[list->n++] = r;
		} else if (why != NULL && str_has_prefix(why, "no record ")) {
			/* Renamed away between readdir and open. */
			free(why);
			why = NULL;
		}
		if (why != NULL) {
			strv_add(&list->corrupt, why);
			free(why);
		}
		free(path);
		free(id);
	}
	closedir(d);
	free(dir);
	if (list->n > 1)
		qsort(list->v, list->n, sizeof *list->v, record_cmp);
	return 0;
}

void
record_list_free(struct record_list *list)
{
	size_t	i;

	for (i = 0; i < list->n; i++)
		record_free(list->v[i]);
	free(list->v);
	strv_free(&list->corrupt);
	memset(list, 0, sizeof *list);
}

unsigned long
record_reads_here(void)
{
	return record_reads;
}

void
record_reads_add(unsigned long n)
{
	record_reads += n;
}


/* ------------------------------------------------------------ index */

/*
 * The index keeps of each record only what a lookup, a poll's selection
 * and the jobs pane's row need (193,000 records of a week fit in a few MB,
 * issue 25): the strings shared by many records (cluster, partition,
 * state word, user) once each as atoms, the others (id, name, SLURM ids)
 * in blocks that never move and are freed with the index, so an id given
 * out by record_index_find outlives a refresh on another thread.
 */
struct rindex_block {
	struct rindex_block	*next;
	size_t			 used;
	size_t			 size;
	char			 data[];
};

/*
 * What the jobs pane shows of a record, kept only until the records
 * thread took the rows (record_index_rows): the polls never need it.
 */
struct rindex_row {
	const char	*name;		/* in rows_blocks */
	const char	*partition;	/* atoms */
	const char	*word;		/* native state, else the state's word */
	const char	*user;		/* NULL: the login user's */
	int32_t		 limit;		/* seconds, -1 none */
	int32_t		 elapsed;	/* seconds, -1 unknown */
	int32_t		 nodes;
};

#define RINDEX_GEN_BITS	29
#define RINDEX_GEN_MAX	((1U << RINDEX_GEN_BITS) - 1)

struct rindex_entry {
	const char	*id;		/* the file's name without .json */
	const char	*cluster;	/* an atom; NULL: not readable */
	const char	*sids;		/* SLURM ids, oldest first, each
					   NUL-ended, "" after the last; why,
					   when corrupt */
	/*
	 * The file's mtime (ns) and size as last read, in one word:
	 * mtime * RINDEX_K + size (mod 2^64), K odd, so that two stats
	 * differing in size alone or in time alone always differ (8 bytes
	 * an entry less: 193,000 entries with a week of history, issue 25).
	 */
	uint64_t	 stamp;
	int64_t		 created;	/* seconds; record_list's order */
	int64_t		 updated;
	/*
	 * Its row: 1 + its index in ix->rowv, 0 once taken (or none).  Not
	 * a pointer, and the flags in bits: 56 bytes, not 64 (issue 25).
	 */
	uint32_t	 row;
	unsigned	 seen : RINDEX_GEN_BITS;	/* refresh generation */
	unsigned	 terminal : 1;	/* its state is an end state */
	/*
	 * Ended for a poll: an end state, and not an array whose tasks
	 * still run (a cancelled array is asked until they end).
	 */
	unsigned	 done : 1;
	unsigned	 corrupt : 1;	/* sids says why */
};

#define RINDEX_K	0x9e3779b97f4a7c15ULL	/* odd */
_Static_assert(sizeof(struct rindex_entry) <= 56, "rindex_entry: 56 bytes");

/* The stamp of a file's stat (see struct rindex_entry). */
static uint64_t
rindex_stamp(const struct stat *sb)
{
	return ((uint64_t)sb->st_mtim.tv_sec * 1000000000 +
	    (uint64_t)sb->st_mtim.tv_nsec) * RINDEX_K + (uint64_t)sb->st_size;
}

/* One cluster's run of record_index.by. */
struct rindex_cluster {
	const char	*cluster;	/* an atom */
	size_t		 start;
	size_t		 nlive;		/* not ended, then the ended ones */
	size_t		 n;
};

struct record_index {
	struct rindex_entry	*v;	/* sorted by id */
	size_t			 n;
	size_t			 a;	/* allocated */
	unsigned		 gen;
	struct rindex_block	*blocks;
	struct rindex_block	*rows_blocks;	/* rows and their names */
	struct rindex_row	**rowv;		/* the rows, until taken */
	size_t			 nrow;
	size_t			 arow;
	int			 rows_taken;	/* keep no row any more */
	struct strset		 atoms;
	struct strv		 badnames;	/* "PATH: not a record id" */
	/*
	 * The directory as last listed: a listing of 193,000 names and a
	 * stat of each is skipped while the directory did not change
	 * (records are only ever replaced whole, by rename, which changes
	 * it).  A change in the same tick as the listing may leave the
	 * time as it was: the shortcut is taken only once the directory's
	 * time is older than the last listing by LISTED_SLACK seconds.
	 */
	int			 listed;
	struct timespec		 dir_mtime;
	ino_t			 dir_ino;
	time_t			 listed_at;
	/*
	 * A poll reads one cluster's records: each cluster's entries in
	 * one run of by (positions in v), those not ended first, then the
	 * ended ones newest first, so a poll stops at its first ended
	 * record older than its window.  32 clusters walked and strcmp'd
	 * all 193,000 entries on every poll of each (40 % of the idle
	 * TUI's CPU).  Built again after a listing moved v.
	 */
	uint32_t		*by;
	struct rindex_cluster	*cl;
	size_t			 ncl;
	int			 by_valid;
	unsigned long		 visits;	/* entries selects looked at */
	int			 dirty;	/* listed since the load */
	/* Several threads may share an index (record_index_set_lock). */
	void			(*lock)(void *);
	void			(*unlock)(void *);
	void			*lock_arg;
};
#define LISTED_SLACK 2

static void	rindex_blocks_free(struct rindex_block **);
static int	rindex_older_cmp(const void *, const void *);

struct record_index *
record_index_new(void)
{
	return xcalloc(1, sizeof (struct record_index));
}

void
record_index_set_lock(struct record_index *ix, void (*lock)(void *),
    void (*unlock)(void *), void *arg)
{
	ix->lock = lock;
	ix->unlock = unlock;
	ix->lock_arg = arg;
}

static void
rindex_lock(const struct record_index *ix)
{
	if (ix->lock != NULL)
		ix->lock(ix->lock_arg);
}

static void
rindex_unlock(const struct record_index *ix)
{
	if (ix->unlock != NULL)
		ix->unlock(ix->lock_arg);
}

void
record_index_free(struct record_index *ix)
{
	if (ix == NULL)
		return;
	rindex_blocks_free(&ix->blocks);
	rindex_blocks_free(&ix->rows_blocks);
	free(ix->rowv);
	free(ix->v);
	free(ix->by);
	free(ix->cl);
	strset_free(&ix->atoms);
	strv_free(&ix->badnames);
	free(ix);
}

size_t
record_index_size(const struct record_index *ix)
{
	size_t	n;

	rindex_lock(ix);
	n = ix->n;
	rindex_unlock(ix);
	return n;
}

/* Bytes the index holds (a test hook: it stays compact). */
size_t
record_index_bytes(const struct record_index *ix)
{
	const struct rindex_block	*b;
	size_t				 n;

	n = sizeof *ix + ix->a * sizeof *ix->v + strset_bytes(&ix->atoms);
	if (ix->by_valid)
		n += ix->n * sizeof *ix->by + ix->ncl * sizeof *ix->cl;
	for (b = ix->blocks; b != NULL; b = b->next)
		n += sizeof *b + b->size;
	for (b = ix->rows_blocks; b != NULL; b = b->next)
		n += sizeof *b + b->size;
	return n + ix->arow * sizeof *ix->rowv;
}

/* len bytes at the end of a block of the list *bp; align: a power of 2. */
static void *
rindex_alloc(struct rindex_block **bp, size_t len, size_t align)
{
	struct rindex_block	*b = *bp;
	size_t			 size;
	void			*p;

	if (b != NULL)
		b->used = (b->used + align - 1) & ~(align - 1);
	if (b == NULL || b->used > b->size || b->size - b->used < len) {
		size = len > 65536 - sizeof *b ? len : 65536 - sizeof *b;
		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = *bp;
		*bp = b;
	}
	p = b->data + b->used;
	b->used += len;
	return p;
}

static void
rindex_blocks_free(struct rindex_block **bp)
{
	struct rindex_block	*b;

	while ((b = *bp) != NULL) {
		*bp = b->next;
		free(b);
	}
}

/* A copy of len bytes of s, NUL-ended, in the list *bp. */
static char *
rindex_keep_in(struct rindex_block **bp, const char *s, size_t len)
{
	char	*p = rindex_alloc(bp, len + 1, 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* The same in the index's own blocks. */
static char *
rindex_keep(struct record_index *ix, const char *s, size_t len)
{
	return rindex_keep_in(&ix->blocks, s, len);
}

static const char *
rindex_keep_cb(void *arg, const char *s)
{
	return rindex_keep(arg, s, strlen(s));
}

/* The one copy of s (NULL for NULL): a few values shared by many records. */
static const char *
rindex_atom(struct record_index *ix, const char *s)
{
	if (s == NULL)
		return NULL;
	return strset_intern(&ix->atoms, s, rindex_keep_cb, ix);
}

static int
rindex_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rindex_entry *)a)->id,
	    ((const struct rindex_entry *)b)->id);
}

static struct rindex_entry *
rindex_get(struct record_index *ix, size_t nold, const char *id)
{
	struct rindex_entry	key;

	if (nold == 0)
		return NULL;
	key.id = id;
	return bsearch(&key, ix->v, nold, sizeof *ix->v, rindex_cmp);
}

/* The last of an entry's SLURM ids, or NULL. */
static const char *
rindex_sid(const struct rindex_entry *e)
{
	const char	*p, *last = NULL;

	if (e->sids == NULL)
		return NULL;
	for (p = e->sids; *p != '\0'; p += strlen(p) + 1)
		last = p;
	return last;
}

static int64_t
rindex_time(const char *iso)
{
	time_t	t = iso != NULL ? iso_time_parse(iso) : (time_t)-1;

	return (int64_t)t;
}

/* What the jobs pane shows of r, in rows_blocks. */
static struct rindex_row *
rindex_row_of(struct record_index *ix, const struct record *r)
{
	struct rindex_row	*row;

	row = rindex_alloc(&ix->rows_blocks, sizeof *row,
	    _Alignof(struct rindex_row));
	row->name = rindex_keep_in(&ix->rows_blocks,
	    r->job_name != NULL ? r->job_name : "",
	    r->job_name != NULL ? strlen(r->job_name) : 0);
	row->partition = rindex_atom(ix, r->partition != NULL ?
	    r->partition : "");
	row->word = rindex_atom(ix, r->native != NULL && *r->native != '\0' ?
	    r->native : state_word(r->state));
	row->user = r->user != NULL && *r->user != '\0' ?
	    rindex_atom(ix, r->user) : NULL;
	row->limit = (int32_t)record_limit(r);
	row->elapsed = r->elapsed >= 0 ? r->elapsed : -1;
	row->nodes = r->nodes;
	return row;
}

/*
 * Read one record file into its entry (what the index keeps of it); the
 * record itself goes to fresh if asked, else it is freed at once.
 */
static void
rindex_read(struct record_index *ix, struct rindex_entry *e,
    const char *path, struct record_list *fresh)
{
	struct record	*r;
	struct buf	 b;
	char		*why = NULL;
	size_t		 i;

	e->cluster = e->sids = NULL;
	e->row = 0;
	e->terminal = e->done = e->corrupt = 0;
	if (record_read(path, e->id, &r, &why) != 0) {
		/* Renamed away between readdir and open: gone next time. */
		if (why != NULL && !str_has_prefix(why, "no record ")) {
			e->corrupt = 1;
			e->sids = rindex_keep(ix, why, strlen(why));
			if (fresh != NULL)
				strv_add(&fresh->corrupt, why);
		}
		free(why);
		return;
	}
	e->cluster = rindex_atom(ix, r->cluster);
	e->created = rindex_time(r->created);
	e->updated = rindex_time(r->updated);
	e->terminal = state_terminal(r->state);
	e->done = e->terminal && !(r->array != NULL &&
	    array_tasks_live(r->array_tasks));
	if (r->slurm_ids.n > 0) {
		buf_init(&b);
		for (i = 0; i < r->slurm_ids.n; i++)
			buf_add(&b, r->slurm_ids.v[i],
			    strlen(r->slurm_ids.v[i]) + 1);
		e->sids = rindex_keep(ix, b.data, b.len);	/* + "" */
		buf_free(&b);
	}
	if (!ix->rows_taken && ix->nrow < UINT32_MAX) {
		if (ix->nrow == ix->arow) {
			ix->arow += ix->arow / 8 + 64;
			ix->rowv = xrealloc(ix->rowv,
			    ix->arow * sizeof *ix->rowv);
		}
		ix->rowv[ix->nrow++] = rindex_row_of(ix, r);
		e->row = (uint32_t)ix->nrow;
	}
	if (fresh == NULL) {
		record_free(r);
		return;
	}
	fresh->v = xrealloc(fresh->v, (fresh->n + 1) * sizeof *fresh->v);
	fresh->v[fresh->n++] = r;
}

/* Whether the directory is as it was at the last listing. */
static int
rindex_same_dir(struct record_index *ix, const char *dir, time_t now)
{
	struct stat	sb;

	if (stat(dir, &sb) != 0)
		return 0;
	if (ix->listed && sb.st_ino == ix->dir_ino &&
	    sb.st_mtim.tv_sec == ix->dir_mtime.tv_sec &&
	    sb.st_mtim.tv_nsec == ix->dir_mtime.tv_nsec &&
	    sb.st_mtim.tv_sec + LISTED_SLACK <= ix->listed_at)
		return 1;
	ix->listed = 1;
	ix->dir_ino = sb.st_ino;
	ix->dir_mtime = sb.st_mtim;
	ix->listed_at = now;
	return 0;
}

static int
rindex_refresh(struct record_index *ix, struct record_list *fresh,
    char **cause)
{
	struct rindex_entry	*e;
	struct dirent		*de;
	struct stat		 sb;
	DIR			*d;
	char			*dir, *path, *id, *why;
	size_t			 i, k, nold = ix->n;
	time_t			 now = time(NULL);
	int			 isnew = 0;

	dir = record_dir();
	if (rindex_same_dir(ix, dir, now)) {
		free(dir);
		return 0;
	}
	if (record_dir_open(&d, cause) != 0) {
		ix->listed = 0;
		free(dir);
		return -1;
	}
	/* Never 0 (an entry loaded from records.index), within seen's bits. */
	ix->gen = ix->gen == RINDEX_GEN_MAX ? 1 : ix->gen + 1;
	ix->dirty = 1;
	strv_free(&ix->badnames);
	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t	n = strlen(de->d_name);

		if (de->d_name[0] == '.' ||
		    !str_has_suffix(de->d_name, ".json"))
			continue;
		id = xstrndup(de->d_name, n - 5);
		path = record_path(dir, id);
		if (id_valid(id, NULL) != 0) {
			why = xasprintf("%s: file name is not a record id",
			    path);
			strv_add(&ix->badnames, why);
			if (fresh != NULL)
				strv_add(&fresh->corrupt, why);
			free(why);
		} else if (fstatat(dirfd(d), de->d_name, &sb, 0) == 0) {
			if ((e = rindex_get(ix, nold, id)) == NULL) {
				/*
				 * By an eighth, not twice: 193,000 entries
				 * left 4 MB unused (issue 25).
				 */
				if (ix->n == ix->a) {
					ix->a += ix->a / 8 + 64;
					ix->v = xrealloc(ix->v,
					    ix->a * sizeof *ix->v);
				}
				e = &ix->v[ix->n++];
				memset(e, 0, sizeof *e);
				ix->by_valid = 0;
				e->id = rindex_keep(ix, id, strlen(id));
				isnew = 1;
			}
			e->seen = ix->gen;
			if (isnew || e->stamp != rindex_stamp(&sb)) {
				isnew = 0;
				e->stamp = rindex_stamp(&sb);
				rindex_read(ix, e, path, fresh);
				ix->by_valid = 0;	/* its cluster, state */
			}
		}
		free(path);
		free(id);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	/* Files gone since: out of the index. */
	for (i = k = 0; i < ix->n; i++) {
		if (ix->v[i].seen == ix->gen)
			ix->v[k++] = ix->v[i];
	}
	/* The lists by cluster hold positions in v: new ones after a change. */
	if (k != ix->n)
		ix->by_valid = 0;
	ix->n = k;
	/*
	 * Kept for the session: not an eighth unused past a growth, nor the
	 * room of files gone (a sixty-fourth more is left for the next).
	 */
	if (ix->a - ix->n > ix->n / 32 + 64) {
		ix->a = ix->n + ix->n / 64 + 1;
		ix->v = xrealloc(ix->v, ix->a * sizeof *ix->v);
	}
	if (ix->n > 1 && ix->n != nold)
		qsort(ix->v, ix->n, sizeof *ix->v, rindex_cmp);
	if (fresh != NULL && fresh->n > 1)
		qsort(fresh->v, fresh->n, sizeof *fresh->v, record_cmp);
	return 0;
}

int
record_index_refresh(struct record_index *ix, struct record_list *fresh,
    char **cause)
{
	int	rc;

	if (fresh != NULL)
		memset(fresh, 0, sizeof *fresh);
	rindex_lock(ix);
	rc = rindex_refresh(ix, fresh, cause);
	rindex_unlock(ix);
	return rc;
}

/* Oldest first (record_list's order): created, then id. */
static int
rindex_older(const struct rindex_entry *a, const struct rindex_entry *b)
{
	if (a->created != b->created)
		return a->created < b->created;
	return strcmp(a->id, b->id) < 0;
}

/*
 * The record of cluster (any, if NULL) whose SLURM ids hold sid: the
 * oldest such, or the newest.  Under the index's lock.
 */
static const struct rindex_entry *
rindex_match(const struct record_index *ix, const char *cluster,
    const char *sid, int newest)
{
	const struct rindex_entry	*e, *best = NULL;
	const char			*p;
	size_t				 i;

	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->corrupt || e->cluster == NULL || e->sids == NULL ||
		    (cluster != NULL && strcmp(e->cluster, cluster) != 0))
			continue;
		for (p = e->sids; *p != '\0'; p += strlen(p) + 1) {
			if (strcmp(p, sid) != 0)
				continue;
			if (best == NULL || (newest ? rindex_older(best, e) :
			    rindex_older(e, best)))
				best = e;
			break;
		}
	}
	return best;
}

const char *
record_index_find(const struct record_index *ix, const char *cluster,
    const char *sid)
{
	const struct rindex_entry	*best;

	rindex_lock(ix);
	best = rindex_match(ix, cluster, sid, 0);
	rindex_unlock(ix);
	return best != NULL ? best->id : NULL;	/* the blocks stay */
}

/* Not ended first, then ended newest first; an unknown time (-1) last. */
static int
rindex_by_cmp(const void *a, const void *b, void *arg)
{
	const struct rindex_entry	*v = arg;
	const struct rindex_entry	*ea = &v[*(const uint32_t *)a];
	const struct rindex_entry	*eb = &v[*(const uint32_t *)b];

	if (ea->done != eb->done)
		return ea->done ? 1 : -1;
	if (ea->updated != eb->updated)
		return ea->updated > eb->updated ? -1 : 1;
	return 0;
}

/*
 * The clusters' runs of by, after a listing: once per change of the
 * directory, not once per poll.
 */
static void
rindex_by_build(struct record_index *ix)
{
	const struct rindex_entry	*e;
	struct rindex_cluster		*c;
	size_t				 i, k, *at;

	free(ix->by);
	free(ix->cl);
	ix->by = xcalloc(ix->n + 1, sizeof *ix->by);
	ix->cl = NULL;
	ix->ncl = 0;
	/* Count per cluster (the atoms are few: a pointer compare each). */
	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->cluster == NULL)
			continue;
		for (k = 0; k < ix->ncl && ix->cl[k].cluster != e->cluster; k++)
			;
		if (k == ix->ncl) {
			ix->cl = xrealloc(ix->cl, (ix->ncl + 1) *
			    sizeof *ix->cl);
			memset(&ix->cl[k], 0, sizeof *ix->cl);
			ix->cl[k].cluster = e->cluster;
			ix->ncl++;
		}
		ix->cl[k].n++;
		if (!e->done)
			ix->cl[k].nlive++;
	}
	at = xcalloc(ix->ncl + 1, sizeof *at);
	for (k = 0, i = 0; k < ix->ncl; k++) {
		ix->cl[k].start = at[k] = i;
		i += ix->cl[k].n;
	}
	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->cluster == NULL)
			continue;
		for (k = 0; ix->cl[k].cluster != e->cluster; k++)
			;
		ix->by[at[k]++] = (uint32_t)i;
	}
	free(at);
	for (k = 0; k < ix->ncl; k++) {
		c = &ix->cl[k];
		qsort_r(ix->by + c->start, c->n, sizeof *ix->by,
		    rindex_by_cmp, ix->v);
	}
	ix->by_valid = 1;
}

unsigned long
record_index_visits(const struct record_index *ix)
{
	unsigned long	n;

	rindex_lock(ix);
	n = ix->visits;
	rindex_unlock(ix);
	return n;
}

/* Read the records of one cluster's run a select wants into out. */
static void
rindex_select_run(struct record_index *ix, const struct rindex_cluster *c,
    time_t since, const char *dir, struct record_list *out, size_t *a)
{
	const struct rindex_entry	*e;
	struct record			*r;
	char				*path, *why = NULL;
	size_t				 k;

	for (k = 0; k < c->n; k++) {
		e = &ix->v[ix->by[c->start + k]];
		ix->visits++;
		/* The ended ones are newest first: the rest are older. */
		if (e->done && since != (time_t)-1 &&
		    (e->updated == -1 || e->updated < (int64_t)since))
			break;
		path = record_path(dir, e->id);
		if (record_read(path, e->id, &r, &why) != 0) {
			/* Gone or half-seen: the next refresh knows. */
			free(why);
			why = NULL;
			free(path);
			continue;
		}
		free(path);
		if (out->n == *a) {
			*a = *a ? *a * 2 : 16;
			out->v = xrealloc(out->v, *a * sizeof *out->v);
		}
		out->v[out->n++] = r;
	}
}

/* cluster NULL: every cluster's, and the files that do not parse. */
static int
rindex_select(struct record_index *ix, const char *cluster, time_t since,
    struct record_list *out, char **cause)
{
	char	*dir;
	size_t	 k, a = 0;

	memset(out, 0, sizeof *out);
	rindex_lock(ix);
	if (rindex_refresh(ix, NULL, cause) != 0) {
		rindex_unlock(ix);
		return -1;
	}
	if (!ix->by_valid)
		rindex_by_build(ix);
	dir = record_dir();
	for (k = 0; k < ix->ncl; k++) {
		if (cluster != NULL && strcmp(ix->cl[k].cluster, cluster) != 0)
			continue;
		rindex_select_run(ix, &ix->cl[k], since, dir, out, &a);
		if (cluster != NULL)
			break;
	}
	if (cluster == NULL) {
		for (k = 0; k < ix->badnames.n; k++)
			strv_add(&out->corrupt, ix->badnames.v[k]);
		for (k = 0; k < ix->n; k++) {
			if (ix->v[k].corrupt)
				strv_add(&out->corrupt, ix->v[k].sids);
		}
	}
	rindex_unlock(ix);
	free(dir);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, record_cmp);
	return 0;
}

int
record_index_select(struct record_index *ix, const char *cluster,
    time_t since, struct record_list *out, char **cause)
{
	return rindex_select(ix, cluster, since, out, cause);
}

int
record_index_recent(struct record_index *ix, time_t since,
    struct record_list *out, char **cause)
{
	return rindex_select(ix, NULL, since, out, cause);
}

const char *
record_index_current(struct record_index *ix, const char *cluster, long raw)
{
	const struct rindex_entry	*e, *best = NULL;
	const struct rindex_cluster	*c = NULL;
	const char			*sid;
	size_t				 k;

	rindex_lock(ix);
	if (!ix->by_valid)
		rindex_by_build(ix);
	for (k = 0; k < ix->ncl; k++) {
		if (strcmp(ix->cl[k].cluster, cluster) == 0) {
			c = &ix->cl[k];
			break;
		}
	}
	for (k = 0; c != NULL && k < c->n; k++) {
		e = &ix->v[ix->by[c->start + k]];
		if ((sid = rindex_sid(e)) == NULL ||
		    strtol(sid, NULL, 10) != raw)
			continue;
		if (best == NULL || rindex_older(e, best))
			best = e;
	}
	rindex_unlock(ix);
	return best != NULL ? best->id : NULL;
}

const char *
record_index_newest(struct record_index *ix, const char *cluster,
    const char *sid, char **cause)
{
	const struct rindex_entry	*best;

	rindex_lock(ix);
	if (rindex_refresh(ix, NULL, cause) != 0) {
		rindex_unlock(ix);
		return NULL;
	}
	best = rindex_match(ix, cluster, sid, 1);
	rindex_unlock(ix);
	return best != NULL ? best->id : NULL;	/* the blocks stay */
}

int
record_index_each(struct record_index *ix, const char *cluster,
    void (*fn)(const char *, const char *, void *), void *arg, char **cause)
{
	const struct rindex_entry	**order;
	const struct rindex_entry	 *e;
	size_t				  i, n = 0;

	rindex_lock(ix);
	if (rindex_refresh(ix, NULL, cause) != 0) {
		rindex_unlock(ix);
		return -1;
	}
	order = xcalloc(ix->n + 1, sizeof *order);
	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->corrupt || e->cluster == NULL || (cluster != NULL &&
		    strcmp(e->cluster, cluster) != 0))
			continue;
		order[n++] = e;
	}
	qsort(order, n, sizeof *order, rindex_older_cmp);
	for (i = 0; i < n; i++)
		fn(order[i]->id, rindex_sid(order[i]), arg);
	rindex_unlock(ix);
	free(order);
	return 0;
}

/* --- the index kept between runs (a CLI start) --------------------------- */

#define RINDEX_MAGIC	"sqdeck-record-index 2"	/* 1: mtime, size */

char *
record_index_path(void)
{
	char	*state = path_state_dir(), *p;

	p = xasprintf("%s/records.index", state);
	free(state);
	return p;
}

/* A field the file can hold: no tab, no newline, not empty. */
static int
rindex_plain(const char *s)
{
	return s != NULL && *s != '\0' && strpbrk(s, "\t\n ") == NULL;
}

/* A whole decimal field (sscanf took a third of a start). */
static int
rindex_num(const char *s, long long *v)
{
	char	*end;

	if (*s == '\0')
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return *end != '\0' || errno != 0 ? -1 : 0;
}

static int
rindex_load_line(struct record_index *ix, char *line, char *end)
{
	struct rindex_entry	*e;
	char			*f[8], *p = line, *q, *save = NULL;
	long long		 stamp, created, updated;
	int			 n, done;
	struct buf		 b;

	for (n = 0; n < 8 && p != NULL; n++) {
		f[n] = p;
		if ((p = memchr(p, '\t', (size_t)(end - p))) != NULL)
			*p++ = '\0';
	}
	if (n != 8 || p != NULL || id_valid(f[0], NULL) != 0 ||
	    rindex_num(f[2], &stamp) != 0 ||
	    rindex_num(f[3], &created) != 0 ||
	    rindex_num(f[4], &updated) != 0 ||
	    (f[5][0] != '0' && f[5][0] != '1') || f[5][1] != '\0' ||
	    (f[6][0] != '0' && f[6][0] != '1') || f[6][1] != '\0' ||
	    *f[1] == '\0')
		return -1;
	done = f[6][0] == '1';
	if (ix->n == ix->a) {
		ix->a += ix->a / 8 + 1024;
		ix->v = xrealloc(ix->v, ix->a * sizeof *ix->v);
	}
	e = &ix->v[ix->n];
	memset(e, 0, sizeof *e);
	e->id = rindex_keep(ix, f[0], strlen(f[0]));
	e->cluster = rindex_atom(ix, f[1]);
	e->stamp = (uint64_t)stamp;	/* written as a signed number */
	e->created = created;
	e->updated = updated;
	e->terminal = f[5][0] == '1';
	e->done = done != 0;
	if (*f[7] != '\0') {
		buf_init(&b);
		for (q = strtok_r(f[7], ",", &save); q != NULL;
		    q = strtok_r(NULL, ",", &save))
			buf_add(&b, q, strlen(q) + 1);
		e->sids = rindex_keep(ix, b.data, b.len);	/* + "" */
		buf_free(&b);
	}
	ix->n++;
	return 0;
}

/* The whole file in one read of its size (17 MB for 193,000 records). */
static int
rindex_file(const char *path, char **out, size_t *lenp)
{
	struct stat	 sb;
	ssize_t		 n;
	size_t		 got = 0;
	char		*p;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -1;
	}
	p = xmalloc((size_t)sb.st_size + 1);
	while (got < (size_t)sb.st_size) {
		n = read(fd, p + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	p[got] = '\0';
	*out = p;
	*lenp = got;
	return 0;
}

int
record_index_load(struct record_index *ix)
{
	char			*path = record_index_path(), *text = NULL;
	char			*line, *nl;
	unsigned long long	 ino, count;
	long long		 sec, nsec, at;
	int			 shortcut, ok = 1, sorted = 1;
	size_t			 len, lines = 0;

	rindex_lock(ix);
	if (ix->n != 0 || rindex_file(path, &text, &len) != 0) {
		rindex_unlock(ix);
		free(path);
		return -1;
	}
	free(path);
	line = text;
	if ((nl = strchr(line, '\n')) == NULL ||
	    strncmp(line, RINDEX_MAGIC "\t", sizeof RINDEX_MAGIC) != 0 ||
	    sscanf(line + sizeof RINDEX_MAGIC, "%llu\t%lld\t%lld\t%lld\t%d"
	    "\t%llu", &ino, &sec, &nsec, &at, &shortcut, &count) != 6)
		ok = 0;
	/* One allocation for every entry: no copy as it grows. */
	for (line = text; ok && (line = memchr(line, '\n',
	    len - (size_t)(line - text))) != NULL; line++)
		lines++;
	if (ok && lines > ix->a) {
		ix->a = lines;
		ix->v = xrealloc(ix->v, ix->a * sizeof *ix->v);
	}
	while (ok && nl != NULL && *(line = nl + 1) != '\0') {
		if ((nl = memchr(line, '\n', len - (size_t)(line - text))) ==
		    NULL) {
			ok = 0;		/* cut short */
			break;
		}
		*nl = '\0';
		if (rindex_load_line(ix, line, nl) != 0)
			ok = 0;
		else if (ix->n > 1 && strcmp(ix->v[ix->n - 2].id,
		    ix->v[ix->n - 1].id) >= 0)
			sorted = 0;	/* saved sorted; not if edited */
	}
	free(text);
	/* Cut short at a line's end: fewer entries than it says. */
	if (ok && ix->n != count)
		ok = 0;
	if (!ok) {
		/* Not ours, or damaged: read the records as without it. */
		ix->n = 0;
		rindex_blocks_free(&ix->blocks);
		strset_free(&ix->atoms);
		memset(&ix->atoms, 0, sizeof ix->atoms);
		rindex_unlock(ix);
		return -1;
	}
	if (ix->n > 1 && !sorted)
		qsort(ix->v, ix->n, sizeof *ix->v, rindex_cmp);
	ix->by_valid = 0;
	/* The rows are the TUI's: a CLI reads a file again if it needs one. */
	ix->rows_taken = 1;
	if (shortcut) {
		ix->listed = 1;
		ix->dir_ino = (ino_t)ino;
		ix->dir_mtime.tv_sec = (time_t)sec;
		ix->dir_mtime.tv_nsec = (long)nsec;
		ix->listed_at = (time_t)at;
	}
	ix->dirty = 0;
	rindex_unlock(ix);
	return 0;
}

int
record_index_save(struct record_index *ix, char **cause)
{
	const struct rindex_entry	*e;
	struct buf			 b;
	const char			*p;
	char				*path;
	size_t				 i, count = 0;
	int				 shortcut, rc;

	rindex_lock(ix);
	if (!ix->dirty) {
		rindex_unlock(ix);
		return 0;
	}
	/* A file that does not parse is read (and said) again each run. */
	shortcut = ix->listed && ix->badnames.n == 0;
	buf_init(&b);
	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->corrupt || !rindex_plain(e->cluster)) {
			shortcut = 0;
			continue;
		}
		if (e->cluster == NULL)
			continue;	/* gone between listing and read */
		buf_printf(&b, "%s\t%s\t%lld\t%lld\t%lld\t%d\t%d\t",
		    e->id, e->cluster, (long long)e->stamp, (long long)e->created,
		    (long long)e->updated, e->terminal, e->done);
		for (p = e->sids; p != NULL && *p != '\0';
		    p += strlen(p) + 1) {
			if (p != e->sids)
				buf_add(&b, ",", 1);
			buf_adds(&b, p);
		}
		buf_add(&b, "\n", 1);
		count++;
	}
	/* The count of entries: a file cut at a line's end is seen. */
	path = xasprintf("%s\t%llu\t%lld\t%lld\t%lld\t%d\t%zu\n",
	    RINDEX_MAGIC, (unsigned long long)ix->dir_ino,
	    (long long)ix->dir_mtime.tv_sec,
	    (long long)ix->dir_mtime.tv_nsec, (long long)ix->listed_at,
	    shortcut, count);
	{
		struct buf	 all;

		buf_init(&all);
		buf_adds(&all, path);
		buf_add(&all, b.data != NULL ? b.data : "", b.len);
		free(path);
		path = record_index_path();
		rc = file_write_atomic_nodirsync(path, all.data, all.len, 0600,
		    cause);
		buf_free(&all);
	}
	if (rc == 0)
		ix->dirty = 0;
	rindex_unlock(ix);
	buf_free(&b);
	free(path);
	return rc;
}

static int
rindex_older_cmp(const void *a, const void *b)
{
	const struct rindex_entry	*ea = *(const struct rindex_entry *const *)a;
	const struct rindex_entry	*eb = *(const struct rindex_entry *const *)b;

	return rindex_older(ea, eb) ? -1 : rindex_older(eb, ea) ? 1 : 0;
}

int
record_index_rows(struct record_index *ix, struct strv *corrupt,
    record_brief_fn fn, void *arg, char **cause)
{
	const struct rindex_entry	**order;
	const struct rindex_entry	 *e;
	const struct rindex_row		 *row;
	struct record_brief		  b;
	struct record			 *r;
	char				 *dir, *path;
	size_t				  i, n = 0;

	rindex_lock(ix);
	if (rindex_refresh(ix, NULL, cause) != 0) {
		rindex_unlock(ix);
		return -1;
	}
	for (i = 0; i < ix->badnames.n; i++)
		strv_add(corrupt, ix->badnames.v[i]);
	order = xcalloc(ix->n + 1, sizeof *order);
	for (i = 0; i < ix->n; i++) {
		e = &ix->v[i];
		if (e->corrupt)
			strv_add(corrupt, e->sids);
		else if (e->cluster != NULL && e->sids != NULL)
			order[n++] = e;
	}
	qsort(order, n, sizeof *order, rindex_older_cmp);
	dir = record_dir();
	for (i = 0; i < n; i++) {
		e = order[i];
		if (e->row == 0) {
			/* Taken by an earlier call: its file again. */
			path = record_path(dir, e->id);
			if (record_read(path, e->id, &r, NULL) != 0) {
				free(path);
				continue;
			}
			free(path);
			row = rindex_row_of(ix, r);
			record_free(r);
		} else
			row = ix->rowv[e->row - 1];
		b.id = e->id;
		b.cluster = e->cluster;
		b.sid = rindex_sid(e);
		b.name = row->name;
		b.partition = row->partition;
		b.state = row->word;
		b.user = row->user;
		b.elapsed = row->elapsed;
		b.limit = row->limit;
		b.nodes = row->nodes;
		b.terminal = e->terminal;
		fn(&b, arg);
	}
	/* The screen has them now: the polls need none of it. */
	for (i = 0; i < ix->n; i++)
		ix->v[i].row = 0;
	free(ix->rowv);
	ix->rowv = NULL;
	ix->nrow = ix->arow = 0;
	rindex_blocks_free(&ix->rows_blocks);
	ix->rows_taken = 1;
	rindex_unlock(ix);
	free(order);
	free(dir);
	return 0;
}
