"""nic without perftest: NCCL point-to-point between the two nodes, pinned to one HCA at a time.

For each HCA both ranks start a child process (`python3 -m gpucheck_workload.nic_p2p`) with
NCCL_IB_HCA==<device>:<port> (the leading `=` makes NCCL match the name exactly, so mlx5_1 does not
also pick mlx5_10) and NCCL_NET=IB (IB or nothing: NCCL fails rather than fall back to sockets). The
children form a two-rank NCCL group of their own; rank 1's child sends, rank 0's child receives and
times it with CUDA events, from the GPU nearest the HCA on each side (GPUDirect RDMA where NCCL can).

Why a child per HCA and not one process group after another in this process: NCCL reads
NCCL_IB_HCA once per process. ncclIbInit (src/transport/net_ib.cc) builds its list of IB devices
only while `ncclNIbDevs == -1`, under a lock, and every later communicator of the process reuses
that list; the network plugin is loaded once too (ncclNetPluginLoad behind a pthread_once in
init.cc since 2.19). Changing os.environ between two groups would leave the second on the first
HCA while the result named the second.

Each child captures NCCL's INFO lines (nccl_debug.Capture) and prints them as GPUCHECK_NCCL_INFO;
the harness (lib/kinds/nic/parse-p2p.ts) confirms from them that the bytes crossed NET/IB on that HCA
and on no other, so a figure is never credited to an HCA it did not cross.

Not run for real anywhere yet: this machine has no GPU and no InfiniBand. The tests drive the
orchestration with a fake child and read real captured NCCL INFO logs.
"""
import argparse
import os
import socket
import subprocess
import sys

from . import bandwidth, child, emit, nccl_debug
from .errors import WorkloadError, require_torch

SOURCE = "nccl-p2p"
# 8 bytes: the smallest message every dtype moves whole; its round trip is NCCL's latency floor
LAT_BYTES = 8
LAT_ITERS = 200
# the child's command before its arguments: a test replaces it with a stand-in
CHILD = [sys.executable, "-m", "gpucheck_workload.nic_p2p"]


def capability(torch, dist):
    """This node's answer to "can NCCL point-to-point run here": {"ok": True} or {"ok": False, "why": ...}."""
    if not (dist.is_available() and dist.is_nccl_available()):
        return {"ok": False, "why": "torch %s has no NCCL (torch.distributed.is_nccl_available() is False)" % torch.__version__}
    if not torch.cuda.is_available():
        return {"ok": False, "why": "torch %s sees no GPU (torch.cuda.is_available() is False)" % torch.__version__}
    return {"ok": True}


def missing_tools(sides, tools):
    """"ib_write_bw, ib_read_lat not found on node1 (install perftest)", or None when every side has every tool."""
    gaps = []
    for side in sides:
        lacking = [tools[k] for k in sorted(tools) if not side["tools"].get(k)]
        if lacking:
            gaps.append("%s not found on %s" % (", ".join(lacking), side["host"]))
    return "; ".join(gaps) + " (install perftest)" if gaps else None


def unusable(sides):
    """Why NCCL cannot stand in on these two nodes, or None when it can."""
    whys = ["%s: %s" % (s["host"], s["nccl"]["why"]) for s in sides if not s["nccl"].get("ok")]
    return "; ".join(whys) or None


def hca_env(hca, base=None):
    """The environment of one HCA's child: NCCL pinned to that port alone, over IB or not at all."""
    # the GPU index from `nvidia-smi topo -m` is nvidia-smi's, which orders by PCI bus
    return child.env_with_package(os.environ if base is None else base, NCCL_IB_HCA="=%s:%s" % (hca["device"], hca["port"]),
                                  NCCL_NET="IB", CUDA_DEVICE_ORDER="PCI_BUS_ID")


def pinned(env):
    """The variables that pin the child, as the result records them."""
    return {k: env[k] for k in ("NCCL_IB_HCA", "NCCL_NET")}


def child_command(rank, addr, port, gpu, args):
    cmd = CHILD + ["--rank", str(rank), "--addr", addr, "--port", str(port), "--size", str(args.p2p_size),
                   "--iters", str(args.p2p_iters), "--timeout", str(args.timeout)]
    return cmd + ([] if gpu is None else ["--gpu", str(gpu)])


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def pair(rank, addr, hca, rec, server, client, args, share):
    """One HCA measured by the two children; the same record on both ranks:
    {source, env, server: {command, rc, output} | {why}, client: …} or {source, env, why}."""
    env = hca_env(hca)
    port = share({"port": free_port()} if rank == 0 else {})[0]["port"]
    dev = hca["device"]
    why = None
    if rank == 1 and dev not in {h["device"] for h in client["hcas"]}:
        why = "the client node %s has no %s (its HCAs: %s)" % (client["host"], dev, ", ".join(sorted({h["device"] for h in client["hcas"]})) or "none")
    whys = [w for w in share(why) if w]
    base = {"source": SOURCE, "env": pinned(env)}
    if whys:
        return dict(base, why="; ".join(whys))  # neither child starts: one alone would wait for its peer until the timeout
    gpu = rec["gpu_server"] if rank == 0 else rec["gpu_client"]
    who = "the NCCL send/recv child on %s for %s" % ((server if rank == 0 else client)["host"], dev)
    mine = run_child(child_command(rank, addr, port, gpu, args), env, args.timeout, who)
    got = share(mine)
    return dict(base, server=got[0], client=got[1])


