"""GPU↔GPU bandwidth inside a node, as a matrix of every ordered pair of ranks on one host.

Three phases, the first two timed on the receiving rank over `iters` messages after `warmup` untimed ones:
- pairs: one ordered pair (i→j) at a time, the rest of the node idle: rank i sends a `size`-byte
  buffer to rank j with torch.distributed send/recv. On GPUs that is NCCL's point-to-point path
  between the two GPUs (NVLink/NVSwitch on an HGX node); on CPUs it is gloo between two processes
  over TCP loopback, which measures the host, not a link, and the result says so.
- all: every rank at once, for each shift k = 1 … n-1 rank i sends to i+k (mod n) and receives from
  i-k, so the links share the switch, and contention shows.

- copy engines (nvlink_ce.py): local rank 0 of each host copies between every ordered pair of its
  GPUs with dst.copy_(src, non_blocking=True), alone and then all pairs at once, while the host's
  other ranks wait; skipped with the reason on CPUs.

GB/s is decimal (1 GB = 1e9 bytes): bytes × iters / the timed calls' total time; each call's own
rate is kept too. A link's figure belongs to the receiving rank, which timed it.
"""
import socket

from .. import bandwidth, dist as pg, emit, nvlink_ce
from ..device_id import identity
from ..errors import WorkloadError, require_torch

HELP = "GPU↔GPU bandwidth matrix inside a node: send/recv between every ordered pair, then all pairs at once"

# 256 MiB: at NVLink4's ~370 GB/s effective a message lasts ~0.7 ms, long beside NCCL's launch cost;
# 8 GPUs are 56 pairs × 23 messages, about a second in all
GPU_SIZE = 256 * 1024 ** 2
# 4 MiB keeps gloo over loopback to a fraction of a second per pair on a 2-core machine
CPU_SIZE = 4 * 1024 ** 2


def add_arguments(p):
    bandwidth.add_arguments(p, GPU_SIZE, CPU_SIZE, "message")


def main(args):
    from .. import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)
    return run(args, ranks)


def run(args, ranks):
    bandwidth.check_arguments(args, 1, "1 byte")
    if ranks.world_size < 2:
        raise WorkloadError("nvlink needs at least 2 ranks (a link has two ends), got %d" % ranks.world_size)
    torch = require_torch()
    import torch.distributed as dist

    ctx = pg.init(ranks, "auto")
    try:
        size = args.size or (GPU_SIZE if ctx.device.type == "cuda" else CPU_SIZE)
        me = {"rank": ranks.rank, "local_rank": ranks.local_rank, "host": socket.gethostname(), "device": identity(torch, ctx.device)}
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, me)
        peers = node_peers([r["host"] for r in everyone])
        send = torch.ones(size, dtype=torch.uint8, device=ctx.device)
        recv = torch.empty_like(send)
        timed = {"pairs": [], "all": []}
        for src, dst in ordered_pairs(peers):
            pg.barrier(ctx)  # one pair at a time: nothing else on the node moves while it is timed
            if ranks.rank == src:
                for _ in range(args.warmup + args.iters):
                    dist.send(send, dst)
            elif ranks.rank == dst:
                times = bandwidth.seconds_per_call(torch, ctx.device, lambda: dist.recv(recv, src), args.iters, args.warmup)
                timed["pairs"].append(dict(src=src, dst=dst, **rate(size, times)))
        mine = peers[ranks.rank]
        for k in range(1, max(len(p) for p in peers)):
            pg.barrier(ctx)  # every rank starts the shift together: all links of the node load at once
            if k >= len(mine):
                continue
            i = mine.index(ranks.rank)
            to, frm = mine[(i + k) % len(mine)], mine[(i - k) % len(mine)]
            times = bandwidth.seconds_per_call(torch, ctx.device, lambda: exchange(dist, send, recv, to, frm), args.iters, args.warmup)
            timed["all"].append(dict(shift=k, src=frm, dst=ranks.rank, **rate(size, times)))
        # the copy engines: local rank 0 copies between every pair of its host's GPUs, the others idle
        pg.barrier(ctx)
        if ranks.rank == mine[0]:
            timed["ce"] = nvlink_ce.leader_phase(torch, ctx, [everyone[r] for r in mine], size, args.iters, args.warmup)
        pg.barrier(ctx)
        gathered = [None] * ranks.world_size
        dist.all_gather_object(gathered, timed)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": ranks.world_size, "backend": ctx.backend, "torch": torch.__version__,
                                   "size": size, "iters": args.iters, "warmup": args.warmup, "ranks": everyone,
                                   "pairs": sorted((p for t in gathered for p in t["pairs"]), key=lambda p: (p["src"], p["dst"])),
                                   "all": sorted((p for t in gathered for p in t["all"]), key=lambda p: (p["shift"], p["dst"])),
                                   "ce": [t["ce"] for t in gathered if "ce" in t]})
        return 0
    finally:
        pg.close()


def node_peers(hosts):
    """For each rank, the ranks on its host in rank order: a link joins two GPUs of one node, so ranks
    on different hosts (a test with perNode false) are never paired."""
    by_host = {}
    for rank, host in enumerate(hosts):
        by_host.setdefault(host, []).append(rank)
    return [by_host[host] for host in hosts]


def ordered_pairs(peers):
    """Every ordered pair (src, dst) of distinct ranks on one host, in the same order on every rank."""
    return [(src, dst) for src in range(len(peers)) for dst in peers[src] if dst != src]


def exchange(dist, send, recv, to, frm):
    """One message to `to` and one from `frm` at once, posted together (NCCL groups them) so a ring of
    ranks each sending before receiving cannot deadlock."""
    ops = [dist.P2POp(dist.isend, send, to), dist.P2POp(dist.irecv, recv, frm)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()


def rate(size, times):
    """{gbps: bytes × calls / total time, best_gbps, median_gbps, bytes, calls: each call's GB/s}."""
    s = bandwidth.summary(size, times)
    return {"gbps": size * len(times) / sum(times) / bandwidth.GB, "best_gbps": s["best_gbps"], "median_gbps": s["median_gbps"],
            "bytes": size, "calls": s["gbps"]}
