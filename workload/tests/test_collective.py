"""The collective benchmark on real gloo ranks: the #wrong check, then whole runs of every op."""
import json
import os
import re

import pytest

from conftest import run_ranks
from test_cli import untagged

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers", "corrupt_check.py")


@pytest.mark.parametrize("op,dtype", [("all_reduce", "float"), ("all_gather", "half"), ("reduce_scatter", "int32"),
                                      ("alltoall", "double"), ("broadcast", "float")])
def test_wrong_check_catches_a_corrupted_buffer(op, dtype):
    results = run_ranks(2, [op, dtype], script=HELPER, timeout=60)
    assert [rc for rc, _, _ in results] == [0, 0], [err for _, _, err in results]
    reports = [json.loads(out.strip().splitlines()[-1]) for _, out, _ in results]
    for rank, rep in enumerate(reports):
        for placement, r in rep.items():
            assert r["clean"] == 0, (rank, placement)
            assert r["local"] == (2 if rank == 1 else 0), (rank, placement)
            assert r["total"] == 2, (rank, placement)
            if placement == "out_of_place":
                # the receive buffer holds only the sentinel when the collective never ran
                assert r["untouched"] == r["elements"], (rank, placement)
            elif not (op == "broadcast" and rank == 0):
                # in place the buffer starts with this rank's own data, which can equal the
                # expected value by chance (as in nccl-tests); most elements must still differ
                assert r["untouched"] > r["elements"] // 3, (rank, placement)


ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)" + r"\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)" * 2 + r"$")


def parse(out):
    rows = [ROW.match(l).groups() for l in out.splitlines() if ROW.match(l)]
    avg = re.search(r"^# Avg bus bandwidth    : (\S+) $", out, re.M)
    oob = re.search(r"^# Out of bounds values : (\d+) (OK|FAILED)$", out, re.M)
    return rows, float(avg.group(1)), int(oob.group(1))


@pytest.mark.parametrize("op,redop,root", [("all_reduce", "sum", "-1"), ("all_gather", "none", "-1"),
                                           ("reduce_scatter", "sum", "-1"), ("alltoall", "none", "-1"),
                                           ("broadcast", "none", "0")])
def test_two_gloo_ranks_print_the_nccl_tests_layout(op, redop, root):
    args = ["collective", "--op", op, "--min-bytes", "64", "--max-bytes", "1M", "--factor", "8", "--iters", "3", "--warmup", "1"]
    (rc0, out0, err0), (rc1, out1, err1) = run_ranks(2, args)
    assert (rc0, rc1) == (0, 0), err0 + err1
    assert untagged(out1) == "", "only rank 0 prints"
    lines = untagged(out0).splitlines()
    assert lines[1] == "# Collective test starting: %s_perf" % op
    assert lines[2].startswith("# nThread 1 nGpus 1 minBytes 64 maxBytes 1048576 step: 8(factor) warmup iters: 1 iters: 3 ")
    assert len([l for l in lines if re.match(r"^#  Rank  [01] Group  0 Pid +\d+ on +\S+ device -1 \[0000:00:00\] CPU ", l)]) == 2
    assert lines[-3:] == ["# Collective test concluded: %s_perf" % op, "#", ""]
    rows, avg, oob = parse(out0)
    assert [int(r[0]) for r in rows] == [64, 512, 4096, 32768, 262144]
    assert all(r[2:5] == ("float", redop, root) for r in rows)
    assert all(r[8] == "0" for r in rows)  # out-of-place #wrong
    assert all(r[12] == ("N/A" if op == "alltoall" else "0") for r in rows)  # in-place #wrong
    assert oob == 0 and avg > 0
    progress = [json.loads(l.split(" ", 1)[1]) for l in lines if l.startswith("GPUCHECK_PROGRESS ")]
    assert [p["size"] for p in progress] == [64, 512, 4096, 32768, 262144]
    assert progress[-1]["busbw"] > 0 and progress[-1]["wrong"] == 0


@pytest.mark.parametrize("check_iters,wrong", [(3, 1), (1, 0)])
def test_every_checked_call_is_checked_so_a_fault_in_one_of_them_is_seen(monkeypatch, check_iters, wrong):
    # rank 1 corrupts one element of the third checked call only (fill 3: one size, out of place):
    # three checked calls per placement see it, one check per size (nccl-tests -c 1) cannot
    monkeypatch.setenv("GPUCHECK_COLLECTIVE_FAULT_RANK", "1")
    monkeypatch.setenv("GPUCHECK_COLLECTIVE_FAULT_REP", "3")
    args = ["collective", "--min-bytes", "4K", "--max-bytes", "4K", "--iters", "3", "--warmup", "1", "--check-iters", str(check_iters)]
    (rc0, out0, err0), (rc1, _, err1) = run_ranks(2, args)
    assert (rc0, rc1) == ((7, 7) if wrong else (0, 0)), err0 + err1  # nccl-tests exits 7 on wrong data
    lines = untagged(out0).splitlines()
    assert " validation: %d " % check_iters in lines[2]
    rows, _, oob = parse(out0)
    assert [(r[8], r[12]) for r in rows] == [(str(wrong), "0")]  # out-of-place #wrong, in-place #wrong
    assert oob == wrong


def test_no_check_prints_na_and_validation_0():
    (rc, out, err), _ = run_ranks(2, ["collective", "--max-bytes", "4K", "--min-bytes", "1K", "--iters", "2", "--no-check"])
    assert rc == 0, err
    assert "validation: 0" in out
    rows, _, oob = parse(out)
    assert rows and all(r[8] == "N/A" and r[12] == "N/A" for r in rows) and oob == 0


def test_unsupported_dtype_on_gloo_is_one_line():
    results = run_ranks(2, ["collective", "--dtype", "bfloat16", "--max-bytes", "1K"])
    import torch
    if torch.__version__.startswith("1."):
        for rc, out, err in results:
            assert rc == 2 and untagged(out) == ""
            assert err.startswith("gpucheck-workload: error: --dtype bfloat16 is not supported by the gloo backend of torch ")
            assert len(err.splitlines()) == 1
    else:  # newer gloo reduces bfloat16
        assert [rc for rc, _, _ in results] == [0, 0]


LESS_MEMORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers", "less_memory.py")


def test_ranks_agree_on_the_smallest_memory_limit():
    # rank 1: 64 KiB available, half of it over 2 local ranks, 4 buffers with the check → 4096 bytes.
    # Each rank sweeping its own limit would leave rank 0 waiting in a 16 KiB call rank 1 never makes.
    args = ["collective", "--min-bytes", "64", "--max-bytes", "16K", "--factor", "4", "--iters", "2", "--warmup", "1"]
    (rc0, out0, err0), (rc1, out1, err1) = run_ranks(2, args, script=LESS_MEMORY, timeout=60)
    assert (rc0, rc1) == (0, 0), err0 + err1
    assert "#\n# Reducing maxBytes to 4096 due to memory limitation\n" in out0
    rows, _, oob = parse(out0)
    assert [int(r[0]) for r in rows] == [64, 256, 1024, 4096] and oob == 0


def test_host_memory_is_read_from_meminfo(tmp_path):
    from gpucheck_workload.kinds import collective
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    8192000 kB\n")
    assert collective._host_available(str(meminfo)) == 8192000 * 1024
    meminfo.write_text("MemTotal:       16384000 kB\nMemFree:         1000 kB\n")  # kernels before 3.14
    assert collective._host_available(str(meminfo)) is None
    assert collective._host_available(str(tmp_path / "absent")) is None
