#include "nccl.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops.h"
#include "record.h"
#include "remote.h"
#include "rsh.h"
#include "template.h"
#include "triage.h"

/*
 * The default probe: torchrun of the built-in nccl_allreduce_probe.py,
 * which the batch script hands over in SQDECK_NCCL_PROBE_PY (so it works
 * in any container without a mount).  Expanded by the task's own shell.
 */
static const char nccl_default[] =
    "f=$(mktemp \"${TMPDIR:-/tmp}/sqdeck-nccl-probe.XXXXXX\") && "
    "printf '%s\\n' \"$SQDECK_NCCL_PROBE_PY\" >\"$f\" && "
    "NCCL_PROBE_TIMEOUT=$SQDECK_NCCL_INNER exec torchrun "
    "--nnodes=\"$SQDECK_NCCL_NNODES\" "
    "--nproc-per-node=\"$SQDECK_NCCL_NPROC\" "
    "--node-rank=\"$SLURM_NODEID\" "
    "--master-addr=\"$SQDECK_NCCL_MASTER\" "
    "--master-port=\"$SQDECK_NCCL_PORT\" \"$f\"";

/* Without GPUs there is no NCCL to probe, however many nodes. */
int
nccl_wanted(int nodes, int gpus_per_node)
{
	return gpus_per_node > 0 && (nodes > 1 || gpus_per_node > 1);
}

const char *
nccl_default_command(void)
{
	return nccl_default;
}

/*
 * The ladder runs in the batch shell (set -euo pipefail is on), with the
 * step in the background so a TERM still reaches the template's trap.
 * Exit 127 (no torchrun) and 2 (no torch) mean the probe cannot say
 * anything about NCCL: the job goes on and nothing is cached.
 */
