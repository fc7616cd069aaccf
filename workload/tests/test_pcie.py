"""pcie on CPU: two real ranks copy host memory in both phases and say why the links are unread;
the GPU link read from real nvidia-smi -q captures (through a fake nvidia-smi) and the HCAs' links
from a sysfs tree laid out as the kernel lays it out; bad arguments are one line."""
import json
import os

import pytest

from conftest import fixture_text, run_cli, run_ranks, tool, tools_on_path, FIXTURES
from gpucheck_workload import pcie_link
from gpucheck_workload.kinds import pcie

SMALL = ["pcie", "--size", str(1024 ** 2), "--iters", "3", "--warmup", "1"]


def _result(outs):
    assert [code for code, _, _ in outs] == [0] * len(outs), [err for _, _, err in outs]
    lines = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    return json.loads(lines[0].split(" ", 1)[1])


def test_two_cpu_ranks_copy_in_both_phases_and_say_why_no_link_was_read():
    r = _result(run_ranks(2, SMALL))
    assert (r["world_size"], r["size"], r["iters"]) == (2, 1024 ** 2, 3)
    for rank in r["ranks"]:
        assert rank["device"]["type"] == "cpu"
        for phase in pcie.PHASES:
            got = rank[phase]
            assert (got["h2d"]["bytes"], got["d2h"]["bytes"], got["bidir"]["bytes"]) == (1024 ** 2, 1024 ** 2, 2 * 1024 ** 2)
            assert all(got[op]["best_gbps"] >= got[op]["median_gbps"] > 0 for op in pcie.OPS)
        # this machine has no nvidia-smi; the tests' PATH may, so either reason is a CPU's
        assert rank["link"]["unread"] in (pcie_link.NO_GPU, "no NVIDIA GPU in this rank: torch %s sees no CUDA device (torch.cuda.is_available() is False)" % r["torch"])
    # only local rank 0 reads the node's HCAs
    assert isinstance(r["ranks"][0]["nics"], list) and r["ranks"][1]["nics"] is None


def test_the_gpu_link_from_a_real_h100_capture():
    link = pcie_link.gpu_link(fixture_text("nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt"))
    assert link == {"gen": 5, "gen_max": 5, "width": 16, "width_max": 16, "replays": 67}


def test_the_gpu_link_of_a_gh200_capture_is_its_own_max():
    link = pcie_link.gpu_link(fixture_text("nvidia-smi-q-gh200-1gpu-550.127.05-aggregate-dbe.txt"))
    assert link == {"gen": 4, "gen_max": 4, "width": 1, "width_max": 1, "replays": 0}


def test_a_capture_without_a_gpu_section_is_unread():
    assert pcie_link.gpu_link("==============NVSMI LOG==============\n") == {"unread": "nvidia-smi -q printed no GPU section"}


