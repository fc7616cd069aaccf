"""Matrix-multiply throughput per GPU (or CPU rank), all ranks at once, measured as Stas Bekman's
MAMF finder does: random inputs, a sweep of M=N=K shapes, the L2 cache flushed before every timed
call; per dtype the best and the median TFLOP/s over the shapes, and the shape of the best.

Every rank runs the sweep at the same time (a barrier before each dtype) so power and thermal
interactions between the GPUs of a node show. Then every rank multiplies the same seeded inputs at
one fixed shape and hashes the result's bits: identical GPUs must give identical bits, so a rank
whose hash differs from the others of its model is named (silent data corruption).

Before the sweep every rank multiplies for --warmup-seconds (30 s by default on a GPU), as the MAMF
finder does (`accelerator_warmup_seconds = 30` in stas00/ml-engineering
compute/accelerator/benchmarks/mamf-finder.py): its author found a cold accelerator scores higher on
a shape than the same shape run after a dozen others, so a sweep begun cold reads the boost clock,
not the clock the GPU holds under load. Each shape is then timed over as many calls as the MAMF finder
uses (--num_iterations 100 after --num_warmup_iterations 50 on a GPU).

A dtype the device or torch cannot run is reported with the reason, never with a number.
"""
import hashlib
import os
import socket
import statistics
import time

from .. import dist as pg, emit
from ..device_id import identity as _identity
from ..errors import WorkloadError, require_torch

HELP = "matrix-multiply TFLOP/s per GPU over a shape sweep, and an output checksum compared across GPUs"

DTYPES = ("bf16", "fp16", "tf32", "fp8", "fp32")
# torch on CPU: fp32 and bf16 run natively; the others are GPU formats (tf32 is a tensor-core mode)
CPU_DTYPES = ("fp32", "bf16")
GPU_SIZES = (1024, 16384, 1024)
CPU_SIZES = (128, 512, 128)
GPU_CHECKSUM_SIZE = 4096
CPU_CHECKSUM_SIZE = 256
# flushing writes a buffer bigger than the last-level cache: H100's L2 is 50 MiB, a server CPU's L3 ~ 100s of MiB
GPU_FLUSH_BYTES = 256 * 1024 ** 2
CPU_FLUSH_BYTES = 64 * 1024 ** 2
# the MAMF finder's warm-up before its sweep (mamf-finder.py accelerator_warmup_seconds) and calls per
# shape (its --num_warmup_iterations 50, --num_iterations 100 defaults); on CPU a second and a few calls:
# a CPU has no boost clock to settle, and a 2-core CI machine must finish in seconds
GPU_WARMUP_S = 30.0
CPU_WARMUP_S = 1.0
GPU_CALLS = (100, 50)
CPU_CALLS = (10, 3)
# calls queued between two reads of the clock during the warm-up
WARMUP_BATCH = 4
# a test hook: this rank perturbs one element of its checksum input (workload/tests/test_gemm.py)
FAULT_ENV = "GPUCHECK_GEMM_FAULT_RANK"


def add_arguments(p):
    p.add_argument("--dtypes", default=",".join(DTYPES), help="comma-separated: %s" % ", ".join(DTYPES))
    p.add_argument("--min-size", type=int, help="first M=N=K (default %d on GPU, %d on CPU)" % (GPU_SIZES[0], CPU_SIZES[0]))
    p.add_argument("--max-size", type=int, help="last M=N=K (default %d on GPU, %d on CPU)" % (GPU_SIZES[1], CPU_SIZES[1]))
    p.add_argument("--step", type=int, help="sweep step (default %d on GPU, %d on CPU)" % (GPU_SIZES[2], CPU_SIZES[2]))
    p.add_argument("--iters", type=int, help="timed calls per shape (default %d on GPU, %d on CPU)" % (GPU_CALLS[0], CPU_CALLS[0]))
    p.add_argument("--warmup", type=int, help="untimed calls per shape first (default %d on GPU, %d on CPU)" % (GPU_CALLS[1], CPU_CALLS[1]))
    p.add_argument("--warmup-seconds", type=float,
                   help="seconds of matmul on every rank at once before the sweep (default %g on GPU, %g on CPU)" % (GPU_WARMUP_S, CPU_WARMUP_S))
    p.add_argument("--checksum-size", type=int, help="M=N=K of the checksum (default %d on GPU, %d on CPU)" % (GPU_CHECKSUM_SIZE, CPU_CHECKSUM_SIZE))
    p.add_argument("--seed", type=int, default=0)


