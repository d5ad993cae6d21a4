#ifndef GRES_H
#define GRES_H

#include <stddef.h>

/*
 * Free GPUs per partition (issue 15.4), from one sinfo per node and
 * partition with Gres and GresUsed ("gpu:4", "gpu:a100:4(S:0-1)";
 * "gpu:0", "gpu:(null):2(IDX:0-1)", "gpu:a100:2(IDX:0,2)").  A node that
 * is down, drained or failing has no idle GPU.  Pure apart from running
 * the command.
 */

struct gres_part {
	char	*name;
	int	 idle;		/* GPUs not allocated on usable nodes */
	int	 total;		/* GPUs on every node of the partition */
};

struct gres_parts {
	struct gres_part	*v;
	size_t			 n;
};

char	*gres_cmd(void);
/* -1 and a cause names the first bad line; the good lines are kept. */
int	 gres_parse(const char *text, struct gres_parts *, char **cause);
void	 gres_free(struct gres_parts *);
/* GPUs in a Gres / GresUsed list ("gpu:2,fpga:1" -> 2); -1 if bad. */
int	 gres_gpus(const char *);

#endif
