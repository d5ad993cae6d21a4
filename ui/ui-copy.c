/*
 * Habits of k9s, htop and lazygit users (issue 26): Y copies the selected
 * job's id, then (Y again on the same job) its job dir and its log path,
 * to the terminal's clipboard with OSC 52; C clones a job into the submit
 * wizard; ! jumps to the first error line of the log.
 */
#include "ui-int.h"

#include <regex.h>

#include "enc.h"
#include "triage.h"

#define COPY_MAX	1024	/* bytes copied at most */
#define COPY_AGAIN	30	/* seconds in which Y goes on cycling */

static struct {
	char	*cluster;	/* the job Y was last pressed on */
	char	*id;
	int	 next;		/* what the next Y copies: 0 id, 1 dir, 2 log */
	time_t	 when;
	char	*clone_cluster;	/* C asked for this job's spec */
	char	*clone_id;
} H;

/*
 * What is copied comes from the cluster or a record: control characters
 * (an escape would end the OSC and start another) are dropped, the length
 * capped.
 */
static char *
copy_clean(const char *s)
{
	char	*out = xmalloc(COPY_MAX + 1);
	size_t	 n = 0;

	for (; *s != '\0' && n < COPY_MAX; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			continue;
		/* C1 as UTF-8 (U+0080..U+009F): 0xc2 0x80-0x9f. */
		if (c == 0xc2 && (unsigned char)s[1] >= 0x80 &&
		    (unsigned char)s[1] <= 0x9f) {
			s++;
			continue;
		}
		out[n++] = (char)c;
	}
	/* Never end in the middle of a UTF-8 sequence. */
	while (n > 0 && ((unsigned char)out[n - 1] & 0x80)) {
		size_t	start = n - 1, need;

		while (start > 0 && ((unsigned char)out[start] & 0xc0) == 0x80)
			start--;
		need = ((unsigned char)out[start] & 0xe0) == 0xc0 ? 2 :
		    ((unsigned char)out[start] & 0xf0) == 0xe0 ? 3 :
		    ((unsigned char)out[start] & 0xf8) == 0xf0 ? 4 : 0;
		if (need == n - start)
			break;
		n = start;
	}
	out[n] = '\0';
	return out;
}

/*
 * OSC 52 to the terminal (stdout is the screen's).  Inside tmux it is sent
 * twice: plain, which tmux takes itself with set-clipboard on (a paste
 * buffer, passed on to the outer terminal), and wrapped in tmux's DCS
 * passthrough, which reaches the outer terminal when allow-passthrough is
 * on and set-clipboard is not.
 */
static int
copy_osc52(const char *text)
{
	struct buf	 b64, out;
	int		 ret = 0;
	size_t		 off;
	ssize_t		 n;

	buf_init(&b64);
	buf_add(&b64, "", 0);
	enc_base64(&b64, text, strlen(text));
	buf_init(&out);
	buf_printf(&out, "\033]52;c;%s\a", b64.data);
	if (getenv("TMUX") != NULL && *getenv("TMUX") != '\0')
		buf_printf(&out, "\033Ptmux;\033\033]52;c;%s\a\033\\",
		    b64.data);
	fflush(stdout);
	for (off = 0; off < out.len; off += (size_t)n) {
		n = write(STDOUT_FILENO, out.data + off, out.len - off);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			ret = -1;
			break;
		}
	}
	buf_free(&b64);
	buf_free(&out);
	return ret;
}

/* The local record of a row, or NULL (a job sqdeck did not submit). */
static struct record *
copy_record(const struct jobtable_row *r)
{
	struct record	*rec = NULL;
	char		*cause = NULL;
	long		 sid;

	if (ops_find(r->id, r->cluster, &rec, &sid, &cause) != 0) {
		free(cause);
		record_free(rec);
		return NULL;
	}
	if (rec != NULL && rec->cluster != NULL &&
	    strcmp(rec->cluster, r->cluster) != 0) {
		record_free(rec);
		return NULL;
	}
	return rec;
}

int
act_copy(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	struct record			*rec;
	const char			*what[] = { "job id", "job dir",
					    "log path" };
	char				*value = NULL, *clean, *shown;
	int				 k;

	if (r == NULL) {
		ui_message(ui, 1, "no job selected to copy");
		return UIF_REDRAW;
	}
	if (H.id == NULL || strcmp(H.id, r->id) != 0 ||
	    strcmp(H.cluster, r->cluster) != 0 ||
	    time(NULL) - H.when > COPY_AGAIN)
		H.next = 0;
	free(H.cluster);
	free(H.id);
	H.cluster = xstrdup(r->cluster);
	H.id = xstrdup(r->id);
	H.when = time(NULL);
	k = H.next;
	rec = k > 0 ? copy_record(r) : NULL;
	if (k > 0 && rec == NULL) {
		/* A foreign job has only its id to copy. */
		k = 0;
	} else if (k == 1 && rec->job_dir != NULL)
		value = xstrdup(rec->job_dir);
	else if (k == 1)
		k = 2;
	if (k == 2 && (value = ops_log_path(rec, ui->log.stream ==
	    LOG_ERR)) == NULL)
		k = 0;
	if (k == 0)
		value = xstrdup(r->id);
	record_free(rec);
	H.next = (k + 1) % 3;
	clean = copy_clean(value);
	shown = ui_san(clean);
	if (*clean == '\0')
		ui_message(ui, 1, "nothing to copy");
	else if (copy_osc52(clean) != 0)
		ui_message(ui, 1, "copy: the terminal could not be written: "
		    "%s", strerror(errno));
	else
		ui_message(ui, 0, "copied %s %s (OSC 52)%s", what[k], shown,
		    H.next == 0 ? "" : H.next == 1 ? "; Y again: the job dir" :
		    "; Y again: the log path");
	free(shown);
	free(clean);
	free(value);
	return UIF_REDRAW;
}

