"""The IMEX domain as `nvidia-imex-ctl -N` prints it: each node's status and the connectivity table.

Cross-node GPU memory on a multi-node NVLink rack (GB200 NVL72) goes through the IMEX daemon on every
node; NCCL's MNNVL fails without it ("Check the IMEX configuration (nvidia-imex-ctl -N)"). A healthy
domain lists every node READY, every cell of the table C (Connected) and `Domain State: UP` (NVIDIA
IMEX guide, "The nvidia-imex-ctl Tool"; the capture in workload/tests/fixtures/imex-ctl-N-*.txt).
"""
import re

from . import probe

_NODE = re.compile(r"^Node #(\d+)\s+-\s+(\S+)\s+-\s+(\S+)\s+-\s+Version:\s*(\S+)\s*$")
_TABLE_HEAD = re.compile(r"^\s*Nodes From\\To\s+([\d\s]+)$")
_ROW = re.compile(r"^\s*(\d+)\s+(.+?)\s*$")
_DOMAIN = re.compile(r"^Domain State:\s*(\S+)\s*$")


def parse(text):
    """`nvidia-imex-ctl -N` text → {"nodes": [...], "not_connected": [[from, to, code]...], "domain_state"}.

    Raises ValueError, naming what is missing, for text that is not that report."""
    nodes, not_connected, domain, columns = [], [], None, None
    for line in text.splitlines():
        m = _NODE.match(line)
        if m:
            nodes.append({"index": int(m.group(1)), "address": m.group(2), "status": m.group(3), "version": m.group(4)})
            continue
        m = _TABLE_HEAD.match(line)
        if m:
            columns = [int(c) for c in m.group(1).split()]
            continue
        m = _DOMAIN.match(line)
        if m:
            domain = m.group(1)
            columns = None
            continue
        if columns is not None:
            m = _ROW.match(line)
            if m:
                cells = m.group(2).split()
                if len(cells) != len(columns):
                    raise ValueError("nvidia-imex-ctl -N: row %s of the connectivity table has %d cells for %d nodes"
                                     % (m.group(1), len(cells), len(columns)))
                not_connected += [[int(m.group(1)), to, c] for to, c in zip(columns, cells) if c != "C"]
    if not nodes:
        raise ValueError("nvidia-imex-ctl -N printed no `Node #` line")
    if domain is None:
        raise ValueError("nvidia-imex-ctl -N printed no `Domain State:` line")
    return {"nodes": nodes, "not_connected": not_connected, "domain_state": domain}


def collect(unmeasured):
    """The domain as this node's IMEX daemon sees it, or None with the reason in unmeasured["imex"]."""
    try:
        text = probe.run(["nvidia-imex-ctl", "-N"], timeout=30)
    except probe.ProbeFailed as e:
        unmeasured["imex"] = "%s (is the nvidia-imex daemon installed and running?)" % e
        return None
    try:
        return parse(text)
    except ValueError as e:
        unmeasured["imex"] = str(e)
        return None
