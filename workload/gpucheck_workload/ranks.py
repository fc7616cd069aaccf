"""Who am I: rank, world size and rendezvous point from whichever launcher started us.

Order matters: explicit RANK/WORLD_SIZE (gpucheck's platforms, torchrun) win; then Open MPI,
whose variables are also set when mpirun runs inside a Slurm allocation (where SLURM_PROCID
describes the batch step, not this rank); then Slurm; else a single process.
"""
import os
import socket
from collections import namedtuple

from . import hostlist
from .errors import WorkloadError

Ranks = namedtuple("Ranks", "rank world_size local_rank local_world_size master_addr master_port launcher node")

DEFAULT_PORT = 29500
LOOPBACK = "127.0.0.1"


def _int(env, name, default=None):
    raw = env.get(name)
    if raw is None or raw == "":
        if default is None:
            raise WorkloadError("%s is not set" % name)
        return default
    try:
        return int(raw)
    except ValueError:
        raise WorkloadError("%s=%r is not an integer" % (name, raw)) from None


def _port(env, default):
    return _int(env, "MASTER_PORT", default)


def _slurm_port(env):
    # Two jobs sharing a node must not rendezvous on the same port: derive it from the job id.
    job = env.get("SLURM_JOB_ID", "")
    return 20000 + int(job) % 10000 if job.isdigit() else DEFAULT_PORT


def _from_torch_env(env):
    world = _int(env, "WORLD_SIZE")
    # torchrun and gpucheck set it; a bare launcher may not: then all we know is the world size
    local_world = _int(env, "LOCAL_WORLD_SIZE", world)
    addr = env.get("MASTER_ADDR") or (LOOPBACK if world == 1 else None)
    if addr is None:
        raise WorkloadError("MASTER_ADDR is not set but WORLD_SIZE=%d: set it to the host of rank 0" % world)
    return Ranks(_int(env, "RANK"), world, _int(env, "LOCAL_RANK", 0), local_world, addr,
                 _port(env, DEFAULT_PORT), "env", env.get("GPUCHECK_NODE") or socket.gethostname())


def _from_ompi(env):
    world = _int(env, "OMPI_COMM_WORLD_SIZE")
    local_world = _int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1)
    addr = env.get("MASTER_ADDR")
    if not addr:
        if local_world != world:
            raise WorkloadError("MASTER_ADDR is not set: under mpirun across nodes export it to the host of rank 0 (mpirun -x MASTER_ADDR=<host>)")
        addr = LOOPBACK  # every rank is on this node
    return Ranks(_int(env, "OMPI_COMM_WORLD_RANK"), world, _int(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0), local_world,
                 addr, _port(env, DEFAULT_PORT), "mpi", socket.gethostname())


def _from_slurm(env):
    world = _int(env, "SLURM_NTASKS", 1)
    nodelist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    addr = env.get("MASTER_ADDR")
    if not addr:
        if not nodelist:
            raise WorkloadError("neither MASTER_ADDR nor SLURM_JOB_NODELIST is set: cannot find the host of rank 0")
        # srun's default block distribution puts task 0 on the step's first node.
        addr = hostlist.first_host(nodelist)
    local_world = 1
    if env.get("SLURM_STEP_TASKS_PER_NODE") or env.get("SLURM_TASKS_PER_NODE"):
        per_node = hostlist.expand_tasks_per_node(env.get("SLURM_STEP_TASKS_PER_NODE") or env["SLURM_TASKS_PER_NODE"])
        node_id = _int(env, "SLURM_NODEID", 0)
        local_world = per_node[node_id] if node_id < len(per_node) else per_node[-1]
    return Ranks(_int(env, "SLURM_PROCID"), world, _int(env, "SLURM_LOCALID", 0), local_world, addr,
                 _port(env, _slurm_port(env)), "slurm", env.get("SLURMD_NODENAME") or socket.gethostname())


def detect(env=None):
    env = os.environ if env is None else env
    if "RANK" in env and "WORLD_SIZE" in env:
        ranks = _from_torch_env(env)
    elif "OMPI_COMM_WORLD_RANK" in env:
        ranks = _from_ompi(env)
    elif "SLURM_PROCID" in env:
        ranks = _from_slurm(env)
    else:
        ranks = Ranks(0, 1, 0, 1, LOOPBACK, _port(env, DEFAULT_PORT), "single", socket.gethostname())
    if not 0 <= ranks.rank < ranks.world_size:
        raise WorkloadError("rank %d is outside the world of %d ranks" % (ranks.rank, ranks.world_size))
    if not 0 <= ranks.local_rank < max(ranks.local_world_size, 1):
        raise WorkloadError("local rank %d is outside the %d ranks on this node" % (ranks.local_rank, ranks.local_world_size))
    return ranks
