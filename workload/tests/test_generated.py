import os

import pytest

from gpucheck_workload import data, fakedata
from gpucheck_workload.errors import WorkloadError


def test_generated_fashionmnist_is_made_once_and_found_by_the_real_loader(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    first = fakedata.generated_dir("fashionmnist")
    assert first.startswith(str(tmp_path))
    mtime = os.path.getmtime(os.path.join(first, "train-images-idx3-ubyte.gz"))
    assert fakedata.generated_dir("fashionmnist") == first
    assert os.path.getmtime(os.path.join(first, "train-images-idx3-ubyte.gz")) == mtime
    found = data.locate("fashionmnist", first)
    assert sorted(os.path.basename(p) for p in found.values()) == sorted(
        ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"])
    # no private copies left behind
    assert [n for n in os.listdir(str(tmp_path)) if n.startswith(".gpucheck")] == []


def test_generated_is_only_for_fashionmnist():
    with pytest.raises(WorkloadError, match="--data-dir @generated can only generate fashionmnist, not cifar10"):
        fakedata.generated_dir("cifar10")
