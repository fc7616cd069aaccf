"""Telemetry's error counters and Xid watch on real outputs, and what each says when its source fails.

The NVLink parser reads a published `nvidia-smi nvlink -e`; the IB counters a sysfs tree in the
kernel's layout (one decimal integer per file); the Xid watch real kernel-log lines. Tools on PATH
are shell scripts that print the real capture, hang, fail or print something else.
"""
import errno

import pytest

from conftest import fixture_text, tool, tools_on_path
from gpucheck_workload import counters, probe, telemetry, xid

NVLINK_E = "nvlink-e-h100-abridged-stas00.txt"


@pytest.fixture
def node(tmp_path, monkeypatch):
    """No NVML, no GPU tools, no sysfs: each test adds what it needs to tmp_path/bin."""
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    monkeypatch.setattr(counters.ib, "SYSFS", str(tmp_path / "no-sysfs"))

    def no_nvml(*_a, **_k):
        raise OSError("libnvidia-ml.so.1: cannot open shared object file: No such file or directory")

    import gpucheck_workload.nvml as nvml
    monkeypatch.setattr(nvml.Nvml, "__init__", no_nvml)

    def kmsg_denied(*_a, **_k):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(xid, "Kmsg", kmsg_denied)
    return bin_dir


def test_nvlink_e_published_h100():
    links = counters.parse_nvlink_errors(fixture_text(NVLINK_E))
    assert list(links) == [0] and sorted(links[0]) == [0, 1, 17]  # the author's `[...]` is skipped
    assert links[0][17] == {"replay": 0, "recovery": 0, "crc": 0}


def test_nvlink_e_unexpected_output_names_its_first_line():
    with pytest.raises(ValueError) as e:
        counters.parse_nvlink_errors("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nMake sure ...\n")
    assert str(e.value) == ("nvidia-smi nvlink -e printed no GPU: NVIDIA-SMI has failed because it couldn't communicate "
                            "with the NVIDIA driver.")


def write_port(root, dev, port, **values):
    base = root / dev / "ports" / str(port) / "counters"
    base.mkdir(parents=True)
    for name, value in values.items():
        (base / name).write_text("%d\n" % value)


def test_ib_counters_from_sysfs(tmp_path):
    write_port(tmp_path, "mlx5_0", 1, link_downed=0, symbol_error=0, port_rcv_errors=3, port_xmit_discards=0,
               link_error_recovery=0, local_link_integrity_errors=0, excessive_buffer_overrun_errors=0)
    write_port(tmp_path, "mlx5_10", 1, link_downed=2, symbol_error=65535)  # symbol_error saturates at 16 bits
    (tmp_path / "mlx5_10" / "ports" / "1" / "counters" / "port_rcv_errors").write_text("N/A\n")
    values, why = counters.ib_counters(str(tmp_path))
    assert why is None
    assert values["mlx5_0:1"]["port_rcv_errors"] == 3 and values["mlx5_10:1"] == {"link_downed": 2, "symbol_error": 65535}


def test_ib_counters_without_sysfs(tmp_path):
    values, why = counters.ib_counters(str(tmp_path / "absent"))
    assert values is None
    assert why == "%s: No such file or directory (no RDMA driver loaded, or hidden in this container)" % (tmp_path / "absent")


def test_ib_ports_without_counters(tmp_path):
    (tmp_path / "mlx5_0" / "ports" / "1").mkdir(parents=True)
    assert counters.ib_counters(str(tmp_path)) == (None, "no port counters under %s (mlx5_0 port 1)" % tmp_path)


def test_no_nvml_no_nvidia_smi(node):
    tool(node, "dmesg", 'echo "dmesg: read kernel buffer failed: Operation not permitted" >&2; exit 1')
    tool(node, "journalctl", 'echo "-- No entries --"')
    p = telemetry.Probe()
    s = p.sample(with_counters=True)
    assert s["gpus"] == [] and s["counters"] == {"ib": None, "nvlink": None}
    assert s["unmeasured"]["gpus"] == ("NVML: libnvidia-ml.so.1: cannot open shared object file: No such file or "
                                       "directory; nvidia-smi not found")
    assert s["unmeasured"]["nvlink_errors"] == "nvidia-smi not found"
    assert s["unmeasured"]["xids"] == (
        "NVML events: NVML not loaded; kernel log: /dev/kmsg: Operation not permitted; dmesg --time-format=iso exited 1: "
        "dmesg: read kernel buffer failed: Operation not permitted; journalctl returned no kernel messages" + xid.PRIVILEGE_HINT)
    # a reason is said once, until it changes
    assert "unmeasured" not in p.sample()


