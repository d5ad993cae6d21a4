#ifndef SUBMIT_INT_H
#define SUBMIT_INT_H

/*
 * Private to the submit step files (submit*.c): the context one submit
 * carries from step to step, the helpers every step uses, and each
 * step's entry.  submit.c walks the steps (its table says which run in a
 * dry run and where the SQDECK_TEST_FAULT points are).
 */
#include "submit.h"

#include "jobdir.h"
#include "nccl.h"
#include "plan.h"

#define SUBMIT_FILE_MAX	(8 * 1024 * 1024)	/* "small" auxiliary inputs */

struct submit_ctx {
	struct submit_session		*s;
	const struct spec		*sp;
	const struct submit_opts	*o;
	struct submit_result		*res;
	struct image_ref		 img;
	struct plan			 plan;
	struct jobdir			 lay;
	char				*record_id;
	char				*results_root;
	struct lint_secret		*sec;
	size_t				 nsec;
	int				 pf_cached;	/* preflight was had */
	int				 record_open;
	struct nccl_job			 nccl;	/* probe or cached setting */
	struct buf			*files;	/* contents, one per spec file */
	char				**members;	/* their tar names */
	struct submit_check		 ck;	/* the check's answer */
	char				*image_file;	/* the .sqsh checked */
	struct strv			 paths;	/* the check's, to test -e */
	struct strv			 what;	/* what each is, for errors */
	int				 gates;	/* image steps of the gate */
	int				 go_faults;	/* the round trip's test
							   faults were applied */
	int				 discard;	/* nothing was written
							   remotely: no record */
	struct strv			 exports;	/* EXTRA_ENV lines */
	/* Interrupted submits (see submit.h). */
	struct submit_faults		 faults;
	/* The running step's fault point, for its round trip. */
	const char			*point;
	int				 lockfd;	/* records/.submit-ID.lock */
	char				*lockpath;
	char				 spec_sha[65];
	int				 staged;	/* the stage was sent */
	const char			*unresolved;	/* "submit:reconcile" or
							   "submit:release" */
};

/* Step return values besides -1 (failed, res->failed_step says where). */
#define SUBMIT_NEXT	0
#define SUBMIT_DONE	1	/* nothing left to do: the walk ends, ok */

/* submit.c: progress, failure, the remote command of a fault point. */
void	 submit_say(struct submit_ctx *, enum submit_step, const char *, ...)
	     __attribute__((format(printf, 3, 4)));
int	 submit_fail(struct submit_ctx *, enum submit_step, char **cause,
	     const char *, ...) __attribute__((format(printf, 4, 5)));
int	 submit_preflight_refresh(struct submit_session *, char **cause);
enum submit_fault_kind submit_fault_hit(struct submit_faults *,
	     const char *point, int after, int remote);
/* rsh_run with the faults of point applied; plain: body is a command. */
int	 submit_remote_cmd(struct submit_faults *, const char *point,
	     struct conn *, const char *body, int plain, int timeout,
	     struct conn_result *, char **cause);
int	 submit_remote(struct submit_faults *, const char *point,
	     struct conn *, const char *body, int timeout,
	     struct conn_result *, char **cause);
/* The same for the running step, with its point (x->point). */
int	 submit_xremote(struct submit_ctx *, const char *body, int timeout,
	     struct conn_result *, char **cause);
/* Lines gathered by the reply parsers; NULL for none. */
void	 submit_addline(struct buf *, const char *);
char	*submit_lines(struct buf *);

/* The steps, in the order of submit.c's table. */
int	 submit_step_local(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_values(struct submit_ctx *, char **);	/* secrets.c */
int	 submit_step_files(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_preflight(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_plan(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_recover(struct submit_ctx *, char **);	/* recover.c */
int	 submit_step_where(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_check(struct submit_ctx *, char **);	/* check.c */
int	 submit_step_image(struct submit_ctx *, char **);	/* image.c */
int	 submit_step_secrets(struct submit_ctx *, char **);	/* secrets.c */
int	 submit_step_nccl(struct submit_ctx *, char **);	/* render.c */
int	 submit_step_record(struct submit_ctx *, char **);	/* recover.c */
int	 submit_step_pending(struct submit_ctx *, char **);	/* render.c */
int	 submit_step_render(struct submit_ctx *, char **);	/* render.c */
int	 submit_step_stage(struct submit_ctx *, char **);	/* stage.c */
int	 submit_step_launch(struct submit_ctx *, char **);	/* launch.c */

/* submit-check.c: the check's answer, its missing paths, its message. */
int	 submit_check_missing(struct submit_ctx *, char **cause);
void	 submit_check_say(struct submit_ctx *);
const char *submit_check_registry(struct submit_ctx *);
/* submit-stage.c: stage.sh's variables (the tar with the sidecar). */
int	 submit_stage_vars(struct submit_ctx *, struct buf *, char **cause);
int	 submit_stage_parse(struct submit_ctx *, const char *out, int status,
	     const char *err, char **cause);
/* submit-image.c: the checked lines a later submit's gate compares. */
char	*submit_imgok_load(struct submit_ctx *);
void	 submit_imgok_save(struct submit_ctx *, const char *text);
/* submit-image.c */
char	*submit_cache_dir(struct submit_ctx *);
/* submit-launch.c: jobs named exactly name (squeue, then sacct). */
int	 submit_lookup(struct submit_faults *, struct conn *, const char *name,
	     time_t sent, long *idp, char **cause);
/* submit-secrets.c: remove a sidecar (0: known gone); the failed
   submit's own (-1: it may still be there). */
int	 submit_rm_sidecar(struct submit_faults *, struct conn *,
	     const char *path);
int	 submit_wipe(struct submit_ctx *);
/* submit-recover.c */
int	 submit_recover_f(struct submit_session *, const struct submit_opts *,
	     struct submit_faults *, const char *spec_sha, char **resume,
	     char **blocked, char **cause);

#endif
