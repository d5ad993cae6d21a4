#include "triage.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/*
 * The rules, tried in order; the first that matches decides.  The order is
 * how sure the evidence is about the root cause: the scheduler's own verdict
 * and hardware messages first, then the user's setup, then program errors
 * that other ranks turn into NCCL timeouts (a rank dying of CUDA OOM or a
 * KeyError leaves its peers stuck in a collective until the watchdog fires),
 * then NCCL itself, then what the state and exit code alone say.
 *
 * exit is "CODE:SIGNAL", each a number, "*" (any) or "+" (non-zero).
 */
static const struct triage_rule rules[] = {
	{ "node-fail", ERR_INFRA, "NODE_FAIL", NULL, NULL, NULL, 0,
	  "a node of the allocation failed; SLURM gave up on the job" },
	{ "boot-fail", ERR_INFRA, "BOOT_FAIL", NULL, NULL, NULL, 0,
	  "a node of the allocation failed to boot" },
	{ "node-fail-log", ERR_INFRA, NULL, NULL,
	  "DUE TO NODE FAILURE", NULL, 0,
	  "slurmstepd reports the job was ended by a node failure" },
	{ "slurm-output", ERR_INFRA, NULL, "0:53", NULL, NULL, 0,
	  "slurmd could not open the job's output file (exit 0:53): the log "
	  "directory was missing on the node or shared storage was not "
	  "mounted there" },
	{ "slurm-output-log", ERR_INFRA, NULL, NULL,
	  "Could not open (stdout|stderr|stdin|input) file", NULL, 0,
	  "slurmd could not open the job's output file: the log directory was "
	  "missing on the node or shared storage was not mounted there" },
	{ "gpu-xid", ERR_INFRA, NULL, NULL,
	  "(^|[^A-Za-z0-9_])Xid([^A-Za-z0-9_]|$)", NULL, 0,
	  "the NVIDIA driver reported an Xid error: a GPU fault on the node" },
	{ "gpu-lost", ERR_INFRA, NULL, NULL,
	  "GPU has fallen off the bus|GPU is lost|uncorrectable ECC error|"
	  "Unable to determine the device handle for GPU", NULL, 0,
	  "a GPU on the node failed (fell off the bus or hit an ECC error)" },
	{ "cuda-driver-init", ERR_INFRA, NULL, NULL,
	  "CUDA driver initialization failed|cudaErrorInitializationError|"
	  "CUDA error: initialization error|CUDA_ERROR_NOT_INITIALIZED|"
	  "no CUDA-capable device is detected|cudaErrorNoDevice|"
	  "CUDA_ERROR_NO_DEVICE|Failed to initialize NVML|"
	  "Driver/library version mismatch", NULL, 0,
	  "the CUDA driver could not initialise the node's GPUs" },
	{ "ib-link", ERR_INFRA, NULL, NULL,
	  "ibv_[a-z_]+.*(fail|error)|(^|[^a-z])link (is |went )?down|"
	  "IBV_WC_[A-Z_]+_ERR|transport retry counter exceeded|"
	  "NET/IB ?:.*(error|fail|vendor err)|Got completion from peer",
	  NULL, 1,
	  "the InfiniBand/network link of a node failed" },
	{ "oom-node", ERR_INFRA, NULL, NULL,
	  "Out of memory: Kill|oom-kill:constraint=CONSTRAINT_NONE|"
	  "Out of memory and no killable processes", NULL, 0,
	  "the node's kernel ran out of memory and killed the job to reclaim "
	  "it (a node-wide OOM, not the job's own memory limit)" },
	{ "nccl-probe", ERR_INFRA, NULL, NULL,
	  "^SQDECK_NCCL_FAIL=|sqdeck: NCCL probe failed with every "
	  "setting", NULL, 0,
	  "the NCCL probe (step 0) hung or failed with every NCCL setting "
	  "(default, NCCL_P2P_DISABLE, NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE), "
	  "so the workload was not started: the nodes' GPU/network transport "
	  "is broken; the retry excludes them (R21)" },
	{ "enroot-credentials", ERR_CONFIG, NULL, NULL,
	  "Could not process JSON input", NULL, 0,
	  "enroot could not authenticate to the registry while pulling the "
	  "image: the cluster has no registry credentials for this user "
	  "(~/.config/enroot/.credentials, R7); install them with "
	  "`sqdeck creds install` (the key goes over SSH stdin only)" },
	{ "image-auth", ERR_CONFIG, NULL, NULL,
	  "401 Unauthorized|403 Forbidden|unauthorized: authentication "
	  "required|pull access denied|requested access to the resource is "
	  "denied", NULL, 0,
	  "the registry refused the image pull: check the image name and the "
	  "registry credentials (`sqdeck creds install`)" },
	{ "image-missing", ERR_CONFIG, NULL, NULL,
	  "manifest unknown|manifest for [^ ]+ not found|"
	  "returned error code: 404", NULL, 0,
	  "the image or tag does not exist in the registry: check the image "
	  "name and tag" },
	{ "invalid-partition", ERR_CONFIG, NULL, NULL,
	  "invalid partition", NULL, 1,
	  "SLURM does not know the partition: check SLURM_PARTITION or the "
	  "cluster's partitions (sqdeck preflight)" },
	{ "invalid-time", ERR_CONFIG, NULL, NULL,
	  "Requested time limit is invalid|Requested time limit exceeds",
	  NULL, 0,
	  "the time limit is above the partition's maximum: lower the time "
	  "(the default partitions take at most 4 h)" },
	{ "invalid-account", ERR_CONFIG, NULL, NULL,
	  "Invalid account or account/partition combination|"
	  "Invalid qos specification", NULL, 0,
	  "SLURM refused the account or QOS: check SLURM_ACCOUNT" },
	{ "missing-path", ERR_CONFIG, NULL, NULL,
	  "/.*No such file or directory|No such file or directory.*/",
	  "NCCL|/dev/shm", 0,
	  "a file or directory the job needs does not exist: check the "
	  "dataset paths and mounts of the job spec" },
	{ "cuda-oom", ERR_PROGRAM, NULL, NULL,
	  "CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|"
	  "CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|"
	  "RESOURCE_EXHAUSTED: OOM", NULL, 0,
	  "the program ran out of GPU memory: lower the batch size or use "
	  "more GPUs (not a node fault; no retry)" },
	{ "oom-cgroup", ERR_PROGRAM, NULL, NULL,
	  "Detected [0-9]+ oom[-_]kill event|Memory cgroup out of memory|"
	  "oom-kill:constraint=CONSTRAINT_MEMCG", NULL, 0,
	  "the job went over its own memory allocation and was killed: "
	  "request more memory or use less" },
	{ "python-exception", ERR_PROGRAM, NULL, NULL,
	  "^(\\[rank[0-9]+\\]: |[0-9]+: )?(([A-Za-z_][A-Za-z0-9_]*\\.)*"
	  "[A-Za-z_][A-Za-z0-9_]*(Error|Exception)|Exception)(:|$)",
	  "NCCL|nccl|DistBackendError|ProcessGroupNCCL", 0,
	  "the program raised an exception" },
	{ "nccl-transport", ERR_INFRA, NULL, NULL,
	  "NCCL WARN.*(Connection timed out|Connection refused|"
	  "Connection reset|Broken pipe)|ncclSystemError|ncclRemoteError|"
	  "unhandled system error|remote process exited or there was a "
	  "network error|NET/Socket ?:.*(fail|error)", NULL, 0,
	  "NCCL lost its transport between GPUs or nodes (network/P2P); a "
	  "retry may need the cluster's NCCL settings (R21)" },
	{ "nccl-watchdog", ERR_INFRA, NULL, NULL,
	  "Watchdog caught collective operation timeout|NCCL watchdog|"
	  "ProcessGroupNCCL.*[Tt]imeout|Some NCCL operations have failed or "
	  "timed out", NULL, 0,
	  "an NCCL collective timed out (a peer or link hung)" },
	{ "timeout", ERR_PROGRAM, "TIMEOUT", NULL, NULL, NULL, 0,
	  "the job hit its time limit: checkpoint and resume, or shorten the "
	  "run (no retry: it would time out again)" },
	{ "timeout-log", ERR_PROGRAM, NULL, NULL,
	  "DUE TO TIME LIMIT", NULL, 0,
	  "the job hit its time limit: checkpoint and resume, or shorten the "
	  "run (no retry: it would time out again)" },
	{ "deadline", ERR_CONFIG, "DEADLINE", NULL, NULL, NULL, 0,
	  "the job's --deadline passed before it could finish: submit with a "
	  "later deadline or a shorter time" },
	{ "memory-limit", ERR_PROGRAM, "OUT_OF_MEMORY", NULL, NULL, NULL, 0,
	  "the job went over its memory allocation (no node OOM message in the "
	  "log): request more memory or use less" },
	{ "no-success-status", ERR_PROGRAM, "COMPLETED", NULL, NULL, NULL, 0,
	  "SLURM says COMPLETED but status.json in the results directory did "
	  "not report success" },
	{ "signal", ERR_PROGRAM, NULL, "*:+", NULL, NULL, 0,
	  "the job was killed by a signal" },
	{ "exit-code", ERR_PROGRAM, NULL, "+:*", NULL, NULL, 0,
	  "the program exited with a non-zero code (128+N: killed by signal "
	  "N)" },
	{ "default", ERR_PROGRAM, NULL, NULL, NULL, NULL, 0,
	  "no infrastructure or configuration evidence in the state, exit "
	  "code or log: a program failure (no retry)" },
};
#define NRULES (sizeof rules / sizeof rules[0])

