"""`evidence`: what a vendor case asks for from a failed or errored node, collected on that node.

The harness runs this once on each such node through the platform that ran the test (an ssh host, a
Slurm node, a container on the node's engine, a pod on the Kubernetes node), so the bundle describes
the node that failed and not the jump host. Each item is one command run with its own timeout; its
stdout comes back as one `GPUCHECK_EVIDENCE` line (base64), or the reason it could not be had: the
tool is not installed, it exited non-zero, it ran past its timeout, or it printed more than the
bundle may hold. The harness packs the items, in this order, with the test's logs and applies the
bundle's size limit (lib/evidence/).
"""
import base64
import os
import shutil
import subprocess
import time

from . import emit

# (file in the bundle, argv, timeout in seconds), in the order they are worth the space: the kernel log
# around the test and the GPUs' state first, NVIDIA's own bundle (minutes, tens of MB) last
def items(since, until):
    return [
        ("kernel-log.txt", ["journalctl", "-k", "--no-pager", "--utc", "--since", since, "--until", until], 30),
        ("nvidia-smi-q.txt", ["nvidia-smi", "-q"], 60),
        ("nvidia-smi-topo-m.txt", ["nvidia-smi", "topo", "-m"], 30),
        ("ibstat.txt", ["ibstat"], 30),
        ("iblinkinfo.txt", ["iblinkinfo"], 60),
        ("dcgmi-discovery.txt", ["dcgmi", "discovery", "-l"], 30),
        ("nvidia-bug-report.txt", ["nvidia-bug-report.sh", "--safe-mode", "--output-file", "/dev/stdout"], 300),
    ]


def journal_time(iso):
    """journalctl's --since wants "2026-11-28 10:00:00" (UTC with --utc), not ISO 8601's T and Z."""
    text = iso.replace("T", " ").rstrip("Z")
    return text.split(".")[0]


def run_item(name, argv, timeout, node, max_bytes):
    """One item's GPUCHECK_EVIDENCE object: its data, or why there is none."""
    if shutil.which(argv[0]) is None:
        return {"item": name, "missing": "%s is not installed on %s" % (argv[0], node)}
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"item": name, "missing": "%s ran past its %d s timeout" % (" ".join(argv), timeout)}
    except OSError as e:
        return {"item": name, "missing": "%s could not start: %s" % (" ".join(argv), e.strerror or e)}
    if r.returncode != 0:
        last = r.stderr.decode("utf-8", "replace").strip().split("\n")[-1]
        code = r.returncode if r.returncode >= 0 else "on signal %d" % -r.returncode
        return {"item": name, "missing": "%s exited %s: %s" % (" ".join(argv), code, last)}
    if len(r.stdout) > max_bytes:
        # never sent: the harness would have to drop it anyway, and it says how big it was
        return {"item": name, "bytes": len(r.stdout)}
    return {"item": name, "bytes": len(r.stdout), "data": base64.b64encode(r.stdout).decode("ascii")}


def collect(since, until, max_bytes, node=None, deadline_s=None):
    """Every item in order; with a deadline, each item's timeout is cut to the time left, and an item
    with none left is listed as not started (the harness kills the process at its own timeout)."""
    node = node or os.environ.get("GPUCHECK_NODE") or os.uname().nodename
    end = None if deadline_s is None else time.monotonic() + deadline_s
    for name, argv, timeout in items(journal_time(since), journal_time(until)):
        left = None if end is None else end - time.monotonic()
        if left is not None and left < 0.5:
            emit.tagged("EVIDENCE", {"item": name, "missing": "not started: the evidence deadline (%d s) was spent on the items before it" % deadline_s})
            continue
        emit.tagged("EVIDENCE", run_item(name, argv, timeout if left is None else min(timeout, max(1, round(left))), node, max_bytes))
    return 0
