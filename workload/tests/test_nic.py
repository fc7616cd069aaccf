"""nic: two real ranks on CPU (no InfiniBand here: the perftest metrics' reason, a TCP stream over
lo); the whole server/client sequence against a fake perftest (named as such: a script that listens
like the real server and prints a real captured client table; without perftest: test_nic_p2p.py);
the GPU nearest each NIC from a real `nvidia-smi topo -m`; and the exact reasons for a server that never listens or dies first."""
import json
import os
import subprocess
import sys

import pytest

from conftest import fixture_text, run_ranks, tools_on_path
from gpucheck_workload import nic_topo
from gpucheck_workload.kinds import nic

CAPTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test", "fixtures", "perftest")
SMALL = ["nic", "--tcp-bytes", str(4 * 1024 ** 2), "--tcp-pings", "10"]


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    return json.loads(lines[0].split(" ", 1)[1])


def test_two_cpu_ranks_without_infiniband_measure_tcp_over_lo():
    r = _result(run_ranks(2, SMALL))
    assert r["hcas"] == [] and r["no_ib"] == "no InfiniBand device (/sys/class/infiniband is empty)"
    assert (r["tcp"]["interface"], r["tcp"]["bytes"], r["tcp"]["pings"]) == ("lo", 4 * 1024 ** 2, 10)
    assert r["tcp"]["gbyte_s"] > 0 and r["tcp"]["rtt_us"] > 0


# a stand-in for perftest: the server listens on -p and waits for its client; the client connects
# and prints the captured table of the real tool it is named after
FAKE = r'''#!%s
import os, socket, sys
args = sys.argv[1:]
port = int(args[args.index("-p") + 1])
if "." in args[-1]:
    socket.create_connection((args[-1], port), timeout=10).close()
    name = {"ib_write_bw": "ib_send_bw-report-gbits-h100-nebius-ib.txt", "ib_read_lat": "ib_read_lat-roce-cx5-spiderpool.txt"}
    sys.stdout.write(open(os.path.join(%r, name[os.path.basename(sys.argv[0])])).read())
else:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", port)); s.listen(1); s.settimeout(30); s.accept()
'''


def test_each_hca_runs_server_then_client_and_the_client_output_comes_back(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    for name in ("ib_write_bw", "ib_read_lat"):
        path = os.path.join(str(bin_dir), name)
        with open(path, "w") as f:
            f.write(FAKE % (sys.executable, CAPTURES))
        os.chmod(path, 0o755)
    r = _result(run_ranks(2, SMALL + ["--hcas", "mlx5_0,mlx5_3:2", "--iters", "10"]))
    assert [(h["device"], h["port"], h["gpu_server"], h["source"]) for h in r["hcas"]] == [("mlx5_0", 1, None, "perftest"), ("mlx5_3", 2, None, "perftest")]
    first = r["hcas"][0]
    assert first["bw"]["command"] == "ib_write_bw -d mlx5_0 -i 1 -p 18515 -F -n 10 --report_gbits -s 1048576 127.0.0.1"
    assert first["lat"]["command"] == "ib_read_lat -d mlx5_0 -i 1 -p 18516 -F -n 10 127.0.0.1"
    assert first["bw"]["rc"] == 0 and "353.53" in first["bw"]["output"]
    assert r["hcas"][1]["lat"]["rc"] == 0 and "6.74" in r["hcas"][1]["lat"]["output"]


def test_a_server_that_never_listens_or_dies_first_is_named(monkeypatch):
    monkeypatch.setattr(nic, "SERVER_START_S", 0.5)
    quiet = subprocess.Popen(["sleep", "5"], stdout=subprocess.PIPE, universal_newlines=True)
    assert nic._listening(quiet, 18999, "the ib_write_bw server on n0 for mlx5_0") == {
        "why": "the ib_write_bw server on n0 for mlx5_0 did not listen on port 18999 within 0.5 s"}
    dead = subprocess.Popen(["sh", "-c", "echo ' Couldn'\"'\"'t listen to port 18999'; exit 1"], stdout=subprocess.PIPE, universal_newlines=True)
    assert nic._listening(dead, 18999, "the ib_write_bw server on n0 for mlx5_0") == {
        "why": "the ib_write_bw server on n0 for mlx5_0 exited with code 1 before listening: Couldn't listen to port 18999"}


def test_a_client_past_its_time_limit_is_named():
    got = nic._client(["sleep", "5"], 0.3, "the ib_read_lat client on n1 to n0 for mlx5_0")
    assert got == {"why": "the ib_read_lat client on n1 to n0 for mlx5_0 did not finish within 0.3 s", "command": "sleep 5"}


def test_the_gpu_nearest_each_nic_from_a_real_topo_m():
    near = nic_topo.nearest_gpus(fixture_text("topo-m-h100-8gpu-6nic-princeton-pli.txt"))
    # PIX cells: NIC0/1 on GPU0, NIC2 on GPU3, NIC3/4 on GPU4, NIC5 on GPU6
    assert near == {"mlx5_0": (0, "PIX"), "mlx5_1": (0, "PIX"), "mlx5_2": (3, "PIX"), "mlx5_3": (4, "PIX"),
                     "mlx5_4": (4, "PIX"), "mlx5_5": (6, "PIX")}
    assert nic_topo.nearest_gpus("") == {}
    assert nic_topo.nearest_gpus("NVIDIA-SMI has failed") == {}


def test_interface_of_an_address():
    ip = "1: lo    inet 127.0.0.1/8 scope host lo\n2: eth0    inet 10.0.0.2/24 brd 10.0.0.255 scope global eth0\n"
    assert nic.interface_of("10.0.0.2", ip) == "eth0"
    assert nic.interface_of("127.0.0.1", ip) == "lo"
    assert nic.interface_of("10.9.9.9", ip) == "10.9.9.9"


@pytest.mark.parametrize("args,message", [
    (["--iters", "0"], "--iters must be at least 1, got 0"),
    (["--tcp-bytes", "0"], "--tcp-bytes must be at least 1, got 0"),
])
def test_bad_arguments_are_one_line(args, message):
    outs = run_ranks(2, SMALL + args)
    assert [code for code, _, _ in outs] == [2, 2]
    assert outs[0][2].strip().splitlines()[-1] == "gpucheck-workload: error: " + message


def test_a_run_of_three_ranks_is_refused():
    outs = run_ranks(3, SMALL)
    assert outs[0][2].strip().splitlines()[-1] == "gpucheck-workload: error: nic pairs two ranks (one per node, rank 0 the server): this run has 3"
