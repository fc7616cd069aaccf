"""The node inventory: what hardware and software a test ran on, from whatever this node has.

Every probe is optional and bounded by a timeout: a CPU node, a container without nvidia-smi or
a user who may not read the kernel log still gets an inventory, with the reason for each gap.
"""
import os
import re
import shutil
import socket

from .. import cpu, emit, ib, imex, nvsmi, probe, xid

HELP = "GPUs, drivers, links, ports, Xid events of this node"


def add_arguments(_p):
    """The inventory takes no arguments: it reports whatever the node has."""


def main(_args):
    emit.tagged("RESULT", collect())
    return 0


def _gpus(unmeasured):
    """(driver, cuda, gpus) from nvidia-smi -q and nvlink -s; what could not be read goes to `unmeasured`."""
    try:
        text = probe.run(["nvidia-smi", "-q"], timeout=30)
        driver, cuda, gpus = nvsmi.parse_query(text)
    except probe.ProbeFailed as e:
        unmeasured["gpus"] = str(e)
        return None, None, []
    if not gpus:
        first = next((l.strip() for l in text.splitlines() if l.strip()), "")
        if "Attached GPUs" not in text:  # not the report we know: say what it printed instead
            unmeasured["gpus"] = "nvidia-smi -q printed no GPU report%s" % (": " + first[:200] if first else "")
        return driver, cuda, []
    try:
        links = nvsmi.parse_nvlink_status(probe.run(["nvidia-smi", "nvlink", "-s"], timeout=30))
    except probe.ProbeFailed as e:
        # never "no links": a failing nvlink query on an NVLink board would then read as all-clear
        unmeasured["nvlinks"] = str(e)
        links = None
    for g in gpus:
        g["nvlinks"] = None if links is None else links.get(g["index"], [])
    return driver, cuda, gpus


def nccl_version(v):
    """torch 2.x gives (2, 18, 5); torch 1.x the NCCL_VERSION_CODE int: 21805 (since 2.9), 2708 before."""
    if isinstance(v, tuple):
        return ".".join(map(str, v))
    if v >= 10000:
        return "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)
    return "%d.%d.%d" % (v // 1000, v // 100 % 10, v % 100)


def _torch():
    """Versions torch was built with: importing it is the only reliable way (wheel, conda, NGC)."""
    try:
        import torch
    except ImportError:
        return {"torch": None, "torch_cuda": None, "nccl": None}
    nccl = None
    if torch.version.cuda:
        try:
            nccl = nccl_version(torch.cuda.nccl.version())
        except (RuntimeError, AttributeError, TypeError):
            nccl = None
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda, "nccl": nccl}


def _ib_ports(unmeasured):
    """Ports from sysfs, else ibstat. An empty sysfs class is a measured "no RDMA device"; no way to
    look at all is unmeasured, so `ib_ports_active: {min: 8}` cannot pass by not looking."""
    if os.path.isdir(ib.SYSFS):
        ports = ib.read_sysfs()
        if ports:
            return ports, "sysfs"
    if not shutil.which("ibstat"):
        if not os.path.isdir(ib.SYSFS):
            unmeasured["ib_ports"] = ("%s does not exist (no RDMA driver loaded, or hidden in this container) "
                                      "and ibstat is not installed" % ib.SYSFS)
            return None, None
        return [], "sysfs"
    try:
        text = probe.run(["ibstat"], timeout=15)
    except probe.ProbeFailed as e:
        unmeasured["ib_ports"] = str(e)
        return None, None
    ports = ib.parse_ibstat(text)
    if not ports and text.strip() and "CA '" not in text:
        unmeasured["ib_ports"] = "ibstat printed no CA: %s" % text.strip().splitlines()[0][:200]
        return None, None
    return ports, "ibstat"


_VERSION = re.compile(r"(\d+(?:\.\d+)+(?:-\d+)?)")


def tool_version(argv, unmeasured, key):
    """The first dotted version a tool prints for --version (Fabric Manager, DCGM); None with why."""
    try:
        out = probe.run(argv, timeout=15)
    except probe.ProbeFailed as e:
        unmeasured[key] = str(e)
        return None
    m = _VERSION.search(out)
    if not m:
        unmeasured[key] = "%s printed no version: %s" % (" ".join(argv), out.strip()[:120])
        return None
    return m.group(1)


def collect():
    unmeasured = {}
    driver, cuda, gpus = _gpus(unmeasured)
    log, source = xid.kernel_log()
    if log is None:
        unmeasured["xid_events"] = "the kernel log could not be read (%s)%s" % (source, xid.PRIVILEGE_HINT)
    ib_ports, ib_source = _ib_ports(unmeasured)
    inv = {
        "hostname": os.environ.get("GPUCHECK_NODE") or socket.gethostname(),
        "cpu": {"model": cpu.model(), "cores": cpu.cores()},
        "memory_gb": cpu.memory_gb(),
        "gpus": gpus,
        "driver": driver,
        "cuda": cuda,
        "ib_ports": ib_ports,
        "ib_source": ib_source,
        "ofed": ib.ofed_version(),
        "kernel": os.uname().release,
        "fabric_manager": tool_version(["nv-fabricmanager", "--version"], unmeasured, "fabric_manager"),
        "dcgm": tool_version(["dcgmi", "--version"], unmeasured, "dcgm"),
        "xid_events": xid.parse(log) if log is not None else None,
        "xid_source": source if log is not None else None,
        # the IMEX domain (multi-node NVLink racks); judged only with inventory.nvlinkDomain: rack
        "imex": imex.collect(unmeasured),
        # why each part of the inventory is missing: the judge turns these into unmeasured metrics
        "unmeasured": unmeasured,
    }
    if "gpus" in unmeasured:
        inv["no_gpu_reason"] = unmeasured["gpus"]
    elif not gpus:
        inv["no_gpu_reason"] = "nvidia-smi lists no GPU"
    inv.update(_torch())
    return inv
