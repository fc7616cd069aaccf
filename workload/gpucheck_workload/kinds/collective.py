"""The collective benchmark: nccl-tests' method and layout on torch.distributed.

Method (src/common.cu TimeTest/BenchTime): warm up every size first; then per size and per
placement (out-of-place, then in-place) run one call, barrier, time `iters` calls (the collective
alone: ops.Collective.stage copies outside the clock) with the clock read only after the device is
drained, average the time over ranks, and check --check-iters more calls' results, each from its own
fill, against the exactly known expected values, the wrong elements summed over ranks and calls
(nccl-tests' `-c <check iteration count>`: "perform count iterations, checking correctness of
results on each iteration"). gpucheck's suites ask for as many checked calls as timed ones, so a
fault that corrupts one call in twenty is seen, where one check per size would miss it.
"""
import argparse
import math
import os
import socket
import time

from .. import collective_rails, cpu, dist as pg, emit, nccl_debug, nccl_layout, nccl_math, __version__
from ..errors import WorkloadError, require_torch
from ..ops import Collective

HELP = "nccl-tests style collective benchmark"
# test hooks: this rank corrupts one received element of the checked call with this fill number
# (rep, counted from 1 over the whole sweep): a fault in one call of many (workload/tests/test_collective.py)
FAULT_RANK_ENV = "GPUCHECK_COLLECTIVE_FAULT_RANK"
FAULT_REP_ENV = "GPUCHECK_COLLECTIVE_FAULT_REP"


def _size(text):
    try:
        return nccl_math.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def add_arguments(p):
    p.add_argument("--op", choices=nccl_math.OPS, default="all_reduce")
    p.add_argument("--min-bytes", type=_size, default=8)
    p.add_argument("--max-bytes", type=_size, default=64 << 20)
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--dtype", choices=sorted(nccl_math.DTYPE_SIZES), default="float")
    p.add_argument("--no-check", dest="check", action="store_false", help="skip the #wrong check (prints N/A)")
    p.add_argument("--check-iters", type=int, default=1,
                   help="checked calls per size and placement, each from its own fill (nccl-tests -c; default 1)")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    p.add_argument("--impl", choices=("workload", "nccl-tests"), default="workload")
    p.add_argument("--nccl-tests-dir", help="directory holding <op>_perf (default: PATH)")
    collective_rails.add_arguments(p)


def main(args):
    from .. import ranks as ranks_mod
    ranks = ranks_mod.detect()
    if args.rails:
        validate(args)
        return collective_rails.run(args, ranks)  # a child per rail, each binding itself
    if args.impl == "nccl-tests":
        from .. import nccl_tests
        return nccl_tests.run(args, ranks)  # unbound: in node mode one process drives every GPU
    from .. import affinity
    affinity.bind(ranks)  # before torch starts its thread pools, which inherit the mask
    return run(args, ranks)


def validate(args):
    if args.factor < 2 or args.factor != int(args.factor):
        raise WorkloadError("--factor must be an integer of at least 2, got %s" % args.factor)
    if args.min_bytes > args.max_bytes:
        raise WorkloadError("--min-bytes %d is larger than --max-bytes %d" % (args.min_bytes, args.max_bytes))
    if args.iters < 1 or args.warmup < 0:
        raise WorkloadError("--iters must be at least 1 and --warmup at least 0")
    if args.check_iters < 1:
        raise WorkloadError("--check-iters must be at least 1, got %d (--no-check turns the check off)" % args.check_iters)


def _device_line(torch, ctx):
    r = ctx.ranks
    if ctx.device.type == "cuda":
        props = torch.cuda.get_device_properties(ctx.device)
        pci = tuple(getattr(props, k, 0) for k in ("pci_domain_id", "pci_bus_id", "pci_device_id"))
        return nccl_layout.device_line(r.rank, os.getpid(), socket.gethostname(), ctx.device.index, pci, props.name)
    return nccl_layout.device_line(r.rank, os.getpid(), socket.gethostname(), -1, (0, 0, 0), "CPU " + cpu.model())


