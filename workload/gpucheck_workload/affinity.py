"""Each rank on its own CPUs, near its GPU, where no launcher binds them (local, ssh, docker, k8s).

Ranks sharing a node inherit one CPU mask from the process that started them; left alone, the
scheduler moves NCCL's proxy thread and the data loader across every core, into the other
ranks' way and across the socket from the GPU. Slurm binds with srun --cpu-bind, so this runs
only where the launcher asks for it (GPUCHECK_CPU_BIND=split, set by gpucheck's local platform
and by gpucheck_workload.launch): the inherited mask is split into disjoint, equal shares, one per
local rank; ranks whose GPUs hang off the same NUMA node (nvidia-smi topo -m, "NUMA Affinity")
share that node's CPUs. Any input missing → the plain split, never no split at all.
"""
import os
import shutil
import subprocess

ENV = "GPUCHECK_CPU_BIND"
TOPO_TIMEOUT_S = 20


def parse_cpulist(text):
    """A kernel cpulist ("0-3,8,10-11") → sorted CPU numbers; ValueError on anything else."""
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        first, last = int(lo), int(hi) if hi else int(lo)
        if last < first:
            raise ValueError("cpulist range %r runs backwards" % part)
        cpus.update(range(first, last + 1))
    return sorted(cpus)


def format_cpulist(cpus):
    """Sorted CPU numbers → the kernel's compact form, e.g. [0, 1, 2, 5] → "0-2,5"."""
    runs, cpus = [], sorted(cpus)
    for c in cpus:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in runs)


def topo_numa(text):
    """`nvidia-smi topo -m` → {GPU index: NUMA node} for the GPUs whose NUMA Affinity is a number.

    Columns are tab-separated with empty cells kept (an empty CPU Affinity is common), so the
    NUMA column is found by its header, not by position from the left of a split on spaces.
    """
    lines = text.splitlines()
    header = next((l for l in lines if l.startswith("\t") and "NUMA Affinity" in l), None)
    if header is None:
        return {}
    names = [c.strip() for c in header.split("\t")]
    col = names.index("NUMA Affinity")
    numa = {}
    for line in lines:
        if not line.startswith("GPU"):
            continue
        cells = line.split("\t")
        label, value = cells[0].strip(), cells[col].strip() if col < len(cells) else ""
        if label[3:].isdigit() and value.isdigit():
            numa[int(label[3:])] = int(value)
    return numa


def share(local_rank, local_world, allowed, groups=None):
    """This rank's CPUs: `allowed` split evenly over the ranks of its group, disjoint from theirs.

    groups: {local rank: CPUs of its GPU's NUMA node}; ranks without an entry, or whose node
    leaves fewer allowed CPUs than ranks, fall back to the split of all of `allowed`.
    """
    allowed = sorted(allowed)
    if groups and local_rank in groups:
        pool = sorted(set(groups[local_rank]) & set(allowed))
        peers = sorted(r for r in range(local_world) if r in groups and groups[r] == groups[local_rank])
        if len(pool) >= len(peers):
            return _slice(pool, peers.index(local_rank), len(peers))
    if len(allowed) < local_world:
        return allowed  # fewer CPUs than ranks: sharing all beats an empty mask
    return _slice(allowed, local_rank, local_world)


def _slice(cpus, i, n):
    per = len(cpus) // n
    return cpus[i * per:(i + 1) * per]


def gpu_of(local_rank, env):
    """The physical GPU index (nvidia-smi's) this rank drives; None when not known by number."""
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return local_rank
    ids = [d.strip() for d in visible.split(",") if d.strip()]
    pick = ids[0] if len(ids) == 1 else (ids[local_rank] if local_rank < len(ids) else None)
    return int(pick) if pick is not None and pick.isdigit() else None  # UUIDs / MIG names: unknown


def numa_groups(local_world, env, topo_text, node_cpus):
    """{local rank: CPUs of its GPU's NUMA node} from topo -m and /sys/devices/system/node."""
    numa = topo_numa(topo_text) if topo_text else {}
    groups = {}
    for r in range(local_world):
        gpu = gpu_of(r, env)
        node = numa.get(gpu) if gpu is not None else None
        if node is not None and node_cpus(node):
            groups[r] = tuple(node_cpus(node))
    return groups


def _topo():
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        done = subprocess.run([exe, "topo", "-m"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=TOPO_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _node_cpus(node):
    try:
        with open("/sys/devices/system/node/node%d/cpulist" % node) as f:
            return parse_cpulist(f.read())
    except (OSError, ValueError):
        return []


def bind(ranks, env=None):
    """Apply this rank's share when the launcher asked for it; the CPUs chosen, or None."""
    env = os.environ if env is None else env
    if env.get(ENV) != "split" or ranks.local_world_size < 2 or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    groups = numa_groups(ranks.local_world_size, env, _topo(), _node_cpus)
    cpus = share(ranks.local_rank, ranks.local_world_size, allowed, groups)
    os.sched_setaffinity(0, cpus)
    return cpus
