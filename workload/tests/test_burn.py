"""burn on CPU: two real ranks load for a few seconds in step and report bounded summaries; a rank
slowed for real (sharing its CPU with a busy process) is flagged by the straggler rule; the
summaries are exact on known inputs; bad arguments are one line."""
import json
import os

import pytest

from conftest import WORKLOAD, run_cli, run_ranks
from gpucheck_workload import burn_stats
from gpucheck_workload.kinds import burn

# the straggler rule lib/kinds/burn/parse.ts applies (STRAGGLER_CV, STRAGGLER_MAX_AVG)
CV, MAX_AVG = 0.05, 1.5


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    return json.loads(lines[0].split(" ", 1)[1])


def _flagged(rank):
    it = rank["iteration"]
    return it["std_s"] / it["mean_s"] > CV or it["max_s"] / it["mean_s"] > MAX_AVG


def test_two_cpu_ranks_load_for_three_seconds_in_step():
    r = _result(run_ranks(2, ["burn", "--duration", "3", "--window", "1"]))
    assert (r["world_size"], r["backend"], r["duration_s"], r["gemm_n"]) == (2, "gloo", 3.0, 256)
    a, b = r["ranks"]
    # every iteration ends in an all-reduce, so both ranks ran exactly as many
    assert a["iteration"]["n"] == b["iteration"]["n"] > 10
    for rank in (a, b):
        assert rank["device"]["type"] == "cpu" and rank["gemm_dtype"] == "fp32"
        # the run stops when any rank passes 3 s: another may be an iteration short of it
        assert 2.5 < rank["elapsed_s"] < 4.5
        assert [w["start_s"] for w in rank["windows"]] == [0.0, 1.0, 2.0]
        assert sum(w["iterations"] for w in rank["windows"]) == rank["iteration"]["n"]
        assert rank["edges"]["span_s"] == pytest.approx(0.3)  # a tenth of a run under two minutes
        assert rank["edges"]["first"]["iterations"] > 0 and rank["edges"]["last"]["iterations"] > 0
        assert rank["gemm_tflops"] > 0 and rank["copy_gbps"] > 0
        assert len(rank["raw_s"]) == rank["iteration"]["n"] and rank["raw_truncated"] is False


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs: one for each rank")
def test_a_rank_sharing_its_cpu_with_a_busy_process_is_flagged():
    script = os.path.join(WORKLOAD, "tests", "helpers", "slow_rank.py")
    r = _result(run_ranks(2, ["burn", "--duration", "3"], script=script))
    slowed = r["ranks"][1]
    it = slowed["iteration"]
    assert _flagged(slowed), it
    # its slowest iterations wait out part of the busy process's 50 ms turns on the CPU, but how much
    # depends on the scheduler's slices under the machine's load (CI once saw 17.6 ms): the flag above,
    # relative to the rank's own iterations, is what is asserted, not a duration
    # Rank 0 is not asserted steady: a CI machine's shared CPUs are not (measured on a 2-core VM
    # shared with other jobs: CV 7-8 % on both ranks with nothing injected, above the 5 % rule).


def test_the_checksum_runs_throughout_and_agrees_on_healthy_ranks():
    # every 2nd iteration: on a busy 2-core CI (pytest beside the integration tier) a 2 s burn ran only 7
    # iterations, and every 5th gave 2 checks; every 2nd still checks several times under that load
    r = _result(run_ranks(2, ["burn", "--duration", "2", "--checksum-every", "2"]))
    assert r["checksum_every"] == 2
    for rank in r["ranks"]:
        c = rank["checksum"]
        # the first iteration and every second after it, while the load runs
        assert c["checks"] == (rank["iteration"]["n"] + 1) // 2 > 2
        assert (c["n"], c["dtype"], c["every"], c["mismatches"], c["no_majority"], c["mismatch_at_s"]) == (256, "fp32", 2, 0, 0, [])


