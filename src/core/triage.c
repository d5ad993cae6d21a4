#include "triage.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "str.h"
#include "util.h"

/*
 * The rules, tried in order; the first that matches decides.  One table,
 * read top to bottom in five tiers:
 *
 *  1. What ended the job from outside the program: the scheduler's verdict
 *     (NODE_FAIL, a node failure or requeue in the log, a launch or prolog
 *     failure), GPU hardware and driver faults, the InfiniBand link, the
 *     node's kernel OOM killer, shared storage, the container runtime of the
 *     node.  These come first because they make the program fail too: a GPU
 *     that fell off the bus turns into a Python RuntimeError.
 *  2. The user's setup (CONFIG): registry credentials, image names, mounts,
 *     SLURM requests, permissions, quota, spec and config files, paths,
 *     images built for another driver or GPU.
 *  3. The program's own errors (PROGRAM): CUDA OOM, kernel faults, a memory
 *     limit, NCCL misuse, crashes, Python exceptions.  They come before the
 *     NCCL and c10d errors of tier 4 because a rank that dies of a KeyError
 *     leaves its peers in a collective until the watchdog fires or their
 *     sockets close: the peers' errors are the consequence, not the cause.
 *  4. Transport errors that may be a consequence (INFRA when nothing in
 *     tiers 1-3 explains them): NCCL over IB or sockets, the NCCL watchdog,
 *     c10d/gloo/rendezvous sockets.
 *  5. What the state and exit status alone say; UNKNOWN when nothing does.
 *
 * Patterns match message families, not one phrasing: the driver prints
 * "GPU has fallen off the bus", "GPU 0000:3b:00.0: GPU has fallen off the
 * bus" and "GPU at 0000:01:00.0 has fallen off the bus"; NCCL has printed
 * IB completion errors in three formats.  Each pattern is a POSIX ERE
 * matched against one line; "unless" drops a matching line.
 *
 * exit is "CODE:SIGNAL", each a number, "*" (any) or "+" (non-zero).
 */

/* A line naming a socket, NCCL or c10d failure: never the root cause. */
#define DIST_CONSEQUENCE						\
	"NCCL|nccl|DistBackendError|DistNetworkError|DistStoreError|"	\
	"ProcessGroup|Rendezvous|ChildFailedError|c10d|gloo|"		\
	"[Ss]ocket|Connection (reset|refused|closed|timed out)|"	\
	"Broken pipe|[Tt]imed? ?out|TimeoutError|SignalException|"	\
	"KeyboardInterrupt"

