"""`preflight`: what this node offers the suite's tests, before any of them runs.

For each interpreter the tests use: its version and path, whether torch imports (its version or the
ImportError), torch.cuda's devices and NCCL. Then `nvidia-smi -L` and the tools the tests need on
PATH. The harness judges the result against the suite (lib/preflight/judge.ts); this module only
reports, one GPUCHECK_RESULT line.

Every probe runs in a child process with a timeout: importing torch on a slow filesystem, or
initialising CUDA next to a GPU that has fallen off the bus, can block for minutes, and a probe that
fails is a value of null with the reason, never an exception.
"""
import json
import os
import shutil
import socket
import subprocess
import sys

from . import nccl_tests, probe
from .errors import MissingDependency

# What the child prints: one JSON object. Kept importable by Python 3.6+ and free of this package,
# so any interpreter the suite names can run it.
TORCH_PROBE = r"""
import json, platform, sys
out = {"executable": sys.executable, "version": platform.python_version()}
try:
    import torch
except Exception as e:
    out["torch_error"] = "%s: %s" % (type(e).__name__, e)
    print(json.dumps(out)); sys.exit(0)
out["torch"] = getattr(torch, "__version__", None)
out["torch_cuda"] = getattr(getattr(torch, "version", None), "cuda", None)
try:
    out["cuda_available"] = bool(torch.cuda.is_available())
    out["cuda_device_count"] = int(torch.cuda.device_count()) if out["cuda_available"] else 0
    out["cuda_devices"] = [str(torch.cuda.get_device_name(i)) for i in range(out["cuda_device_count"])]
except Exception as e:
    out["cuda_error"] = "%s: %s" % (type(e).__name__, e)
try:
    import torch.distributed as dist
    out["nccl_available"] = bool(dist.is_available() and dist.is_nccl_available())
except Exception as e:
    out["nccl_error"] = "%s: %s" % (type(e).__name__, e)
if out.get("nccl_available") and out.get("torch_cuda"):
    try:
        v = torch.cuda.nccl.version()
        out["nccl_version"] = list(v) if isinstance(v, tuple) else int(v)
    except Exception as e:
        out["nccl_version_error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""

# Importing torch takes seconds, tens of seconds from a cold network filesystem; CUDA initialisation
# next to a broken GPU can hang for minutes: two minutes says "this node is not fit" well before
# the harness's own preflight timeout.
TORCH_TIMEOUT_S = 120.0


def _interpreter(python, timeout=TORCH_TIMEOUT_S):
    """What `python` offers: {executable, version, torch, …}, or {error} when it could not be asked."""
    try:
        done = subprocess.run([python, "-c", TORCH_PROBE], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, universal_newlines=True, errors="replace")
    except subprocess.TimeoutExpired:
        return {"error": "%s -c <torch probe> timed out after %gs (importing torch or initialising CUDA hung)" % (python, timeout)}
    except OSError as e:
        return {"error": "%s could not be run: %s" % (python, e.strerror or e)}
    last = [l for l in done.stdout.strip().splitlines() if l.startswith("{")]
    if done.returncode != 0 or not last:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return {"error": "%s exited %d%s" % (python, done.returncode, ": " + detail[-1][:300] if detail else " printing nothing")}
    try:
        value = json.loads(last[-1])
    except ValueError:
        return {"error": "%s printed no JSON: %s" % (python, last[-1][:200])}
    if not isinstance(value, dict):
        return {"error": "%s printed no JSON object: %s" % (python, last[-1][:200])}
    if isinstance(value.get("nccl_version"), (int, list)):
        from .kinds.inventory import nccl_version
        v = value["nccl_version"]
        try:
            value["nccl_version"] = nccl_version(tuple(v) if isinstance(v, list) else v)
        except (TypeError, ValueError):
            value["nccl_version"] = None
    return value


def _nvidia_smi():
    """GPU names from `nvidia-smi -L`, which needs no torch: a hint when torch sees fewer."""
    try:
        text = probe.run(["nvidia-smi", "-L"], timeout=20)
    except probe.ProbeFailed as e:
        return {"gpus": None, "error": str(e)}
    names = []
    for line in text.splitlines():
        # "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)"
        if line.startswith("GPU ") and ":" in line:
            names.append(line.split(":", 1)[1].split("(UUID")[0].strip())
    if not names and text.strip():
        return {"gpus": None, "error": "nvidia-smi -L printed no GPU line: %s" % text.strip().splitlines()[0][:200]}
    return {"gpus": names}


def _tool(spec):
    """`nccl-tests:<op>[:<dir>]` finds <op>_perf as nccl_tests.py will; any other name is looked up on PATH."""
    if spec.startswith("nccl-tests:"):
        op, _, directory = spec[len("nccl-tests:"):].partition(":")
        try:
            return {"path": nccl_tests.find_binary(op, directory or None)}
        except MissingDependency as e:
            return {"path": None, "error": str(e)}
    found = shutil.which(spec)
    return {"path": found} if found else {"path": None, "error": "%s not found on PATH" % spec}


def collect(interpreters, tools):
    return {
        "hostname": os.environ.get("GPUCHECK_NODE") or socket.gethostname(),
        "interpreters": {p: _interpreter(p) for p in (interpreters or [sys.executable])},
        "nvidia_smi": _nvidia_smi(),
        "tools": {t: _tool(t) for t in tools},
    }
