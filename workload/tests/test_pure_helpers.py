import pytest

from gpucheck_workload import commhook, cpu, stats
from gpucheck_workload.kinds import inventory


def test_percentiles_interpolate_like_numpy():
    assert stats.percentile([4, 1, 3, 2], 50) == 2.5
    assert stats.percentile(list(range(1, 21)), 95) == pytest.approx(19.05)
    assert stats.percentile([7], 95) == 7 and stats.percentile([], 50) is None
    s = stats.summary_ms([0.010, 0.020, 0.030])
    assert s == {"mean": pytest.approx(20.0), "p50": pytest.approx(20.0), "p95": pytest.approx(29.0)}


def test_union_of_in_flight_intervals():
    assert commhook.union_length([]) == 0
    assert commhook.union_length([(0, 1), (2, 3)]) == 2
    assert commhook.union_length([(0, 2), (1, 3), (2.5, 2.6), (5, 6)]) == 4
    assert commhook.union_length([(1, 4), (0, 1)]) == 4


def test_cpu_readers():
    assert cpu.model("processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n") == "AMD EPYC 9654 96-Core Processor"
    assert cpu.model("processor: 0\n") == "unknown"
    assert cpu.memory_gb("MemTotal:       2113929216 kB\n") == 2016.0
    assert cpu.load1("0.52 0.58 0.59 1/389 12345\n") == 0.52
    before = cpu.cpu_times("cpu  100 0 100 700 100 0 0 0 0 0\n")
    after = cpu.cpu_times("cpu  150 0 150 800 100 0 0 0 0 0\n")
    assert (before, cpu.utilisation(before, after)) == ((200, 1000), 50.0)
    assert cpu.utilisation(after, after) is None


def test_max_temp_from_thermal_zones(tmp_path):
    for zone, milli in (("thermal_zone0", "41000"), ("thermal_zone1", "57500")):
        (tmp_path / zone).mkdir()
        (tmp_path / zone / "temp").write_text(milli + "\n")
    assert cpu.max_temp_c(str(tmp_path)) == 57.5
    assert cpu.max_temp_c(str(tmp_path / "none")) is None


@pytest.mark.parametrize("raw,text", [((2, 21, 5), "2.21.5"), (21805, "2.18.5"), (2708, "2.7.8")])
def test_nccl_version_codes(raw, text):
    assert inventory.nccl_version(raw) == text