def test_nvidia_smi_hangs(node, monkeypatch):
    tool(node, "nvidia-smi", "sleep 30")
    monkeypatch.setattr(probe, "run", _with_timeout(probe.run, 0.5))
    gpus, why = telemetry.GpuReader().sample()
    assert gpus == [] and why.startswith("nvidia-smi --query-gpu=index,pci.bus_id") and why.endswith("timed out after 0.5s")
    assert counters.nvlink_errors_smi() == (None, "nvidia-smi nvlink -e timed out after 0.5s")


def _with_timeout(run, seconds):
    return lambda argv, timeout=20.0: run(argv, timeout=seconds)


def test_nvidia_smi_prints_something_else(node):
    tool(node, "nvidia-smi", 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."')
    gpus, why = telemetry.GpuReader().sample()
    assert gpus == [] and why == ("nvidia-smi --query-gpu printed no GPU row: NVIDIA-SMI has failed because it "
                                  "couldn't communicate with the NVIDIA driver.")
    assert counters.nvlink_errors_smi() == (None, "nvidia-smi nvlink -e printed no GPU: NVIDIA-SMI has failed because it "
                                                  "couldn't communicate with the NVIDIA driver.")


def test_nvidia_smi_real_query_row_and_nvlink(node, tmp_path):
    csv = tmp_path / "q.csv"
    capture = fixture_text("query-gpu-csv-h100-590.48.01-load.txt").splitlines()[1:]
    header = [h.strip() for h in capture[0].split(",")]
    row = [c.strip() for c in capture[1].split(",")]
    want = ["index", "pci.bus_id", "utilization.gpu [%]", "clocks.current.sm [MHz]", "power.draw [W]", "temperature.gpu",
            "memory.used [MiB]", "clocks_event_reasons.active"]
    cells = [row[header.index(w)] for w in want]
    csv.write_text("index, pci.bus_id, utilization.gpu [%], clocks.sm [MHz], power.draw [W], temperature.gpu, "
                   "memory.used [MiB], clocks_event_reasons.active\n" + ", ".join(cells) + "\n")
    nv = tmp_path / "nvlink-e.txt"
    nv.write_text(fixture_text(NVLINK_E))
    tool(node, "nvidia-smi", 'if [ "$1" = nvlink ]; then cat %s; else cat %s; fi' % (nv, csv))
    [g], why = telemetry.GpuReader().sample()
    assert why is None
    assert g == {"index": 0, "pci_bus_id": "00000000:00:09.0", "util_pct": 100, "sm_clock_mhz": 1980, "power_w": 631.95,
                 "temp_c": 59, "mem_used_mib": 19818, "throttle_reasons": []}
    links, why = counters.nvlink_errors()
    assert why is None and links[0][1] == {"replay": 0, "recovery": 0, "crc": 0}


def test_throttle_reasons_not_a_mask(node, tmp_path):
    tool(node, "nvidia-smi", 'echo "index, pci.bus_id, utilization.gpu [%], clocks.sm [MHz], power.draw [W], temperature.gpu, '
                              'memory.used [MiB], clocks_event_reasons.active"; echo "0, 00000000:19:00.0, 100 %, 1980 MHz, 690 W, 70, 100 MiB, [N/A]"')
    [g], _ = telemetry.GpuReader().sample()
    assert g["throttle_reasons"] is None


def test_xids_from_the_kernel_log_diff(node, tmp_path):
    """No /dev/kmsg for this user, but dmesg works: only the lines that appear after the start count."""
    log = tmp_path / "log.txt"
    lines = fixture_text("xid-dmesg-48-63-94-dbe-row-remap-iso.txt").splitlines()[1:]
    log.write_text("\n".join(lines[:5]) + "\n")
    tool(node, "dmesg", "cat %s" % log)
    w = telemetry.XidWatch()
    assert w.new(force=True) == ([], ["dmesg"], None)
    log.write_text("\n".join(lines) + "\n")
    events, sources, why = w.new(force=True)
    assert sources == ["dmesg"] and why is None
    assert sorted({e["code"] for e in events}) == [48, 63, 94] and all(e["source"] == "kernel log" for e in events)


def test_dmesg_fails_mid_test(node, tmp_path):
    flag = tmp_path / "fail"
    tool(node, "dmesg", 'if [ -e %s ]; then echo "dmesg: read kernel buffer failed: Operation not permitted" >&2; exit 1; fi; '
                        'echo "[1.0] Linux version"' % flag)
    w = telemetry.XidWatch()
    flag.write_text("")
    events, sources, why = w.new(force=True)
    assert (events, sources) == ([], [])
    assert why == ("NVML events: NVML not loaded; kernel log: dmesg --time-format=iso exited 1: dmesg: read kernel buffer "
                   "failed: Operation not permitted" + xid.PRIVILEGE_HINT)


class FakeNvmlLib:
    """The NVML entry points the event watch calls, answering the way nvml.h documents."""

    def __init__(self, pending):
        self.pending = list(pending)

    def nvmlEventSetCreate(self, out):
        return 0

    def nvmlDeviceRegisterEvents(self, handle, types, event_set):
        return 3 if handle.value == 2 else 0  # the second GPU refuses: NVML_ERROR_NOT_SUPPORTED

    def nvmlEventSetWait_v2(self, event_set, data_ref, timeout):
        if not self.pending:
            return 10  # NVML_ERROR_TIMEOUT
        device, code = self.pending.pop(0)
        data = data_ref._obj
        data.device, data.eventType, data.eventData = device, 0x8, code
        return 0


def test_nvml_xid_events_and_a_gpu_that_refuses_them():
    import ctypes
    from gpucheck_workload.nvml import Nvml
    n = Nvml.__new__(Nvml)
    n.lib = FakeNvmlLib([(1, 79), (1, 999)])
    n.handles = [(0, ctypes.c_void_p(1)), (1, ctypes.c_void_p(2))]
    n.pci = {0: "00000000:19:00.0", 1: "00000000:3B:00.0"}
    assert n.watch_xids() == "GPU 1: nvmlDeviceRegisterEvents returned 3 (not supported)"
    assert n.xids() == [{"kind": "xid", "code": 79, "gpu": 0, "pci": "00000000:19:00.0"},
                        {"kind": "xid", "code": 999, "gpu": 0, "pci": "00000000:19:00.0"}]
    assert n.xids() == []


class FakeNvmlReadings:
    """The sample's NVML entry points, with what the lent H100 80GB HBM3 answered under load
    (BENCHMARKS.md "GPU figures"): no clock event reason active, so a reasons mask of 0."""

    def __init__(self, reasons_rc=0, mask=0, power_mw=0):
        self.reasons_rc, self.mask, self.power_mw = reasons_rc, mask, power_mw

    def nvmlDeviceGetUtilizationRates(self, handle, ref):
        ref._obj.gpu, ref._obj.memory = 100, 41
        return 0

    def nvmlDeviceGetClockInfo(self, handle, clock, ref):
        ref._obj.value = 1980
        return 0

    def nvmlDeviceGetPowerUsage(self, handle, ref):
        ref._obj.value = self.power_mw
        return 0

    def nvmlDeviceGetTemperature(self, handle, sensor, ref):
        ref._obj.value = 0
        return 0

    def nvmlDeviceGetMemoryInfo(self, handle, ref):
        ref._obj.used = 0
        return 0

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle, ref):
        ref._obj.value = self.mask
        return self.reasons_rc


