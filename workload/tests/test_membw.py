"""membw on CPU: two real ranks measure copy and triad with the byte counts the kind documents, an
operation that fails is named as unmeasured, and bad arguments are one line."""
import json

import pytest

from conftest import run_cli, run_ranks
from gpucheck_workload import bandwidth
from gpucheck_workload.kinds import membw

SMALL = ["membw", "--size", str(1024 ** 2), "--iters", "3", "--warmup", "1"]


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    assert all("GPUCHECK_RESULT" not in out for _, out, _ in outs[1:])  # only rank 0 reports
    return json.loads(lines[0].split(" ", 1)[1])


def test_two_cpu_ranks_measure_copy_and_triad():
    r = _result(run_ranks(2, SMALL))
    assert (r["world_size"], r["size"], r["iters"], r["warmup"]) == (2, 1024 ** 2, 3, 1)
    assert [x["rank"] for x in r["ranks"]] == [0, 1]
    for rank in r["ranks"]:
        assert rank["device"]["type"] == "cpu"
        copy, triad = rank["ops"]["copy"], rank["ops"]["triad"]
        # copy reads and writes each byte once, the triad reads two buffers and writes one
        assert (copy["bytes"], triad["bytes"]) == (2 * 1024 ** 2, 3 * 1024 ** 2)
        for got in (copy, triad):
            assert len(got["gbps"]) == 3
            assert got["best_gbps"] == max(got["gbps"]) >= got["median_gbps"] > 0


def test_the_triad_computes_b_plus_s_times_c():
    import torch
    fn = membw._operation(torch, torch.device("cpu"), "triad", 8)
    out = fn()
    assert out.tolist() == [1.0 + membw.TRIAD_SCALAR * 2.0] * 8


def test_an_operation_that_raises_is_unmeasured_and_the_rank_goes_on(monkeypatch):
    import torch

    def fail(*_):
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB\nmore text")
    monkeypatch.setattr(bandwidth, "seconds_per_call", fail)
    assert membw.measure(torch, torch.device("cpu"), "copy", 16, 1, 0) == {
        "unmeasured": "copy of 64-byte buffers failed: CUDA out of memory. Tried to allocate 2.00 GiB"}


def test_summary_is_the_fastest_and_the_median_call_in_decimal_gb():
    assert bandwidth.summary(4e9, [2.0, 1.0, 4.0]) == {"best_gbps": 4.0, "median_gbps": 2.0, "bytes": 4e9, "gbps": [2.0, 4.0, 1.0]}
    with pytest.raises(RuntimeError, match=r"^no call took measurable time \(1 calls of 8 bytes\)$"):
        bandwidth.summary(8, [0.0])


@pytest.mark.parametrize("args,message", [
    (["--iters", "0"], "--iters must be at least 1 and --warmup at least 0"),
    (["--warmup", "-1"], "--iters must be at least 1 and --warmup at least 0"),
    (["--size", "3"], "--size must be at least 4 bytes (one float32), got 3"),
])
def test_bad_arguments_are_one_line_exit_2(args, message):
    done = run_cli(["membw"] + args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gpucheck-workload: error: %s\n" % message)
