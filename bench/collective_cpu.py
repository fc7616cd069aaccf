#!/usr/bin/env python3
"""Does the collective command add anything to what it measures? (issue 3, CPU speed target)

Each run starts 2 gloo ranks twice on this machine: once with
`python3 -m gpucheck_workload collective --op all_reduce` at 64 MiB, once with a bare
torch.distributed loop doing the same all_reduce (same size, dtype, warm-up and iteration count,
barrier then a perf_counter around the loop). The order alternates between runs so drift on a
shared machine hits both sides alike. Reported: median busbw of each side, the ratio of the medians
(target >= 0.95) and the median of the per-run ratios, for the workload's in-place column (the same
call as the bare loop) and, for information, its out-of-place column (which adds a copy, torch's
all_reduce being in place).

    /usr/bin/python3 bench/collective_cpu.py [--runs 7] [--iters 20] [--warmup 5] [--in-process PAIRS]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"
SIZE = 64 << 20

BARE = r"""
import json, os, sys, time
import torch, torch.distributed as dist
iters, warmup, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%s" % os.environ["MASTER_PORT"],
                        rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
n = dist.get_world_size()
t = torch.ones(size // 4, dtype=torch.float32)
for _ in range(warmup):
    dist.all_reduce(t)
dist.barrier()
start = time.perf_counter()
for _ in range(iters):
    dist.all_reduce(t)
seconds = (time.perf_counter() - start) / iters
if dist.get_rank() == 0:
    print(json.dumps({"busbw": size / 1e9 / seconds * 2 * (n - 1) / n}))
dist.destroy_process_group()
"""

# --in-process: the workload's own timing code and a bare loop alternating in one process group,
# which takes process start-up and scheduling drift out of the comparison
IN_PROCESS = r"""
import json, statistics, sys, time, types
import torch, torch.distributed as dist
from gpucheck_workload import dist as pg, ranks
from gpucheck_workload.kinds.collective import Bench
from gpucheck_workload.ops import Collective
pairs, iters, warmup, size = (int(a) for a in sys.argv[1:5])
r = ranks.detect()
ctx = pg.init(r, "gloo")
coll = Collective(torch, dist, "all_reduce", "float", ctx.device, r.rank, r.world_size, size)
coll.resize(size)
bench = Bench(torch, dist, ctx, coll, types.SimpleNamespace(check=False, iters=iters, warmup=warmup))
t = torch.ones(size // 4)
for _ in range(warmup):
    dist.all_reduce(t)
w, b = [], []
for i in range(pairs):
    for side in (("w", "b") if i % 2 == 0 else ("b", "w")):
        if side == "w":
            w.append(bench.placement(True)[2])
        else:
            dist.barrier()
            start = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            b.append(size / 1e9 / ((time.perf_counter() - start) / iters))
if r.rank == 0:
    print(json.dumps({"workload_in_place": statistics.median(w), "bare": statistics.median(b),
                      "ratio": statistics.median(w) / statistics.median(b),
                      "median_pair_ratio": statistics.median(x / y for x, y in zip(w, b))}))
pg.close()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def two_ranks(argv):
    port = free_port()
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo",
                   PYTHONPATH=os.path.join(ROOT, "workload"))
        procs.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, universal_newlines=True))
    outs = [p.communicate(timeout=600)[0] for p in procs]
    if any(p.returncode for p in procs):
        sys.exit("bench: a rank failed: %s" % argv)
    return outs[0]


def workload(iters, warmup):
    out = two_ranks([PYTHON, "-m", "gpucheck_workload", "collective", "--op", "all_reduce", "--min-bytes", str(SIZE),
                     "--max-bytes", str(SIZE), "--iters", str(iters), "--warmup", str(warmup), "--dtype", "float"])
    [progress] = [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith("GPUCHECK_PROGRESS ")]
    assert progress["wrong"] == 0, out
    return progress["busbw_in_place"], progress["busbw_out_of_place"]


def bare(iters, warmup):
    return json.loads(two_ranks([PYTHON, "-c", BARE, str(iters), str(warmup), str(SIZE)]).strip())["busbw"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--in-process", type=int, metavar="PAIRS", help="alternate both inside one process group instead")
    a = p.parse_args()
    if a.in_process:
        print(two_ranks([PYTHON, "-c", IN_PROCESS, str(a.in_process), str(a.iters), str(a.warmup), str(SIZE)]).strip())
        return 0
    inplace, outplace, base = [], [], []
    for run in range(a.runs):
        order = ("workload", "bare") if run % 2 == 0 else ("bare", "workload")
        for side in order:
            if side == "workload":
                ip, oop = workload(a.iters, a.warmup)
                inplace.append(ip)
                outplace.append(oop)
            else:
                base.append(bare(a.iters, a.warmup))
        print("run %d: workload in-place %.3f GB/s, out-of-place %.3f GB/s, bare loop %.3f GB/s"
              % (run + 1, inplace[-1], outplace[-1], base[-1]), flush=True)
    med = {"workload_in_place": statistics.median(inplace), "workload_out_of_place": statistics.median(outplace),
           "bare": statistics.median(base)}
    med["ratio_in_place"] = med["workload_in_place"] / med["bare"]
    med["ratio_out_of_place"] = med["workload_out_of_place"] / med["bare"]
    # each run's two measurements are back to back: their ratio cancels slow drift in the load
    med["median_pair_ratio_in_place"] = statistics.median(w / b for w, b in zip(inplace, base))
    print(json.dumps({k: round(v, 4) for k, v in med.items()}))
    return 0 if med["ratio_in_place"] >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
