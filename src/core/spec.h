#ifndef SPEC_H
#define SPEC_H

#include <stddef.h>

#include "util.h"

/*
 * The job spec: the YAML a user writes or the wizard produces, staged as
 * <job_dir>/specs/spec.yaml (sqdeck(1): IMAGES AND STORAGE).  Parsing checks
 * shapes and names; the image and uri modules check images and datasets, plan
 * checks resources against the cluster.  Secret VALUES never appear here:
 * secrets are names whose values come from the environment at submit time
 * (README: secrets).
 */

#define SPEC_RETRY_BUDGET	2	/* default retries of infra failures */
#define SPEC_NAME_MAX		64
/* The count limits the spec, the CLI and the wizard share (issue 26.12). */
#define SPEC_NODES_MAX		1024
#define SPEC_GPUS_MAX		8192
#define SPEC_CPUS_MAX		1024

struct spec_mount {
	char	*src;		/* absolute path on the cluster */
	char	*dst;		/* absolute path in the container */
	int	 ro;		/* 1: read-only */
};

struct spec_env {
	char	*name;		/* shell identifier */
	char	*value;
};

struct spec_file {
	char	*path;		/* local supporting file */
	char	*sha256;	/* 64 lower-case hex digits */
};

struct spec {
	char			*path;		/* file read, NULL if none */
	char			*name;		/* job name prefix, NULL: "sqdeck" */
	char			*image;		/* required */
	char			*command;	/* required */
	char			*network_arch;
	char			*action;
	struct strv		 datasets;	/* lustre:// URIs, as written */
	struct spec_mount	*mounts;
	size_t			 nmounts;
	int			 nodes;		/* 0: unset */
	int			 gpus;		/* total, -1: unset */
	int			 gpus_per_node;	/* 0: unset */
	int			 cpus;		/* per task, 0: unset */
	int			 time_minutes;	/* 0: unset */
	int			 time_seconds;	/* as written, 0: unknown */
	const char		*time_knob;	/* what messages tell the user to
						   change: NULL "--time" */
	char			*partition;
	struct spec_env		*env;
	size_t			 nenv;
	struct strv		 secrets;	/* names only */
	struct spec_file	*files;
	size_t			 nfiles;
	int			 requeue;	/* -1 unset, 0, 1 */
	int			 retry_budget;
	int			 force_reconvert;
	char			*cluster;
	/*
	 * after: the SLURM jobs this one waits for, as #SBATCH --dependency
	 * (spec_dependency): "after: [12, 13]" or "after: {ok: [12]}" start
	 * it once they all completed (afterok), "after: {any: [14]}" once
	 * they ended in any way (afterany).  Job ids or array tasks ("12_3").
	 */
	struct strv		 after_ok;
	struct strv		 after_any;
	/*
	 * array: sbatch --array ("0-99%4", array.h), NULL: one job.  Each
	 * task writes <log_dir>/<name>-<array id>/main_<task>.out.
	 */
	char			*array;
};

/* An empty spec with every field unset (call before filling one by hand). */
void	 spec_init(struct spec *);
void	 spec_free(struct spec *);

/* Parse YAML text; name is used in messages ("job.yaml:3:5: ..."). */
int	 spec_parse(const char *text, size_t len, const char *name,
	     struct spec *, char **cause);
int	 spec_load(const char *path, struct spec *, char **cause);
/*
 * Check a spec built by hand (the wizard) with the same rules as the
 * parser, without line numbers.
 */
int	 spec_validate(const struct spec *, char **cause);
/* Emit YAML that spec_parse reads back to the same spec. */
int	 spec_write(const struct spec *, struct buf *, char **cause);
/*
 * A job's staged spec (the job can rewrite it) made ready for a resubmit:
 * refused when it holds a NUL byte or does not parse (never passed on as
 * text), else written back (spec_write) with exactly the secret names
 * given, those the local record kept (NULL: none).
 */
int	 spec_resubmit_text(const char *text, size_t len, const char *name,
	     const struct strv *secrets, struct buf *, char **cause);

/*
 * Time: "4h", "90m", "1h30m", "3:30:00", "2-00:00:00" or a number of hours
 * ("4", "3.5").  Seconds round up to whole minutes (SLURM's unit).
 */
int	 spec_parse_time(const char *, int *minutes, char **cause);
/* The same, and the seconds as written (4:00:01 is 241 minutes, 14401 s). */
int	 spec_parse_time_exact(const char *, int *minutes, int *seconds,
	     char **cause);
/* "SRC:DST[:ro|:rw]" with absolute paths. */
int	 spec_parse_mount(const char *, struct spec_mount *, char **cause);
/* Add to a hand-built spec, validated. */
int	 spec_add_mount(struct spec *, const char *, char **cause);
int	 spec_add_env(struct spec *, const char *name, const char *value,
	     char **cause);
/* The mounts in Pyxis --container-mounts form: "a:b,c:d:ro" ("" if none). */
char	*spec_mounts_string(const struct spec *);
/*
 * The value of sbatch --dependency for the spec's after: lists
 * ("afterok:12:13,afterany:14"), or NULL when it has none.  Free it.
 */
char	*spec_dependency(const struct spec *);
/* Names that look like secrets (HF_TOKEN, *_API_KEY...): not for env. */
int	 spec_secret_name(const char *);

#endif
