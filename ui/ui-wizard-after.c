/*
 * The submit wizard's after field: the SLURM jobs this one waits for, as
 * the spec's after: (sbatch --dependency).  "12, 13" waits until they
 * completed (afterok), "any:14" until it ended in any way (afterany);
 * "ok:12" says afterok explicitly.  Each id is checked as the spec's
 * parser checks it: a job id (1234) or an array task (1234_5).
 */
#include "ui-wizard-int.h"
#include "jobid.h"
#include "str.h"

int
wz_after_parse(const char *s, struct strv *ok, struct strv *any, char **why)
{
	struct strv	 items;
	struct strv	*to;
	struct jobid	 j;
	const char	*id;
	size_t		 i;

	memset(&items, 0, sizeof items);
	wz_split_list(s, &items);
	for (i = 0; i < items.n; i++) {
		id = items.v[i];
		to = ok;
		if (strncmp(id, "any:", 4) == 0) {
			to = any;
			id += 4;
		} else if (strncmp(id, "ok:", 3) == 0)
			id += 3;
		jobid_parse(id, &j);
		if (j.kind != JOBID_JOB && j.kind != JOBID_TASK) {
			*why = xasprintf("after: item %zu '%s' is not a SLURM "
			    "job id (1234), an array task (1234_5) or any:ID",
			    i + 1, items.v[i]);
			strv_free(&items);
			return -1;
		}
		if (!strv_has(ok, id) && !strv_has(any, id))
			strv_add(to, id);
	}
	strv_free(&items);
	return 0;
}

char *
wz_after_text(const struct strv *ok, const struct strv *any)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_add(&b, "", 0);
	for (i = 0; i < ok->n; i++)
		buf_printf(&b, "%s%s", b.len > 0 ? ", " : "", ok->v[i]);
	for (i = 0; i < any->n; i++)
		buf_printf(&b, "%sany:%s", b.len > 0 ? ", " : "", any->v[i]);
	return buf_steal(&b);
}

char *
wz_after_line(const char *value)
{
	struct strv	 ok, any;
	struct spec	 sp;
	char		*why = NULL, *dep, *line;

	memset(&ok, 0, sizeof ok);
	memset(&any, 0, sizeof any);
	if (wz_after_parse(value, &ok, &any, &why) != 0)
		return why;
	spec_init(&sp);
	sp.after_ok = ok;
	sp.after_any = any;
	dep = spec_dependency(&sp);
	line = dep == NULL ? xstrdup("- (starts when SLURM can)") :
	    xasprintf("%s (#SBATCH --dependency: pending with reason "
	    "Dependency until then)", dep);
	free(dep);
	spec_free(&sp);
	return line;
}
