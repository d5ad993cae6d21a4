#ifndef EFF_H
#define EFF_H

/*
 * Efficiency of an ended job (issue 15.6), as seff computes it, from ONE
 * sacct call with the job's steps: CPU time used of the CPU time
 * allocated, peak memory (the largest MaxRSS of any step) of the memory
 * requested, elapsed of the time limit; and a hint when the request was
 * far larger than the use (the next submit could ask for less and start
 * sooner).  Pure, apart from the caller running the command.
 */

#define EFF_FIELDS \
	"JobIDRaw State AllocCPUS ElapsedRaw TimelimitRaw TotalCPU ReqMem " \
	"MaxRSS ExitCode"

/* SLURM's YEAR_MINUTES: what its backfill sets for "no time limit". */
#define EFF_YEAR_MINUTES	525600

struct eff {
	char		*state;		/* the allocation's state */
	int		 cpus;		/* AllocCPUS, 0 unknown */
	long		 elapsed;	/* seconds, -1 unknown */
	long		 limit;		/* seconds, -1 unknown or unlimited
					   (also 365 days: EFF_YEAR_MINUTES) */
	double		 cpu_used;	/* TotalCPU seconds, -1 unknown */
	long long	 req_mem;	/* bytes requested, -1 unknown */
	long long	 peak_mem;	/* bytes, -1 never sampled */
	double		 cpu_pct;	/* -1 unknown */
	double		 mem_pct;
	double		 time_pct;
	char		*hint;		/* NULL: the request fitted */
	char		*exit_code;	/* "code:signal", NULL unknown */
};

/* sacct for the job id (with its steps); NULL and a cause for a bad id. */
char	*eff_cmd(long id, char **cause);
/* Parse that output and compute; -1 and a cause if the job is not in it. */
int	 eff_parse(const char *text, long id, struct eff *, char **cause);
void	 eff_free(struct eff *);
/* Sizes as sacct prints them ("250G", "11916K", "1000Mc", "0"); -1 bad. */
long long eff_size(const char *);
/* TotalCPU ("00:01.985", "1:02:03", "2-01:00:00"); -1 bad. */
double	 eff_cpu_time(const char *);
/* "cpu 93% of 1, memory 12M of 250G (0%), time 0:04 of 1:00:00 (0%)". */
char	*eff_text(const struct eff *);

#endif
