#ifndef EMBEDDED_H
#define EMBEDDED_H

#include <stddef.h>

/* Files compiled into the binary by tools/embed (templates, probe). */
struct embedded_file {
	const char *name;	/* relative to templates/, e.g. "slurm/singlenode.sbatch.tmpl" */
	const char *data;
	size_t len;		/* bytes in data, without the final NUL */
};

extern const struct embedded_file embedded_files[];	/* ends with { 0, 0, 0 } */

#endif
