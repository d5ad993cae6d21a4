/* triage: INFRA / PROGRAM / CONFIG from state, exit status and logs
   (sqdeck(1): retries). */
#include "testutil.h"

#include <sys/wait.h>

#include "triage.h"
#include "util.h"

struct tcase {
	const char	*rule;		/* expected rule */
	enum err_class	 class;
	const char	*state;		/* NULL: none */
	const char	*exit;		/* NULL: none */
	const char	*file;		/* under tests/data/logs/, or NULL */
	const char	*text;		/* inline log line, or NULL */
	const char	*line;		/* substring of the reported line */
};

/*
 * At least one case per rule (test_every_rule_has_a_case checks that).
 * Files are multi-line excerpts; inline lines are single messages as the
 * tools print them.
 */
static const struct tcase cases[] = {
	{ "node-fail", ERR_INFRA, "NODE_FAIL", "0:0", NULL, NULL, NULL },
	{ "node-fail", ERR_INFRA, "NF", NULL, "job-python-keyerror.err", NULL,
	  NULL },
	{ "boot-fail", ERR_INFRA, "BOOT_FAIL", "0:0", NULL, NULL, NULL },
	{ "node-fail-log", ERR_INFRA, NULL, NULL, "node-failure.err", NULL,
	  "Node failure on gpu-node-044" },
	{ "slurm-output", ERR_INFRA, "FAILED", "0:53", NULL, NULL, NULL },
	{ "slurm-output-log", ERR_INFRA, NULL, NULL, "slurmd-output-open.log",
	  NULL, "Could not open stdout file" },
	{ "gpu-xid", ERR_INFRA, "FAILED", "1:0", "gpu-xid-dmesg.log", NULL,
	  "NVRM: Xid (PCI:0000:b7:00): 79" },
	{ "gpu-xid", ERR_INFRA, NULL, NULL, NULL,
	  "[Sun Nov 29 16:22:01 2026] NVRM: Xid (PCI:0000:3b:00): 48, pid=3121, "
	  "name=python, An uncorrectable double bit error (DBE) has been "
	  "detected on GPU in the framebuffer at partition 6, subpartition 0.",
	  "Xid" },
	{ "gpu-lost", ERR_INFRA, "FAILED", "1:0", "gpu-lost.err", NULL,
	  "Unable to determine the device handle" },
	{ "gpu-lost", ERR_INFRA, NULL, NULL, NULL,
	  "RuntimeError: CUDA error: uncorrectable ECC error encountered",
	  "ECC" },
	{ "cuda-driver-init", ERR_INFRA, "FAILED", "1:0", "cuda-driver-init.err",
	  NULL, "CUDA driver initialization failed" },
	{ "cuda-driver-init", ERR_INFRA, "FAILED", "1:0", "cuda-no-device.err",
	  NULL, "no CUDA-capable device is detected" },
	{ "cuda-driver-init", ERR_INFRA, "FAILED", "1:0", "cuda-init-error.err",
	  NULL, "cudaErrorInitializationError" },
	{ "cuda-driver-init", ERR_INFRA, NULL, NULL, NULL,
	  "Failed to initialize NVML: Driver/library version mismatch", NULL },
	{ "nccl-ib", ERR_INFRA, "FAILED", "1:0", "ib-completion-error.err", NULL,
	  "NET/IB : Got completion from peer" },
	{ "ib-link", ERR_INFRA, NULL, NULL, "ib-link-down.log", NULL,
	  "Cable unplugged" },
	{ "ib-link", ERR_INFRA, NULL, NULL, NULL,
	  "[Sun Nov 29 16:05:02 2026] mlx5_core 0000:5e:00.0 ib0: Link down",
	  "ib0: Link down" },
	{ "ib-link", ERR_INFRA, NULL, NULL, NULL,
	  "gpu-node-031:77120:77361 [3] NCCL WARN Call to ibv_create_qp failed "
	  "with error Cannot allocate memory", "ibv_create_qp" },
	{ "oom-node", ERR_INFRA, "OUT_OF_MEMORY", "0:125", "oom-node-dmesg.log",
	  NULL, "oom-kill:constraint=CONSTRAINT_NONE" },
	{ "oom-node", ERR_INFRA, NULL, NULL, NULL,
	  "[Sun Nov 29 16:06:20 2026] Out of memory: Killed process 88213 "
	  "(python3) total-vm:1049263412kB, anon-rss:1004471236kB, "
	  "file-rss:0kB, shmem-rss:10252kB, UID:1001 pgtables:1988364kB "
	  "oom_score_adj:0", "Killed process 88213" },
	{ "nccl-probe", ERR_INFRA, "FAILED", "1:0", NULL,
	  "[nccl probe] RuntimeError: NCCL error in: ProcessGroupNCCL.cpp\n"
	  "SQDECK_NCCL_FAIL=every setting failed (last: timed out after "
	  "120 s)\n", "SQDECK_NCCL_FAIL=" },
	{ "nccl-probe", ERR_INFRA, NULL, NULL, NULL,
	  "[nccl probe] ValueError: x\nsqdeck: NCCL probe failed with every "
	  "setting (default, NCCL_P2P_DISABLE, NCCL_SOCKET_IFNAME, "
	  "NCCL_IB_DISABLE): the workload was not started", "every setting" },
	{ "image-cache-untrusted", ERR_CONFIG, "FAILED", "78:0", NULL,
	  "sqdeck: ERROR: cached image /lustre/images/a.sqsh refused at job "
	  "start: its directory is writable by others without the sticky bit "
	  "(mode 775)", NULL },
	{ "enroot-credentials", ERR_CONFIG, "FAILED", "1:0",
	  "enroot-credentials.err", NULL, "Could not process JSON input" },
	{ "image-auth", ERR_CONFIG, "FAILED", "1:0", "image-unauthorized.err",
	  NULL, "401 Unauthorized" },
	{ "image-auth", ERR_CONFIG, NULL, NULL, NULL,
	  "Error response from daemon: pull access denied for nvcr.io/nvidia/"
	  "tao/tao-toolkit, repository does not exist or may require "
	  "'docker login': denied: requested access to the resource is denied",
	  NULL },
	{ "image-missing", ERR_CONFIG, "FAILED", "1:0",
	  "image-manifest-unknown.err", NULL, "404 Not Found" },
	{ "image-missing", ERR_CONFIG, NULL, NULL, NULL,
	  "Error response from daemon: manifest for nvcr.io/nvidia/tao/"
	  "tao-toolkit:9.9.9 not found: manifest unknown: manifest unknown",
	  NULL },
	{ "invalid-partition", ERR_CONFIG, NULL, NULL,
	  "sbatch-invalid-partition.txt", NULL, "invalid partition specified" },
	{ "invalid-time", ERR_CONFIG, NULL, NULL, "sbatch-invalid-time.txt",
	  NULL, "Requested time limit is invalid" },
	{ "invalid-account", ERR_CONFIG, NULL, NULL, "sbatch-invalid-account.txt",
	  NULL, "Invalid account" },
	{ "missing-path", ERR_CONFIG, "FAILED", "1:0", "job-missing-dataset.err",
	  NULL, "'/lustre/datasets/kitti/train/spec.json'" },
	{ "missing-path", ERR_CONFIG, NULL, NULL, NULL,
	  "python3: can't open file '/workspace/tao-experiments/train.py': "
	  "[Errno 2] No such file or directory", NULL },
	{ "cuda-oom", ERR_PROGRAM, "FAILED", "1:0", "cuda-oom-then-watchdog.err",
	  NULL, "CUDA out of memory" },
	{ "cuda-oom", ERR_PROGRAM, NULL, NULL, NULL,
	  "RuntimeError: CUDA error: out of memory", NULL },
	{ "oom-cgroup", ERR_PROGRAM, "OUT_OF_MEMORY", "0:125", "oom-cgroup.err",
	  NULL, "Detected 1 oom_kill event" },
	{ "oom-cgroup", ERR_PROGRAM, NULL, NULL, "memcg-oom-dmesg.log", NULL,
	  "CONSTRAINT_MEMCG" },
	{ "python-exception", ERR_PROGRAM, "FAILED", "1:0",
	  "job-python-keyerror.err", NULL, "KeyError: 'batch_size'" },
	{ "python-exception", ERR_PROGRAM, "FAILED", "1:0",
	  "keyerror-then-watchdog.err", NULL, "0: KeyError: 'optim'" },
	{ "python-exception", ERR_PROGRAM, NULL, NULL, NULL,
	  "[rank3]: ValueError: too many values to unpack (expected 2)", NULL },
	{ "python-exception", ERR_PROGRAM, NULL, NULL, NULL,
	  "Exception: dataset has 0 images", NULL },
	{ "nccl-transport", ERR_INFRA, "FAILED", "1:0", "nccl-socket-timeout.err",
	  NULL, "Connection timed out" },
	{ "nccl-transport", ERR_INFRA, "FAILED", "1:0", "nccl-system-error.err",
	  NULL, "unhandled system error" },
	{ "nccl-transport", ERR_INFRA, NULL, NULL, NULL,
	  "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/"
	  "ProcessGroupNCCL.cpp:1275, unhandled system error, NCCL version "
	  "2.14.3", NULL },
	{ "nccl-watchdog", ERR_INFRA, "FAILED", "0:6", "nccl-watchdog.err", NULL,
	  "Watchdog caught collective operation timeout" },
	/* The heartbeat monitor alone: a hang, never a retry (catalog). */
	{ "nccl-heartbeat", ERR_PROGRAM, "FAILED", "134:0", NULL,
	  "[rank0]:[F ProcessGroupNCCL.cpp:1169] [PG 5 Rank 0] ProcessGroupNCCL's "
	  "watchdog got stuck for 600 seconds without making progress in "
	  "monitoring enqueued collectives. If you suspect the watchdog is not "
	  "actually stuck and a longer timeout would help, increase the timeout",
	  NULL },
	/* DCGM's health watch names the Xid in capitals. */
	{ "gpu-xid", ERR_INFRA, "FAILED", "1:0", NULL,
	  "ErrorCode:DCGM_FR_XID_ERROR GPU:4 PCI:0000:c4:00.0 Detected XID 79 "
	  "for GPU 4 Please consult the documentation for details of this XID.",
	  NULL },
	{ "gpu-xid-app", ERR_PROGRAM, "FAILED", "1:0", NULL,
	  "ErrorCode:DCGM_FR_XID_ERROR GPU:4 PCI:0000:c4:00.0 Detected XID 31 "
	  "for GPU 4 Please consult the documentation for details of this XID.",
	  NULL },
	{ "cuda-driver-init", ERR_INFRA, "FAILED", "1:0", NULL,
	  "CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "
	  "\"cudaSetDevice(currentDevice)\"", NULL },
	{ "slurm-launch", ERR_INFRA, "FAILED", "0:0", NULL,
	  "slurmstepd: error: Prolog hung on node worker-3", NULL },
	{ "program-timeout", ERR_PROGRAM, "FAILED", "124:0",
	  "program-timeout.err", NULL, "sqdeck: program timeout: the program "
	  "ran 114 s" },
	{ "timeout", ERR_PROGRAM, "TIMEOUT", "0:0", "job-timeout.err", NULL,
	  NULL },
	{ "timeout-log", ERR_PROGRAM, NULL, NULL, "job-timeout.err", NULL,
	  "DUE TO TIME LIMIT" },
	{ "deadline", ERR_CONFIG, "DEADLINE", "0:0", NULL, NULL, NULL },
	{ "memory-limit", ERR_PROGRAM, "OUT_OF_MEMORY", "0:125", NULL,
	  "Loading dataset shards: 100%", NULL },
	{ "no-success-status", ERR_PROGRAM, "COMPLETED", "0:0", NULL,
	  "Training finished.", NULL },
	{ "signal", ERR_UNKNOWN, "FAILED", "0:9", NULL, NULL, NULL },
	{ "signal", ERR_UNKNOWN, "CANCELLED by 1001", "0:15", NULL, NULL, NULL },
	{ "exit-code", ERR_PROGRAM, "FAILED", "3:0", NULL, "boom", NULL },
	{ "exit-code", ERR_PROGRAM, NULL, "137", NULL, NULL, NULL },
	{ "default", ERR_UNKNOWN, "FAILED", "0:0", NULL, NULL, NULL },
	{ "default", ERR_UNKNOWN, NULL, NULL, NULL, NULL, NULL },
	{ "default", ERR_UNKNOWN, "FROBNICATED", NULL, NULL, "all fine", NULL },
	/* One line per rule added for issue 16, in other phrasings. */
	{ "requeue-log", ERR_INFRA, NULL, NULL, NULL,
	  "slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT "
	  "2026-01-01T00:00:00 DUE TO PREEMPTION ***", "PREEMPTION" },
	{ "preempted", ERR_INFRA, "PREEMPTED", "0:0", NULL, NULL, NULL },
	{ "slurm-launch", ERR_INFRA, NULL, NULL, NULL,
	  "srun: error: Task launch for StepId=7.0 failed on node n3: "
	  "Zero Bytes were transmitted or received", "Task launch" },
	{ "slurm-chdir", ERR_INFRA, NULL, NULL, NULL,
	  "slurmstepd: error: couldn't chdir to `/proj/x': Stale file handle: "
	  "going to /tmp instead", "chdir" },
	{ "storage", ERR_INFRA, NULL, NULL, NULL,
	  "OSError: [Errno 116] Stale file handle: '/nfs/ckpt/last.pt'",
	  "Stale" },
	{ "container-runtime", ERR_INFRA, NULL, NULL, NULL,
	  "slurmstepd: error: pyxis:     enroot-nsenter: failed to create user "
	  "namespace: Operation not permitted", "nsenter" },
	{ "registry-unavailable", ERR_INFRA, NULL, NULL, NULL,
	  "[ERROR] URL https://nvcr.io/v2/ returned error code: 503 Service "
	  "Unavailable", "503" },
	{ "container-image", ERR_CONFIG, NULL, NULL, NULL,
	  "pyxis:     enroot-switchroot: failed to execute: python3: No such "
	  "file or directory", "switchroot" },
	{ "container-mount", ERR_CONFIG, NULL, NULL, NULL,
	  "slurmstepd: error: pyxis: --container-mounts: invalid format: "
	  "/data:/data:rw:x", "invalid format" },
	{ "slurm-request", ERR_CONFIG, NULL, NULL, NULL,
	  "sbatch: error: Batch job submission failed: Requested node "
	  "configuration is not available", NULL },
	{ "nccl-config", ERR_CONFIG, NULL, NULL, NULL,
	  "n1:1:1 [0] NCCL WARN Duplicate GPU detected : rank 1 and rank 0 "
	  "both on CUDA device 1b000", NULL },
	{ "cuda-image", ERR_CONFIG, NULL, NULL, NULL,
	  "RuntimeError: CUDA error: no kernel image is available for "
	  "execution on the device", NULL },
	{ "quota", ERR_CONFIG, NULL, NULL, NULL,
	  "OSError: [Errno 122] Disk quota exceeded: '/home/u/ckpt.pt'",
	  NULL },
	{ "shm", ERR_CONFIG, NULL, NULL, NULL,
	  "ERROR: Unexpected bus error encountered in worker. This might be "
	  "caused by insufficient shared memory (shm).", NULL },
	{ "permission", ERR_CONFIG, NULL, NULL, NULL,
	  "PermissionError: [Errno 13] Permission denied: '/shared/out'",
	  NULL },
	{ "launch-command", ERR_CONFIG, NULL, NULL, NULL,
	  "/var/spool/slurmd/job12/slurm_script: line 9: torchrun: command "
	  "not found", NULL },
	{ "config-file", ERR_CONFIG, NULL, NULL, NULL,
	  "yaml.parser.ParserError: while parsing a block mapping", NULL },
	{ "python-env", ERR_CONFIG, NULL, NULL, NULL,
	  "ImportError: libGL.so.1: cannot open shared object file: No such "
	  "file or directory", NULL },
	{ "gpu-xid-app", ERR_PROGRAM, NULL, NULL, NULL,
	  "NVRM: Xid (PCI:0000:17:00): 31, pid=1, name=python, Ch 00000010, "
	  "intr 00000000. MMU Fault", "31" },
	{ "cuda-program", ERR_PROGRAM, NULL, NULL, NULL,
	  "RuntimeError: CUDA error: an illegal memory access was encountered",
	  NULL },
	{ "nccl-usage", ERR_PROGRAM, NULL, NULL, NULL,
	  "n1:1:2 [0] NCCL WARN NET/IB : req 0/1 tag 7 peer 10.0.0.5<451> "
	  "collective mismatch error, local size 4194304 remote size 2097152",
	  NULL },
	{ "crash", ERR_PROGRAM, NULL, NULL, NULL,
	  "srun: error: n4: task 0: Segmentation fault (core dumped)", NULL },
	{ "node-hardware", ERR_INFRA, "FAILED", "0:9", NULL,
	  "[Mon Jan  5 10:00:00 2026] watchdog: BUG: soft lockup - CPU#12 "
	  "stuck for 23s! [python:4411]", "soft lockup" },
	{ "worker-signal", ERR_UNKNOWN, "FAILED", "1:0", NULL,
	  "  exitcode  : -9 (pid: 1322)\n"
	  "  traceback : Signal 9 (SIGKILL) received by PID 1322", "exitcode" },
	{ "dist-network", ERR_INFRA, NULL, NULL, NULL,
	  "torch.distributed.DistStoreError: Timed out after 901 seconds "
	  "waiting for clients. 3/4 clients joined.", NULL },
};
#define NCASES (sizeof cases / sizeof cases[0])

