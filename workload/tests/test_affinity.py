"""CPU shares per rank: cpulists, nvidia-smi topo -m's NUMA column, the split, and the bind itself."""
import os
import subprocess
from types import SimpleNamespace

import pytest

from conftest import PYTHON, fixture_text, workload_env
from gpucheck_workload import affinity

TOPO = "topo-m-h100-8gpu-6nic-princeton-pli.txt"


def test_cpulist_round_trip():
    assert affinity.parse_cpulist("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert affinity.format_cpulist([11, 0, 1, 2, 3, 8, 10]) == "0-3,8,10-11"
    with pytest.raises(ValueError):
        affinity.parse_cpulist("5-2")


def test_topo_numa_reads_the_column_by_its_header():
    # GPU0-3 have an empty CPU Affinity cell and NUMA 0; GPU4-7 NUMA 1 (a real della-k17g3 capture)
    assert affinity.topo_numa(fixture_text(TOPO)) == {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}
    assert affinity.topo_numa("") == {}
    assert affinity.topo_numa("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n") == {}


def nodes_of_two_sockets(node):
    return {0: list(range(0, 48)), 1: list(range(48, 96))}.get(node, [])


def test_eight_ranks_share_their_gpus_numa_node():
    groups = affinity.numa_groups(8, {}, fixture_text(TOPO), nodes_of_two_sockets)
    shares = [affinity.share(r, 8, range(96), groups) for r in range(8)]
    assert shares[0] == list(range(0, 12)) and shares[3] == list(range(36, 48))
    assert shares[4] == list(range(48, 60)) and shares[7] == list(range(84, 96))
    assert sorted(c for s in shares for c in s) == list(range(96))  # disjoint, nothing left out


def test_visible_devices_map_ranks_to_physical_gpus():
    env = {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}
    groups = affinity.numa_groups(4, env, fixture_text(TOPO), nodes_of_two_sockets)
    assert affinity.share(0, 4, range(96), groups) == list(range(48, 60))
    # UUIDs cannot be looked up in topo -m: the plain split of what the process may use
    uuid = affinity.numa_groups(2, {"CUDA_VISIBLE_DEVICES": "GPU-8f3e,GPU-0c1d"}, fixture_text(TOPO), nodes_of_two_sockets)
    assert uuid == {} and affinity.share(1, 2, range(8), uuid) == [4, 5, 6, 7]


def test_missing_topology_or_too_few_cpus():
    # no nvidia-smi (a CPU node): an even split of the inherited mask
    assert affinity.numa_groups(2, {}, None, nodes_of_two_sockets) == {}
    assert affinity.share(1, 2, [2, 3, 6, 7], {}) == [6, 7]
    # a container holding 4 CPUs of NUMA node 1 only: node 0's ranks fall back to the plain split
    groups = affinity.numa_groups(8, {}, fixture_text(TOPO), nodes_of_two_sockets)
    assert affinity.share(0, 8, [50, 51, 52, 53, 54, 55, 56, 57], groups) == [50]
    # fewer CPUs than ranks: every rank keeps them all rather than none
    assert affinity.share(2, 4, [0, 1], {}) == [0, 1]


def test_bind_only_when_the_launcher_asks(monkeypatch):
    ranks = SimpleNamespace(local_rank=1, local_world_size=2)
    assert affinity.bind(ranks, {}) is None
    assert affinity.bind(ranks, {"GPUCHECK_CPU_BIND": "none"}) is None


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs")
def test_ranks_asked_to_split_run_on_disjoint_cpus():
    code = "import os; from gpucheck_workload import affinity, ranks; " \
           "affinity.bind(ranks.detect()); print(','.join(map(str, sorted(os.sched_getaffinity(0)))))"
    shares = []
    for r in range(2):
        env = workload_env(RANK=r, WORLD_SIZE=2, LOCAL_RANK=r, LOCAL_WORLD_SIZE=2, MASTER_ADDR="127.0.0.1",
                           GPUCHECK_CPU_BIND="split")
        done = subprocess.run([PYTHON, "-c", code], env=env, stdout=subprocess.PIPE, universal_newlines=True, check=True)
        shares.append(set(int(c) for c in done.stdout.strip().split(",")))
    assert shares[0] and shares[1] and not shares[0] & shares[1]
