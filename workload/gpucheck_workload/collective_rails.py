"""One collective per rail: the same sweep once per HCA, each run through that HCA alone.

Every rank runs, for each rail in turn, a child `python3 -m gpucheck_workload collective …` (the
test's own sweep, without --rails) with NCCL_IB_HCA==<rail> (the leading `=` matches the name
exactly, so mlx5_1 does not also take mlx5_10) and NCCL_NET=IB unless the test names another IB
network (an external plugin such as IBext_v8). All GPUs of every node take part, as the rail tests
this replaces did: NCCL moves each GPU's data over NVLink to the GPU nearest the HCA (PXN), so every
inter-node hop of the ring crosses that one NIC, its cable and its switch port.

Why a child per rail: NCCL reads NCCL_IB_HCA once per process (ncclIbInit in
src/transport/net_ib.cc builds its device list while `ncclNIbDevs == -1` and every later
communicator reuses it), so a second process group in the same process would stay on the first rail.

The ranks agree before each rail through a TCPStore on the test's rendezvous port: a rail any node
lacks runs nowhere (one rank alone would wait for its peers until the timeout), and every rank's log
says why. Each rail's children rendezvous on the next port up (MASTER_PORT + 1 + the rail's index).
The output of each rail sits between `GPUCHECK_RAIL {"rail": …}` and `GPUCHECK_RAIL {"end": true, …}`
lines on every rank; lib/parsers/nccl-rails.ts cuts the rank logs there, reads each rail's table and
checks from NCCL's INFO lines that its bytes crossed NET/IB on that HCA and no other.

Not run for real anywhere yet (no GPU or InfiniBand here): on CPU every rail is refused with the
reason (no InfiniBand device), which the tests check, and the children's orchestration is tested
with gloo ranks.
"""
import json
import os
import socket
import subprocess
import sys
from datetime import timedelta

from . import child, dist as pg, emit, ib
from .errors import require_torch

AUTO = "auto"


def add_arguments(p):
    p.add_argument("--rails", help='comma-separated HCAs (DEVICE or DEVICE:PORT) to run the sweep through one at a time, or "auto": every InfiniBand port of rank 0\'s node')


def auto_rails(ports):
    """Every InfiniBand port (not Ethernet/RoCE) of this node, by device, DEVICE:PORT where a device has several.

    Every state counts: a port that is down is a rail that fails, not one left out."""
    ib_ports = [p for p in ports if p.get("link_layer") == "InfiniBand"]
    count = {}
    for p in ib_ports:
        count[p["device"]] = count.get(p["device"], 0) + 1
    return [p["device"] if count[p["device"]] == 1 else "%s:%s" % (p["device"], p["port"]) for p in ib_ports]


def missing_here(rail, ports, host):
    """Why this node cannot run the rail (it has no such HCA or port), or None."""
    dev, _, port = rail.partition(":")
    if any(p["device"] == dev and (not port or str(p["port"]) == port) for p in ports):
        return None
    if not ports:
        return "%s has no InfiniBand device (%s is empty)" % (host, ib.SYSFS)
    have = ", ".join(sorted({"%s:%s" % (p["device"], p["port"]) for p in ports}))
    return "%s has no %s (its HCA ports: %s)" % (host, rail, have)


def child_argv(args):
    """The test's own sweep, without --rails: what each rail's child runs."""
    argv = ["collective", "--op", args.op, "--min-bytes", str(args.min_bytes), "--max-bytes", str(args.max_bytes),
            "--factor", str(int(args.factor)), "--iters", str(args.iters), "--warmup", str(args.warmup),
            "--dtype", args.dtype, "--backend", args.backend, "--impl", args.impl]
    return [sys.executable, "-m", "gpucheck_workload"] + argv + (["--check-iters", str(args.check_iters)] if args.check else ["--no-check"])


def child_env(rail, index, ranks, base=None):
    env = child.env_with_package(
        os.environ if base is None else base, RANK=str(ranks.rank), WORLD_SIZE=str(ranks.world_size), LOCAL_RANK=str(ranks.local_rank),
        LOCAL_WORLD_SIZE=str(ranks.local_world_size), MASTER_ADDR=ranks.master_addr, MASTER_PORT=str(ranks.master_port + 1 + index),
        GPUCHECK_NODE=ranks.node, NCCL_IB_HCA="=" + rail)
    # IB or nothing; a suite that names an IB plugin (NCCL_NET: IBext_v8) keeps it
    env.setdefault("NCCL_NET", "IB")
    return env


class Agreement:
    """The ranks' shared answers over a TCPStore: rank 0's rail list, each rail's go or why not."""

    def __init__(self, store, ranks):
        self.store, self.ranks = store, ranks

    def rails(self, mine):
        if self.ranks.rank == 0:
            self.store.set("rails", json.dumps(mine))
        return json.loads(self.store.get("rails"))

    def why_not(self, index, mine):
        """Every rank's reason for rail `index` (each said once), "" from the ranks that can run it."""
        self.store.set("rail%d/%d" % (index, self.ranks.rank), json.dumps(mine or ""))
        whys = [json.loads(self.store.get("rail%d/%d" % (index, r))) for r in range(self.ranks.world_size)]
        return "; ".join(dict.fromkeys(w for w in whys if w))

    def done(self):
        # rank 0 holds the store: it leaves last, so no rank reads from a store that is gone
        self.store.set("done/%d" % self.ranks.rank, "1")
        if self.ranks.rank == 0:
            self.store.wait(["done/%d" % r for r in range(self.ranks.world_size)])


def run(args, ranks):
    require_torch()
    import torch.distributed as dist

    timeout = timedelta(seconds=float(os.environ.get("GPUCHECK_DIST_TIMEOUT_S", pg.DEFAULT_TIMEOUT_S)))
    store = dist.TCPStore(ranks.master_addr, ranks.master_port, ranks.world_size, ranks.rank == 0, timeout)
    return rails_in_turn(args, ranks, Agreement(store, ranks))


def rails_in_turn(args, ranks, agree, spawn=None):
    host = socket.gethostname()
    ports = ib.read_sysfs()
    written = [r for r in args.rails.split(",") if r] if args.rails != AUTO else None
    rails = agree.rails(written if written is not None else auto_rails(ports))
    first_bad = 0
    if not rails:
        # only "auto" can come back empty (the harness refuses an empty list), and only on rank 0's word
        found = "%s is empty" % ib.SYSFS if not ports else "every port there is Ethernet (RoCE)"
        emit.tagged("RAIL", {"done": True, "rails": [], "why": "rails: auto found no InfiniBand port on rank 0's node (%s)" % found})
    for i, rail in enumerate(rails):
        emit.tagged("RAIL", {"rail": rail, "index": i, "host": host, "rank": ranks.rank, "nccl_ib_hca": "=" + rail})
        why = agree.why_not(i, missing_here(rail, ports, host))
        if why:
            emit.tagged("RAIL", {"rail": rail, "index": i, "end": True, "why": why})
            continue
        rc = (spawn or stream)(child_argv(args), child_env(rail, i, ranks))
        emit.tagged("RAIL", {"rail": rail, "index": i, "end": True, "rc": rc})
        first_bad = first_bad or rc
    if rails:
        emit.tagged("RAIL", {"done": True, "rails": rails})
    agree.done()
    return first_bad


def stream(argv, env):
    """Run one rail's child, its stdout line by line into ours as it comes (a killed run keeps what it said)."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    try:
        for line in proc.stdout:
            emit.line(line.rstrip("\n"))
    finally:
        proc.stdout.close()
        rc = proc.wait()
    return rc