static char *
read_log(const char *name, size_t *len)
{
	char	*path, *text, *cause = NULL;

	path = xasprintf("logs/%s", name);
	ck_assert_msg(file_read(test_data(path), &text, len, &cause) == 0,
	    "%s", cause);
	free(path);
	return text;
}

static void
run_case(const struct tcase *c, struct triage_result *res)
{
	struct triage_input	 in;
	char			*text = NULL, *cause = NULL;

	memset(&in, 0, sizeof in);
	in.state = c->state;
	if (c->exit != NULL) {
		ck_assert_msg(triage_parse_exit(c->exit, &in.exit_code,
		    &in.exit_signal, &cause) == 0, "%s", cause);
		in.has_exit = 1;
	}
	if (c->file != NULL)
		text = read_log(c->file, &in.loglen);
	else if (c->text != NULL) {
		text = xstrdup(c->text);
		in.loglen = strlen(text);
	}
	in.log = text;
	triage_classify(&in, res);
	free(text);
}

START_TEST(test_cases)
{
	const struct tcase	*c = &cases[_i];
	struct triage_result	 res;

	run_case(c, &res);
	ck_assert_msg(strcmp(res.rule->name, c->rule) == 0,
	    "case %d (%s): rule %s, want %s", _i,
	    c->file != NULL ? c->file : (c->text != NULL ? c->text : "-"),
	    res.rule->name, c->rule);
	ck_assert_int_eq(res.class, c->class);
	ck_assert_int_eq(res.retry, c->class == ERR_INFRA);
	ck_assert_ptr_nonnull(res.rule->why);
	if (c->line != NULL) {
		ck_assert(res.has_line);
		ck_assert_msg(strstr(res.line, c->line) != NULL,
		    "line '%s' lacks '%s'", res.line, c->line);
	}
	if (res.rule->pattern == NULL)
		ck_assert(!res.has_line);
}
END_TEST