static const struct triage_rule rules[] = {
	/* 1. Outside the program. */
	{ "node-fail", ERR_INFRA, "NODE_FAIL", NULL, NULL, NULL, 0,
	  "a node of the allocation failed; SLURM gave up on the job" },
	{ "boot-fail", ERR_INFRA, "BOOT_FAIL", NULL, NULL, NULL, 0,
	  "a node of the allocation failed to boot" },
	{ "node-fail-log", ERR_INFRA, NULL, NULL,
	  "DUE TO NODE FAILURE|Node failure on [^ ]", NULL, 0,
	  "SLURM reports the job or step was ended by a node failure" },
	{ "requeue-log", ERR_INFRA, NULL, NULL,
	  "DUE TO (JOB REQUEUE|PREEMPTION)", NULL, 0,
	  "SLURM ended the run to requeue or preempt it: not the program's "
	  "doing" },
	{ "preempted", ERR_INFRA, "PREEMPTED", NULL, NULL, NULL, 0,
	  "SLURM preempted the job for another one" },
	{ "slurm-launch", ERR_INFRA, NULL, NULL,
	  "(Task launch for|Application launch failed|Unable to create step "
	  "for job [0-9]+).*(Communication connection failure|Socket timed "
	  "out|Connection refused|Connection reset|Zero Bytes were "
	  "transmitted|[Pp]rolog failed|[Jj]ob credential|Protocol "
	  "authentication|Unable to contact)|[Pp]rolog (failed|hung)|"
	  "[Ee]pilog failed|Kill task failed|Unable to contact slurm "
	  "controller|Munge decode failed|NOT ENDING WITH SIGNALS|"
	  "(ORTE|PRTE) has lost communication|lost communication with "
	  "(a remote|its) daemon|mpi/pmix[_v0-9]*: .*(send failed|Cannot send|"
	  "Can't find address)",
	  "task-prolog|srun prolog", 0,
	  "SLURM could not launch the step on a node or kill it there "
	  "(prolog, slurmd, credential or network failure, processes that "
	  "ignore SIGKILL): the node is at fault" },
	{ "slurm-output-log", ERR_INFRA, NULL, NULL,
	  "Could not open (stdout|stderr|stdin|input) file",
	  "Permission denied", 0,
	  "slurmd could not open the job's output file: the log directory was "
	  "missing on the node or shared storage was not mounted there" },
	{ "slurm-chdir", ERR_INFRA, NULL, NULL,
	  "couldn't chdir to `", "pyxis", 0,
	  "the job's working directory is missing on the node: its home or "
	  "project file system is not mounted there" },
	{ "gpu-xid", ERR_INFRA, NULL, NULL,
	  "(^|[^A-Za-z0-9_])(Xid|XID)([^A-Za-z0-9_]|$)",
	  "Xid *\\([^)]*\\):? *(13|31|43|45)([^0-9]|$)|"
	  "XID (13|31|43|45) for GPU", 0,
	  "the NVIDIA driver reported an Xid error that points at the GPU, "
	  "its memory, NVLink or the bus (not Xid 13/31/43/45, which are "
	  "application faults)" },
	{ "gpu-lost", ERR_INFRA, NULL, NULL,
	  "fallen off the bus|GPU is lost|uncorrectable ECC|ECC_UNCORRECTABLE|"
	  "ECCUncorrectable|Double Bit ECC|double bit error|"
	  "Unable to determine the device handle|uncorrectable NVLink|"
	  "NVLINK_UNCORRECTABLE|GPU requires reset|[Rr]ow remap[a-z]* "
	  "(failure|pending)|GSP RPC|RPC response from GPU[0-9]* GSP",
	  NULL, 0,
	  "a GPU on the node failed (fell off the bus, ECC or NVLink error)" },
	{ "cuda-driver-init", ERR_INFRA, NULL, NULL,
	  "couldn't communicate with the NVIDIA driver|Failed to initialize "
	  "NVML|Driver/library version mismatch|nvml error|No devices were "
	  "found|CUDA driver initialization failed|"
	  "cudaErrorInitializationError|CUDA error: initialization error|"
	  "CUDA_ERROR_NOT_INITIALIZED|no CUDA-capable device is detected|"
	  "cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE|No CUDA GPUs are available|"
	  "Found no NVIDIA driver|busy or unavailable|"
	  "cudaErrorDevicesUnavailable|CUDA_ERROR_(DEVICE_UNAVAILABLE|"
	  "SYSTEM_DRIVER_MISMATCH)|cudaErrorSystemDriverMismatch|"
	  "unsupported display driver|CUDA unknown error|CUDA error: unknown "
	  "error|system not yet initialized|cudaErrorSystemNotReady|"
	  "CUDA_ERROR_SYSTEM_NOT_READY|NVRM: API mismatch|"
	  "nvidia-container-cli: (initialization|mount|detection|"
	  "ldcache) error|Command not found: nvidia-container-cli|"
	  "[Kk]ernel module nvidia[_a-z]* is not loaded|lib(cuda|nvidia-ml)"
	  "\\.so[.0-9]*: cannot open shared object",
	  NULL, 0,
	  "the node's NVIDIA driver or its GPUs could not be used (driver "
	  "not loaded or mismatched, no GPU visible, GPUs held by another "
	  "process, NVSwitch fabric manager not running: error 802)" },
	{ "ib-link", ERR_INFRA, NULL, NULL,
	  "ibv_[a-z_]+.*(fail|error)|(^|[^a-z])link (is |went )?down|"
	  "(NET/IB|mlx[0-9]|ib[0-9]).*async (fatal )?event|Port module event",
	  "ibv_post_|ibv_poll_cq|Got completion", 1,
	  "the InfiniBand/RoCE link or adapter of a node failed" },
	{ "node-hardware", ERR_INFRA, NULL, NULL,
	  "Machine check events logged|\\[Hardware Error\\]|EDAC .* UE |"
	  "blocked for more than [0-9]+ seconds|soft lockup - CPU",
	  NULL, 0,
	  "the node's kernel reports a hardware error (machine check, "
	  "uncorrectable memory) or tasks stuck in the kernel (hung I/O)" },
	{ "oom-node", ERR_INFRA, NULL, NULL,
	  "Out of memory: Kill|oom-kill:constraint=CONSTRAINT_NONE|"
	  "Out of memory and no killable processes", NULL, 0,
	  "the node's kernel ran out of memory and killed the job to reclaim "
	  "it (a node-wide OOM, not the job's own memory limit)" },
	{ "storage", ERR_INFRA, NULL, NULL,
	  "Stale file handle|ESTALE|LustreError|Lustre: .*(was lost|evicted)|"
	  "Transport endpoint is not connected|Cannot send after transport "
	  "endpoint shutdown|Input/output error|Remote I/O error|"
	  "Read-only file system|No space left on device|\\[Errno 28\\]|"
	  "file write failed|nfs: server .* not responding|"
	  "Structure needs cleaning",
	  "/dev/shm|</torch_", 0,
	  "shared storage failed under the job (stale NFS handle, Lustre "
	  "eviction, I/O error, file system full or remounted read-only)" },
	{ "container-runtime", ERR_INFRA, NULL, NULL,
	  "cannot create directory '?/run/|"
	  "enroot-nsenter: failed|failed to create user namespace|"
	  "Could not acquire rootfs lock|enroot-[a-z0-9]+: command not found|"
	  "pyxis: couldn't (get|read|join|create|allocate|mkdir) |"
	  "pyxis: failed to (acquire|start container|get|set)|"
	  "pyxis: a previous task terminated|pyxis: container was not started|"
	  "seccomp filter failed|failed to (get|set) capabilities|"
	  "fuse: device not found",
	  NULL, 0,
	  "the node's container runtime (Enroot/Pyxis) could not set up the "
	  "container: its runtime directories or namespaces" },
	{ "registry-unavailable", ERR_INFRA, NULL, NULL,
	  "returned error code: (429|5[0-9][0-9])|Too Many Requests|"
	  "Could not resolve host|Temporary failure in name resolution|"
	  "curl: \\((6|7|28|35|52|56)\\)|TLS handshake timeout|"
	  "Service Unavailable|Bad Gateway|Gateway Time-?out",
	  NULL, 0,
	  "the registry could not be reached from the node or refused for "
	  "load (rate limit, DNS, network)" },
	{ "nccl-probe", ERR_INFRA, NULL, NULL,
	  "^SQDECK_NCCL_FAIL=|sqdeck: NCCL probe failed with every "
	  "setting", NULL, 0,
	  "the NCCL probe (step 0) hung or failed with every NCCL setting "
	  "(default, NCCL_P2P_DISABLE, NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE), "
	  "so the workload was not started: the nodes' GPU/network transport "
	  "is broken; the retry excludes them" },
	/* sqdeck's own 0.95 program timeout stopped it (README: resource
	   defaults). */
	{ "program-timeout", ERR_PROGRAM, NULL, NULL,
	  "^sqdeck: program timeout:", NULL, 0,
	  "the program ran out of its own time (0.95 of the job's) and was "
	  "stopped with TERM, then KILL: the job script still wrote its "
	  "verdict. This is sqdeck's program timeout, not SLURM's TIMEOUT: "
	  "checkpoint and resume, or ask for more time (--time)" },

	/* 2. The user's setup. */
	/* The job script's own check of a cached image (sqdeck(1), image
	   cache): retrying elsewhere would read the same file. */
	{ "image-cache-untrusted", ERR_CONFIG, NULL, NULL,
	  "^sqdeck: ERROR: cached image .* refused at job start:", NULL, 0,
	  "the cached image was no longer one sqdeck trusts when the job "
	  "started (its directory, mode or owner changed since the submit): "
	  "fix the cache directory's mode (chmod g-w or +t) or set "
	  "image_cache to a directory of your own, then submit again" },
	{ "enroot-credentials", ERR_CONFIG, NULL, NULL,
	  "Could not process JSON input", NULL, 0,
	  "enroot could not authenticate to the registry while pulling the "
	  "image: the cluster has no registry credentials for this user "
	  "(~/.config/enroot/.credentials); install them with "
	  "`sqdeck creds install` (the key goes over SSH stdin only)" },
	{ "image-auth", ERR_CONFIG, NULL, NULL,
	  "401 Unauthorized|403 Forbidden|returned error code: 40[13]|"
	  "unauthorized: authentication required|pull access denied|"
	  "requested access to the resource is denied|incorrect username or "
	  "password", NULL, 0,
	  "the registry refused the image pull: check the image name and the "
	  "registry credentials (`sqdeck creds install`)" },
	{ "image-missing", ERR_CONFIG, NULL, NULL,
	  "manifest unknown|manifest for [^ ]+ not found|"
	  "returned error code: 404|Invalid image reference|name unknown|"
	  "No such file or directory: [^ ]*\\.(sqsh|squashfs)", NULL, 0,
	  "the image, tag or squashfs file does not exist: check the image "
	  "name and tag" },
	{ "container-image", ERR_CONFIG, NULL, NULL,
	  "enroot-switchroot: failed to execute|Invalid image format|"
	  "requirement error: unsatisfied condition", NULL, 0,
	  "the image cannot run here: it lacks the command, or needs a newer "
	  "driver than the cluster has (use an image that matches the "
	  "cluster's driver)" },
	{ "container-mount", ERR_CONFIG, NULL, NULL,
	  "enroot-mount: failed to mount|--container-mounts: |"
	  "pyxis: --container-[a-z-]+: |pyxis: couldn't chdir to", NULL, 0,
	  "a mount or the working directory of the job spec cannot be made: "
	  "its source is missing or not readable; check the mounts, the "
	  "working directory and the dataset paths" },
	{ "invalid-partition", ERR_CONFIG, NULL, NULL,
	  "invalid partition|Invalid partition name", NULL, 1,
	  "SLURM does not know the partition: check SLURM_PARTITION or the "
	  "cluster's partitions (sqdeck preflight)" },
	{ "invalid-time", ERR_CONFIG, NULL, NULL,
	  "Requested time limit is invalid|Requested time limit exceeds|"
	  "Invalid --time specification",
	  NULL, 0,
	  "the time limit is above the partition's maximum: lower the time "
	  "(the default partitions take at most 4 h)" },
	{ "invalid-account", ERR_CONFIG, NULL, NULL,
	  "Invalid account or account/partition combination|"
	  "Invalid qos specification", NULL, 0,
	  "SLURM refused the account or QOS: check SLURM_ACCOUNT" },
	{ "slurm-request", ERR_CONFIG, NULL, NULL,
	  "Requested node configuration is not available|Requested partition "
	  "configuration not available|Invalid generic resource|Invalid "
	  "(gres|feature|job array|--[a-z-]+) specification|Memory required by "
	  "task is not available|Memory specification can not be satisfied|"
	  "violates accounting/QOS policy|More processors requested than "
	  "permitted|Node count specification invalid|Batch job submission "
	  "failed|(srun|sbatch|salloc): (fatal|error): .*([Ii]nvalid|"
	  "mutually exclusive|incompatible)", NULL, 0,
	  "SLURM cannot grant the request (GPUs, memory, nodes, CPUs or a QOS "
	  "limit): change the job spec's resources" },
	{ "nccl-config", ERR_CONFIG, NULL, NULL,
	  "Mismatched NCCL version|Duplicate GPU detected", NULL, 0,
	  "the ranks disagree on their setup (different NCCL builds in the "
	  "images, or two ranks on one GPU): check the image and the GPUs per "
	  "task" },
	{ "cuda-image", ERR_CONFIG, NULL, NULL,
	  "no kernel image is available|cudaErrorNoKernelImageForDevice|"
	  "is not compatible with the current PyTorch installation|"
	  "Torch not compiled with CUDA|driver on your system is too old|"
	  "driver version is insufficient|cudaErrorInsufficientDriver|"
	  "CUDA_ERROR_INSUFFICIENT_DRIVER|invalid device ordinal|"
	  "cudaErrorInvalidDevice|CUDA_ERROR_INVALID_DEVICE|"
	  "forward compatibility was attempted",
	  NULL, 0,
	  "the image's CUDA build does not fit the GPUs or driver it got, or "
	  "the program asks for more GPUs than the job has: check the image "
	  "and the GPU count" },
	{ "quota", ERR_CONFIG, NULL, NULL,
	  "Disk quota exceeded|EDQUOT|\\[Errno 122\\]", NULL, 0,
	  "the user's storage quota is full: free space or write elsewhere" },
	{ "shm", ERR_CONFIG, NULL, NULL,
	  "out of shared memory|insufficient shared memory|"
	  "unable to write to file </torch_|unable to (open|allocate) shared "
	  "memory", NULL, 0,
	  "the job's shared memory (/dev/shm) is too small for its data "
	  "loader workers: lower num_workers or raise the shm size" },
	{ "permission", ERR_CONFIG, NULL, NULL,
	  "Permission denied|\\[Errno 13\\]|EACCES|Operation not permitted",
	  NULL, 0,
	  "a file, directory or script is not readable, writable or "
	  "executable by the user: check its permissions" },
	{ "launch-command", ERR_CONFIG, NULL, NULL,
	  "execve\\(\\): |: command not found|exec: .*: not found", NULL, 0,
	  "the command the job runs does not exist or cannot be executed: "
	  "check the command of the job spec" },
	{ "config-file", ERR_CONFIG, NULL, NULL,
	  "ParseError|text_format|ScannerError|ParserError|ConfigKeyError|"
	  "ConfigAttributeError|MissingMandatoryValue|omegaconf\\.errors|"
	  "hydra\\.errors|has no field named|is not in struct|"
	  "JSONDecodeError|unrecognized arguments|error: argument |"
	  "MisconfigurationException|ValidationError",
	  NULL, 0,
	  "the spec or config file the program reads is malformed or has "
	  "unknown or missing keys: fix the file" },
	{ "python-env", ERR_CONFIG, NULL, NULL,
	  "ModuleNotFoundError|ImportError|No module named|undefined symbol|"
	  "GLIBC_[0-9.]+' not found|cannot open shared object file",
	  NULL, 0,
	  "the image lacks a module or library the program imports: use an "
	  "image that has it" },
	{ "missing-path", ERR_CONFIG, NULL, NULL,
	  "/.*No such file or directory|No such file or directory.*/|"
	  "FileNotFoundError|(path|directory|file|dir|dataset)[^:]* "
	  "(does not exist|not found)",
	  "NCCL|/dev/shm", 1,
	  "a file or directory the job needs does not exist: check the "
	  "dataset paths and mounts of the job spec" },

	/* 3. The program's own errors. */
	{ "gpu-xid-app", ERR_PROGRAM, NULL, NULL,
	  "Xid *\\([^)]*\\):? *(13|31|43|45)([^0-9]|$)|"
	  "XID (13|31|43|45) for GPU", NULL, 0,
	  "the driver reported an Xid that NVIDIA attributes to the "
	  "application (13 graphics engine exception, 31 memory page fault, "
	  "43 stopped channel, 45 cleanup): a kernel of the program "
	  "faulted" },
	{ "cuda-oom", ERR_PROGRAM, NULL, NULL,
	  "CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|"
	  "CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|"
	  "cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|"
	  "Cuda failure '?out of memory|RESOURCE_EXHAUSTED: OOM|"
	  "OOM when allocating|ResourceExhaustedError",
	  NULL, 0,
	  "the program ran out of GPU memory: lower the batch size or use "
	  "more GPUs (not a node fault; no retry)" },
	{ "oom-cgroup", ERR_PROGRAM, NULL, NULL,
	  "Detected [0-9]+ oom[-_]kill event|Memory cgroup out of memory|"
	  "oom-kill:constraint=CONSTRAINT_MEMCG|: Out Of Memory|"
	  "exceeded memory limit|Exceeded job memory limit|"
	  "killed by signal: Killed", NULL, 0,
	  "the job went over its own memory allocation and was killed: "
	  "request more memory or use less" },
	{ "cuda-program", ERR_PROGRAM, NULL, NULL,
	  "illegal memory access|device-side assert|misaligned address|"
	  "illegal instruction|unspecified launch failure|"
	  "cudaError(IllegalAddress|Assert|LaunchFailure|MisalignedAddress)|"
	  "CUDA_ERROR_(ILLEGAL_ADDRESS|ASSERT|LAUNCH_FAILED)|"
	  "CUBLAS_STATUS_(EXECUTION_FAILED|INVALID_VALUE|NOT_SUPPORTED)|"
	  "CUDNN_STATUS_(BAD_PARAM|NOT_SUPPORTED|EXECUTION_FAILED)|"
	  "Assertion `.*` failed|invalid configuration argument|"
	  "too many resources requested for launch",
	  NULL, 0,
	  "a CUDA kernel of the program faulted (bad index or pointer, failed "
	  "device assertion): a bug, not the node" },
	{ "nccl-usage", ERR_PROGRAM, NULL, NULL,
	  "ncclInvalidUsage|ncclInvalidArgument|invalid usage \\(run with|"
	  "invalid argument \\(run with|collective mismatch|"
	  "Message truncated", NULL, 0,
	  "the program called NCCL wrongly (ranks disagree on a collective, "
	  "bad arguments)" },
	{ "crash", ERR_PROGRAM, NULL, NULL,
	  "Segmentation fault|Floating point exception|SIGSEGV|SIGFPE|"
	  "Illegal instruction", NULL, 0,
	  "the program crashed (SIGABRT is left out: the NCCL watchdog "
	  "aborts the process too)" },
	{ "python-exception", ERR_PROGRAM, NULL, NULL,
	  "^(\\[rank[0-9]+\\]: |\\[default[0-9]+\\]: ?|[0-9]+: )?"
	  "(([A-Za-z_][A-Za-z0-9_]*\\.)*[A-Za-z_][A-Za-z0-9_]*"
	  "(Error|Exception)|Exception)(:|$)",
	  DIST_CONSEQUENCE, 0,
	  "the program raised an exception" },

	/* 4. Transport errors that may be a consequence. */
	{ "nccl-ib", ERR_INFRA, NULL, NULL,
	  "NET/IB[A-Z/]* ?:.*(Got completion|error|fail|[Ee]vent)|"
	  "IBV_WC_[A-Z_]+_ERR|transport retry counter exceeded|"
	  "ibv_post_[a-z]+\\(\\) failed|ibv_poll_cq", NULL, 0,
	  "NCCL's InfiniBand/RoCE transport failed between nodes" },
	{ "nccl-transport", ERR_INFRA, NULL, NULL,
	  "NCCL WARN.*(Connection timed out|Connection refused|"
	  "Connection reset|Broken pipe|Connection closed|connection abort)|"
	  "ncclSystemError|ncclRemoteError|ncclInternalError|"
	  "unhandled system error|remote process exited or there was a "
	  "network error|NET/Socket ?:.*(fail|error)|socketProgress|"
	  "socketStartConnect|Connection closed by remote peer", NULL, 0,
	  "NCCL lost its transport between GPUs or nodes (network/P2P); a "
	  "retry may need the cluster's NCCL settings" },
	/*
	 * PyTorch's heartbeat monitor: the watchdog thread itself stopped,
	 * blocked in a CUDA or NCCL call.  Without a transport or GPU error
	 * above, that is a hang of the program's own making (a rank that
	 * never reached the collective, a thread holding the GIL in a CUDA
	 * call) more often than a node's: never a retry on its own.
	 */
	{ "nccl-heartbeat", ERR_PROGRAM, NULL, NULL,
	  "watchdog got stuck for [0-9]+ seconds|Heartbeat monitor timed out|"
	  "detected no heartbeat of its watchdog", NULL, 0,
	  "the process hung: PyTorch's heartbeat monitor found the NCCL "
	  "watchdog itself stuck, with no GPU or network error in the log "
	  "(usually a rank that never reached a collective, or a deadlock): "
	  "debug the hang; no retry" },
	{ "nccl-watchdog", ERR_INFRA, NULL, NULL,
	  "Watchdog caught collective operation timeout|NCCL watchdog|"
	  "ProcessGroupNCCL.*[Tt]imeout|Some NCCL operations have failed or "
	  "timed out", NULL, 0,
	  "an NCCL collective timed out (a peer or link hung)" },
	{ "dist-network", ERR_INFRA, NULL, NULL,
	  "DistNetworkError|DistStoreError|Rendezvous[A-Za-z]*Error|"
	  "client socket has (timed out|failed to connect)|server socket has "
	  "failed|Address already in use|gloo.*(Connection closed|Connection "
	  "reset|Read error|Timed out)|Socket Timeout|"
	  "Connection reset by peer",
	  NULL, 0,
	  "the ranks could not reach each other (rendezvous, c10d store or "
	  "gloo sockets): a node or the network between them" },

	/* 5. The state and exit status alone. */
	{ "slurm-output", ERR_INFRA, NULL, "0:53", NULL, NULL, 0,
	  "slurmd could not open the job's output file (exit 0:53): the log "
	  "directory was missing on the node or shared storage was not "
	  "mounted there" },
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
	{ "worker-signal", ERR_UNKNOWN, NULL, NULL,
	  "Signal [0-9]+ \\(SIG[A-Z]+\\) received by PID|exitcode *: -[0-9]",
	  NULL, 0,
	  "a worker of the launcher (torchrun) was killed by a signal and "
	  "nothing in the log says why (SIGKILL: often a memory limit); read "
	  "the last lines" },
	{ "exit-code", ERR_PROGRAM, NULL, "+:0", NULL, NULL, 0,
	  "the program exited with a non-zero code of its own and the log "
	  "names no other cause (128+N: killed by signal N)" },
	{ "signal", ERR_UNKNOWN, NULL, "*:+", NULL, NULL, 0,
	  "the job was killed by a signal and nothing in the log says why "
	  "(SIGKILL: often a memory limit or an administrator); read the "
	  "last lines" },
	{ "default", ERR_UNKNOWN, NULL, NULL, NULL, NULL, 0,
	  "no evidence in the state, exit status or log: read the last lines "
	  "(no retry)" },
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
	long	v = str_digits_n(s, len);

	if (v < 0)
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
/* 0: not compiled, 1: being compiled (by one thread), 2: ready. */
static atomic_int	 compiled_state;

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

/* compile_rules() once, whichever thread asks first; the others wait. */
static void
compile_once(void)
{
	struct timespec	 pause = { 0, 100000 };
	int		 expect = 0;

	if (atomic_load_explicit(&compiled_state, memory_order_acquire) == 2)
		return;
	if (atomic_compare_exchange_strong(&compiled_state, &expect, 1)) {
		compile_rules();
		atomic_store_explicit(&compiled_state, 2, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&compiled_state, memory_order_acquire) != 2)
		nanosleep(&pause, NULL);
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

	compile_once();
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

char *
triage_evidence(const struct triage_result *res)
{
	struct buf	b;
	int		i;

	if (res->has_line)
		return xstrdup(res->line);
	if (res->ntail == 0)
		return NULL;
	buf_init(&b);
	buf_adds(&b, "last lines: ");
	for (i = 0; i < res->ntail; i++) {
		if (i > 0)
			buf_adds(&b, " | ");
		buf_adds(&b, res->tail[i]);
	}
	return buf_steal(&b);
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
		/* A progress bar redraws with \r: its last state is the line.
		   */
		s = end;
		while (s > text && s[-1] != '\n' && s[-1] != '\r')
			s--;
		if (s < end && line_meaningful(s, (size_t)(end - s))) {
			start[k] = s;
			n[k] = (size_t)(end - s);
			k++;
		}
		/* The bar's earlier states are not lines of their own. */
		while (s > text && s[-1] != '\n')
			s--;
		end = s;
	}
	for (i = 0; i < k; i++)
		copy_line(res->tail[i], sizeof res->tail[i], start[k - 1 - i],
		    n[k - 1 - i]);
	res->ntail = k;
}

/*
 * Blank the lines before the last TRIAGE_STEP_RETRIED line that the
 * container-runtime rule matches: that try's setup failed and the job
 * script tried again; what the job did after it decides.  (A program that
 * prints the line itself can only hide such errors from its own verdict.)
 */
static void
forget_retried_setup(char *text)
{
	const char	*p, *last = NULL;
	char		*line, *eol;
	size_t		 i;

	for (p = text; (p = strstr(p, TRIAGE_STEP_RETRIED)) != NULL; p++)
		last = p;
	if (last == NULL)
		return;
	for (i = 0; i < NRULES; i++) {
		if (strcmp(rules[i].name, "container-runtime") == 0)
			break;
	}
	compile_once();
	if (i == NRULES || !compiled_ok[i])
		return;
	for (line = text; line < last; line = eol + 1) {
		if ((eol = memchr(line, '\n', (size_t)(last - line))) == NULL)
			break;
		*eol = '\0';
		if (regexec(&compiled[i], line, 0, NULL, 0) == 0)
			memset(line, ' ', (size_t)(eol - line));
		*eol = '\n';
	}
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
	forget_retried_setup(text);

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
