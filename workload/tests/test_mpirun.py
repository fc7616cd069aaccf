"""Ranks from a real Open MPI launch (OMPI_COMM_WORLD_* only, no RANK/WORLD_SIZE)."""
import os
import re
import shutil
import stat
import subprocess

import pytest

from conftest import PYTHON, WORKLOAD

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not installed (scripts/ci-deps.sh installs openmpi-bin)")


def mpirun(args, n=2):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    return subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(n), "-x", "PYTHONPATH=" + WORKLOAD,
                           PYTHON, "-m", "gpucheck_workload"] + args, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=180)


def test_mpirun_ranks_meet_on_loopback():
    done = mpirun(["collective", "--max-bytes", "64K", "--iters", "2", "--warmup", "1"])
    assert done.returncode == 0, done.stderr
    assert sorted(re.findall(r"^#  Rank  (\d) Group", done.stdout, re.M)) == ["0", "1"]
    assert "# Out of bounds values : 0 OK" in done.stdout


def test_nccl_tests_under_mpirun_runs_one_rank_per_process(tmp_path):
    fake = tmp_path / "all_reduce_perf"
    fake.write_text('#!/bin/sh\necho "rank $OMPI_COMM_WORLD_RANK: $*"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    done = mpirun(["collective", "--impl", "nccl-tests", "--nccl-tests-dir", str(tmp_path), "--max-bytes", "1M"])
    assert done.returncode == 0, done.stderr
    lines = sorted(l for l in done.stdout.splitlines() if not l.startswith("GPUCHECK_NCCL"))
    assert lines == ["rank %d: -b 8 -e 1048576 -f 2 -n 20 -w 5 -d float -c 1 -g 1" % r for r in (0, 1)]