START_TEST(test_every_rule_has_a_case)
{
	const struct triage_rule	*rules;
	size_t				 n, i, j;

	rules = triage_rules(&n);
	ck_assert_uint_gt(n, 20);
	for (i = 0; i < n; i++) {
		for (j = 0; j < NCASES; j++) {
			if (strcmp(cases[j].rule, rules[i].name) == 0)
				break;
		}
		ck_assert_msg(j < NCASES, "rule %s has no test case",
		    rules[i].name);
		/* Names are unique, and only the last rule has no condition. */
		for (j = i + 1; j < n; j++)
			ck_assert_str_ne(rules[i].name, rules[j].name);
		if (i + 1 < n) {
			ck_assert(rules[i].states != NULL ||
			    rules[i].exit != NULL || rules[i].pattern != NULL);
		}
	}
	ck_assert(rules[n - 1].states == NULL && rules[n - 1].exit == NULL &&
	    rules[n - 1].pattern == NULL);
}
END_TEST

/* What must NOT be mistaken for something else. */
START_TEST(test_not_infra)
{
	struct tcase		c;
	struct triage_result	res;

	memset(&c, 0, sizeof c);
	/* CUDA OOM is the program's, even with OUT_OF_MEMORY-ish words. */
	c.text = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to "
	    "allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity)";
	c.state = "FAILED";
	run_case(&c, &res);
	ck_assert_int_eq(res.class, ERR_PROGRAM);
	ck_assert_str_eq(res.rule->name, "cuda-oom");

	/* A cgroup OOM in dmesg is not a node OOM. */
	c.text = NULL;
	c.file = "memcg-oom-dmesg.log";
	run_case(&c, &res);
	ck_assert_int_eq(res.class, ERR_PROGRAM);

	/* "Xid" only as a word: "Xidx" or "pXid" are not driver messages. */
	c.file = NULL;
	c.text = "loading model XidNet from /ckpt\nuse pXid 3";
	c.state = NULL;
	run_case(&c, &res);
	ck_assert_str_eq(res.rule->name, "default");

	/* No such file for a non-path is not a missing dataset. */
	c.text = "ls: cannot access 'x': No such file or directory";
	run_case(&c, &res);
	ck_assert_str_eq(res.rule->name, "default");

	/* NCCL shared memory files are NCCL's problem, not a dataset. */
	c.text = "NCCL WARN Call to open /dev/shm/nccl-Ab12Cd failed : No such "
	    "file or directory";
	run_case(&c, &res);
	ck_assert_str_ne(res.rule->name, "missing-path");
}
END_TEST