static const char nccl_ladder[] =
    "sqdeck_nccl_if=${NCCL_SOCKET_IFNAME:-}\n"
    "if [ -z \"$sqdeck_nccl_if\" ] && command -v ip >/dev/null 2>&1; then\n"
    "\tsqdeck_nccl_addr=$(getent hosts \"$SQDECK_NCCL_MASTER\" "
    "2>/dev/null | awk '{print $1; exit}') || true\n"
    "\tsqdeck_nccl_if=$(ip -o -4 addr show 2>/dev/null | awk -v "
    "a=\"${sqdeck_nccl_addr:-}\" '{split($4, p, \"/\"); "
    "if (p[1] == a) {print $2; exit}}') || true\n"
    "fi\n"
    "sqdeck_nccl_ladder=(\"\" NCCL_P2P_DISABLE=1 "
    "\"NCCL_SOCKET_IFNAME=${sqdeck_nccl_if:-eth0}\" NCCL_IB_DISABLE=1)\n"
    "sqdeck_nccl_set=\n"
    "sqdeck_nccl_names=\n"
    "sqdeck_nccl_result=fail\n"
    "sqdeck_nccl_why=\n"
    "sqdeck_nccl_try=0\n"
    "sqdeck_nccl_setup=0\n"
    "sqdeck_nccl_log=$(mktemp \"${TMPDIR:-/tmp}/sqdeck-nccl.XXXXXX\")\n"
    /*
     * The answer sqdeck learns from goes to a file of this job only,
     * written here before the workload starts; what the job prints to
     * its log is never taken for it.
     */
    "sqdeck_nccl_out=\n"
    "if [ -n \"${SQDECK_JOB_DIR:-}\" ] && [ -n \"${SLURM_JOB_ID:-}\" ]; then\n"
    "\tsqdeck_nccl_out=$SQDECK_JOB_DIR/" NCCL_RESULT_DIR "/result-"
    "$SLURM_JOB_ID\n"
    "\t(umask 077 && mkdir -p -- \"$SQDECK_JOB_DIR/" NCCL_RESULT_DIR "\" && "
    "rm -f -- \"$sqdeck_nccl_out\") || sqdeck_nccl_out=\n"
    "fi\n"
    "sqdeck_nccl_answer() {\n"
    "\t[ -z \"$sqdeck_nccl_out\" ] || (umask 077; set -C; "
    "printf '%s\\n' \"$1\" >\"$sqdeck_nccl_out\") || true\n"
    "}\n"
    "sqdeck_nccl_start=$SECONDS\n"
    "for sqdeck_nccl_kv in \"${sqdeck_nccl_ladder[@]}\"; do\n"
    "\tsqdeck_nccl_t=$sqdeck_nccl_timeout\n"
    "\tif [ \"$sqdeck_nccl_budget\" -gt 0 ]; then\n"
    "\t\tsqdeck_nccl_left=$((sqdeck_nccl_budget - (SECONDS - "
    "sqdeck_nccl_start)))\n"
    "\t\tif [ \"$sqdeck_nccl_left\" -lt 1 ]; then\n"
    "\t\t\tsqdeck_nccl_why=\"${sqdeck_nccl_why:+$sqdeck_nccl_why; }"
    "its budget of ${sqdeck_nccl_budget} s is spent\"\n"
    "\t\t\tbreak\n"
    "\t\tfi\n"
    "\t\t[ \"$sqdeck_nccl_t\" -le \"$sqdeck_nccl_left\" ] || "
    "sqdeck_nccl_t=$sqdeck_nccl_left\n"
    "\tfi\n"
    "\tsqdeck_nccl_try=$((sqdeck_nccl_try + 1))\n"
    "\tif [ -n \"$sqdeck_nccl_kv\" ]; then\n"
    "\t\texport \"${sqdeck_nccl_kv?}\"\n"
    "\t\tsqdeck_nccl_set+=\"${sqdeck_nccl_set:+,}$sqdeck_nccl_kv\"\n"
    "\t\tsqdeck_nccl_names+=\"${sqdeck_nccl_names:+,}"
    "${sqdeck_nccl_kv%%=*}\"\n"
    "\tfi\n"
    "\tsqdeck_nccl_launch=(\"${launch[@]}\")\n"
    "\tif [ -n \"$SQDECK_IMAGE\" ] && [ -n \"$sqdeck_nccl_names\" ]; "
    "then\n"
    "\t\tsqdeck_nccl_launch+=(--container-env=\"$sqdeck_nccl_names\")\n"
    "\tfi\n"
    "\texport SQDECK_NCCL_PORT=$((SQDECK_NCCL_PORT0 + "
    "sqdeck_nccl_try))\n"
    "\techo \"sqdeck: NCCL probe try $sqdeck_nccl_try/4 "
    "(${sqdeck_nccl_set:-default}), timeout ${sqdeck_nccl_t}s\"\n"
    "\tsqdeck_nccl_t0=$SECONDS\n"
    "\twhile :; do\n"
    "\t\tsqdeck_nccl_rc=0\n"
    "\t\ttimeout -k 5 \"$sqdeck_nccl_t\" "
    "\"${sqdeck_nccl_launch[@]}\" bash -c \"$sqdeck_nccl_cmd\" "
    "</dev/null >\"$sqdeck_nccl_log\" 2>&1 &\n"
    "\t\twait \"$!\" || sqdeck_nccl_rc=$?\n"
    /*
     * A node's container could not be set up (SLURM's spank line: Pyxis
     * failed before the probe ran there, e.g. "enroot list" racing with
     * a container ending on the node): not the setting's fault, so the
     * same setting is tried again (twice in all per job) rather than a
     * later one passing and being cached for every later job.
     */
    "\t\tcase $sqdeck_nccl_rc in 0|2|124|127|137) break ;; esac\n"
    "\t\tif [ \"$sqdeck_nccl_setup\" -ge 2 ] || ! grep -qE "
    "'Failed to invoke spank plugin stack|task_init\\(\\) failed' "
    "\"$sqdeck_nccl_log\"; then\n"
    "\t\t\tbreak\n"
    "\t\tfi\n"
    "\t\tsqdeck_nccl_setup=$((sqdeck_nccl_setup + 1))\n"
    "\t\tsed 's/^/[nccl probe] /' \"$sqdeck_nccl_log\" || true\n"
    "\t\techo \"" TRIAGE_STEP_RETRIED " (NCCL probe try "
    "$sqdeck_nccl_try, exit $sqdeck_nccl_rc: a node's container could "
    "not be set up, not the setting's fault): the same setting again\"\n"
    "\t\tsleep 2\n"
    "\tdone\n"
    /*
     * No torchrun or no torch in the image: every task of every node
     * says so; one line of it (the one naming what is missing) is enough.
     */
    "\tif [ \"$sqdeck_nccl_rc\" -eq 127 ] || "
    "[ \"$sqdeck_nccl_rc\" -eq 2 ]; then\n"
    "\t\tsqdeck_nccl_line=$(grep -m 1 -E 'not found|No such file|"
    "No module named' \"$sqdeck_nccl_log\" || "
    "sed -n '/./{p;q;}' \"$sqdeck_nccl_log\") || true\n"
    "\t\tsqdeck_nccl_line=${sqdeck_nccl_line:0:200}\n"
    "\t\tsqdeck_nccl_n=$(wc -l <\"$sqdeck_nccl_log\") || "
    "sqdeck_nccl_n=0\n"
    "\t\tsqdeck_nccl_why=\"exit $sqdeck_nccl_rc"
    "${sqdeck_nccl_line:+: $sqdeck_nccl_line}\"\n"
    "\t\t[ \"$sqdeck_nccl_n\" -le 1 ] || sqdeck_nccl_why+=\" "
    "(1 of $sqdeck_nccl_n lines)\"\n"
    "\t\tsqdeck_nccl_result=skip\n"
    "\t\tbreak\n"
    "\tfi\n"
    "\tsed 's/^/[nccl probe] /' \"$sqdeck_nccl_log\" || true\n"
    "\tif [ \"$sqdeck_nccl_rc\" -eq 0 ] && "
    "grep -q NCCL_PROBE_OK \"$sqdeck_nccl_log\"; then\n"
    "\t\techo \"sqdeck: NCCL probe try $sqdeck_nccl_try passed "
    "after $((SECONDS - sqdeck_nccl_t0)) s\"\n"
    "\t\tsqdeck_nccl_result=ok\n"
    "\t\tbreak\n"
    "\tfi\n"
    "\tcase $sqdeck_nccl_rc in\n"
    "\t124|137) sqdeck_nccl_why=\"timed out after "
    "${sqdeck_nccl_t} s\" ;;\n"
    "\t0) sqdeck_nccl_why=\"no NCCL_PROBE_OK\" ;;\n"
    "\t*) sqdeck_nccl_why=\"exit $sqdeck_nccl_rc\" ;;\n"
    "\tesac\n"
    "\techo \"sqdeck: NCCL probe try $sqdeck_nccl_try "
    "(${sqdeck_nccl_set:-default}) failed: $sqdeck_nccl_why\"\n"
    "done\n"
    "rm -f -- \"$sqdeck_nccl_log\"\n"
    "case $sqdeck_nccl_result in\n"
    "ok)\n"
    "\techo \"SQDECK_NCCL_OK=${sqdeck_nccl_set:-default}\"\n"
    "\tsqdeck_nccl_answer \"SQDECK_NCCL_OK=${sqdeck_nccl_set:-default}\"\n"
    "\tif [ -n \"$SQDECK_IMAGE\" ] && [ -n \"$sqdeck_nccl_names\" ]; "
    "then\n"
    "\t\tlaunch+=(--container-env=\"$sqdeck_nccl_names\")\n"
    "\tfi\n"
    "\t;;\n"
    "skip)\n"
    "\techo \"SQDECK_NCCL_SKIP=the probe could not run "
    "($sqdeck_nccl_why); going on without it\"\n"
    "\tsqdeck_nccl_answer SQDECK_NCCL_SKIP=unavailable\n"
    "\t;;\n"
    "*)\n"
    "\techo \"SQDECK_NCCL_FAIL=every setting failed (last: "
    "$sqdeck_nccl_why)\"\n"
    "\tsqdeck_nccl_answer SQDECK_NCCL_FAIL=all\n"
    "\techo \"sqdeck: NCCL probe failed with every setting "
    "(default, NCCL_P2P_DISABLE, NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE): "
    "the workload was not started\" >&2\n"
    "\texit 1\n"
    "\t;;\n"
    "esac\n";

