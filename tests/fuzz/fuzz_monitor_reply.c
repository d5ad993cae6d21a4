/*
 * The poll's reply (monitor.c) as the cluster could send it, through every
 * parser the poll applies: sections behind the marker, the squeue and sacct
 * rows with a random separator, status.json verdicts.  Input: "sep\0reply"
 * (sep empty: SLURM_SEP_DEFAULT).  No crash, no leak, sections stay inside
 * the reply, and no row of the squeue section has a name holding the
 * separator.
 */
#include "fuzz.h"
#include "monitor.h"
#include "slurm.h"
#include "state.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct remote_reply		 rep;
	const struct remote_section	*s;
	struct slurm_jobs		 jobs = { NULL, 0, NULL };
	char				*copy = fuzz_cstr(data, size), *part[2];
	char				*cause = NULL, *text;
	const char			*reply, *sep;
	size_t				 n, len, i;

	n = fuzz_split(copy, size, part, 2);
	sep = n == 2 && *part[0] != '\0' ? part[0] : NULL;
	reply = n == 2 ? part[1] : part[0];
	len = size - (size_t)(reply - copy);
	if (remote_reply_parse(reply, len, "SDMab12", "the poll", &rep,
	    &cause) != 0) {
		fuzz_check(cause != NULL, "no cause");
		free(cause);
		free(copy);
		return 0;
	}
	for (i = 0; i < rep.n; i++) {
		s = &rep.v[i];
		fuzz_check(s->data >= reply && s->data + s->len <= reply + len,
		    "section %zu outside the reply", i);
		text = malloc(s->len + 1);
		if (text == NULL)
			abort();
		memcpy(text, s->data, s->len);
		text[s->len] = '\0';
		if (strcmp(s->kind, "squeue") == 0)
			slurm_parse_squeue(text, sep, &jobs, NULL);
		else if (strcmp(s->kind, "sacct") == 0)
			slurm_parse_sacct(text, sep, &jobs, NULL);
		else if (strcmp(s->kind, "status") == 0)
			state_status_verdict(s->data, s->len);
		free(text);
	}
	for (i = 0; i < jobs.n; i++)
		fuzz_check(strstr(jobs.v[i].name, sep != NULL ? sep :
		    SLURM_SEP_DEFAULT) == NULL, "separator in a name");
	slurm_jobs_free(&jobs);
	remote_reply_free(&rep);
	free(copy);
	return 0;
}
