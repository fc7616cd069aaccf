"""Error counters read before and after each test: InfiniBand ports (sysfs) and NVLink links.

The judge counts what grew during the test, so each reader returns the raw counters, or None and
the reason when they could not be read (a counter never read is not a counter that stayed at 0).
"""
import os
import re

from . import ib, probe

# The port error counters of the IB port counters group (IBTA PortCounters attribute, as the
# kernel exposes them under ports/<p>/counters/; Linux Documentation/ABI/stable/sysfs-class-infiniband).
# link_downed is judged on its own: a port that lost its link during a test is a flapping cable or
# transceiver; the others are signal and buffer errors.
IB_ERROR_COUNTERS = ("symbol_error", "link_error_recovery", "port_rcv_errors", "port_xmit_discards",
                     "local_link_integrity_errors", "excessive_buffer_overrun_errors", "port_rcv_remote_physical_errors")
IB_COUNTERS = ("link_downed",) + IB_ERROR_COUNTERS


def _int_file(path):
    """A counter file holds one decimal integer; None when absent or anything else."""
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def ib_counters(root=None):
    """({"mlx5_0:1": {counter: value}}, None), or (None, why) when there is no sysfs tree to read."""
    root = root or ib.SYSFS
    try:
        dirs = ib.port_dirs(root)
    except OSError as e:
        return None, "%s: %s (no RDMA driver loaded, or hidden in this container)" % (root, e.strerror)
    out, unreadable = {}, []
    for dev, port, port_dir in dirs:
        base = os.path.join(port_dir, "counters")
        values = {c: _int_file(os.path.join(base, c)) for c in IB_COUNTERS}
        if values["link_downed"] is None and all(v is None for v in values.values()):
            unreadable.append("%s port %s" % (dev, port))
            continue
        out["%s:%s" % (dev, port)] = {c: v for c, v in values.items() if v is not None}
    if unreadable and not out:
        return None, "no port counters under %s (%s)" % (root, ", ".join(unreadable))
    return out, None


_GPU = re.compile(r"^GPU (\d+):")
_LINK = re.compile(r"^\s+Link (\d+): ([A-Za-z][A-Za-z0-9 ]*?): (\d+)\s*$")


def _counter_key(label):
    """`Replay Errors` → `replay`, `CRC Errors` → `crc`, `CRC Flit Errors` → `crc_flit`."""
    return re.sub(r"_errors?$", "", label.strip().lower().replace(" ", "_"))


def parse_nvlink_errors(text):
    """`nvidia-smi nvlink -e` → {gpu index: {link: {counter: value}}}; ValueError naming the first
    line when the text holds no GPU section (not the report we know)."""
    out, current = {}, None
    for raw in text.splitlines():
        if raw.startswith("#"):
            continue
        m = _GPU.match(raw)
        if m:
            current = out.setdefault(int(m.group(1)), {})
            continue
        m = _LINK.match(raw)
        if m and current is not None:
            current.setdefault(int(m.group(1)), {})[_counter_key(m.group(2))] = int(m.group(3))
    if not out:
        first = next((l.strip() for l in text.splitlines() if l.strip() and not l.startswith("#")), "")
        raise ValueError("nvidia-smi nvlink -e printed no GPU%s" % (": " + first[:200] if first else ""))
    return out


def nvlink_errors_smi():
    """({gpu: {link: {counter: value}}}, None) from `nvidia-smi nvlink -e`, or (None, why)."""
    try:
        return parse_nvlink_errors(probe.run(["nvidia-smi", "nvlink", "-e"], timeout=20)), None
    except probe.ProbeFailed as e:
        return None, str(e)
    except ValueError as e:
        return None, str(e)


def nvlink_errors(nvml=None):
    """From NVML when it loaded (no fork), else nvidia-smi; the reasons of both when neither answers."""
    if nvml is not None:
        counts, why = nvml.nvlink_errors()
        if counts is not None:
            return counts, None
        smi, smi_why = nvlink_errors_smi()
        return (smi, None) if smi is not None else (None, "%s; %s" % (why, smi_why))
    return nvlink_errors_smi()


def read_all(nvml=None, ib_root=None):
    """The counters of this node, and the reason for each group that could not be read."""
    ib_values, ib_why = ib_counters(ib_root)
    nvlink, nvlink_why = nvlink_errors(nvml)
    why = {}
    if ib_why:
        why["ib_counters"] = ib_why
    if nvlink_why:
        why["nvlink_errors"] = nvlink_why
    return {"ib": ib_values, "nvlink": nvlink}, why
