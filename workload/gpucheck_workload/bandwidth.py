"""Timing a memory operation and summarising it in GB/s, shared by membw and pcie.

GB/s here is decimal: 1 GB = 1e9 bytes, as the datasheets (3.35 TB/s HBM3) and bandwidthTest count.
"""
import statistics
import time

from .errors import WorkloadError

GB = 1e9


def add_arguments(p, gpu_size, cpu_size, what):
    """--size, --iters, --warmup: the flags of every copy kind."""
    p.add_argument("--size", type=int, help="bytes per %s (default %d on GPU, %d on CPU)" % (what, gpu_size, cpu_size))
    p.add_argument("--iters", type=int, default=20, help="timed calls per operation")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls per operation first")


def check_arguments(args, min_size, unit):
    if args.iters < 1 or args.warmup < 0:
        raise WorkloadError("--iters must be at least 1 and --warmup at least 0")
    if args.size is not None and args.size < min_size:
        raise WorkloadError("--size must be at least %s, got %d" % (unit, args.size))


def seconds_per_call(torch, device, fn, iters, warmup):
    """Each of `iters` calls of fn() timed on its own after `warmup` untimed ones: CUDA events on a
    GPU (the host's clock would count the launch, not the transfer), perf_counter on a CPU."""
    for _ in range(warmup):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for start, end in events:
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize(device)
        return [s.elapsed_time(e) / 1e3 for s, e in events]
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def summary(bytes_per_call, times):
    """{best_gbps, median_gbps, bytes, gbps: per call}: the best is the fastest call, the median the middle one."""
    rates = [bytes_per_call / t / GB for t in times if t > 0]
    if not rates:
        raise RuntimeError("no call took measurable time (%d calls of %d bytes)" % (len(times), bytes_per_call))
    return {"best_gbps": max(rates), "median_gbps": statistics.median(rates), "bytes": bytes_per_call, "gbps": rates}


def failure(what, err):
    """A RuntimeError (out of memory, a GPU fault) as the one-line reason an operation is unmeasured."""
    text = str(err).strip()
    return "%s failed: %s" % (what, text.splitlines()[0] if text else type(err).__name__)
