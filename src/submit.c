/*
 * The submit pipeline: preflight, checks, image, secrets, record, render,
 * stage, launch (R6-R15).  See submit.h for the order and the layout.
 *
 * Every remote step is ONE script sent on stdin of "/bin/sh -s" (so the
 * login shell does not matter and nothing of it is in any argv), wrapped in
 * braces so sh parses it whole before running it.  Payloads that carry
 * secrets (the sidecar, the registry key) are inside that script and only
 * ever reach builtins (assignment, printf) and pipes.
 */
#include "submit.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "nccl.h"
#include "ops.h"
#include "plan.h"
#include "record.h"
#include "slurm.h"
#include "state.h"
#include "template.h"
#include "uri.h"

static const char *submit_steps[SUBMIT_NSTEPS] = {
	"preflight", "check", "image", "secrets", "record", "render", "stage",
	"launch"
};

const char *
submit_step_name(enum submit_step s)
{
	return (s < SUBMIT_NSTEPS) ? submit_steps[s] : "?";
}

const char *
submit_image_action_name(enum submit_image_action a)
{
	switch (a) {
	case SUBMIT_IMAGE_SQSH:
		return "sqsh";
	case SUBMIT_IMAGE_CACHED:
		return "cached";
	case SUBMIT_IMAGE_CONVERTED:
		return "converted";
	case SUBMIT_IMAGE_WOULD_CONVERT:
		return "would-convert";
	}
	return "?";
}

/* --- session ------------------------------------------------------------- */

void
submit_session_init(struct submit_session *s, struct conn *c,
    const struct cluster *cl)
{
	memset(s, 0, sizeof *s);
	s->conn = c;
	s->cl = cl;
	s->pf_age = -1;
}

int
submit_preflight(struct submit_session *s, int *cached, char **cause)
{
	struct buf	 b;
	char		*why = NULL;
	size_t		 i;

	if (cached != NULL)
		*cached = s->have_pf;
	if (s->have_pf)
		return 0;
	preflight_free(&s->pf);
	if (preflight_run_cached(s->conn, s->cl, &s->pf, PREFLIGHT_REUSE,
	    &s->pf_age, NULL, &why) != 0) {
		cause_set(cause, "preflight: %s", why);
		free(why);
		return -1;
	}
	if (!s->pf.ok) {
		buf_init(&b);
		buf_printf(&b, "preflight of cluster %s failed:", s->cl->name);
		for (i = 0; i < s->pf.problems.n; i++)
			buf_printf(&b, "\n  - %s", s->pf.problems.v[i]);
		buf_adds(&b, "\n(run 'sqdeck preflight' for the details)");
		cause_set(cause, "%s", b.data);
		buf_free(&b);
		return -1;
	}
	s->have_pf = 1;
	return 0;
}

/*
 * A reused preflight (PREFLIGHT_REUSE) may predate a change on the cluster
 * (a partition an admin just made): before a step refuses on what it says,
 * ask the cluster again.  0 and the same answer if it was fresh already.
 */
static int
submit_preflight_refresh(struct submit_session *s, char **cause)
{
	if (s->pf_age < 0)
		return 0;
	s->have_pf = 0;
	preflight_free(&s->pf);
	memset(&s->pf, 0, sizeof s->pf);
	if (preflight_run_cached(s->conn, s->cl, &s->pf, 0, &s->pf_age, NULL,
	    cause) != 0 || !s->pf.ok) {
		if (cause != NULL && *cause == NULL)
			cause_set(cause, "preflight of cluster %s failed "
			    "(run 'sqdeck preflight' for the details)",
			    s->cl->name);
		return -1;
	}
	s->have_pf = 1;
	return 0;
}

void
submit_session_free(struct submit_session *s)
{
	preflight_free(&s->pf);
	s->have_pf = 0;
	s->pf_age = -1;
}

/* --- pure parts ---------------------------------------------------------- */

char *
submit_job_name(const char *prefix, const char *record_id)
{
	if (prefix == NULL || *prefix == '\0')
		prefix = "sqdeck";
	if (str_has_prefix(record_id, "sd-"))
		record_id += 3;
	return xasprintf("%s-%s", prefix, record_id);
}

void
submit_layout_make(struct submit_layout *l, const char *results_root,
    const char *job_name, const char *record_id)
{
	size_t	len = strlen(results_root);

	/* "/" as the root would give "//name". */
	while (len > 1 && results_root[len - 1] == '/')
		len--;
	memset(l, 0, sizeof *l);
	l->job_dir = xasprintf("%.*s/%s", (int)len, results_root, job_name);
	l->spec_path = xasprintf("%s/specs/spec.yaml", l->job_dir);
	/* Where the verbs and the monitor look: ops.h has the one layout. */
	l->log_dir = ops_dir_logs(l->job_dir);
	l->results_dir = ops_dir_results(l->job_dir);
	l->sbatch_rel = xasprintf("sbatch/job_%s.sbatch", record_id);
	l->env_rel = xasprintf("job_%s.env", record_id);
	l->sbatch_path = xasprintf("%s/%s", l->job_dir, l->sbatch_rel);
	l->env_path = ops_dir_env_file(l->job_dir, record_id);
}

void
submit_layout_free(struct submit_layout *l)
{
	free(l->job_dir);
	free(l->spec_path);
	free(l->log_dir);
	free(l->results_dir);
	free(l->sbatch_path);
	free(l->env_path);
	free(l->sbatch_rel);
	free(l->env_rel);
	memset(l, 0, sizeof *l);
}

void
submit_tar_add(struct buf *b, const char *name, const void *data, size_t len,
    mode_t mode)
{
	unsigned char	 h[512];
	unsigned	 sum = 0;
	size_t		 i;
	static const unsigned char zero[512];

	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", (unsigned)(mode & 07777));
	snprintf((char *)h + 108, 8, "%07o", 0U);
	snprintf((char *)h + 116, 8, "%07o", 0U);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)len);
	snprintf((char *)h + 136, 12, "%011llo",
	    (unsigned long long)time(NULL));
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	/* The checksum is computed with its own field as blanks. */
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof h; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	buf_add(b, h, sizeof h);
	buf_add(b, data, len);
	if (len % 512 != 0)
		buf_add(b, zero, 512 - len % 512);
}

void
submit_tar_end(struct buf *b)
{
	static const unsigned char zero[1024];

	buf_add(b, zero, sizeof zero);
}

static int
submit_identifier(const char *s)
{
	if (s == NULL || (!isalpha((unsigned char)*s) && *s != '_'))
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	}
	return 1;
}

int
submit_sidecar(const struct lint_secret *sec, size_t n, char **out,
    char **cause)
{
	struct buf	b;
	size_t		i;

	*out = NULL;
	buf_init(&b);
	buf_adds(&b, "# sqdeck secrets: sourced by the job, then wiped\n");
	for (i = 0; i < n; i++) {
		if (!submit_identifier(sec[i].name)) {
			buf_free(&b);
			return cause_set(cause, "secret name \"%s\" is not a "
			    "shell variable name", sec[i].name);
		}
		buf_printf(&b, "%s=", sec[i].name);
		buf_add_quoted(&b, sec[i].value);
		buf_adds(&b, "\n");
	}
	*out = buf_steal(&b);
	return 0;
}

/* Base64 without line breaks, for payloads inside a script. */
static void
submit_base64(struct buf *b, const unsigned char *p, size_t len)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char		q[4];
	uint32_t	v;
	size_t		i;

	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = tab[v & 63];
		buf_add(b, q, 4);
	}
	if (len - i == 1) {
		v = (uint32_t)p[i] << 16;
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = q[3] = '=';
		buf_add(b, q, 4);
	} else if (len - i == 2) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = '=';
		buf_add(b, q, 4);
	}
}

static int
submit_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* od -tx1 with the blanks removed -> bytes; returns how many. */
static size_t
submit_unhex(const char *s, unsigned char *out, size_t max)
{
	size_t	n = 0;
	int	hi, lo;

	while (n < max && s[0] != '\0' && s[1] != '\0') {
		if ((hi = submit_hexval(s[0])) < 0 ||
		    (lo = submit_hexval(s[1])) < 0)
			break;
		out[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return n;
}

/*
 * Prints "size hex" of the file $1: the header image_sqsh_check wants.
 * Each process counts on a busy login node: stat, not wc | tr.
 */
#define SUBMIT_SH_REPORT \
	"report() {\n" \
	"\tprintf '%s %s\\n' \"$(stat -L -c %s -- \"$1\")\" " \
	"\"$(od -An -v -tx1 -N96 -- \"$1\" | tr -d ' \\n')\"\n" \
	"}\n"

/*
 * Owner and mode of a cached image, its directory and the digest recorded
 * next to it, each line prefixed with $2 (image_cache_stat_line reads
 * them).  Never through a symlink: one is reported as such.
 */
#define SUBMIT_SH_CSTAT \
	"cstat() {\n" \
	"\tprintf '%sme %s\\n' \"$2\" \"$(id -u)\"\n" \
	"\tif [ -L \"$1\" ]; then printf '%sfile link\\n' \"$2\"\n" \
	"\telif [ -f \"$1\" ]; then printf '%sfile %s\\n' \"$2\" " \
	"\"$(stat -c '%u %a %U' -- \"$1\")\"; fi\n" \
	"\tcase $1 in */*) sd_cdir=${1%/*}; sd_cdir=${sd_cdir:-/} ;;\n" \
	"\t*) sd_cdir=. ;; esac\n" \
	"\tprintf '%sdir %s\\n' \"$2\" \"$(stat -L -c '%u %a' -- \"$sd_cdir\")\"\n" \
	"\tif [ -L \"$1.digest\" ]; then printf '%sdigest link\\n' \"$2\"\n" \
	"\telif [ -f \"$1.digest\" ]; then printf '%sdigest %s %s\\n' " \
	"\"$2\" \"$(stat -c '%u %a' -- \"$1.digest\")\" " \
	"\"$(head -c 100 -- \"$1.digest\" | tr -cd 'a-z0-9:')\"; fi\n" \
	"}\n"

char *
submit_check_script(const char *const *paths, size_t n, const char *image,
    const char *registry)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_adds(&b, "LC_ALL=C; export LC_ALL\n" SUBMIT_SH_REPORT
	    SUBMIT_SH_CSTAT);
	/* Indexes, not paths, come back: nothing to unquote. */
	for (i = 0; i < n; i++) {
		buf_adds(&b, "if test -e ");
		buf_add_quoted(&b, paths[i]);
		buf_printf(&b, "; then echo 'path %zu 1'; else echo 'path %zu "
		    "0'; fi\n", i, i);
	}
	buf_adds(&b, "img=");
	buf_add_quoted(&b, image != NULL ? image : "");
	buf_adds(&b, "\n"
	    "if [ -n \"$img\" ] && [ -f \"$img\" ] && [ -r \"$img\" ]; then\n"
	    "\tprintf 'image 1 %s\\n' \"$(report \"$img\")\"\n"
	    "else\n"
	    "\techo 'image 0'\n"
	    "fi\n"
	    "reg=");
	buf_add_quoted(&b, registry != NULL ? registry : "");
	buf_adds(&b, "\n"
	    "c=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}"
	    "/.credentials\n"
	    "if [ -n \"$reg\" ] && [ -f \"$c\" ] && awk -v r=\"$reg\" "
	    "'$1 == \"machine\" && $2 == r { f = 1 } END { exit !f }' "
	    "\"$c\" 2>/dev/null; then\n"
	    "\techo 'creds 1'\n"
	    "else\n"
	    "\techo 'creds 0'\n"
	    "fi\n"
	    /* A registry image's file is the shared cache's: who owns it? */
	    "if [ -n \"$reg\" ] && [ -n \"$img\" ]; then\n"
	    "\tcstat \"$img\" 'cache '\n"
	    "fi\n"
	    "echo end\n");
	return buf_steal(&b);
}

int
submit_check_parse(const char *out, size_t npaths, struct submit_check *ck,
    char **cause)
{
	char		*copy, *line, *next, hex[512];
	unsigned long	 idx;
	unsigned long long size;
	size_t		 seen = 0;
	int		 v, end = 0, image = 0;

	memset(ck, 0, sizeof *ck);
	image_cache_stat_init(&ck->cache);
	ck->npaths = npaths;
	ck->exists = xcalloc(npaths + 1, sizeof *ck->exists);
	copy = xstrdup(out);
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sscanf(line, "path %lu %d", &idx, &v) == 2) {
			if (idx < npaths) {
				ck->exists[idx] = v;
				seen++;
			}
		} else if (strcmp(line, "image 0") == 0) {
			image = 1;
		} else if (sscanf(line, "image 1 %llu %511s", &size,
		    hex) >= 1) {
			image = 1;
			ck->image_exists = 1;
			ck->image_size = size;
			if (sscanf(line, "image 1 %llu %511s", &size, hex) == 2)
				ck->headlen = submit_unhex(hex, ck->head,
				    sizeof ck->head);
		} else if (sscanf(line, "creds %d", &v) == 1) {
			ck->creds = v;
		} else if (str_has_prefix(line, "cache ")) {
			image_cache_stat_line(&ck->cache, line + 6);
		} else if (strcmp(line, "end") == 0)
			end = 1;
	}
	free(copy);
	if (!end || !image || seen != npaths) {
		return cause_set(cause, "the check script on the login node "
		    "stopped early (%zu of %zu paths reported)", seen, npaths);
	}
	return 0;
}

void
submit_check_free(struct submit_check *ck)
{
	free(ck->exists);
	memset(ck, 0, sizeof *ck);
}

/*
 * The squashfs test the cluster side can do before renaming into the
 * cache: magic, version 4.0, bytes_used within the file.  The C check
 * (image_sqsh_check) is stricter and runs on the result as well.
 */
#define SUBMIT_SH_SQSH_OK \
	"sqsh_ok() {\n" \
	"\t[ -f \"$1\" ] || return 1\n" \
	"\tsize=$(wc -c <\"$1\" | tr -d ' ') || return 1\n" \
	"\tset -- $(od -An -v -tu1 -N96 -- \"$1\")\n" \
	"\t[ $# -eq 96 ] || return 1\n" \
	"\t[ \"$1 $2 $3 $4\" = '104 115 113 115' ] || return 1\n" \
	"\t[ \"${29} ${30} ${31} ${32}\" = '4 0 0 0' ] || return 1\n" \
	"\tused=$(( ${41} + (${42} << 8) + (${43} << 16) + (${44} << 24) + " \
	"(${45} << 32) + (${46} << 40) + (${47} << 48) ))\n" \
	"\t[ \"$used\" -ge 96 ] && [ \"$used\" -le \"$size\" ]\n" \
	"}\n"

/*
 * The digest of the image's manifest, from the registry: sha256 of the
 * manifest (or index) bytes it serves for $mref, fetched with enroot's
 * credentials (netrc; a Bearer token goes through curl -K on stdin, never
 * in an argv).  Prints nothing when the registry cannot be asked.
 */
