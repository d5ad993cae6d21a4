#include "pending.h"

#include <string.h>

#include "util.h"

struct pending_rule {
	const char	*code;
	int		 prefix;	/* match code as a prefix */
	const char	*sentence;
	const char	*fix;
};

/* Exact codes first; prefixed families after them. */
static const struct pending_rule rules[] = {
	{ "Priority", 0,
	  "Other jobs with a higher priority are ahead of it in the queue.",
	  "Wait, or ask for fewer resources or a shorter time so that "
	  "backfill can start it earlier." },
	{ "Resources", 0,
	  "It is next in line but the nodes, GPUs or memory it asks for are "
	  "busy.",
	  "Wait for running jobs to end, or ask for fewer GPUs/nodes or "
	  "another partition with idle GPUs." },
	{ "Dependency", 0,
	  "It waits for the job(s) it depends on (--dependency) to end.",
	  "Nothing to do if those jobs are running; check them with "
	  "sqdeck status." },
	{ "DependencyNeverSatisfied", 0,
	  "A job it depends on ended in a way the dependency does not accept: "
	  "it will never start.",
	  "Cancel it and submit again without that dependency." },
	{ "PartitionTimeLimit", 0,
	  "Its time limit is above the partition's MaxTime: it will never "
	  "start there.",
	  "Cancel it and submit again with a shorter time (see the "
	  "partition's MaxTime in the wizard)." },
	{ "PartitionNodeLimit", 0,
	  "It asks for more nodes than the partition allows per job.",
	  "Cancel it and submit again with fewer nodes or to another "
	  "partition." },
	{ "PartitionDown", 0,
	  "The partition is down: no job starts in it now.",
	  "Wait for the admins, or submit again to another partition." },
	{ "PartitionInactive", 0,
	  "The partition is inactive: no job starts in it now.",
	  "Submit again to another partition." },
	{ "ReqNodeNotAvail", 0,
	  "Some node it needs is down, drained or reserved (often for "
	  "maintenance).",
	  "Wait for the maintenance to end, or cancel and submit again with a "
	  "time that ends before the reservation starts." },
	{ "NodeDown", 0,
	  "A node it needs is down.",
	  "Wait, or submit again excluding that node." },
	{ "BeginTime", 0,
	  "It was submitted with a start time (--begin) still in the future.",
	  "Wait for that time, or scontrol update job ID StartTime=now." },
	{ "JobHeldUser", 0,
	  "You (or a script) put it on hold.",
	  "Release it with scontrol release ID, or cancel it." },
	{ "JobHeldAdmin", 0,
	  "An administrator put it on hold.",
	  "Ask the cluster's admins why; only they can release it." },
	{ "Reservation", 0,
	  "It waits for the reservation it asked for to start.",
	  "Wait, or submit again without --reservation." },
	{ "InvalidAccount", 0,
	  "The account it was submitted with is invalid for you.",
	  "Cancel it and submit again with a valid account (the cluster's "
	  "account setting)." },
	{ "InvalidQOS", 0,
	  "The QOS it was submitted with is invalid for you.",
	  "Cancel it and submit again with a valid QOS." },
	{ "BadConstraints", 0,
	  "No node matches its constraints (--constraint, GRES, memory).",
	  "Cancel it and submit again with a request some node can meet." },
	{ "launch failed requeued held", 0,
	  "Its launch failed; SLURM requeued it and held it.",
	  "Look at the log, then scontrol release ID (or cancel it)." },
	{ "Licenses", 0,
	  "The licenses it asks for are in use.",
	  "Wait for other jobs to release them." },
	{ "Cleaning", 0,
	  "SLURM is still cleaning up its previous run before requeueing it.",
	  "Wait a moment." },
	{ "QOSMaxGRESPerUser", 0,
	  "You already use as many GPUs as your QOS allows at once.",
	  "Wait for your running jobs to end, or ask for fewer GPUs." },
	{ "AssocGrpGRES", 0,
	  "Your account (association) already uses all the GPUs it may use "
	  "at once.",
	  "Wait for jobs of your account to end, or ask for fewer GPUs." },
	{ "QOSMaxJobsPerUserLimit", 0,
	  "You already have as many running jobs as your QOS allows.",
	  "Wait for one of your jobs to end." },
	{ "QOSMaxSubmitJobPerUserLimit", 0,
	  "You already have as many queued jobs as your QOS allows.",
	  "Wait for one of your jobs to end, or cancel one." },
	{ "QOSMaxWallDurationPerJobLimit", 0,
	  "Its time limit is above what your QOS allows: it will never start.",
	  "Cancel it and submit again with a shorter time." },
	{ "AssocMaxJobsLimit", 0,
	  "Your account already has as many running jobs as it may.",
	  "Wait for one of its jobs to end." },
	{ "AssocGrp", 1,
	  "Your account (association) has reached one of its group limits "
	  "(CPUs, memory, GPUs, jobs or minutes).",
	  "Wait for jobs of your account to end, or ask for less; sacctmgr "
	  "show assoc tells the limit." },
	{ "AssocMax", 1,
	  "The job is above one of your account's per-job limits.",
	  "Cancel it and submit again within the limit (sacctmgr show "
	  "assoc)." },
	{ "QOSGrp", 1,
	  "The QOS has reached one of its group limits.",
	  "Wait for other jobs of that QOS to end, or use another QOS." },
	{ "QOSMax", 1,
	  "The job or your usage is above one of your QOS's limits.",
	  "Ask for less (GPUs, CPUs, time), or wait for your jobs to end; "
	  "sacctmgr show qos tells the limit." },
};

