#ifndef GPUUSE_H
#define GPUUSE_H

#include <stddef.h>

/*
 * The GPU use of a running job: templates/remote/gpu.sh runs one srun
 * --overlap step on each of its nodes asking nvidia-smi, and its reply is
 * read here.  Pure; the reply is untrusted text from the cluster.
 */
/* One GPU of a running job, from nvidia-smi's CSV (noheader,nounits). */
struct gpuuse_row {
	char	*node;
	int	 index;
	char	*name;
	int	 util;		/* percent, -1: "[N/A]" or "[Not Supported]" */
	long	 used;		/* MiB, -1: not known */
	long	 total;		/* MiB, -1: not known */
};
struct gpuuse_reply {
	char		*state;		/* squeue's, "" when SLURM has no such
					   job */
	int		 running;
	int		 rc;		/* srun's exit status */
	struct gpuuse_row	*v;
	size_t		 n;
	char		**missing;	/* nodes without nvidia-smi */
	size_t		 nmissing;
	char		*said;		/* any other line (srun's, nvidia-smi's
					   errors), sanitised, or NULL */
};
/*
 * gpu.sh's reply: "state STATE NODES", "rc RC", then "NODE, index, name,
 * util, used, total" a GPU or "NODE, -" a node without nvidia-smi.
 */
int	 gpuuse_parse(const char *, struct gpuuse_reply *, char **cause);
/*
 * One nvidia-smi CSV line (--query-gpu=index,name,utilization.gpu,
 * memory.used,memory.total --format=csv,noheader,nounits, optionally
 * after "NODE, "): 0, or -1 when it is not one.
 */
int	 gpuuse_parse_line(const char *line, int with_node, struct gpuuse_row *);
/*
 * One number cell of nvidia-smi's CSV, len bytes: "35", "35 %" or "1234
 * MiB" give the number, "[N/A]" and "[Not Supported]" (a value the GPU
 * does not report) -1; 0, or -1 returned when it is neither.
 */
int	 gpuuse_cell(const char *, size_t len, long *out);
void	 gpuuse_row_free(struct gpuuse_row *);
void	 gpuuse_free(struct gpuuse_reply *);
/* "sdn1 GPU 0 NVIDIA A100 util 35% memory 1234/40960 MiB" lines. */
char	*gpuuse_text(const struct gpuuse_reply *);

#endif
