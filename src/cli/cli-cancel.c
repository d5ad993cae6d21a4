#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conn.h"
#include "jobtable.h"
#include "monitor.h"
#include "ops.h"
#include "record.h"

struct target {
	const char	*arg;
	struct record	*rec;		/* NULL: a SLURM id without a record */
	long		 sid;
	int		 task;		/* an array task: "12_3", "12_[4-9]" */
	struct cluster	*cl;
};

/* One connection per cluster, however many jobs are cancelled there. */
struct cconn {
	struct cluster	*cl;
	struct conn	*c;
	int		 poll;		/* a job there had already ended */
};

static struct cconn *
cconn_get(struct cconn **v, size_t *n, struct cluster *cl)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if ((*v)[i].cl == cl)
			return &(*v)[i];
	}
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[*n].cl = cl;
	(*v)[*n].c = conn_new_cluster(cl);
	(*v)[*n].poll = 0;
	return &(*v)[(*n)++];
}

static int
cli_cancel(struct cli *cli, int argc, char **argv)
{
	struct config		 cfg;
	struct cluster		*cl;
	struct target		*t = NULL;
	struct cconn		*cc = NULL, *x;
	struct ops_cancel	 oc;
	struct monitor_opts	 opts;
	const char		*task;
	char			 base[32];
	struct monitor_snapshot	 snap;
	char			*cause = NULL, *s;
	size_t			 i, n = 0, ncc = 0;
	int			 ch, rc, ret = EXIT_OK;

	if ((ch = cli_getopt(cli, &cli_cancel_entry, argc, argv)) != -1)
		return CLI_OPT_EXIT(ch);
	if (optind == argc) {
		cli_error("cancel", "which jobs? give record ids "
		    "or SLURM job ids");
		cli_usage(&cli_cancel_entry, stderr);
		return EXIT_USAGE;
	}
	if (cli_load(cli, &cfg, &cl) != 0)
		return EXIT_FAIL;

	/* Every id is checked before anything is cancelled. */
	t = xcalloc((size_t)(argc - optind), sizeof *t);
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		struct target *tg = &t[n++];

		tg->arg = argv[i];
		tg->cl = cl;
		/* An array task: sqdeck keeps no record of arrays. */
		if (jobtable_array_split(argv[i], base, sizeof base, &task)) {
			tg->task = 1;
			continue;
		}
		if (argv[i][strspn(argv[i], "0123456789")] == '_' &&
		    argv[i][0] != '_') {
			cli_error("cancel", "invalid array task "
			    "id '%s': give JOBID_TASK, e.g. 12_3, or a range of "
			    "tasks, 12_[4-9]", argv[i]);
			ret = EXIT_USAGE;
			goto out;
		}
		rc = ops_find(argv[i], cl->name, &tg->rec, &tg->sid, &cause);
		if (rc < 0) {
			cli_error("cancel", "%s", cause);
			ret = EXIT_USAGE;
			goto out;
		}
		if (tg->rec != NULL && tg->sid <= 0) {
			cli_error("cancel", "record %s has no "
			    "SLURM job id: nothing was launched",
			    tg->rec->id);
			ret = EXIT_USAGE;
			goto out;
		}
		if (tg->rec != NULL && tg->rec->cluster != NULL &&
		    strcmp(tg->rec->cluster, cl->name) != 0 &&
		    (tg->cl = cli_record_cluster(&cfg, tg->rec,
		    &cause)) == NULL) {
			cli_error("cancel", "record %s: %s",
			    tg->rec->id, cause);
			ret = EXIT_FAIL;
			goto out;
		}
	}

	for (i = 0; i < n; i++) {
		x = cconn_get(&cc, &ncc, t[i].cl);
		free(cause);
		cause = NULL;
		if ((t[i].task ? ops_cancel_task(x->c, t[i].arg, "cancel:cli",
		    &oc, &cause) : ops_cancel(x->c, t[i].rec, t[i].sid,
		    "cancel:cli", &oc, &cause)) != 0) {
			s = ops_clean(cause);
			cli_error("cancel", "%s", s);
			free(s);
			ret = EXIT_FAIL;
			continue;
		}
		if (t[i].task) {
			s = ops_clean(oc.was_live ? oc.live_state :
			    oc.acct_state);
			if (oc.was_live)
				cli_printf("cancelled SLURM array task %s (was "
				    "%s)\n", t[i].arg, s);
			else
				cli_printf("SLURM array task %s had already "
				    "ended (sacct: %s): counts as cancelled\n",
				    t[i].arg, s);
			free(s);
			ops_cancel_free(&oc);
			continue;
		}
		s = ops_clean(oc.live_state);
		if (oc.was_live)
			cli_printf("cancelled SLURM job %ld%s%s (was %s)\n", t[i].sid,
			    t[i].rec != NULL ? ", record " : "",
			    t[i].rec != NULL ? t[i].rec->id : "", s);
		else {
			free(s);
			s = ops_clean(oc.acct_state);
			cli_printf("SLURM job %ld%s%s had already ended%s%s%s: "
			    "counts as cancelled\n", t[i].sid,
			    t[i].rec != NULL ? ", record " : "",
			    t[i].rec != NULL ? t[i].rec->id : "",
			    oc.forgotten ? " (SLURM no longer lists it; sacct: "
			    : "", oc.forgotten ? (oc.acct_state != NULL &&
			    *oc.acct_state != '\0' ? s : "nothing") : "",
			    oc.forgotten ? ")" : "");
			if (t[i].rec != NULL)
				x->poll = 1;
		}
		if (oc.wiped)
			cli_printf("removed the secrets sidecar of record %s\n",
			    t[i].rec->id);
		free(s);
		ops_cancel_free(&oc);
	}

	/* Ended jobs: let sacct say how, so the record is not left behind. */
	for (i = 0; i < ncc; i++) {
		if (!cc[i].poll)
			continue;
		memset(&opts, 0, sizeof opts);
		opts.user = cc[i].cl->user;
		free(cause);
		cause = NULL;
		if (monitor_poll(cc[i].c, cc[i].cl->name, &opts, &snap,
		    &cause) != 0)
			cli_error("cancel", "%s", cause);
		monitor_snapshot_free(&snap);
	}
out:
	for (i = 0; i < n; i++)
		record_free(t[i].rec);
	free(t);
	for (i = 0; i < ncc; i++)
		conn_free(cc[i].c);
	free(cc);
	free(cause);
	config_free(&cfg);
	return ret;
}

const struct cli_entry cli_cancel_entry = {
	.name = "cancel",
	.usage = "[--cluster NAME] ID...",
	.summary = "cancel jobs (an ended job counts as cancelled)",
	.help = "  ID  record id or SLURM job id; a job that already ended "
	    "counts as cancelled\n"
	    "      an array: its job id for every task, 12_3 for one "
	    "task, 12_[4-9] for some\n",
	.shortopts = "",
	.longopts = NULL,
	.flags = CLI_CLUSTER,
	.exec = cli_cancel,
};
