"""Ranks from a real Slurm step (srun), no RANK/WORLD_SIZE: the test/infra/slurm.sh cluster."""
import os
import re
import subprocess

import pytest

from conftest import PYTHON, WORKLOAD

INFRA = [s for s in os.environ.get("GPUCHECK_INFRA", "").split(",") if s]


@pytest.mark.skipif("slurm" not in INFRA, reason="GPUCHECK_INFRA does not list slurm (scripts/test.sh starts it)")
def test_srun_two_nodes_four_ranks_find_each_other_from_slurm_variables():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    done = subprocess.run(["srun", "-N2", "-n4", "--ntasks-per-node=2", "--export=ALL,PYTHONPATH=" + WORKLOAD,
                           PYTHON, "-m", "gpucheck_workload", "collective", "--max-bytes", "64K", "--iters", "2",
                           "--warmup", "1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=180)
    assert done.returncode == 0, done.stderr
    ranks = re.findall(r"^#  Rank  (\d) Group  0 Pid", done.stdout, re.M)
    assert sorted(ranks) == ["0", "1", "2", "3"]
    assert "# Out of bounds values : 0 OK" in done.stdout
    assert re.search(r"^# Avg bus bandwidth    : \S+ $", done.stdout, re.M)