#define SUBMIT_SH_MDIG \
	"mdig() {\n" \
	"\t[ -n \"$mreg\" ] && command -v curl >/dev/null 2>&1 || return 0\n" \
	"\tah=${ENROOT_ALLOW_HTTP:-}\n" \
	"\te=$(command -v enroot 2>/dev/null) && " \
	"e=$(dirname -- \"$(dirname -- \"$e\")\")/etc/enroot\n" \
	"\t[ -n \"$ah\" ] || ah=$(for c in ${ENROOT_SYSCONF_PATH:-} $e " \
	"/etc/enroot; do sed -n 's/^[[:space:]]*ENROOT_ALLOW_HTTP" \
	"[[:space:]][[:space:]]*\\([^[:space:]#]*\\).*/\\1/p' " \
	"\"$c/enroot.conf\"; done 2>/dev/null | head -n 1)\n" \
	"\tcase $ah in y|Y|yes|YES|1|true|TRUE) pr=http ;; " \
	"*) pr=https ;; esac\n" \
	"\turl=$pr://$mreg/v2/$mrepo/manifests/$mref\n" \
	"\tacc='Accept: application/vnd.oci.image.index.v1+json, " \
	"application/vnd.docker.distribution.manifest.list.v2+json, " \
	"application/vnd.docker.distribution.manifest.v2+json, " \
	"application/vnd.oci.image.manifest.v1+json'\n" \
	"\tcr=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}" \
	"/.credentials\n" \
	"\t[ -f \"$cr\" ] || cr=/dev/null\n" \
	"\tmt=$(mktemp) || return 0\n" \
	"\tcode=$(curl -sS --max-time 60 --netrc-file \"$cr\" -H \"$acc\" " \
	"-D \"$mt.h\" -o \"$mt\" -w '%{http_code}' -- \"$url\" 2>/dev/null)\n" \
	"\tif [ \"$code\" = 401 ]; then\n" \
	"\t\tch=$(tr -d '\\r' <\"$mt.h\" | sed -n " \
	"'s/^[Ww][Ww][Ww]-[Aa]uthenticate: *[Bb]earer *//p' | head -n 1)\n" \
	"\t\tmdig_f() { printf '%s' \"$ch\" | sed -n \"s/.*$1=\\\"\\([^\\\"]*\\)\\\".*/\\1/p\"; }\n" \
	"\t\trealm=$(mdig_f realm); svc=$(mdig_f service); scope=$(mdig_f scope)\n" \
	"\t\ttok=\n" \
	"\t\t[ -n \"$realm\" ] && tok=$(curl -fsS --max-time 60 " \
	"--netrc-file \"$cr\" -G --data-urlencode \"service=$svc\" " \
	"--data-urlencode \"scope=$scope\" -- \"$realm\" 2>/dev/null | " \
	"sed -n 's/.*\"\\(access_\\)\\{0,1\\}token\" *: *\"\\([^\"]*\\)\".*/\\2/p' " \
	"| head -n 1)\n" \
	"\t\t[ -n \"$tok\" ] && code=$(printf 'header = \"Authorization: " \
	"Bearer %s\"\\n' \"$tok\" | curl -sS --max-time 60 -K - -H \"$acc\" " \
	"-o \"$mt\" -w '%{http_code}' -- \"$url\" 2>/dev/null)\n" \
	"\t\ttok=\n" \
	"\tfi\n" \
	"\t[ \"$code\" = 200 ] && printf 'sha256:%s\\n' " \
	"\"$(sha256sum <\"$mt\" | cut -d ' ' -f 1)\"\n" \
	"\trm -f -- \"$mt\" \"$mt.h\"\n" \
	"}\n"

char *
submit_convert_script(const struct submit_convert_args *a)
{
	struct buf	b;
	int		minutes;

	/*
	 * The allocation outlives the timeout a little (timeout kills
	 * srun), and is never below SUBMIT_IMPORT_MINUTES: a big image
	 * takes that long to pull and squash.  A partition MaxTime below
	 * it caps it (more would be refused).
	 */
	minutes = a->timeout / 60 + 2;
	if (minutes < SUBMIT_IMPORT_MINUTES)
		minutes = SUBMIT_IMPORT_MINUTES;
	if (a->max_minutes > 0 && minutes > a->max_minutes)
		minutes = a->max_minutes;
	buf_init(&b);
	buf_adds(&b, "LC_ALL=C; export LC_ALL\n"
	    SUBMIT_SH_REPORT SUBMIT_SH_SQSH_OK SUBMIT_SH_CSTAT SUBMIT_SH_MDIG
	    "mreg=");
	buf_add_quoted(&b, a->digest_registry != NULL ? a->digest_registry :
	    "");
	buf_adds(&b, "\nmrepo=");
	buf_add_quoted(&b, a->digest_repo != NULL ? a->digest_repo : "");
	buf_adds(&b, "\nmref=");
	buf_add_quoted(&b, a->digest_ref != NULL ? a->digest_ref : "");
	buf_adds(&b, "\npin=");
	buf_add_quoted(&b, a->pinned != NULL ? a->pinned : "");
	buf_adds(&b, "\ncache=");
	buf_add_quoted(&b, a->cache_dir);
	buf_adds(&b, "\nname=");
	buf_add_quoted(&b, a->cache_name);
	buf_adds(&b, "\nuri=");
	buf_add_quoted(&b, a->uri);
	buf_adds(&b, "\npart=");
	buf_add_quoted(&b, a->partition);
	buf_adds(&b, "\nacct=");
	buf_add_quoted(&b, a->account != NULL ? a->account : "");
	buf_adds(&b, "\njob=");
	buf_add_quoted(&b, a->job_name);
	buf_printf(&b, "\ntmo=%d\nmins=%d\nforce=%d\n", a->timeout, minutes,
	    a->force ? 1 : 0);
	buf_adds(&b,
	    "final=$cache/$name\n"
	    "lock=$cache/.$name.lock\n"
	    "tmp=$cache/.$name.tmp.$job\n"
	    /* Created for reading by all, writing by its owner only. */
	    "if ! err=$( (umask 022 && mkdir -p -- \"$cache\") 2>&1); then\n"
	    "\tprintf 'sqdeck-detail=cannot create %s: %s\\n' \"$cache\" "
	    "\"$err\"\n"
	    "\techo sqdeck-convert=error; exit 0\n"
	    "fi\n"
	    "if ! command -v flock >/dev/null 2>&1; then\n"
	    "\techo 'sqdeck-detail=flock (util-linux) is not installed "
	    "on the login node'\n"
	    "\techo sqdeck-convert=error; exit 0\n"
	    "fi\n"
	    /* One converter per image: the others wait, then reuse. */
	    "exec 9>>\"$lock\" || { echo sqdeck-convert=error; exit 0; }\n"
	    "if ! flock -w $((tmo + 60)) 9; then\n"
	    "\techo sqdeck-convert=lock; exit 0\n"
	    "fi\n"
	    "if [ \"$force\" = 0 ] && sqsh_ok \"$final\"; then\n"
	    "\techo sqdeck-convert=cached\n"
	    "\tprintf 'sqdeck-file=%s\\n' \"$(report \"$final\")\"\n"
	    "\tcstat \"$final\" sqdeck-cache=\n"
	    "\texit 0\n"
	    "fi\n"
	    /* We hold the lock: any temp file left is from a killed import. */
	    "rm -f -- \"$cache/.$name.tmp.\"*\n"
	    /*
	     * One task, 4 CPUs, 7200M (what a TAO-sized image needs), in
	     * /tmp with a node-local Enroot temp dir that is removed after.
	     */
	    "inner='export TMPDIR=/tmp "
	    "ENROOT_TEMP_PATH=/tmp/enroot-sqdeck-$SLURM_JOB_ID\n"
	    "export SLURM_ENROOT_TEMP_PATH=$ENROOT_TEMP_PATH\n"
	    "mkdir -p -- \"$ENROOT_TEMP_PATH\" || exit 1\n"
	    "cd /tmp || exit 1\n"
	    "enroot import -o \"$1\" \"$2\"\n"
	    "rc=$?\n"
	    "rm -rf -- \"$ENROOT_TEMP_PATH\"\n"
	    "exit $rc'\n"
	    "ilog=$(mktemp \"${TMPDIR:-/tmp}/sqdeck-import.XXXXXX\") || "
	    "{ echo sqdeck-convert=error; exit 0; }\n"
	    /*
	     * conv MEM: the import job; a job that a QOS memory limit
	     * holds (QOSMaxMemoryPerJob, QOSGrpMemLimit, ...) is cancelled
	     * at once and "qos" says so.
	     */
	    "conv() {\n"
	    "\tset -- srun -p \"$part\" -J \"$job\" -n 1 -c 4 --chdir=/tmp "
	    "--time=\"$mins\" ${1:+--mem=\"$1\"}\n"
	    "\t[ -n \"$acct\" ] && set -- \"$@\" --account=\"$acct\"\n"
	    "\ttimeout -k 10 \"$tmo\" \"$@\" bash -c \"$inner\" sqdeck-import "
	    "\"$tmp\" \"$uri\" >\"$ilog\" 2>&1 </dev/null &\n"
	    "\tp=$!\n"
	    "\tqos=\n"
	    "\twhile kill -0 \"$p\" 2>/dev/null; do\n"
	    "\t\tst=$(squeue -h -n \"$job\" -o '%T %r' 2>/dev/null | "
	    "head -n 1)\n"
	    "\t\tcase $st in\n"
	    "\t\tRUNNING*|COMPLETING*) break ;;\n"
	    "\t\t'PENDING QOS'*Mem*)\n"
	    "\t\t\tqos=${st#PENDING }\n"
	    "\t\t\tscancel --me -n \"$job\" 2>/dev/null\n"
	    "\t\t\tbreak ;;\n"
	    "\t\tesac\n"
	    "\t\tsleep 1\n"
	    "\tdone\n"
	    "\twait \"$p\"\n"
	    "\trc=$?\n"
	    "\tif [ -z \"$qos\" ] && [ \"$rc\" -ne 0 ] && grep -qE "
	    "'QOS|MaxMemPer|[Mm]emory required by task' \"$ilog\"; then\n"
	    "\t\tqos=$(grep -m1 -E 'QOS|MaxMemPer|[Mm]emory required' "
	    "\"$ilog\")\n"
	    "\tfi\n"
	    "\treturn 0\n"
	    "}\n"
	    "echo \"sqdeck-detail=srun -p $part -J $job -n 1 -c 4 --mem=7200M "
	    "--chdir=/tmp --time=$mins enroot import\"\n"
	    "conv 7200M\n"
	    "if [ -n \"$qos\" ]; then\n"
	    /* The site's memory limit is below 7200M: its default, once. */
	    "\tcat -- \"$ilog\"\n"
	    "\tprintf 'sqdeck-qos=%s\\n' \"$qos\"\n"
	    "\trm -f -- \"$tmp\"\n"
	    "\tconv \"\"\n"
	    "fi\n"
	    "cat -- \"$ilog\"\n"
	    "rm -f -- \"$ilog\"\n"
	    "if [ -n \"$qos\" ]; then\n"
	    "\tprintf 'sqdeck-qos=%s\\n' \"$qos\"\n"
	    "\trm -f -- \"$tmp\"; echo sqdeck-convert=qos; exit 0\n"
	    "fi\n"
	    "echo \"sqdeck-rc=$rc\"\n"
	    "if [ \"$rc\" -eq 124 ] || [ \"$rc\" -eq 137 ]; then\n"
	    "\trm -f -- \"$tmp\"; echo sqdeck-convert=timeout; exit 0\n"
	    "fi\n"
	    "if [ \"$rc\" -ne 0 ]; then\n"
	    "\trm -f -- \"$tmp\"; echo sqdeck-convert=failed; exit 0\n"
	    "fi\n"
	    "if ! sqsh_ok \"$tmp\"; then\n"
	    "\tif [ -f \"$tmp\" ]; then\n"
	    "\t\tprintf 'sqdeck-file=%s\\n' \"$(report \"$tmp\")\"\n"
	    "\tfi\n"
	    "\trm -f -- \"$tmp\"; echo sqdeck-convert=invalid; exit 0\n"
	    "fi\n"
	    /* What the registry serves for the ref; a pinned one must match. */
	    "dig=$(mdig)\n"
	    "if [ -n \"$pin\" ] && [ -n \"$dig\" ] && [ \"$dig\" != \"$pin\" ]; "
	    "then\n"
	    "\trm -f -- \"$tmp\"\n"
	    "\tprintf 'sqdeck-detail=the registry serves %s for the pinned %s\\n' "
	    "\"$dig\" \"$pin\"\n"
	    "\techo sqdeck-convert=error; exit 0\n"
	    "fi\n"
	    "[ -n \"$dig\" ] || dig=$pin\n"
	    "chmod 644 -- \"$tmp\"\n"
	    "rm -f -- \"$final.digest\"\n"
	    /* rename(2) in one directory: readers see no file or a whole one. */
	    "if ! err=$(mv -f -- \"$tmp\" \"$final\" 2>&1); then\n"
	    "\trm -f -- \"$tmp\"\n"
	    "\tprintf 'sqdeck-detail=%s\\n' \"$err\"\n"
	    "\techo sqdeck-convert=error; exit 0\n"
	    "fi\n"
	    /* The digest next to it, written exclusively (set -C). */
	    "if [ -n \"$dig\" ]; then\n"
	    "\trm -f -- \"$final.digest.$job\"\n"
	    "\t( set -C; umask 022; printf '%s\\n' \"$dig\" "
	    ">\"$final.digest.$job\" ) 2>/dev/null &&\n"
	    "\t    mv -f -- \"$final.digest.$job\" \"$final.digest\"\n"
	    "\tprintf 'sqdeck-digest=%s\\n' \"$dig\"\n"
	    "fi\n"
	    "printf 'sqdeck-file=%s\\n' \"$(report \"$final\")\"\n"
	    "cstat \"$final\" sqdeck-cache=\n"
	    "echo sqdeck-convert=converted\n");
	return buf_steal(&b);
}

static void
submit_addline(struct buf *b, const char *line)
{
	/* Appended in place: a long enroot log stays linear. */
	if (b->len != 0)
		buf_add(b, "\n", 1);
	buf_adds(b, line);
}

/* The lines gathered, or NULL for none. */
static char *
submit_lines(struct buf *b)
{
	if (b->len == 0) {
		buf_free(b);
		return NULL;
	}
	return buf_steal(b);
}

void
submit_convert_parse(const char *out, struct submit_convert_result *r)
{
	char			*copy, *line, *next, *v, hex[512];
	unsigned long long	 size;
	struct buf		 output, detail, qos;

	memset(r, 0, sizeof *r);
	image_cache_stat_init(&r->cache);
	r->rc = -1;
	buf_init(&output);
	buf_init(&detail);
	buf_init(&qos);
	copy = xstrdup(out != NULL ? out : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!str_has_prefix(line, "sqdeck-")) {
			if (*line != '\0')
				submit_addline(&output, line);
			continue;
		}
		v = strchr(line, '=');
		if (v == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-convert") == 0) {
			if (strcmp(v, "cached") == 0)
				r->verdict = SUBMIT_CONVERT_CACHED;
			else if (strcmp(v, "converted") == 0)
				r->verdict = SUBMIT_CONVERT_CONVERTED;
			else if (strcmp(v, "failed") == 0)
				r->verdict = SUBMIT_CONVERT_FAILED;
			else if (strcmp(v, "timeout") == 0)
				r->verdict = SUBMIT_CONVERT_TIMEOUT;
			else if (strcmp(v, "invalid") == 0)
				r->verdict = SUBMIT_CONVERT_INVALID;
			else if (strcmp(v, "lock") == 0)
				r->verdict = SUBMIT_CONVERT_LOCK;
			else if (strcmp(v, "qos") == 0)
				r->verdict = SUBMIT_CONVERT_QOS;
			else
				r->verdict = SUBMIT_CONVERT_ERROR;
		} else if (strcmp(line, "sqdeck-rc") == 0)
			r->rc = atoi(v);
		else if (strcmp(line, "sqdeck-detail") == 0)
			submit_addline(&detail, v);
		else if (strcmp(line, "sqdeck-cache") == 0)
			image_cache_stat_line(&r->cache, v);
		else if (strcmp(line, "sqdeck-qos") == 0)
			submit_addline(&qos, v);
		else if (strcmp(line, "sqdeck-file") == 0) {
			hex[0] = '\0';
			if (sscanf(v, "%llu %511s", &size, hex) >= 1) {
				r->size = size;
				r->headlen = submit_unhex(hex, r->head,
				    sizeof r->head);
			}
		}
	}
	free(copy);
	r->output = submit_lines(&output);
	r->detail = submit_lines(&detail);
	r->qos = submit_lines(&qos);
}

void
submit_convert_free(struct submit_convert_result *r)
{
	free(r->output);
	free(r->detail);
	free(r->qos);
	memset(r, 0, sizeof *r);
}

/*
 * The log directory must exist before the job starts (SLURM 22.05 fails
 * the job with 0:53 otherwise), so jobs are submitted held and released
 * after the mkdir.  squeue is asked only when the release failed (is the
 * job still held?) or the job stays held (--hold): a released job is
 * PENDING, and the submit's record says so without another RPC.
 */
