"""Host↔device bandwidth per GPU over PCIe, with pinned host memory: host-to-device, device-to-host
and both at once (two streams), first one GPU at a time (the local ranks of a node take turns, so a
GPU has its PCIe switch and the CPU's root port to itself), then all GPUs at once (a shared switch
or root port shows). Per GPU and operation the best and median GB/s (1 GB = 1e9 bytes).

Also each GPU's PCIe link as nvidia-smi reports it (generation and width, current and max), read
while the GPU's own copies run: an idle GPU drops to a lower generation to save power, so a reading
taken idle would call a healthy link degraded. Replays Since Reset is read before and after, for the
delta. Local rank 0 of each node reads its InfiniBand HCAs' links from sysfs.

The pinned buffer is allocated after affinity.bind() has put the rank on the CPUs of its GPU's NUMA
node (where the launcher asked for the split): Linux's default policy places pages on the node of
the CPU that first touches them, so the host side of each copy is local to the GPU.

On a CPU there is no PCIe link to cross: the same torch copies run between two host buffers
(pageable: pinning needs CUDA), labelled as such, and the link metrics are unmeasured.
"""
import socket
import threading
import time

from .. import bandwidth, dist as pg, emit, pcie_link
from ..device_id import identity
from ..errors import require_torch

HELP = "host<->GPU bandwidth per GPU with pinned memory (H2D, D2H, both at once; one GPU at a time and all at once), PCIe link width/generation and replays"

OPS = ("h2d", "d2h", "bidir")
PHASES = ("solo", "all")
# 256 MiB per buffer: at Gen5 x16's ~55 GB/s a call lasts ~5 ms, long beside the copy's start-up cost
GPU_SIZE = 256 * 1024 ** 2
CPU_SIZE = 64 * 1024 ** 2
# how long the link reader may keep a GPU's copies going (nvidia-smi -q answers within seconds)
LOAD_LIMIT_S = pcie_link.NVIDIA_SMI_TIMEOUT_S + 5


def add_arguments(p):
    bandwidth.add_arguments(p, GPU_SIZE, CPU_SIZE, "copy")


def main(args):
    from .. import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)
    return run(args, ranks)


def run(args, ranks):
    bandwidth.check_arguments(args, 1, "1 byte")
    torch = require_torch()
    import torch.distributed as dist

    ctx = pg.init(ranks, "auto")
    try:
        cuda = ctx.device.type == "cuda"
        size = args.size or (GPU_SIZE if cuda else CPU_SIZE)
        device = identity(torch, ctx.device)
        mine = {"rank": ranks.rank, "local_rank": ranks.local_rank, "host": socket.gethostname(), "device": device,
                "size": size, "solo": {}, "all": {}}
        uuid = device.get("uuid") if cuda else None
        before = pcie_link.read_gpu_link(uuid) if cuda else None
        copies = Copies(torch, ctx.device, size)
        link = None
        for turn in range(ranks.local_world_size):
            pg.barrier(ctx)
            if turn == ranks.local_rank:
                mine["solo"] = {op: measure(torch, ctx.device, copies, op, args.iters, args.warmup) for op in OPS}
                if cuda:
                    link = under_load(copies, lambda: pcie_link.read_gpu_link(uuid))
        for op in OPS:
            pg.barrier(ctx)  # every GPU of the node copies at once
            mine["all"][op] = measure(torch, ctx.device, copies, op, args.iters, args.warmup)
        after = pcie_link.read_gpu_link(uuid) if cuda else None
        mine["link"] = _link(torch, cuda, before, link, after)
        mine["nics"] = pcie_link.nic_links() if ranks.local_rank == 0 else None
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": ranks.world_size, "backend": ctx.backend, "torch": torch.__version__,
                                   "size": size, "iters": args.iters, "warmup": args.warmup, "ranks": everyone})
        return 0
    finally:
        pg.close()


def _link(torch, cuda, before, during, after):
    """The GPU link as read under load, with the replay counter's before and after."""
    if not cuda:
        return {"unread": pcie_link.no_gpu_reason(torch)}
    link = dict(during or {"unread": "the link was not read under load"})
    link.pop("replays", None)
    link["replays_before"] = (before or {}).get("replays")
    link["replays_after"] = (after or {}).get("replays")
    for name, reading in (("before", before), ("after", after)):
        if reading and reading.get("replays") is None:
            link["replays_unread"] = "%s the copies: %s" % (name, reading.get("unread") or "nvidia-smi -q printed no number for Replays Since Reset")
    return link


class Copies:
    """The buffers and the three operations. On a GPU the host side is pinned, so the copy engine
    reads and writes it directly (pageable memory would be staged through a driver buffer)."""

    def __init__(self, torch, device, size):
        self.torch, self.device = torch, device
        self.cuda = device.type == "cuda"
        self.error = None
        try:
            make_host = (lambda: torch.empty(size, dtype=torch.uint8, pin_memory=True)) if self.cuda else (lambda: torch.ones(size, dtype=torch.uint8))
            self.host, self.host2 = make_host(), make_host()
            self.dev = torch.ones(size, dtype=torch.uint8, device=device)
            self.dev2 = torch.ones(size, dtype=torch.uint8, device=device)
            if self.cuda:
                self.up, self.down = torch.cuda.Stream(device), torch.cuda.Stream(device)
        except RuntimeError as e:
            self.error = bandwidth.failure("allocating %d-byte buffers" % size, e)
        self.size = size

    def h2d(self):
        self.dev.copy_(self.host, non_blocking=True)

    def d2h(self):
        self.host.copy_(self.dev, non_blocking=True)

    def bidir(self):
        if not self.cuda:
            # no copy engines on a CPU: the two directions run one after the other
            self.dev.copy_(self.host)
            self.host2.copy_(self.dev2)
            return
        torch = self.torch
        here = torch.cuda.current_stream(self.device)
        self.up.wait_stream(here)
        self.down.wait_stream(here)
        with torch.cuda.stream(self.up):
            self.dev.copy_(self.host, non_blocking=True)
        with torch.cuda.stream(self.down):
            self.host2.copy_(self.dev2, non_blocking=True)
        here.wait_stream(self.up)
        here.wait_stream(self.down)


def measure(torch, device, copies, op, iters, warmup):
    if copies.error:
        return {"unmeasured": copies.error}
    try:
        times = bandwidth.seconds_per_call(torch, device, getattr(copies, op), iters, warmup)
    except RuntimeError as e:
        return {"unmeasured": bandwidth.failure(op, e)}
    return bandwidth.summary((2 if op == "bidir" else 1) * copies.size, times)


def under_load(copies, read):
    """read() in a thread while this GPU copies host-to-device, so the link is at its working speed."""
    if copies.error:
        return read()
    got = {}
    thread = threading.Thread(target=lambda: got.setdefault("link", read()), daemon=True)
    thread.start()
    torch = copies.torch
    deadline = time.monotonic() + LOAD_LIMIT_S
    while thread.is_alive() and time.monotonic() < deadline:
        copies.h2d()
        torch.cuda.synchronize(copies.device)
    thread.join(timeout=max(0.0, deadline - time.monotonic()))
    return got.get("link") or {"unread": "nvidia-smi did not answer within %d s" % LOAD_LIMIT_S}
