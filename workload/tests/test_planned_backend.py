"""The backend comes from the plan (the suite's gpusPerNode), never from what torch sees at run time:
a GPU suite's rank that finds no GPU is an error naming the rank and host, not a CPU run over gloo."""
import json
import socket

import pytest

from conftest import run_cli, run_ranks
from gpucheck_workload import dist
from gpucheck_workload.errors import WorkloadError


class FakeTorch:
    __version__ = "2.9.0"

    def __init__(self, cuda):
        self.cuda = type("cuda", (), {"is_available": staticmethod(lambda: cuda)})


def test_auto_takes_the_planned_backend_whatever_torch_sees():
    assert dist._pick_backend(FakeTorch(cuda=True), "auto", planned="gloo") == "gloo"
    assert dist._pick_backend(FakeTorch(cuda=True), "auto", planned="nccl") == "nccl"


def test_a_gpu_plan_on_a_rank_without_cuda_is_an_error_naming_the_rank():
    with pytest.raises(WorkloadError) as e:
        dist._pick_backend(FakeTorch(cuda=False), "auto", planned="nccl", where="rank 5 on node7")
    assert str(e.value) == ("rank 5 on node7: the suite asks for GPUs (gpusPerNode > 0, backend nccl planned) but torch 2.9.0 sees none "
                            "(torch.cuda.is_available() is False): no GPU work runs on a CPU; check the NVIDIA driver and "
                            "CUDA_VISIBLE_DEVICES on this node")


def test_without_a_plan_auto_still_follows_torch_for_runs_by_hand():
    assert dist._pick_backend(FakeTorch(cuda=False), "auto") == "gloo"
    assert dist._pick_backend(FakeTorch(cuda=True), "auto") == "nccl"


def test_resolved_names_what_init_will_use():
    before = dist.PLANNED
    try:
        dist.PLANNED = "nccl"
        assert dist.resolved(FakeTorch(cuda=False), "auto") == "nccl"
        assert dist.resolved(FakeTorch(cuda=False), "gloo") == "gloo"
    finally:
        dist.PLANNED = before


def _no_gpu():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the CPU-fallback path cannot be shown here")
    return torch


# every per-GPU command the harness runs with the planned backend; the smallest arguments each accepts
GPU_COMMANDS = [
    ["gemm", "--dtypes", "fp32", "--min-size", "64", "--max-size", "64", "--step", "64", "--iters", "1", "--warmup", "0", "--checksum-size", "64"],
    ["membw"],
    ["nvlink"],
    ["pcie"],
    ["burn", "--duration", "1"],
    ["collective", "--min-bytes", "1K", "--max-bytes", "1K", "--iters", "1", "--warmup", "0"],
    ["train", "--steps", "2", "--warmup-steps", "1"],
]


@pytest.mark.parametrize("command", GPU_COMMANDS, ids=[c[0] for c in GPU_COMMANDS])
def test_planned_nccl_on_cpu_ranks_is_an_error_on_every_rank(command):
    torch = _no_gpu()
    results = run_ranks(2, ["--backend", "nccl"] + command)
    for rank, (code, out, err) in enumerate(results):
        assert code == 2, (command, rank, err)
        assert "GPUCHECK_RESULT" not in out
        assert err == ("gpucheck-workload: error: rank %d on %s: the suite asks for GPUs (gpusPerNode > 0, backend nccl planned) "
                       "but torch %s sees none (torch.cuda.is_available() is False): no GPU work runs on a CPU; check the NVIDIA "
                       "driver and CUDA_VISIBLE_DEVICES on this node\n" % (rank, socket.gethostname(), torch.__version__))


def test_planned_gloo_measures_the_cpu_and_says_so():
    _no_gpu()
    results = run_ranks(2, ["--backend", "gloo"] + GPU_COMMANDS[0])
    assert [code for code, _, _ in results] == [0, 0], results
    line = next(l for l in results[0][1].splitlines() if l.startswith("GPUCHECK_RESULT "))
    r = json.loads(line.split(" ", 1)[1])
    assert r["backend"] == "gloo"
    assert [x["device"]["type"] for x in r["ranks"]] == ["cpu", "cpu"]


def test_an_unknown_planned_backend_is_refused():
    done = run_cli(["--backend", "auto", "gemm"])
    assert done.returncode == 2
    assert done.stderr == "gpucheck-workload: error: argument --backend: invalid choice: 'auto' (choose from 'nccl', 'gloo')\n"