/*
 * Descriptions SLURM 22.05-26.05 put in the job's state_desc, which squeue's
 * %r prints instead of the code (slurmctld job_scheduler.c, acct_policy.c,
 * job_mgr.c, reservation.c).  Matched by prefix and, where one prefix covers
 * several codes, a word the text contains; mapped to the code they stand
 * for, with their own sentence where the code's would be wrong.
 */
struct pending_desc {
	const char	*prefix;
	const char	*contains;	/* NULL: any */
	const char	*code;
	const char	*sentence;	/* NULL: the code's */
	const char	*fix;		/* NULL: the code's */
};

static const struct pending_desc descs[] = {
	/* 22.05-24.11; 25.05 adds ", REBOOTING" after DRAINED. */
	{ "Nodes required for job are DOWN, DRAINED", NULL, "ReqNodeNotAvail",
	  "Nodes it needs are down, drained, rebooting or kept for jobs in "
	  "higher priority partitions.",
	  "Wait for them to come back, or cancel and submit again to "
	  "another partition or with fewer nodes." },
	{ "Job is at or exceeds QOS ", "group ", "QOSGrp", NULL, NULL },
	{ "Job is at or exceeds QOS ", NULL, "QOSMax", NULL, NULL },
	{ "Job is at or exceeds association ", "group ", "AssocGrp", NULL,
	  NULL },
	{ "Job is at or exceeds association ", NULL, "AssocMax", NULL, NULL },
	{ "uid ", "not in group permitted to use this partition",
	  "AccountNotAllowed",
	  "You are not in a group allowed to use this partition: it will "
	  "never start there.",
	  "Cancel it and submit again to a partition you may use." },
	{ "Reservation ", " was deleted", "ReservationDeleted",
	  "The reservation it asked for was deleted.",
	  "Cancel it and submit again without --reservation." },
	{ "Reservation ", " is invalid", "ReservationInvalid",
	  "The reservation it asked for is invalid.",
	  "Cancel it and submit again without --reservation." },
	{ "Reservation ", " has ended", "ReservationEnded",
	  "The reservation it ran under has ended.",
	  "Submit again without --reservation, or in a new one." },
	{ "job requeued in held state", NULL, "JobHeldUser",
	  "SLURM requeued it and held it (a requeue with hold).",
	  NULL },
	{ "Unable to load job batch script", NULL, "launch failed requeued held",
	  "SLURM could not load its batch script to launch it.",
	  NULL },
	{ "Unable to load job environment", NULL, "launch failed requeued held",
	  "SLURM could not load its environment to launch it.",
	  NULL },
};

static int
pending_code(const char *reason, struct pending_why *why)
{
	size_t	i, n;

	for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		n = strlen(rules[i].code);
		if (strncmp(reason, rules[i].code, n) != 0)
			continue;
		/* A whole code: "ReqNodeNotAvail, UnavailableNodes:x". */
		if (!rules[i].prefix && reason[n] != '\0' && reason[n] != ',' &&
		    reason[n] != ' ' && reason[n] != ')')
			continue;
		why->code = rules[i].code;
		why->sentence = rules[i].sentence;
		why->fix = rules[i].fix;
		return 0;
	}
	return -1;
}

static int
pending_desc(const char *reason, struct pending_why *why)
{
	const struct pending_desc	*d;
	size_t				 i;

	for (i = 0; i < sizeof descs / sizeof descs[0]; i++) {
		d = &descs[i];
		if (strncmp(reason, d->prefix, strlen(d->prefix)) != 0)
			continue;
		if (d->contains != NULL && strstr(reason, d->contains) == NULL)
			continue;
		if (pending_code(d->code, why) != 0)
			memset(why, 0, sizeof *why);
		why->code = d->code;
		if (d->sentence != NULL)
			why->sentence = d->sentence;
		if (d->fix != NULL)
			why->fix = d->fix;
		if (why->sentence != NULL && why->fix != NULL)
			return 0;
		memset(why, 0, sizeof *why);
		return -1;
	}
	return -1;
}

int
pending_explain(const char *reason, struct pending_why *why)
{
	memset(why, 0, sizeof *why);
	if (reason == NULL)
		return -1;
	while (*reason == ' ' || *reason == '(')
		reason++;
	if (pending_desc(reason, why) == 0 || pending_code(reason, why) == 0)
		return 0;
	memset(why, 0, sizeof *why);
	return -1;
}

char *
pending_text(const char *reason)
{
	struct pending_why	why;

	if (pending_explain(reason, &why) != 0)
		return NULL;
	return xasprintf("%s Fix: %s", why.sentence, why.fix);
}
