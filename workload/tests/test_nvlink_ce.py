"""nvlink's copy-engine phase (nvlink_ce.py). No GPU here: on CPU ranks the phase is skipped with its
reason (a real run), and the GPU path is driven by a stand-in torch, named as such, whose streams
keep their own clock: each copy advances its stream by bytes / the pair's GB/s from a table, and an
event reads its stream's clock. It checks what the code does with CUDA (which copies, on which
stream, between which events, which pairs are refused), not what a GPU would measure."""
import contextlib
import os
import json
import socket
import types

from conftest import run_ranks
from gpucheck_workload import nvlink_ce


class FakeCuda:
    """The slice of torch.cuda the phase uses, with per-stream virtual clocks."""

    def __init__(self, uuids, gbps, no_peer=()):
        self.uuids, self.gbps, self.no_peer = uuids, gbps, set(no_peer)
        # the current stream of each device, as torch.cuda.stream sets it for its stream's device
        self.current = {"device": None, "streams": {}}
        self.log = []
        self.dst_streams = {}

    def device_count(self):
        return len(self.uuids)

    def get_device_properties(self, i):
        return types.SimpleNamespace(uuid=self.uuids[i])

    def can_device_access_peer(self, i, j):
        return (i, j) not in self.no_peer

    def synchronize(self, d):
        self.log.append(("sync", d))

    @contextlib.contextmanager
    def device(self, i):
        before, self.current["device"] = self.current["device"], i
        yield
        self.current["device"] = before

    @contextlib.contextmanager
    def stream(self, s):
        streams = self.current["streams"]
        before, streams[s.device] = streams.get(s.device), s
        yield
        streams[s.device] = before

    def Stream(self, device):
        return types.SimpleNamespace(device=device.index, clock=0.0)

    def Event(self, enable_timing):
        cuda = self

        class Event:
            def record(self, stream):
                self.at = stream.clock
                cuda.log.append(("mark", stream.device))

            def elapsed_time(self, later):
                return (later.at - self.at) * 1e3

        return Event()


class Buffer:
    def __init__(self, cuda, size, device):
        self.cuda, self.size, self.device = cuda, size, device

    def copy_(self, src, non_blocking):
        assert non_blocking and self.cuda.current["device"] == src.device
        stream = self.cuda.current["streams"][src.device]
        assert stream.device == src.device  # on the source GPU's stream, as PyTorch issues it
        # PyTorch syncs the copy with the destination's current stream: the pair's own, never the default
        dst_stream = self.cuda.current["streams"].get(self.device)
        assert dst_stream is not None and dst_stream.device == self.device
        self.cuda.dst_streams.setdefault((src.device, self.device), set()).add(id(dst_stream))
        stream.clock += src.size / (self.cuda.gbps[(src.device, self.device)] * 1e9)
        self.cuda.log.append(("copy", src.device, self.device))


def fake_torch(cuda):
    return types.SimpleNamespace(
        cuda=cuda, uint8="uint8", device=lambda kind, i: types.SimpleNamespace(type=kind, index=i),
        ones=lambda size, dtype, device: Buffer(cuda, size, device.index), empty=lambda size, dtype, device: Buffer(cuda, size, device.index))


