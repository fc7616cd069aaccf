"""Writes test/standin/canned/*.json: the stand-in's answers, made by the workload's own code from
captures of real machines, so that what the stand-in replays is a real node's output, not one
written by hand. Run again after the workload's output changes:

    /usr/bin/python3 test/standin/make-canned.py

inventory: workload/gpucheck_workload/kinds/inventory.py collect() with each probe answered from a capture
(workload/tests/fixtures, SOURCES.md names each); what has no capture of the same machine is left
unmeasured with that reason, exactly as the workload reports a probe that failed.
preflight: the preflight of the dev machine (Debian 12, torch 1.13 CPU, no GPU), as captured in
SOURCES.md; the stand-in fills in the interpreter paths and host name it is asked about.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "workload"))

from gpucheck_workload import ib, probe, xid  # noqa: E402
from gpucheck_workload.kinds import inventory

FIXTURES = os.path.join(ROOT, "workload", "tests", "fixtures")
CAPTURES = {
    ("nvidia-smi", "-q"): "nvidia-smi-q-h100-8gpu-565.57.01.txt",
    ("ibstat",): "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt",
}
NO_CAPTURE = "the stand-in has no capture of `%s` from the machine its nvidia-smi -q came from"


def replay(argv, timeout=20.0):
    name = CAPTURES.get(tuple(argv))
    if name is None:
        raise probe.ProbeFailed(NO_CAPTURE % " ".join(argv))
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


def canned_inventory():
    inventory.probe.run = replay
    ib.SYSFS = "/nonexistent/gpucheck-standin"  # the capture is ibstat's: never read this machine's sysfs
    inventory.shutil.which = lambda name: "/usr/bin/" + name
    inventory.xid.kernel_log = lambda: (None, NO_CAPTURE % "dmesg")
    inventory._torch = lambda: {"torch": None, "torch_cuda": None, "nccl": None}
    os.environ["GPUCHECK_NODE"] = "@NODE@"
    inv = inventory.collect()
    # this machine's CPU and memory are not the captured node's: say so rather than mix two machines
    inv["cpu"] = {"model": None, "cores": None}
    inv["memory_gb"] = None
    # without the privilege hint the workload adds: reading was never tried
    inv["unmeasured"]["xid_events"] = NO_CAPTURE % "dmesg"
    return inv


def main():
    out = os.path.join(HERE, "canned")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "inventory.json"), "w") as f:
        f.write(json.dumps(canned_inventory(), separators=(",", ":")) + "\n")
    assert xid  # imported for the patch above


if __name__ == "__main__":
    main()