#define SUBMIT_SH_RELEASE \
	"release() {\n" \
	"\td=$1/$2-$3\n" \
	"\tif ! mkdir -p -- \"$d\"; then\n" \
	"\t\techo sqdeck-mkdir=failed\n" \
	"\t\tscancel \"$3\" </dev/null\n" \
	"\t\treturn\n" \
	"\tfi\n" \
	"\trrc=0; msg=\n" \
	"\tif [ \"${hold:-0}\" != 1 ]; then\n" \
	"\t\tmsg=$(scontrol release \"$3\" 2>&1 </dev/null); rrc=$?\n" \
	"\tfi\n" \
	"\techo \"sqdeck-release-rc=$rrc\"\n" \
	"\t[ -z \"$msg\" ] ||\n" \
	"\t    printf '%s\\n' \"$msg\" | sed '/^$/d; s/^/sqdeck-release-msg=/'\n" \
	/* Released: PENDING, no need to ask.  Else: still held, or why. */ \
	"\tif [ \"$rrc\" != 0 ] || [ \"${hold:-0}\" = 1 ]; then\n" \
	"\t\tst=$(squeue -h -j \"$3\" -o '%T %r' 2>/dev/null </dev/null)\n" \
	"\t\tprintf 'sqdeck-state=%s\\n' \"$st\"\n" \
	"\tfi\n" \
	"}\n"

char *
submit_launch_script(const char *job_dir, const char *sbatch_cmd,
    const char *log_dir, const char *job_name, const char *fault, int hold)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "LC_ALL=C; export LC_ALL\n" SUBMIT_SH_RELEASE);
	/* --hold: the log dir is made, the job stays held for the user. */
	buf_adds(&b, hold ? "hold=1\njd=" : "hold=0\njd=");
	buf_add_quoted(&b, job_dir);
	buf_adds(&b, "\nlogs=");
	buf_add_quoted(&b, log_dir);
	buf_adds(&b, "\nname=");
	buf_add_quoted(&b, job_name);
	/* The job's working directory is its job dir. */
	buf_adds(&b, "\n"
	    "cd -- \"$jd\" || { echo sqdeck-sbatch-rc=-1; exit 0; }\n"
	    "e=sbatch/.sbatch.err\n"
	    "out=$(");
	buf_adds(&b, sbatch_cmd);
	buf_adds(&b, " 2>\"$e\" </dev/null)\n"
	    "rc=$?\n");
	if (fault != NULL && strcmp(fault, "after-sbatch") == 0) {
		/*
		 * TEST HOOK: kill this SSH session's sshd, so the client
		 * sees the connection drop right after sbatch queued the job.
		 */
		buf_adds(&b,
		    "p=$$\n"
		    "while [ -n \"$p\" ] && [ \"$p\" -gt 1 ]; do\n"
		    "\tif [ \"$(ps -o comm= -p \"$p\")\" = sshd ]; then\n"
		    "\t\tkill -9 \"$p\"; sleep 2; exit 0\n"
		    "\tfi\n"
		    "\tp=$(ps -o ppid= -p \"$p\" | tr -d ' ')\n"
		    "done\n"
		    "echo sqdeck-fault=no-sshd\n");
	} else if (fault != NULL && strcmp(fault, "empty-reply") == 0) {
		/* TEST HOOK: sbatch's answer is lost. */
		buf_adds(&b, "out=; : >\"$e\"\n");
	}
	buf_adds(&b,
	    "echo \"sqdeck-sbatch-rc=$rc\"\n"
	    "[ -z \"$out\" ] || printf '%s\\n' \"$out\" | "
	    "sed '/^$/d; s/^/sqdeck-out=/'\n"
	    "[ ! -s \"$e\" ] || sed '/^$/d; s/^/sqdeck-err=/' \"$e\"\n"
	    "rm -f -- \"$e\"\n"
	    "id=${out%%;*}\n"
	    "case $id in ''|*[!0-9]*) exit 0 ;; esac\n"
	    "release \"$logs\" \"$name\" \"$id\"\n");
	return buf_steal(&b);
}

char *
submit_release_script(long id, const char *log_dir, const char *job_name)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "LC_ALL=C; export LC_ALL\n" SUBMIT_SH_RELEASE
	    "release ");
	buf_add_quoted(&b, log_dir);
	buf_adds(&b, " ");
	buf_add_quoted(&b, job_name);
	buf_printf(&b, " %ld\n", id);
	return buf_steal(&b);
}

void
submit_launch_parse(const char *text, struct submit_launch *l)
{
	char		*copy, *line, *next, *v, *sp;
	struct buf	 out, err, msg;
	int		 release_rc = -1;

	memset(l, 0, sizeof *l);
	l->sbatch_rc = -1;
	buf_init(&out);
	buf_init(&err);
	buf_init(&msg);
	copy = xstrdup(text != NULL ? text : "");
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!str_has_prefix(line, "sqdeck-") ||
		    (v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-sbatch-rc") == 0)
			l->sbatch_rc = atoi(v);
		else if (strcmp(line, "sqdeck-out") == 0)
			submit_addline(&out, v);
		else if (strcmp(line, "sqdeck-err") == 0)
			submit_addline(&err, v);
		else if (strcmp(line, "sqdeck-mkdir") == 0)
			l->mkdir_failed = 1;
		else if (strcmp(line, "sqdeck-release-rc") == 0)
			release_rc = atoi(v);
		else if (strcmp(line, "sqdeck-release-msg") == 0)
			submit_addline(&msg, v);
		else if (strcmp(line, "sqdeck-state") == 0 && *v != '\0') {
			/* A repeated line replaces the earlier one. */
			free(l->state);
			free(l->reason);
			l->reason = NULL;
			if ((sp = strchr(v, ' ')) != NULL) {
				*sp++ = '\0';
				l->reason = xstrdup(sp);
			}
			l->state = xstrdup(v);
		}
	}
	free(copy);
	l->out = submit_lines(&out);
	l->err = submit_lines(&err);
	l->release_msg = submit_lines(&msg);
	/*
	 * A release that fails because the job is no longer held (someone
	 * released it, or it already ended) is not a failure.
	 */
	if (release_rc == 0)
		l->released = 1;
	else if (release_rc > 0 && (l->reason == NULL ||
	    strcmp(l->reason, "JobHeldUser") != 0))
		l->released = 1;
}

void
submit_launch_free(struct submit_launch *l)
{
	free(l->out);
	free(l->err);
	free(l->release_msg);
	free(l->state);
	free(l->reason);
	memset(l, 0, sizeof *l);
}

char *
submit_creds_script(void)
{
	/*
	 * The key arrives as the shell variable "key" set by the line the
	 * caller puts first; only builtins see it.  Lines for other
	 * machines are kept; ours are replaced.
	 */
	return xstrdup(
	    "umask 077\n"
	    "dir=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}\n"
	    "f=$dir/.credentials\n"
	    "if ! err=$(mkdir -p -- \"$dir\" 2>&1); then\n"
	    "\tprintf 'sqdeck-creds-error=%s\\n' \"$err\"; exit 0\n"
	    "fi\n"
	    "tmp=$f.tmp.$$\n"
	    "kept=0\n"
	    "if [ -f \"$f\" ]; then\n"
	    "\tawk -v m=\"$machines\" 'BEGIN { n = split(m, a, \" \"); "
	    "for (i = 1; i <= n; i++) d[a[i]] = 1 } "
	    "!($1 == \"machine\" && ($2 in d))' \"$f\" >\"$tmp\"\n"
	    "\tkept=$(grep -c . \"$tmp\")\n"
	    "else\n"
	    "\t: >\"$tmp\"\n"
	    "fi\n"
	    "for m in $machines; do\n"
	    "\tprintf 'machine %s login %s password %s\\n' \"$m\" \"$login\" "
	    "\"$key\" >>\"$tmp\"\n"
	    "done\n"
	    "key=\n"
	    "chmod 600 -- \"$tmp\"\n"
	    "if ! err=$(mv -f -- \"$tmp\" \"$f\" 2>&1); then\n"
	    "\trm -f -- \"$tmp\"\n"
	    "\tprintf 'sqdeck-creds-error=%s\\n' \"$err\"; exit 0\n"
	    "fi\n"
	    "printf 'sqdeck-creds-path=%s\\n' \"$f\"\n"
	    "echo \"sqdeck-creds-kept=$kept\"\n"
	    "echo \"sqdeck-creds-mode=$(stat -c %a -- \"$f\")\"\n"
	    "echo sqdeck-creds=ok\n");
}

/* --- supporting files (R13) ------------------------------------------------ */

#define SUBMIT_FILE_MAX	(8 * 1024 * 1024)	/* "small" auxiliary inputs */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t	w[64], a, b, c, d, e, f, g, k, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		k = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void
submit_sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t		 h[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};
	const unsigned char	*p = data;
	unsigned char		 tail[128];
	uint64_t		 bits = (uint64_t)len * 8;
	size_t			 i, rest, n;

	for (i = 0; i + 64 <= len; i += 64)
		sha256_block(h, p + i);
	rest = len - i;
	memset(tail, 0, sizeof tail);
	if (rest != 0)
		memcpy(tail, p + i, rest);
	tail[rest] = 0x80;
	n = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[n - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(h, tail);
	if (n == 128)
		sha256_block(h, tail + 64);
	for (i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

char *
submit_file_member(const char *path)
{
	const char	*p;

	/* A clean relative path keeps its shape; anything else its name. */
	if (*path != '/' && strstr(path, "..") == NULL)
		p = path;
	else if ((p = strrchr(path, '/')) != NULL)
		p++;
	else
		p = path;
	while (str_has_prefix(p, "./"))
		p += 2;
	return xasprintf("files/%s", p);
}

/* --- remote helpers ------------------------------------------------------ */

/*
 * Run a script on the login node: on stdin of /bin/sh -s, inside braces
 * so sh reads all of it before running anything (no command can eat the
 * rest from stdin, and a secret in it is never in an argv).
 */
static int
submit_sh(struct conn *c, const char *body, int timeout,
    struct conn_result *res, char **cause)
{
	struct buf	b;
	int		rc;

	buf_init(&b);
	buf_adds(&b, "{\n");
	buf_adds(&b, body);
	buf_adds(&b, "\n} </dev/null\n");
	rc = conn_exec_limit(c, "/bin/sh -s", b.data, b.len, timeout, 0, res,
	    cause);
	/* The script may have held a secret: scrub our copy. */
	memset(b.data, 0, b.len);
	buf_free(&b);
	return rc;
}

/* --- test hooks (SQDECK_TEST_FAULT, see submit.h) ---------------------- */

static const char *submit_fault_points[] = {
	"preflight", "check", "image", "record", "render", "stage", "launch",
	"reconcile", "release", "wipe", "recover", NULL
};

int
submit_faults_parse(const char *value, struct submit_faults *f, char **cause)
{
	static const struct {
		const char		*word;
		enum submit_fault_kind	 kind;
	} kinds[] = {
		{ "cut-before", SUBMIT_FAULT_CUT_BEFORE },
		{ "cut-after", SUBMIT_FAULT_CUT_AFTER },
		{ "kill-before", SUBMIT_FAULT_KILL_BEFORE },
		{ "kill-after", SUBMIT_FAULT_KILL_AFTER },
		{ "kill", SUBMIT_FAULT_KILL_AFTER },
		{ "stop-before", SUBMIT_FAULT_STOP_BEFORE },
		{ "stop-after", SUBMIT_FAULT_STOP_AFTER },
	};
	char	*copy, *item, *next, *colon;
	size_t	 i, k;
	int	 rc = -1;

	memset(f, 0, sizeof *f);
	if (value == NULL || *value == '\0')
		return 0;
	copy = xstrdup(value);
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		if (strcmp(item, "after-sbatch") == 0) {
			f->launch = "after-sbatch";
			continue;
		}
		if (strcmp(item, "empty-reply") == 0) {
			f->launch = "empty-reply";
			continue;
		}
		if ((colon = strchr(item, ':')) == NULL)
			goto bad;
		*colon++ = '\0';
		for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			if (strcmp(item, kinds[k].word) == 0)
				break;
		}
		for (i = 0; submit_fault_points[i] != NULL; i++) {
			if (strcmp(colon, submit_fault_points[i]) == 0)
				break;
		}
		if (k == sizeof kinds / sizeof kinds[0] ||
		    submit_fault_points[i] == NULL || f->n == SUBMIT_FAULT_MAX) {
			colon[-1] = ':';
			goto bad;
		}
		f->v[f->n].kind = kinds[k].kind;
		snprintf(f->v[f->n].point, sizeof f->v[f->n].point, "%s", colon);
		f->n++;
	}
	rc = 0;
	goto out;
bad:
	cause_set(cause, "SQDECK_TEST_FAULT: \"%s\" is not a fault (a "
	    "comma list of after-sbatch, empty-reply, or "
	    "cut-before|cut-after|kill-before|kill-after|kill|stop-before|"
	    "stop-after:POINT, at most %d)", item, SUBMIT_FAULT_MAX);
out:
	free(copy);
	return rc;
}

/*
 * Point reached (after: done): SIGKILL or SIGSTOP ourselves if asked.
 * From a remote command (remote set), returns the cut to apply to it.
 */
static enum submit_fault_kind
submit_fault_hit(struct submit_faults *f, const char *point, int after,
    int remote)
{
	enum submit_fault_kind	 cut = 0, k;
	size_t			 i;

	for (i = 0; f != NULL && i < f->n; i++) {
		if (f->v[i].fired || strcmp(f->v[i].point, point) != 0)
			continue;
		k = f->v[i].kind;
		if (after != (k == SUBMIT_FAULT_KILL_AFTER ||
		    k == SUBMIT_FAULT_STOP_AFTER))
			continue;
		if (!remote && (k == SUBMIT_FAULT_CUT_BEFORE ||
		    k == SUBMIT_FAULT_CUT_AFTER))
			continue;
		f->v[i].fired = 1;
		if (k == SUBMIT_FAULT_KILL_BEFORE || k == SUBMIT_FAULT_KILL_AFTER)
			raise(SIGKILL);
		else if (k == SUBMIT_FAULT_STOP_BEFORE ||
		    k == SUBMIT_FAULT_STOP_AFTER)
			raise(SIGSTOP);
		else
			cut = k;
	}
	return cut;
}

/* Kill the sshd of this session: the client sees the connection drop. */
#define SUBMIT_SH_CUT \
	"sd_cut() {\n" \
	"\tp=$$\n" \
	"\twhile [ -n \"$p\" ] && [ \"$p\" -gt 1 ]; do\n" \
	"\t\tif [ \"$(ps -o comm= -p \"$p\")\" = sshd ]; then\n" \
	"\t\t\tkill -9 \"$p\"; sleep 2; exit 0\n" \
	"\t\tfi\n" \
	"\t\tp=$(ps -o ppid= -p \"$p\" | tr -d ' ')\n" \
	"\tdone\n" \
	"\techo sqdeck-fault=no-sshd; exit 0\n" \
	"}\n"

/* Drop the connection between two commands (the next one reconnects). */
static void
submit_cut_now(struct conn *c)
{
	struct conn_result	res;

	if (submit_sh(c, SUBMIT_SH_CUT "sd_cut\n", 0, &res, NULL) == 0)
		conn_result_free(&res);
}

/*
 * submit_sh with the faults of point applied; plain: body is one command
 * run as is (conn_exec) when there is no cut.
 */
static int
submit_remote_cmd(struct submit_faults *f, const char *point, struct conn *c,
    const char *body, int plain, int timeout, struct conn_result *res,
    char **cause)
{
	enum submit_fault_kind	 cut;
	struct buf		 b;
	int			 rc;

	cut = submit_fault_hit(f, point, 0, 1);
	if (cut == 0 && plain)
		rc = conn_exec(c, body, NULL, 0, res, cause);
	else if (cut == 0)
		rc = submit_sh(c, body, timeout, res, cause);
	else {
		/* The work is done (or not at all); the reply never comes. */
		buf_init(&b);
		buf_adds(&b, SUBMIT_SH_CUT);
		if (cut == SUBMIT_FAULT_CUT_BEFORE)
			buf_adds(&b, "sd_cut\n");
		buf_adds(&b, "(\n");
		buf_adds(&b, body);
		buf_adds(&b, "\n) >/dev/null 2>&1\nsd_cut\n");
		rc = submit_sh(c, b.data, timeout, res, cause);
		memset(b.data, 0, b.len);
		buf_free(&b);
	}
	submit_fault_hit(f, point, 1, 1);
	return rc;
}

static int
submit_remote(struct submit_faults *f, const char *point, struct conn *c,
    const char *body, int timeout, struct conn_result *res, char **cause)
{
	return submit_remote_cmd(f, point, c, body, 0, timeout, res, cause);
}

