#ifndef SUBMIT_H
#define SUBMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "conn.h"
#include "image.h"
#include "lint.h"
#include "preflight.h"
#include "rsh.h"
#include "spec.h"
#include "util.h"

/*
 * The submit pipeline (sqdeck(1): submit): submit.c walks the steps, one file
 * each (submit-check.c, -image, -secrets, -render, -stage, -launch, -recover).
 *
 *	preflight	once per session (struct submit_session keeps it)
 *	secrets		the spec's secret NAMES, values from the local
 *			environment; a missing one stops the submit
 *	record		the local record is created (no record, no launch)
 *	render		template + lint (with the secret values) + bash -n
 *	launch		ONE round trip, its parts:
 *	  check		test -e of every dataset and mount source, the image
 *			(or its cache file) header, size, owner and modes
 *	  gate		on only if no path is missing and the image lines are
 *			the ones validated before (kept locally, imgok/);
 *			else it stops, the image step runs and it is sent
 *			again
 *	  stage		a tar stream makes the job dir with specs/ env/ meta/
 *			sbatch/ logs/ results/ and the mode-600 sidecar
 *	  sbatch	sbatch --parsable --hold, mkdir of
 *			<log_dir>/<name>-<id>, scontrol release, the cleanup
 *			job (NAME-wipe, --dependency=afterany:ID); an empty or
 *			garbled reply or an SSH drop is reconciled by name
 *	image		(only when the gate stopped on it) a .sqsh is
 *			validated; a registry image is converted once with
 *			enroot import inside srun on the CPU partition, under
 *			flock, into a temp name, validated and renamed into
 *			the cache (never a registry URI to --container-image)
 *
 * A dry run sends the check alone and stops after render.
 *
 * Job dir layout (sqdeck(1): IMAGES AND STORAGE): jobdir.h.
 *
 * The job runs with its job dir as working directory, and gets
 * SQDECK_JOB_DIR and SQDECK_RESULTS_DIR in its environment.
 *
 * Test hook: SQDECK_TEST_FAULT (for the integration tests only; read
 * once per submit, each fault fires once) makes a submit misbehave on
 * purpose.  A comma-separated list of:
 *
 *	after-sbatch	the launch script kills its own sshd right after
 *			sbatch returned, before the release (a real drop)
 *	empty-reply	sbatch's answer is thrown away
 *	cut-before:P	the SSH connection dies as the remote command of
 *			point P starts, before it does anything (the script
 *			kills its own sshd on the login node)
 *	cut-after:P	the command of P does all its work, then its sshd is
 *			killed before the reply is sent
 *	kill-before:P	sqdeck SIGKILLs itself as point P starts
 *	kill-after:P	... once P is done (a remote P: its reply came back
 *			and was not used yet); kill:P is the same
 *	stop-before:P, stop-after:P
 *			sqdeck SIGSTOPs itself there (the test does
 *			something, e.g. restarts sshd, then sends SIGCONT)
 *
 * Points: preflight check image record render stage launch (check, stage
 * and launch are the parts of the one round trip: cut-before:check cuts
 * before it, cut-after:check and cut-before:stage after the gate,
 * cut-after:stage and cut-before:launch after staging, cut-after:launch
 * after it all; their kills and stops fire before it is sent or once its
 * reply is back; all with the first send that can pass the gate: one
 * without validated image lines only checks), reconcile (each lookup by name), release (of an adopted job),
 * wipe (of a failed submit's sidecar), recover (each interrupted record
 * being finished).  For preflight the cuts drop the connection just
 * before / just after its command; image has a remote command only when
 * it converts.
 *
 * Interrupted submits: from just before its record is created until it
 * ends, a submit holds an flock on records/.submit-<record id>.lock (which
 * also names its spec's sha256).  The record's history says how far it
 * got: source "submit:launch" is written before the first sbatch is sent,
 * "submit:reconcile" (state UNKNOWN) when sbatch may have queued a job that
 * could not be looked up, "submit:release" when the job exists but could
 * not be released, "submit:unwiped" when a failed submit's secrets file
 * could not be removed yet.  A submit that ends with nothing left to do
 * removes its lock file; one that is killed or ends unresolved leaves it,
 * and submit_recover() (run by every submit after the preflight) finishes
 * it once its lock is free: it looks the job up by its exact name (squeue,
 * then sacct -S), adopts and releases it, or marks the record ERROR and
 * removes the secrets file.  A re-run of the same spec whose interrupted
 * submit turns out to have queued its job is that job: nothing is
 * submitted twice (res->resumed).
 */

