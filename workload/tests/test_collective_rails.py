"""collective --rails: the sweep once per HCA, a child per rank and rail (collective_rails.py).

On this machine there is no InfiniBand, so a real run refuses every rail with the reason; to drive
the children themselves, helpers/fake_ib_ports.py hands each rank a port list (named as a stand-in)
and the children run real gloo sweeps (gloo ignores NCCL_IB_HCA: the rail is not crossed, which the
harness catches from the absent NCCL account, test/parsers/nccl-rails.test.ts).
"""
import json
import os
import socket

from conftest import run_ranks
from gpucheck_workload import child, collective_rails as cr
from gpucheck_workload.ranks import Ranks

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers", "fake_ib_ports.py")
SWEEP = ["collective", "--backend", "gloo", "--min-bytes", "1K", "--max-bytes", "4K", "--iters", "2", "--warmup", "1"]
PORT = {"device": "mlx5_0", "port": 1, "link_layer": "InfiniBand", "state": "ACTIVE"}


def rails_lines(out):
    return [json.loads(l.split(" ", 1)[1]) for l in out.splitlines() if l.startswith("GPUCHECK_RAIL ")]


def test_without_infiniband_every_rail_is_refused_with_the_reason_on_every_rank():
    outs = run_ranks(2, SWEEP + ["--rails", "mlx5_0,mlx5_3:1"])
    assert [code for code, _, _ in outs] == [0, 0], [err for _, _, err in outs]
    host = socket.gethostname()
    why = "%s has no InfiniBand device (/sys/class/infiniband is empty)" % host
    for rank, (_, out, _) in enumerate(outs):
        assert rails_lines(out) == [
            {"rail": "mlx5_0", "index": 0, "host": host, "rank": rank, "nccl_ib_hca": "=mlx5_0"},
            {"rail": "mlx5_0", "index": 0, "end": True, "why": why},
            {"rail": "mlx5_3:1", "index": 1, "host": host, "rank": rank, "nccl_ib_hca": "=mlx5_3:1"},
            {"rail": "mlx5_3:1", "index": 1, "end": True, "why": why},
            {"done": True, "rails": ["mlx5_0", "mlx5_3:1"]},
        ]
        assert "# Avg bus bandwidth" not in out  # no sweep ran


def test_auto_without_infiniband_says_so_and_runs_nothing():
    outs = run_ranks(2, SWEEP + ["--rails", "auto"])
    assert [code for code, _, _ in outs] == [0, 0], [err for _, _, err in outs]
    for _, out, _ in outs:
        assert rails_lines(out) == [{"done": True, "rails": [], "why":
                                     "rails: auto found no InfiniBand port on rank 0's node (/sys/class/infiniband is empty)"}]


def test_each_rail_runs_the_sweep_in_its_own_children_and_a_rail_one_node_lacks_runs_nowhere():
    ports = {"0": [PORT, dict(PORT, device="mlx5_3")], "1": [PORT]}
    outs = run_ranks(2, [json.dumps(ports)] + SWEEP + ["--rails", "auto"], script=HELPER, timeout=180)
    assert [code for code, _, _ in outs] == [0, 0], [err for _, _, err in outs]
    host = socket.gethostname()
    for rank, (_, out, _) in enumerate(outs):
        lines = rails_lines(out)
        assert lines[-1] == {"done": True, "rails": ["mlx5_0", "mlx5_3"]}  # rank 0's node decided
        assert lines[1] == {"rail": "mlx5_0", "index": 0, "end": True, "rc": 0}
        assert lines[3] == {"rail": "mlx5_3", "index": 1, "end": True, "why": "%s has no mlx5_3 (its HCA ports: mlx5_0:1)" % host}
    rank0 = outs[0][1]
    first, second = rank0.split("GPUCHECK_RAIL")[1:3]
    assert "# Avg bus bandwidth" in first and "Collective test concluded: all_reduce_perf" in first
    assert "# Avg bus bandwidth" not in second


def test_the_child_environment_pins_the_rail_and_moves_the_rendezvous():
    ranks = Ranks(3, 16, 3, 8, "10.0.0.1", 29500, "slurm", "node0")
    env = cr.child_env("mlx5_3", 2, ranks, {"NCCL_ALGO": "Ring", "SLURM_PROCID": "3"})
    assert {k: env[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GPUCHECK_NODE")} == {
        "RANK": "3", "WORLD_SIZE": "16", "LOCAL_RANK": "3", "LOCAL_WORLD_SIZE": "8", "MASTER_ADDR": "10.0.0.1",
        "MASTER_PORT": "29503", "GPUCHECK_NODE": "node0"}
    assert (env["NCCL_IB_HCA"], env["NCCL_NET"], env["NCCL_ALGO"]) == ("=mlx5_3", "IB", "Ring")
    assert env["PYTHONPATH"].split(os.pathsep)[0] == child.WORKLOAD_ROOT
    # a suite that names its IB plugin keeps it
    assert cr.child_env("mlx5_3", 0, ranks, {"NCCL_NET": "IBext_v8"})["NCCL_NET"] == "IBext_v8"


def test_auto_takes_every_infiniband_port_whatever_its_state_and_never_ethernet():
    ports = [dict(PORT), dict(PORT, device="mlx5_1", link_layer="Ethernet"), dict(PORT, device="mlx5_3", state="DOWN"),
             dict(PORT, device="mlx5_4"), dict(PORT, device="mlx5_4", port=2)]
    assert cr.auto_rails(ports) == ["mlx5_0", "mlx5_3", "mlx5_4:1", "mlx5_4:2"]
    assert cr.missing_here("mlx5_4:2", ports, "n0") is None
    assert cr.missing_here("mlx5_4:3", ports, "n0") == "n0 has no mlx5_4:3 (its HCA ports: mlx5_0:1, mlx5_1:1, mlx5_3:1, mlx5_4:1, mlx5_4:2)"
