"""A child `python3 -m gpucheck_workload…` started by a rank (nic's NCCL pair, a collective's rails):
the environment it needs to import this package wherever the rank was started from."""
import os

WORKLOAD_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env_with_package(base, **extra):
    """`base` with `extra` set and this package's directory first on PYTHONPATH."""
    env = dict(base)
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (WORKLOAD_ROOT, base.get("PYTHONPATH")) if p)
    return env
