"""A sustained load on every rank at once for a set time: each iteration a matrix multiply, a
memory copy and an all-reduce, each phase timed on its own, every rank in step.

What a short benchmark cannot show shows here: a GPU that slows as it heats (throughput in the
first against the last minute), one whose iterations jitter (coefficient of variation, max/avg),
and, through the telemetry sampled meanwhile, its clock events. A rank's iteration time is its own
work, the multiply and the copy: the all-reduce makes every rank wait for the slowest, so its time
says who waited, not who was slow (it is recorded beside, per phase).

Silent data corruption under load: every --checksum-every iterations each rank multiplies the same
seeded inputs (identical on every rank) and fingerprints the product's bits on the device; the
fingerprints are gathered and each rank's compared with its own first (a GPU that computes the same
product differently as it heats) and with the majority of the ranks of its model (a GPU that differs
from its peers). A check where a rank differs either way is one mismatch for that rank. Where the
ranks of a model split without a majority (two GPUs that disagree), the ranks whose product changed
from their own first are counted; when none changed (they disagreed from the start), every one of
them is counted: no rank can be trusted.

The run ends together: each all-reduce carries, in its first element, whether any rank has passed
the duration (a MAX reduction, so the buffer's values never grow), so every rank runs the same
number of collectives and none is left waiting in one.
"""
import socket
import time

from .. import burn_stats, dist as pg, emit
from ..device_id import identity
from ..errors import WorkloadError, require_torch

HELP = "sustained GEMM + memory copy + all-reduce on every rank for a duration: per-rank stability, stragglers, slowdown"

# GPU: an 8192³ bf16 multiply is ≈1.1 TFLOP, about 1.5 ms on an H100: long enough to time alone,
# short enough for tens of thousands of samples a minute; 1 GiB copies and 256 MiB all-reduces are
# far above the 50 MiB L2, so HBM and the links carry them
GPU = {"gemm": 8192, "copy": 1024 ** 3, "allreduce": 256 * 1024 ** 2}
# CPU: a few milliseconds an iteration on a 2-core machine, so a 3-second run has hundreds
CPU = {"gemm": 256, "copy": 16 * 1024 ** 2, "allreduce": 1024 ** 2}
ELEMENT = 4  # the copy and the all-reduce move float32
WARMUP_ITERS = 3
# the checksum's product: gemm's checksum size (gemm.py GPU_CHECKSUM_SIZE, CPU_CHECKSUM_SIZE), ≈0.2 ms
# on an H100; every 100 iterations (≈0.5 s of burn on an H100, a few hundred checks in 10 minutes)
# costs about 1 % of the load
CHECKSUM = {"gpu": 4096, "cpu": 256, "every": 100}
# test hooks: this rank flips one bit of its product at these checks (0 is the first): corruption
# that comes and goes, as the intermittent faults of the Llama 3 report's "faulty GPU" class do
FAULT_RANK_ENV = "GPUCHECK_BURN_FAULT_RANK"
FAULT_CHECKS_ENV = "GPUCHECK_BURN_FAULT_CHECKS"
# a rank keeps the start time of its first few mismatches
MISMATCH_TIMES = 10


def add_arguments(p):
    p.add_argument("--duration", type=float, default=20.0, help="seconds of load after the warm-up")
    p.add_argument("--gemm-size", type=int, help="M=N=K of the multiply (default %d on GPU, %d on CPU)" % (GPU["gemm"], CPU["gemm"]))
    p.add_argument("--copy-size", type=int, help="bytes copied per iteration (default %d on GPU, %d on CPU)" % (GPU["copy"], CPU["copy"]))
    p.add_argument("--allreduce-size", type=int,
                   help="bytes all-reduced per iteration (default %d on GPU, %d on CPU)" % (GPU["allreduce"], CPU["allreduce"]))
    p.add_argument("--window", type=float, default=burn_stats.WINDOW_S, help="seconds per summary window")
    p.add_argument("--checksum-every", type=int, default=CHECKSUM["every"],
                   help="iterations between two checksums of a seeded product compared across ranks (default %d)" % CHECKSUM["every"])
    p.add_argument("--checksum-size", type=int,
                   help="M=N=K of the checksum's product (default %d on GPU, %d on CPU)" % (CHECKSUM["gpu"], CHECKSUM["cpu"]))


