"""`collective --impl nccl-tests`: run NVIDIA's own <op>_perf with the same sweep, output untouched.

How ranks map onto the binary (it takes its world from MPI, not from RANK/WORLD_SIZE):
  * launched by an MPI-aware launcher (mpirun, srun --mpi=pmix: OMPI_/PMIX_/PMI_ variables set):
    every rank runs the binary with -g 1 and it joins the MPI world of its launcher;
  * launched by gpucheck's own launcher on one node: local rank 0 runs it with -g <ranks on this
    node> (one process driving every GPU, nccl-tests' single-node mode) and the other local ranks
    exit 0 at once;
  * several nodes without MPI cannot form one nccl-tests world: that is an input error.
In MPI mode nccl-tests picks device localRank·nThreads·nGpus (its local rank from MPI's host
hashes), right when every rank sees all the node's GPUs and out of range when the launcher gives
each rank one GPU (srun --gpus-per-task=1, a per-rank CUDA_VISIBLE_DEVICES): child_env then sets
NCCL_TESTS_DEVICE=0 (nccl-tests >= 2.13.9 reads it as the first device to use).
A subprocess (not exec) so the telemetry sampler of this process keeps running beside it.
"""
import os
import shutil
import signal
import subprocess

from . import nccl_debug
from .errors import MissingDependency, WorkloadError

MPI_MARKERS = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")


def find_binary(op, directory=None, path=None):
    names = [op + "_perf", op + "_perf_mpi"]  # NAME_SUFFIX=_mpi is the README's MPI build
    for name in names:
        if directory:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
        else:
            found = shutil.which(name, path=path)
            if found:
                return found
    where = "in %s" % directory if directory else "on PATH"
    raise MissingDependency("nccl-tests binary %s not found %s (build NVIDIA/nccl-tests with MPI=1, or use --impl workload)" % (names[0], where))


def launch_mode(ranks, env):
    """('mpi', 1), ('node', gpus) or ('idle', 0) for this process."""
    if any(k in env for k in MPI_MARKERS):
        return "mpi", 1
    if ranks.world_size != ranks.local_world_size:
        raise WorkloadError("--impl nccl-tests across %d ranks on several nodes needs an MPI launcher (mpirun, srun --mpi=pmix): "
                            "the binaries get their world from MPI" % ranks.world_size)
    return ("node", ranks.local_world_size) if ranks.local_rank == 0 else ("idle", 0)


def argv(binary, args, gpus):
    return [binary, "-b", str(args.min_bytes), "-e", str(args.max_bytes), "-f", str(int(args.factor)),
            "-n", str(args.iters), "-w", str(args.warmup), "-d", args.dtype, "-c", str(args.check_iters) if args.check else "0",
            "-g", str(gpus)]


def visible_devices(env):
    """The CUDA_VISIBLE_DEVICES entries, None when it is unset (then every GPU is visible)."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    return [d for d in (part.strip() for part in value.split(",")) if d]


def child_env(env, mode):
    """The binary's environment: the rank's own, plus the device choice in MPI mode (see above)."""
    child = dict(env)
    visible = visible_devices(env)
    if mode == "mpi" and visible is not None and len(visible) == 1 and "NCCL_TESTS_DEVICE" not in env:
        child["NCCL_TESTS_DEVICE"] = "0"
    return child


def run(args, ranks, env=None):
    env = os.environ if env is None else env
    binary = find_binary(args.op, args.nccl_tests_dir)
    mode, gpus = launch_mode(ranks, env)
    if mode == "idle":
        return 0
    environment = child_env(env, mode)
    capture = nccl_debug.Capture(env=environment, rank=ranks.rank).start()
    child = None
    try:
        child = subprocess.Popen(argv(binary, args, gpus), stdin=subprocess.DEVNULL, env=environment)
        forward = lambda signum, _frame: child.send_signal(signum)
        previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            rc = child.wait()
            return 128 - rc if rc < 0 else rc  # killed by signal N → 128+N, as a shell reports it
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
    finally:
        capture.finish(pids=(child.pid,) if child else ())
