"""dcgm.collect with a fake `dcgmi` (and `nvidia-smi`) on PATH: the document passed on whole when dcgmi
prints one (even with a non-zero exit, as DCGM does when a test fails), and the exact reason for each
way of having none: not installed, nv-hostengine not running, an exit code with no JSON, a timeout.
The fake dcgmi prints the real DCGM 4.2.3 capture from test/fixtures/dcgm/ (its README gives the source).
"""
import json
import os

from conftest import FIXTURES, tool, tools_on_path
from gpucheck_workload.kinds import dcgm

CAPTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "test", "fixtures", "dcgm", "dcgm-4.2.3-gb10-level1-persistence-fail.json")
SMI = os.path.join(FIXTURES, "nvidia-smi-q-h100-8gpu-565.57.01.txt")
CMD = "dcgmi diag -r 2 -j"


def test_document_passed_on_with_dcgmi_exit_code_226(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "dcgmi", 'cat "%s"; exit 226' % CAPTURE)
    tool(bin_dir, "nvidia-smi", 'cat "%s"' % SMI)
    out = dcgm.collect(2, 30)
    assert out["exit_code"] == 226
    assert out["document"] == json.load(open(CAPTURE))
    assert "unread" not in out
    assert out["command"] == ["dcgmi", "diag", "-r", "2", "-j"]
    assert out["gpus"][0] == {"index": 0, "uuid": "GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1",
                              "pci_bus_id": "00000000:18:00.0", "name": "NVIDIA H100 80GB HBM3"}
    assert len(out["gpus"]) == 8


def test_dcgmi_not_installed(tmp_path, monkeypatch):
    tools_on_path(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    out = dcgm.collect(2, 30)
    assert out["unread"] == ("dcgmi not found on PATH: DCGM is not installed on this node (install datacenter-gpu-manager "
                             "and start nv-hostengine, or remove this test from the suite)")
    assert out["document"] is None and out["exit_code"] is None
    assert out["gpus"] is None and out["gpus_unread"] == "nvidia-smi not found"


def test_host_engine_not_running(tmp_path, monkeypatch):
    # dcgmi/Command.cpp's words when nv-hostengine is not listening
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "dcgmi", 'echo "Error: unable to establish a connection to the specified host: localhost"\n'
                           'echo "Error: Unable to connect to host engine. Host engine connection invalid/disconnected."; exit 255')
    out = dcgm.collect(2, 30)
    assert out["unread"] == ("%s could not reach nv-hostengine (exit code 255): Error: unable to establish a connection "
                             "to the specified host: localhost" % CMD)
    assert out["exit_code"] == 255


def test_exit_code_without_json(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "dcgmi", 'echo "Error: Diagnostic could not be run while other processes use the GPUs." >&2; exit 226')
    out = dcgm.collect(3, 30)
    assert out["unread"] == ("dcgmi diag -r 3 -j exited with code 226 and printed no JSON: "
                             "Error: Diagnostic could not be run while other processes use the GPUs.")


def test_output_that_is_not_json(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "dcgmi", 'echo "{ truncated"; exit 0')
    out = dcgm.collect(2, 30)
    assert out["unread"] == ("%s exited with code 0 and printed output that is not JSON (Expecting property name enclosed "
                             "in double quotes: line 1 column 3 (char 2)): { truncated" % CMD)


def test_timeout(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "dcgmi", 'echo "Running level 2"; exec sleep 30')
    out = dcgm.collect(2, 0.5)
    assert out["unread"] == "%s timed out after 0.5s (the test's timeout less its margin): Running level 2" % CMD
    assert out["exit_code"] is None and out["document"] is None