def nvml_with(lib):
    import ctypes
    from gpucheck_workload.nvml import Nvml
    n = Nvml.__new__(Nvml)
    n.lib, n.handles, n.pci = lib, [(0, ctypes.c_void_p(1))], {0: "00000000:00:06.0"}
    return n


def test_nvml_zero_is_a_reading_not_a_gap():
    # a mask of 0 (nothing holds the clocks down) was once taken for "unread", since a ctypes
    # number is falsy at 0: every loaded sample of the H100 made throttle_hw an error
    assert nvml_with(FakeNvmlReadings()).sample() == [{
        "index": 0, "pci_bus_id": "00000000:00:06.0", "util_pct": 100, "sm_clock_mhz": 1980, "power_w": 0.0,
        "temp_c": 0, "mem_used_mib": 0.0, "throttle_reasons": []}]
    assert nvml_with(FakeNvmlReadings(mask=0x48))._get("nvmlDeviceGetPowerUsage", None, __import__("ctypes").c_uint()).value == 0
    assert nvml_with(FakeNvmlReadings(mask=0x48)).sample()[0]["throttle_reasons"] == ["hw_slowdown", "hw_thermal_slowdown"]


def test_nvml_reasons_refused_are_unread():
    # NVML_ERROR_NOT_SUPPORTED: the reasons stay None, and the throttle metrics unmeasured
    assert nvml_with(FakeNvmlReadings(reasons_rc=3)).sample()[0]["throttle_reasons"] is None
