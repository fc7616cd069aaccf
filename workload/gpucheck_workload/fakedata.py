"""`make-fashionmnist`: a small data set in FashionMNIST's exact file format, made locally.

Tests and demos need the real loading code to run without a download. Each class draws a bright
block at its own place on a noisy background, shifted by up to 2 pixels, so a network learns it
in a few dozen steps and accuracy rises well above the 10 % of chance.
"""
import os
import random

from . import idx

SIDE = 28
CLASSES = 10
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def _image(rng, label):
    # classes 0-4 along the top half, 5-9 along the bottom, 5 px wide columns
    top = 3 + 12 * (label // 5) + rng.randint(-2, 2)
    left = 2 + 5 * (label % 5) + rng.randint(-1, 1)
    noise = rng.getrandbits(8 * SIDE * SIDE).to_bytes(SIDE * SIDE, "little")
    pixels = bytearray(b // 5 for b in noise)  # background 0..51
    for y in range(max(top, 0), min(top + 10, SIDE)):
        for x in range(max(left, 0), min(left + 4, SIDE)):
            pixels[y * SIDE + x] = 200 + noise[y * SIDE + x] % 56
    return bytes(pixels)


def make(n, rng):
    labels = bytes(rng.randrange(CLASSES) for _ in range(n))
    images = b"".join(_image(rng, label) for label in labels)
    return images, labels


def write_fashionmnist(out, n_train, n_test, seed=0):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    for split, n in (("train", n_train), ("test", n_test)):
        images, labels = make(n, rng)
        image_file, label_file = FILES[split]
        idx.write(os.path.join(out, image_file), (n, SIDE, SIDE), images)
        idx.write(os.path.join(out, label_file), (n,), labels)


GENERATED = "@generated"
GENERATED_TRAIN, GENERATED_TEST = 2048, 512
# bump when make() changes: nodes keep the cached set in /tmp between runs
GENERATED_FORMAT = 1


def generated_dir(name, seed=0):
    """`--data-dir @generated`: a small FashionMNIST-format set made on this node, so a suite
    (cpu-smoke) exercises the real IDX loading path anywhere without staging files. Every rank on
    a node may ask at once: each writes a private copy and renames it into place; the first wins.
    The directory is per user, so a run as root never blocks a later run as someone else."""
    if name != "fashionmnist":
        from .errors import WorkloadError
        raise WorkloadError("--data-dir %s can only generate fashionmnist, not %s" % (GENERATED, name))
    import tempfile
    # one per user: mkdtemp makes the directory 0700, so another user's copy is unreadable here
    uid = os.getuid() if hasattr(os, "getuid") else 0
    final = os.path.join(tempfile.gettempdir(), "gpucheck-fashionmnist-v%d-u%d-%d-%d-%d" % (GENERATED_FORMAT, uid, GENERATED_TRAIN, GENERATED_TEST, seed))
    if os.path.isdir(final):
        return final
    mine = tempfile.mkdtemp(prefix=".gpucheck-fashionmnist-", dir=tempfile.gettempdir())
    write_fashionmnist(mine, GENERATED_TRAIN, GENERATED_TEST, seed)
    try:
        os.rename(mine, final)
    except OSError:  # another rank got there first with identical content
        import shutil
        shutil.rmtree(mine, ignore_errors=True)
    return final