def run_child(cmd, env, timeout, who):
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"why": "%s did not finish within %g s" % (who, timeout), "command": " ".join(cmd), "output": out}
    except OSError as e:
        return {"why": "%s could not start: %s" % (who, e), "command": " ".join(cmd)}
    return {"command": " ".join(cmd), "rc": done.returncode, "output": done.stdout}


def cuda_ordinal(gpu, env):
    """nvidia-smi's index → the CUDA ordinal this process sees (CUDA_DEVICE_ORDER=PCI_BUS_ID)."""
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if gpu is None:
        return 0
    if visible is None or visible.strip() == "":
        return gpu
    listed = [v.strip() for v in visible.split(",")]
    if str(gpu) in listed:
        return listed.index(str(gpu))
    raise WorkloadError("GPU %d, the nearest to this HCA, is not visible to this process (CUDA_VISIBLE_DEVICES=%s)" % (gpu, visible))


# --- the child ---------------------------------------------------------------------------------

def _arguments(argv):
    p = argparse.ArgumentParser(prog="gpucheck_workload.nic_p2p")
    p.add_argument("--rank", type=int, required=True, choices=(0, 1))
    p.add_argument("--addr", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--gpu", type=int, help="nvidia-smi index of the GPU nearest the HCA (absent: GPU 0)")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--iters", type=int, required=True)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--timeout", type=float, default=60.0)
    return p.parse_args(argv)


def run_child_main(argv=None):
    """Rank 0 receives and times; rank 1 sends. Prints NCCL's INFO lines, then GPUCHECK_P2P on rank 0."""
    from datetime import timedelta
    args = _arguments(argv)
    torch = require_torch()
    import torch.distributed as dist

    device = torch.device("cuda", cuda_ordinal(args.gpu, os.environ))
    torch.cuda.set_device(device)
    capture = nccl_debug.Capture(rank=args.rank).start()  # NCCL reads its debug variables at its first call
    host = "[%s]" % args.addr if ":" in args.addr else args.addr
    dist.init_process_group("nccl", init_method="tcp://%s:%d" % (host, args.port), rank=args.rank, world_size=2,
                            timeout=timedelta(seconds=args.timeout))
    try:
        result = _measure(torch, dist, device, args)
        dist.barrier(device_ids=[device.index])
    finally:
        dist.destroy_process_group()
        capture.finish()
    if args.rank == 0:
        emit.tagged("P2P", dict(result, gpu=args.gpu, bytes=args.size, iters=args.iters, warmup=args.warmup))
    return 0


def _measure(torch, dist, device, args):
    buf = torch.ones(args.size, dtype=torch.uint8, device=device)
    if args.rank == 1:
        for _ in range(args.warmup + args.iters):
            dist.send(buf, 0)
    else:
        times = bandwidth.seconds_per_call(torch, device, lambda: dist.recv(buf, 1), args.iters, args.warmup)
    ping = torch.ones(LAT_BYTES, dtype=torch.uint8, device=device)
    peer = 1 - args.rank
    # a round trip per iteration, rank 0 first: the latency is half of it, timed on rank 0 with CUDA
    # events around the whole loop (each call's own launch cost belongs to NCCL's latency)
    for i in range(LAT_ITERS + 1):
        if i == 1:
            torch.cuda.synchronize(device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        if args.rank == 0:
            dist.send(ping, peer)
            dist.recv(ping, peer)
        else:
            dist.recv(ping, peer)
            dist.send(ping, peer)
    end.record()
    torch.cuda.synchronize(device)
    if args.rank == 1:
        return {}
    rate = bandwidth.summary(args.size, times)
    total = sum(times)
    return {"gbit_s": args.size * 8 * len(times) / total / 1e9, "best_gbit_s": rate["best_gbps"] * 8, "seconds": total,
            "lat_us": start.elapsed_time(end) * 1e3 / LAT_ITERS / 2, "lat_bytes": LAT_BYTES, "lat_iters": LAT_ITERS}


def main():
    from .errors import report
    try:
        return run_child_main()
    except WorkloadError as e:
        return report(e)
    except RuntimeError as e:  # NCCL's own failure (no such HCA, no route): its first line says which
        text = str(e).strip()
        sys.stderr.write("gpucheck-workload: error: NCCL send/recv failed: %s\n" % (text.splitlines()[0] if text else type(e).__name__))
        return 1


if __name__ == "__main__":
    sys.exit(main())
