"""Starts one node's ranks where a platform runs one process per node (a container, a pod, one
ssh session per host): `python3 -m gpucheck_workload.launch --nprocs R [--node-rank N] -- ARGS...`.

Each rank is `sys.executable ARGS...` with RANK = node_rank * R + local_rank, LOCAL_RANK,
LOCAL_WORLD_SIZE and WORLD_SIZE (from the environment, default nnodes * R), and
GPUCHECK_CPU_BIND=split unless set (each rank binds itself to its own CPUs: affinity.py). Every
output line is prefixed `[rank N] ` so one stream carries all ranks. A rank that fails ends its peers after a grace
period (they would otherwise wait in a collective forever); SIGTERM/SIGINT are passed on. The exit
code is the first failing rank's. No torchrun: Debian's torch 1.13 torchrun crashes on Python 3.11.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time

GRACE_S = 5.0


def _pump(rank, stream, lock):
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\n")
        with lock:
            sys.stdout.write("[rank %d] %s\n" % (rank, line))
            sys.stdout.flush()
    stream.close()


def main(argv=None):
    p = argparse.ArgumentParser(prog="gpucheck_workload.launch")
    p.add_argument("--nprocs", type=int, required=True)
    p.add_argument("--node-rank", type=int, default=None,
                   help="default: $GPUCHECK_NODE_RANK, $JOB_COMPLETION_INDEX, $SLURM_NODEID or 0")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    if a.nprocs < 1 or not args:
        p.error("need --nprocs >= 1 and a command after --")
    node_rank = a.node_rank
    if node_rank is None:
        for var in ("GPUCHECK_NODE_RANK", "JOB_COMPLETION_INDEX", "SLURM_NODEID"):
            if os.environ.get(var, "").isdigit():
                node_rank = int(os.environ[var])
                break
        else:
            node_rank = 0
    world = int(os.environ.get("WORLD_SIZE", a.nprocs))

    lock = threading.Lock()
    procs = []
    for local in range(a.nprocs):
        rank = node_rank * a.nprocs + local
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(local),
                   LOCAL_WORLD_SIZE=str(a.nprocs), WORLD_SIZE=str(world))
        env.setdefault("GPUCHECK_CPU_BIND", "split")  # each rank takes its own CPUs (affinity.py)
        proc = subprocess.Popen([sys.executable] + args, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        t = threading.Thread(target=_pump, args=(rank, proc.stdout, lock), daemon=True)
        t.start()
        procs.append((rank, proc, t))

    def stop(sig):
        for _, proc, _ in procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    pass

    def on_signal(signum, _frame):
        stop(signal.SIGTERM)
        deadline = time.time() + GRACE_S
        while time.time() < deadline and any(pr.poll() is None for _, pr, _ in procs):
            time.sleep(0.1)
        stop(signal.SIGKILL)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    first_failure = None
    failed_at = None
    while any(pr.poll() is None for _, pr, _ in procs):
        for rank, pr, _ in procs:
            code = pr.poll()
            if code not in (None, 0) and first_failure is None:
                first_failure, failed_at = (rank, code), time.time()
        if failed_at is not None and time.time() - failed_at > GRACE_S:
            stop(signal.SIGKILL)
        time.sleep(0.05)
    for _, _, t in procs:
        t.join(timeout=2)
    for rank, pr, _ in procs:
        if pr.returncode != 0 and first_failure is None:
            first_failure = (rank, pr.returncode)
    if first_failure is None:
        return 0
    rank, code = first_failure
    sys.stderr.write("gpucheck-launch: rank %d exited with %d\n" % (rank, code))
    return code if 0 < code < 256 else 1


if __name__ == "__main__":
    sys.exit(main())
