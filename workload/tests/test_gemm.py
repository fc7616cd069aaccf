"""gemm on CPU: two real ranks, the dtypes a CPU cannot run named as unmeasured, and a rank fed a
different checksum input named as the mismatch."""
import json

import pytest

from conftest import run_cli, run_ranks
from gpucheck_workload.kinds import gemm

SMALL = ["gemm", "--min-size", "64", "--max-size", "128", "--step", "64", "--iters", "2", "--warmup", "1", "--checksum-size", "64"]
# the sweep's tests warm up for no time; the warm-up has its own test
QUICK = SMALL + ["--warmup-seconds", "0"]


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    assert all("GPUCHECK_RESULT" not in out for _, out, _ in outs[1:])  # only rank 0 reports
    return json.loads(lines[0].split(" ", 1)[1])


def test_two_cpu_ranks_measure_fp32_and_bf16_and_name_the_rest_unmeasured():
    r = _result(run_ranks(2, SMALL + ["--warmup-seconds", "0.5"]))
    assert r["world_size"] == 2 and r["sizes"] == [64, 128]
    assert (r["iters"], r["warmup"], r["warmup_seconds"]) == (2, 1, 0.5)
    for rank in r["ranks"]:
        # every rank multiplied for the warm-up's length before the sweep, in the first dtype it runs
        # (bf16, first in the default list, runs on a CPU too) at the sweep's largest shape
        w = rank["warmup"]
        assert w["seconds"] >= 0.5 and w["calls"] >= gemm.WARMUP_BATCH and (w["dtype"], w["n"]) == ("bf16", 128) and "skipped" not in w
    assert [x["rank"] for x in r["ranks"]] == [0, 1]
    for rank in r["ranks"]:
        assert rank["device"]["type"] == "cpu"
        for d in ("fp32", "bf16"):
            got = rank["dtypes"][d]
            assert got["best_tflops"] > 0 and got["best_n"] in (64, 128)
            assert got["best_tflops"] >= got["median_tflops"]
            assert [s["n"] for s in got["shapes"]] == [64, 128]
        for d in ("fp16", "tf32", "fp8"):
            assert rank["dtypes"][d] == {"unmeasured": "CPU: %s not measured" % d}
    assert r["checksum"] == {"mismatched_ranks": [], "notes": []}
    assert r["ranks"][0]["checksum"]["sha256"] == r["ranks"][1]["checksum"]["sha256"]


def test_a_rank_with_a_different_input_is_named_by_the_checksum(monkeypatch):
    monkeypatch.setenv(gemm.FAULT_ENV, "2")
    r = _result(run_ranks(3, QUICK + ["--dtypes", "fp32"]))
    hashes = [x["checksum"]["sha256"] for x in r["ranks"]]
    assert hashes[0] == hashes[1] != hashes[2]
    assert r["checksum"] == {"mismatched_ranks": [2], "notes": []}


def test_a_split_without_majority_names_the_minority_and_says_so():
    ranks = [{"rank": i, "device": {"name": "H100"}, "checksum": {"sha256": h}} for i, h in enumerate("ab")]
    assert gemm.compare_checksums(ranks) == {"mismatched_ranks": [1], "notes": ["H100: no majority among 2 ranks"]}


def test_only_like_models_are_compared():
    ranks = [{"rank": 0, "device": {"name": "H100"}, "checksum": {"sha256": "a"}},
             {"rank": 1, "device": {"name": "A100"}, "checksum": {"sha256": "b"}}]
    assert gemm.compare_checksums(ranks) == {"mismatched_ranks": [], "notes": []}


@pytest.mark.parametrize("args,message", [
    (["--dtypes", "bf16,int8"], "--dtypes must list some of bf16, fp16, tf32, fp8, fp32, got 'bf16,int8'"),
    (["--min-size", "512", "--max-size", "128"], "the sweep needs 1 <= --min-size <= --max-size and --step >= 1, got 512, 128, 128"),
    (["--iters", "0"], "--iters must be at least 1 and --warmup at least 0"),
    (["--warmup-seconds", "-1"], "--warmup-seconds must be 0 or more, got -1.0"),
])
def test_bad_arguments_are_one_line_exit_2(args, message):
    done = run_cli(["gemm"] + args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gpucheck-workload: error: %s\n" % message)


def test_the_defaults_are_the_mamf_finders_on_a_gpu_and_short_on_a_cpu():
    # mamf-finder.py: accelerator_warmup_seconds = 30, --num_iterations 100, --num_warmup_iterations 50
    assert (gemm.GPU_WARMUP_S, gemm.GPU_CALLS) == (30.0, (100, 50))
    r = _result(run_ranks(1, ["gemm", "--dtypes", "fp32", "--min-size", "64", "--max-size", "64", "--checksum-size", "64"]))
    assert (r["iters"], r["warmup"], r["warmup_seconds"]) == (gemm.CPU_CALLS[0], gemm.CPU_CALLS[1], gemm.CPU_WARMUP_S)
    assert r["ranks"][0]["warmup"]["seconds"] >= gemm.CPU_WARMUP_S


def test_no_warm_up_is_said_so():
    r = _result(run_ranks(1, QUICK + ["--dtypes", "fp32"]))
    assert r["ranks"][0]["warmup"] == {"seconds": 0.0, "calls": 0, "skipped": "--warmup-seconds 0"}


def test_summary_is_best_and_median_over_shapes():
    assert gemm.summarise([{"n": 1, "tflops": 3.0}, {"n": 2, "tflops": 9.0}, {"n": 3, "tflops": 5.0}]) == {
        "best_tflops": 9.0, "best_n": 2, "median_tflops": 5.0,
        "shapes": [{"n": 1, "tflops": 3.0}, {"n": 2, "tflops": 9.0}, {"n": 3, "tflops": 5.0}]}


def test_a_matmul_that_raises_leaves_its_dtype_unmeasured_and_the_rank_going(monkeypatch):
    import collections
    import torch

    def fail(*_):
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB\nmore text")
    monkeypatch.setattr(gemm, "_time", fail)
    ctx = collections.namedtuple("Ctx", "device")(torch.device("cpu"))
    assert gemm._sweep(torch, ctx, None, "fp32", [64, 128], 1, 0) == {
        "unmeasured": "fp32 matmul at 64³ failed: CUDA out of memory. Tried to allocate 2.00 GiB"}