/* ------------------------------------------------------------- clone */

int
act_clone(struct ui *ui)
{
	const struct jobtable_row	*r = jobtable_current(ui->jt);
	struct record			*rec;
	char				*cause = NULL;

	if (r == NULL) {
		ui_message(ui, 1, "no job selected to clone");
		return UIF_REDRAW;
	}
	if ((rec = copy_record(r)) == NULL) {
		ui_message(ui, 1, "job %s was not submitted by sqdeck: only "
		    "sqdeck jobs can be cloned (their spec is staged)", r->id);
		return UIF_REDRAW;
	}
	record_free(rec);
	if (ui->be == NULL || ui->be->fetch_spec == NULL) {
		ui_message(ui, 1, "clone: not connected (no worker)");
		return UIF_REDRAW;
	}
	if (ui->be->fetch_spec(ui->be->arg, r->cluster, r->id, &cause) != 0) {
		ui_message(ui, 1, "clone %s: %s", r->id, cause);
		free(cause);
		return UIF_REDRAW;
	}
	free(H.clone_cluster);
	free(H.clone_id);
	H.clone_cluster = xstrdup(r->cluster);
	H.clone_id = xstrdup(r->id);
	ui_message(ui, 0, "reading the spec of job %s to clone it\xe2\x80\xa6",
	    r->id);
	return UIF_REDRAW;
}

/*
 * The wizard was filled from a spec C asked for: the name gets "-clone"
 * (once), the banner says so.  Returns 1 when it was a clone.
 */
int
clone_fetched(struct ui *ui, const struct msg_action *m)
{
	struct buf	*name = &ui->wiz.value[WF_NAME];
	const char	*suffix = "-clone";
	size_t		 n = strlen(suffix);

	if (H.clone_id == NULL || m->job_id == NULL || m->cluster == NULL ||
	    strcmp(H.clone_id, m->job_id) != 0 ||
	    strcmp(H.clone_cluster, m->cluster) != 0)
		return 0;
	free(H.clone_cluster);
	free(H.clone_id);
	H.clone_cluster = H.clone_id = NULL;
	if (m->failed)
		return 1;
	if (name->len < n || strcmp(name->data + name->len - n, suffix) != 0)
		buf_adds(name, suffix);
	wizard_validate(&ui->wiz);
	free(ui->wiz.banner);
	ui->wiz.banner = xasprintf("clone of job %s on %s (name ends in %s): "
	    "edit, then Enter on the last field for the preview", m->job_id,
	    m->cluster, suffix);
	ui->wiz.banner_err = 0;
	return 1;
}

/* ------------------------------------------------------- first error */

/* What ! looks for when no triage rule matches a line: the usual words. */
static const char *const error_words[] = {
	"Error", "Traceback", "error:", "Killed", "CUDA out of memory",
	"srun: error",
};

/*
 * The rule a line matches: a triage rule's pattern (the evidence triage
 * would quote, whatever the job's state), else one of error_words.
 */
static const char *
error_rule(const char *line, char *buf, size_t len)
{
	static regex_t	*re;
	static int	*ok;
	static size_t	 nrules;
	const struct triage_rule *rules = triage_rules(&nrules);
	size_t		 i;

	if (re == NULL) {
		/* Compiled once for the process, as triage.c does. */
		re = xcalloc(nrules, sizeof *re);
		ok = xcalloc(nrules, sizeof *ok);
		for (i = 0; i < nrules; i++)
			ok[i] = rules[i].pattern != NULL && regcomp(&re[i],
			    rules[i].pattern, REG_EXTENDED | REG_NOSUB |
			    (rules[i].icase ? REG_ICASE : 0)) == 0;
	}
	for (i = 0; i < nrules; i++) {
		if (!ok[i] || regexec(&re[i], line, 0, NULL, 0) != 0)
			continue;
		if (rules[i].unless != NULL) {
			regex_t	u;
			int	hit;

			if (regcomp(&u, rules[i].unless, REG_EXTENDED |
			    REG_NOSUB) != 0)
				continue;
			hit = regexec(&u, line, 0, NULL, 0) == 0;
			regfree(&u);
			if (hit)
				continue;
		}
		snprintf(buf, len, "triage rule %s", rules[i].name);
		return buf;
	}
	for (i = 0; i < sizeof error_words / sizeof error_words[0]; i++) {
		if (strstr(line, error_words[i]) != NULL) {
			snprintf(buf, len, "\"%s\"", error_words[i]);
			return buf;
		}
	}
	return NULL;
}

int
act_first_error(struct ui *ui)
{
	struct ulog	*l = &ui->log;
	const char	*rule = NULL;
	char		 buf[128];
	size_t		 i, from = 0;

	/* Again on the error line shown: the next one. */
	if (l->has_match && l->search == NULL && !l->follow)
		from = l->match + 1;
	for (i = from; i < l->lines.n; i++) {
		if ((rule = error_rule(l->lines.v[i], buf, sizeof buf)) != NULL)
			break;
	}
	if (rule == NULL) {
		ui_message(ui, from > 0 ? 0 : 1, "%s in the %zu lines of %s",
		    from > 0 ? "no error line after this one" :
		    "no error line found", l->lines.n, l->stream == LOG_ERR ?
		    "main.err" : "main.out");
		if (from > 0)
			l->has_match = 0;
		return UIF_REDRAW;
	}
	free(l->search);
	l->search = NULL;
	log_show_match(ui, i);
	ui_message(ui, 0, "error line %zu of %zu: %s (! again: the next)",
	    i + 1, l->lines.n, rule);
	return UIF_REDRAW;
}
