"""The printer against nccl-tests' own text: a real 2.18.3 log (same format strings as 2.19.6)."""
import re

from conftest import fixture_text
from gpucheck_workload import nccl_layout

SAMPLE = fixture_text("gh200-2node-allreduce-complete-v2.18.3.txt").splitlines()


def test_header_lines_are_byte_identical():
    start = SAMPLE.index("# Using devices") + 9  # 8 device lines, then "#"
    assert nccl_layout.header() == SAMPLE[start:start + 4]


def test_device_line_is_byte_identical():
    assert nccl_layout.device_line(0, 221423, "gpu-1-1", 0, (0x9, 0x1, 0x0), "NVIDIA GH200 120GB") == SAMPLE[6]
    assert nccl_layout.device_line(7, 201120, "gpu-1-2.cluster.local", 3, (0x39, 1, 0), "NVIDIA GH200 120GB") == SAMPLE[13]


def test_rows_are_byte_identical():
    rows = {int(l.split()[0]): l for l in SAMPLE if re.match(r"^\s+\d+\s", l)}
    assert nccl_layout.row(1, 1, "int8", "sum", -1, (26.95, 0.0, 0.0, 0), (22.40, 0.0, 0.0, 0)) == rows[1]
    assert nccl_layout.row(134217728, 134217728, "int8", "sum", -1, (2309.49, 58.12, 101.70, 0),
                      (2182.20, 61.51, 107.63, 0)) == rows[134217728]


def test_footer_is_byte_identical():
    at = SAMPLE.index("# Out of bounds values : 0 OK")
    assert nccl_layout.footer(0, 17.8617, "all_reduce_perf")[:5] == SAMPLE[at:at + 5]
    assert nccl_layout.footer(2, 1.5, "x")[0] == "# Out of bounds values : 2 FAILED"


def test_preamble_fields():
    lines = nccl_layout.preamble("all_gather_perf", 8, 1 << 30, 2, 5, 20, False, "gpucheck-workload test")
    assert lines[1] == "# Collective test starting: all_gather_perf"
    assert lines[2] == ("# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
                        "iters: 20 agg iters: 1 validation: 0 graph: 0 unalign: 0")
    assert not lines[0].startswith("# nccl-tests version")


def test_numbers_shrink_to_fit_their_column_like_get_float_str():
    assert nccl_layout.float_str(3.14159, 6) == "  3.14"
    assert nccl_layout.float_str(1807.894, 6) == "1807.9"
    assert nccl_layout.float_str(14563.56, 6) == " 14564"
    assert nccl_layout.float_str(1234567.0, 6) == " 1e+06"
    assert nccl_layout.float_str(123456.789, 7) == " 123457"
    assert nccl_layout.float_str(12345678.9, 7) == "1.2e+07"


def test_unchecked_and_in_place_alltoall_print_na():
    line = nccl_layout.row(1024, 64, "float", "none", -1, (10.0, 0.1, 0.05, 0), (9.0, 0.11, 0.06, None))
    assert line.endswith("   0.06    N/A")
    assert line.split()[8] == "0"
