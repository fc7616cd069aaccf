"""nvlink's copy-engine phase: local rank 0 of each host copies between every ordered pair of its GPUs.

`dst.copy_(src, non_blocking=True)` between two GPUs that can reach each other as peers
(torch.cuda.can_device_access_peer) is one cudaMemcpyAsync on the source GPU's current stream
(PyTorch's copy_device_to_device), which the copy engines carry over NVLink/NVSwitch: no SM, no
NCCL. Each ordered pair is timed alone with CUDA events on that stream, then every pair at once,
each on its own streams (one on the source, one on the destination: see Copy), the copies issued in
turns so they overlap; GB/s = bytes × copies / the
events' time (1 GB = 1e9 bytes). A pair that cannot reach its peer is recorded with why, never timed
through host memory.

The other ranks of the host wait at a barrier meanwhile, so nothing else loads the links. On a CPU
there is no copy engine: the phase is skipped with that reason. Written for GPUs and not yet run on
one: the tests drive it on CPU (the skip) and with a stand-in torch (the order of copies and events).
"""
import os
import shutil
import socket
import statistics
import subprocess

GB = 1e9
# nvbandwidth's peer testcases: copy-engine read and write, one way and both ways, one ordered pair at
# a time (NVIDIA/nvbandwidth README: "Traffic is not sent simultaneously"); the read one is Azure's
# check_gpu_bw P2P test (azurehpc-health-checks customTests/azure_gpu_bandwidth.nhc)
NVBANDWIDTH_TESTS = ("device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce",
                     "device_to_device_bidirectional_memcpy_read_ce", "device_to_device_bidirectional_memcpy_write_ce")
NVBANDWIDTH_TIMEOUT_S = 600


def cpu_reason():
    return "device: cpu — no GPU, so no copy engine: the copy-engine phase did not run"


def ordinals(torch, host_ranks):
    """{rank: this process's CUDA ordinal of that rank's GPU} by UUID; (None, why) when one is not visible here."""
    seen = {}
    for i in range(torch.cuda.device_count()):
        uuid = getattr(torch.cuda.get_device_properties(i), "uuid", None)
        if uuid is not None:
            seen["GPU-%s" % uuid if not str(uuid).startswith("GPU-") else str(uuid)] = i
    out = {}
    for r in host_ranks:
        uuid = r["device"].get("uuid")
        if uuid is None or uuid not in seen:
            why = ("torch gives no GPU UUID to match rank %d's GPU by" % r["rank"] if uuid is None else
                   "rank %d's GPU %s is not visible to local rank 0 (it sees %d GPUs): copies between GPUs need "
                   "every GPU of the host in one process" % (r["rank"], uuid, torch.cuda.device_count()))
            return None, why
        out[r["rank"]] = seen[uuid]
    return out, None


def rate(size, times):
    """The nvlink kind's figures: all bytes over all time, the best and median copy, each copy's GB/s."""
    calls = [size / t / GB for t in times]
    return {"gbps": size * len(times) / sum(times) / GB, "best_gbps": max(calls), "median_gbps": statistics.median(calls),
            "bytes": size, "calls": calls}


class Copy:
    """One ordered pair's copies on its own stream of the source GPU, timed with events on that stream.

    PyTorch's peer copy runs on the source's current stream and, before and after it, synchronizes with
    the destination's current stream (copy_device_to_device in ATen's Copy.cu). Left at the destination's
    default stream, every pair into one GPU would wait on that one stream, so the "all at once" copies
    into a GPU ran one after another; each pair therefore also has its own stream on the destination,
    made current there while it copies."""

    def __init__(self, torch, src_rank, dst_rank, i, j, source, size):
        self.torch, self.src, self.dst, self.i, self.j = torch, src_rank, dst_rank, i, j
        self.source = source
        self.target = torch.empty(size, dtype=torch.uint8, device=torch.device("cuda", j))
        self.stream = torch.cuda.Stream(device=torch.device("cuda", i))
        self.dst_stream = torch.cuda.Stream(device=torch.device("cuda", j))
        self.marks = []

    def issue(self, n=1):
        with self.torch.cuda.device(self.i), self.torch.cuda.stream(self.dst_stream), self.torch.cuda.stream(self.stream):
            for _ in range(n):
                self.target.copy_(self.source, non_blocking=True)

    def mark(self):
        e = self.torch.cuda.Event(enable_timing=True)
        with self.torch.cuda.device(self.i):
            e.record(self.stream)
        self.marks.append(e)

    def times(self):
        return [a.elapsed_time(b) / 1e3 for a, b in zip(self.marks, self.marks[1:])]


