"""Slurm hostlist expressions (`node[01-03,7],gpu-a`) expanded without scontrol.

Ranks under srun need the host of rank 0 for the rendezvous; scontrol may not be installed in
the container that runs the workload, so the syntax is parsed here: comma-separated names, each
with zero or more bracket groups of comma-separated numbers and ranges, zero padding kept from
the range's lower bound (`[08-10]` → 08 09 10), several groups form a product (`r[1-2]n[1-2]`).
"""
import re
from itertools import product

from .errors import WorkloadError

_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _split_top(text):
    """Split on commas that are outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _range_items(spec, whole):
    items = []
    for piece in spec.split(","):
        m = re.fullmatch(r"\s*(\d+)(?:-(\d+))?\s*", piece)
        if not m:
            raise WorkloadError("bad Slurm hostlist %r: %r is not a number or a range" % (whole, piece))
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise WorkloadError("bad Slurm hostlist %r: range %r goes backwards" % (whole, piece))
        items.extend(str(n).zfill(len(lo)) for n in range(int(lo), int(hi) + 1))
    return items


def expand(hostlist):
    """All hostnames of a Slurm hostlist, in order."""
    if hostlist.count("[") != hostlist.count("]"):
        raise WorkloadError("bad Slurm hostlist %r: unbalanced brackets" % hostlist)
    hosts = []
    for name in _split_top(hostlist):
        literals = _GROUP.split(name)  # text, group, text, group, ..., text
        if "[" in "".join(literals[0::2]) or "]" in "".join(literals[0::2]):
            raise WorkloadError("bad Slurm hostlist %r: nested brackets" % hostlist)
        choices = [[lit] if i % 2 == 0 else _range_items(lit, hostlist) for i, lit in enumerate(literals)]
        hosts.extend("".join(parts) for parts in product(*choices))
    return hosts


def first_host(hostlist):
    hosts = expand(hostlist)
    if not hosts:
        raise WorkloadError("empty Slurm hostlist %r" % hostlist)
    return hosts[0]


def expand_tasks_per_node(spec):
    """SLURM_TASKS_PER_NODE (`8(x2),4`) → [8, 8, 4]."""
    counts = []
    for piece in spec.split(","):
        m = re.fullmatch(r"\s*(\d+)(?:\(x(\d+)\))?\s*", piece)
        if not m:
            raise WorkloadError("bad SLURM_TASKS_PER_NODE %r" % spec)
        counts.extend([int(m.group(1))] * int(m.group(2) or 1))
    return counts