/* The root cause wins over the NCCL timeouts it causes on other ranks. */
START_TEST(test_order)
{
	struct triage_input	 in;
	struct triage_result	 res;
	char			*text;
	const char		*both;

	memset(&in, 0, sizeof in);
	/* Infra evidence beats a later Python exception it caused. */
	both = "RuntimeError: CUDA error: unspecified launch failure\n"
	    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n";
	in.log = both;
	in.loglen = strlen(both);
	triage_classify(&in, &res);
	ck_assert_str_eq(res.rule->name, "gpu-xid");
	/* The reported offset points at the matching line. */
	ck_assert_uint_eq(res.line_off, strchr(both, '\n') + 1 - both);

	/* A NODE_FAIL state beats anything in the log. */
	text = read_log("cuda-oom-then-watchdog.err", &in.loglen);
	in.log = text;
	in.state = "NODE_FAIL";
	triage_classify(&in, &res);
	ck_assert_str_eq(res.rule->name, "node-fail");
	ck_assert(!res.has_line);
	free(text);
}
END_TEST

/*
 * Multi-rank logs (issue 16): one rank dies of a program error, the others
 * then fail in NCCL, c10d or gloo.  Whatever the order the ranks' lines
 * reach the log in, the verdict is PROGRAM and quotes the program's line;
 * and a fault outside the program stays INFRA under the Python errors it
 * causes on the other ranks.
 */
