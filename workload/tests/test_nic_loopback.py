"""nic-loopback: Azure's check_ib_bw_gdr command line per HCA (numactl on the HCA's NUMA node,
8 MiB, -x 0, -F, --report_gbits, --perform_warm_up, --use_cuda), the server and client on one node
and HCA, run against stand-in tools (named as such: a fake numactl that runs what follows its
options, a fake ib_write_bw that listens like the real server and whose client prints the real
captured GPUDirect table in test/fixtures/perftest/); and the exact reason for each thing missing."""
import argparse
import os
import sys

from conftest import tools_on_path
from gpucheck_workload import ib
from gpucheck_workload.kinds import nic, nic_loopback

CAPTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test", "fixtures", "perftest")

FAKE_PERFTEST = r'''#!%s
import os, socket, sys
args = sys.argv[1:]
port = int(args[args.index("-p") + 1])
if args[-1] == "127.0.0.1":
    socket.create_connection((args[-1], port), timeout=10).close()
    sys.stdout.write(open(os.path.join(%r, "ib_write_bw-gdr-dmabuf-h200-roce-gke.txt")).read())
else:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", port)); s.listen(1); s.settimeout(30); s.accept()
'''
# numactl -N n -m n CMD...: runs CMD
FAKE_NUMACTL = '#!/bin/sh\nshift 4\nexec "$@"\n'


def _sysfs(tmp_path, numa):
    root = tmp_path / "infiniband"
    for dev, node in numa.items():
        port = root / dev / "ports" / "1"
        port.mkdir(parents=True)
        (port / "state").write_text("4: ACTIVE\n")
        (port / "rate").write_text("400 Gb/sec (4X NDR)\n")
        (port / "link_layer").write_text("InfiniBand\n")
        (root / dev / "device").mkdir()
        (root / dev / "device" / "numa_node").write_text("%s\n" % node)
    return str(root)


def _tools(tmp_path, monkeypatch, names):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    bodies = {"ib_write_bw": FAKE_PERFTEST % (sys.executable, CAPTURES), "numactl": FAKE_NUMACTL, "nvidia-smi": "#!/bin/sh\nexit 0\n"}
    for name in names:
        path = os.path.join(str(bin_dir), name)
        with open(path, "w") as f:
            f.write(bodies[name])
        os.chmod(path, 0o755)


def _collect(sysfs, monkeypatch, hcas=""):
    monkeypatch.setattr(nic, "_hcas", lambda written: [{k: p[k] for k in ("device", "port", "rate_gbps", "state", "link_layer")} for p in ib.read_sysfs(sysfs)])
    return nic_loopback.collect(argparse.Namespace(hcas=hcas, size=8388608, timeout=30.0), sysfs)


def test_each_hca_runs_azures_command_looped_back_and_the_client_table_comes_back(tmp_path, monkeypatch):
    sysfs = _sysfs(tmp_path, {"mlx5_0": 0, "mlx5_1": 1})
    _tools(tmp_path, monkeypatch, ["ib_write_bw", "numactl", "nvidia-smi"])
    r = _collect(sysfs, monkeypatch)
    assert [(h["device"], h["numa_node"], h["gpu"], h["port_tcp"]) for h in r["hcas"]] == [("mlx5_0", 0, 0, 18510), ("mlx5_1", 1, 1, 18511)]
    second = r["hcas"][1]
    assert second["server"]["command"] == (
        "numactl -N 1 -m 1 ib_write_bw -p 18511 -s 8388608 -x 0 -F --report_gbits --perform_warm_up --use_cuda=1 -d mlx5_1 -i 1")
    assert second["client"]["command"] == second["server"]["command"] + " 127.0.0.1"
    assert second["client"]["rc"] == 0 and " 8388608    5000             140.55             140.40" in second["client"]["output"]
    assert second["gpu_source"] == "no topology from nvidia-smi: GPU 1 for the HCA listed 2nd, as Azure's check pairs them"


def test_missing_tools_no_gpu_and_no_numa_node_are_each_the_reason(tmp_path, monkeypatch):
    sysfs = _sysfs(tmp_path, {"mlx5_0": 0})
    _tools(tmp_path, monkeypatch, ["numactl", "nvidia-smi"])
    why = _collect(sysfs, monkeypatch)["hcas"][0]["why"]
    assert why.startswith("ib_write_bw not found on PATH on ") and why.endswith(": install perftest (Debian and RHEL: perftest; MLNX_OFED and DOCA ship it)")
    (tmp_path / "b").mkdir()
    _tools(tmp_path / "b", monkeypatch, ["ib_write_bw", "numactl"])
    assert _collect(sysfs, monkeypatch)["hcas"][0]["why"] == (
        "nvidia-smi not found on PATH: no NVIDIA driver, so no GPU for ib_write_bw --use_cuda (GPUDirect)")


def test_the_hcas_numa_node_as_azure_reads_it(tmp_path):
    sysfs = _sysfs(tmp_path, {"mlx5_0": 3, "mlx5_1": -1, "mlx5_2": "x"})
    one, two = tmp_path / "one", tmp_path / "two"
    (one / "node0").mkdir(parents=True)
    (two / "node0").mkdir(parents=True)
    (two / "node1").mkdir()
    assert nic_loopback.numa_node("mlx5_0", sysfs, str(two)) == (3, None)
    # -1 with one NUMA node: node 0 is the only place to pin
    assert nic_loopback.numa_node("mlx5_1", sysfs, str(one)) == (0, None)
    assert nic_loopback.numa_node("mlx5_1", sysfs, str(two)) == (None, (
        "%s/mlx5_1/device/numa_node is -1 on a machine with NUMA nodes node0, node1: the kernel does not know which one "
        "the HCA hangs off, so numactl cannot pin ib_write_bw to it as Azure's check does" % sysfs))
    assert nic_loopback.numa_node("mlx5_2", sysfs, str(two))[1] == (
        "%s/mlx5_2/device/numa_node could not be read ('x'): the HCA's NUMA node is unknown, so numactl cannot pin "
        "ib_write_bw to it as Azure's check does" % sysfs)