int
nccl_probe_budget(int job_minutes, int timeout)
{
	long	b;

	if (timeout <= 0)
		timeout = NCCL_PROBE_TIMEOUT;
	b = (long)job_minutes * 60 * NCCL_PROBE_BUDGET_PERCENT / 100;
	if (b < NCCL_PROBE_BUDGET_MIN)
		b = NCCL_PROBE_BUDGET_MIN;
	if (b > 4L * timeout)
		b = 4L * timeout;	/* the ladder has four settings */
	return (int)b;
}

/*
 * The probe and the workload share one container filesystem in the
 * allocation (Pyxis --container-name): the image is unpacked once, not
 * once per try and again for the job.  With Pyxis' container_scope=global
 * a named container outlives the job, so it is removed on every node at
 * the end (the template's sidecar wipe still runs first).
 */
static const char nccl_share[] =
    "if [ -n \"$SQDECK_IMAGE\" ]; then\n"
    "\tsqdeck_nccl_cname=\"sqdeck-$SLURM_JOB_ID\"\n"
    "\tlaunch+=(--container-name=\"$sqdeck_nccl_cname\")\n"
    "\tsqdeck_nccl_rm() {\n"
    "\t\tsrun --overlap --nodes=\"${SLURM_JOB_NUM_NODES:-1}\" "
    "--ntasks-per-node=1 enroot remove -f \"pyxis_$sqdeck_nccl_cname\" "
    ">/dev/null 2>&1 || true\n"
    "\t}\n"
    "\ttrap 'if declare -F sqdeck_wipe >/dev/null; then sqdeck_wipe; fi; "
    "sqdeck_nccl_rm' EXIT\n"
    "\techo \"sqdeck: the NCCL probe and the job share container "
    "$sqdeck_nccl_cname (the image is unpacked once)\"\n"
    /*
     * Every node unpacks the image in a step of its own first.  A probe
     * task that ends at once (exit 127: no torchrun in the image) made
     * srun kill the step (--kill-on-bad-exit) while another node was
     * still unpacking, and that node's half-made container then failed
     * the job's own step ("couldn't get list of existing container
     * filesystems"), which was retried as INFRA.
     */
    /*
     * A node whose unpacking was cut short (the other node's Pyxis failed
     * first: "enroot list" races with containers ending on a shared
     * node) keeps a half-made container that every later step of the
     * name would reuse ("enroot-switchroot: failed to execute:
     * /bin/bash"): it is removed on every node and the unpacking tried
     * again, 3 tries.  The line before a new try is the templates' (the
     * triage passes over the setup errors before it).
     */
    "\tfor sqdeck_nccl_u in 1 2 3; do\n"
    "\t\tsqdeck_nccl_rc=0\n"
    "\t\t\"${launch[@]}\" true </dev/null &\n"
    "\t\twait \"$!\" || sqdeck_nccl_rc=$?\n"
    "\t\t[ \"$sqdeck_nccl_rc\" -ne 0 ] || break\n"
    "\t\tsqdeck_nccl_rm\n"
    "\t\t[ \"$sqdeck_nccl_u\" -lt 3 ] || break\n"
    "\t\techo \"" TRIAGE_STEP_RETRIED " (unpacking the image on every "
    "node, exit $sqdeck_nccl_rc): its container removed on every node, "
    "trying again, try $((sqdeck_nccl_u + 1)) of 3\" >&2\n"
    "\t\tsleep 2\n"
    "\tdone\n"
    "\t[ \"$sqdeck_nccl_rc\" -eq 0 ] || echo \"sqdeck: unpacking the "
    "image on every node failed (exit $sqdeck_nccl_rc); the probe will "
    "say why\"\n"
    "fi\n";

