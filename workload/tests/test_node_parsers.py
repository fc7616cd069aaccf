"""nvidia-smi, nvlink, ibstat, sysfs and kernel-log parsers on real node outputs (fixtures/)."""
import pytest

from conftest import fixture_text
from gpucheck_workload import ib, nvsmi, xid


def query(name):
    return nvsmi.parse_query(fixture_text(name))


def test_h100_535_hw_slowdown_and_replays():
    driver, cuda, gpus = query("nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt")
    assert (driver, cuda, len(gpus)) == ("535.161.08", "12.2", 8)
    assert [g["pci_bus_id"][9:11] for g in gpus] == ["19", "3B", "4C", "5D", "9B", "BB", "CB", "DB"]
    assert [g["pcie_replays"] for g in gpus] == [67, 63, 52, 43, 49, 53, 82, 67]
    assert all(g["clock_event_reasons"] == ["hw_power_brake_slowdown", "hw_slowdown"] for g in gpus)
    assert all((g["ecc_uncorrected_volatile"], g["ecc_uncorrected_aggregate"], g["remapped_rows_pending"]) == (0, 0, False) for g in gpus)
    assert gpus[0]["name"] == "NVIDIA H100 80GB HBM3" and gpus[0]["pcie_gen"] == 5 and gpus[0]["pcie_width"] == 16


def test_h100_565_newer_fields_do_not_confuse_the_tree():
    driver, _, gpus = query("nvidia-smi-q-h100-8gpu-565.57.01.txt")
    assert driver == "565.57.01" and len(gpus) == 8
    assert [g["pci_bus_id"][9:11] for g in gpus] == ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
    assert [g["pcie_replays"] for g in gpus] == [7, 0, 0, 0, 0, 4, 15, 0]
    assert gpus[0]["uuid"] == "GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1" and gpus[0]["serial"] == "1654423001593"
    assert gpus[0]["clock_event_reasons"] == ["gpu_idle"] and gpus[0]["memory_total_mib"] == 81559


def test_h200_identity():
    _, _, [gpu] = query("nvidia-smi-q-h200-1gpu-550.90.12.txt")
    assert (gpu["name"], gpu["pci_bus_id"], gpu["serial"]) == ("NVIDIA H200", "00000000:03:00.0", "1753724031847")
    assert gpu["ecc_uncorrected_aggregate"] == 0 and gpu["memory_total_mib"] == 143771


def test_a100_correctable_ecc_and_pending_row_remap():
    _, _, gpus = query("nvidia-smi-q-a100-4gpu-555.42.02-ecc-remap-pending.txt")
    by_bus = {g["pci_bus_id"][9:11]: g for g in gpus}
    assert (by_bus["9E"]["ecc_corrected_volatile"], by_bus["9E"]["ecc_corrected_aggregate"]) == (353, 353)
    assert by_bus["9E"]["remapped_rows_pending"] is True and by_bus["9E"]["remapped_rows_correctable"] == 1
    assert by_bus["C2"]["remapped_rows_pending"] is False and by_bus["C2"]["remapped_rows_correctable"] == 1
    assert all(g["ecc_uncorrected_volatile"] == 0 for g in gpus)


def test_gh200_uncorrectable_in_aggregate_only():
    _, _, [gpu] = query("nvidia-smi-q-gh200-1gpu-550.127.05-aggregate-dbe.txt")
    assert (gpu["ecc_uncorrected_volatile"], gpu["ecc_uncorrected_aggregate"]) == (0, 1)
    assert gpu["remapped_rows_uncorrectable"] == 1 and gpu["remapped_rows_pending"] is False


def test_h800_525_old_naming_and_ecc_disabled():
    driver, _, gpus = query("nvidia-smi-q-i0-h800-525.105.17-throttle-reasons-naming.txt")
    assert driver == "525.105.17" and len(gpus) == 1  # "Attached GPUs : 8" but -i 0 printed one
    gpu = gpus[0]
    assert gpu["ecc_mode"] == "Disabled"
    assert (gpu["ecc_uncorrected_volatile"], gpu["ecc_uncorrected_aggregate"], gpu["retired_pages"]) == (None, None, None)
    assert gpu["clock_event_reasons"] == ["gpu_idle"]  # from "Clocks Throttle Reasons"


def test_590_wide_labels():
    driver, cuda, [gpu] = query("nvidia-smi-q-h100-1gpu-590.48.01-load-wide-labels.txt")
    assert (driver, cuda) == ("590.48.01", "13.1")
    assert (gpu["name"], gpu["pci_bus_id"], gpu["pcie_replays"]) == ("NVIDIA H100 80GB HBM3", "00000000:00:09.0", 9)
    assert gpu["clock_event_reasons"] == [] and gpu["ecc_mode"] == "Enabled"


