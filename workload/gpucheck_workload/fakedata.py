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
# bump when make() changes: nodes keep the cached set in the user's cache between runs
GENERATED_FORMAT = 1


def cache_root():
    """The user's cache for gpucheck: $XDG_CACHE_HOME/gpucheck, else ~/.cache/gpucheck (the XDG rule:
    a relative $XDG_CACHE_HOME is ignored). Not /tmp: a path there is guessable, and another user can
    make it first and have the ranks read their files."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpucheck")


def _untrusted(path):
    """Why `path` must not be read (another user's, a symlink, writable by group or others, not a
    directory), or None. lstat: a symlink is judged as itself, never by where it points."""
    import stat
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return "belongs to uid %d, not to this user (uid %d)" % (st.st_uid, os.getuid())
    if st.st_mode & 0o022:
        return "is writable by group or others (mode %o)" % (st.st_mode & 0o777)
    return None


def _private_cache():
    """The cache directory, made 0700 when missing, or (None, why) when it is not safe to read from."""
    root = cache_root()
    try:
        os.makedirs(os.path.dirname(root), exist_ok=True)
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        return None, "cannot be made (%s)" % (e.strerror or e)
    why = _untrusted(root)
    return (None, why) if why else (root, None)


def generated_dir(name, seed=0):
    """`--data-dir @generated`: a small FashionMNIST-format set made on this node, so a suite
    (cpu-smoke) exercises the real IDX loading path anywhere without staging files. It is cached in
    the user's cache (cache_root()), used only when that directory and the set's own are this
    user's, real directories (not symlinks) and not writable by group or others; otherwise the set
    is made afresh in a private temporary directory and what was there is never read. Every rank on
    a node may ask at once: each writes a private copy and renames it into place; the first wins."""
    if name != "fashionmnist":
        from .errors import WorkloadError
        raise WorkloadError("--data-dir %s can only generate fashionmnist, not %s" % (GENERATED, name))
    import sys
    import tempfile
    leaf = "fashionmnist-v%d-%d-%d-%d" % (GENERATED_FORMAT, GENERATED_TRAIN, GENERATED_TEST, seed)
    cache, why = _private_cache()
    where = cache_root()
    if cache is not None:
        where = os.path.join(cache, leaf)
        why = _untrusted(where)
        if why is None and os.path.isdir(where):
            return where
    if why is not None:
        # one line in the rank's log; the run goes on with a set of its own, made here and now
        sys.stderr.write("gpucheck: the generated data set cache %s %s: not read; making the set in a private temporary directory "
                         "(remove it, or set XDG_CACHE_HOME to a directory of your own)\n" % (where, why))
        # mkdtemp: 0700, a fresh name; the temp dir's scripts/test.sh check knows this prefix
        mine = tempfile.mkdtemp(prefix="gpucheck-fashionmnist-v%d-" % GENERATED_FORMAT)
        write_fashionmnist(mine, GENERATED_TRAIN, GENERATED_TEST, seed)
        return mine
    mine = tempfile.mkdtemp(prefix=".%s-" % leaf, dir=cache)
    write_fashionmnist(mine, GENERATED_TRAIN, GENERATED_TEST, seed)
    try:
        os.rename(mine, where)
    except OSError:  # another rank got there first with identical content
        import shutil
        shutil.rmtree(mine, ignore_errors=True)
    return where