char *
nccl_probe_step(const char *command, int timeout, int nodes,
    int gpus_per_node)
{
	if (timeout <= 0)
		timeout = NCCL_PROBE_TIMEOUT;
	return nccl_probe_step_budget(command, timeout, -1, 0, nodes,
	    gpus_per_node);
}

char *
nccl_probe_step_budget(const char *command, int timeout, int budget,
    int job_minutes, int nodes, int gpus_per_node)
{
	struct buf	 b;
	const char	*py;

	if (command == NULL || *command == '\0')
		command = nccl_default;
	if (timeout <= 0)
		timeout = NCCL_PROBE_TIMEOUT;
	if (budget == 0)
		budget = 4 * timeout;
	if (budget < 0)
		budget = 0;	/* no total budget, only the tries' */
	buf_init(&b);
	buf_adds(&b, "# NCCL probe: step 0 of this allocation, before "
	    "the workload.\nsqdeck_nccl_cmd=");
	buf_add_quoted(&b, command);
	buf_printf(&b, "\nsqdeck_nccl_timeout=%d\n", timeout);
	buf_printf(&b, "sqdeck_nccl_budget=%d\n", budget);
	if (job_minutes > 0)
		buf_printf(&b, "echo \"sqdeck: NCCL probe budget %d s in all "
		    "(%d%% of the job's %d min, at least %d s), %d s per "
		    "try\"\n",
		    budget, NCCL_PROBE_BUDGET_PERCENT, job_minutes,
		    NCCL_PROBE_BUDGET_MIN, timeout);
	buf_adds(&b, nccl_share);
	buf_printf(&b, "export SQDECK_NCCL_NNODES=%d SQDECK_NCCL_NPROC=%d"
	    "\n", nodes < 1 ? 1 : nodes, gpus_per_node < 1 ? 1 : gpus_per_node);
	/* The probe's own alarm fires before the outer timeout. */
	buf_printf(&b, "export SQDECK_NCCL_INNER=%d\n",
	    timeout > 20 ? timeout - 10 : timeout);
	buf_printf(&b, "export SQDECK_NCCL_PORT0=%d\n", NCCL_PROBE_PORT);
	buf_adds(&b, "export SQDECK_NCCL_MASTER=\"${MASTER_ADDR:-"
	    "$(hostname)}\"\n");
	if (command == nccl_default &&
	    (py = template_embedded("nccl_allreduce_probe.py")) != NULL) {
		buf_adds(&b, "SQDECK_NCCL_PROBE_PY=$(cat <<'"
		    "SQDECK_NCCL_PY_END'\n");
		buf_adds(&b, py);
		if (*py != '\0' && py[strlen(py) - 1] != '\n')
			buf_adds(&b, "\n");
		buf_adds(&b, "SQDECK_NCCL_PY_END\n)\n"
		    "export SQDECK_NCCL_PROBE_PY\n");
	}
	buf_adds(&b, nccl_ladder);
	return buf_steal(&b);
}

char *
nccl_skip_step(const char *setting, const struct strv *env)
{
	struct buf	 b;
	size_t		 i, n;

	buf_init(&b);
	buf_adds(&b, "# NCCL probe skipped: this cluster, partition "
	    "and image have a cached setting.\necho ");
	buf_add_quoted(&b, "sqdeck: NCCL probe skipped: cached setting ");
	buf_add_quoted(&b, setting);
	buf_adds(&b, "\necho ");
	buf_add_quoted(&b, "SQDECK_NCCL_CACHED=");
	buf_add_quoted(&b, setting);
	buf_adds(&b, "\n");
	if (env != NULL && env->n != 0) {
		buf_adds(&b, "if [ -n \"$SQDECK_IMAGE\" ]; then\n"
		    "\tlaunch+=(--container-env=");
		for (i = 0; i < env->n; i++) {
			n = strcspn(env->v[i], "=");
			if (i != 0)
				buf_adds(&b, ",");
			buf_add(&b, env->v[i], n);
		}
		buf_adds(&b, ")\nfi\n");
	}
	return buf_steal(&b);
}

