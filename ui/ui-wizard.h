#ifndef UI_WIZARD_H
#define UI_WIZARD_H

#include <stddef.h>

#include "config.h"
#include "msgq.h"
#include "spec.h"
#include "ui-keys.h"
#include "util.h"

/*
 * The submit wizard's model (no curses: ui.c draws it).  Three pages:
 *
 *	form	 one text field per line, validated on every key with the
 *		 same functions the CLI uses (spec_parse_time,
 *		 spec_parse_mount, image_parse, uri_resolve, spec_validate,
 *		 plan_make against the cluster's real partitions and their
 *		 MaxTime); Enter on the last field asks for the preview
 *	preview	 the sbatch script rendered by a dry run of the submit
 *		 pipeline in the cluster's worker; Enter submits
 *	progress each step of the real submit as the worker reports it; a
 *		 failure goes back to the form with the message and the
 *		 field to fix, every value kept
 *
 * The values stay when the wizard is closed, so `n` reopens it as it was.
 */

enum wizard_page {
	WIZ_FORM,
	WIZ_PREVIEW,
	WIZ_PROGRESS,
};

enum wizard_field {
	WF_CLUSTER,
	WF_USER,
	WF_NAME,
	WF_PARTITION,
	WF_TIME,
	WF_NODES,
	WF_GPUS,
	WF_CPUS,
	WF_IMAGE,
	WF_COMMAND,
	WF_DATASETS,
	WF_MOUNTS,
	WF_NETWORK_ARCH,	/* the record's network_arch */
	WF_ACTION,		/* ... and action */
	WF_REQUEUE,		/* yes/no: #SBATCH --requeue */
	WF_RETRY_BUDGET,	/* infra retries (sqdeck(1): retries) */
	WF_FORCE_RECONVERT,	/* yes/no: convert even a cached :latest */
	WF_AFTER,		/* job ids it waits for (spec's after:) */
	WF_ARRAY,		/* sbatch --array (array.h), empty: one job */
	WF_SECRETS,		/* stays last: Enter there asks the preview */
	WF_COUNT
};

/* What the wizard knows of a cluster (pointers owned by the caller). */
struct wizard_cluster {
	const char		*name;
	const struct cluster	*conf;		/* NULL: not configured */
	const struct strv	*partitions;	/* "name MaxTime" from sinfo */
};

/* What the caller must do after a key. */
enum wizard_req {
	WREQ_NONE = 0,
	WREQ_REDRAW,
	WREQ_CLOSE,		/* hide the wizard (values kept) */
	WREQ_PREVIEW,		/* build the spec, dry-run it in the worker */
	WREQ_SUBMIT,		/* build the spec, submit it in the worker */
};

struct wizard {
	enum wizard_page	 page;
	int			 field;		/* current field */
	struct buf		 value[WF_COUNT];
	char			*error[WF_COUNT];	/* NULL: valid */
	char			*banner;	/* what failed last, to fix */
	int			 banner_err;
	int			 opened;	/* defaults were filled */
	size_t			 cursor;	/* byte offset in the field */
	int			 cursor_field;	/* -1: at the end of it */

	/*
	 * A resubmit (e) starts from the job's staged spec: what the form
	 * does not show (files, env, requeue, ...) is kept from it, and a
	 * multi-line command stays as written unless its field is edited
	 * (the field shows it joined by "; ").
	 */
	char			*base;		/* the spec as YAML, or NULL */
	char			*command_full;
	char			*command_shown;

	struct wizard_cluster	*cl;		/* set by wizard_set_clusters */
	size_t			 ncl;

	struct strv		 preview;	/* script lines */
	/*
	 * The preview's record id: Enter on the preview submits with it, so
	 * the job gets the name the preview showed (issue 26.11).
	 */
	char			*preview_rid;
	size_t			 preview_top;
	int			 waiting;	/* a dry run or submit runs */
	struct strv		 progress;	/* "step: message" lines */
	int			 finished;	/* the submit succeeded */
	char			*job_id;
	char			*job_cluster;

	/* SLURM's start estimate for the form's request (soonest.h). */
	char			*soonest_key;	/* the request last asked */
	char			*soonest_cl;	/* and of which cluster */
	char			*soonest;	/* its answer, NULL: none */
	int			 soonest_err;
};

void	 wizard_init(struct wizard *);
void	 wizard_free(struct wizard *);
/* The clusters to choose from (copied array; strings stay the caller's). */
void	 wizard_set_clusters(struct wizard *, const struct wizard_cluster *,
	     size_t n);
/*
 * Open on the form.  A first open (or fresh) fills every field with the
 * defaults of cluster (config, then the environment); otherwise the
 * values are kept.
 */
void	 wizard_open(struct wizard *, const char *cluster, int fresh);
/* Fill the fields from a spec (resubmit with edits). */
void	 wizard_from_spec(struct wizard *, const struct spec *,
	     const char *cluster);

const char *wizard_label(enum wizard_field);
/* Help for a field: choices (partitions with MaxTime), format, ...
 * Returns a new string. */
char	*wizard_hint(const struct wizard *, enum wizard_field);

/* Check every field; returns the number of invalid ones. */
int	 wizard_validate(struct wizard *);
/* The spec of the form (valid or not: -1 and the first error). */
int	 wizard_build(const struct wizard *, struct spec *, char **cause);
/* The chosen cluster's name (may not exist). */
const char *wizard_cluster(const struct wizard *);
/*
 * The login user the submit connects as: the form's SLURM_USER when it
 * differs from the cluster's configured one, else NULL (the cluster's).
 */
const char *wizard_user(const struct wizard *);

/* Which key it was, for actions bound to several (Enter and Down). */
enum wizard_keyname {
	WK_OTHER = 0,
	WK_ENTER,
	WK_LEFT,
	WK_RIGHT,
	WK_PAGE_UP,
	WK_PAGE_DOWN,
};

/*
 * A key: its keymap action (UIA_NONE when unbound) and which key it was.
 * Text is typed with wizard_type().
 */
enum wizard_req wizard_key(struct wizard *, enum uiact, enum wizard_keyname);
/* Text typed into the current field at the cursor (UTF-8). */
void	 wizard_type(struct wizard *, const char *, size_t);
/* Where the cursor is in the current field (a byte offset). */
size_t	 wizard_cursor(const struct wizard *);

/*
 * Where would it start soonest: when the form's cluster and resources
 * (time, nodes, gpus, cpus) parse and differ from those last asked about,
 * fill sp with them (spec_free it) and return 1: the caller asks the
 * worker (sbatch --test-only per partition) and then calls
 * wizard_soonest_asked().  0 when there is nothing new to ask.
 */
int	 wizard_soonest_want(const struct wizard *, struct spec *sp);
void	 wizard_soonest_asked(struct wizard *, const char *cluster);
/*
 * The cluster last asked, NULL: none since the last wizard_soonest_forgot,
 * which forgets it, the request and its answer (the next key asks again).
 */
const char *wizard_soonest_cluster(const struct wizard *);
void	 wizard_soonest_forgot(struct wizard *);
/* The worker's answer (ACTION_OTHER step "soonest"). */
void	 wizard_soonest_got(struct wizard *, const char *text, int failed);

/* The request was queued: show its page and wait for the worker. */
void	 wizard_start(struct wizard *, int submit);
/* The caller could not queue the request: back to the form with it. */
void	 wizard_failed(struct wizard *, const char *message);
/* Apply an ACTION_SUBMIT message; returns 1 if it was the wizard's. */
int	 wizard_action(struct wizard *, const struct msg_action *);

#endif
