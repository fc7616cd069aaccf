"""The GPU nearest each NIC, from `nvidia-smi topo -m` (pure parts; affinity._topo runs the command).

Newer drivers name the NIC columns NIC0..NICn and map them in a "NIC Legend" (NIC0: mlx5_0); older
ones use the device name as the column. Cells say how a GPU reaches the NIC: PIX (one PCIe switch)
is nearest, then PXB, PHB, NODE, SYS. The nearest GPU is the one whose cell ranks best; ties go to
the lowest GPU index, so the choice is the same on every node of a uniform fleet.
"""
import re

# nearest first, as nvidia-smi's legend orders them
DISTANCE = ("PIX", "PXB", "PHB", "NODE", "SYS")
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")


def _legend(lines):
    names = {}
    for line in lines:
        m = re.match(r"\s*(NIC\d+):\s*(\S+)\s*$", line)
        if m:
            names[m.group(1)] = m.group(2)
    return names


def nearest_gpus(text):
    """{NIC device name: (GPU index, distance)} for every NIC column; {} when there is no matrix."""
    lines = [_ESCAPES.sub("", l) for l in text.splitlines()]
    header = next((l for l in lines if l.startswith("\t") and "GPU0" in l), None)
    if header is None:
        return {}
    names = [c.strip() for c in header.split("\t")]
    legend = _legend(lines)
    nics = {i: legend.get(n, n) for i, n in enumerate(names) if n.startswith("NIC") or n.startswith("mlx")}
    best = {}
    for line in lines:
        cells = line.split("\t")
        label = cells[0].strip()
        if not (label.startswith("GPU") and label[3:].isdigit()):
            continue
        gpu = int(label[3:])
        for col, nic in nics.items():
            cell = cells[col].strip() if col < len(cells) else ""
            if cell not in DISTANCE:
                continue
            rank = DISTANCE.index(cell)
            if nic not in best or rank < DISTANCE.index(best[nic][1]):
                best[nic] = (gpu, cell)
    return best
