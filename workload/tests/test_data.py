import gzip
import os
import pickle

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")  # CIFAR's pickles hold numpy arrays; torch depends on numpy

from gpucheck_workload import data  # noqa: E402
from gpucheck_workload.errors import WorkloadError  # noqa: E402


def test_fashionmnist_gz_and_torchvision_raw_layout(fashion_dir, tmp_path):
    ds = data.load(torch, "fashionmnist", fashion_dir)
    assert ds.train.images.shape == (600, 1, 28, 28) and ds.test.images.shape == (200, 1, 28, 28)
    assert ds.train.labels.dtype == torch.int64 and int(ds.train.labels.max()) < 10
    assert (ds.classes, ds.channels, ds.size) == (10, 1, 28)
    raw = tmp_path / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    for name in os.listdir(fashion_dir):  # uncompressed, where torchvision keeps them
        with gzip.open(os.path.join(fashion_dir, name)) as src:
            (raw / name[:-3]).write_bytes(src.read())
    again = data.load(torch, "fashionmnist", str(tmp_path))
    assert torch.equal(again.train.images, ds.train.images) and torch.equal(again.test.labels, ds.test.labels)


def write_batch(path, n, label_key, seed):
    rng = np.random.RandomState(seed)
    batch = {b"data": rng.randint(0, 256, size=(n, 3072)).astype(np.uint8), label_key: list(rng.randint(0, 10, size=n))}
    with open(str(path), "wb") as f:
        pickle.dump(batch, f)
    return batch


def test_cifar10_batches(tmp_path):
    root = tmp_path / "cifar-10-batches-py"
    root.mkdir()
    batches = [write_batch(root / ("data_batch_%d" % i), 4, b"labels", i) for i in range(1, 6)]
    write_batch(root / "test_batch", 3, b"labels", 9)
    ds = data.load(torch, "cifar10", str(tmp_path))
    assert ds.train.images.shape == (20, 3, 32, 32) and ds.test.images.shape == (3, 3, 32, 32)
    assert (ds.classes, ds.channels, ds.size) == (10, 3, 32)
    # CIFAR rows are 1024 red, then 1024 green, then 1024 blue values, row-major
    first = batches[0][b"data"][0]
    assert int(ds.train.images[0, 1, 0, 5]) == int(first[1024 + 5])
    assert ds.train.labels[4:8].tolist() == [int(x) for x in batches[1][b"labels"]]


def test_cifar100_fine_labels(tmp_path):
    root = tmp_path / "cifar-100-python"
    root.mkdir()
    train = write_batch(root / "train", 6, b"fine_labels", 1)
    write_batch(root / "test", 2, b"fine_labels", 2)
    ds = data.load(torch, "cifar100", str(tmp_path))
    assert ds.classes == 100 and ds.train.labels.tolist() == [int(x) for x in train[b"fine_labels"]]


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_a_pickle_that_runs_code_is_refused(tmp_path):
    root = tmp_path / "cifar-100-python"
    root.mkdir()
    for name in ("train", "test"):
        with open(str(root / name), "wb") as f:
            pickle.dump({b"data": Evil()}, f)
    with pytest.raises(WorkloadError, match=r"^refusing to unpickle (posix|os)\.system from a CIFAR batch$"):
        data.load(torch, "cifar100", str(tmp_path))