def check_arguments(args):
    if not args.duration > 0:
        raise WorkloadError("--duration must be more than 0 seconds, got %s" % args.duration)
    if not args.window > 0:
        raise WorkloadError("--window must be more than 0 seconds, got %s" % args.window)
    for flag, value, least in (("--gemm-size", args.gemm_size, 1), ("--copy-size", args.copy_size, ELEMENT),
                               ("--allreduce-size", args.allreduce_size, ELEMENT), ("--checksum-every", args.checksum_every, 1),
                               ("--checksum-size", args.checksum_size, 1)):
        if value is not None and value < least:
            raise WorkloadError("%s must be at least %d, got %d" % (flag, least, value))


def main(args):
    from .. import affinity, ranks as ranks_mod
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
        models = [None] * ranks.world_size
        dist.all_gather_object(models, mine["device"].get("name"))
        check_n = args.checksum_size or CHECKSUM["gpu" if cuda else "cpu"]
        sums = Checksums(ranks.rank, models, args.checksum_every, check_n, dtype)
        try:
            loop = _Loop(torch, dist, ctx, n, dtype, copy_n, reduce_n, check_n, ranks.rank)
        except RuntimeError as e:
            loop, mine["unmeasured"] = None, "burn buffers did not fit: %s" % _first_line(e)
        # every rank must run the same collectives: when one cannot load, none does
        ready = torch.tensor([0.0 if loop is None else 1.0], device=ctx.device)
        dist.all_reduce(ready, op=dist.ReduceOp.MIN)
        elapsed = 0.0
        if ready.item() > 0:
            elapsed = _drive(ctx, loop, stats, args.duration, sums)
        elif loop is not None:
            mine["unmeasured"] = "not run: another rank's burn buffers did not fit (that rank says why)"
        mine.update(stats.result(elapsed))
        mine["checksum"] = sums.result()
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": ranks.world_size, "backend": ctx.backend, "torch": torch.__version__,
                                   "duration_s": args.duration, "gemm_n": n, "copy_bytes": copy_n * ELEMENT,
                                   "allreduce_bytes": reduce_n * ELEMENT, "warmup_iters": WARMUP_ITERS,
                                   "checksum_every": args.checksum_every, "ranks": everyone})
        return 0
    finally:
        pg.close()


def _faults(rank):
    """The checks at which this rank flips a bit of its product (test hook, FAULT_*_ENV)."""
    import os
    if os.environ.get(FAULT_RANK_ENV) != str(rank):
        return set()
    return {int(c) for c in os.environ.get(FAULT_CHECKS_ENV, "0").split(",") if c.strip()}


class _NoTf32:
    """The checksum is a plain fp32 (or bf16) product: tensor-core rounding of fp32 stays off."""

    def __init__(self, torch):
        self.torch = torch

    def __enter__(self):
        m = self.torch.backends.cuda.matmul
        self.before, m.allow_tf32 = m.allow_tf32, False

    def __exit__(self, *exc):
        self.torch.backends.cuda.matmul.allow_tf32 = self.before


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _drive(ctx, loop, stats, duration, sums):
    """Iterations until any rank passes the duration; the seconds the timed part lasted.

    Every rank runs the same iterations (each ends in an all-reduce that carries the stop), so every
    rank reaches each checksum's gather at the same iteration.
    """
    for _ in range(WARMUP_ITERS):
        loop.step(stop=False)
    pg.barrier(ctx)
    t0 = time.perf_counter()
    i = 0
    while True:
        start = time.perf_counter() - t0
        gemm_s, copy_s, reduce_s, stop = loop.step(stop=start >= duration)
        if stop:
            return start
        stats.add(start, gemm_s, copy_s, reduce_s)
        if i % sums.every == 0:
            sums.add(start, loop.fingerprints(sums.checks))
        i += 1