def parse_dtypes(text):
    wanted = [d.strip() for d in text.split(",") if d.strip()]
    bad = [d for d in wanted if d not in DTYPES]
    if bad or not wanted:
        raise WorkloadError("--dtypes must list some of %s, got %r" % (", ".join(DTYPES), text))
    return list(dict.fromkeys(wanted))


def sizes(lo, hi, step):
    if lo < 1 or step < 1 or hi < lo:
        raise WorkloadError("the sweep needs 1 <= --min-size <= --max-size and --step >= 1, got %d, %d, %d" % (lo, hi, step))
    return list(range(lo, hi + 1, step))


def main(args):
    from .. import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)
    return run(args, ranks)


def run(args, ranks):
    dtypes = parse_dtypes(args.dtypes)
    if (args.iters is not None and args.iters < 1) or (args.warmup is not None and args.warmup < 0):
        raise WorkloadError("--iters must be at least 1 and --warmup at least 0")
    if args.warmup_seconds is not None and not args.warmup_seconds >= 0:
        raise WorkloadError("--warmup-seconds must be 0 or more, got %s" % args.warmup_seconds)
    torch = require_torch()
    import torch.distributed as dist

    ctx = pg.init(ranks, "auto")
    try:
        cuda = ctx.device.type == "cuda"
        lo, hi, step = GPU_SIZES if cuda else CPU_SIZES
        shapes = sizes(args.min_size or lo, args.max_size or hi, args.step or step)
        check_n = args.checksum_size or (GPU_CHECKSUM_SIZE if cuda else CPU_CHECKSUM_SIZE)
        iters = args.iters if args.iters is not None else (GPU_CALLS if cuda else CPU_CALLS)[0]
        warmup = args.warmup if args.warmup is not None else (GPU_CALLS if cuda else CPU_CALLS)[1]
        warm_s = args.warmup_seconds if args.warmup_seconds is not None else (GPU_WARMUP_S if cuda else CPU_WARMUP_S)
        mine = {"rank": ranks.rank, "local_rank": ranks.local_rank, "host": socket.gethostname(),
                "device": _identity(torch, ctx.device), "dtypes": {}}
        flush = _Flush(torch, ctx.device)
        pg.barrier(ctx)  # every rank warms up at once: the node heats as it will under the sweep
        mine["warmup"] = warm_up(torch, ctx, dtypes, shapes, warm_s)
        for d in dtypes:
            pg.barrier(ctx)  # every rank starts the dtype together: the GPUs load the node at once
            mine["dtypes"][d] = _sweep(torch, ctx, flush, d, shapes, iters, warmup)
        pg.barrier(ctx)
        mine["checksum"] = _checksum(torch, ctx, check_n, args.seed, ranks.rank)
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank == 0:
            emit.tagged("RESULT", result(torch.__version__, ctx.backend, shapes, iters, warmup, everyone, warm_s))
        return 0
    finally:
        pg.close()


def result(torch_version, backend, shapes, iters, warmup, ranks, warmup_seconds=0.0):
    return {"world_size": len(ranks), "backend": backend, "torch": torch_version, "sizes": shapes,
            "iters": iters, "warmup": warmup, "warmup_seconds": warmup_seconds, "ranks": ranks, "checksum": compare_checksums(ranks)}


