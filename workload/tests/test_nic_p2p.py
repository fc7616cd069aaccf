"""nic without perftest: the NCCL point-to-point orchestration (nic_p2p.py) with a stand-in child.

No GPU, NCCL or InfiniBand here, so the real child never runs: the two ranks are two threads that
exchange through a barrier (what gloo's all_gather_object does between the real ranks), and the
child is a script named as a stand-in that prints the environment it received and one node's lines
of a real two-node NCCL INFO capture (test/fixtures/nccl-info/, README there). What the harness
reads from such output is tested in test/parsers/nic-p2p.test.ts.
"""
import json
import os
import socket
import sys
import threading
import types

import pytest

from conftest import run_ranks
from gpucheck_workload import child, nic_p2p
from gpucheck_workload.kinds import nic
from gpucheck_workload.errors import WorkloadError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(ROOT, "test", "fixtures", "nccl-info", "a100pcie-2node-ibext-gdrdma-v2.21.5.txt")
ARGS = types.SimpleNamespace(p2p_size=1024, p2p_iters=2, timeout=20.0)

# the stand-in child: its environment and arguments as one JSON line, then its node's NCCL INFO lines
FAKE = r'''
import json, os, sys
rank = sys.argv[sys.argv.index("--rank") + 1]
keep = ("NCCL_IB_HCA", "NCCL_NET", "CUDA_DEVICE_ORDER", "PYTHONPATH", "SUITE_VAR")
print("ENV " + json.dumps({k: os.environ.get(k) for k in keep}))
print("ARGV " + json.dumps(sys.argv[1:]))
host = "test1:" if rank == "0" else "test2:"
for line in open(%r):
    if line.startswith(host):
        print("GPUCHECK_NCCL_INFO " + line.rstrip("\n"))
if os.environ.get("FAKE_SLEEP"):
    import time; time.sleep(float(os.environ["FAKE_SLEEP"]))
''' % CAPTURE


class Exchange:
    """all_gather_object between two threads: each gives its value, both get [rank 0's, rank 1's]."""

    def __init__(self):
        self.slots = [None, None]
        self.gate = threading.Barrier(2, timeout=30)

    def share(self, rank):
        def gather(mine):
            self.gate.wait()
            self.slots[rank] = mine
            self.gate.wait()
            both = list(self.slots)
            self.gate.wait()
            return both
        return gather


def side(host, hcas, near=None, tools=None, nccl=None):
    return {"host": host, "hcas": [{"device": d, "port": 1} for d in hcas], "near": near or {},
            "tools": tools or {"bw": None, "lat": None}, "nccl": nccl or {"ok": True}}


