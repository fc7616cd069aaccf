import pytest

from gpucheck_workload import hostlist, ranks
from gpucheck_workload.errors import WorkloadError


def test_torch_style_env_wins():
    env = {"RANK": "3", "WORLD_SIZE": "16", "LOCAL_RANK": "3", "LOCAL_WORLD_SIZE": "8", "MASTER_ADDR": "10.0.0.1",
           "MASTER_PORT": "1234", "GPUCHECK_NODE": "n1", "SLURM_PROCID": "0", "OMPI_COMM_WORLD_RANK": "0"}
    r = ranks.detect(env)
    assert (r.rank, r.world_size, r.local_rank, r.local_world_size, r.master_addr, r.master_port, r.launcher, r.node) == \
        (3, 16, 3, 8, "10.0.0.1", 1234, "env", "n1")


def test_open_mpi_on_one_node_uses_loopback():
    env = {"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "4", "SLURM_PROCID": "0", "SLURM_NTASKS": "1"}
    r = ranks.detect(env)
    assert (r.rank, r.world_size, r.local_rank, r.local_world_size, r.master_addr, r.master_port, r.launcher) == \
        (1, 4, 1, 4, "127.0.0.1", 29500, "mpi")


def test_open_mpi_across_nodes_needs_master_addr():
    env = {"OMPI_COMM_WORLD_RANK": "9", "OMPI_COMM_WORLD_SIZE": "16", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "8"}
    with pytest.raises(WorkloadError, match=r"^MASTER_ADDR is not set: under mpirun across nodes export it"):
        ranks.detect(env)
    env["MASTER_ADDR"] = "gpu-01"
    assert ranks.detect(env).master_addr == "gpu-01"


def test_slurm_takes_rank_0_host_from_the_nodelist_and_a_job_port():
    env = {"SLURM_PROCID": "9", "SLURM_NTASKS": "16", "SLURM_LOCALID": "1", "SLURM_NODEID": "1",
           "SLURM_JOB_NODELIST": "gpu-[07,09-10]", "SLURM_TASKS_PER_NODE": "8(x2)", "SLURM_JOB_ID": "123456"}
    r = ranks.detect(env)
    assert (r.rank, r.world_size, r.local_rank, r.local_world_size, r.master_addr, r.master_port, r.launcher) == \
        (9, 16, 1, 8, "gpu-07", 20000 + 123456 % 10000, "slurm")


def test_slurm_step_nodelist_and_explicit_master():
    env = {"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_LOCALID": "0", "SLURM_JOB_NODELIST": "a[1-9]",
           "SLURM_STEP_NODELIST": "a[4-5]", "MASTER_PORT": "4000"}
    r = ranks.detect(env)
    assert (r.master_addr, r.master_port) == ("a4", 4000)
    env["MASTER_ADDR"] = "head"
    assert ranks.detect(env).master_addr == "head"


def test_single_process_defaults():
    r = ranks.detect({})
    assert (r.rank, r.world_size, r.local_rank, r.master_addr, r.launcher) == (0, 1, 0, "127.0.0.1", "single")


def test_bad_values_are_named():
    with pytest.raises(WorkloadError, match=r"^RANK='x' is not an integer$"):
        ranks.detect({"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h"})
    with pytest.raises(WorkloadError, match=r"^rank 2 is outside the world of 2 ranks$"):
        ranks.detect({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h"})
    with pytest.raises(WorkloadError, match=r"^MASTER_ADDR is not set but WORLD_SIZE=2: set it to the host of rank 0$"):
        ranks.detect({"RANK": "0", "WORLD_SIZE": "2"})


@pytest.mark.parametrize("text,hosts", [
    ("node1", ["node1"]),
    ("node[1-3,5]", ["node1", "node2", "node3", "node5"]),
    ("gpu-[08-10],login", ["gpu-08", "gpu-09", "gpu-10", "login"]),
    ("r[1-2]n[01-02]", ["r1n01", "r1n02", "r2n01", "r2n02"]),
    ("a[1,3],b[2-3]-ib", ["a1", "a3", "b2-ib", "b3-ib"]),
    ("dgx[001-002]", ["dgx001", "dgx002"]),
])
def test_slurm_hostlists(text, hosts):
    assert hostlist.expand(text) == hosts
    assert hostlist.first_host(text) == hosts[0]


@pytest.mark.parametrize("text,message", [
    ("node[1-3", "bad Slurm hostlist 'node[1-3': unbalanced brackets"),
    ("node[3-1]", "bad Slurm hostlist 'node[3-1]': range '3-1' goes backwards"),
    ("node[a-b]", "bad Slurm hostlist 'node[a-b]': 'a-b' is not a number or a range"),
    ("", "empty Slurm hostlist ''"),
])
def test_bad_hostlists(text, message):
    with pytest.raises(WorkloadError) as e:
        hostlist.first_host(text)
    assert str(e.value) == message


def test_tasks_per_node():
    assert hostlist.expand_tasks_per_node("8(x2),4") == [8, 8, 4]
    assert hostlist.expand_tasks_per_node("2") == [2]
