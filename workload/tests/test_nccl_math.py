from gpucheck_workload import nccl_math
import pytest


@pytest.mark.parametrize("op,n,factor", [
    ("all_reduce", 8, 2 * 7 / 8), ("all_reduce", 2, 1.0), ("all_reduce", 1, 0.0),
    ("all_gather", 8, 7 / 8), ("reduce_scatter", 8, 7 / 8), ("alltoall", 8, 7 / 8), ("alltoall", 16, 15 / 16),
    ("broadcast", 8, 1.0), ("broadcast", 2, 1.0),
])
def test_bus_factor_matches_nccl_tests(op, n, factor):
    assert nccl_math.bus_factor(op, n) == pytest.approx(factor)


def test_all_reduce_bandwidth_from_a_real_row():
    # gh200 fixture, 8 ranks: 134217728 B in 2309.49 us -> algbw 58.12, busbw 101.70
    alg, bus = nccl_math.bandwidth("all_reduce", 134217728, 1, 2309.49e-6, 8)
    assert (round(alg, 2), round(bus, 2)) == (58.12, 101.70)


def test_gathered_ops_count_every_rank_chunk():
    # all_gather's count is per rank; the data moved is count*n*eltsize
    alg, bus = nccl_math.bandwidth("all_gather", 1000, 4, 1e-3, 4)
    assert alg == pytest.approx(1000 * 4 * 4 / 1e9 / 1e-3)
    assert bus == pytest.approx(alg * 3 / 4)


def test_counts_round_chunks_down_to_16_bytes_like_nccl_tests():
    assert nccl_math.counts("all_reduce", 1024, 4, 8) == (256, 256, 256)
    assert nccl_math.counts("all_gather", 1024, 4, 3) == (84, 252, 84)  # 256/3=85 -> 84 (multiple of 4 floats)
    assert nccl_math.counts("reduce_scatter", 1024, 4, 3) == (252, 84, 84)
    assert nccl_math.counts("alltoall", 1024, 8, 3) == (3 * 42, 3 * 42, 42)
    assert nccl_math.counts("all_gather", 8, 4, 2) == (0, 0, 0)
    assert nccl_math.printed_size("all_gather", 1024, 4, 3) == 1008


def test_sweep_and_sizes():
    assert nccl_math.sweep(8, 128, 2) == [8, 16, 32, 64, 128]
    assert nccl_math.sweep(1024, 1000, 2) == []
    assert nccl_math.sweep(0, 10, 2) == [0]
    assert nccl_math.parse_size("64M") == 64 << 20
    assert nccl_math.parse_size("8G") == 8 << 30
    assert nccl_math.parse_size("4096") == 4096
    with pytest.raises(ValueError, match="not a byte count"):
        nccl_math.parse_size("12Q")


def test_redop_and_root_columns():
    assert [nccl_math.redop(op) for op in nccl_math.OPS] == ["sum", "none", "sum", "none", "none"]
    assert [nccl_math.root(op) for op in nccl_math.OPS] == [-1, -1, -1, -1, 0]