char *
submit_creds_machine(const char *registry, char **cause)
{
	const char	*p, *colon;
	size_t		 n;

	if (registry == NULL || *registry == '\0') {
		cause_set(cause, "the registry is empty: give HOST or "
		    "HOST:PORT, e.g. nvcr.io or 10.0.0.1:5000");
		return NULL;
	}
	colon = strchr(registry, ':');
	n = colon != NULL ? (size_t)(colon - registry) : strlen(registry);
	for (p = registry; p < registry + n; p++) {
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			break;
	}
	if (n == 0 || p != registry + n || *registry == '-' ||
	    *registry == '.') {
		cause_set(cause, "registry '%s': the host may hold only "
		    "letters, digits, '.' and '-': give HOST or HOST:PORT, "
		    "without a scheme or a path", registry);
		return NULL;
	}
	if (colon != NULL) {
		for (p = colon + 1; isdigit((unsigned char)*p); p++)
			;
		if (p == colon + 1 || *p != '\0' || p - colon > 6) {
			cause_set(cause, "registry '%s': the port must be a "
			    "number: give HOST or HOST:PORT", registry);
			return NULL;
		}
	}
	return xstrndup(registry, n);
}

/* Login and key become netrc fields: no blanks, nothing enroot evaluates. */
static int
submit_creds_word(const char *what, const char *v, char **cause)
{
	const char	*p;

	if (v == NULL || *v == '\0')
		return cause_set(cause, "the %s is empty", what);
	for (p = v; *p != '\0'; p++) {
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return cause_set(cause, "the %s contains blanks or "
			    "control characters, which a netrc line cannot "
			    "hold: paste it alone", what);
	}
	return 0;
}

int
submit_creds_install(struct conn *c, const char *registry, const char *login,
    const char *key, struct submit_creds *cr, char **cause)
{
	struct conn_result	 res;
	struct buf		 b;
	char			*body, *why = NULL, *line, *next, *v, *m;
	int			 ok = 0, rc = -1;

	memset(cr, 0, sizeof *cr);
	if (registry == NULL) {
		cr->machines = xstrdup("nvcr.io authn.nvidia.com");
		cr->login = xstrdup("$oauthtoken");
	} else {
		if ((m = submit_creds_machine(registry, cause)) == NULL)
			return -1;
		cr->machines = m;
		if (login == NULL && strcmp(m, "nvcr.io") == 0)
			login = "$oauthtoken";
		if (login == NULL) {
			submit_creds_free(cr);
			return cause_set(cause, "registry %s needs a login: "
			    "give --login USER", registry);
		}
		cr->login = xstrdup(login);
	}
	if (submit_creds_word("login", cr->login, cause) != 0 ||
	    submit_creds_word(registry == NULL ? "NGC key" : "password", key,
	    cause) != 0) {
		submit_creds_free(cr);
		return -1;
	}
	/*
	 * Enroot runs a password that starts with '$' through the shell
	 * (it stands for a variable there): a literal one would be lost.
	 */
	if (*key == '$') {
		submit_creds_free(cr);
		return cause_set(cause, "the %s starts with '$', which Enroot "
		    "would expand as a shell variable instead of sending it: "
		    "such a password cannot be stored in its credentials",
		    registry == NULL ? "NGC key" : "password");
	}
	buf_init(&b);
	buf_adds(&b, "key=");
	buf_add_quoted(&b, key);
	buf_adds(&b, "\nlogin=");
	buf_add_quoted(&b, cr->login);
	buf_adds(&b, "\nmachines=");
	buf_add_quoted(&b, cr->machines);
	buf_adds(&b, "\n");
	body = submit_creds_script();
	buf_adds(&b, body);
	free(body);
	if (submit_sh(c, b.data, 0, &res, &why) != 0) {
		memset(b.data, 0, b.len);
		buf_free(&b);
		cause_set(cause, "installing enroot credentials: %s", why);
		free(why);
		submit_creds_free(cr);
		return -1;
	}
	memset(b.data, 0, b.len);
	buf_free(&b);
	for (line = res.out; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		if (strcmp(line, "sqdeck-creds") == 0)
			ok = strcmp(v, "ok") == 0;
		else if (strcmp(line, "sqdeck-creds-path") == 0) {
			free(cr->path);
			cr->path = xstrdup(v);
		} else if (strcmp(line, "sqdeck-creds-kept") == 0)
			cr->kept = atoi(v);
		else if (strcmp(line, "sqdeck-creds-error") == 0) {
			cause_set(cause, "installing enroot credentials on the "
			    "cluster: %s", v);
			goto out;
		}
	}
	if (!ok) {
		cause_set(cause, "installing enroot credentials: the script "
		    "did not finish (exit %d%s%.200s)", res.status,
		    res.errlen ? ", stderr: " : "", res.err);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		submit_creds_free(cr);
	conn_result_free(&res);
	return rc;
}

void
submit_creds_free(struct submit_creds *cr)
{
	free(cr->path);
	free(cr->machines);
	free(cr->login);
	memset(cr, 0, sizeof *cr);
}

/* --- the pipeline -------------------------------------------------------- */

struct submit_ctx {
	struct submit_session		*s;
	const struct spec		*sp;
	const struct submit_opts	*o;
	struct submit_result		*res;
	struct image_ref		 img;
	struct plan			 plan;
	struct submit_layout		 lay;
	char				*record_id;
	char				*results_root;
	struct lint_secret		*sec;
	size_t				 nsec;
	int				 record_open;
	struct nccl_job			 nccl;	/* R21 probe or cached setting */
	struct buf			*files;	/* contents, one per spec file */
	char				**members;	/* their tar names */
	/* Interrupted submits (see submit.h). */
	struct submit_faults		 faults;
	int				 lockfd;	/* records/.submit-ID.lock */
	char				*lockpath;
	char				 spec_sha[65];
	int				 staged;	/* the stage was sent */
	const char			*unresolved;	/* "submit:reconcile" or
							   "submit:release" */
};

static void
submit_say(struct submit_ctx *x, enum submit_step step, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
submit_say(struct submit_ctx *x, enum submit_step step, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	if (x->o->progress == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	x->o->progress(x->o->arg, step, text);
	free(text);
}

static int
submit_fail(struct submit_ctx *x, enum submit_step step, char **cause,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Record the failing step; a record already opened goes to ERROR. */
static int
submit_fail(struct submit_ctx *x, enum submit_step step, char **cause,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*text, *why = NULL;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	x->res->failed = 1;
	x->res->failed_step = step;
	if (x->record_open && x->unresolved != NULL) {
		/* A job may exist: the next submit looks it up (recover). */
		record_transition(x->record_id, RSTATE_UNKNOWN, "",
		    x->unresolved, text, &why);
		free(why);
		free(x->res->state);
		x->res->state = xstrdup(state_name(RSTATE_UNKNOWN));
	} else if (x->record_open) {
		/* Until the sidecar is removed, recover has work left. */
		if (record_transition(x->record_id, RSTATE_ERROR, "",
		    x->staged && x->nsec != 0 ? "submit:unwiped" : "submit",
		    text, &why) == 0)
			record_set_err(x->record_id, ERR_CONFIG,
			    submit_step_name(step), NULL);
		free(why);
		free(x->res->state);
		x->res->state = xstrdup(state_name(RSTATE_ERROR));
	}
	cause_set(cause, "%s", text);
	free(text);
	return -1;
}

static const char *
submit_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* Values of the spec's secrets; a missing one stops here. */
static int
submit_secrets(struct submit_ctx *x, char **cause)
{
	const char	*(*get)(const char *, void *);
	const char	*v;
	struct buf	 missing;
	size_t		 i;

	get = x->o->secret != NULL ? x->o->secret : submit_getenv;
	x->nsec = x->sp->secrets.n;
	x->sec = xcalloc(x->nsec + 1, sizeof *x->sec);
	buf_init(&missing);
	for (i = 0; i < x->nsec; i++) {
		x->sec[i].name = x->sp->secrets.v[i];
		v = get(x->sp->secrets.v[i], x->o->arg);
		if (v == NULL || *v == '\0') {
			buf_printf(&missing, "%s%s", missing.len ? ", " : "",
			    x->sp->secrets.v[i]);
			v = "";
		}
		x->sec[i].value = v;
		strv_add(&x->res->secrets, x->sp->secrets.v[i]);
	}
	if (missing.len != 0 && x->o->dry_run) {
		/* A dry run shows the script; values are only linted. */
		submit_say(x, SUBMIT_STEP_SECRETS, "warning: not set here: %s "
		    "(a real submit stops on this)", missing.data);
	} else if (missing.len != 0) {
		submit_fail(x, SUBMIT_STEP_SECRETS, cause, "secret%s %s %s "
		    "listed in the spec but not set in this environment: "
		    "export %s before submitting (values are read here and "
		    "sent only over SSH stdin)", strchr(missing.data, ',') ?
		    "s" : "", missing.data, strchr(missing.data, ',') ? "are" :
		    "is", strchr(missing.data, ',') ? "them" : "it");
		buf_free(&missing);
		return -1;
	}
	buf_free(&missing);
	return 0;
}

/*
 * Supporting files are staged only when closed by a checksum (R13): read
 * them here, before anything remote, and compare.
 */
static int
submit_files_read(struct submit_ctx *x, char **cause)
{
	const struct spec_file	*f;
	char			*path, *dir, *slash, *data, *why = NULL;
	char			 hex[65];
	size_t			 i, len;

	if (x->sp->nfiles == 0)
		return 0;
	x->files = xcalloc(x->sp->nfiles, sizeof *x->files);
	x->members = xcalloc(x->sp->nfiles, sizeof *x->members);
	dir = xstrdup(x->sp->path != NULL ? x->sp->path : "./x");
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}
	for (i = 0; i < x->sp->nfiles; i++) {
		f = &x->sp->files[i];
		path = *f->path == '/' ? xstrdup(f->path) : xasprintf("%s/%s",
		    dir, f->path);
		/* Checked before it is read: a FIFO or /dev/zero is refused. */
		if (file_read_max(path, SUBMIT_FILE_MAX, &data, &len,
		    &why) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "files: "
			    "supporting file %s: %s; only small regular files "
			    "(up to %d MiB) are staged: put anything else on "
			    "shared storage and mount it", f->path, why,
			    SUBMIT_FILE_MAX >> 20);
			goto fail;
		}
		buf_init(&x->files[i]);
		buf_add(&x->files[i], data, len);
		free(data);
		submit_sha256_hex(x->files[i].data, len, hex);
		if (strcasecmp(hex, f->sha256) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "supporting "
			    "file %s has sha256 %s but the spec says %s: update "
			    "the spec (sha256sum %s) or restore the file",
			    f->path, hex, f->sha256, path);
			goto fail;
		}
		x->members[i] = submit_file_member(f->path);
		if (strlen(x->members[i]) >= 100) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "supporting "
			    "file %s: the path is too long to stage (99 bytes "
			    "at most)", f->path);
			goto fail;
		}
		free(path);
	}
	free(dir);
	return 0;
fail:
	free(why);
	free(path);
	free(dir);
	return -1;
}