static const char *const program_lines[] = {
	"[rank2]: KeyError: 'lr_schedule'",
	"1: AssertionError: empty training split at /data/shards/train",
	"[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
	"3.91 GiB. GPU 5 has a total capacity of 79.11 GiB",
	"[rank1]: RuntimeError: CUDA error: device-side assert triggered",
	"[rank3]: ValueError: Expected input batch_size (32) to match target "
	"batch_size (30).",
	"srun: error: gpu-a21: task 9: Segmentation fault (core dumped)",
	"slurmstepd: error: Detected 1 oom_kill event in StepId=12.0. Some of "
	"the step tasks have been OOM Killed.",
};
static const char *const consequence_lines[] = {
	"[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] "
	"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7753, "
	"OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
	"600061 milliseconds before timing out.",
	"[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/"
	"csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, remote process exited "
	"or there was a network error, NCCL version 2.21.5",
	"[rank1]: ncclRemoteError: A call failed possibly due to a network "
	"error or a remote process exiting prematurely.",
	"0: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
	"Connection closed by peer [10.1.0.7]:23456",
	"gpu-c02:8814:9012 [0] misc/socket.cc:58 NCCL WARN socketProgress: "
	"Connection closed by remote peer gpu-c05<44410>",
	"torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
	"[rank0]: RuntimeError: NCCL communicator was aborted on rank 0.",
	"srun: error: gpu-node-022: task 2: Aborted (core dumped)",
	"gpu-s03:9912:10201 [3] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got "
	"completion from peer 10.9.0.14<40211> with error 5, opcode 1, len 0, "
	"vendor err 249 (Send)",
	/* A dead peer's QP: retry counter exceeded, newest NCCL format. */
	"gpu-r11:44102:44390 [5] transport/net_ib/p2p.cc:688 NCCL WARN NET/IB: "
	"Got completion from peer 10.40.2.17<52114> with "
	"status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 "
	"localGid ::ffff:10.40.2.11 remoteGids::ffff:10.40.2.17 hca mlx5_5",
	"n2:4410:4600 [1] NCCL WARN ibv_post_send() failed with error Connection "
	"reset by peer, Bad WR 0x7f00, First WR 0x7f00",
};
#define NELEM(a) (sizeof (a) / sizeof (a)[0])

static void
classify_exit(const char *text, int code, struct triage_result *res)
{
	struct triage_input	in;

	memset(&in, 0, sizeof in);
	in.state = "FAILED";
	in.has_exit = 1;
	in.exit_code = code;
	in.log = text;
	in.loglen = strlen(text);
	triage_classify(&in, res);
}

