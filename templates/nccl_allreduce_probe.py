#!/usr/bin/env python3
"""NCCL all-reduce probe of sqdeck (sqdeck(1): NCCL PROBE AND RETRIES).

Run under torchrun in the job's container on every node before the real
work:

    timeout 120 torchrun --nnodes="$TAO_NODE_COUNT" \
        --nproc-per-node="$TAO_GPUS_PER_NODE" --node-rank="$TAO_NODE_RANK" \
        --master-addr="$MASTER_ADDR" --master-port="$MASTER_PORT" \
        nccl_allreduce_probe.py

Every rank all-reduces a tensor of ones times (rank + 1) over NCCL and
checks the sum.  Rank 0 prints NCCL_PROBE_OK when it matches.  Any failure
prints NCCL_PROBE_FAIL with the reason on stderr and exits non-zero; a hung
collective is ended by the alarm below (and by the outer timeout), so a
stuck transport always shows up as a non-zero exit.
"""

import datetime
import os
import signal
import sys

EXIT_FAIL = 1
EXIT_NO_TORCH = 2
EXIT_TIMEOUT = 3


def fail(msg, code=EXIT_FAIL):
    print("NCCL_PROBE_FAIL: %s" % msg, file=sys.stderr, flush=True)
    sys.exit(code)


def on_alarm(signum, frame):
    fail("timed out waiting for the collective", EXIT_TIMEOUT)


def main():
    timeout = float(os.environ.get("NCCL_PROBE_TIMEOUT", "110"))
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(timeout) + 5)

    # Without this a broken NCCL transport hangs instead of raising.
    os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")
    os.environ.setdefault("NCCL_ASYNC_ERROR_HANDLING", "1")

    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        fail("torch is not importable: %s" % e, EXIT_NO_TORCH)

    if not torch.cuda.is_available():
        fail("CUDA is not available on %s" % os.uname().nodename)
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)

    try:
        dist.init_process_group(
            backend="nccl", timeout=datetime.timedelta(seconds=timeout))
        rank = dist.get_rank()
        world = dist.get_world_size()
        t = torch.full((1 << 20,), float(rank + 1), device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        torch.cuda.synchronize()
        expected = world * (world + 1) / 2.0
        if not torch.all(t == expected).item():
            fail("rank %d: all_reduce gave %s, expected %s"
                 % (rank, t[0].item(), expected))
        dist.barrier()
    except Exception as e:  # noqa: BLE001 - any failure means "no".
        fail("%s: %s" % (type(e).__name__, e))

    signal.alarm(0)
    if rank == 0:
        print("NCCL_PROBE_OK world_size=%d" % world, flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