static int
submit_plan(struct submit_ctx *x, char **cause)
{
	const struct preflight	*pf = &x->s->pf;
	struct plan_limit	*lim;
	char			*why = NULL;
	size_t			 i;
	int			 rc;

	lim = xcalloc(pf->nparts + 1, sizeof *lim);
	for (i = 0; i < pf->nparts; i++) {
		lim[i].name = pf->parts[i].name;
		lim[i].max_minutes = pf->parts[i].max_minutes < 0 ?
		    PLAN_UNLIMITED : (int)pf->parts[i].max_minutes;
		lim[i].state = pf->parts[i].avail;
		lim[i].nodes = pf->parts[i].nodes;
		lim[i].cpus = pf->parts[i].cpus;
		lim[i].gres_known = pf->parts[i].gres_known;
		lim[i].gpus_per_node = pf->parts[i].gpus;
	}
	rc = plan_make(x->sp, x->s->cl, lim, pf->nparts, &x->plan, &why);
	free(lim);
	if (rc != 0) {
		submit_fail(x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
		return -1;
	}
	/* plan_make checked each partition against sinfo's list. */
	return 0;
}

/* The paths R6 wants checked: datasets (resolved) and mount sources. */
static int
submit_paths(struct submit_ctx *x, struct strv *paths, struct strv *what,
    char **cause)
{
	char	*path, *why = NULL;
	size_t	 i;

	for (i = 0; i < x->sp->datasets.n; i++) {
		if (uri_resolve("dataset", x->sp->datasets.v[i],
		    x->results_root, &path, &why) != 0) {
			submit_fail(x, SUBMIT_STEP_CHECK, cause, "%s", why);
			free(why);
			return -1;
		}
		strv_add(paths, path);
		free(path);
		path = xasprintf("dataset %s", x->sp->datasets.v[i]);
		strv_add(what, path);
		free(path);
	}
	for (i = 0; i < x->sp->nmounts; i++) {
		strv_add(paths, x->sp->mounts[i].src);
		path = xasprintf("mount source %s (mount %s:%s)",
		    x->sp->mounts[i].src, x->sp->mounts[i].src,
		    x->sp->mounts[i].dst);
		strv_add(what, path);
		free(path);
	}
	return 0;
}

static char *
submit_cache_dir(struct submit_ctx *x)
{
	if (x->s->cl->image_cache != NULL)
		return xstrdup(x->s->cl->image_cache);
	return xasprintf("%s/.sqsh", x->results_root);
}

/*
 * Explain enroot's credential failures (R7).  Enroot prints no error of
 * its own when the registry refuses it: its last words are who it
 * authenticated as.  Returns a hint to free, or NULL.
 */
static char *
submit_enroot_hint(const struct image_ref *img, const char *output)
{
	const char	*reg, *u;
	char		*machine, *user, *hint;
	int		 ngc;

	if (output == NULL)
		return NULL;
	reg = img->registry != NULL ? img->registry : "registry-1.docker.io";
	machine = submit_creds_machine(reg, NULL);
	if (machine == NULL)
		machine = xstrdup(reg);
	ngc = strcmp(machine, "nvcr.io") == 0;
	if (strstr(output, "<anonymous>") != NULL) {
		hint = xasprintf("\nhint: enroot has no credentials for %s on "
		    "the cluster and pulled as <anonymous>, which the registry "
		    "refused: run %s and submit again", machine, ngc ?
		    "'sqdeck creds install' (reads NGC_KEY)" :
		    "'sqdeck creds install --registry HOST --login USER' "
		    "(reads SQDECK_REGISTRY_PASSWORD)");
	} else if (strstr(output, "Could not process JSON input") != NULL) {
		hint = xasprintf("\nhint: the registry refused the pull: enroot "
		    "has no valid credentials for %s on the cluster; run %s and "
		    "submit again", machine, ngc ? "'sqdeck creds install' "
		    "(reads NGC_KEY)" : "'sqdeck creds install --registry "
		    "HOST --login USER'");
	} else if ((u = strstr(output, "Authenticating with user: ")) != NULL &&
	    strstr(u, "[ERROR]") == NULL) {
		u += strlen("Authenticating with user: ");
		user = xstrndup(u, strcspn(u, "\r\n"));
		hint = xasprintf("\nhint: the registry %s refused the credentials "
		    "of user %s from ~/.config/enroot/.credentials: the password "
		    "is wrong, or %s may not read this repository; install the "
		    "right ones with 'sqdeck creds install%s'", machine, user,
		    user, ngc ? "" : " --registry HOST --login USER");
		free(user);
	} else if (strstr(output, "401") != NULL ||
	    strstr(output, "Unauthorized") != NULL) {
		hint = xasprintf("\nhint: the registry answered 401: check the "
		    "credentials for %s ('sqdeck creds install')", machine);
	} else
		hint = NULL;
	free(machine);
	return hint;
}

static int
submit_convert(struct submit_ctx *x, const char *cache_dir,
    const char *cache_name, const char *cache_path, int force, char **cause)
{
	struct submit_convert_args	 a;
	struct submit_convert_result	 cr;
	struct conn_result		 res;
	const char			*cpu, *env;
	char				*script, *uri, *why = NULL, *job, *repo;
	char				*hint;
	int				 timeout, rc = -1;

	cpu = x->s->cl->cpu_partition != NULL ? x->s->cl->cpu_partition :
	    "cpu";
	if ((preflight_find(&x->s->pf, cpu) == NULL ||
	    !preflight_find(&x->s->pf, cpu)->exists) &&
	    submit_preflight_refresh(x->s, &why) != 0) {
		rc = submit_fail(x, SUBMIT_STEP_IMAGE, cause, "%s", why);
		free(why);
		return rc;
	}
	if (preflight_find(&x->s->pf, cpu) == NULL ||
	    !preflight_find(&x->s->pf, cpu)->exists) {
		return submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image %s "
		    "must be converted to .sqsh on a CPU partition, but "
		    "partition %s does not exist: set cpu_partition in "
		    "clusters.yaml, or convert it yourself and give the .sqsh "
		    "path", x->res->image, cpu);
	}
	timeout = x->o->import_timeout;
	if (timeout <= 0 && (env = getenv("SQDECK_IMPORT_TIMEOUT")) != NULL)
		timeout = atoi(env);
	if (timeout <= 0)
		timeout = SUBMIT_IMPORT_TIMEOUT;
	uri = image_pyxis(&x->img);
	job = xasprintf("%s-import", x->res->job_name);
	free(x->res->import_job);
	x->res->import_job = xstrdup(job);
	memset(&a, 0, sizeof a);
	a.cache_dir = cache_dir;
	a.cache_name = cache_name;
	a.uri = uri;
	a.partition = cpu;
	a.account = x->plan.account;
	a.job_name = job;
	a.timeout = timeout;
	a.force = force;
	a.digest_registry = x->img.registry != NULL ? x->img.registry :
	    "registry-1.docker.io";
	repo = strchr(x->img.repository, '/') == NULL && x->img.registry ==
	    NULL ? xasprintf("library/%s", x->img.repository) :
	    xstrdup(x->img.repository);
	a.digest_repo = repo;
	a.digest_ref = x->img.digest != NULL ? x->img.digest :
	    x->img.tag != NULL ? x->img.tag : "latest";
	a.pinned = x->img.digest;
	if (slurm_maxtime_minutes(preflight_find(&x->s->pf, cpu)->max_time,
	    &a.max_minutes, NULL) != 0)
		a.max_minutes = -1;
	submit_say(x, SUBMIT_STEP_IMAGE, "converting %s: srun -p %s -J %s "
	    "enroot import (timeout %d s, under a lock in %s)", x->res->image,
	    cpu, job, timeout, cache_dir);
	script = submit_convert_script(&a);
	free(uri);
	free(job);
	free(repo);
	/* Waiting for the lock can take one import, the import another. */
	if (submit_remote(&x->faults, "image", x->s->conn, script,
	    2 * timeout + 180, &res, &why) != 0) {
		free(script);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converting %s: %s "
		    "(nothing was submitted)", x->res->image, why);
		free(why);
		return -1;
	}
	free(script);
	submit_convert_parse(res.out, &cr);
	switch (cr.verdict) {
	case SUBMIT_CONVERT_CACHED:
	case SUBMIT_CONVERT_CONVERTED:
		if (image_sqsh_check(cr.head, cr.headlen, cr.size, cache_path,
		    &why) != 0 || image_cache_trust(&cr.cache,
		    &x->s->cl->image_cache_owners, x->img.digest, cache_path,
		    &why) != 0) {
			submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converted "
			    "image refused: %s", why);
			free(why);
			goto out;
		}
		x->res->image_action = cr.verdict == SUBMIT_CONVERT_CACHED ?
		    SUBMIT_IMAGE_CACHED : SUBMIT_IMAGE_CONVERTED;
		if (cr.qos != NULL)
			submit_say(x, SUBMIT_STEP_IMAGE, "the QOS refused "
			    "--mem=7200M (%s): converted with partition %s's "
			    "default memory", cr.qos, cpu);
		submit_say(x, SUBMIT_STEP_IMAGE, "%s %s (%" PRIu64 " bytes, "
		    "squashfs 4.0)", cr.verdict == SUBMIT_CONVERT_CACHED ?
		    "another submit converted it meanwhile: reusing" :
		    "converted once into", cache_path, cr.size);
		rc = 0;
		break;
	case SUBMIT_CONVERT_FAILED:
		hint = submit_enroot_hint(&x->img, cr.output);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "failed (exit %d); nothing was submitted. enroot said:\n"
		    "%s%s", x->res->image, cr.rc, cr.output != NULL ?
		    cr.output : "(no output)", hint != NULL ? hint : "");
		free(hint);
		break;
	case SUBMIT_CONVERT_TIMEOUT:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "did not finish in %d s and was killed; nothing was "
		    "submitted (raise SQDECK_IMPORT_TIMEOUT for a big "
		    "image). enroot said:\n%s", x->res->image, timeout,
		    cr.output != NULL ? cr.output : "(no output)");
		break;
	case SUBMIT_CONVERT_INVALID:
		image_sqsh_check(cr.head, cr.headlen, cr.size, "the result",
		    &why);
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "enroot import of %s "
		    "exited 0 but wrote an invalid image (%s); it was deleted "
		    "and nothing was submitted. enroot said:\n%s",
		    x->res->image, why != NULL ? why : "no squashfs header",
		    cr.output != NULL ? cr.output : "(no output)");
		free(why);
		break;
	case SUBMIT_CONVERT_QOS:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "the import job for "
		    "%s was refused by a QOS memory limit, with --mem=7200M and "
		    "again with partition %s's default memory (%s); nothing "
		    "was submitted: ask for a QOS that allows 7200M on %s, or "
		    "set cpu_partition in clusters.yaml to a partition that "
		    "does. srun said:\n%s", x->res->image, cpu, cr.qos, cpu,
		    cr.output != NULL ? cr.output : "(no output)");
		break;
	case SUBMIT_CONVERT_LOCK:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "another conversion "
		    "of %s held the lock in %s for too long; try again later",
		    x->res->image, cache_dir);
		break;
	case SUBMIT_CONVERT_ERROR:
		submit_fail(x, SUBMIT_STEP_IMAGE, cause, "converting %s on "
		    "the cluster failed: %s (exit %d%s%.300s)", x->res->image,
		    cr.detail != NULL ? cr.detail : "the script stopped",
		    res.status, res.errlen ? ", stderr: " : "", res.err);
		break;
	}
out:
	submit_convert_free(&cr);
	conn_result_free(&res);
	return rc;
}

static int
submit_image(struct submit_ctx *x, const struct submit_check *ck,
    const char *image_file, char **cause)
{
	char	*why = NULL, *dir, *name;
	int	 force, rc;

	if (x->img.kind == IMAGE_SQSH) {
		x->res->image_sqsh = xstrdup(x->img.path);
		x->res->image_action = SUBMIT_IMAGE_SQSH;
		if (!ck->image_exists) {
			return submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image "
			    "%s does not exist on the cluster (or is not "
			    "readable): fix 'image:' in the spec",
			    x->img.path);
		}
		if (image_sqsh_check(ck->head, ck->headlen, ck->image_size,
		    x->img.path, &why) != 0) {
			submit_fail(x, SUBMIT_STEP_IMAGE, cause, "image refused: "
			    "%s", why);
			free(why);
			return -1;
		}
		submit_say(x, SUBMIT_STEP_IMAGE, "%s: squashfs 4.0, %" PRIu64
		    " bytes", x->img.path, ck->image_size);
		return 0;
	}

	x->res->image_sqsh = xstrdup(image_file);
	force = x->sp->force_reconvert;
	if (ck->image_exists && !force) {
		if (image_sqsh_check(ck->head, ck->headlen, ck->image_size,
		    image_file, &why) == 0 && image_cache_trust(&ck->cache,
		    &x->s->cl->image_cache_owners, x->img.digest, image_file,
		    &why) == 0) {
			x->res->image_action = SUBMIT_IMAGE_CACHED;
			submit_say(x, SUBMIT_STEP_IMAGE, "%s: reusing the "
			    "cached %s (%" PRIu64 " bytes, squashfs 4.0)%s",
			    x->res->image, image_file, ck->image_size,
			    x->img.latest ? "; :latest is not re-pulled "
			    "unless force_reconvert is set" : "");
			return 0;
		}
		/* A bad cache file is replaced, not used. */
		submit_say(x, SUBMIT_STEP_IMAGE, "cached file refused (%s): "
		    "converting again", why);
		free(why);
		force = 1;
	}
	if (x->o->dry_run) {
		x->res->image_action = SUBMIT_IMAGE_WOULD_CONVERT;
		submit_say(x, SUBMIT_STEP_IMAGE, "%s is not converted yet: a "
		    "submit would convert it once into %s (dry run: not now)",
		    x->res->image, image_file);
		return 0;
	}
	dir = submit_cache_dir(x);
	name = image_cache_name(&x->img);
	rc = submit_convert(x, dir, name, image_file, force, cause);
	free(name);
	free(dir);
	return rc;
}

static void
json_add_strv(cJSON *o, const char *key, const struct strv *sv)
{
	cJSON	*a = cJSON_AddArrayToObject(o, key);
	size_t	 i;

	for (i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
}

static char *
json_done(cJSON *o)
{
	char	*s = cJSON_PrintUnformatted(o), *out;

	out = xasprintf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(o);
	return out;
}

/* specs/spec.json: the spec (names of secrets only). */
static char *
submit_spec_json(const struct spec *sp)
{
	cJSON	*o = cJSON_CreateObject(), *a, *m;
	size_t	 i;

	cJSON_AddStringToObject(o, "name", sp->name ? sp->name : "sqdeck");
	cJSON_AddStringToObject(o, "image", sp->image);
	cJSON_AddStringToObject(o, "command", sp->command);
	if (sp->network_arch != NULL)
		cJSON_AddStringToObject(o, "network_arch", sp->network_arch);
	if (sp->action != NULL)
		cJSON_AddStringToObject(o, "action", sp->action);
	json_add_strv(o, "datasets", &sp->datasets);
	a = cJSON_AddArrayToObject(o, "mounts");
	for (i = 0; i < sp->nmounts; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "src", sp->mounts[i].src);
		cJSON_AddStringToObject(m, "dst", sp->mounts[i].dst);
		cJSON_AddBoolToObject(m, "ro", sp->mounts[i].ro);
		cJSON_AddItemToArray(a, m);
	}
	json_add_strv(o, "secrets", &sp->secrets);
	cJSON_AddBoolToObject(o, "force_reconvert", sp->force_reconvert);
	return json_done(o);
}

/* env/env.json: what the job's environment gets (no secret values). */
static char *
submit_env_json(struct submit_ctx *x, const struct strv *exports)
{
	cJSON	*o = cJSON_CreateObject();

	json_add_strv(o, "env", exports);
	json_add_strv(o, "secret_names", &x->res->secrets);
	cJSON_AddStringToObject(o, "secrets_file", x->nsec ?
	    x->lay.env_path : "");
	return json_done(o);
}

/* meta/meta.json: where and how it was submitted. */
static char *
submit_meta_json(struct submit_ctx *x)
{
	cJSON		*o = cJSON_CreateObject(), *p;
	char		 stamp[32];
	struct tm	 tm;
	time_t		 t = time(NULL);

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(o, "record_id", x->record_id);
	cJSON_AddStringToObject(o, "cluster", x->s->cl->name);
	cJSON_AddStringToObject(o, "login_node", x->s->pf.login_host ?
	    x->s->pf.login_host : "");
	cJSON_AddStringToObject(o, "job_name", x->res->job_name);
	cJSON_AddStringToObject(o, "job_dir", x->lay.job_dir);
	cJSON_AddStringToObject(o, "results_root", x->results_root);
	cJSON_AddStringToObject(o, "image", x->res->image);
	cJSON_AddStringToObject(o, "image_sqsh", x->res->image_sqsh);
	cJSON_AddStringToObject(o, "image_action",
	    submit_image_action_name(x->res->image_action));
	cJSON_AddStringToObject(o, "container_mode",
	    config_container_name(x->res->container));
	cJSON_AddStringToObject(o, "submitted", stamp);
	cJSON_AddStringToObject(o, "sqdeck", PACKAGE_VERSION);
	p = cJSON_AddObjectToObject(o, "plan");
	cJSON_AddStringToObject(p, "partition", x->plan.partition);
	cJSON_AddNumberToObject(p, "nodes", x->plan.nodes);
	cJSON_AddNumberToObject(p, "gpus_per_node", x->plan.gpus_per_node);
	cJSON_AddNumberToObject(p, "gpus", x->plan.gpus);
	cJSON_AddNumberToObject(p, "cpus_per_task", x->plan.cpus_per_task);
	cJSON_AddStringToObject(p, "time", x->plan.time_str);
	cJSON_AddBoolToObject(p, "exclusive", x->plan.exclusive);
	cJSON_AddBoolToObject(p, "requeue", x->plan.requeue);
	return json_done(o);
}

/* NAME=value lines the script exports (EXTRA_ENV), no secrets. */
static void
submit_exports(struct submit_ctx *x, struct strv *sv)
{
	char	*s;
	size_t	 i;

	s = xasprintf("SQDECK_JOB_DIR=%s", x->lay.job_dir);
	strv_add(sv, s);
	free(s);
	s = xasprintf("SQDECK_RESULTS_DIR=%s", x->lay.results_dir);
	strv_add(sv, s);
	free(s);
	s = xasprintf("SQDECK_RECORD_ID=%s", x->record_id);
	strv_add(sv, s);
	free(s);
	for (i = 0; i < x->s->cl->nccl_env.n; i++)
		strv_add(sv, x->s->cl->nccl_env.v[i]);
	for (i = 0; i < x->nccl.env.n; i++)
		strv_add(sv, x->nccl.env.v[i]);
	for (i = 0; i < x->sp->nenv; i++) {
		s = xasprintf("%s=%s", x->sp->env[i].name,
		    x->sp->env[i].value != NULL ? x->sp->env[i].value : "");
		strv_add(sv, s);
		free(s);
	}
}

static int
submit_render(struct submit_ctx *x, const struct strv *exports, char **cause)
{
	struct template_vars	 tv;
	struct buf		 extra;
	const char		*tmpl;
	char			*lines = NULL, *mounts, *out = NULL;
	char			*why = NULL;
	int			 pyxis = x->res->container == CONTAINER_PYXIS;

	template_vars_init(&tv);
	buf_init(&extra);
	if (template_sbatch_line(&extra, "export", "ALL", &why) != 0 ||
	    (x->plan.account != NULL && template_sbatch_line(&extra,
	    "account", x->plan.account, &why) != 0) ||
	    (x->plan.exclusive && template_sbatch_line(&extra, "exclusive",
	    NULL, &why) != 0) ||
	    template_export_lines(exports, &lines, &why) != 0)
		goto fail;
	template_set(&tv, "JOB_NAME", x->res->job_name);
	template_set(&tv, "PARTITION", x->plan.partition);
	template_setf(&tv, "NUM_NODES", "%d", x->plan.nodes);
	template_setf(&tv, "NUM_GPUS", "%d", x->plan.gpus_per_node);
	template_setf(&tv, "CPUS_PER_TASK", "%d", x->plan.cpus_per_task);
	template_set(&tv, "TIME", x->plan.time_str);
	template_set(&tv, "LOG_DIR", x->lay.log_dir);
	template_set(&tv, "REQUEUE", x->plan.requeue ? "1" : "0");
	template_set(&tv, "SBATCH_EXTRA", extra.data != NULL ? extra.data : "");
	/* Mode none: no container, the command runs on the node itself. */
	template_set(&tv, "IMAGE", pyxis ? x->res->image_sqsh : "");
	mounts = spec_mounts_string(x->sp);
	template_set(&tv, "CONTAINER_MOUNTS", pyxis ? mounts : "");
	free(mounts);
	/*
	 * Pyxis mounts the job dir at the same path and starts the step
	 * there; its --container-mounts list cannot carry ',' or ':'.
	 */
	if (pyxis && strpbrk(x->lay.job_dir, ",:") != NULL) {
		why = xasprintf("job dir %s contains ',' or ':', which Pyxis "
		    "--container-mounts cannot carry: choose a results_root "
		    "without them", x->lay.job_dir);
		goto fail;
	}
	template_set(&tv, "JOB_DIR", x->lay.job_dir);
	template_set(&tv, "COMMAND", x->sp->command);
	template_set(&tv, "ENV_FILE", x->nsec ? x->lay.env_path : "");
	template_set(&tv, "RESULTS_DIR", x->lay.results_dir);
	template_set(&tv, "EXTRA_ENV", lines);
	template_set(&tv, "PRE_STEP", x->nccl.pre_step != NULL ?
	    x->nccl.pre_step : "");
	template_setf(&tv, "PROGRAM_TIMEOUT", "%d", x->plan.timeout_seconds);
	template_setf(&tv, "PROGRAM_GRACE", "%d", x->plan.grace_seconds);
	tmpl = template_sbatch_name(x->plan.nodes);
	if (template_render_embedded(tmpl, &tv, &out, &why) != 0)
		goto fail;
	/* R9: no secret value, no token pattern, no xtrace, valid bash. */
	if (lint_script(x->lay.sbatch_rel, out, x->sec, x->nsec, &why) != 0 ||
	    lint_bash_syntax(x->lay.sbatch_rel, out, &why) != 0)
		goto fail;
	free(lines);
	buf_free(&extra);
	template_vars_free(&tv);
	x->res->script = out;
	submit_say(x, SUBMIT_STEP_RENDER, "%s from %s: lint clean, bash -n "
	    "ok (%zu bytes)", x->lay.sbatch_path, tmpl, strlen(out));
	return 0;
fail:
	free(out);
	free(lines);
	buf_free(&extra);
	template_vars_free(&tv);
	submit_fail(x, SUBMIT_STEP_RENDER, cause, "%s", why);
	free(why);
	return -1;
}

