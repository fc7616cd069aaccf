"""nvlink on CPU: three real ranks (gloo) time every ordered pair alone and every pair at once, ranks
on different hosts are never paired, and bad arguments are one line."""
import json

import pytest

from conftest import run_cli, run_ranks
from gpucheck_workload.kinds import nvlink

SMALL = ["nvlink", "--size", str(64 * 1024), "--iters", "3", "--warmup", "1"]


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    assert all("GPUCHECK_RESULT" not in out for _, out, _ in outs[1:])  # only rank 0 reports
    return json.loads(lines[0].split(" ", 1)[1])


def test_three_cpu_ranks_cover_every_ordered_pair_alone_and_all_at_once():
    r = _result(run_ranks(3, SMALL))
    assert (r["world_size"], r["backend"], r["size"], r["iters"], r["warmup"]) == (3, "gloo", 64 * 1024, 3, 1)
    assert [x["rank"] for x in r["ranks"]] == [0, 1, 2]
    assert all(x["device"]["type"] == "cpu" for x in r["ranks"])
    every = [(s, d) for s in range(3) for d in range(3) if s != d]
    assert [(p["src"], p["dst"]) for p in r["pairs"]] == every
    # shift 1: each rank receives from the one before it; shift 2: from the one two before
    assert [(p["shift"], p["src"], p["dst"]) for p in r["all"]] == [(1, 2, 0), (1, 0, 1), (1, 1, 2), (2, 1, 0), (2, 2, 1), (2, 0, 2)]
    assert sorted((p["src"], p["dst"]) for p in r["all"]) == every
    for p in r["pairs"] + r["all"]:
        assert p["bytes"] == 64 * 1024 and len(p["calls"]) == 3
        assert p["best_gbps"] == max(p["calls"]) >= p["median_gbps"] > 0
        assert min(p["calls"]) <= p["gbps"] <= max(p["calls"])


def test_ranks_on_different_hosts_are_never_paired():
    peers = nvlink.node_peers(["a", "b", "a", "b", "a"])
    assert peers == [[0, 2, 4], [1, 3], [0, 2, 4], [1, 3], [0, 2, 4]]
    assert nvlink.ordered_pairs(peers) == [(0, 2), (0, 4), (1, 3), (2, 0), (2, 4), (3, 1), (4, 0), (4, 2)]


def test_the_rate_is_all_bytes_over_all_time_in_decimal_gb():
    assert nvlink.rate(1e9, [0.5, 1.0, 0.5]) == {"gbps": 1.5, "best_gbps": 2.0, "median_gbps": 2.0, "bytes": 1e9, "calls": [2.0, 1.0, 2.0]}


@pytest.mark.parametrize("args,message", [
    (["--iters", "0"], "--iters must be at least 1 and --warmup at least 0"),
    (["--warmup", "-1"], "--iters must be at least 1 and --warmup at least 0"),
    (["--size", "0"], "--size must be at least 1 byte, got 0"),
    ([], "nvlink needs at least 2 ranks (a link has two ends), got 1"),
])
def test_bad_arguments_are_one_line_exit_2(args, message):
    done = run_cli(["nvlink"] + args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gpucheck-workload: error: %s\n" % message)