const struct triage_rule *
triage_rules(size_t *n)
{
	*n = NRULES;
	return rules;
}

static int
parse_num(const char *s, size_t len, int *out)
{
	char	 buf[16], *end;
	long	 v;

	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (*end != '\0' || errno != 0 || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int
triage_parse_exit(const char *s, int *code, int *sig, char **cause)
{
	const char	*colon;

	if (s == NULL)
		s = "";
	colon = strchr(s, ':');
	*sig = 0;
	if (colon == NULL) {
		if (parse_num(s, strlen(s), code) != 0)
			goto bad;
		return 0;
	}
	if (parse_num(s, (size_t)(colon - s), code) != 0 ||
	    parse_num(colon + 1, strlen(colon + 1), sig) != 0)
		goto bad;
	return 0;
bad:
	return cause_set(cause, "exit status '%s' is not CODE or CODE:SIGNAL "
	    "as sacct prints it (e.g. 3:0 or 0:9)", s);
}

static int
exit_part_matches(const char *want, size_t len, int have)
{
	int	n;

	if (len == 1 && *want == '*')
		return 1;
	if (len == 1 && *want == '+')
		return have != 0;
	return parse_num(want, len, &n) == 0 && n == have;
}

static int
exit_matches(const char *want, const struct triage_input *in)
{
	const char	*colon = strchr(want, ':');

	if (!in->has_exit || colon == NULL)
		return 0;
	return exit_part_matches(want, (size_t)(colon - want), in->exit_code) &&
	    exit_part_matches(colon + 1, strlen(colon + 1), in->exit_signal);
}

static int
state_matches(const char *want, const char *native)
{
	size_t	n = strlen(native);
	const char *p = want, *bar;

	if (n == 0)
		return 0;
	for (;;) {
		bar = strchr(p, '|');
		if (bar == NULL)
			return strcmp(p, native) == 0;
		if ((size_t)(bar - p) == n && strncmp(p, native, n) == 0)
			return 1;
		p = bar + 1;
	}
}

/* Copy a log line for display: no control characters, no cut UTF-8. */
static void
copy_line(char *dst, size_t size, const char *line, size_t len)
{
	size_t		i, j = 0, k, need;
	unsigned char	lead;

	for (i = 0; i < len && j + 1 < size; i++) {
		if (line[i] == '\t')
			dst[j++] = ' ';
		else if ((unsigned char)line[i] >= 0x20 && line[i] != 0x7f)
			dst[j++] = line[i];
	}
	if (i < len) {
		/* Cut short: do not end inside a UTF-8 sequence. */
		k = j;
		while (k > 0 && ((unsigned char)dst[k - 1] & 0xc0) == 0x80)
			k--;
		if (k > 0 && (unsigned char)dst[k - 1] >= 0xc0) {
			lead = (unsigned char)dst[k - 1];
			need = lead >= 0xf0 ? 4 : (lead >= 0xe0 ? 3 : 2);
			if (j - (k - 1) < need)
				j = k - 1;
		}
	}
	dst[j] = '\0';
}

/*
 * Find the first line of text that matches the rule's pattern and not its
 * unless pattern.  Returns the offset of the line start, or -1.
 */
/*
 * The rules' patterns, compiled once for the process: a poll may classify
 * many jobs, and regexec on a compiled pattern is safe from any thread.
 */
#define NRULES (sizeof rules / sizeof rules[0])
static regex_t		 compiled[NRULES], compiled_unless[NRULES];
static int		 compiled_ok[NRULES];
static pthread_once_t	 compiled_once = PTHREAD_ONCE_INIT;

static void
compile_rules(void)
{
	const struct triage_rule	*r;
	size_t				 i;
	int				 flags;

	for (i = 0; i < NRULES; i++) {
		r = &rules[i];
		if (r->pattern == NULL)
			continue;
		flags = REG_EXTENDED | REG_NEWLINE | (r->icase ? REG_ICASE : 0);
		if (regcomp(&compiled[i], r->pattern, flags) != 0)
			continue;
		if (r->unless != NULL && regcomp(&compiled_unless[i],
		    r->unless, flags | REG_NOSUB) != 0) {
			regfree(&compiled[i]);
			continue;
		}
		compiled_ok[i] = 1;
	}
}

static long
match_log(const struct triage_rule *r, const char *text, size_t *linelen)
{
	const regex_t	*re, *un;
	regmatch_t	 m;
	const char	*p = text, *start, *end;
	char		*line;
	size_t		 i = (size_t)(r - rules);
	int		 skip;
	long		 found = -1;

	pthread_once(&compiled_once, compile_rules);
	if (i >= NRULES || !compiled_ok[i])
		return -1;
	re = &compiled[i];
	un = r->unless != NULL ? &compiled_unless[i] : NULL;
	while (*p != '\0' && regexec(re, p, 1, &m, 0) == 0) {
		start = p + m.rm_so;
		while (start > text && start[-1] != '\n')
			start--;
		end = strchr(p + m.rm_so, '\n');
		if (end == NULL)
			end = start + strlen(start);
		skip = 0;
		if (un != NULL) {
			line = xstrndup(start, (size_t)(end - start));
			skip = regexec(un, line, 0, NULL, 0) == 0;
			free(line);
		}
		if (!skip) {
			found = start - text;
			*linelen = (size_t)(end - start);
			break;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	return found;
}

/* A line worth showing: it has a letter or digit and is not a bar. */
static int
line_meaningful(const char *s, size_t len)
{
	size_t	i, alnum = 0;

	for (i = 0; i < len; i++) {
		if (isalnum((unsigned char)s[i]))
			alnum++;
	}
	return alnum > 0;
}

/* The last TRIAGE_TAIL_MAX meaningful lines of text, oldest first. */
static void
tail_lines(const char *text, size_t len, struct triage_result *res)
{
	const char	*start[TRIAGE_TAIL_MAX];
	size_t		 n[TRIAGE_TAIL_MAX];
	const char	*end = text + len, *s;
	int		 k = 0, i;

	while (end > text && k < TRIAGE_TAIL_MAX) {
		while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
			end--;
		s = end;
		while (s > text && s[-1] != '\n')
			s--;
		if (s < end && line_meaningful(s, (size_t)(end - s))) {
			start[k] = s;
			n[k] = (size_t)(end - s);
			k++;
		}
		end = s;
	}
	for (i = 0; i < k; i++)
		copy_line(res->tail[i], sizeof res->tail[i], start[k - 1 - i],
		    n[k - 1 - i]);
	res->ntail = k;
}

void
triage_classify(const struct triage_input *in, struct triage_result *res)
{
	const struct triage_rule	*r;
	struct state_map		 sm;
	char				*text;
	size_t				 i, len = 0, linelen = 0;
	long				 off = -1;

	memset(res, 0, sizeof *res);
	state_map(in->state, STATUS_MISSING, &sm);

	/* regexec wants a C string: NULs in a binary log become spaces. */
	text = xmalloc(in->loglen + 1);
	if (in->log != NULL) {
		len = in->loglen;
		memcpy(text, in->log, len);
		for (i = 0; i < len; i++) {
			if (text[i] == '\0')
				text[i] = ' ';
		}
	}
	text[len] = '\0';

	for (i = 0; i < NRULES; i++) {
		r = &rules[i];
		if (r->states != NULL && !state_matches(r->states, sm.native))
			continue;
		if (r->exit != NULL && !exit_matches(r->exit, in))
			continue;
		if (r->pattern != NULL) {
			off = match_log(r, text, &linelen);
			if (off < 0)
				continue;
		}
		break;
	}
	/* The last rule has no condition, so i < NRULES here. */
	res->rule = &rules[i];
	res->class = res->rule->class;
	res->retry = res->class == ERR_INFRA;
	if (res->rule->pattern != NULL && off >= 0) {
		res->has_line = 1;
		res->line_off = (size_t)off;
		copy_line(res->line, sizeof res->line, text + off, linelen);
	} else
		tail_lines(text, len, res);
	free(text);
}