static char *
submit_lock_path(const char *record_id)
{
	char	*dir = record_dir(), *path;

	path = xasprintf("%s/.submit-%s.lock", dir, record_id);
	free(dir);
	return path;
}

/*
 * Held from before the record exists to the end of the submit: a lock
 * file that is there and free belongs to an interrupted submit.
 */
static int
submit_lock(struct submit_ctx *x, char **cause)
{
	char	*dir = record_dir(), *text;
	int	 fd;

	if (mkdir_p(dir, 0700, cause) != 0) {
		free(dir);
		return -1;
	}
	free(dir);
	x->lockpath = submit_lock_path(x->record_id);
	fd = open(x->lockpath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		cause_set(cause, "cannot create the lock file %s: %s",
		    x->lockpath, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(x->lockpath);
		x->lockpath = NULL;
		return -1;
	}
	text = xasprintf("spec %s\nsecrets %zu\n", x->spec_sha, x->nsec);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		cause_set(cause, "cannot write the lock file %s: %s",
		    x->lockpath, strerror(errno));
		free(text);
		unlink(x->lockpath);
		close(fd);
		free(x->lockpath);
		x->lockpath = NULL;
		return -1;
	}
	free(text);
	x->lockfd = fd;
	return 0;
}

static int
submit_record(struct submit_ctx *x, char **cause)
{
	struct record	*r;
	char		*why = NULL;
	size_t		 i;
	int		 rc;

	r = record_new(x->s->cl->name);
	r->id = xstrdup(x->record_id);
	r->image = xstrdup(x->res->image);
	r->network_arch = x->sp->network_arch ? xstrdup(x->sp->network_arch) :
	    NULL;
	r->action = x->sp->action ? xstrdup(x->sp->action) : NULL;
	r->results_root = xstrdup(x->results_root);
	r->job_dir = xstrdup(x->lay.job_dir);
	r->job_name = xstrdup(x->res->job_name);
	r->log_dir = xstrdup(x->lay.log_dir);
	r->partition = xstrdup(x->plan.partition);
	r->spec_path = xstrdup(x->lay.spec_path);
	r->nodes = x->plan.nodes;
	r->gpus = x->plan.gpus;
	r->cpus = x->plan.cpus_per_task;
	r->command = x->sp->command != NULL ? xstrdup(x->sp->command) : NULL;
	r->time_limit = xstrdup(x->plan.time_str);
	if (x->s->cl->hosts.n > 0)
		r->host = xstrdup(x->s->cl->hosts.v[0]);
	r->user = x->s->cl->user != NULL ? xstrdup(x->s->cl->user) : NULL;
	r->port = x->s->cl->port;
	/* A retry takes these from here, never from the staged spec. */
	for (i = 0; i < x->sp->secrets.n; i++)
		strv_add(&r->secrets, x->sp->secrets.v[i]);
	r->retry_budget = x->sp->retry_budget;
	r->retry_known = 1;
	if (x->sp->secrets.n != 0)
		r->env_file = xstrdup(x->lay.env_path);
	if (submit_lock(x, &why) != 0) {
		record_free(r);
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "cannot open the "
		    "local record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	rc = record_create(r, &why);
	record_free(r);
	if (rc != 0) {
		/* R12: no record, no launch. */
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "cannot open the "
		    "local record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	x->record_open = 1;
	x->res->state = xstrdup(state_name(RSTATE_PENDING));
	submit_say(x, SUBMIT_STEP_RECORD, "record %s opened (PENDING)",
	    x->record_id);
	return 0;
}

static int
submit_stage(struct submit_ctx *x, const struct strv *exports, char **cause)
{
	struct conn_result	 res;
	struct buf		 tar, sh, yaml;
	char			*text, *why = NULL, *sidecar = NULL;
	size_t			 i;
	int			 rc = -1, ok = 0;

	buf_init(&tar);
	buf_init(&yaml);
	if (spec_write(x->sp, &yaml, &why) != 0) {
		buf_free(&yaml);
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "%s", why);
		free(why);
		return -1;
	}
	submit_tar_add(&tar, "specs/spec.yaml", yaml.data, yaml.len, 0644);
	buf_free(&yaml);
	text = submit_spec_json(x->sp);
	submit_tar_add(&tar, "specs/spec.json", text, strlen(text), 0644);
	free(text);
	text = submit_env_json(x, exports);
	submit_tar_add(&tar, "env/env.json", text, strlen(text), 0644);
	free(text);
	text = submit_meta_json(x);
	submit_tar_add(&tar, "meta/meta.json", text, strlen(text), 0644);
	free(text);
	submit_tar_add(&tar, x->lay.sbatch_rel, x->res->script,
	    strlen(x->res->script), 0644);
	for (i = 0; i < x->sp->nfiles; i++)
		submit_tar_add(&tar, x->members[i], x->files[i].data,
		    x->files[i].len, 0644);
	if (x->nsec != 0) {
		if (submit_sidecar(x->sec, x->nsec, &sidecar, &why) != 0) {
			buf_free(&tar);
			submit_fail(x, SUBMIT_STEP_STAGE, cause, "%s", why);
			free(why);
			return -1;
		}
		submit_tar_add(&tar, x->lay.env_rel, sidecar, strlen(sidecar),
		    0600);
		memset(sidecar, 0, strlen(sidecar));
		free(sidecar);
	}
	submit_tar_end(&tar);

	/* umask 077 from the first byte: the sidecar is never readable. */
	buf_init(&sh);
	buf_adds(&sh, "LC_ALL=C; export LC_ALL\numask 077\njd=");
	buf_add_quoted(&sh, x->lay.job_dir);
	buf_adds(&sh, "\nenvf=");
	buf_add_quoted(&sh, x->nsec ? x->lay.env_rel : "");
	buf_adds(&sh, "\n"
	    "if ! err=$(mkdir -- \"$jd\" 2>&1); then\n"
	    "\tprintf 'sqdeck-stage-error=%s\\n' \"$err\"; exit 0\n"
	    "fi\n"
	    "cd -- \"$jd\" || exit 0\n"
	    "mkdir -p specs env meta sbatch logs results files || exit 0\n"
	    "if ! err=$(printf '%s' '");
	submit_base64(&sh, (const unsigned char *)tar.data, tar.len);
	buf_adds(&sh, "' | base64 -d | tar -x -f - --no-same-owner 2>&1); then\n"
	    "\tprintf 'sqdeck-stage-error=%s\\n' \"$err\"; exit 0\n"
	    "fi\n"
	    "if [ -n \"$envf\" ]; then\n"
	    "\tchmod 600 -- \"$envf\"\n"
	    "\tprintf 'sqdeck-env-mode=%s\\n' \"$(stat -c %a -- \"$envf\")\"\n"
	    "fi\n"
	    "echo sqdeck-stage=ok\n");
	memset(tar.data, 0, tar.len);
	buf_free(&tar);
	rc = submit_remote(&x->faults, "stage", x->s->conn, sh.data, 0, &res,
	    &why);
	memset(sh.data, 0, sh.len);
	buf_free(&sh);
	if (rc != 0) {
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "staging into %s: %s",
		    x->lay.job_dir, why);
		free(why);
		return -1;
	}
	rc = -1;
	if ((text = strstr(res.out, "sqdeck-stage-error=")) != NULL) {
		text += strlen("sqdeck-stage-error=");
		text[strcspn(text, "\n")] = '\0';
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "staging into %s: %s",
		    x->lay.job_dir, text);
		goto out;
	}
	ok = strstr(res.out, "sqdeck-stage=ok") != NULL;
	if (!ok) {
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "staging into %s did "
		    "not finish (exit %d%s%.300s)", x->lay.job_dir, res.status,
		    res.errlen ? ", stderr: " : "", res.err);
		goto out;
	}
	if (x->nsec != 0 && strstr(res.out, "sqdeck-env-mode=600\n") ==
	    NULL) {
		submit_fail(x, SUBMIT_STEP_STAGE, cause, "the secrets file %s "
		    "is not mode 600 after staging; not launching",
		    x->lay.env_path);
		goto out;
	}
	submit_say(x, SUBMIT_STEP_STAGE, "%s: specs/spec.yaml, specs/spec.json, "
	    "env/env.json, meta/meta.json, %s%s%s, %zu supporting file%s "
	    "(sha256 checked) (one round trip)", x->lay.job_dir,
	    x->lay.sbatch_rel, x->nsec ? ", " : "",
	    x->nsec ? "secrets sidecar (mode 600)" : "", x->sp->nfiles,
	    x->sp->nfiles == 1 ? "" : "s");
	rc = 0;
out:
	conn_result_free(&res);
	return rc;
}

/* Jobs named exactly name: squeue first (sacct lags), then sacct. */
static int
submit_lookup_skip(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, const long *skip, size_t nskip, long *idp, char **cause);

static int
submit_lookup(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, long *idp, char **cause)
{
	return submit_lookup_skip(f, c, name, sent, NULL, 0, idp, cause);
}

int
submit_find_by_name(struct conn *c, const char *name, time_t sent,
    const long *skip, size_t nskip, long *idp, char **cause)
{
	struct submit_faults	none;

	memset(&none, 0, sizeof none);
	return submit_lookup_skip(&none, c, name, sent, skip, nskip, idp,
	    cause);
}

/* skip: ids known to be other jobs of that name (a retry chain's). */
static int
submit_lookup_skip(struct submit_faults *f, struct conn *c, const char *name,
    time_t sent, const long *skip, size_t nskip, long *idp, char **cause)
{
	struct slurm_jobs	 jobs;
	struct conn_result	 res;
	char			*cmd, *why = NULL, since[32];
	char			 sep[SLURM_SEP_SIZE];
	long			 found[8];
	size_t			 i, j, n;
	int			 sacct = 0;

	for (;;) {
		slurm_sep_new(sep, sizeof sep);
		if (!sacct)
			cmd = slurm_cmd_squeue_name(NULL, name, sep, &why);
		else {
			slurm_since(sent, since, sizeof since);
			cmd = slurm_cmd_sacct_name(name, since, NULL, sep,
			    &why);
		}
		if (cmd == NULL)
			goto fail;
		if (submit_remote_cmd(f, "reconcile", c, cmd, 1, 0, &res,
		    &why) != 0) {
			free(cmd);
			goto fail;
		}
		free(cmd);
		memset(&jobs, 0, sizeof jobs);
		if (sacct)
			slurm_parse_sacct(res.out, sep, &jobs, NULL);
		else
			slurm_parse_squeue(res.out, sep, &jobs, NULL);
		conn_result_free(&res);
		n = 0;
		for (i = 0; i < jobs.n; i++) {
			/* A placeholder row's name is not to be trusted. */
			if (jobs.v[i].placeholder || jobs.v[i].name == NULL ||
			    strcmp(jobs.v[i].name, name) != 0)
				continue;
			for (j = 0; j < nskip; j++) {
				if (skip[j] == jobs.v[i].id)
					break;
			}
			if (j < nskip)
				continue;
			for (j = 0; j < n; j++) {
				if (found[j] == jobs.v[i].id)
					break;
			}
			if (j == n && n < sizeof found / sizeof found[0])
				found[n++] = jobs.v[i].id;
		}
		slurm_jobs_free(&jobs);
		if (n > 0) {
			*idp = found[0];
			return (int)n;
		}
		if (sacct)
			return 0;
		/* sbatch may still be on its way: look again, then sacct. */
		if (time(NULL) - sent >= SUBMIT_RECONCILE_WAIT)
			sacct = 1;
		else
			sleep(2);
	}
fail:
	cause_set(cause, "%s", why);
	free(why);
	return -1;
}

static int
submit_reconcile(struct submit_ctx *x, time_t sent, long *idp, char **cause)
{
	return submit_lookup(&x->faults, x->s->conn, x->res->job_name, sent,
	    idp, cause);
}

static int
submit_adopt(struct submit_ctx *x, long id, struct submit_launch *l,
    char **cause)
{
	struct conn_result	 res;
	char			*script, *why = NULL;

	script = submit_release_script(id, x->lay.log_dir, x->res->job_name);
	if (submit_remote(&x->faults, "release", x->s->conn, script, 0, &res,
	    &why) != 0) {
		free(script);
		cause_set(cause, "job %ld: creating its log directory and "
		    "releasing it failed: %s; it is held: run 'scontrol "
		    "release %ld' after 'mkdir -p %s/%s-%ld'", id, why, id,
		    x->lay.log_dir, x->res->job_name, id);
		free(why);
		return -1;
	}
	free(script);
	submit_launch_parse(res.out, l);
	conn_result_free(&res);
	return 0;
}


/*
 * sbatch refused the job: remove the job dir staged for it (only ever the
 * one this submit made under the results root), so a refused request
 * leaves nothing behind on the cluster.  The record keeps the reason.
 */
static void
submit_unstage(struct submit_ctx *x)
{
	struct conn_result	 res;
	struct buf		 b;
	char			*why = NULL;
	size_t			 n = strlen(x->results_root);

	if (x->lay.job_dir == NULL || strncmp(x->lay.job_dir,
	    x->results_root, n) != 0 || x->lay.job_dir[n] != '/' ||
	    strstr(x->lay.job_dir + n, "/..") != NULL)
		return;
	buf_init(&b);
	buf_adds(&b, "rm -rf -- ");
	buf_add_quoted(&b, x->lay.job_dir);
	buf_adds(&b, " && echo removed\n");
	if (submit_remote(&x->faults, "unstage", x->s->conn, b.data, 0, &res,
	    &why) == 0) {
		if (res.status == 0)
			submit_say(x, SUBMIT_STEP_LAUNCH, "removed the staged "
			    "job dir %s (sbatch queued nothing)",
			    x->lay.job_dir);
		else
			submit_say(x, SUBMIT_STEP_LAUNCH, "could not remove "
			    "the staged job dir %s: %s", x->lay.job_dir,
			    res.err);
		conn_result_free(&res);
	} else {
		submit_say(x, SUBMIT_STEP_LAUNCH, "could not remove the staged "
		    "job dir %s: %s", x->lay.job_dir, why);
		free(why);
	}
	buf_free(&b);
}

