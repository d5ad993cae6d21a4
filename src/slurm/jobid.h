#ifndef JOBID_H
#define JOBID_H

#include <stddef.h>

/*
 * What a job argument names, the one answer for the verbs, the TUI's
 * workers, the job table and the parsers: a SLURM job ("12", also a whole
 * array by its job id), one array task ("12_3"), tasks of an array
 * ("12_[4-9,11:2%2]", as squeue shows pending ones; scancel and scontrol
 * hold and release take it as it is), or else a sqdeck record
 * ("sd-20261129T164500-1a2b3c"; record.h says whether one exists).
 * SLURM 26.05 gives every job a SLUID too, "s" and 13 characters of
 * Crockford's base32 (sacct -o SLUID; squeue -O SLUID), which its
 * commands take wherever they take a job id (README.md, "SLURM
 * releases"); the numeric id stays what squeue %A and sacct JobIDRaw
 * print.
 */
enum jobid_kind {
	JOBID_BAD,	/* empty; digits that are no job id (0, over 2^32-1);
			   digits, '_' and no task list SLURM takes */
	JOBID_JOB,	/* "12" */
	JOBID_TASK,	/* "12_3" */
	JOBID_RANGE,	/* "12_[4-9]", "12_[3]" */
	JOBID_SLUID,	/* "sFMSM8SXV8E000": 26.05's other name of a job */
	JOBID_RECORD,	/* anything else */
};

struct jobid {
	enum jobid_kind	 kind;
	unsigned long	 job;	 /* JOB, TASK, RANGE: the job id */
	size_t		 joblen; /* its digits at the start of the argument */
	const char	*tasks;	 /* TASK, RANGE: after the '_' ("3", "[4-9]") */
	long		 ntasks; /* TASK 1, RANGE how many it stands for */
};

/* Fill j (kind always set) and return its kind. */
enum jobid_kind	 jobid_parse(const char *s, struct jobid *j);
/* A task list after the '_': "3" 1, "[4-9,11%2]" 7; 0 if malformed. */
long		 jobid_ntasks(const char *tasks);
/* "s" and 13 of 0-9 A-Z but I L O U (either case): a SLUID. */
int		 jobid_is_sluid(const char *s);
/* A job, a task, tasks or a SLUID: what scancel and scontrol take. */
int		 jobid_slurm(const struct jobid *j);

#endif