static int
nccl_name_ok(const char *s, size_t n)
{
	size_t	i;

	if (n <= 5 || strncmp(s, "NCCL_", 5) != 0)
		return 0;
	for (i = 5; i < n; i++) {
		if (!(s[i] >= 'A' && s[i] <= 'Z') && !(s[i] >= '0' &&
		    s[i] <= '9') && s[i] != '_')
			return 0;
	}
	return 1;
}

/* NULL if item (NAME=value, already character-checked) is a ladder rung. */
static const char *
nccl_allowed(const char *item, const struct strv *items, size_t at)
{
	const char	*v = strchr(item, '=') + 1;
	size_t		 n = (size_t)(v - item), i;

	for (i = 0; i < at; i++) {
		if (strncmp(items->v[i], item, n) == 0)
			return "a variable is set twice";
	}
	if (strncmp(item, "NCCL_P2P_DISABLE=", n) == 0 ||
	    strncmp(item, "NCCL_IB_DISABLE=", n) == 0)
		return strcmp(v, "1") == 0 ? NULL : "the value must be 1";
	if (strncmp(item, "NCCL_SOCKET_IFNAME=", n) == 0) {
		if (*v == '\0' || strlen(v) > 15 || strspn(v, "abcdefghijklm"
		    "nopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(v))
			return "NCCL_SOCKET_IFNAME must be one interface name";
		if (strcmp(v, "lo") == 0)
			return "NCCL_SOCKET_IFNAME=lo would keep every later "
			    "job on loopback";
		return NULL;
	}
	return "only NCCL_P2P_DISABLE, NCCL_SOCKET_IFNAME and "
	    "NCCL_IB_DISABLE are taken from a probe";
}

int
nccl_setting_parse(const char *setting, struct strv *env, char **cause)
{
	struct strv	 items;
	const char	*v, *p, *why;
	size_t		 i;

	memset(&items, 0, sizeof items);
	if (setting == NULL || *setting == '\0')
		return cause_set(cause, "empty NCCL setting");
	if (strcmp(setting, "default") == 0)
		return 0;
	strv_split(&items, setting, ',');
	for (i = 0; i < items.n; i++) {
		v = strchr(items.v[i], '=');
		if (v == NULL || !nccl_name_ok(items.v[i],
		    (size_t)(v - items.v[i])))
			goto bad;
		for (p = v + 1; *p != '\0'; p++) {
			if (strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:^-", *p) ==
			    NULL)
				goto bad;
		}
	}
	/*
	 * Only what the probe's ladder sets: a forged answer can at worst
	 * pick another rung, never set LD_* or NCCL_* knobs of its own.
	 */
	for (i = 0; i < items.n; i++) {
		if ((why = nccl_allowed(items.v[i], &items, i)) != NULL) {
			cause_set(cause, "NCCL setting '%s': %s", setting, why);
			strv_free(&items);
			return -1;
		}
	}
	for (i = 0; i < items.n; i++)
		strv_add(env, items.v[i]);
	strv_free(&items);
	return 0;
bad:
	cause_set(cause, "NCCL setting '%s': '%s' is not NCCL_NAME=value "
	    "(letters, digits, '.', '_', ':', '^', '-')", setting,
	    items.v[i]);
	strv_free(&items);
	return -1;
}

enum nccl_verdict
nccl_parse_log(const char *text, size_t len, char **value)
{
	static const struct {
		const char		*prefix;
		enum nccl_verdict	 v;
	} kinds[] = {
		{ "SQDECK_NCCL_OK=", NCCL_OK },
		{ "SQDECK_NCCL_SKIP=", NCCL_SKIP },
		{ "SQDECK_NCCL_FAIL=", NCCL_FAIL },
	};
	enum nccl_verdict	 v = NCCL_NONE;
	const char		*line, *end, *stop = text + len;
	size_t			 i, n, plen;

	if (value != NULL)
		*value = NULL;
	for (line = text; text != NULL && line < stop; line = end + 1) {
		if ((end = memchr(line, '\n', (size_t)(stop - line))) == NULL)
			end = stop;
		n = (size_t)(end - line);
		if (n != 0 && line[n - 1] == '\r')
			n--;
		for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
			plen = strlen(kinds[i].prefix);
			if (n < plen || strncmp(line, kinds[i].prefix, plen) !=
			    0)
				continue;
			v = kinds[i].v;
			if (value != NULL) {
				free(*value);
				*value = xstrndup(line + plen, n - plen);
			}
		}
	}
	return v;
}

const char *
nccl_verdict_name(enum nccl_verdict v)
{
	switch (v) {
	case NCCL_OK:
		return "OK";
	case NCCL_SKIP:
		return "SKIP";
	case NCCL_FAIL:
		return "FAIL";
	case NCCL_NONE:
		break;
	}
	return "NONE";
}

/* --- the cache ------------------------------------------------------------ */

char *
nccl_cache_path(void)
{
	char	*dir = path_state_dir(), *p;

	p = xasprintf("%s/nccl-cache.json", dir);
	free(dir);
	return p;
}

/* The cache's lock; -1 with a cause when the state dir is unusable. */
static int
nccl_lock(char **cause)
{
	char	*dir = path_state_dir(), *p;
	int	 fd;

	if (mkdir_p(dir, 0700, cause) != 0 ||
	    path_private_dir(dir, cause) != 0) {
		free(dir);
		return -1;
	}
	p = xasprintf("%s/nccl-cache.lock", dir);
	free(dir);
	if ((fd = open(p, O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0600)) == -1) {
		cause_set(cause, "%s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			cause_set(cause, "%s: lock: %s", p, strerror(errno));
			free(p);
			close(fd);
			return -1;
		}
	}
	free(p);
	return fd;
}

/* The cache as JSON: an empty one when there is no file. */
static cJSON *
nccl_cache_read(char **cause)
{
	cJSON	*o, *a;
	char	*path = nccl_cache_path(), *text = NULL, *why = NULL;
	size_t	 len;

	if (access(path, F_OK) != 0 && errno == ENOENT) {
		free(path);
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "version", 1);
		cJSON_AddArrayToObject(o, "entries");
		return o;
	}
	if (file_read(path, &text, &len, &why) != 0) {
		cause_set(cause, "NCCL cache %s: %s", path, why);
		free(why);
		free(path);
		return NULL;
	}
	o = cJSON_ParseWithLength(text, len);
	free(text);
	if (o == NULL || !cJSON_IsArray(a = cJSON_GetObjectItem(o,
	    "entries"))) {
		cause_set(cause, "NCCL cache %s is not valid (no \"entries\" "
		    "list): remove it, the next probe writes it again", path);
		cJSON_Delete(o);
		free(path);
		return NULL;
	}
	free(path);
	return o;
}