static int
submit_launch(struct submit_ctx *x, char **cause)
{
	struct submit_launch	 l;
	struct conn_result	 res;
	enum slurm_submit	 v;
	const char		*fault = x->faults.launch;
	char			*cmd, *script, *why = NULL, *msg = NULL, *id_s;
	long			 id = 0;
	time_t			 sent;
	int			 attempt, n;

	memset(&l, 0, sizeof l);
	/* From here a job may exist: an interrupted submit looks it up. */
	msg = xasprintf("sending sbatch (job name %s)", x->res->job_name);
	if (record_transition(x->record_id, RSTATE_PENDING, "",
	    "submit:launch", msg, &why) != 0) {
		free(msg);
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "cannot update the "
		    "record, so nothing is launched: %s", why);
		free(why);
		return -1;
	}
	free(msg);
	msg = NULL;
	for (attempt = 0; attempt < 2; attempt++) {
		cmd = slurm_cmd_sbatch(x->lay.sbatch_path, x->res->job_name, 1,
		    &why);
		if (cmd == NULL)
			goto fail_why;
		script = submit_launch_script(x->lay.job_dir, cmd,
		    x->lay.log_dir, x->res->job_name, attempt == 0 ? fault :
		    NULL, x->o->hold);
		free(cmd);
		sent = time(NULL);
		submit_launch_free(&l);
		if (submit_remote(&x->faults, "launch", x->s->conn, script, 0,
		    &res, &why) != 0) {
			/* The job may or may not be queued. */
			v = SLURM_SUBMIT_AMBIGUOUS;
			msg = xasprintf("SSH failed during sbatch: %s", why);
			free(why);
			why = NULL;
		} else {
			submit_launch_parse(res.out, &l);
			conn_result_free(&res);
			if (attempt == 0 && fault != NULL &&
			    strcmp(fault, "after-sbatch") == 0) {
				/* TEST HOOK fallback: no sshd was found. */
				conn_disconnect(x->s->conn);
				v = SLURM_SUBMIT_AMBIGUOUS;
				msg = xstrdup("connection dropped (test hook)");
			} else if (l.sbatch_rc == -1) {
				v = SLURM_SUBMIT_AMBIGUOUS;
				msg = xstrdup("the launch script stopped before "
				    "reporting sbatch's answer");
			} else
				v = slurm_parse_sbatch(l.out, l.err, &id, &msg);
		}
		free(script);

		if (v == SLURM_SUBMIT_ERROR) {
			/* Nothing was queued: what was staged is litter. */
			submit_unstage(x);
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "sbatch "
			    "refused the job: %s", msg);
			free(msg);
			goto fail;
		}
		if (v == SLURM_SUBMIT_OK) {
			free(msg);
			msg = NULL;
			if (!l.released && !l.mkdir_failed) {
				submit_launch_free(&l);
				if (submit_adopt(x, id, &l, &why) != 0)
					goto fail_held;
			}
			break;
		}

		/* R15: never resubmit blindly. */
		x->res->ambiguous = 1;
		submit_say(x, SUBMIT_STEP_LAUNCH, "AMBIGUOUS: %s; looking the "
		    "job up by its exact name %s", msg, x->res->job_name);
		free(msg);
		msg = NULL;
		n = submit_reconcile(x, sent, &id, &why);
		if (n < 0) {
			x->unresolved = "submit:reconcile";
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "the sbatch "
			    "reply was lost and the lookup by name failed (%s): "
			    "job %s may or may not exist; check with "
			    "'squeue --me -n %s' before submitting again", why,
			    x->res->job_name, x->res->job_name);
			free(why);
			goto fail;
		}
		if (n > 1) {
			x->unresolved = "submit:reconcile";
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "%d jobs are "
			    "named %s: cancel all but one (scancel) and adopt "
			    "it by hand", n, x->res->job_name);
			goto fail;
		}
		if (n == 1) {
			x->res->adopted = 1;
			submit_say(x, SUBMIT_STEP_LAUNCH, "found exactly one job "
			    "named %s: adopting SLURM job %ld", x->res->job_name,
			    id);
			if (submit_adopt(x, id, &l, &why) != 0)
				goto fail_held;
			break;
		}
		if (attempt == 1) {
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "sbatch gave no "
			    "usable answer twice and no job named %s exists",
			    x->res->job_name);
			goto fail;
		}
		x->res->resubmitted = 1;
		submit_say(x, SUBMIT_STEP_LAUNCH, "no job named %s exists "
		    "(squeue, then sacct after %d s): safe to submit again",
		    x->res->job_name, SUBMIT_RECONCILE_WAIT);
	}

	if (l.mkdir_failed) {
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld: could not "
		    "create %s/%s-%ld, so the job was cancelled (SLURM would "
		    "fail it with 0:53)", id, x->lay.log_dir, x->res->job_name,
		    id);
		goto fail;
	}
	id_s = xasprintf("%ld", id);
	x->res->slurm_id = id_s;
	if (record_set_slurm_id(x->record_id, id_s, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld was "
		    "launched but the record could not be updated: %s", id, why);
		free(why);
		goto fail;
	}
	if (!l.released) {
		x->unresolved = "submit:release";
		submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld is held and "
		    "could not be released: %s", id, l.release_msg != NULL ?
		    l.release_msg : "no answer from scontrol");
		goto fail;
	}
	{
		struct state_map	 m;
		enum rstate		 rs = RSTATE_PENDING;
		char			*text;

		if (l.state != NULL && state_map(l.state, STATUS_MISSING,
		    &m) == 0 && m.state != RSTATE_UNKNOWN)
			rs = m.state;
		text = xasprintf("submitted as SLURM job %ld%s%s%s", id,
		    x->o->hold ? " and left held (submit --hold: "
		    "scontrol release starts it)" : "",
		    x->res->adopted ? " (adopted after an ambiguous sbatch "
		    "reply)" : "", x->res->resubmitted ? " (sent again after "
		    "the first reply was lost and no job existed)" : "");
		if (record_transition(x->record_id, rs, l.state != NULL ?
		    l.state : "PENDING", "submit", text, &why) != 0) {
			free(text);
			submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "job %ld was "
			    "launched but the record could not be updated: %s",
			    id, why);
			free(why);
			goto fail;
		}
		free(text);
		free(x->res->state);
		x->res->state = xstrdup(state_name(rs));
		free(x->res->native);
		x->res->native = xstrdup(l.state != NULL ? l.state : "PENDING");
	}
	submit_say(x, SUBMIT_STEP_LAUNCH, "SLURM job %ld (%s), %s; logs in "
	    "%s/%s-%ld/", id, x->res->job_name, x->res->native,
	    x->lay.log_dir, x->res->job_name, id);
	submit_launch_free(&l);
	return 0;

fail_held:
	/* The job exists but is held: the record says which (recover). */
	x->res->slurm_id = xasprintf("%ld", id);
	if (record_set_slurm_id(x->record_id, x->res->slurm_id, NULL) == 0)
		x->unresolved = "submit:release";
	else
		x->unresolved = "submit:reconcile";
fail_why:
	submit_fail(x, SUBMIT_STEP_LAUNCH, cause, "%s", why);
	free(why);
fail:
	submit_launch_free(&l);
	return -1;
}

/*
 * Remove a sidecar; 0 once it is known to be gone.  rm -f can be repeated,
 * so a dropped connection gets one more try (on a new one).
 */
static int
submit_rm_sidecar(struct submit_faults *f, struct conn *c, const char *path)
{
	struct conn_result	 res;
	struct buf		 b;
	int			 rc = -1, try;

	buf_init(&b);
	buf_adds(&b, "f=");
	buf_add_quoted(&b, path);
	buf_adds(&b, "\nrm -f -- \"$f\" && [ ! -e \"$f\" ] && "
	    "echo sqdeck-wiped=ok\n");
	for (try = 0; try < 2 && rc != 0; try++) {
		if (submit_remote(f, "wipe", c, b.data, 0, &res, NULL) != 0)
			continue;
		if (strstr(res.out, "sqdeck-wiped=ok") != NULL)
			rc = 0;
		conn_result_free(&res);
	}
	buf_free(&b);
	return rc;
}

/*
 * The sidecar of a job that will not run must not stay behind.  Returns
 * -1 when it may still be there: the record keeps "submit:unwiped" and
 * the next submit's recover removes it.
 */
static int
submit_wipe(struct submit_ctx *x)
{
	char	*text, *why = NULL;

	if (x->nsec == 0 || x->lay.env_path == NULL || x->res->slurm_id ||
	    x->unresolved != NULL)
		return 0;
	if (submit_rm_sidecar(&x->faults, x->s->conn, x->lay.env_path) != 0)
		return -1;
	if (x->record_open) {
		text = xasprintf("secrets file %s removed", x->lay.env_path);
		if (record_transition(x->record_id, RSTATE_ERROR, "", "submit",
		    text, &why) != 0) {
			free(why);
			free(text);
			return -1;
		}
		free(text);
	}
	return 0;
}

/* --- interrupted submits (see submit.h) ------------------------------------ */

void
submit_spec_sha(const struct spec *sp, const char *cluster, char out[65])
{
	struct buf	b;

	buf_init(&b);
	buf_printf(&b, "%s\n", cluster != NULL ? cluster : "");
	if (spec_write(sp, &b, NULL) != 0) {
		/* Nothing to match on: no re-run will resume it. */
		out[0] = '\0';
		buf_free(&b);
		return;
	}
	submit_sha256_hex(b.data, b.len, out);
	buf_free(&b);
}

static time_t
submit_iso_time(const char *s)
{
	struct tm	tm;

	if (s == NULL)
		return (time_t)-1;
	memset(&tm, 0, sizeof tm);
	if (strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) == NULL)
		return (time_t)-1;
	return timegm(&tm);
}

static void
submit_rsay(const struct submit_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
submit_rsay(const struct submit_opts *o, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	if (o == NULL || o->progress == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	o->progress(o->arg, SUBMIT_STEP_RECORD, text);
	free(text);
}

/*
 * Finish one interrupted submit from what its history says; 0 when
 * nothing is left to do, -1 when it is left and may have a job, -2 when
 * only its sidecar is left.  found: the record references its job.
 */
static int
submit_recover_one(struct submit_faults *f, struct conn *c,
    const struct submit_opts *o, const struct record *r, size_t nsec,
    int *found)
{
	const struct record_event	*mark = NULL, *launch = NULL;
	struct submit_launch		 l;
	struct conn_result		 res;
	struct state_map		 m;
	enum rstate			 rs;
	const char			*src;
	char				*env = NULL, *why = NULL, *text = NULL;
	char				*script, ids[32];
	long				 id = 0;
	time_t				 t;
	size_t				 i;
	int				 n, rc = -1;

	*found = 0;
	for (i = 0; i < r->nhistory; i++) {
		src = r->history[i].source;
		if (src != NULL && (strcmp(src, "submit") == 0 ||
		    str_has_prefix(src, "submit:")))
			mark = &r->history[i];
		if (src != NULL && strcmp(src, "submit:launch") == 0)
			launch = &r->history[i];
	}
	/*
	 * It ended (a recover may have adopted its job) but was stopped
	 * before it removed its lock file: its job is still the submit's.
	 */
	if (mark != NULL && strcmp(mark->source, "submit") == 0) {
		*found = record_slurm_id(r) != NULL;
		return 0;
	}
	submit_fault_hit(f, "recover", 0, 0);
	if (r->job_dir != NULL)
		env = ops_dir_env_file(r->job_dir, r->id);

	if (mark != NULL && strcmp(mark->source, "submit:unwiped") == 0)
		goto wipe;
	if (mark != NULL && strcmp(mark->source, "submit:release") == 0 &&
	    record_slurm_id(r) != NULL) {
		if (state_terminal(r->state)) {
			rc = 0;		/* cancelled meanwhile */
			goto out;
		}
		id = strtol(record_slurm_id(r), NULL, 10);
		goto release;
	}
	if (launch == NULL) {
		/* Stopped before sbatch was sent: no job can exist. */
		text = xstrdup("the submit was interrupted before sbatch: "
		    "nothing was queued; submit again");
		goto none;
	}
	t = submit_iso_time(launch->time);
	n = submit_lookup(f, c, r->job_name, t != (time_t)-1 ? t : time(NULL),
	    &id, &why);
	if (n < 0) {
		submit_rsay(o, "record %s: looking up job %s failed (%s); "
		    "left for the next submit", r->id, r->job_name, why);
		goto out;
	}
	if (n > 1) {
		text = xasprintf("%d jobs are named %s: cancel all but one "
		    "(scancel) and adopt it by hand", n, r->job_name);
		record_transition(r->id, RSTATE_UNKNOWN, "",
		    "submit:reconcile", text, NULL);
		submit_rsay(o, "record %s: %s", r->id, text);
		goto out;
	}
	if (n == 0) {
		text = xasprintf("the submit was interrupted after sbatch "
		    "was sent, but no job named %s exists (squeue, then sacct "
		    "-S): nothing was queued; submit again", r->job_name);
		goto none;
	}
	snprintf(ids, sizeof ids, "%ld", id);
	if (record_set_slurm_id(r->id, ids, &why) != 0) {
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}

release:
	/* Held jobs are released with their log dir, as submit does. */
	script = submit_release_script(id, r->log_dir != NULL ? r->log_dir :
	    "", r->job_name != NULL ? r->job_name : "");
	if (submit_remote(f, "release", c, script, 0, &res, &why) != 0) {
		free(script);
		text = xasprintf("SLURM job %ld exists but could not be "
		    "released: %s", id, why);
		record_transition(r->id, RSTATE_UNKNOWN, "", "submit:release",
		    text, NULL);
		submit_rsay(o, "record %s: %s; left for the next submit",
		    r->id, text);
		goto out;
	}
	free(script);
	submit_launch_parse(res.out, &l);
	conn_result_free(&res);
	if (l.mkdir_failed) {
		submit_launch_free(&l);
		text = xasprintf("SLURM job %ld was cancelled: its log "
		    "directory could not be created", id);
		goto none;
	}
	if (!l.released) {
		text = xasprintf("SLURM job %ld is held and could not be "
		    "released: %s", id, l.release_msg != NULL ? l.release_msg :
		    "no answer from scontrol");
		record_transition(r->id, RSTATE_UNKNOWN, "", "submit:release",
		    text, NULL);
		submit_rsay(o, "record %s: %s", r->id, text);
		submit_launch_free(&l);
		goto out;
	}
	rs = RSTATE_PENDING;
	if (l.state != NULL && state_map(l.state, STATUS_MISSING, &m) == 0 &&
	    m.state != RSTATE_UNKNOWN)
		rs = m.state;
	text = xasprintf("adopted SLURM job %ld after an interrupted submit "
	    "(found by its exact name)", id);
	if (record_transition(r->id, rs, l.state != NULL ? l.state :
	    "PENDING", "submit", text, &why) != 0) {
		submit_launch_free(&l);
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}
	submit_rsay(o, "record %s (interrupted submit): %s, %s", r->id, text,
	    l.state != NULL ? l.state : "PENDING");
	submit_launch_free(&l);
	*found = 1;
	rc = 0;
	goto out;

none:
	if (record_transition(r->id, RSTATE_ERROR, "", nsec != 0 ?
	    "submit:unwiped" : "submit", text, &why) != 0) {
		submit_rsay(o, "record %s: %s", r->id, why);
		goto out;
	}
	record_set_err(r->id, ERR_CONFIG, "interrupted", NULL);
	submit_rsay(o, "record %s (interrupted submit): %s", r->id, text);
	if (nsec == 0) {
		rc = 0;
		goto out;
	}
wipe:
	/* From here no job can exist: only the sidecar may be left. */
	rc = -2;
	if (env == NULL || submit_rm_sidecar(f, c, env) != 0) {
		submit_rsay(o, "record %s: its secrets file could not be "
		    "removed yet; left for the next submit", r->id);
		goto out;
	}
	free(text);
	text = xasprintf("secrets file %s removed", env);
	if (record_transition(r->id, RSTATE_ERROR, "", "submit", text,
	    &why) != 0)
		goto out;
	submit_rsay(o, "record %s: %s", r->id, text);
	rc = 0;
out:
	submit_fault_hit(f, "recover", 1, 0);
	free(why);
	free(text);
	free(env);
	return rc;
}

static int
submit_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The records with a submit lock file (only submits leave them), oldest
 * first (ids start with their time): no record is read to find them.
 */
static int
submit_locked_ids(struct strv *ids, char **cause)
{
	DIR		*d;
	struct dirent	*de;
	char		*id;
	size_t		 n;

	memset(ids, 0, sizeof *ids);
	if (record_dir_open(&d, cause) != 0)
		return -1;
	if (d == NULL)
		return 0;	/* nothing recorded yet */
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (!str_has_prefix(de->d_name, ".submit-") ||
		    !str_has_suffix(de->d_name, ".lock") || n <= 13)
			continue;
		id = xstrndup(de->d_name + 8, n - 13);
		strv_add(ids, id);
		free(id);
	}
	closedir(d);
	if (ids->n > 1)
		qsort(ids->v, ids->n, sizeof *ids->v, submit_cmp_str);
	return 0;
}

static int
submit_recover_f(struct submit_session *s, const struct submit_opts *o,
    struct submit_faults *f, const char *spec_sha, char **resume,
    char **blocked, char **cause)
{
	struct strv		 ids;
	struct record		*r;
	struct stat		 sb;
	char			*path, *why = NULL, buf[256], sha[65];
	size_t			 i, nsec;
	ssize_t			 len;
	int			 fd, found, done = 0, rc, same;

	if (resume != NULL)
		*resume = NULL;
	if (blocked != NULL)
		*blocked = NULL;
	if (submit_locked_ids(&ids, &why) != 0) {
		cause_set(cause, "%s", why);
		free(why);
		return -1;
	}
	for (i = 0; i < ids.n; i++) {
		/* A held lock is a live submit's. */
		path = submit_lock_path(ids.v[i]);
		if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) < 0) {
			free(path);
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &sb) != 0 ||
		    sb.st_nlink == 0) {
			close(fd);
			free(path);
			continue;
		}
		len = read(fd, buf, sizeof buf - 1);
		buf[len > 0 ? len : 0] = '\0';
		sha[0] = '\0';
		nsec = 1;	/* unknown: remove it to be sure */
		if (sscanf(buf, "spec %64s secrets %zu", sha, &nsec) < 1)
			sha[0] = '\0';
		/* Read under its lock: another process may have done it. */
		if (record_load(ids.v[i], &r, &why) != 0 ||
		    r->cluster == NULL || strcmp(r->cluster, s->cl->name) != 0) {
			free(why);
			why = NULL;
			record_free(r);
			close(fd);
			free(path);
			continue;
		}
		rc = submit_recover_one(f, s->conn, o, r, nsec, &found);
		if (rc == 0) {
			unlink(path);
			done++;
		}
		same = spec_sha != NULL && *spec_sha != '\0' &&
		    strcmp(sha, spec_sha) == 0;
		if (same && found && resume != NULL) {
			free(*resume);
			*resume = xstrdup(r->id);
		}
		/* Its job may exist: submitting this spec again could
		   make two (R15). */
		if (same && rc == -1 && blocked != NULL && *blocked == NULL)
			*blocked = xstrdup(r->id);
		record_free(r);
		close(fd);
		free(path);
	}
	strv_free(&ids);
	return done;
}

