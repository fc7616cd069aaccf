"""Parsers for nvidia-smi text: `-q`, `--query-gpu ... --format=csv`, `nvlink -s` (pure).

Labels moved between drivers (the ` : ` column is at 43 up to 565 and at 56 in 590; `Clocks
Throttle Reasons` became `Clocks Event Reasons`; `Ecc Mode` became `ECC Mode`; SRAM counters were
split): so `-q` is read as an indentation tree split on the first ` : `, and fields are looked
up by label, trying each known spelling. Values that are not numbers (`N/A`, `Requested
functionality has been deprecated`) become None.
"""
import re

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def number(text):
    """The first number in a value such as `631.95 W`, `16x`, `0`; None for N/A and the like."""
    if text is None:
        return None
    m = _NUMBER.search(str(text))
    if not m or str(text).strip().startswith(("N/A", "[N/A]", "Requested", "[Requested")):
        return None
    value = float(m.group(0))
    return int(value) if value.is_integer() and "." not in m.group(0) else value


def parse_tree(text):
    """`nvidia-smi -q` → {"attrs": {top-level label: value}, "gpus": [(bus id, tree)]}.

    A label without a value opens a section holding the deeper-indented lines. A deeper line
    under a label *with* a value (HW Thermal Slowdown under HW Slowdown) belongs to the section
    above both, so it stays reachable by its own label.
    """
    attrs, gpus, stack = {}, [], None
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith(("=", "#")):
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        body = raw.strip()
        if indent == 0 and body.startswith("GPU ") and " : " not in raw:
            tree = {}
            gpus.append((body[4:].strip(), tree))
            stack = [(0, tree)]
            continue
        key, sep, value = raw.partition(" : ")
        key = key.strip()
        if stack is None or indent == 0:
            if sep:
                attrs[key] = value.strip()
            continue
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if sep:
            parent[key] = value.strip()
        else:
            parent[key] = {}
            stack.append((indent, parent[key]))
    return {"attrs": attrs, "gpus": gpus}


def lookup(tree, *paths):
    """The value at the first path that exists; a path is a tuple of labels."""
    for path in paths:
        node = tree
        for label in path:
            node = node.get(label) if isinstance(node, dict) else None
            if node is None:
                break
        if node is not None:
            return node
    return None


def _sum_counters(section, word):
    """Sum of the counters whose label holds `word` (Correctable / Uncorrectable), None if none is a number."""
    if not isinstance(section, dict):
        return None
    values = [number(v) for k, v in section.items() if word in k.split() and isinstance(v, str)]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _sum_labels(section, prefix):
    """Sum of the counters whose label starts with `prefix` (SRAM Uncorrectable, or its Parity and
    SEC-DED halves on 535+), None when none is a number (ECC off prints N/A)."""
    if not isinstance(section, dict):
        return None
    values = [number(v) for k, v in section.items() if k.startswith(prefix) and isinstance(v, str)]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _yes(value):
    return None if value is None else value.strip() == "Yes"


def _active_reasons(tree):
    section = lookup(tree, ("Clocks Event Reasons",), ("Clocks Throttle Reasons",)) or {}
    return sorted(_reason_key(k) for k, v in section.items() if v == "Active")


def _reason_key(label):
    """`HW Power Brake Slowdown` → `hw_power_brake_slowdown`; `Idle` → `gpu_idle` (query-gpu's names)."""
    key = label.lower().replace(" ", "_")
    return "gpu_idle" if key == "idle" else key