def warm_up(torch, ctx, dtypes, shapes, seconds):
    """Multiply for `seconds` before anything is timed (the MAMF finder's accelerator warm-up).

    The MAMF finder warms up on its first shape; here the largest shape of the sweep in the first
    dtype this device runs, so the GPU draws the power the sweep's large shapes will. What was done is
    returned: the seconds it lasted and the calls made, or why there was none.
    """
    if seconds <= 0:
        return {"seconds": 0.0, "calls": 0, "skipped": "--warmup-seconds 0"}
    runnable = [d for d in dtypes if unsupported(torch, ctx.device, d) is None]
    if not runnable:
        return {"seconds": 0.0, "calls": 0, "skipped": "no dtype of this test runs on this device"}
    d, n = runnable[0], max(shapes)
    mm = _matmul(torch, ctx.device, d)
    calls, t0 = 0, time.monotonic()
    try:
        with _Tf32(torch, d == "tf32"):
            a, b = _operands(torch, ctx.device, d, n)
            while time.monotonic() - t0 < seconds:
                for _ in range(WARMUP_BATCH):
                    mm(a, b)
                calls += WARMUP_BATCH
                if ctx.device.type == "cuda":
                    torch.cuda.synchronize(ctx.device)  # the clock is read after the GPU's work, not its queueing
    except RuntimeError as e:
        # the sweep will say what fails at which shape; the warm-up says it did not complete
        return {"seconds": time.monotonic() - t0, "calls": calls, "dtype": d, "n": n,
                "skipped": "%s matmul at %d³ failed during the warm-up: %s" % (d, n, _first_line(e))}
    return {"seconds": time.monotonic() - t0, "calls": calls, "dtype": d, "n": n}


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def compare_checksums(ranks):
    """Ranks whose hash differs from the majority of the ranks with the same device model.

    Different models may round differently, so only like is compared with like. A tie has no
    majority: every rank outside the first largest group is named, so a 1:1 split still fails.
    """
    groups = {}
    for r in ranks:
        c = r.get("checksum") or {}
        groups.setdefault(r["device"]["name"], []).append((r["rank"], c.get("sha256")))
    mismatched, notes = [], []
    for name, members in sorted(groups.items()):
        counts = {}
        for _, h in members:
            counts[h] = counts.get(h, 0) + 1
        best = max(counts.values())
        majority = next(h for _, h in members if counts[h] == best)
        if best * 2 <= len(members) and len(counts) > 1:
            notes.append("%s: no majority among %d ranks" % (name, len(members)))
        mismatched += [rank for rank, h in members if h != majority]
    return {"mismatched_ranks": sorted(mismatched), "notes": notes}


class _Flush:
    """Writes a buffer larger than the last-level cache so each timed call reads its inputs from memory."""

    def __init__(self, torch, device):
        n = (GPU_FLUSH_BYTES if device.type == "cuda" else CPU_FLUSH_BYTES) // 4
        self.buf = torch.empty(n, dtype=torch.float32, device=device)

    def __call__(self):
        self.buf.zero_()


def unsupported(torch, device, dtype):
    """Why this dtype cannot be measured here; None when it can."""
    if device.type != "cuda":
        return None if dtype in CPU_DTYPES else "CPU: %s not measured" % dtype
    major, minor = torch.cuda.get_device_capability(device)
    if dtype == "bf16" and major < 8:
        return "bf16 needs compute capability 8.0 or later, this GPU has %d.%d" % (major, minor)
    if dtype == "tf32" and major < 8:
        return "tf32 needs compute capability 8.0 or later, this GPU has %d.%d" % (major, minor)
    if dtype == "fp8":
        if (major, minor) < (8, 9):
            return "fp8 needs compute capability 8.9 or later, this GPU has %d.%d" % (major, minor)
        if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
            return "fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch %s" % torch.__version__
    return None


_TORCH_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "tf32": "float32", "fp32": "float32", "fp8": "float8_e4m3fn"}