static int
nccl_cache_write(cJSON *o, char **cause)
{
	char	*path = nccl_cache_path(), *text;
	int	 rc;

	text = cJSON_Print(o);
	rc = file_write_atomic(path, text, strlen(text), 0600, cause);
	cJSON_free(text);
	free(path);
	return rc;
}

static const char *
json_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
nccl_entry_is(const cJSON *e, const char *cluster, const char *partition,
    const char *image)
{
	const char	*c = json_str(e, "cluster"), *p = json_str(e, "partition");
	const char	*i = json_str(e, "image");

	return c != NULL && p != NULL && i != NULL && strcmp(c, cluster) == 0 &&
	    strcmp(p, partition) == 0 && strcmp(i, image) == 0;
}

int
nccl_cache_lookup(const char *cluster, const char *partition,
    const char *image, char **setting, char **cause)
{
	cJSON		*o, *e;
	const char	*s;
	struct strv	 env;
	int		 found = 0;

	*setting = NULL;
	if ((o = nccl_cache_read(cause)) == NULL)
		return -1;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "entries")) {
		if (!nccl_entry_is(e, cluster, partition, image) ||
		    (s = json_str(e, "setting")) == NULL)
			continue;
		/* A setting that would not be safe in a script is no hit. */
		memset(&env, 0, sizeof env);
		if (nccl_setting_parse(s, &env, NULL) == 0) {
			free(*setting);
			*setting = xstrdup(s);
			found = 1;
		}
		strv_free(&env);
	}
	cJSON_Delete(o);
	return found;
}

/* Remove entries of a key from the list; returns how many. */
static int
nccl_cache_drop(cJSON *o, const char *cluster, const char *partition,
    const char *image)
{
	cJSON	*a = cJSON_GetObjectItem(o, "entries");
	int	 i, n = 0;

	for (i = cJSON_GetArraySize(a) - 1; i >= 0; i--) {
		if (nccl_entry_is(cJSON_GetArrayItem(a, i), cluster, partition,
		    image)) {
			cJSON_DeleteItemFromArray(a, i);
			n++;
		}
	}
	return n;
}

int
nccl_cache_store(const char *cluster, const char *partition,
    const char *image, const char *setting, const char *record_id,
    char **cause)
{
	struct strv	 env;
	cJSON		*o, *e;
	char		 stamp[32];
	int		 fd, rc = -1;

	memset(&env, 0, sizeof env);
	if (nccl_setting_parse(setting, &env, cause) != 0)
		return -1;
	strv_free(&env);
	if ((fd = nccl_lock(cause)) == -1)
		return -1;
	if ((o = nccl_cache_read(cause)) == NULL)
		goto out;
	nccl_cache_drop(o, cluster, partition, image);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "cluster", cluster);
	cJSON_AddStringToObject(e, "partition", partition);
	cJSON_AddStringToObject(e, "image", image);
	cJSON_AddStringToObject(e, "setting", setting);
	cJSON_AddStringToObject(e, "record_id", record_id != NULL ?
	    record_id : "");
	iso_time_fmt(time(NULL), stamp, sizeof stamp);
	cJSON_AddStringToObject(e, "learned", stamp);
	cJSON_AddItemToArray(cJSON_GetObjectItem(o, "entries"), e);
	rc = nccl_cache_write(o, cause);
	cJSON_Delete(o);
