"""InfiniBand / RoCE ports: /sys/class/infiniband first, `ibstat` text as a fallback (pure parts).

One record per port: device, port, state (ACTIVE, DOWN, INIT, ARMED), phys_state (LinkUp,
Disabled, Polling), rate_gbps (Gb/s as the port reports it: 400 for NDR), link_layer
(InfiniBand or Ethernet, so a RoCE NIC that is down is not read as a broken IB port).
"""
import os
import re

SYSFS = "/sys/class/infiniband"


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _after_colon(value):
    """sysfs prints `4: ACTIVE`, `5: LinkUp`: keep the name."""
    return value.split(":", 1)[1].strip() if value and ":" in value else value


def _rate(value):
    m = re.match(r"\s*(\d+(?:\.\d+)?)", value or "")
    if not m:
        return None
    rate = float(m.group(1))
    return int(rate) if rate.is_integer() else rate


def port_dirs(root=SYSFS):
    """[(device, port, its sysfs directory)] in device and port order; OSError when root cannot be listed."""
    found = []
    for dev in sorted(os.listdir(root)):
        port_dir = os.path.join(root, dev, "ports")
        try:
            names = sorted(os.listdir(port_dir), key=lambda p: int(p) if p.isdigit() else 0)
        except OSError:
            continue
        found.extend((dev, port, os.path.join(port_dir, port)) for port in names)
    return found


def read_sysfs(root=SYSFS):
    ports = []
    try:
        dirs = port_dirs(root)
    except OSError:
        return ports
    for dev, port, base in dirs:
        state = _after_colon(_read(os.path.join(base, "state")))
        ports.append({
            "device": dev,
            "port": int(port) if port.isdigit() else port,
            "state": state.upper() if state else None,
            "phys_state": _after_colon(_read(os.path.join(base, "phys_state"))),
            "rate_gbps": _rate(_read(os.path.join(base, "rate"))),
            "link_layer": _read(os.path.join(base, "link_layer")),
            "firmware": _read(os.path.join(root, dev, "fw_ver")),
            # the board's PSID (MT_0000000838): which firmware image the HCA takes
            "board_id": _read(os.path.join(root, dev, "board_id")),
            # the PCIe link the NIC trained to: a Gen5 x16 NIC at Gen4 halves its 400G port
            "pcie_speed": _read(os.path.join(root, dev, "device", "current_link_speed")),
            "pcie_width": _read(os.path.join(root, dev, "device", "current_link_width")),
        })
    return ports


def parse_ibstat(text):
    """`ibstat` output → the same records as read_sysfs."""
    ports, device, firmware, current = [], None, None, None
    for raw in text.splitlines():
        line = raw.strip()
        m = re.match(r"CA '([^']+)'", line)
        if m:
            device, firmware, current = m.group(1), None, None
            continue
        m = re.match(r"Port (\d+):$", line)
        if m and device:
            current = {"device": device, "port": int(m.group(1)), "state": None, "phys_state": None,
                       "rate_gbps": None, "link_layer": None, "firmware": firmware}
            ports.append(current)
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "Firmware version":
            firmware = value
        elif current is not None and key == "State":
            current["state"] = value.upper()
        elif current is not None and key == "Physical state":
            current["phys_state"] = value
        elif current is not None and key == "Rate":
            current["rate_gbps"] = _rate(value)
        elif current is not None and key == "Link layer":
            current["link_layer"] = value
    return ports


def ofed_version(path="/sys/module/mlx5_core/version"):
    """MLNX_OFED/DOCA's mlx5_core module version (e.g. 24.10-1.1.4); None with the inbox driver, which has none."""
    return _read(path)
