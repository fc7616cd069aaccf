"""A sustained load on every rank at once for a set time: each iteration a matrix multiply, a
memory copy and an all-reduce, each phase timed on its own, every rank in step.

What a short benchmark cannot show shows here: a GPU that slows as it heats (throughput in the
first against the last minute), one whose iterations jitter (coefficient of variation, max/avg),
and, through the telemetry sampled meanwhile, its clock events. A rank's iteration time is its own
work, the multiply and the copy: the all-reduce makes every rank wait for the slowest, so its time
says who waited, not who was slow (it is recorded beside, per phase).

The run ends together: each all-reduce carries, in its first element, whether any rank has passed
the duration (a MAX reduction, so the buffer's values never grow), so every rank runs the same
number of collectives and none is left waiting in one.
"""
import socket
import time

from . import burn_stats, dist as pg, emit
from .device_id import identity
from .errors import WorkloadError, require_torch

HELP = "sustained GEMM + memory copy + all-reduce on every rank for a duration: per-rank stability, stragglers, slowdown"

# GPU: an 8192³ bf16 multiply is ≈1.1 TFLOP, about 1.5 ms on an H100: long enough to time alone,
# short enough for tens of thousands of samples a minute; 1 GiB copies and 256 MiB all-reduces are
# far above the 50 MiB L2, so HBM and the links carry them
GPU = {"gemm": 8192, "copy": 1024 ** 3, "allreduce": 256 * 1024 ** 2}
# CPU: a few milliseconds an iteration on a 2-core machine, so a 3-second run has hundreds
CPU = {"gemm": 256, "copy": 16 * 1024 ** 2, "allreduce": 1024 ** 2}
ELEMENT = 4  # the copy and the all-reduce move float32
WARMUP_ITERS = 3


def add_arguments(p):
    p.add_argument("--duration", type=float, default=20.0, help="seconds of load after the warm-up")
    p.add_argument("--gemm-size", type=int, help="M=N=K of the multiply (default %d on GPU, %d on CPU)" % (GPU["gemm"], CPU["gemm"]))
    p.add_argument("--copy-size", type=int, help="bytes copied per iteration (default %d on GPU, %d on CPU)" % (GPU["copy"], CPU["copy"]))
    p.add_argument("--allreduce-size", type=int,
                   help="bytes all-reduced per iteration (default %d on GPU, %d on CPU)" % (GPU["allreduce"], CPU["allreduce"]))
    p.add_argument("--window", type=float, default=burn_stats.WINDOW_S, help="seconds per summary window")


def check_arguments(args):
    if not args.duration > 0:
        raise WorkloadError("--duration must be more than 0 seconds, got %s" % args.duration)
    if not args.window > 0:
        raise WorkloadError("--window must be more than 0 seconds, got %s" % args.window)
    for flag, value, least in (("--gemm-size", args.gemm_size, 1), ("--copy-size", args.copy_size, ELEMENT),
                               ("--allreduce-size", args.allreduce_size, ELEMENT)):
        if value is not None and value < least:
            raise WorkloadError("%s must be at least %d, got %d" % (flag, least, value))


def main(args):
    from . import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)
    return run(args, ranks)


def run(args, ranks):
    check_arguments(args)
    torch = require_torch()
    import torch.distributed as dist

    ctx = pg.init(ranks, "auto")
    try:
        cuda = ctx.device.type == "cuda"
        d = GPU if cuda else CPU
        n = args.gemm_size or d["gemm"]
        copy_n = (args.copy_size or d["copy"]) // ELEMENT
        reduce_n = (args.allreduce_size or d["allreduce"]) // ELEMENT
        dtype = "bf16" if cuda and torch.cuda.get_device_capability(ctx.device)[0] >= 8 else "fp32"
        mine = {"rank": ranks.rank, "local_rank": ranks.local_rank, "host": socket.gethostname(),
                "device": identity(torch, ctx.device), "gemm_dtype": dtype}
        stats = burn_stats.Burn(2.0 * n ** 3, 2 * copy_n * ELEMENT, args.duration, args.window)
        try:
            loop = _Loop(torch, dist, ctx, n, dtype, copy_n, reduce_n)
        except RuntimeError as e:
            loop, mine["unmeasured"] = None, "burn buffers did not fit: %s" % _first_line(e)
        # every rank must run the same collectives: when one cannot load, none does
        ready = torch.tensor([0.0 if loop is None else 1.0], device=ctx.device)
        dist.all_reduce(ready, op=dist.ReduceOp.MIN)
        elapsed = 0.0
        if ready.item() > 0:
            elapsed = _drive(ctx, loop, stats, args.duration)
        elif loop is not None:
            mine["unmeasured"] = "not run: another rank's burn buffers did not fit (that rank says why)"
        mine.update(stats.result(elapsed))
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": ranks.world_size, "backend": ctx.backend, "torch": torch.__version__,
                                   "duration_s": args.duration, "gemm_n": n, "copy_bytes": copy_n * ELEMENT,
                                   "allreduce_bytes": reduce_n * ELEMENT, "warmup_iters": WARMUP_ITERS, "ranks": everyone})
        return 0
    finally:
        pg.close()


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _drive(ctx, loop, stats, duration):
    """Iterations until any rank passes the duration; the seconds the timed part lasted."""
    for _ in range(WARMUP_ITERS):
        loop.step(stop=False)
    pg.barrier(ctx)
    t0 = time.perf_counter()
    while True:
        start = time.perf_counter() - t0
        gemm_s, copy_s, reduce_s, stop = loop.step(stop=start >= duration)
        if stop:
            return start
        stats.add(start, gemm_s, copy_s, reduce_s)


class _Loop:
    def __init__(self, torch, dist, ctx, n, dtype, copy_n, reduce_n):
        self.torch, self.dist, self.ctx = torch, dist, ctx
        kind = torch.bfloat16 if dtype == "bf16" else torch.float32
        self.a = torch.randn(n, n, device=ctx.device).to(kind)
        self.b = torch.randn(n, n, device=ctx.device).to(kind)
        self.c = torch.empty(n, n, device=ctx.device, dtype=kind)
        self.src = torch.ones(copy_n, device=ctx.device)
        self.dst = torch.empty_like(self.src)
        self.buf = torch.ones(max(reduce_n, 1), device=ctx.device)
        self.cuda = ctx.device.type == "cuda"
        if self.cuda:
            self.events = [torch.cuda.Event(enable_timing=True) for _ in range(4)]

    def step(self, stop):
        """(gemm s, copy s, all-reduce s, whether any rank asked to stop)."""
        torch, mark = self.torch, self._mark
        t = [mark(0)]
        torch.matmul(self.a, self.b, out=self.c)
        t.append(mark(1))
        self.dst.copy_(self.src)
        t.append(mark(2))
        self.buf[0].fill_(1.0 if stop else 0.0)
        self.dist.all_reduce(self.buf, op=self.dist.ReduceOp.MAX)
        t.append(mark(3))
        stopped = self.buf[0].item() > 0  # on a GPU this waits for the iteration to finish
        if self.cuda:
            e = self.events
            return e[0].elapsed_time(e[1]) / 1e3, e[1].elapsed_time(e[2]) / 1e3, e[2].elapsed_time(e[3]) / 1e3, stopped
        return t[1] - t[0], t[2] - t[1], t[3] - t[2], stopped

    def _mark(self, i):
        if self.cuda:
            self.events[i].record()
            return None
        return time.perf_counter()