static void
classify_text(const char *text, struct triage_result *res)
{
	classify_exit(text, 1, res);
}

START_TEST(test_multirank_program_root)
{
	struct triage_result	 res;
	char			*text;
	size_t			 p, c;
	int			 order;

	for (p = 0; p < NELEM(program_lines); p++) {
		for (c = 0; c < NELEM(consequence_lines); c++) {
			for (order = 0; order < 2; order++) {
				text = order == 0 ?
				    xasprintf("%s\n%s\n%s\n", program_lines[p],
				    consequence_lines[c], consequence_lines[c]) :
				    xasprintf("%s\n%s\n%s\n",
				    consequence_lines[c], consequence_lines[c],
				    program_lines[p]);
				classify_text(text, &res);
				ck_assert_msg(res.class == ERR_PROGRAM &&
				    strcmp(res.line, program_lines[p]) == 0,
				    "program '%s' + '%s' (order %d): %s by %s "
				    "on '%s'", program_lines[p],
				    consequence_lines[c], order,
				    err_class_name(res.class), res.rule->name,
				    res.line);
				free(text);
			}
		}
	}
}
END_TEST

/*
 * The job script tried its step again in the allocation (the sbatch
 * templates' TRIAGE_STEP_RETRIED line): the setup error of the try before
 * is not the verdict; one after the last such line still is.  The Pyxis
 * line is the one a 2-node job of the test cluster's 26.05 wrote.
 */
START_TEST(test_step_retried)
{
	static const char pyxis[] = "slurmstepd: error: pyxis: couldn't get "
	    "list of existing container filesystems";
	static const char again[] = TRIAGE_STEP_RETRIED " (exit 1; 1 of 2 "
	    "node(s) got into the container): trying again in this "
	    "allocation, try 2 of 3";
	struct triage_result	 res;
	char			*text;
	int			 k;

	for (k = 0; k < 4; k++) {
		switch (k) {
		case 0:	/* no try again: the setup error decides */
			text = xasprintf("exiting 3\n\n%s\n", pyxis);
			break;
		case 1:	/* tried again, the program then exited 3 */
			text = xasprintf("exiting 3\n\n%s\n%s\n", pyxis, again);
			break;
		case 2:	/* the last try failed in its setup too */
			text = xasprintf("\n%s\n%s\n%s\n", pyxis, again, pyxis);
			break;
		default: /* the line before the error hides nothing */
			text = xasprintf("%s\nexiting 3\n\n%s\n", again, pyxis);
			break;
		}
		classify_exit(text, 3, &res);
		if (k == 1) {
			ck_assert_msg(res.class == ERR_PROGRAM &&
			    strcmp(res.rule->name, "exit-code") == 0,
			    "case %d: %s by %s", k, err_class_name(res.class),
			    res.rule->name);
			/* The log given is not changed. */
			ck_assert_ptr_nonnull(strstr(text, pyxis));
		} else
			ck_assert_msg(res.class == ERR_INFRA &&
			    strcmp(res.rule->name, "container-runtime") == 0 &&
			    strstr(res.line, "existing container") != NULL,
			    "case %d: %s by %s on '%s'", k,
			    err_class_name(res.class), res.rule->name,
			    res.line);
		free(text);
	}
}
END_TEST

START_TEST(test_multirank_infra_root)
{
	static const char *const infra[] = {
		"NVRM: Xid (PCI:0000:3b:00): 79, pid=2381, name=python, GPU has "
		"fallen off the bus.",
		"srun: error: Node failure on gpu-u09",
		"[rank3]: OSError: [Errno 116] Stale file handle",
		"[rank3]: RuntimeError: CUDA error: uncorrectable ECC error "
		"encountered",
	};
	struct triage_result	 res;
	char			*text;
	size_t			 i, c;

	for (i = 0; i < NELEM(infra); i++) {
		for (c = 0; c < NELEM(consequence_lines); c++) {
			text = xasprintf("%s\n[rank0]: KeyError: 'x'\n%s\n",
			    consequence_lines[c], infra[i]);
			classify_text(text, &res);
			ck_assert_msg(res.class == ERR_INFRA &&
			    strcmp(res.line, infra[i]) == 0, "'%s': %s by %s",
			    infra[i], err_class_name(res.class),
			    res.rule->name);
			free(text);
		}
	}
}
END_TEST

