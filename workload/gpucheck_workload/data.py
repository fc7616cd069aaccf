"""Training data: pre-staged FashionMNIST (IDX) and CIFAR-10/100 (python pickle batches).

Nothing is downloaded: nodes of an acceptance test often have no internet, and a download would
time the network instead of the GPUs. Missing files end the run with one line naming them.
Everything is loaded into memory (at most ~180 MB) as uint8 tensors; train.py moves it to the GPU.
"""
import os
import pickle
from collections import namedtuple

from . import fakedata, idx
from .errors import WorkloadError

Split = namedtuple("Split", "images labels")  # images: N×C×H×W uint8, labels: N int64
Dataset = namedtuple("Dataset", "train test classes channels size")

LAYOUTS = {
    # data set: (sub-directories searched, train files, test files, classes)
    "fashionmnist": (("", "FashionMNIST/raw"), ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                     ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"), 10),
    "cifar10": (("cifar-10-batches-py", ""), tuple("data_batch_%d" % i for i in range(1, 6)), ("test_batch",), 10),
    "cifar100": (("cifar-100-python", ""), ("train",), ("test",), 100),
}


def _find(data_dir, name, subdirs, gz):
    for sub in subdirs:
        for suffix in (("", ".gz") if gz else ("",)):
            path = os.path.join(data_dir, sub, name + suffix)
            if os.path.isfile(path):
                return path
    return None


def locate(name, data_dir):
    """{file name: path}, or WorkloadError naming the missing files and where they were looked for."""
    if not data_dir:
        raise WorkloadError("--data %s needs --data-dir: the directory holding the pre-staged files" % name)
    subdirs, train, test, _ = LAYOUTS[name]
    gz = name == "fashionmnist"
    found = {f: _find(data_dir, f, subdirs, gz) for f in train + test}
    missing = [f for f, p in found.items() if p is None]
    if missing:
        places = " or ".join(os.path.join(data_dir, s).rstrip("/") for s in subdirs)
        raise WorkloadError("%s files not found: expected %s%s in %s (nothing is downloaded at run time)"
                            % (name, ", ".join(missing), " (raw or .gz)" if gz else "", places))
    return found


def _fashion_split(torch, image_path, label_path):
    shape, pixels = idx.read(image_path)
    lshape, labels = idx.read(label_path)
    if len(shape) != 3 or lshape != (shape[0],):
        raise WorkloadError("%s and %s do not match: images %s, labels %s" % (image_path, label_path, list(shape), list(lshape)))
    images = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).reshape(shape[0], 1, shape[1], shape[2])
    return Split(images, torch.frombuffer(bytearray(labels), dtype=torch.uint8).long())


class _ArraysOnly(pickle.Unpickler):
    """CIFAR batches are pickles of numpy arrays; refuse anything else a pickle could run."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
               ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
               ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise WorkloadError("refusing to unpickle %s.%s from a CIFAR batch" % (module, name))
        return super().find_class(module, name)


def _cifar_split(torch, paths, label_key):
    images, labels = [], []
    for path in paths:
        try:
            with open(path, "rb") as f:
                batch = _ArraysOnly(f, encoding="bytes").load()
        except (OSError, pickle.UnpicklingError, EOFError) as e:
            raise WorkloadError("cannot read CIFAR batch %s: %s" % (path, e)) from None
        images.append(torch.as_tensor(batch[b"data"]).reshape(-1, 3, 32, 32))
        labels.append(torch.as_tensor(list(batch[label_key]), dtype=torch.int64))
    return Split(torch.cat(images), torch.cat(labels))


def load(torch, name, data_dir):
    if data_dir == fakedata.GENERATED:
        data_dir = fakedata.generated_dir(name)
    found = locate(name, data_dir)
    _, train, test, classes = LAYOUTS[name]
    if name == "fashionmnist":
        tr, te = _fashion_split(torch, *[found[f] for f in train]), _fashion_split(torch, *[found[f] for f in test])
    else:
        key = b"labels" if name == "cifar10" else b"fine_labels"
        tr, te = _cifar_split(torch, [found[f] for f in train], key), _cifar_split(torch, [found[f] for f in test], key)
    return Dataset(tr, te, classes, tr.images.shape[1], tr.images.shape[2])