out:
	close(fd);
	return rc;
}

int
nccl_cache_forget(const char *cluster, const char *partition,
    const char *image, char **cause)
{
	cJSON	*o;
	int	 fd, n, rc = -1;

	if ((fd = nccl_lock(cause)) == -1)
		return -1;
	if ((o = nccl_cache_read(cause)) == NULL)
		goto out;
	n = nccl_cache_drop(o, cluster, partition, image);
	rc = n == 0 ? 0 : nccl_cache_write(o, cause);
	if (rc == 0)
		rc = n != 0;
	cJSON_Delete(o);
out:
	close(fd);
	return rc;
}

/* --- pending probes --------------------------------------------------------
   */

static char *
nccl_pending_dir(void)
{
	char	*dir = path_state_dir(), *p;

	p = xasprintf("%s/nccl-pending", dir);
	free(dir);
	return p;
}

static int
nccl_id_ok(const char *id)
{
	const char	*p;

	if (id == NULL || *id == '\0' || *id == '.')
		return 0;
	for (p = id; *p != '\0'; p++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._-", *p) == NULL)
			return 0;
	}
	return 1;
}

int
nccl_pending_add(const char *record_id, const char *cluster,
    const char *partition, const char *image, char **cause)
{
	cJSON	*o;
	char	*dir, *path, *text, stamp[32];
	int	 rc;

	if (!nccl_id_ok(record_id))
		return cause_set(cause, "bad record id '%s'", record_id);
	dir = nccl_pending_dir();
	if (mkdir_p(dir, 0700, cause) != 0 ||
	    path_private_dir(dir, cause) != 0) {
		free(dir);
		return -1;
	}
	path = xasprintf("%s/%s.json", dir, record_id);
	free(dir);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "record_id", record_id);
	cJSON_AddStringToObject(o, "cluster", cluster);
	cJSON_AddStringToObject(o, "partition", partition);
	cJSON_AddStringToObject(o, "image", image);
	iso_time_fmt(time(NULL), stamp, sizeof stamp);
	cJSON_AddStringToObject(o, "added", stamp);
	text = cJSON_Print(o);
	cJSON_Delete(o);
	rc = file_write_atomic(path, text, strlen(text), 0600, cause);
	cJSON_free(text);
	free(path);
	return rc;
}

struct nccl_pending {
	char		*path;
	cJSON		*o;
	struct record	*r;
	char		*log;	/* main.out on the cluster */
};

/* Pending entries of a cluster (and of one key when partition != NULL). */
static size_t
nccl_pending_list(const char *cluster, const char *partition,
    const char *image, struct nccl_pending **out)
{
	struct nccl_pending	*v = NULL;
	struct dirent		*de;
	DIR			*d;
	char			*dir = nccl_pending_dir(), *path, *text;
	size_t			 n = 0, len;
	cJSON			*o;
	const char		*id;

	*out = NULL;
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (!str_has_suffix(de->d_name, ".json") || *de->d_name == '.')
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (file_read(path, &text, &len, NULL) != 0) {
			free(path);
			continue;
		}
		o = cJSON_ParseWithLength(text, len);
		free(text);
		id = o != NULL ? json_str(o, "record_id") : NULL;
		if (id == NULL || json_str(o, "cluster") == NULL ||
		    strcmp(json_str(o, "cluster"), cluster) != 0 ||
		    (partition != NULL && !nccl_entry_is(o, cluster,
		    partition, image))) {
			/* Unreadable entries are litter: drop them. */
			if (o == NULL || id == NULL)
				unlink(path);
			cJSON_Delete(o);
			free(path);
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof *v);
		memset(&v[n], 0, sizeof v[n]);
		v[n].path = path;
		v[n].o = o;
		n++;
	}
	closedir(d);
	free(dir);
	*out = v;
	return n;
}

static void
nccl_pending_free(struct nccl_pending *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		cJSON_Delete(v[i].o);
		record_free(v[i].r);
		free(v[i].log);
	}
	free(v);
}

