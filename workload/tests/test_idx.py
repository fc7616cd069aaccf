import gzip
import os

import pytest

from gpucheck_workload import fakedata, idx
from gpucheck_workload.errors import WorkloadError


@pytest.mark.parametrize("name", ["images-idx3-ubyte", "images-idx3-ubyte.gz"])
def test_round_trip_raw_and_gz(tmp_path, name):
    data = bytes(range(256)) * 3 + bytes(48)  # 2 x 4 x 102 = 816 bytes
    path = str(tmp_path / name)
    idx.write(path, (2, 4, 102), data)
    assert idx.read(path) == ((2, 4, 102), data)
    with open(path, "rb") as f:
        head = f.read(2)
    assert (head == b"\x1f\x8b") == name.endswith(".gz")


def test_header_is_the_official_layout(tmp_path):
    path = str(tmp_path / "labels")
    idx.write(path, (3,), b"\x01\x02\x09")
    with open(path, "rb") as f:
        assert f.read() == b"\x00\x00\x08\x01\x00\x00\x00\x03\x01\x02\x09"


def test_bad_files_are_named(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x01\x02\x08\x01")
    with pytest.raises(WorkloadError, match=r"bad is not an IDX file \(bad magic number\)$"):
        idx.read(str(bad))
    short = tmp_path / "short"
    short.write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x05\x01")
    with pytest.raises(WorkloadError, match=r"short is truncated: shape \[5\] needs 5 bytes, found 1$"):
        idx.read(str(short))
    floats = tmp_path / "floats"
    floats.write_bytes(b"\x00\x00\x0d\x01\x00\x00\x00\x00")
    with pytest.raises(WorkloadError, match=r"holds IDX type 0x0d; only unsigned bytes \(0x08\) are supported$"):
        idx.read(str(floats))
    with pytest.raises(ValueError):
        idx.write(str(tmp_path / "x"), (2, 2), b"abc")


def test_fake_fashionmnist_files_and_class_patterns(tmp_path):
    fakedata.write_fashionmnist(str(tmp_path), 50, 20, seed=1)
    assert sorted(os.listdir(str(tmp_path))) == ["t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
                                                 "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    shape, pixels = idx.read(str(tmp_path / "train-images-idx3-ubyte.gz"))
    lshape, labels = idx.read(str(tmp_path / "train-labels-idx1-ubyte.gz"))
    assert shape == (50, 28, 28) and lshape == (50,) and max(labels) < 10
    # the bright block of each image sits where its class says: top half for 0-4, bottom for 5-9
    for i, label in enumerate(labels):
        img = pixels[i * 784:(i + 1) * 784]
        bright = [p // 28 for p in range(784) if img[p] >= 200]
        assert bright, "image %d has no block" % i
        assert (sum(bright) / len(bright) < 14) == (label < 5)
    # deterministic for a seed
    again = tmp_path / "again"
    fakedata.write_fashionmnist(str(again), 50, 20, seed=1)
    with gzip.open(str(again / "train-images-idx3-ubyte.gz")) as f:
        assert f.read()[16:] == pixels