/* No line decides: the last meaningful lines are the evidence. */
START_TEST(test_tail_evidence)
{
	struct triage_input	 in;
	struct triage_result	 res;
	char			*ev;
	static const char	 log[] =
	    "loading\n"
	    "step 10 loss 2.0\n"
	    "==========\n"
	    "\n"
	    "Epoch 1:  10%|#  | 1/10\rEpoch 1:  20%|##  | 2/10\n"
	    "step 20 loss 1.9\r\n"
	    "   \n";

	memset(&in, 0, sizeof in);
	in.has_exit = 1;
	in.exit_signal = 9;
	in.log = log;
	in.loglen = sizeof log - 1;
	triage_classify(&in, &res);
	ck_assert_str_eq(res.rule->name, "signal");
	ck_assert_int_eq(res.class, ERR_UNKNOWN);
	ck_assert(!res.has_line);
	/* Oldest first; bars of '=' and blank lines skipped; \r redraws. */
	ck_assert_int_eq(res.ntail, 3);
	ck_assert_str_eq(res.tail[0], "step 10 loss 2.0");
	ck_assert_str_eq(res.tail[1], "Epoch 1:  20%|##  | 2/10");
	ck_assert_str_eq(res.tail[2], "step 20 loss 1.9");
	ev = triage_evidence(&res);
	ck_assert_str_eq(ev, "last lines: step 10 loss 2.0 | Epoch 1:  20%|##"
	    "  | 2/10 | step 20 loss 1.9");
	free(ev);

	/* A quoted line is the evidence itself; an empty log has none. */
	in.log = "x\nOSError: [Errno 116] Stale file handle\n";
	in.loglen = strlen(in.log);
	triage_classify(&in, &res);
	ev = triage_evidence(&res);
	ck_assert_str_eq(ev, "OSError: [Errno 116] Stale file handle");
	ck_assert_int_eq(res.ntail, 0);
	free(ev);
	in.log = "";
	in.loglen = 0;
	triage_classify(&in, &res);
	ck_assert_ptr_null(triage_evidence(&res));
}
END_TEST

START_TEST(test_log_bytes)
{
	struct triage_input	 in;
	struct triage_result	 res;
	static const char	 log[] = "bin\0ary\x1b[31m\r\n"
	    "\tNCCL WARN Net : Connect to 10.0.0.2<1234> failed : Connection "
	    "timed out\x1b[0m\r\nrest";

	memset(&in, 0, sizeof in);
	in.log = log;
	in.loglen = sizeof log - 1;	/* the NUL inside is part of it */
	triage_classify(&in, &res);
	ck_assert_str_eq(res.rule->name, "nccl-transport");
	/* Control characters are gone from the line shown to the user. */
	ck_assert_str_eq(res.line, " NCCL WARN Net : Connect to 10.0.0.2<1234> "
	    "failed : Connection timed out[0m");
	ck_assert_uint_eq(res.line_off, 14);
}
END_TEST

static void
long_line(const char *prefix, size_t want_len)
{
	struct triage_input	 in;
	struct triage_result	 res;
	struct buf		 b;
	size_t			 n;
	int			 i;

	buf_init(&b);
	buf_adds(&b, prefix);
	for (i = 0; i < 400; i++)
		buf_adds(&b, "\xc3\xa9");	/* U+00E9, 2 bytes */
	memset(&in, 0, sizeof in);
	in.log = b.data;
	in.loglen = b.len;
	triage_classify(&in, &res);
	ck_assert_str_eq(res.rule->name, "enroot-credentials");
	n = strlen(res.line);
	ck_assert_uint_eq(n, want_len);
	/* Cut on a character boundary: the last byte ends a U+00E9. */
	ck_assert_int_eq((unsigned char)res.line[n - 1], 0xa9);
	ck_assert_int_eq((unsigned char)res.line[n - 2], 0xc3);
	buf_free(&b);
}

START_TEST(test_long_line)
{
	/* 37 bytes + 237 whole characters fill the 511 bytes exactly. */
	long_line("[ERROR] Could not process JSON input ", TRIAGE_LINE_MAX - 1);
	/* One byte more and the last character would be cut: dropped. */
	long_line("[ERROR] Could not process JSON input  ", TRIAGE_LINE_MAX - 2);
}
END_TEST

