"""The node inventory: what hardware and software a test ran on, from whatever this node has.

Every probe is optional and bounded by a timeout: a CPU node, a container without nvidia-smi or
a user who may not read the kernel log still gets an inventory, with the reason for each gap.
"""
import os
import shutil
import socket

from . import cpu, ib, nvsmi, probe, xid


def _gpus():
    """(driver, cuda, gpus, no_gpu_reason) from nvidia-smi -q and nvlink -s."""
    try:
        driver, cuda, gpus = nvsmi.parse_query(probe.run(["nvidia-smi", "-q"], timeout=30))
    except probe.ProbeFailed as e:
        return None, None, [], str(e)
    if not gpus:
        return driver, cuda, [], "nvidia-smi lists no GPU"
    try:
        links = nvsmi.parse_nvlink_status(probe.run(["nvidia-smi", "nvlink", "-s"], timeout=30))
    except probe.ProbeFailed:
        links = {}  # PCIe-only boards print nothing useful here; the GPUs are still there
    for g in gpus:
        g["nvlinks"] = links.get(g["index"], [])
    return driver, cuda, gpus, None


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


def _ib_ports():
    ports = ib.read_sysfs()
    if ports or not shutil.which("ibstat"):
        return ports
    try:
        return ib.parse_ibstat(probe.run(["ibstat"], timeout=15))
    except probe.ProbeFailed:
        return []


def collect():
    driver, cuda, gpus, no_gpu = _gpus()
    log, source = xid.kernel_log()
    inv = {
        "hostname": os.environ.get("GPUCHECK_NODE") or socket.gethostname(),
        "cpu": {"model": cpu.model(), "cores": cpu.cores()},
        "memory_gb": cpu.memory_gb(),
        "gpus": gpus,
        "driver": driver,
        "cuda": cuda,
        "ib_ports": _ib_ports(),
        "xid_events": xid.parse(log) if log is not None else [],
        "xid_source": source if log is not None else None,
        "no_gpu_reason": no_gpu,
    }
    if log is None:
        inv["xid_unreadable"] = source
    inv.update(_torch())
    return inv
