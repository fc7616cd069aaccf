"""The inventory from real captures, and what it says when a source cannot be read.

Fake `nvidia-smi`, `ibstat`, `dmesg` and `journalctl` on PATH answer from the real node samples (or
fail the way the real tools fail for an unprivileged user), so collect() runs its real probes.
"""
import errno

import pytest

from conftest import FIXTURES, fixture_text, tool, tools_on_path
from gpucheck_workload import nvsmi, xid
from gpucheck_workload.kinds import inventory

H100 = "nvidia-smi-q-h100-8gpu-565.57.01.txt"
IBSTAT = "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"


@pytest.fixture
def node(tmp_path, monkeypatch):
    """A node whose tools are shell scripts in tmp_path/bin, ahead of everything else on PATH."""
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    monkeypatch.setattr(inventory.ib, "SYSFS", str(tmp_path / "no-sysfs"))

    def kmsg_denied(*_a, **_k):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(xid, "Kmsg", kmsg_denied)
    tool(bin_dir, "dmesg", 'echo "dmesg: read kernel buffer failed: Operation not permitted" >&2; exit 1')
    tool(bin_dir, "journalctl", 'echo "-- No entries --"')
    return bin_dir


def test_ecc_split_and_settings_from_h100_565():
    _, _, gpus = nvsmi.parse_query(fixture_text(H100))
    g = gpus[0]
    assert (g["ecc_dram_uncorrected_volatile"], g["ecc_sram_uncorrected_volatile"], g["sram_threshold_exceeded"]) == (0, 0, False)
    assert (g["fabric_state"], g["fabric_status"]) == ("Completed", "Success")
    assert (g["power_limit_w"], g["max_clock_sm_mhz"], g["app_clock_graphics_mhz"]) == (700, 1980, 1980)
    assert (g["persistence_mode"], g["mig_mode"], g["ecc_mode"]) == ("Enabled", "Disabled", "Enabled")


def test_aggregate_dbe_stays_out_of_the_volatile_counters():
    _, _, [g] = nvsmi.parse_query(fixture_text("nvidia-smi-q-gh200-1gpu-550.127.05-aggregate-dbe.txt"))
    assert (g["ecc_dram_uncorrected_volatile"], g["ecc_dram_uncorrected_aggregate"]) == (0, 1)


def test_old_driver_power_limit_and_ecc_off():
    _, _, [g] = nvsmi.parse_query(fixture_text("nvidia-smi-q-i0-h800-525.105.17-throttle-reasons-naming.txt"))
    assert g["power_limit_w"] == 700 and g["ecc_sram_uncorrected_volatile"] is None and g["fabric_state"] == "Completed"


def test_unprivileged_node_with_failing_nvlink_status(node):
    tool(node, "nvidia-smi", 'case "$1" in -q) cat "%s/%s";; *) echo "Failed to get NVLink status" >&2; exit 255;; esac' % (FIXTURES, H100))
    tool(node, "ibstat", 'cat "%s/%s"' % (FIXTURES, IBSTAT))
    inv = inventory.collect()
    assert len(inv["gpus"]) == 8 and all(g["nvlinks"] is None for g in inv["gpus"])
    assert inv["unmeasured"]["nvlinks"] == "nvidia-smi nvlink -s exited 255: Failed to get NVLink status"
    assert inv["xid_events"] is None
    assert inv["unmeasured"]["xid_events"] == (
        "the kernel log could not be read (/dev/kmsg: Operation not permitted; dmesg --time-format=iso exited 1: "
        "dmesg: read kernel buffer failed: Operation not permitted; journalctl returned no kernel messages): "
        "run as root, as a user in the adm or systemd-journal group, or with CAP_SYSLOG")
    assert inv["ib_source"] == "ibstat" and len(inv["ib_ports"]) == 12


def test_no_ib_at_all_is_unmeasured_not_zero(node):
    inv = inventory.collect()
    assert inv["ib_ports"] is None
    assert inv["unmeasured"]["ib_ports"].endswith("does not exist (no RDMA driver loaded, or hidden in this container) and ibstat is not installed")
    assert inv["unmeasured"]["gpus"] == "nvidia-smi not found"


def test_tools_that_print_something_unexpected(node):
    tool(node, "nvidia-smi", 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."')
    tool(node, "ibstat", 'echo "ibpanic: [12] main: stat of IB device \'mlx5_0\' failed: No such file or directory"')
    inv = inventory.collect()
    assert inv["unmeasured"]["gpus"] == ("nvidia-smi -q printed no GPU report: NVIDIA-SMI has failed because it "
                                         "couldn't communicate with the NVIDIA driver.")
    assert inv["unmeasured"]["ib_ports"] == "ibstat printed no CA: ibpanic: [12] main: stat of IB device 'mlx5_0' failed: No such file or directory"


def test_journal_with_kernel_messages_is_read(node):
    tool(node, "journalctl", 'cat "%s/xid-dmesg-48-63-94-dbe-row-remap-iso.txt"' % FIXTURES)
    inv = inventory.collect()
    assert inv["xid_source"] == "journalctl" and [e["code"] for e in inv["xid_events"]][:3] == [48, 63, 94]


def test_lent_h100_in_a_vm_580_driver():
    # the capture gpucheck itself made on a lent H100 (580 driver, a VM without NVSwitch): the first
    # inventory source read from a real GPU by this project rather than from a published capture
    driver, cuda, [g] = nvsmi.parse_query(fixture_text("nvidia-smi-q-h100-1gpu-580.159.04-firecracker.txt"))
    assert (driver, cuda) == ("580.159.04", "13.0")
    assert (g["name"], g["serial"], g["pci_bus_id"]) == ("NVIDIA H100 80GB HBM3", "1652624048604", "00000000:00:06.0")
    assert (g["pcie_gen"], g["pcie_gen_max"], g["pcie_width"], g["pcie_width_max"]) == (5, 5, 16, 16)
    assert (g["remapped_rows_pending"], g["remapped_rows_failure"], g["retired_pages"]) == (False, False, None)
    assert (g["fabric_state"], g["clock_event_reasons"], g["power_limit_w"]) == ("N/A", [], 700.0)
