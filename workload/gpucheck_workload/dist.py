"""Process group set-up: NCCL on GPUs, gloo on CPUs, with the rendezvous from ranks.py.

No torchrun: Debian's torch 1.13 torchrun crashes on Python 3.11, and every launcher we support
already tells each process its rank, so init_process_group is called with explicit values.
"""
import ipaddress
import os
import socket
from collections import namedtuple
from datetime import timedelta

from .errors import WorkloadError, require_torch

Context = namedtuple("Context", "backend device ranks")

# Long enough for a slow node to import torch and build a model, short enough that a rank whose
# peer died gets an error before the harness's own timeout hides the cause.
DEFAULT_TIMEOUT_S = 600


def is_loopback(addr):
    if addr == "localhost":
        return True
    try:
        return ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


# The backend the harness chose from the suite when it made the plan (`--backend` before the
# command: nccl when the suite's gpusPerNode > 0, gloo otherwise). Set, it replaces "auto": a GPU
# suite whose ranks see no GPU stops here with an error instead of measuring the CPU over gloo.
PLANNED = None


def _pick_backend(torch, backend, planned=None, where="this rank"):
    if backend == "auto":
        backend = planned or ("nccl" if torch.cuda.is_available() else "gloo")
    if backend == "nccl" and not torch.cuda.is_available():
        why = "the suite asks for GPUs (gpusPerNode > 0, backend nccl planned)" if planned == "nccl" else "--backend nccl needs a GPU"
        raise WorkloadError("%s: %s but torch %s sees none (torch.cuda.is_available() is False): no GPU work runs on a CPU; "
                            "check the NVIDIA driver and CUDA_VISIBLE_DEVICES on this node" % (where, why, torch.__version__))
    return backend


def resolved(torch, backend):
    """The backend init() will use for `backend` ("auto" → the planned one), without checking it."""
    return (PLANNED or ("nccl" if torch.cuda.is_available() else "gloo")) if backend == "auto" else backend


def _cuda_device(torch, ranks):
    count = torch.cuda.device_count()
    # One visible device per rank (srun --gpus-per-task, CUDA_VISIBLE_DEVICES per rank) → device 0.
    index = 0 if count == 1 else ranks.local_rank
    if index >= count:
        raise WorkloadError("local rank %d needs GPU %d but only %d are visible" % (ranks.local_rank, index, count))
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


def _limit_cpu_threads(torch, ranks):
    # Ranks sharing a CPU node would each start one thread per core and fight over them.
    if "OMP_NUM_THREADS" in os.environ:
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    # a rank bound to its own share (affinity.bind, srun --cpu-bind) already holds only its cores
    own = os.environ.get("GPUCHECK_CPU_BIND") == "split" or "SLURM_CPU_BIND_TYPE" in os.environ
    torch.set_num_threads(max(1, cores if own else cores // max(1, ranks.local_world_size)))


def init(ranks, backend="auto"):
    torch = require_torch()
    import torch.distributed as dist

    backend = _pick_backend(torch, backend, PLANNED, "rank %d on %s" % (ranks.rank, socket.gethostname()))
    if backend == "nccl":
        device = _cuda_device(torch, ranks)
    else:
        device = torch.device("cpu")
        _limit_cpu_threads(torch, ranks)
        # gloo binds to the interface of the hostname's address; in a container with network
        # "none" that lookup fails, while loopback always works for a single-node run.
        if is_loopback(ranks.master_addr) and "GLOO_SOCKET_IFNAME" not in os.environ:
            os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    host = "[%s]" % ranks.master_addr if ":" in ranks.master_addr else ranks.master_addr
    timeout = float(os.environ.get("GPUCHECK_DIST_TIMEOUT_S", DEFAULT_TIMEOUT_S))
    dist.init_process_group(backend, init_method="tcp://%s:%d" % (host, ranks.master_port),
                            rank=ranks.rank, world_size=ranks.world_size, timeout=timedelta(seconds=timeout))
    ctx = Context(backend, device, ranks)
    # torch 1.13 ends init with a barrier polled on rank 0's store: if rank 0 failed and exited
    # right after it, the others would die on a broken pipe instead of reporting the same error.
    barrier(ctx)
    return ctx


def barrier(ctx):
    import torch.distributed as dist
    if ctx.backend == "nccl":
        dist.barrier(device_ids=[ctx.device.index])
    else:
        dist.barrier()
    sync(ctx)


def sync(ctx):
    """Wait for queued GPU work; nothing to wait for on CPU, where gloo calls block."""
    if ctx.device.type == "cuda":
        import torch
        torch.cuda.synchronize(ctx.device)


def close():
    import torch.distributed as dist
    if dist.is_initialized():
        dist.destroy_process_group()
