"""The PCIe links a pcie test reads: each GPU's from `nvidia-smi -q` (GPU Link Info: PCIe Generation
and Link Width, Current and Max; Replays Since Reset) and each InfiniBand HCA's from sysfs
(/sys/class/infiniband/<dev>/device → the PCI function's current_link_speed/width, max_link_*).

Every reading is a value or the reason it is missing: a link that could not be read is never a
link at its maximum.
"""
import os
import re
import shutil
import subprocess

from . import nvsmi

SYSFS_IB = "/sys/class/infiniband"
NVIDIA_SMI_TIMEOUT_S = 30
NO_GPU = "no NVIDIA GPU (nvidia-smi not found)"


def no_gpu_reason(torch):
    """Why a rank has no GPU link to read."""
    if shutil.which("nvidia-smi") is None:
        return NO_GPU
    return "no NVIDIA GPU in this rank: torch %s sees no CUDA device (torch.cuda.is_available() is False)" % torch.__version__


def gpu_link_text(uuid):
    """`nvidia-smi -q -i <uuid>`'s text, or (None, why)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None, NO_GPU
    try:
        done = subprocess.run([exe, "-q", "-i", uuid], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "nvidia-smi -q -i %s did not answer within %d s" % (uuid, NVIDIA_SMI_TIMEOUT_S)
    except OSError as e:
        return None, "nvidia-smi -q -i %s could not start: %s" % (uuid, e)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()
        return None, "nvidia-smi -q -i %s exited %d: %s" % (uuid, done.returncode, tail[-1] if tail else "no output")
    return done.stdout, None


def gpu_link(text):
    """`nvidia-smi -q` of one GPU → {gen, gen_max, width, width_max, replays}; a field nvidia-smi did
    not print as a number is None (the binary's parser names it)."""
    _, _, gpus = nvsmi.parse_query(text)
    if not gpus:
        return {"unread": "nvidia-smi -q printed no GPU section"}
    g = gpus[0]
    return {"gen": g["pcie_gen"], "gen_max": g["pcie_gen_max"], "width": g["pcie_width"],
            "width_max": g["pcie_width_max"], "replays": g["pcie_replays"]}


def read_gpu_link(uuid):
    if not uuid:
        return {"unread": "torch gives no GPU UUID, so nvidia-smi cannot be asked about this GPU"}
    text, why = gpu_link_text(uuid)
    return {"unread": why} if text is None else gpu_link(text)


_GTS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*GT/s")


def gts(text):
    """sysfs link speed ("32.0 GT/s PCIe") → 32.0; None for "Unknown" and the like."""
    m = _GTS.match(text or "")
    return float(m.group(1)) if m else None


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip(), None
    except OSError as e:
        return None, "%s: %s" % (path, e.strerror or e)


def nic_links(root=SYSFS_IB):
    """Every InfiniBand HCA's PCIe link: [{device, pci_bus_id, speed_gts, speed_max_gts, width,
    width_max, upstream}] with `unread` where sysfs did not say; `upstream` is the port above it
    (upstream_port). All are reported: the harness judges only the compute HCAs its suite names. NICs keep their trained link when idle (only
    GPUs drop the generation to save power), so reading them outside the copies is valid."""
    if not os.path.isdir(root):
        return []
    nics = []
    for dev in sorted(os.listdir(root)):
        pci = os.path.join(root, dev, "device")
        nic = {"device": dev, "pci_bus_id": os.path.basename(os.path.realpath(pci))}
        problems = []
        for key, name, parse in (("speed_gts", "current_link_speed", gts), ("speed_max_gts", "max_link_speed", gts),
                                 ("width", "current_link_width", _int), ("width_max", "max_link_width", _int)):
            text, why = _read(os.path.join(pci, name))
            nic[key] = parse(text) if text is not None else None
            if why:
                problems.append(why)
            elif nic[key] is None:
                problems.append("%s says %r" % (os.path.join(pci, name), text))
        if problems:
            nic["unread"] = "; ".join(problems)
        nic["upstream"] = upstream_port(os.path.realpath(pci))
        nics.append(nic)
    return nics


_BDF = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")


def upstream_port(function_dir):
    """The link capability of the port above a PCI function (its parent in sysfs: a switch's
    downstream port or a root port): {pci_bus_id, speed_max_gts, width_max}, or {note} where there
    is none to read. A Gen5 HCA in a Gen4 slot trains to Gen4 and is healthy: it is judged against
    the lower of the two capabilities, never its own alone."""
    parent = os.path.dirname(function_dir)
    bdf = os.path.basename(parent)
    if not _BDF.match(bdf):
        return {"pci_bus_id": None, "note": "no PCIe port above %s (its parent %s is the host bridge)" % (os.path.basename(function_dir), bdf)}
    port = {"pci_bus_id": bdf}
    problems = []
    for key, name, parse in (("speed_max_gts", "max_link_speed", gts), ("width_max", "max_link_width", _int)):
        text, why = _read(os.path.join(parent, name))
        port[key] = parse(text) if text is not None else None
        if why:
            problems.append(why)
        elif port[key] is None:
            problems.append("%s says %r" % (os.path.join(parent, name), text))
    if problems:
        port["unread"] = "; ".join(problems)
    return port


def _int(text):
    return int(text) if text and text.strip().isdigit() else None