class Checksums:
    """One rank's account of the checksums: how many ran, and at how many it differed (pure)."""

    def __init__(self, rank, models, every, n, dtype):
        self.rank, self.models, self.every, self.n, self.dtype = rank, models, every, n, dtype
        self.checks, self.firsts = 0, None
        self.self_mismatches, self.cross_mismatches, self.mismatches, self.no_majority = 0, 0, 0, 0
        self.mismatch_at = []

    def add(self, start, prints):
        """One check: every rank's fingerprint, in rank order."""
        mine = prints[self.rank]
        if self.firsts is None:
            self.firsts = list(prints)
        changed = [p != f for p, f in zip(prints, self.firsts)]
        differs_self = changed[self.rank]
        peers = [i for i, m in enumerate(self.models) if m == self.models[self.rank]]
        counts = {}
        for i in peers:
            counts[prints[i]] = counts.get(prints[i], 0) + 1
        best = max(counts.values())
        split = best * 2 <= len(peers) and len(counts) > 1
        if split:
            # no majority: the ranks whose product changed are the suspects; if none changed, all are
            differs_cross = differs_self or not any(changed[i] for i in peers)
        else:
            differs_cross = counts[mine] != best
        self.no_majority += split
        self.self_mismatches += differs_self
        self.cross_mismatches += differs_cross
        if differs_self or differs_cross:
            self.mismatches += 1
            if len(self.mismatch_at) < MISMATCH_TIMES:
                self.mismatch_at.append(round(start, 3))
        self.checks += 1

    def result(self):
        return {"n": self.n, "dtype": self.dtype, "every": self.every, "checks": self.checks, "mismatches": self.mismatches,
                "self_mismatches": self.self_mismatches, "cross_mismatches": self.cross_mismatches,
                "no_majority": self.no_majority, "mismatch_at_s": self.mismatch_at}


class _Loop:
    def __init__(self, torch, dist, ctx, n, dtype, copy_n, reduce_n, check_n, rank):
        self.torch, self.dist, self.ctx, self.rank = torch, dist, ctx, rank
        kind = torch.bfloat16 if dtype == "bf16" else torch.float32
        # the checksum's inputs: drawn on the CPU from one seed, so identical on every rank and device
        gen = torch.Generator().manual_seed(0)
        self.ca = torch.randn(check_n, check_n, generator=gen).to(device=ctx.device, dtype=kind)
        self.cb = torch.randn(check_n, check_n, generator=gen).to(device=ctx.device, dtype=kind)
        self.bits = torch.int16 if kind == torch.bfloat16 else torch.int32
        # position weights: a fingerprint that also changes when two words trade places
        self.weights = torch.arange(check_n * check_n, device=ctx.device, dtype=torch.int64) % 65521 + 1
        self.faults = _faults(rank)
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

    def fingerprints(self, check):
        """Every rank's fingerprint of the seeded product, in rank order: the sum of its bits as
        integers and their position-weighted sum (integer sums are exact, so equal bits give equal
        sums on any GPU; int64 wraps identically everywhere)."""
        torch = self.torch
        with _NoTf32(torch):
            out = torch.matmul(self.ca, self.cb)
        words = out.contiguous().view(self.bits).view(-1)
        if check in self.faults:
            words[0] ^= 1
        words = words.to(torch.int64)
        mine = torch.stack([words.sum(), (words * self.weights).sum()])
        every = [torch.empty_like(mine) for _ in range(self.dist.get_world_size())]
        self.dist.all_gather(every, mine)
        return [tuple(int(x) for x in t.tolist()) for t in every]

    def _mark(self, i):
        if self.cuda:
            self.events[i].record()
            return None
        return time.perf_counter()