#define SUBMIT_IMPORT_MINUTES	120	/* least --time of the import job */
#define SUBMIT_IMPORT_MARGIN	120	/* s of it left after the import's
					   timeout (srun ends in it) */
#define SUBMIT_RECONCILE_WAIT	12	/* seconds after sbatch before "none" */

/* One cluster connection and what was learnt about it. */
struct submit_session {
	struct conn		*conn;		/* not owned */
	const struct cluster	*cl;		/* not owned */
	struct preflight	 pf;
	int			 have_pf;	/* pf is valid and ok */
	int			 pf_age;	/* pf is the shared login's kept
						   answer, this old (s); -1 not */
};

void	 submit_session_init(struct submit_session *, struct conn *,
	     const struct cluster *);
/*
 * Run the preflight unless this session already passed it; a pass kept
 * by the shared login less than PREFLIGHT_REUSE seconds ago on the same
 * SSH session is reused (s->pf_age).
 */
int	 submit_preflight(struct submit_session *, int *cached, char **cause);
void	 submit_session_free(struct submit_session *);

/* --- pure parts ---------------------------------------------------------- */

/* "<prefix>-<record id without sd->": unique, names the job and its dir. */
char	*submit_job_name(const char *prefix, const char *record_id);

/*
 * Sidecar text: "NAME='value'" lines (the job sources it with set -a).
 * Refuses a name that is not a shell identifier.
 */
int	 submit_sidecar(const struct lint_secret *, size_t, char **out,
	     char **cause);

/*
 * Where a supporting file goes in the job dir: "files/<path>" for a clean
 * relative path, "files/<base name>" otherwise.
 */
char	*submit_file_member(const char *path);

/* Check round trip: paths to test -e, and the image file to read. */
struct submit_check {
	int		*exists;	/* one per path */
	size_t		 npaths;
	int		 image_exists;
	uint64_t	 image_size;
	unsigned char	 head[IMAGE_SQSH_HEADER];
	size_t		 headlen;
	int		 creds;		/* enroot credentials name the registry */
	struct image_cache_stat cache;	/* owner/mode of a cached image */
};
char	*submit_check_script(const char *const *paths, size_t n,
	     const char *image, const char *registry);
int	 submit_check_parse(const char *out, size_t npaths,
	     struct submit_check *, char **cause);
void	 submit_check_free(struct submit_check *);
/*
 * The image and cache lines of a check's answer, joined as check.sh's
 * imgtxt: what submit.sh's gate compares with the lines validated before.
 */
char	*submit_imgok_text(const char *out);

/* SQDECK_TEST_FAULT, parsed (see above). */
enum submit_fault_kind {
	SUBMIT_FAULT_CUT_BEFORE = 1,
	SUBMIT_FAULT_CUT_AFTER,
	SUBMIT_FAULT_KILL_BEFORE,
	SUBMIT_FAULT_KILL_AFTER,
	SUBMIT_FAULT_STOP_BEFORE,
	SUBMIT_FAULT_STOP_AFTER,
};
#define SUBMIT_FAULT_MAX	4
struct submit_faults {
	struct {
		enum submit_fault_kind	 kind;
		char			 point[16];
		int			 fired;
	}		 v[SUBMIT_FAULT_MAX];
	size_t		 n;
	const char	*launch;	/* "after-sbatch", "empty-reply" or NULL */
};
/* NULL or "" is no fault; an unknown word is an error (a typo in a test). */
int	 submit_faults_parse(const char *, struct submit_faults *,
	     char **cause);