START_TEST(test_parse_exit)
{
	int	 code, sig;
	char	*cause = NULL;

	ck_assert_int_eq(triage_parse_exit("3:0", &code, &sig, NULL), 0);
	ck_assert_int_eq(code, 3);
	ck_assert_int_eq(sig, 0);
	ck_assert_int_eq(triage_parse_exit("0:9", &code, &sig, NULL), 0);
	ck_assert_int_eq(code, 0);
	ck_assert_int_eq(sig, 9);
	ck_assert_int_eq(triage_parse_exit("0:53", &code, &sig, NULL), 0);
	ck_assert_int_eq(sig, 53);
	ck_assert_int_eq(triage_parse_exit("137", &code, &sig, NULL), 0);
	ck_assert_int_eq(code, 137);
	ck_assert_int_eq(sig, 0);

	ck_assert_int_eq(triage_parse_exit("x", &code, &sig, &cause), -1);
	ck_assert_str_eq(cause, "exit status 'x' is not CODE or CODE:SIGNAL as "
	    "sacct prints it (e.g. 3:0 or 0:9)");
	free(cause);
	ck_assert_int_eq(triage_parse_exit("3:", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit(":9", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit("-1:0", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit("1:2:3", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit("99999999999", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit("", &code, &sig, NULL), -1);
	ck_assert_int_eq(triage_parse_exit(NULL, &code, &sig, NULL), -1);
}
END_TEST

/* Run the built binary; returns the exit status, output in *out. */
static int
run(const char *args, char **out)
{
	const char	*bin = getenv("SQDECK_BIN");
	char		*cmd, *path, *cause = NULL;
	int		 st;

	if (bin == NULL)
		bin = TOP_BUILDDIR "/sqdeck";
	path = xasprintf("%s/triage-out.%ld", test_tmpdir(), (long)getpid());
	cmd = xasprintf("cd %s/data/logs && %s triage %s >%s 2>&1", TESTS_SRCDIR,
	    bin, args, path);
	st = system(cmd);
	ck_assert(st != -1 && WIFEXITED(st));
	ck_assert_msg(file_read(path, out, NULL, &cause) == 0, "%s", cause);
	unlink(path);
	free(path);
	free(cmd);
	return WEXITSTATUS(st);
}

START_TEST(test_cli)
{
	char	*out;

	ck_assert_int_eq(run("--state FAILED --exit 1:0 main.out-missing",
	    &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "cannot open log main.out-missing"));
	free(out);

	ck_assert_int_eq(run("--state FAILED --exit 1:0 cuda-driver-init.err "
	    "job-python-keyerror.err", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "class: INFRA\nrule:  "
	    "cuda-driver-init\n"));
	ck_assert_ptr_nonnull(strstr(out, "match: cuda-driver-init.err: "));
	free(out);

	/* The match is reported in the file it came from. */
	ck_assert_int_eq(run("--json job-timeout.err enroot-credentials.err",
	    &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"err_class\":\t\"CONFIG\""));
	ck_assert_ptr_nonnull(strstr(out, "\"rule\":\t\"enroot-credentials\""));
	ck_assert_ptr_nonnull(strstr(out, "\"file\":\t\"enroot-credentials.err\""));
	ck_assert_ptr_nonnull(strstr(out, "\"retry\":\tfalse"));
	free(out);

	ck_assert_int_eq(run("--state NODE_FAIL --json", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"retry\":\ttrue"));
	ck_assert_ptr_nonnull(strstr(out, "\"match\":\tnull"));
	ck_assert_ptr_nonnull(strstr(out, "\"evidence\":\tnull"));
	free(out);

	/* --json names the rule and quotes the evidence line (issue 16). */
	ck_assert_int_eq(run("--json --state FAILED --exit 1:0 "
	    "keyerror-then-watchdog.err", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"err_class\":\t\"PROGRAM\""));
	ck_assert_ptr_nonnull(strstr(out, "\"rule\":\t\"python-exception\""));
	ck_assert_ptr_nonnull(strstr(out, "\"evidence\":\t\"0: KeyError: "
	    "'optim'\""));
	ck_assert_ptr_nonnull(strstr(out, "\"line\":\t\"0: KeyError: "
	    "'optim'\""));
	free(out);

	/* Nothing decides: UNKNOWN, with the last lines as evidence. */
	ck_assert_int_eq(run("--json --state FAILED --exit 0:9 "
	    "../triage/excerpts/unknown-no-evidence.log", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"err_class\":\t\"UNKNOWN\""));
	ck_assert_ptr_nonnull(strstr(out, "\"evidence\":\t\"last lines: "));
	ck_assert_ptr_nonnull(strstr(out, "\"last_lines\":\t[\""));
	free(out);

	ck_assert_int_eq(run("- < nccl-watchdog.err", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "rule:  nccl-watchdog\n"));
	free(out);

	ck_assert_int_eq(run("", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "nothing to classify"));
	free(out);

	ck_assert_int_eq(run("--exit 3x", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "--exit: exit status '3x' is not"));
	free(out);

	ck_assert_int_eq(run("--bogus", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "usage: sqdeck triage"));
	free(out);

	/* An unknown state is a warning, not a refusal. */
	ck_assert_int_eq(run("--state FROB --exit 0:9", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "'FROB' is not a SLURM state"));
	ck_assert_ptr_nonnull(strstr(out, "rule:  signal"));
	free(out);
}
END_TEST

START_TEST(test_cli_tail)
{
	char	*dir, *path, *out;
	FILE	*f;
	int	 i;

	/*
	 * Xid at the top would win over CUDA OOM by rule order; it is more
	 * than 256 KiB before the end, so only the OOM is seen.
	 */
	dir = xstrdup(test_tmpdir());
	path = xasprintf("%s/big.err", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n", f);
	for (i = 0; i < 20000; i++)
		fputs("step 1000 loss 0.1234 lr 0.0001 throughput 812 img/s\n", f);
	fputs("RuntimeError: CUDA error: out of memory\n", f);
	fclose(f);
	ck_assert_int_eq(run(path, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "rule:  cuda-oom"));
	free(out);
	unlink(path);
	free(path);
	rmdir(dir);
	free(dir);
}
END_TEST

static Suite *
triage_suite(void)
{
	Suite	*s = suite_create("triage");
	TCase	*tc = tcase_create("rules");
	TCase	*cli = tcase_create("cli");

	tcase_add_loop_test(tc, test_cases, 0, NCASES);
	tcase_add_test(tc, test_every_rule_has_a_case);
	tcase_add_test(tc, test_not_infra);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_step_retried);
	tcase_add_test(tc, test_multirank_program_root);
	tcase_add_test(tc, test_multirank_infra_root);
	tcase_add_test(tc, test_tail_evidence);
	tcase_add_test(tc, test_log_bytes);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_parse_exit);
	suite_add_tcase(s, tc);
	tcase_add_test(cli, test_cli);
	tcase_add_test(cli, test_cli_tail);
	suite_add_tcase(s, cli);
	return s;
}

TEST_MAIN(triage_suite)