def _operands(torch, device, dtype, n, generator=None):
    kind = getattr(torch, _TORCH_DTYPE[dtype])
    make = torch.float32 if dtype == "fp8" or device.type != "cuda" else kind
    a = torch.randn(n, n, dtype=make, device="cpu" if generator else device, generator=generator)
    b = torch.randn(n, n, dtype=make, device="cpu" if generator else device, generator=generator)
    a, b = a.to(device=device, dtype=kind), b.to(device=device, dtype=kind)
    if dtype == "fp8":
        b = b.t().contiguous().t()  # _scaled_mm wants its second operand column-major
    return a, b


def _matmul(torch, device, dtype):
    if dtype != "fp8":
        return torch.matmul
    one = torch.ones((), dtype=torch.float32, device=device)

    def scaled(a, b):
        try:  # torch >= 2.4: scales are required and the result is one tensor
            out = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        except TypeError:  # torch 2.1-2.3: optional scales, returns (result, amax)
            out = torch._scaled_mm(a, b, out_dtype=torch.bfloat16)
        return out[0] if isinstance(out, tuple) else out
    return scaled


class _Tf32:
    """tf32 is fp32 inputs with tensor-core rounding allowed; fp32 forbids it."""

    def __init__(self, torch, allow):
        self.torch, self.allow = torch, allow

    def __enter__(self):
        m = self.torch.backends.cuda.matmul
        self.before = m.allow_tf32
        m.allow_tf32 = self.allow

    def __exit__(self, *exc):
        self.torch.backends.cuda.matmul.allow_tf32 = self.before


def _sweep(torch, ctx, flush, dtype, shapes, iters, warmup):
    why = unsupported(torch, ctx.device, dtype)
    if why:
        return {"unmeasured": why}
    mm = _matmul(torch, ctx.device, dtype)
    per_shape = []
    with _Tf32(torch, dtype == "tf32"):
        for n in shapes:
            try:
                a, b = _operands(torch, ctx.device, dtype, n)
                seconds = _time(torch, ctx, flush, mm, a, b, iters, warmup)
            except RuntimeError as e:
                # out of memory, a shape fp8 kernels refuse, a GPU fault: this dtype is unmeasured on this
                # rank, and the rank goes on so the others do not wait for it at the next barrier
                return {"unmeasured": "%s matmul at %d³ failed: %s" % (dtype, n, _first_line(e))}
            per_shape.append({"n": n, "tflops": 2.0 * n ** 3 / seconds / 1e12})
            del a, b
    return summarise(per_shape)


def summarise(per_shape):
    best = max(per_shape, key=lambda s: s["tflops"])
    return {"best_tflops": best["tflops"], "best_n": best["n"],
            "median_tflops": statistics.median(s["tflops"] for s in per_shape), "shapes": per_shape}


def _time(torch, ctx, flush, mm, a, b, iters, warmup):
    """The median seconds of one call, each timed alone after a cache flush."""
    for _ in range(warmup):
        mm(a, b)
    times = []
    if ctx.device.type == "cuda":
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in events:
            flush()
            start.record()
            mm(a, b)
            end.record()
        torch.cuda.synchronize(ctx.device)
        times = [s.elapsed_time(e) / 1e3 for s, e in events]
    else:
        for _ in range(iters):
            flush()
            t0 = time.perf_counter()
            mm(a, b)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _checksum(torch, ctx, n, seed, rank):
    """SHA-256 of the bits of one fixed-shape product of inputs every rank draws from the same seed."""
    dtype = "bf16" if ctx.device.type == "cuda" and unsupported(torch, ctx.device, "bf16") is None else "fp32"
    gen = torch.Generator().manual_seed(seed)  # drawn on the CPU: identical on every rank and device
    a, b = _operands(torch, ctx.device, dtype, n, gen)
    if os.environ.get(FAULT_ENV) == str(rank):
        a[0, 0] += 1
    with _Tf32(torch, False):
        out = torch.matmul(a, b)
    bits = out.contiguous().view(torch.int16 if out.element_size() == 2 else torch.int32).cpu().numpy().tobytes()
    return {"n": n, "dtype": dtype, "sha256": hashlib.sha256(bits).hexdigest()}