def test_query_gpu_csv_with_units_and_na_cells():
    [row] = nvsmi.parse_csv(fixture_text("query-gpu-csv-h100-590.48.01-load.txt"))
    assert row["name"] == "NVIDIA H100 80GB HBM3" and row["pci.bus_id"] == "00000000:00:09.0"
    assert nvsmi.number(row["power.draw"]) == 631.95
    assert nvsmi.number(row["utilization.gpu"]) == 100
    assert nvsmi.number(row["clocks.current.sm"]) == 1980
    assert nvsmi.throttling(row["clocks_event_reasons.active"]) == []
    assert row["remapped_rows.pending"] == "No"
    assert nvsmi.number("[N/A]") is None and nvsmi.number("[Requested functionality has been deprecated]") is None


def test_reason_bits():
    assert nvsmi.decode_reasons(0x89) == ["gpu_idle", "hw_slowdown", "hw_power_brake_slowdown"]
    assert nvsmi.throttling("0x0000000000000089") == ["hw_slowdown", "hw_power_brake_slowdown"]
    assert nvsmi.decode_reasons("garbage") is None and nvsmi.throttling("[N/A]") is None


@pytest.mark.parametrize("name,gpus,links,speed", [
    ("nvlink-s-h100-1gpu-590.48.01-tab-indent.txt", 1, 18, 26.562),
    ("nvlink-s-a100-8gpu-space-indent.txt", 8, 12, 25),
])
def test_nvlink_status(name, gpus, links, speed):
    parsed = nvsmi.parse_nvlink_status(fixture_text(name))
    assert sorted(parsed) == list(range(gpus))
    for per_gpu in parsed.values():
        assert [l["link"] for l in per_gpu] == list(range(links))
        assert all(l == {"link": l["link"], "state": "active", "speed_gbps": speed} for l in per_gpu)


def test_nvlink_inactive_link():
    parsed = nvsmi.parse_nvlink_status("GPU 0: NVIDIA H100 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n")
    assert parsed[0][1] == {"link": 1, "state": "inactive", "speed_gbps": None}


def test_ibstat_ndr_with_ethernet_ports_down():
    ports = ib.parse_ibstat(fixture_text("ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"))
    assert len(ports) == 12
    down = sorted(p["device"] for p in ports if p["state"] == "DOWN")
    assert down == ["mlx5_2", "mlx5_7", "mlx5_8"]
    assert all(p["phys_state"] == "Disabled" and p["rate_gbps"] == 40 and p["link_layer"] == "Ethernet"
               for p in ports if p["state"] == "DOWN")
    infiniband = [p for p in ports if p["link_layer"] == "InfiniBand"]
    assert infiniband and all((p["state"], p["phys_state"], p["rate_gbps"]) == ("ACTIVE", "LinkUp", 400) for p in infiniband)
    assert ports[0] == {"device": "mlx5_0", "port": 1, "state": "ACTIVE", "phys_state": "LinkUp", "rate_gbps": 400,
                        "link_layer": "InfiniBand", "firmware": "28.39.1002"}


def test_ibstat_roce_ports_down():
    ports = ib.parse_ibstat(fixture_text("ibstat-h100-cx7-roce-2-ports-down.txt"))
    assert len(ports) == 12
    assert sorted(p["device"] for p in ports if p["state"] == "DOWN") == ["mlx5_11", "mlx5_5"]
    assert {p["rate_gbps"] for p in ports if p["state"] == "ACTIVE"} == {100, 400}


def test_sysfs_ports(tmp_path):
    files = {"mlx5_0/ports/1/state": "4: ACTIVE\n", "mlx5_0/ports/1/phys_state": "5: LinkUp\n",
             "mlx5_0/ports/1/rate": "400 Gb/sec (4X NDR)\n", "mlx5_0/ports/1/link_layer": "InfiniBand\n",
             "mlx5_0/fw_ver": "28.39.1002\n", "mlx5_1/ports/1/state": "1: DOWN\n",
             "mlx5_1/ports/1/phys_state": "3: Disabled\n", "mlx5_1/ports/1/rate": "40 Gb/sec (4X QDR)\n",
             "mlx5_1/ports/1/link_layer": "Ethernet\n",
             "mlx5_0/device/current_link_speed": "32.0 GT/s PCIe\n", "mlx5_0/device/current_link_width": "16\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert ib.read_sysfs(str(tmp_path)) == [
        {"device": "mlx5_0", "port": 1, "state": "ACTIVE", "phys_state": "LinkUp", "rate_gbps": 400,
         "link_layer": "InfiniBand", "firmware": "28.39.1002", "board_id": None, "pcie_speed": "32.0 GT/s PCIe", "pcie_width": "16"},
        {"device": "mlx5_1", "port": 1, "state": "DOWN", "phys_state": "Disabled", "rate_gbps": 40,
         "link_layer": "Ethernet", "firmware": None, "board_id": None, "pcie_speed": None, "pcie_width": None},
    ]
    assert ib.read_sysfs(str(tmp_path / "absent")) == []