def _sync(torch, devices):
    for d in sorted(devices):
        torch.cuda.synchronize(d)


def measure(torch, pairs, size, iters, warmup):
    """pairs: [(src rank, dst rank, src ordinal, dst ordinal)] → {"pairs": [...], "all": [...]}, each entry
    {src, dst, gbps, best_gbps, median_gbps, bytes, calls} or {src, dst, why}."""
    devices = {i for _, _, i, _ in pairs} | {j for _, _, _, j in pairs}
    sources = {i: torch.ones(size, dtype=torch.uint8, device=torch.device("cuda", i)) for i in sorted(devices)}
    copies, refused = [], []
    for s, d, i, j in pairs:
        if torch.cuda.can_device_access_peer(i, j):
            copies.append(Copy(torch, s, d, i, j, sources[i], size))
        else:
            refused.append({"src": s, "dst": d, "why": "GPU %d cannot reach GPU %d as a peer (torch.cuda.can_device_access_peer is False): "
                                                      "a copy would be staged through host memory" % (i, j)})
    alone = []
    for c in copies:  # one pair at a time: the rest of the node idle
        c.issue(warmup)
        _sync(torch, devices)
        c.mark()
        for _ in range(iters):
            c.issue()
            c.mark()
        _sync(torch, devices)
        alone.append(dict(src=c.src, dst=c.dst, **rate(size, c.times())))
        c.marks = []
    for c in copies:
        c.issue(warmup)
    _sync(torch, devices)
    for c in copies:
        c.mark()
    for _ in range(iters):  # in turns, so every pair's copies are queued together and overlap
        for c in copies:
            c.issue()
            c.mark()
    _sync(torch, devices)
    together = [dict(src=c.src, dst=c.dst, **rate(size, c.times())) for c in copies]
    order = lambda e: (e["src"], e["dst"])
    return {"pairs": sorted(alone + refused, key=order), "all": sorted(together + [dict(r) for r in refused], key=order)}


def run_nvbandwidth(host, timeout=NVBANDWIDTH_TIMEOUT_S):
    """{command, rc, output} of nvbandwidth's four peer testcases, or {why}: read by lib/kinds/nvlink/nvbandwidth.ts."""
    exe = shutil.which("nvbandwidth")
    if exe is None:
        return {"why": "nvbandwidth not found on PATH on %s: build it from github.com/NVIDIA/nvbandwidth (the method of "
                       "Azure's check_gpu_bw floor) and put it on PATH" % host}
    cmd = [exe] + [a for t in NVBANDWIDTH_TESTS for a in ("-t", t)]
    try:
        # PCI_BUS_ID: nvbandwidth's device numbers are then nvidia-smi's indices
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout,
                              env=dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID"))
    except subprocess.TimeoutExpired:
        return {"why": "%s did not finish within %d s on %s" % (" ".join(cmd), timeout, host), "command": " ".join(cmd)}
    except OSError as e:
        return {"why": "%s could not start on %s: %s" % (" ".join(cmd), host, e), "command": " ".join(cmd)}
    return {"command": " ".join(cmd), "rc": done.returncode, "output": done.stdout[-200000:]}


def leader_phase(torch, ctx, host_ranks, size, iters, warmup):
    """Run by local rank 0: {"host", "leader", "nvbandwidth", "pairs", "all"} or {"host", "leader", "why"}."""
    base = {"host": socket.gethostname(), "leader": host_ranks[0]["rank"]}
    if ctx.device.type != "cuda":
        return dict(base, why=cpu_reason())
    # nvbandwidth first, with the node otherwise idle, as Azure runs it; the workload's own copies follow
    base["nvbandwidth"] = run_nvbandwidth(base["host"])
    where, why = ordinals(torch, host_ranks)
    if why:
        return dict(base, why=why)
    pairs = [(a["rank"], b["rank"], where[a["rank"]], where[b["rank"]]) for a in host_ranks for b in host_ranks if a is not b]
    try:
        return dict(base, **measure(torch, pairs, size, iters, warmup))
    except RuntimeError as e:  # out of memory, a GPU fault: the reason, never a figure
        text = str(e).strip()
        return dict(base, why="the copy-engine phase failed: %s" % (text.splitlines()[0] if text else type(e).__name__))