def test_read_gpu_link_asks_nvidia_smi_about_this_gpu(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    capture = os.path.join(FIXTURES, "nvidia-smi-q-h200-1gpu-550.90.12.txt")
    tool(bin_dir, "nvidia-smi", '[ "$1 $2 $3" = "-q -i GPU-abc" ] && cat "%s" || { echo "No devices were found" >&2; exit 6; }' % capture)
    assert pcie_link.read_gpu_link("GPU-abc") == {"gen": 5, "gen_max": 5, "width": 16, "width_max": 16, "replays": 0}
    assert pcie_link.read_gpu_link("GPU-xyz") == {"unread": "nvidia-smi -q -i GPU-xyz exited 6: No devices were found"}
    assert pcie_link.read_gpu_link(None) == {"unread": "torch gives no GPU UUID, so nvidia-smi cannot be asked about this GPU"}


def test_without_nvidia_smi_the_link_is_unread_with_the_reason(tmp_path, monkeypatch):
    tools_on_path(tmp_path, monkeypatch)
    assert pcie_link.read_gpu_link("GPU-abc") == {"unread": "no NVIDIA GPU (nvidia-smi not found)"}


def _hca(root, pci_root, dev, bdf, files):
    pci = pci_root / bdf
    pci.mkdir(parents=True)
    for name, text in files.items():
        (pci / name).write_text(text + "\n")
    (root / dev).mkdir(parents=True)
    os.symlink(str(pci), str(root / dev / "device"))


def test_hca_links_from_sysfs(tmp_path):
    root, pci_root = tmp_path / "infiniband", tmp_path / "pci"
    full = {"current_link_speed": "32.0 GT/s PCIe", "max_link_speed": "32.0 GT/s PCIe", "current_link_width": "16", "max_link_width": "16"}
    _hca(root, pci_root, "mlx5_0", "0000:1a:00.0", full)
    _hca(root, pci_root, "mlx5_1", "0000:2b:00.0", dict(full, current_link_speed="16.0 GT/s PCIe", current_link_width="8"))
    _hca(root, pci_root, "mlx5_2", "0000:3c:00.0", {"current_link_speed": "Unknown", "max_link_speed": "32.0 GT/s PCIe", "max_link_width": "16"})
    nics = pcie_link.nic_links(str(root))
    host_bridge = lambda bdf: {"pci_bus_id": None, "note": "no PCIe port above %s (its parent pci is the host bridge)" % bdf}
    assert nics[:2] == [
        {"device": "mlx5_0", "pci_bus_id": "0000:1a:00.0", "speed_gts": 32.0, "speed_max_gts": 32.0, "width": 16, "width_max": 16,
         "upstream": host_bridge("0000:1a:00.0")},
        {"device": "mlx5_1", "pci_bus_id": "0000:2b:00.0", "speed_gts": 16.0, "speed_max_gts": 32.0, "width": 8, "width_max": 16,
         "upstream": host_bridge("0000:2b:00.0")},
    ]
    unread = nics[2]
    assert (unread["speed_gts"], unread["width"]) == (None, None)
    pci = str(root / "mlx5_2" / "device")
    assert unread["unread"] == "%s/current_link_speed says 'Unknown'; %s/current_link_width: No such file or directory" % (pci, pci)


def test_an_hca_behind_a_switch_port_reports_the_port_s_capability(tmp_path):
    # the sysfs shape of an HGX HCA: root port → switch upstream → switch downstream port → the HCA;
    # a Gen5 x16 HCA in a slot whose port allows Gen4 x16 (the lower one is what it can train to)
    root = tmp_path / "infiniband"
    port = tmp_path / "devices" / "pci0000:17" / "0000:17:01.0" / "0000:18:00.0" / "0000:19:00.0"
    port.mkdir(parents=True)
    (port / "max_link_speed").write_text("16.0 GT/s PCIe\n")
    (port / "max_link_width").write_text("16\n")
    full = {"current_link_speed": "16.0 GT/s PCIe", "max_link_speed": "32.0 GT/s PCIe", "current_link_width": "16", "max_link_width": "16"}
    _hca(root, port, "mlx5_0", "0000:1a:00.0", full)
    # one whose port's files cannot be read names the file
    bare = tmp_path / "devices" / "pci0000:a0" / "0000:a0:03.0"
    bare.mkdir(parents=True)
    _hca(root, bare, "mlx5_1", "0000:a1:00.0", full)
    nics = pcie_link.nic_links(str(root))
    assert nics[0]["upstream"] == {"pci_bus_id": "0000:19:00.0", "speed_max_gts": 16.0, "width_max": 16}
    assert nics[1]["upstream"] == {"pci_bus_id": "0000:a0:03.0", "speed_max_gts": None, "width_max": None,
                                   "unread": "%s/max_link_speed: No such file or directory; %s/max_link_width: No such file or directory" % (bare, bare)}


def test_no_infiniband_directory_is_no_hca(tmp_path):
    assert pcie_link.nic_links(str(tmp_path / "absent")) == []


def test_link_speed_text():
    assert [pcie_link.gts(t) for t in ("32.0 GT/s PCIe", "2.5 GT/s", "Unknown", "", None)] == [32.0, 2.5, None, None, None]


@pytest.mark.parametrize("args,message", [
    (["--iters", "0"], "--iters must be at least 1 and --warmup at least 0"),
    (["--size", "0"], "--size must be at least 1 byte, got 0"),
])
def test_bad_arguments_are_one_line_exit_2(args, message):
    done = run_cli(["pcie"] + args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gpucheck-workload: error: %s\n" % message)