def test_a_rank_that_corrupts_now_and_then_under_load_is_counted_at_each_check(monkeypatch):
    # rank 2 flips one bit of its product at the second and fourth checks only: intermittent corruption
    monkeypatch.setenv(burn.FAULT_RANK_ENV, "2")
    monkeypatch.setenv(burn.FAULT_CHECKS_ENV, "1,3")
    r = _result(run_ranks(3, ["burn", "--duration", "2", "--checksum-every", "1"]))
    got = [(x["checksum"]["mismatches"], x["checksum"]["self_mismatches"], x["checksum"]["cross_mismatches"]) for x in r["ranks"]]
    assert got == [(0, 0, 0), (0, 0, 0), (2, 2, 2)]
    assert len(r["ranks"][2]["checksum"]["mismatch_at_s"]) == 2
    assert r["ranks"][2]["checksum"]["checks"] >= 4  # the fourth check (3) ran: both faults were seen


def _checks(rank, models, prints):
    c = burn.Checksums(rank, models, 1, 256, "fp32")
    for i, p in enumerate(prints):
        c.add(float(i), p)
    return c.result()


def test_a_split_without_majority_counts_the_rank_that_changed_or_else_every_rank():
    # two GPUs that disagree from the start: neither can be trusted, so both are counted, and the split is said
    got = _checks(0, ["H100", "H100"], [[(1, 1), (2, 2)]])
    assert (got["mismatches"], got["cross_mismatches"], got["no_majority"]) == (1, 1, 1)
    assert _checks(1, ["H100", "H100"], [[(1, 1), (2, 2)]])["mismatches"] == 1
    # two GPUs that agreed, then one's product changed: that one is counted, not its steady peer
    prints = [[(1, 1), (1, 1)], [(1, 1), (1, 2)], [(1, 1), (1, 1)]]
    steady, changed = _checks(0, ["H100", "H100"], prints), _checks(1, ["H100", "H100"], prints)
    assert (steady["mismatches"], steady["no_majority"]) == (0, 1)
    assert (changed["mismatches"], changed["self_mismatches"], changed["cross_mismatches"], changed["mismatch_at_s"]) == (1, 1, 1, [1.0])
    # only like models are compared
    assert _checks(0, ["H100", "A100"], [[(1, 1), (2, 2)]])["mismatches"] == 0


def test_one_gpu_is_compared_with_its_own_first_product():
    # a single GPU has no peer: a product that changes between checks is still a mismatch
    got = _checks(0, ["H100"], [[(1, 1)], [(1, 1)], [(1, 3)], [(1, 1)]])
    assert (got["checks"], got["mismatches"], got["self_mismatches"], got["cross_mismatches"], got["mismatch_at_s"]) == (4, 1, 1, 0, [2.0])


def test_summaries_of_known_iterations():
    b = burn_stats.Burn(gemm_flop=2e12, copy_bytes=4e9, duration_s=20, window_s=10, raw_cap=3)
    for start, gemm_s in ((0.5, 1.0), (1.5, 1.0), (12.0, 2.0), (19.0, 4.0)):
        b.add(start, gemm_s, 1.0, 0.5)
    out = b.result(20.0)
    assert out["iteration"]["mean_s"] == 3.0 and out["iteration"]["max_s"] == 5.0
    assert out["iteration"]["std_s"] == pytest.approx(((1 + 1 + 0 + 4) / 4) ** 0.5)
    assert [(w["start_s"], w["iterations"], w["gemm_tflops"]) for w in out["windows"]] == [(0.0, 2, 2.0), (10.0, 2, pytest.approx(4 / 6))]
    # span: a tenth of 20 s; the first 2 s hold two iterations, the last 2 s (from 18 s) one
    assert out["edges"] == {"span_s": 2.0, "first": {"iterations": 2, "gemm_tflops": 2.0, "copy_gbps": 4.0},
                            "last": {"iterations": 1, "gemm_tflops": 0.5, "copy_gbps": 4.0}}
    assert (out["raw_s"], out["raw_truncated"]) == ([2.0, 2.0, 3.0], True)
    assert burn_stats.edge_span(600) == 60.0 and burn_stats.edge_span(90) == 9.0


@pytest.mark.parametrize("args,message", [
    (["--duration", "0"], "--duration must be more than 0 seconds, got 0.0"),
    (["--window", "-1"], "--window must be more than 0 seconds, got -1.0"),
    (["--copy-size", "3"], "--copy-size must be at least 4, got 3"),
    (["--gemm-size", "0"], "--gemm-size must be at least 1, got 0"),
    (["--checksum-every", "0"], "--checksum-every must be at least 1, got 0"),
])
def test_bad_arguments_are_one_line_exit_2(args, message):
    done = run_cli(["burn"] + args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gpucheck-workload: error: %s\n" % message)
