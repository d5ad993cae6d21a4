/*
#include <stdarg.h>
 * sqdeck preflight: SSH, then one remote script (sqdeck(1): preflight).  Exit
 * 0 only when a submit would have what it needs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "conn.h"
#include "deep.h"
#include "ops.h"
#include "preflight.h"
#include "text.h"

static double
preflight_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Text from the cluster is untrusted: ops_clean() for a tty, cut to len. */
static const char *
clean(const char *s, char *buf, size_t len)
{
	char	*t;
	size_t	 n;

	if (s == NULL)
		return "";
	t = ops_clean(s);
	n = strlen(t);
	if (n >= len) {
		n = len - 1;
		while (n > 0 && ((unsigned char)t[n] & 0xc0) == 0x80)
			n--;	/* not inside a UTF-8 sequence */
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
	free(t);
	return buf;
}

static void
row(const char *check, const char *result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
row(const char *check, const char *result, const char *fmt, ...)
{
	va_list	 ap;
	char	*detail, buf[1024];

	va_start(ap, fmt);
	detail = xvasprintf(fmt, ap);
	va_end(ap);
	cli_printf("  %-10s %-8s %s\n", check, result, clean(detail, buf,
	    sizeof buf));
	free(detail);
}

static const char *
container_text(const struct preflight *pf, enum container_mode wanted)
{
	if (pf->container == CONTAINER_PYXIS)
		return pf->pyxis ? "pyxis (srun --container-image)" :
		    "pyxis (configured, but Pyxis was not found)";
	if (wanted == CONTAINER_NONE)
		return "none (configured: the command runs directly on the "
		    "nodes)";
	return "none (Pyxis not found: an image cannot run; set "
	    "'container: none' to run commands directly on the nodes)";
}

/* The SLURM tools and Pyxis, one row each. */
static void
print_tools(const struct preflight *pf)
{
	const struct preflight_tool_info	*ti;
	unsigned				 t;

	for (t = 0; t < PF_NTOOLS; t++) {
		ti = &pf->tools[t];
		if (ti->path != NULL)
			row(preflight_tool_name(t), "ok", "%s%s%s%s",
			    ti->path, ti->version ? " (" : "",
			    ti->version ? ti->version : "",
			    ti->version ? ")" : "");
		else if (t <= PF_SINFO)
			row(preflight_tool_name(t), "MISSING",
			    "not in the PATH of a non-interactive session");
		else
			row(preflight_tool_name(t), "absent",
			    "not in the PATH of a non-interactive session");
		if (t == PF_SRUN) {
			if (pf->pyxis)
				row("pyxis", "ok", "srun accepts "
				    "--container-image");
			else
				row("pyxis", "absent", "srun has no "
				    "--container-image");
		}
	}
}

/* The storage root and the partitions asked for. */
static void
print_storage(const struct preflight *pf)
{
	const struct preflight_partition	*w;
	size_t					 i;

	if (pf->storage_root == NULL)
		row("storage", "UNKNOWN", "not checked");
	else if (pf->storage_exists && pf->storage_writable)
		row("storage", "ok", "%s exists and is writable%s",
		    pf->storage_root, pf->storage_default ?
		    (pf->storage_created ? " (default $HOME/sqdeck, "
		    "created now)" : " (default $HOME/sqdeck)") : "");
	else if (!pf->storage_exists)
		row("storage", "MISSING", "%s does not exist%s%s",
		    pf->storage_root, pf->storage_error ? ": " : "",
		    pf->storage_error ? pf->storage_error : "");
	else
		row("storage", "READONLY", "%s is not writable%s%s",
		    pf->storage_root, pf->storage_error ? ": " : "",
		    pf->storage_error ? pf->storage_error : "");
	if (pf->sinfo_rc != 0)
		row("partition", "UNKNOWN", "sinfo failed: %s",
		    pf->sinfo_error ? pf->sinfo_error : "no output");
	for (i = 0; i < pf->nwanted; i++) {
		w = &pf->wanted[i];
		if (w->exists)
			row("partition", "ok", "%s: MaxTime %s, %s%s", w->name,
			    w->max_time, w->avail, i > 0 ? "" :
			    pf->cluster_default ? " (the cluster's default: no "
			    "partitions set)" : " (default)");
		else
			row("partition", "MISSING", "%s: not on this cluster%s",
			    w->name, i == 0 ? " (default)" : "");
	}
	if (pf->cpu_partition != NULL)
		row("cpu part", pf->cpu_exists ? "ok" : "MISSING", "%s: "
		    "converts registry images (cpu_partition)%s",
		    pf->cpu_partition, pf->cpu_exists ? "" :
		    ": not on this cluster");
}

/* Warnings, then problems, as lists. */
static void
print_list(const char *title, const struct strv *v)
{
	char	b[512];
	size_t	i;

	if (v->n == 0)
		return;
	cli_printf("\n%s:\n", title);
	for (i = 0; i < v->n; i++)
		cli_printf("  - %s\n", clean(v->v[i], b, sizeof b));
}

static void
print_table(const struct cluster *cl, struct conn *c,
    const struct preflight *pf, double secs)
{
	struct conn_stats	 st;
	char			 b1[512];

	conn_get_stats(c, &st);
	cli_printf("preflight of cluster %s: %s", cl->name, conn_target(c));
	if (pf->login_host != NULL)
		cli_printf(" (login node %s)", clean(pf->login_host, b1,
		    sizeof b1));
	cli_printf("\n\n  %-10s %-8s %s\n", "CHECK", "RESULT", "DETAIL");
	row("ssh", "ok", "key login as %s, host key known; %.2f s, %u "
	    "connection, %u channel", pf->user ? pf->user : "?", secs,
	    st.handshakes, st.channels);
	print_tools(pf);
	print_storage(pf);
	cli_printf("\ncontainer mode: %s\n", container_text(pf, cl->container));
	print_list("warnings", &pf->warnings);
	print_list("problems (a submit would fail)", &pf->problems);
	if (pf->ok && pf->cpu_partition != NULL && !pf->cpu_exists)
		cli_printf("\nresult: OK, ready to submit .sqsh images; "
		    "registry images cannot be converted (see warnings)\n");
	else if (pf->ok)
		cli_printf("\nresult: OK, ready to submit\n");
	else
		cli_printf("\nresult: FAILED (%zu problem%s)\n", pf->problems.n,
		    pf->problems.n == 1 ? "" : "s");
}

/* The deep check's result, or when it last passed. */
static void
print_deep(const struct cluster *cl, const struct deep *d)
{
	char	*when, *node, b1[512], b2[512];

	if (d != NULL) {
		cli_printf("\ndeep check (one job on partition %s):\n",
		    cl->cpu_partition != NULL ? cl->cpu_partition : "cpu");
		if (d->ran) {
			row("enroot", d->enroot != NULL &&
			    d->enroot_list_rc == 0 ? "ok" : "FAILED",
			    "on node %s: %s%s%s%s", d->node != NULL ? d->node :
			    "?", d->enroot != NULL ? d->enroot : "not found",
			    d->enroot_version != NULL ? " (" : "",
			    d->enroot_version != NULL ? d->enroot_version : "",
			    d->enroot_version != NULL ? ")" : "");
			row("pyxis", d->pyxis ? "ok" : "FAILED", "on node %s: "
			    "srun %s --container-image",
			    d->node != NULL ? d->node : "?", d->pyxis ?
			    "accepts" : "has no");
		}
		if (d->ok)
			cli_printf("\ndeep check: OK, enroot and Pyxis work where "
			    "jobs run\n");
		else
			cli_printf("\ndeep check: FAILED: %s\n", clean(d->problem,
			    b1, sizeof b1));
		return;
	}
	if (deep_last(cl->name, &when, &node) == 0)
		cli_printf("deep check (enroot and Pyxis on a compute node): last "
		    "passed %s on node %s\n", clean(when, b1, sizeof b1),
		    clean(node, b2, sizeof b2));
	else
		cli_printf("deep check (enroot and Pyxis on a compute node): never "
		    "passed from here; run 'sqdeck preflight --deep'\n");
	free(when);
	free(node);
}

static cJSON *
json_str(const char *s)
{
	return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *
json_strv(const struct strv *sv)
{
	cJSON	*a = cJSON_CreateArray();
	size_t	 i;

	for (i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

static cJSON *
json_part(const struct preflight_partition *p)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddBoolToObject(o, "exists", p->exists);
	cJSON_AddItemToObject(o, "max_time", json_str(p->max_time));
	cJSON_AddNumberToObject(o, "max_minutes", p->max_minutes);
	cJSON_AddItemToObject(o, "avail", json_str(p->avail));
	return o;
}

/* What the script found: tools, storage, partitions, problems. */
static void
json_found(cJSON *root, const struct preflight *pf)
{
	cJSON		*tools, *o, *a;
	size_t		 i;
	unsigned	 t;

	cJSON_AddItemToObject(root, "login_node", json_str(pf->login_host));
	cJSON_AddItemToObject(root, "user", json_str(pf->user));
	tools = cJSON_AddObjectToObject(root, "tools");
	for (t = 0; t < PF_NTOOLS; t++) {
		o = cJSON_AddObjectToObject(tools, preflight_tool_name(t));
		cJSON_AddBoolToObject(o, "present", pf->tools[t].path != NULL);
		cJSON_AddItemToObject(o, "path", json_str(pf->tools[t].path));
		cJSON_AddItemToObject(o, "version",
		    json_str(pf->tools[t].version));
	}
	cJSON_AddBoolToObject(root, "pyxis", pf->pyxis);
	cJSON_AddBoolToObject(root, "enroot",
	    pf->tools[PF_ENROOT].path != NULL);
	cJSON_AddStringToObject(root, "container_mode",
	    config_container_name(pf->container));
	o = cJSON_AddObjectToObject(root, "storage");
	cJSON_AddItemToObject(o, "root", json_str(pf->storage_root));
	cJSON_AddBoolToObject(o, "default", pf->storage_default);
	cJSON_AddBoolToObject(o, "created", pf->storage_created);
	cJSON_AddBoolToObject(o, "exists", pf->storage_exists);
	cJSON_AddBoolToObject(o, "writable", pf->storage_writable);
	cJSON_AddItemToObject(o, "error", json_str(pf->storage_error));
	a = cJSON_AddArrayToObject(root, "partitions");
	for (i = 0; i < pf->nwanted; i++)
		cJSON_AddItemToArray(a, json_part(&pf->wanted[i]));
	a = cJSON_AddArrayToObject(root, "cluster_partitions");
	for (i = 0; i < pf->nparts; i++)
		cJSON_AddItemToArray(a, json_part(&pf->parts[i]));
	cJSON_AddItemToObject(root, "sinfo_error", json_str(pf->sinfo_error));
	cJSON_AddItemToObject(root, "problems", json_strv(&pf->problems));
	cJSON_AddItemToObject(root, "warnings", json_strv(&pf->warnings));
}

/* The deep check, when it ran, and when it last passed. */
static void
json_deep(cJSON *root, const struct cluster *cl, const struct deep *d)
{
	cJSON	*o;
	char	*when, *node;

	o = cJSON_AddObjectToObject(root, "deep");
	if (d != NULL) {
		cJSON_AddBoolToObject(o, "ran", d->ran);
		cJSON_AddBoolToObject(o, "ok", d->ok);
		cJSON_AddItemToObject(o, "node", json_str(d->node));
		cJSON_AddItemToObject(o, "enroot", json_str(d->enroot));
		cJSON_AddItemToObject(o, "enroot_version",
		    json_str(d->enroot_version));
		cJSON_AddBoolToObject(o, "pyxis", d->pyxis);
		cJSON_AddItemToObject(o, "problem", json_str(d->problem));
		if (!d->ok)
			cJSON_ReplaceItemInObject(root, "ok",
			    cJSON_CreateFalse());
	}
	deep_last(cl->name, &when, &node);
	cJSON_AddItemToObject(o, "last_passed", json_str(when));
	cJSON_AddItemToObject(o, "last_node", json_str(node));
	free(when);
	free(node);
}

static void
print_json(const struct cluster *cl, struct conn *c,
    const struct preflight *pf, double secs, const char *ssh_error,
    const struct deep *d)
{
	cJSON			*root, *ssh, *a;
	struct conn_stats	 st;

	conn_get_stats(c, &st);
	root = cli_json_doc("preflight");
	cJSON_AddStringToObject(root, "cluster", cl->name);
	cJSON_AddBoolToObject(root, "ok", ssh_error == NULL && pf->ok);
	ssh = cJSON_AddObjectToObject(root, "ssh");
	cJSON_AddBoolToObject(ssh, "ok", ssh_error == NULL);
	cJSON_AddItemToObject(ssh, "error", json_str(ssh_error));
	cJSON_AddItemToObject(ssh, "host", json_str(conn_host(c)));
	cJSON_AddItemToObject(ssh, "target", json_str(conn_target(c)));
	cJSON_AddNumberToObject(ssh, "seconds", secs);
	cJSON_AddNumberToObject(ssh, "handshakes", st.handshakes);
	cJSON_AddNumberToObject(ssh, "channels", st.channels);
	if (ssh_error != NULL) {
		a = cJSON_AddArrayToObject(root, "problems");
		cJSON_AddItemToArray(a, cJSON_CreateString(ssh_error));
		goto print;
	}
	json_found(root, pf);
	json_deep(root, cl, d);
print:
	cli_json(stdout, root, 0);
	cJSON_Delete(root);
}

static const struct option preflight_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "raw", no_argument, NULL, 'r' },
	{ "script", no_argument, NULL, 's' },
	{ "deep", no_argument, NULL, 'd' },
	{ NULL, 0, NULL, 0 }
};

struct preflight_opts {
	int	json;
	int	raw;		/* the script's key=value lines */
	int	script;		/* the script itself: connect to nothing */
	int	deep;
};

static int
preflight_option(struct cli_ctx *ctx, int ch, const char *arg)
{
	struct preflight_opts	*o = ctx->opts;

	if (ch == 'j')
		o->json = 1;
	else if (ch == 'r')
		o->raw = 1;
	else if (ch == 's')
		o->script = 1;
	else
		o->deep = 1;
	return CLI_GO;
}

static int
preflight_check(struct cli_ctx *ctx)
{
	const struct preflight_opts	*o = ctx->opts;

	if (o->json + o->raw + o->script > 1) {
		cli_usage(ctx->entry, stderr);
		return EXIT_USAGE;
	}
	return CLI_GO;
}

/* --deep: one tiny job; remembered when it passes.  0, or -1 said. */
static int
preflight_deep(struct cluster *cl, struct conn *c, struct deep *d)
{
	char	*cause = NULL;

	if (deep_run(c, cl, d, &cause) != 0) {
		cli_error(NULL, "preflight of cluster %s: %s", cl->name, cause);
		free(cause);
		return -1;
	}
	if (d->ok && deep_store(cl->name, d, &cause) != 0) {
		cli_error("preflight", "the deep check passed but could not "
		    "be remembered: %s", cause);
		free(cause);
	}
	return 0;
}

static int
cli_preflight(struct cli_ctx *ctx)
{
	const struct preflight_opts *o = ctx->opts;
	struct cluster		*cl = ctx->cl;
	struct conn		*c = ctx->conn;
	struct preflight	 pf;
	struct deep		 d;
	char			*cause = NULL, *raw = NULL, *clean;
	double			 t0 = preflight_now();
	int			 ssh, ret = EXIT_FAIL;

	if (o->script) {
		/* What would run, for review: nothing is contacted. */
		raw = preflight_script(cl->results_root);
		fputs(raw, stdout);
		free(raw);
		return EXIT_OK;
	}
	memset(&pf, 0, sizeof pf);
	memset(&d, 0, sizeof d);
	if ((ssh = conn_connect(c, &cause)) != 0 ||
	    preflight_run(c, cl, &pf, o->raw ? &raw : NULL, &cause) != 0) {
		if (o->json)
			print_json(cl, c, &pf, preflight_now() - t0, cause,
			    NULL);
		else
			cli_error(NULL, "preflight of cluster %s: %s%s",
			    cl->name, ssh != 0 ? "SSH failed: " : "", cause);
	} else if (!o->deep || preflight_deep(cl, c, &d) == 0) {
		if (o->raw) {
			/* The cluster's bytes: C1, bidi and ESC never pass. */
			clean = text_sanitize(raw, strlen(raw), TEXT_CR_LINES |
			    TEXT_TABS, NULL);
			fputs(clean, stdout);
			free(clean);
		} else if (o->json)
			print_json(cl, c, &pf, preflight_now() - t0, NULL,
			    o->deep ? &d : NULL);
		else {
			print_table(cl, c, &pf, preflight_now() - t0);
			print_deep(cl, o->deep ? &d : NULL);
		}
		ret = pf.ok && (!o->deep || d.ok) ? EXIT_OK : EXIT_FAIL;
	}
	deep_free(&d);
	free(raw);
	free(cause);
	preflight_free(&pf);
	return ret;
}

const struct cli_entry cli_preflight_entry = {
	.name = "preflight",
	.usage = "[--cluster NAME] [--deep] [--json | --raw | --script]",
	.summary = "check SSH, SLURM tools, Pyxis/Enroot, storage and "
	    "partitions",
	.help = "  --deep    also run one tiny job on the CPU partition: "
	    "enroot and Pyxis where jobs run\n"
	    "  --json    the result as JSON\n"
	    "  --raw     the remote script's key=value output, "
	    "unparsed\n"
	    "  --script  print the script that would run on the login "
	    "node; connect to nothing\n",
	.shortopts = "",
	.longopts = preflight_options,
	.flags = CLI_CLUSTER | CLI_CONFIG | CLI_CONN,
	.optsize = sizeof (struct preflight_opts),
	.option = preflight_option,
	.check = preflight_check,
	.exec = cli_preflight,
};