int
submit_recover(struct submit_session *s, const struct submit_opts *o,
    const char *spec_sha, char **resume, char **blocked, char **cause)
{
	return submit_recover_f(s, o, NULL, spec_sha, resume, blocked, cause);
}

/* A re-run whose interrupted submit had queued the job: that is it. */
static int
submit_resume(struct submit_ctx *x, const char *id, char **cause)
{
	struct submit_layout	 l;
	struct record		*r;
	char			*why = NULL;

	if (record_load(id, &r, &why) != 0) {
		submit_fail(x, SUBMIT_STEP_RECORD, cause, "%s", why);
		free(why);
		return -1;
	}
	submit_layout_make(&l, r->results_root != NULL ? r->results_root :
	    x->results_root, r->job_name, r->id);
	free(x->res->record_id);
	x->res->record_id = xstrdup(r->id);
	free(x->res->job_name);
	x->res->job_name = xstrdup(r->job_name);
	free(x->res->job_dir);
	x->res->job_dir = xstrdup(r->job_dir != NULL ? r->job_dir : l.job_dir);
	free(x->res->sbatch_path);
	x->res->sbatch_path = xstrdup(l.sbatch_path);
	free(x->res->env_path);
	x->res->env_path = x->nsec != 0 ? xstrdup(l.env_path) : NULL;
	x->res->slurm_id = xstrdup(record_slurm_id(r));
	x->res->state = xstrdup(state_name(r->state));
	x->res->native = xstrdup(r->native != NULL ? r->native : "");
	x->res->ambiguous = 1;
	x->res->adopted = 1;
	x->res->resumed = 1;
	submit_say(x, SUBMIT_STEP_LAUNCH, "an earlier submit of this spec "
	    "(record %s) was interrupted after sbatch; its SLURM job %s is "
	    "this submit: not submitting it again", r->id,
	    record_slurm_id(r));
	submit_layout_free(&l);
	record_free(r);
	return 0;
}

int
submit_run(struct submit_session *s, const struct spec *sp,
    const struct submit_opts *o, struct submit_result *res, char **cause)
{
	static const struct submit_opts	 none;
	struct submit_ctx		 x;
	struct submit_check		 ck;
	struct strv			 paths, what, exports;
	struct conn_result		 cres;
	struct buf			 miss;
	const char			*image_file = NULL;
	char				*script, *why = NULL, *cache_file = NULL;
	char				*cache_dir;
	char				*resume = NULL, *blocked = NULL;
	char				*age;
	size_t				 i;
	int				 cached, rc = -1, n;
	enum submit_fault_kind		 cut;

	memset(res, 0, sizeof *res);
	memset(&x, 0, sizeof x);
	x.lockfd = -1;
	memset(&ck, 0, sizeof ck);
	memset(&paths, 0, sizeof paths);
	memset(&what, 0, sizeof what);
	memset(&exports, 0, sizeof exports);
	x.s = s;
	x.sp = sp;
	x.o = o != NULL ? o : &none;
	x.res = res;
	if (submit_faults_parse(getenv("SQDECK_TEST_FAULT"), &x.faults,
	    &why) != 0) {
		submit_fail(&x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
		goto out;
	}
	submit_spec_sha(sp, s->cl->name, x.spec_sha);

	/* Local work first: nothing remote for a spec that cannot run. */
	if (image_parse(sp->image, &x.img, &why) != 0) {
		submit_fail(&x, SUBMIT_STEP_CHECK, cause, "%s", why);
		free(why);
		goto out;
	}
	res->image = image_display(&x.img);
	x.record_id = record_new_id();
	res->record_id = xstrdup(x.record_id);
	res->job_name = submit_job_name(sp->name, x.record_id);
	if (submit_secrets(&x, cause) != 0)
		goto out;
	if (submit_files_read(&x, cause) != 0)
		goto out;

	/* 1. Preflight, once per session. */
	cut = submit_fault_hit(&x.faults, "preflight", 0, 1);
	if (cut == SUBMIT_FAULT_CUT_BEFORE)
		submit_cut_now(s->conn);
	n = submit_preflight(s, &cached, &why);
	if (cut == SUBMIT_FAULT_CUT_AFTER)
		submit_cut_now(s->conn);
	submit_fault_hit(&x.faults, "preflight", 1, 1);
	if (n != 0) {
		submit_fail(&x, SUBMIT_STEP_PREFLIGHT, cause, "%s", why);
		free(why);
		goto out;
	}
	res->container = s->pf.container;
	x.results_root = xstrdup(s->pf.storage_root);
	if (submit_plan(&x, cause) != 0)
		goto out;
	submit_layout_make(&x.lay, x.results_root, res->job_name, x.record_id);
	res->job_dir = xstrdup(x.lay.job_dir);
	res->sbatch_path = xstrdup(x.lay.sbatch_path);
	if (x.nsec != 0)
		res->env_path = xstrdup(x.lay.env_path);
	if (cached)
		age = xstrdup(" (cached for this session)");
	else if (s->pf_age >= 0)
		age = xasprintf(" ok (passed %d s ago on this login, reused)",
		    s->pf_age);
	else
		age = xstrdup(" ok");
	submit_say(&x, SUBMIT_STEP_PREFLIGHT, "%s%s; container mode %s%s; "
	    "%s: %d node%s x %d GPU%s, %d CPUs/task, %s (program timeout "
	    "%d s, then TERM, KILL %d s later)%s",
	    conn_target(s->conn) != NULL ? conn_target(s->conn) : s->cl->name,
	    age,
	    config_container_name(res->container),
	    res->container == CONTAINER_NONE ? " ('container: none' in "
	    "clusters.yaml: the command runs directly on the nodes, not in "
	    "the image)" : " (srun --container-image, job dir mounted and "
	    "the working directory)",
	    x.plan.partition, x.plan.nodes, x.plan.nodes == 1 ? "" : "s",
	    x.plan.gpus_per_node, x.plan.gpus_per_node == 1 ? "" : "s",
	    x.plan.cpus_per_task, x.plan.time_str, x.plan.timeout_seconds,
	    x.plan.grace_seconds, x.plan.exclusive ? ", exclusive" : "");
	free(age);
	if (x.plan.note != NULL)
		submit_say(&x, SUBMIT_STEP_PREFLIGHT, "plan: %s", x.plan.note);

	/* Finish interrupted submits first; one of this spec may be it. */
	if (!x.o->dry_run) {
		n = submit_recover_f(s, x.o, &x.faults, x.spec_sha, &resume,
		    &blocked, &why);
		if (n < 0) {
			submit_say(&x, SUBMIT_STEP_RECORD, "warning: interrupted "
			    "submits not checked: %s", why);
			free(why);
			why = NULL;
		} else
			res->recovered = n;
		if (resume != NULL) {
			rc = submit_resume(&x, resume, cause);
			goto out;
		}
		if (blocked != NULL) {
			submit_fail(&x, SUBMIT_STEP_RECORD, cause, "an earlier "
			    "submit of this spec (record %s) was interrupted "
			    "after sbatch and whether its job exists could not "
			    "be checked now; nothing was submitted, so that "
			    "there are never two: submit again when the "
			    "cluster answers", blocked);
			goto out;
		}
	}

	/* 2. One round trip: every path and the image (R6). */
	if (submit_paths(&x, &paths, &what, cause) != 0)
		goto out;
	if (x.img.kind == IMAGE_SQSH)
		image_file = x.img.path;
	else {
		cache_dir = submit_cache_dir(&x);
		cache_file = image_cache_path(&x.img, cache_dir);
		free(cache_dir);
		image_file = cache_file;
	}
	script = submit_check_script((const char *const *)paths.v, paths.n,
	    image_file, x.img.kind == IMAGE_REGISTRY ? (x.img.registry ?
	    x.img.registry : "registry-1.docker.io") : NULL);
	if (submit_remote(&x.faults, "check", s->conn, script, 0, &cres,
	    &why) != 0) {
		free(script);
		submit_fail(&x, SUBMIT_STEP_CHECK, cause, "checking paths: %s",
		    why);
		free(why);
		goto out;
	}
	free(script);
	if (submit_check_parse(cres.out, paths.n, &ck, &why) != 0) {
		submit_fail(&x, SUBMIT_STEP_CHECK, cause, "%s (exit %d%s%.200s)",
		    why, cres.status, cres.errlen ? ", stderr: " : "", cres.err);
		free(why);
		conn_result_free(&cres);
		goto out;
	}
	conn_result_free(&cres);
	buf_init(&miss);
	for (i = 0; i < paths.n; i++) {
		if (!ck.exists[i])
			buf_printf(&miss, "\n  - %s: %s does not exist",
			    what.v[i], paths.v[i]);
	}
	if (miss.len != 0) {
		submit_fail(&x, SUBMIT_STEP_CHECK, cause, "missing on cluster "
		    "%s (nothing was staged or submitted; correct the path%s in "
		    "the spec):%s", s->cl->name, strchr(miss.data + 1, '\n') ?
		    "s" : "", miss.data);
		buf_free(&miss);
		goto out;
	}
	buf_free(&miss);
	submit_say(&x, SUBMIT_STEP_CHECK, "%zu path%s exist%s (test -e), "
	    "image file %s %s", paths.n, paths.n == 1 ? "" : "s",
	    paths.n == 1 ? "s" : "", image_file, ck.image_exists ? "present" :
	    "absent");
	if (x.img.kind == IMAGE_REGISTRY && x.img.registry != NULL &&
	    strcmp(x.img.registry, "nvcr.io") == 0 && !ck.creds)
		submit_say(&x, SUBMIT_STEP_CHECK, "warning: no enroot "
		    "credentials for nvcr.io on the cluster; a private image "
		    "needs 'sqdeck creds install'");

	/* 3. Image (R10). */
	submit_fault_hit(&x.faults, "image", 0, 0);
	if (submit_image(&x, &ck, image_file, cause) != 0)
		goto out;
	submit_fault_hit(&x.faults, "image", 1, 0);

	/* 4. Secrets: names only on the screen (R8). */
	if (x.nsec == 0)
		submit_say(&x, SUBMIT_STEP_SECRETS, "none");
	else {
		struct buf	b;

		buf_init(&b);
		for (i = 0; i < x.nsec; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", x.sec[i].name);
		submit_say(&x, SUBMIT_STEP_SECRETS, "%s from the local "
		    "environment -> %s (mode 600, sourced then wiped by the "
		    "job)", b.data, x.lay.env_path);
		buf_free(&b);
	}

	/* R21: probe NCCL first, or use the setting that worked before. */
	if (nccl_prepare(x.o->dry_run ? NULL : s->conn, s->cl, x.plan.partition,
	    res->image, x.plan.nodes, x.plan.gpus_per_node,
	    x.plan.time_minutes, &x.nccl, &why) != 0) {
		submit_fail(&x, SUBMIT_STEP_RENDER, cause, "%s", why);
		free(why);
		goto out;
	}
	if (x.nccl.cached)
		submit_say(&x, SUBMIT_STEP_RENDER, "NCCL: cached setting %s, "
		    "no probe", x.nccl.setting);
	else if (x.nccl.probe)
		submit_say(&x, SUBMIT_STEP_RENDER, "NCCL: the job probes an "
		    "all-reduce first (R21), at most %d s in all (%d%% of "
		    "its time, at least %d s), in the container the job then "
		    "uses", x.nccl.budget, NCCL_PROBE_BUDGET_PERCENT,
		    NCCL_PROBE_BUDGET_MIN);
	submit_exports(&x, &exports);
	if (x.o->dry_run) {
		/* No record, no write: render and stop. */
		if (submit_render(&x, &exports, cause) != 0)
			goto out;
		rc = 0;
		goto out;
	}

	/* 5. Record before anything is written for the job (R12). */
	submit_fault_hit(&x.faults, "record", 0, 0);
	if (submit_record(&x, cause) != 0)
		goto out;
	submit_fault_hit(&x.faults, "record", 1, 0);
	if (x.nccl.probe && nccl_pending_add(x.record_id, s->cl->name,
	    x.plan.partition, res->image, &why) != 0) {
		/* Only learning is lost: the job itself is fine. */
		submit_say(&x, SUBMIT_STEP_RECORD, "warning: %s", why);
		free(why);
		why = NULL;
	}
	submit_fault_hit(&x.faults, "render", 0, 0);
	if (submit_render(&x, &exports, cause) != 0)
		goto out;
	submit_fault_hit(&x.faults, "render", 1, 0);
	/* Once sent, the stage may have written the sidecar (reply or not). */
	x.staged = 1;
	if (submit_stage(&x, &exports, cause) != 0)
		goto out;
	if (submit_launch(&x, cause) != 0)
		goto out;
	rc = 0;
out:
	n = 0;
	if (rc != 0 && x.staged && submit_wipe(&x) != 0)
		n = 1;
	if (x.lockfd >= 0) {
		/* Unresolved: the lock file tells the next submit (recover). */
		if (x.unresolved == NULL && n == 0)
			unlink(x.lockpath);
		close(x.lockfd);
	}
	free(x.lockpath);
	free(resume);
	free(blocked);
	submit_check_free(&ck);
	strv_free(&paths);
	strv_free(&what);
	strv_free(&exports);
	free(cache_file);
	free(x.sec);
	nccl_job_free(&x.nccl);
	for (i = 0; x.files != NULL && i < sp->nfiles; i++) {
		buf_free(&x.files[i]);
		free(x.members[i]);
	}
	free(x.files);
	free(x.members);
	free(x.record_id);
	free(x.results_root);
	submit_layout_free(&x.lay);
	plan_free(&x.plan);
	image_free(&x.img);
	return rc;
}

void
submit_result_free(struct submit_result *r)
{
	free(r->record_id);
	free(r->job_name);
	free(r->job_dir);
	free(r->sbatch_path);
	free(r->env_path);
	free(r->slurm_id);
	free(r->state);
	free(r->native);
	free(r->image);
	free(r->image_sqsh);
	free(r->import_job);
	free(r->script);
	strv_free(&r->secrets);
	memset(r, 0, sizeof *r);
}