def gpu_record(index, bus_id, tree):
    retired = [number(lookup(tree, ("Retired Pages", label))) for label in ("Single Bit ECC", "Double Bit ECC")]
    retired = [v for v in retired if v is not None]
    pending = lookup(tree, ("Remapped Rows", "Pending"))
    failure = lookup(tree, ("Remapped Rows", "Remapping Failure Occurred"))
    return {
        "index": index,
        "name": lookup(tree, ("Product Name",)),
        "uuid": lookup(tree, ("GPU UUID",)),
        "serial": lookup(tree, ("Serial Number",)),
        "pci_bus_id": lookup(tree, ("PCI", "Bus Id")) or bus_id,
        "pcie_gen": number(lookup(tree, ("PCI", "GPU Link Info", "PCIe Generation", "Current"))),
        "pcie_gen_max": number(lookup(tree, ("PCI", "GPU Link Info", "PCIe Generation", "Max"))),
        "pcie_width": number(lookup(tree, ("PCI", "GPU Link Info", "Link Width", "Current"))),
        "pcie_width_max": number(lookup(tree, ("PCI", "GPU Link Info", "Link Width", "Max"))),
        "pcie_replays": number(lookup(tree, ("PCI", "Replays Since Reset"))),
        "memory_total_mib": number(lookup(tree, ("FB Memory Usage", "Total"))),
        "ecc_mode": lookup(tree, ("ECC Mode", "Current"), ("Ecc Mode", "Current")),
        "ecc_uncorrected_volatile": _sum_counters(lookup(tree, ("ECC Errors", "Volatile")), "Uncorrectable"),
        "ecc_uncorrected_aggregate": _sum_counters(lookup(tree, ("ECC Errors", "Aggregate")), "Uncorrectable"),
        "ecc_corrected_volatile": _sum_counters(lookup(tree, ("ECC Errors", "Volatile")), "Correctable"),
        "ecc_corrected_aggregate": _sum_counters(lookup(tree, ("ECC Errors", "Aggregate")), "Correctable"),
        "retired_pages": sum(retired) if retired else None,
        "remapped_rows_pending": None if pending is None else pending == "Yes",
        "remapped_rows_failure": None if failure is None else failure == "Yes",
        "remapped_rows_correctable": number(lookup(tree, ("Remapped Rows", "Correctable Error"))),
        "remapped_rows_uncorrectable": number(lookup(tree, ("Remapped Rows", "Uncorrectable Error"))),
        # The DRAM/SRAM split matters for triage: a DRAM uncorrectable is remapped on A100+, an SRAM
        # one means the GPU is replaced once its threshold is exceeded (NVIDIA's GPU memory error
        # management guide). Aggregate counters are lifetime: a remapped DBE stays there for good.
        "ecc_dram_uncorrected_volatile": number(lookup(tree, ("ECC Errors", "Volatile", "DRAM Uncorrectable"))),
        "ecc_sram_uncorrected_volatile": _sum_labels(lookup(tree, ("ECC Errors", "Volatile")), "SRAM Uncorrectable"),
        "ecc_dram_uncorrected_aggregate": number(lookup(tree, ("ECC Errors", "Aggregate", "DRAM Uncorrectable"))),
        "ecc_sram_uncorrected_aggregate": _sum_labels(lookup(tree, ("ECC Errors", "Aggregate")), "SRAM Uncorrectable"),
        "sram_threshold_exceeded": _yes(lookup(tree, ("ECC Errors", "Aggregate", "SRAM Threshold Exceeded"),
                                               ("ECC Errors", "SRAM Threshold Exceeded"))),
        "clock_event_reasons": _active_reasons(tree),
        "vbios": lookup(tree, ("VBIOS Version",)),
        "persistence_mode": lookup(tree, ("Persistence Mode",)),
        "mig_mode": lookup(tree, ("MIG Mode", "Current")),
        "power_limit_w": number(lookup(tree, ("GPU Power Readings", "Current Power Limit"),
                                       ("Power Readings", "Enforced Power Limit"), ("Power Readings", "Power Limit"))),
        "app_clock_graphics_mhz": number(lookup(tree, ("Applications Clocks", "Graphics"))),
        "app_clock_memory_mhz": number(lookup(tree, ("Applications Clocks", "Memory"))),
        "max_clock_sm_mhz": number(lookup(tree, ("Max Clocks", "SM"))),
        "max_clock_memory_mhz": number(lookup(tree, ("Max Clocks", "Memory"))),
        # present from driver 535 on NVSwitch systems (HGX/DGX): Completed/Success once the fabric
        # manager has set up this GPU's NVLink fabric; N/A on boards without NVSwitch
        "fabric_state": lookup(tree, ("Fabric", "State")),
        "fabric_status": lookup(tree, ("Fabric", "Status")),
        # the NVLink domain the GPU joined (GB200 NVL72: every GPU of a rack shares one CliqueId and
        # ClusterUUID; 0 and all-zero on single-node NVSwitch boards) and the fabric's own health
        # (driver 550+: Health/Bandwidth; 560+ adds Health/Summary)
        "fabric_clique_id": lookup(tree, ("Fabric", "CliqueId")),
        "fabric_cluster_uuid": lookup(tree, ("Fabric", "ClusterUUID")),
        "fabric_health_summary": lookup(tree, ("Fabric", "Health", "Summary")),
        "fabric_health_bandwidth": lookup(tree, ("Fabric", "Health", "Bandwidth")),
    }


def parse_query(text):
    """`nvidia-smi -q`'s text → (driver, cuda, [gpu records]) in the order printed."""
    parsed = parse_tree(text)
    gpus = [gpu_record(i, bus, tree) for i, (bus, tree) in enumerate(parsed["gpus"])]
    return parsed["attrs"].get("Driver Version"), parsed["attrs"].get("CUDA Version"), gpus


def parse_csv(text):
    """`--query-gpu=... --format=csv` (with header) → [{field: raw cell}]; units dropped from keys."""
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    if not lines:
        return []
    keys = [re.sub(r"\s*\[.*\]$", "", h.strip()) for h in lines[0].split(",")]
    return [dict(zip(keys, (c.strip() for c in line.split(",")))) for line in lines[1:]]


def parse_nvlink_status(text):
    """`nvidia-smi nvlink -s` → {gpu index: [{link, state, speed_gbps}]}; speed in GB/s as printed."""
    links, current = {}, None
    for raw in text.splitlines():
        m = re.match(r"GPU (\d+):", raw)
        if m:
            current = links.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"\s+Link (\d+): (.*)$", raw)
        if m and current is not None:
            speed = number(m.group(2)) if "GB/s" in m.group(2) else None
            current.append({"link": int(m.group(1)), "state": "active" if speed else "inactive", "speed_gbps": speed})
    return links


# NVML clocks event (formerly throttle) reason bits, named as --query-gpu names them.
REASON_BITS = [
    (0x1, "gpu_idle"), (0x2, "applications_clocks_setting"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
    (0x10, "sync_boost"), (0x20, "sw_thermal_slowdown"), (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"), (0x100, "display_clock_setting"),
]


def decode_reasons(mask):
    """A reasons bitmask (int, or a `0x...` cell) → the names of the bits set; None when the cell is
    not a mask (`[N/A]`, an error text): unread reasons are not "no reason"."""
    if isinstance(mask, str):
        try:
            mask = int(mask.strip(), 16)
        except ValueError:
            return None
    if mask is None:
        return None
    return [name for bit, name in REASON_BITS if mask & bit]


def throttling(mask):
    """The reasons that hold clocks down under load (None when unread); gpu_idle is only the GPU
    having nothing to do."""
    reasons = decode_reasons(mask)
    return None if reasons is None else [r for r in reasons if r != "gpu_idle"]