def test_each_pair_alone_then_all_at_once_on_the_source_stream_and_a_pair_without_peer_access_refused():
    cuda = FakeCuda(["a", "b", "c"], {(0, 1): 400.0, (1, 0): 400.0, (0, 2): 200.0, (2, 0): 400.0, (1, 2): 400.0, (2, 1): 400.0}, no_peer=[(2, 1)])
    pairs = [(s, d, s, d) for s in range(3) for d in range(3) if s != d]
    r = nvlink_ce.measure(fake_torch(cuda), pairs, 10 ** 9, 3, 1)
    alone = {(e["src"], e["dst"]): e for e in r["pairs"]}
    assert round(alone[(0, 1)]["gbps"], 6) == 400.0 and round(alone[(0, 2)]["gbps"], 6) == 200.0
    assert [round(c, 6) for c in alone[(0, 2)]["calls"]] == [200.0, 200.0, 200.0] and alone[(0, 2)]["bytes"] == 10 ** 9
    why = "GPU 2 cannot reach GPU 1 as a peer (torch.cuda.can_device_access_peer is False): a copy would be staged through host memory"
    assert alone[(2, 1)] == {"src": 2, "dst": 1, "why": why}
    assert [(e["src"], e["dst"]) for e in r["all"]] == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert ("copy", 2, 1) not in cuda.log
    # each pair waits on its own stream of the destination: pairs into one GPU never share one
    assert all(len(ids) == 1 for ids in cuda.dst_streams.values())
    assert len({i for ids in cuda.dst_streams.values() for i in ids}) == len(cuda.dst_streams) == 5
    # alone: one pair's warm-up, then mark, copy, mark … with the node otherwise idle
    first = cuda.log.index(("copy", 0, 1))
    assert cuda.log[first:first + 1 + 3 + 1 + 2 * 3] == [("copy", 0, 1)] + [("sync", d) for d in range(3)] + [("mark", 0)] + [("copy", 0, 1), ("mark", 0)] * 3
    # all at once: every pair's copies issued in turns between the same syncs
    tail = cuda.log[len(cuda.log) - 3 - 2 * 5 * 3:]
    assert tail[:10] == [("copy", 0, 1), ("mark", 0), ("copy", 0, 2), ("mark", 0), ("copy", 1, 0), ("mark", 1), ("copy", 1, 2), ("mark", 1), ("copy", 2, 0), ("mark", 2)]


def test_the_ranks_gpus_matched_by_uuid_or_the_reason():
    torch = fake_torch(FakeCuda(["5d2a", "GPU-77ab"], {}))
    ranks = [{"rank": 4, "device": {"uuid": "GPU-77ab"}}, {"rank": 5, "device": {"uuid": "GPU-5d2a"}}]
    assert nvlink_ce.ordinals(torch, ranks) == ({4: 1, 5: 0}, None)
    hidden = [{"rank": 4, "device": {"uuid": "GPU-77ab"}}, {"rank": 6, "device": {"uuid": "GPU-0000"}}]
    assert nvlink_ce.ordinals(torch, hidden) == (None, "rank 6's GPU GPU-0000 is not visible to local rank 0 (it sees 2 GPUs): copies between GPUs need every GPU of the host in one process")
    assert nvlink_ce.ordinals(torch, [{"rank": 3, "device": {"uuid": None}}]) == (None, "torch gives no GPU UUID to match rank 3's GPU by")


def test_on_cpu_ranks_the_phase_is_skipped_with_the_reason():
    outs = run_ranks(2, ["nvlink", "--size", "4096", "--iters", "2", "--warmup", "0"])
    assert [code for code, _, _ in outs] == [0, 0], [err for _, _, err in outs]
    r = json.loads([l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")][0].split(" ", 1)[1])
    assert r["ce"] == [{"host": socket.gethostname(), "leader": 0, "why": "device: cpu — no GPU, so no copy engine: the copy-engine phase did not run"}]


def test_nvbandwidth_runs_its_four_peer_testcases_in_pci_bus_order_or_says_why_not(tmp_path, monkeypatch):
    from conftest import tools_on_path
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test", "fixtures", "nvbandwidth", "readme-8gpu-write-ce.txt")
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    assert nvlink_ce.run_nvbandwidth("gpu01") == {"why": "nvbandwidth not found on PATH on gpu01: build it from github.com/NVIDIA/nvbandwidth (the method of Azure's check_gpu_bw floor) and put it on PATH"}
    # a stand-in nvbandwidth (named as such): prints its CUDA_DEVICE_ORDER, then the README's real capture
    fake = bin_dir / "nvbandwidth"
    fake.write_text("#!/bin/sh\necho \"order $CUDA_DEVICE_ORDER\"\ncat %s\n" % readme)
    fake.chmod(0o755)
    got = nvlink_ce.run_nvbandwidth("gpu01")
    assert got["command"] == str(fake) + " -t device_to_device_memcpy_read_ce -t device_to_device_memcpy_write_ce -t device_to_device_bidirectional_memcpy_read_ce -t device_to_device_bidirectional_memcpy_write_ce"
    assert got["rc"] == 0 and got["output"].startswith("order PCI_BUS_ID\nRunning device_to_device_memcpy_write_ce.\n")