struct submit_convert_args {
	const char	*cache_dir;
	const char	*cache_name;
	const char	*uri;		/* docker://... for enroot import */
	const char	*partition;	/* CPU partition */
	const char	*account;	/* NULL: none */
	const char	*job_name;	/* srun -J, unique */
	int		 timeout;	/* seconds */
	int		 force;		/* convert even if a valid file is there */
	/* The manifest the digest is taken from (issue 12); NULL: none. */
	const char	*digest_registry;
	const char	*digest_repo;
	const char	*digest_ref;	/* tag, or the pinned sha256:... */
	const char	*pinned;	/* sha256:<hex> of a pinned ref */
	long		 max_minutes;	/* partition MaxTime, <= 0 unlimited */
};
enum submit_convert {
	SUBMIT_CONVERT_ERROR = 0,	/* the script did not finish */
	SUBMIT_CONVERT_CACHED,		/* another submit made it meanwhile */
	SUBMIT_CONVERT_CONVERTED,
	SUBMIT_CONVERT_FAILED,		/* enroot failed */
	SUBMIT_CONVERT_TIMEOUT,
	SUBMIT_CONVERT_INVALID,		/* enroot "succeeded", the file is bad */
	SUBMIT_CONVERT_LOCK,		/* the lock was not had in time */
	SUBMIT_CONVERT_QOS,		/* a QOS memory limit refused it twice */
};
struct submit_convert_result {
	enum submit_convert	 verdict;
	int			 rc;	/* srun/enroot exit status, -1 none */
	char			*output;	/* enroot's lines */
	char			*detail;	/* the script's own message */
	char			*qos;	/* QOS memory refusals, one a line */
	uint64_t		 size;
	unsigned char		 head[IMAGE_SQSH_HEADER];
	size_t			 headlen;
	struct image_cache_stat	 cache;	/* the cache file after it */
};
char	*submit_convert_script(const struct submit_convert_args *);
/*
 * The import's timeout (s) and its job's --time (min) from the timeout
 * asked for (<= 0: none, the reservation's) and the CPU partition's
 * MaxTime (<= 0: none): the timeout never outlives the reservation.
 */
void	 submit_import_limits(int asked, int max_minutes, int *timeout,
	     int *minutes);
void	 submit_convert_parse(const char *out, struct submit_convert_result *);
void	 submit_convert_free(struct submit_convert_result *);

/*
 * Launch round trip: cd job_dir, the sbatch command, then (when it printed
 * a job id) mkdir <log_dir>/<job_name>-<id> and scontrol release.  fault
 * is a SQDECK_TEST_FAULT value or NULL.
 */
char	*submit_launch_script(const char *job_dir, const char *sbatch_cmd,
	     const char *log_dir, const char *job_name, const char *fault,
	     int hold);
/* Release script for an adopted job: mkdir the log dir, release, state. */
char	*submit_release_script(long id, const char *log_dir,
	     const char *job_name);
struct submit_launch {
	char	*out;		/* sbatch stdout and stderr */
	char	*err;
	int	 sbatch_rc;	/* -1: never reported */
	int	 released;	/* scontrol release ran and succeeded */
	int	 mkdir_failed;
	char	*release_msg;
	char	*state;		/* squeue %T after release, or NULL */
	char	*reason;
};
void	 submit_launch_parse(const char *text, struct submit_launch *);
void	 submit_launch_free(struct submit_launch *);

enum submit_step {
	SUBMIT_STEP_PREFLIGHT = 0,
	SUBMIT_STEP_CHECK,
	SUBMIT_STEP_IMAGE,
	SUBMIT_STEP_SECRETS,
	SUBMIT_STEP_RECORD,
	SUBMIT_STEP_RENDER,
	SUBMIT_STEP_STAGE,
	SUBMIT_STEP_LAUNCH,
	SUBMIT_NSTEPS
};
const char *submit_step_name(enum submit_step);