def both_ranks(hca, server, client, monkeypatch, tmp_path):
    script = tmp_path / "fake_child.py"
    script.write_text(FAKE)
    monkeypatch.setattr(nic_p2p, "CHILD", [sys.executable, str(script)])
    rec = dict(hca, gpu_server=nic._gpu(server, hca), gpu_client=nic._gpu(client, hca))
    ex, got = Exchange(), [None, None]

    def rank(r):
        got[r] = nic_p2p.pair(r, "127.0.0.1", hca, rec, server, client, ARGS, ex.share(r))

    threads = [threading.Thread(target=rank, args=(r,)) for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert got[0] == got[1], "both ranks hold the same record"
    return got[0]


def lines(out, tag):
    return [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith(tag + " ")]


def test_each_child_is_pinned_to_its_hca_with_the_nearest_gpu_and_the_suite_env_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("NCCL_IB_HCA", "mlx5_0,mlx5_3")  # a suite's fabric-wide setting: the child's pin replaces it
    monkeypatch.setenv("SUITE_VAR", "kept")
    server = side("node0", ["mlx5_0", "mlx5_3"], near={"mlx5_3": 3})
    client = side("node1", ["mlx5_3"], near={"mlx5_3": 2})
    r = both_ranks({"device": "mlx5_3", "port": 1}, server, client, monkeypatch, tmp_path)
    assert (r["source"], r["env"]) == ("nccl-p2p", {"NCCL_IB_HCA": "=mlx5_3:1", "NCCL_NET": "IB"})
    for who, gpu, rank in (("server", "3", "0"), ("client", "2", "1")):
        run = r[who]
        assert run["rc"] == 0
        env = lines(run["output"], "ENV")[0]
        assert env["NCCL_IB_HCA"] == "=mlx5_3:1" and env["NCCL_NET"] == "IB" and env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
        assert env["SUITE_VAR"] == "kept"
        assert env["PYTHONPATH"].split(os.pathsep)[0] == child.WORKLOAD_ROOT
        argv = lines(run["output"], "ARGV")[0]
        assert argv[argv.index("--rank") + 1] == rank and argv[argv.index("--gpu") + 1] == gpu
        assert argv[argv.index("--addr") + 1] == "127.0.0.1" and argv[argv.index("--size") + 1] == "1024"
        assert "NET/IB : Using [0]mlx5_0:1/IB/SHARP" in run["output"]
    # both children rendezvous on the one port rank 0 chose
    ports = {lines(r[w]["output"], "ARGV")[0][lines(r[w]["output"], "ARGV")[0].index("--port") + 1] for w in ("server", "client")}
    assert len(ports) == 1


def test_no_gpu_topology_leaves_the_gpu_to_the_child():
    cmd = nic_p2p.child_command(0, "10.0.0.1", 29600, None, ARGS)
    assert cmd[len(nic_p2p.CHILD):] == ["--rank", "0", "--addr", "10.0.0.1", "--port", "29600", "--size", "1024", "--iters", "2", "--timeout", "20.0"]


def test_a_client_without_the_hca_starts_neither_child(monkeypatch, tmp_path):
    r = both_ranks({"device": "mlx5_5", "port": 1}, side("node0", ["mlx5_5"]), side("node1", ["mlx5_0", "mlx5_3"]), monkeypatch, tmp_path)
    assert r == {"source": "nccl-p2p", "env": {"NCCL_IB_HCA": "=mlx5_5:1", "NCCL_NET": "IB"},
                 "why": "the client node node1 has no mlx5_5 (its HCAs: mlx5_0, mlx5_3)"}


def test_a_child_past_its_time_limit_is_named_and_its_output_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_SLEEP", "5")
    monkeypatch.setattr(ARGS, "timeout", 1.0)
    r = both_ranks({"device": "mlx5_0", "port": 1}, side("node0", ["mlx5_0"]), side("node1", ["mlx5_0"]), monkeypatch, tmp_path)
    assert r["server"]["why"] == "the NCCL send/recv child on node0 for mlx5_0 did not finish within 1 s"
    assert r["client"]["why"] == "the NCCL send/recv child on node1 for mlx5_0 did not finish within 1 s"
    assert "GPUCHECK_NCCL_INFO" in r["server"]["output"]


def test_which_path_and_why_not():
    tools = {"bw": "ib_write_bw", "lat": "ib_read_lat"}
    has = {"bw": "/usr/bin/ib_write_bw", "lat": "/usr/bin/ib_read_lat"}
    assert nic_p2p.missing_tools([side("n0", [], tools=has), side("n1", [], tools=has)], tools) is None
    assert nic_p2p.missing_tools([side("n0", [], tools=has), side("n1", [], tools={"bw": "/x", "lat": None})], tools) == \
        "ib_read_lat not found on n1 (install perftest)"
    assert nic_p2p.missing_tools([side("n0", []), side("n1", [])], tools) == \
        "ib_write_bw, ib_read_lat not found on n0; ib_write_bw, ib_read_lat not found on n1 (install perftest)"
    no = {"ok": False, "why": "torch 2.1.0 sees no GPU (torch.cuda.is_available() is False)"}
    assert nic_p2p.unusable([side("n0", []), side("n1", [])]) is None
    assert nic_p2p.unusable([side("n0", []), side("n1", [], nccl=no)]) == "n1: torch 2.1.0 sees no GPU (torch.cuda.is_available() is False)"


def test_the_nearest_gpu_as_this_process_numbers_it():
    assert nic_p2p.cuda_ordinal(3, {}) == 3
    assert nic_p2p.cuda_ordinal(None, {"CUDA_VISIBLE_DEVICES": "4,5"}) == 0
    assert nic_p2p.cuda_ordinal(5, {"CUDA_VISIBLE_DEVICES": "4,5"}) == 1
    with pytest.raises(WorkloadError) as e:
        nic_p2p.cuda_ordinal(3, {"CUDA_VISIBLE_DEVICES": "4,5"})
    assert str(e.value) == "GPU 3, the nearest to this HCA, is not visible to this process (CUDA_VISIBLE_DEVICES=4,5)"


def test_two_cpu_ranks_without_perftest_or_nccl_say_why_neither_ran():
    import torch
    import torch.distributed as dist
    outs = run_ranks(2, ["nic", "--tcp-bytes", str(1024 ** 2), "--tcp-pings", "5", "--hcas", "mlx5_0"])
    assert [code for code, _, _ in outs] == [0, 0], [err for _, _, err in outs]
    r = json.loads([l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")][0].split(" ", 1)[1])
    host = socket.gethostname()
    no = ("torch %s has no NCCL (torch.distributed.is_nccl_available() is False)" if not dist.is_nccl_available()
          else "torch %s sees no GPU (torch.cuda.is_available() is False)") % torch.__version__
    assert r["hcas"][0]["source"] is None
    assert r["hcas"][0]["why"] == (
        "ib_write_bw, ib_read_lat not found on %s; ib_write_bw, ib_read_lat not found on %s (install perftest), "
        "and NCCL point-to-point cannot stand in: %s: %s; %s: %s" % (host, host, host, no, host, no))
    assert "bw" not in r["hcas"][0] and "p2p" not in r["hcas"][0]
