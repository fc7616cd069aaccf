"""NVIDIA DCGM's diagnostic on this node: `dcgmi diag -r <level> -j`, one process per node.

The JSON is passed on whole (lib/kinds/dcgm/parse.ts reads DCGM 3.x and 4.x); this module only says why
there is none when dcgmi could not give one: not installed, nv-hostengine not running, a timeout, an
exit code with no JSON. nvidia-smi -q of the same run names DCGM's GPU ids (NVML indices) by UUID
and PCI bus. Never a pass by absence: every reason becomes an unmeasured metric.
"""
import json
import shutil
import socket
import subprocess

from .. import emit, nvsmi, probe

HELP = "NVIDIA DCGM diagnostic (dcgmi diag -r LEVEL -j) of this node"


def add_arguments(p):
    p.add_argument("--level", type=int, choices=(1, 2, 3, 4), default=2, help="dcgmi diag -r level")
    p.add_argument("--timeout", type=float, default=840.0, help="seconds dcgmi may run")


def main(args):
    emit.tagged("RESULT", collect(args.level, args.timeout))
    return 0


def collect(level, timeout):
    argv = ["dcgmi", "diag", "-r", str(level), "-j"]
    out = {"host": socket.gethostname(), "level": level, "command": argv, "timeout_s": timeout,
           "exit_code": None, "document": None, "stderr": ""}
    out.update(run_dcgmi(argv, timeout))
    out.update(gpus())
    return out


def run_dcgmi(argv, timeout):
    """{exit_code, document} or {unread}: the reason is the whole verdict when there is no document."""
    cmd = " ".join(argv)
    if shutil.which(argv[0]) is None:
        return {"unread": "dcgmi not found on PATH: DCGM is not installed on this node (install datacenter-gpu-manager "
                          "and start nv-hostengine, or remove this test from the suite)"}
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, universal_newlines=True, errors="replace")
    except subprocess.TimeoutExpired as e:
        return {"unread": "%s timed out after %gs (the test's timeout less its margin)%s" % (cmd, timeout, _last(e.stdout, e.stderr))}
    except OSError as e:
        return {"unread": "%s could not start: %s" % (cmd, e)}
    got = {"exit_code": done.returncode, "stderr": done.stderr[-2000:]}
    document, why = _document(done.stdout)
    if document is not None:
        # dcgmi exits non-zero when a test fails and still prints the results: they are the verdict
        return dict(got, document=document)
    text = (done.stdout + "\n" + done.stderr).strip()
    if "Unable to connect" in text or "unable to establish a connection" in text:
        return dict(got, unread="%s could not reach nv-hostengine (exit code %d): %s" % (cmd, done.returncode, _first_error(text)))
    return dict(got, unread="%s exited with code %d and printed %s%s" % (cmd, done.returncode, why, _last(done.stdout, done.stderr)))


def _document(stdout):
    """dcgmi's JSON object (anything it printed before the first `{`, a banner or a warning, is left out)."""
    start = stdout.find("{")
    if start < 0:
        return None, "no JSON"
    try:
        doc = json.loads(stdout[start:])
    except ValueError as e:
        return None, "output that is not JSON (%s)" % e
    if not isinstance(doc, dict):
        return None, "JSON that is not an object"
    return doc, None


def _first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return next((l for l in lines if "Unable to connect" in l or "unable to establish" in l), lines[0] if lines else "")


def _last(*texts):
    lines = [l.strip() for t in texts if t for l in (t if isinstance(t, str) else t.decode("utf-8", "replace")).splitlines() if l.strip()]
    return ": " + lines[-1][:300] if lines else ""


def gpus():
    """The node's GPUs by nvidia-smi index (DCGM's GPU id), or why they could not be read."""
    try:
        _, _, found = nvsmi.parse_query(probe.run(["nvidia-smi", "-q"], timeout=30))
    except probe.ProbeFailed as e:
        return {"gpus": None, "gpus_unread": str(e)}
    return {"gpus": [{"index": g["index"], "uuid": g.get("uuid"), "pci_bus_id": g.get("pci_bus_id"), "name": g.get("name")}
                     for g in found]}
