#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stddef.h>

#include "util.h"

/*
 * sbatch templates (sqdeck(1): submit): every @@NAME@@ is replaced.  The
 * renderer knows the kind of every variable and quotes or checks the value
 * itself, so a caller passes plain values and never quotes:
 *
 *	JOB_NAME PARTITION		#SBATCH value: [A-Za-z0-9._,:/+=@-]
 *	LOG_DIR				#SBATCH value, absolute path
 *	TIME				SLURM time: digits, ':' and '-'
 *	NUM_NODES CPUS_PER_TASK		integer >= 1
 *	NUM_GPUS			integer >= 0, GPUs per node
 *	REQUEUE				"1": #SBATCH --requeue, "0": --no-requeue
 *	SBATCH_EXTRA			#SBATCH lines (template_sbatch_line())
 *	IMAGE				absolute .sqsh path, or "" for no
 *					container (mode none); shell-quoted
 *	CONTAINER_MOUNTS		shell-quoted (Pyxis SRC:DST[:ro],...)
 *	COMMAND				shell-quoted, not empty; the step runs
 *					it with bash -c
 *	ENV_FILE			"" or absolute path; shell-quoted
 *	RESULTS_DIR			"" or absolute path; shell-quoted; the
 *					script writes status.json there when
 *					the workload did not (its verdict)
 *	EXTRA_ENV			export lines (template_export_lines())
 *	PRE_STEP			shell lines written by our own code,
 *					run before the main step (NCCL probe)
 *
 * The line kinds (REQUEUE, SBATCH_EXTRA, EXTRA_ENV, PRE_STEP) must stand
 * alone on their line; an empty value removes the line.
 *
 * Errors: a placeholder the renderer does not know, a placeholder with no
 * value (leftover), a variable set that the renderer does not know, a value
 * that does not fit its kind.  A known variable that the template does not
 * use is fine (NUM_NODES for the single-node template).
 */

struct template_var {
	char	*name;
	char	*value;
};

struct template_vars {
	struct template_var	*v;
	size_t			 n;
};

void	 template_vars_init(struct template_vars *);
void	 template_vars_free(struct template_vars *);
/* Set (or replace) a variable; value is copied. */
void	 template_set(struct template_vars *, const char *name,
	     const char *value);
void	 template_setf(struct template_vars *, const char *name,
	     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Render text; name is used in messages ("slurm/singlenode.sbatch.tmpl"). */
int	 template_render(const char *name, const char *text,
	     const struct template_vars *, char **out, char **cause);

/* A file compiled into the binary ("slurm/multinode.sbatch.tmpl"), or NULL. */
const char *template_embedded(const char *name);
/* template_render() on an embedded file. */
int	 template_render_embedded(const char *name,
	     const struct template_vars *, char **out, char **cause);

/* The template for a node count: single-node for 1, multi-node above. */
const char *template_sbatch_name(int nodes);

/*
 * Append "#SBATCH --option" or "#SBATCH --option=value" and a newline to b
 * (for SBATCH_EXTRA: account, exclude, exclusive, constraint...).  Refuses
 * values an #SBATCH line cannot carry safely.
 */
int	 template_sbatch_line(struct buf *, const char *option,
	     const char *value, char **cause);
/*
 * Lines "export NAME='value'" for each "NAME=value" in sv (for EXTRA_ENV).
 * Refuses a name that is not a shell identifier.
 */
int	 template_export_lines(const struct strv *, char **out, char **cause);

#endif
