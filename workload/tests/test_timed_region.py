"""What lies between the two clock reads of a timed placement: the collective calls and nothing else.

torch's all_reduce and broadcast work in place; their out-of-place rows once copied send → receive
inside every timed call. Here a recording process group and a recording Tensor.copy_ log every
call in order, with the clock reads, so the timed region is read off the log.
"""
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from gpucheck_workload.kinds import collective  # noqa: E402
from gpucheck_workload.ops import Collective  # noqa: E402


class RecordingGroup:
    """Two ranks' worth of calls on one process: the data is left as it is, only the order matters."""

    def __init__(self, log):
        self.log = log

    def all_reduce(self, tensor):
        self.log.append("all_reduce")

    def broadcast(self, tensor, root):
        self.log.append("broadcast")


@pytest.fixture
def log(monkeypatch):
    entries = []
    copy = torch.Tensor.copy_
    monkeypatch.setattr(torch.Tensor, "copy_", lambda self, src, *a, **k: (entries.append("copy"), copy(self, src, *a, **k))[1])
    clock = iter(range(1000))
    monkeypatch.setattr(collective.time, "perf_counter", lambda: (entries.append("clock"), float(next(clock)))[1])
    monkeypatch.setattr(collective.pg, "barrier", lambda ctx: entries.append("barrier"))
    return entries


@pytest.mark.parametrize("op", ["all_reduce", "broadcast"])
def test_out_of_place_times_the_collective_alone(op, log):
    group = RecordingGroup(log)
    ctx = SimpleNamespace(device=torch.device("cpu"), ranks=SimpleNamespace(rank=0, world_size=2))
    coll = Collective(torch, group, op, "float", ctx.device, 0, 2, 4096)
    coll.resize(4096)
    args = SimpleNamespace(iters=3, warmup=1, check=False, check_iters=1)
    bench = collective.Bench(torch, group, ctx, coll, args)
    bench.total = lambda value, dtype: value * 2  # the mean over ranks, without a second rank
    del log[:]
    bench.placement(False)
    start, end = log.index("clock"), len(log) - 1 - log[::-1].index("clock")
    assert log[start + 1:end] == [op] * 3
    # the copy the in-place-only collective needs is made once, after the fill and before the barrier
    assert log[:start][-3:] == ["copy", op, "barrier"]
    send, recv = coll.views(False)
    assert torch.equal(send, recv)


def test_the_check_still_copies_before_its_call(log):
    group = RecordingGroup(log)
    ctx = SimpleNamespace(device=torch.device("cpu"), ranks=SimpleNamespace(rank=0, world_size=2))
    coll = Collective(torch, group, "all_reduce", "float", ctx.device, 0, 2, 64)
    coll.resize(64)
    bench = collective.Bench(torch, group, ctx, coll, SimpleNamespace(iters=2, warmup=0, check=True, check_iters=1))
    bench.total = lambda value, dtype: value
    del log[:]
    bench.placement(False)
    end = len(log) - 1 - log[::-1].index("clock")
    assert log[end + 1:][-2:] == ["copy", "all_reduce"]


def test_the_note_says_the_copy_is_not_timed():
    coll = Collective(torch, RecordingGroup([]), "all_reduce", "float", torch.device("cpu"), 0, 2, 64)
    assert coll.notes == ["out-of-place all_reduce: torch.distributed.all_reduce works in place, so the send buffer is "
                          "copied into the receive buffer before the timed calls (not timed); the timed calls are the "
                          "collective alone on that receive buffer"]