def codes(events, kind="xid"):
    return [e["code"] for e in events if e["kind"] == kind]


def test_xid_iso_timestamps_dbe_remap_contained():
    events = xid.parse(fixture_text("xid-dmesg-48-63-94-dbe-row-remap-iso.txt"))
    assert codes(events) == [48, 63] + [94] * 9
    assert events[0]["pci"] == "0000:19:00" and events[0]["time"] == "2024-11-15T12:02:03,470068+00:00"
    assert (events[0]["pid"], events[0]["process"]) == (None, None)
    assert (events[3]["pid"], events[3]["process"], events[3]["message"]) == (1248209, "python3.10", "Ch 00000008")


def test_xid_119_ignores_rpc_history_and_traces():
    events = xid.parse(fixture_text("xid-dmesg-h100-119-gsp-timeout-xe9680.txt"))
    assert codes(events) == [119] * 5
    assert sorted(e["pid"] for e in events) == sorted([2024380] * 3 + [1263500, 1240590])
    assert events[0]["time"] == "Sun Feb 23 16:24:18 2025" and events[0]["pci"] == "0000:9b:00"


def test_xid_79_and_nvswitch_sxids():
    events = xid.parse(fixture_text("xid-79-sxid-20034-hgx-dmesg.txt"))
    assert codes(events) == [79]
    assert events[0]["message"] == "GPU has fallen off the bus." and events[0]["time"] == "6781741.548779"
    sx = [e for e in events if e["kind"] == "sxid"]
    assert codes(sx, "sxid") == [20034] * 8
    assert sorted(e["device"] for e in sx) == ["nvidia-nvswitch0"] * 4 + ["nvidia-nvswitch1"] + ["nvidia-nvswitch2"] * 3
    assert {e["pci"] for e in sx} == {"0000:05:00.0", "0000:06:00.0", "0000:07:00.0"}


def test_kmsg_records_become_dmesg_lines():
    line = xid.kmsg_line("3,1234,6781741548779,-;NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n SUBSYSTEM=pci")
    assert line == "[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    assert codes(xid.parse(line)) == [79]


def _with_fabric(capture, block_fixture):
    """A real -q capture whose first GPU's Fabric block is replaced by a captured GB200 Fabric block
    (no whole GB200 -q capture was found in public material; the blocks were quoted alone)."""
    text = fixture_text(capture)
    block = "".join(l + "\n" for l in fixture_text(block_fixture).splitlines() if not l.startswith("#"))
    start = text.index("    Fabric\n")
    end = text.index("    Processes", start)
    return text[:start] + block + text[end:]


def test_fabric_clique_and_health_on_hgx_h100_565():
    _, _, gpus = query("nvidia-smi-q-h100-8gpu-565.57.01.txt")
    # a single-node NVSwitch board: Completed/Success with CliqueId 0 and a zero ClusterUUID; Health has Bandwidth only
    assert {(g["fabric_state"], g["fabric_status"], g["fabric_clique_id"], g["fabric_cluster_uuid"]) for g in gpus} == {
        ("Completed", "Success", "0", "00000000-0000-0000-0000-000000000000")}
    assert {(g["fabric_health_summary"], g["fabric_health_bandwidth"]) for g in gpus} == {(None, "N/A")}


def test_fabric_health_summary_on_590():
    _, _, [gpu] = query("nvidia-smi-q-h100-1gpu-590.48.01-load-wide-labels.txt")
    assert (gpu["fabric_health_summary"], gpu["fabric_health_bandwidth"]) == ("N/A", "N/A")


def test_gb200_fabric_blocks_insufficient_resources_and_unhealthy():
    _, _, gpus = nvsmi.parse_query(_with_fabric("nvidia-smi-q-h100-8gpu-565.57.01.txt", "fabric-gb200-insufficient-resources-azhpc-506.txt"))
    g = gpus[0]
    assert (g["fabric_state"], g["fabric_status"], g["fabric_clique_id"], g["fabric_cluster_uuid"]) == (
        "Completed", "Insufficient Resources", "0", "00000000-0000-0000-0000-000000000000")
    assert len(gpus) == 8 and gpus[1]["fabric_status"] == "Success"
    _, _, gpus = nvsmi.parse_query(_with_fabric("nvidia-smi-q-h100-8gpu-565.57.01.txt", "fabric-gb200-unhealthy-dra-626.txt"))
    g = gpus[0]
    assert (g["fabric_state"], g["fabric_status"], g["fabric_clique_id"], g["fabric_cluster_uuid"]) == (
        "Completed", "Success", "2", "dc6e40c4-d722-4357-9ba6-5291dd461278")
    assert (g["fabric_health_summary"], g["fabric_health_bandwidth"]) == ("Unhealthy", "Full")