static int
nccl_learn_some(struct conn *c, struct nccl_pending *v, size_t n,
    int *learned, char **cause)
{
	struct conn_result		 res;
	struct remote_reply		 rep;
	const struct remote_section	*sec;
	struct buf			 sh, args;
	enum nccl_verdict		 verdict;
	const char			*id;
	char				 marker[REMOTE_MARKER_SIZE], idx[24];
	char				*value, *why = NULL;
	size_t				 i, asked = 0;
	int			 rc = 0;

	if (learned != NULL)
		*learned = 0;
	buf_init(&args);
	buf_adds(&args, "set --");
	for (i = 0; i < n; i++) {
		id = json_str(v[i].o, "record_id");
		if (record_load(id, &v[i].r, NULL) != 0) {
			unlink(v[i].path);	/* the record is gone */
			continue;
		}
		if (record_slurm_id(v[i].r) == NULL) {
			if (state_terminal(v[i].r->state))
				unlink(v[i].path);	/* never launched */
			continue;
		}
		if (v[i].r->job_dir == NULL)
			continue;
		v[i].log = xasprintf("%s/" NCCL_RESULT_DIR "/result-%s",
		    v[i].r->job_dir, record_slurm_id(v[i].r));
		/* This job's own answer file (nccl-read.sh reads it). */
		snprintf(idx, sizeof idx, "%zu", i);
		buf_adds(&args, " ");
		buf_adds(&args, idx);
		buf_adds(&args, " ");
		buf_add_quoted(&args, v[i].log);
		asked++;
	}
	if (asked == 0) {
		buf_free(&args);
		return 0;
	}
	buf_init(&sh);
	remote_marker(marker, sizeof marker);
	remote_reply_prelude(&sh, marker);
	buf_add(&sh, args.data, args.len);
	buf_adds(&sh, "\n");
	buf_free(&args);
	rsh_embed(&sh, "nccl-read.sh");
	/* Bounded: a log line can be any size. */
	if (rsh_run_limit(c, sh.data, 0, (n + 1) * 2048, &res, &why) != 0) {
		buf_free(&sh);
		cause_set(cause, "reading NCCL probe results: %s", why);
		free(why);
		return -1;
	}
	buf_free(&sh);
	remote_reply_parse(res.out, res.outlen, marker, "the NCCL answers",
	    &rep, NULL);
	for (i = 0; i < n; i++) {
		if (v[i].log == NULL)
			continue;
		snprintf(idx, sizeof idx, "%zu", i);
		if ((sec = remote_reply_find(&rep, "result", idx)) == NULL)
			continue;
		verdict = nccl_parse_log(sec->data, sec->len, &value);
		if (verdict == NCCL_OK) {
			if (nccl_cache_store(json_str(v[i].o, "cluster"),
			    json_str(v[i].o, "partition"),
			    json_str(v[i].o, "image"), value, v[i].r->id,
			    &why) != 0) {
				if (cause != NULL && *cause == NULL)
					*cause = why;
				else
					free(why);
				why = NULL;
				rc = -1;
			} else {
				unlink(v[i].path);
				if (learned != NULL)
					(*learned)++;
			}
		} else if (verdict != NCCL_NONE ||
		    state_terminal(v[i].r->state))
			unlink(v[i].path);	/* settled, nothing to keep */
		free(value);
	}
	remote_reply_free(&rep);
	conn_result_free(&res);
	return rc;
}

int
nccl_learn(struct conn *c, const char *cluster, int *learned, char **cause)
{
	struct nccl_pending	*v;
	size_t			 n;
	int			 rc;

	if (learned != NULL)
		*learned = 0;
	if ((n = nccl_pending_list(cluster, NULL, NULL, &v)) == 0)
		return 0;
	rc = nccl_learn_some(c, v, n, learned, cause);
	nccl_pending_free(v, n);
	return rc;
}

/* --- what submit calls -----------------------------------------------------
   */

int
nccl_prepare(struct conn *c, const struct cluster *cl, const char *partition,
    const char *image, int nodes, int gpus_per_node, int job_minutes,
    struct nccl_job *job, char **cause)
{
	struct nccl_pending	*v;
	size_t			 n;
	int			 hit;

	memset(job, 0, sizeof *job);
	if (!nccl_wanted(nodes, gpus_per_node)) {
		job->pre_step = xstrdup("");
		return 0;
	}
	hit = nccl_cache_lookup(cl->name, partition, image, &job->setting,
	    cause);
	if (hit == 0 && c != NULL &&
	    (n = nccl_pending_list(cl->name, partition, image, &v)) != 0) {
		/* An earlier job may have found the setting already. */
		nccl_learn_some(c, v, n, NULL, NULL);
		nccl_pending_free(v, n);
		hit = nccl_cache_lookup(cl->name, partition, image,
		    &job->setting, cause);
	}
	if (hit < 0)
		return -1;
	if (hit == 1) {
		job->cached = 1;
		nccl_setting_parse(job->setting, &job->env, NULL);
		job->pre_step = nccl_skip_step(job->setting, &job->env);
		return 0;
	}
	job->probe = 1;
	job->budget = nccl_probe_budget(job_minutes, cl->nccl_probe_timeout);
	job->pre_step = nccl_probe_step_budget(cl->nccl_probe_command,
	    cl->nccl_probe_timeout, job->budget, job_minutes, nodes,
	    gpus_per_node);
	return 0;
}

void
nccl_job_free(struct nccl_job *job)
{
	free(job->setting);
	free(job->pre_step);
	strv_free(&job->env);
	memset(job, 0, sizeof *job);
}