def _memory_limit(torch, ctx, max_bytes, check):
    """nccl-tests' rule: keep 1 GiB per 16 GiB (at most 4) plus 1 GiB free, the rest split over buffers.

    nccl-tests splits it 3 ways with the check on (send, receive, expected); the check here also
    holds a boolean mask while it compares, so 4 shares rather than 3. On a CPU the buffers live in
    host memory shared by the node's ranks: half of what the kernel calls available, per local rank.
    """
    shares = 4 if check else 2
    if ctx.device.type != "cuda":
        available = _host_available()
        if available is None:
            return max_bytes
        return min(max_bytes, available // 2 // max(1, ctx.ranks.local_world_size) // shares)
    total = torch.cuda.get_device_properties(ctx.device).total_memory
    gib = 1 << 30
    reserve = min(-(-total // (16 * gib)) * gib, 4 * gib)
    return min(max_bytes, (total - reserve - gib) // shares)


def _host_available(path="/proc/meminfo"):
    """MemAvailable in bytes, None where the kernel does not say (no /proc, a kernel before 3.14)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def agreed_limit(torch, dist, ctx, local):
    """The smallest rank's limit, on every rank (nccl-tests: MPI_Allreduce MPI_MIN of maxBytes).

    A rank with less memory (a smaller GPU, a MIG slice, another job's allocation) would otherwise
    sweep fewer sizes than its peers, and they would wait forever in a collective it never joins.
    """
    t = torch.tensor([local], dtype=torch.int64, device=ctx.device)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return int(t.item())


class Bench:
    def __init__(self, torch, dist, ctx, coll, args):
        self.torch, self.dist, self.ctx, self.coll, self.args = torch, dist, ctx, coll, args
        self.n = ctx.ranks.world_size
        self.rep = 0
        self.out_of_bounds = 0
        fault = os.environ.get(FAULT_REP_ENV) if os.environ.get(FAULT_RANK_ENV) == str(ctx.ranks.rank) else None
        self.fault_rep = int(fault) if fault else None

    def total(self, value, dtype):
        t = self.torch.tensor([value], dtype=dtype, device=self.ctx.device)
        self.dist.all_reduce(t)
        return t.item()

    def warmup(self, sizes):
        for size in sizes:
            self.coll.resize(size)
            fn = self.coll.runner(False)
            self.coll.stage(False)
            for _ in range(self.args.warmup):
                fn()
            pg.sync(self.ctx)

    def placement(self, in_place):
        coll, args = self.coll, self.args
        fn = coll.runner(in_place)
        # filled even without the check: uninitialised CPU memory may hold denormals, which slow
        # gloo's reductions and would be timed
        coll.fill(in_place, 99)
        coll.stage(in_place)  # outside the timed region: only the collective is timed
        fn()
        pg.sync(self.ctx)
        pg.barrier(self.ctx)
        start = time.perf_counter()
        for _ in range(args.iters):
            fn()
        pg.sync(self.ctx)
        seconds = (time.perf_counter() - start) / args.iters
        seconds = self.total(seconds, self.torch.float64) / self.n  # nccl-tests -a 1: mean over ranks
        algbw, bus = nccl_math.bandwidth(coll.op, coll.count, coll.eltsize, seconds, self.n)
        wrong = None
        if args.check and not (coll.op == "alltoall" and in_place):  # nccl-tests: alltoall in place is N/A
            local = 0
            for _ in range(args.check_iters):
                # each checked call from a fill of its own: a wrong value cannot be an earlier call's
                self.rep += 1
                coll.fill(in_place, self.rep)
                coll.stage(in_place)
                fn()
                pg.sync(self.ctx)
                if self.rep == self.fault_rep:
                    coll.views(in_place)[1][0] += 1
                bad = coll.wrong(in_place, self.rep)
                self.out_of_bounds += 1 if bad else 0  # nccl-tests: checks with a wrong element
                local += bad
            wrong = int(self.total(local, self.torch.int64))
        return seconds * 1e6, algbw, bus, wrong


def run(args, ranks):
    validate(args)
    torch = require_torch()
    import torch.distributed as dist

    # NCCL reads its debug variables once, at its first call: the capture starts before the group
    nccl = pg.resolved(torch, args.backend) == "nccl"
    capture = nccl_debug.Capture(rank=ranks.rank).start() if nccl else None
    ctx = None
    try:
        ctx = pg.init(ranks, args.backend)
        try:
            return _sweep(torch, dist, ctx, args)
        finally:
            pg.close()
    finally:
        if capture and ctx is None:
            capture.abandon()
        elif capture:
            capture.finish()
        elif ctx is not None:
            nccl_debug.not_run(ranks.rank, ctx.backend)


def _check_dtype(torch, dist, ctx, dtype_name):
    from ..ops import TORCH_DTYPES
    probe = torch.zeros(1, dtype=getattr(torch, TORCH_DTYPES[dtype_name]), device=ctx.device)
    try:
        dist.all_reduce(probe)
    except RuntimeError as e:
        raise WorkloadError("--dtype %s is not supported by the %s backend of torch %s: %s"
                            % (dtype_name, ctx.backend, torch.__version__, str(e).splitlines()[0])) from None


def _sweep(torch, dist, ctx, args):
    rank0 = ctx.ranks.rank == 0
    program = args.op + "_perf"
    _check_dtype(torch, dist, ctx, args.dtype)
    lines = [None] * ctx.ranks.world_size
    dist.all_gather_object(lines, _device_line(torch, ctx))
    max_bytes = agreed_limit(torch, dist, ctx, _memory_limit(torch, ctx, args.max_bytes, args.check))
    coll = Collective(torch, dist, args.op, args.dtype, ctx.device, ctx.ranks.rank, ctx.ranks.world_size, max_bytes)
    note = "gpucheck-workload %s: torch %s, backend %s (nccl-tests %s text layout)" % (
        __version__, torch.__version__, ctx.backend, nccl_layout.NCCL_TESTS_LAYOUT)
    out = emit.line if rank0 else (lambda _text: None)
    pre = nccl_layout.preamble(program, args.min_bytes, args.max_bytes, int(args.factor), args.warmup, args.iters,
                               args.check_iters if args.check else 0, note)
    for text in pre[:3] + ["# " + n for n in coll.notes] + pre[3:] + lines:
        out(text)
    if max_bytes < args.max_bytes:
        out("#\n# Reducing maxBytes to %d due to memory limitation" % max_bytes)
    sizes = nccl_math.sweep(min(args.min_bytes, max_bytes), max_bytes, int(args.factor))
    bench = Bench(torch, dist, ctx, coll, args)
    bench.warmup(sizes)
    for text in nccl_layout.header():
        out(text)
    bws = []
    for size in sizes:
        coll.resize(size)
        oop, inp = bench.placement(False), bench.placement(True)
        bws += [oop[2], inp[2]]
        out(nccl_layout.row(coll.size, coll.count, args.dtype, nccl_math.redop(args.op), nccl_math.root(args.op), oop, inp))
        if rank0:
            wrongs = [w for w in (oop[3], inp[3]) if w is not None]
            emit.tagged("PROGRESS", {"size": coll.size, "busbw": max(oop[2], inp[2]), "busbw_out_of_place": oop[2],
                                     "busbw_in_place": inp[2], "wrong": sum(wrongs) if wrongs else None})
    oob = int(bench.total(bench.out_of_bounds, torch.int64))
    avg = sum(bws) / len(bws) if bws else 0.0
    for text in nccl_layout.footer(oob, avg if math.isfinite(avg) else 0.0, program):
        out(text)
    # nccl-tests (>= 2.17.3) exits 7 (testNumResults) when any check found wrong data
    return 7 if oob else 0