struct submit_opts {
	int		 dry_run;	/* stop after render: no remote write */
	int		 hold;		/* leave the job held (--hold) */
	/*
	 * The record id of a dry run shown before (the wizard's preview):
	 * the job gets the name and job dir it showed.  NULL: a new one.
	 */
	const char	*record_id;
	int		 import_timeout;	/* 0: SQDECK_IMPORT_TIMEOUT or
						   the reservation's */
	/* Secret values by name; NULL: getenv. */
	const char	*(*secret)(const char *name, void *arg);
	/* Each step as it happens (may be NULL). */
	void		 (*progress)(void *arg, enum submit_step,
			     const char *text);
	void		*arg;
};

enum submit_image_action {
	SUBMIT_IMAGE_SQSH = 0,		/* a given .sqsh, validated */
	SUBMIT_IMAGE_CACHED,		/* the cache had a valid file */
	SUBMIT_IMAGE_CONVERTED,		/* converted now */
	SUBMIT_IMAGE_WOULD_CONVERT,	/* dry run, not in the cache */
};

struct submit_result {
	char			*record_id;
	char			*job_name;
	char			*job_dir;
	char			*sbatch_path;
	char			*env_path;	/* NULL: no secrets, no sidecar */
	char			*slurm_id;
	char			*state;		/* record state name */
	char			*native;	/* squeue state */
	char			*image;		/* display form */
	char			*image_sqsh;	/* the .sqsh the job uses */
	char			*import_job;	/* srun -J of the conversion */
	enum submit_image_action image_action;
	enum container_mode	 container;
	char			*script;	/* rendered sbatch script */
	struct strv		 secrets;	/* names only */
	int			 ambiguous;	/* the first reply was unusable */
	int			 adopted;	/* ...and the job was found */
	int			 resubmitted;	/* ...none found, sent again */
	int			 resumed;	/* an interrupted submit of this
						   spec had queued it: record_id
						   and slurm_id are that one's */
	int			 recovered;	/* interrupted records finished */
	enum submit_step	 failed_step;	/* when submit_run returned -1 */
	int			 failed;
};

/*
 * The whole pipeline for one spec.  Returns 0 when the job was launched
 * (or, for a dry run, rendered), -1 and a cause otherwise; res says how
 * far it got and must be freed.
 */
int	 submit_run(struct submit_session *, const struct spec *,
	     const struct submit_opts *, struct submit_result *, char **cause);
void	 submit_result_free(struct submit_result *);

/*
 * Finish the interrupted submits of the session's cluster (see the test
 * hook comment above).  spec_sha (may be NULL) is the sha256 of the spec
 * being submitted: a finished record of that spec whose job exists is
 * returned in *resume, one that is left unresolved and may have a job in
 * *blocked (both allocated, NULL if none; either may be a NULL pointer).
 * Returns how many records were finished, or -1 and a cause when the
 * records cannot be read; records that cannot be finished now (the
 * cluster unreachable) are left for the next call.
 */
int	 submit_recover(struct submit_session *, const struct submit_opts *,
	     const char *spec_sha, char **resume, char **blocked,
	     char **cause);
/*
 * The jobs named exactly name, squeue first then sacct -S sent (as the
 * ambiguous submit does), leaving out the ids in skip.  Returns how many
 * (the first in *idp), or -1 with a cause.
 */
int	 submit_find_by_name(struct conn *, const char *name, time_t sent,
	     const long *skip, size_t nskip, long *idp, char **cause);
/* The sha256 a submit of sp to cluster keys its lock file with. */
void	 submit_spec_sha(const struct spec *, const char *cluster,
	     char out[65]);
const char *submit_image_action_name(enum submit_image_action);

#endif
