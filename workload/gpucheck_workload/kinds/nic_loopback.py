"""Per-HCA RDMA write bandwidth with GPUDirect, looped back on one HCA, as Azure's check_ib_bw_gdr runs it.

Azure/azurehpc-health-checks customTests/azure_ib_write_bw_gdr.nhc (the source of the 380 Gb/s
floor): for each compute HCA, an ib_write_bw server and a client on the same node and the same HCA,
both under `numactl -N <numa> -m <numa>` (the HCA's NUMA node), with
`-p <port> -s 8388608 -x 0 -F --report_gbits --perform_warm_up --use_cuda=<gpu> -d <hca>`, every HCA
at once (each its own port), the client's BW average the figure. This module runs the same command
lines. Two differences, both recorded in the result: the GPU is the one nvidia-smi topo -m puts
nearest the HCA where it says (Azure pairs the i-th HCA with GPU i, which this falls back to), and
the client connects to 127.0.0.1 rather than the hostname (the TCP exchange of the connection
details only; the RDMA traffic loops through the HCA either way).

Never a pass by absence: no InfiniBand port, no ib_write_bw or numactl on PATH, no nvidia-smi (so no
GPU for --use_cuda), an HCA without a NUMA node, a server that never listened and a client that
timed out are each the HCA's reason, which the binary turns into an unmeasured metric.
"""
import os
import shutil
import socket
import subprocess
import time

from .. import affinity, emit, ib, nic_topo
from . import nic

HELP = "per-HCA ib_write_bw loopback with GPUDirect (8 MiB writes, warm-up, numactl on the HCA's NUMA node), as Azure's check_ib_bw_gdr"

TOOL = "ib_write_bw"
PACKAGES = {TOOL: "perftest (Debian and RHEL: perftest; MLNX_OFED and DOCA ship it)", "numactl": "numactl"}
# Azure's ports, one per HCA (port_numbers=(18510 … 18517)), continued past eight
BASE_PORT = 18510


def add_arguments(p):
    p.add_argument("--hcas", default="", help="comma-separated HCAs, each DEVICE or DEVICE:PORT (default: every port under /sys/class/infiniband)")
    p.add_argument("--size", type=int, default=8388608, help="ib_write_bw message size in bytes (Azure: 8388608)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds the clients may run")


def main(args):
    emit.tagged("RESULT", collect(args))
    return 0


def collect(args, sysfs=ib.SYSFS):
    hcas = nic._hcas(args.hcas)
    out = {"host": socket.gethostname(), "size": args.size, "no_ib": None, "hcas": []}
    try:
        present = ib.port_dirs(sysfs)
    except OSError:
        present = []
    # no InfiniBand device at all is one reason for the node, not one per HCA the suite names
    if not hcas or not present:
        out["no_ib"] = nic.NO_IB
        return out
    missing = [t for t in (TOOL, "numactl") if shutil.which(t) is None]
    no_gpu = None if shutil.which("nvidia-smi") else "nvidia-smi not found on PATH: no NVIDIA driver, so no GPU for ib_write_bw --use_cuda (GPUDirect)"
    near = _near()
    records = []
    for i, h in enumerate(hcas):
        rec = dict(h, port_tcp=BASE_PORT + i)
        rec.update(_gpu(h["device"], i, near))
        rec["numa_node"], numa_why = numa_node(h["device"], sysfs)
        if not os.path.isdir(os.path.join(sysfs, h["device"])):
            rec["why"] = "%s is not under %s on %s: check the test's hcas against `ibstat`" % (h["device"], sysfs, out["host"])
        elif missing:
            rec["why"] = "%s not found on PATH on %s: install %s" % (
                " and ".join(missing), out["host"], " and ".join(PACKAGES[t] for t in missing))
        elif no_gpu:
            rec["why"] = no_gpu
        elif numa_why:
            rec["why"] = numa_why
        records.append(rec)
    run = [r for r in records if not r.get("why")]
    servers = {}
    for r in run:
        cmd = command(r, args.size)
        servers[r["device"], r["port"]] = (cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                                 universal_newlines=True, env=nic._env()))
    clients = {}
    for r in run:
        cmd, proc = servers[r["device"], r["port"]]
        up = nic._listening(proc, r["port_tcp"], "the %s server on %s for %s" % (TOOL, out["host"], r["device"]))
        r["server"] = {"command": " ".join(cmd)}
        if up.get("why"):
            r["why"] = up["why"]
            continue
        ccmd = command(r, args.size, peer="127.0.0.1")
        try:
            clients[r["device"], r["port"]] = (ccmd, subprocess.Popen(ccmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                                      universal_newlines=True, env=nic._env()))
        except OSError as e:
            r["why"] = "the %s client on %s for %s could not start: %s" % (TOOL, out["host"], r["device"], e)
    deadline = time.monotonic() + args.timeout
    for r in run:
        key = (r["device"], r["port"])
        if key in clients:
            ccmd, proc = clients[key]
            r["client"] = _finish(proc, ccmd, deadline, args.timeout, "the %s client on %s for %s" % (TOOL, out["host"], r["device"]))
        nic._stop(servers[key][1])
    out["hcas"] = records
    return out


def command(rec, size, peer=None):
    """Azure's command line for this HCA: numactl on its NUMA node, ib_write_bw with GPUDirect from rec's GPU."""
    node = str(rec["numa_node"])
    cmd = ["numactl", "-N", node, "-m", node, TOOL, "-p", str(rec["port_tcp"]), "-s", str(size), "-x", "0", "-F",
           "--report_gbits", "--perform_warm_up", "--use_cuda=%d" % rec["gpu"], "-d", rec["device"], "-i", str(rec["port"])]
    return cmd + ([peer] if peer else [])


def numa_node(device, sysfs=ib.SYSFS, nodes="/sys/devices/system/node"):
    """(the HCA's NUMA node, None) or (None, why): Azure's check stops when it cannot determine it."""
    path = os.path.join(sysfs, device, "device", "numa_node")
    text = ib._read(path)
    try:
        node = int(text)
    except (TypeError, ValueError):
        return None, "%s could not be read (%r): the HCA's NUMA node is unknown, so numactl cannot pin ib_write_bw to it as Azure's check does" % (path, text)
    if node >= 0:
        return node, None
    try:
        known = sorted(n for n in os.listdir(nodes) if n.startswith("node") and n[4:].isdigit())
    except OSError:
        known = []
    if known == ["node0"]:
        return 0, None  # one NUMA node: the kernel gives devices -1, and node 0 is the only place to pin
    return None, ("%s is -1 on a machine with NUMA nodes %s: the kernel does not know which one the HCA hangs off, "
                  "so numactl cannot pin ib_write_bw to it as Azure's check does" % (path, ", ".join(known) or "unknown"))


def _near():
    text = affinity._topo()
    return {n: gpu for n, (gpu, _) in nic_topo.nearest_gpus(text).items()} if text else {}


def _gpu(device, i, near):
    if device in near:
        return {"gpu": near[device], "gpu_source": "nvidia-smi topo -m: the GPU nearest %s" % device}
    return {"gpu": i, "gpu_source": "no topology from nvidia-smi: GPU %d for the HCA listed %s, as Azure's check pairs them" % (i, _ordinal(i + 1))}


def _ordinal(n):
    return "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def _finish(proc, cmd, deadline, timeout, who):
    try:
        output, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"why": "%s did not finish within %g s" % (who, timeout), "command": " ".join(cmd)}
    return {"command": " ".join(cmd), "rc": proc.returncode, "output": output}
