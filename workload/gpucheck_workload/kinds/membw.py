"""Memory bandwidth per GPU (or CPU rank), every rank at once: a device-to-device copy
(`dst.copy_(src)`: each element read once and written once, 2 × size bytes) and a STREAM-like triad
written with torch ops (`torch.add(b, c, alpha=s, out=a)`: two reads and one write, 3 × size bytes).

Every rank starts each operation after a barrier, so the GPUs of a node load their HBM, power and
cooling together as a real job does. Per rank and operation: the best and the median GB/s
(1 GB = 1e9 bytes) over the timed calls, each call timed alone.

The buffers must be much larger than the last-level cache or the cache is measured: H100's L2 is
50 MiB, so the GPU default is 2 GiB per buffer (6 GiB for the triad's three).
"""
import socket

from .. import bandwidth, dist as pg, emit
from ..device_id import identity
from ..errors import require_torch

HELP = "HBM (or host memory) bandwidth per GPU: device-to-device copy and triad GB/s, all GPUs at once"

OPS = ("copy", "triad")
# bytes moved per element of one buffer: copy reads src and writes dst, triad reads b and c and writes a
TRAFFIC = {"copy": 2, "triad": 3}
GPU_SIZE = 2 * 1024 ** 3
# 64 MiB per buffer defeats a desktop CPU's L3 (tens of MiB) and keeps a 2-rank run on 2 cores to seconds
CPU_SIZE = 64 * 1024 ** 2
TRIAD_SCALAR = 3.0
ELEMENT = 4  # float32


def add_arguments(p):
    bandwidth.add_arguments(p, GPU_SIZE, CPU_SIZE, "buffer")


def main(args):
    from .. import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)
    return run(args, ranks)


def run(args, ranks):
    bandwidth.check_arguments(args, ELEMENT, "%d bytes (one float32)" % ELEMENT)
    torch = require_torch()
    import torch.distributed as dist

    ctx = pg.init(ranks, "auto")
    try:
        size = args.size or (GPU_SIZE if ctx.device.type == "cuda" else CPU_SIZE)
        n = size // ELEMENT
        mine = {"rank": ranks.rank, "local_rank": ranks.local_rank, "host": socket.gethostname(),
                "device": identity(torch, ctx.device), "ops": {}}
        for op in OPS:
            pg.barrier(ctx)  # every rank starts the operation together: the node's GPUs load at once
            mine["ops"][op] = measure(torch, ctx.device, op, n, args.iters, args.warmup)
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": ranks.world_size, "backend": ctx.backend, "torch": torch.__version__,
                                   "size": n * ELEMENT, "iters": args.iters, "warmup": args.warmup, "ranks": everyone})
        return 0
    finally:
        pg.close()


def measure(torch, device, op, n, iters, warmup):
    """One operation's summary, or {"unmeasured": why} when it cannot run (the buffers do not fit):
    the rank goes on so the others do not wait for it at the next barrier."""
    try:
        fn = _operation(torch, device, op, n)
        times = bandwidth.seconds_per_call(torch, device, fn, iters, warmup)
    except RuntimeError as e:
        return {"unmeasured": bandwidth.failure("%s of %d-byte buffers" % (op, n * ELEMENT), e)}
    finally:
        fn = None
        if device.type == "cuda":
            torch.cuda.empty_cache()  # the triad's buffers need the room the copy's held
    return bandwidth.summary(TRAFFIC[op] * n * ELEMENT, times)


def _operation(torch, device, op, n):
    if op == "copy":
        src = torch.ones(n, dtype=torch.float32, device=device)
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)
    a = torch.empty(n, dtype=torch.float32, device=device)
    b = torch.ones(n, dtype=torch.float32, device=device)
    c = torch.full((n,), 2.0, dtype=torch.float32, device=device)
    return lambda: torch.add(b, c, alpha=TRIAD_SCALAR, out=a)
