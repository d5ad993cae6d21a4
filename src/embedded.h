#ifndef EMBEDDED_H
#define EMBEDDED_H

/* Files compiled into the binary by scripts/embed (templates, probe). */
struct embedded_file {
	const char *name;	/* relative to templates/, e.g. "slurm/singlenode.sbatch.tmpl" */
	const char *data;
};

extern const struct embedded_file embedded_files[];	/* ends with { 0, 0 } */

#endif
