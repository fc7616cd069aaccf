"""The IDX file format of MNIST / FashionMNIST: reader and writer (pure Python, .gz or raw).

Layout: two zero bytes, a type code (0x08 = unsigned byte, the only one these data sets use),
the number of dimensions, each dimension as a big-endian uint32, then the data in C order.
"""
import gzip
import struct

from .errors import WorkloadError

UBYTE = 0x08


def _open(path, mode):
    return gzip.open(path, mode) if str(path).endswith(".gz") else open(path, mode)


def read(path):
    """(shape, bytes) of a ubyte IDX file."""
    try:
        with _open(path, "rb") as f:
            blob = f.read()
    except (OSError, EOFError) as e:
        raise WorkloadError("cannot read IDX file %s: %s" % (path, e)) from None
    if len(blob) < 4 or blob[0] != 0 or blob[1] != 0:
        raise WorkloadError("%s is not an IDX file (bad magic number)" % path)
    if blob[2] != UBYTE:
        raise WorkloadError("%s holds IDX type 0x%02x; only unsigned bytes (0x08) are supported" % (path, blob[2]))
    ndim = blob[3]
    header = 4 + 4 * ndim
    shape = struct.unpack(">%dI" % ndim, blob[4:header])
    expected = 1
    for d in shape:
        expected *= d
    data = blob[header:]
    if len(data) != expected:
        raise WorkloadError("%s is truncated: shape %s needs %d bytes, found %d" % (path, list(shape), expected, len(data)))
    return tuple(shape), data


def write(path, shape, data):
    """Write bytes `data` of the given shape as a ubyte IDX file (gzipped when path ends in .gz)."""
    expected = 1
    for d in shape:
        expected *= d
    if len(data) != expected:
        raise ValueError("shape %s needs %d bytes, got %d" % (list(shape), expected, len(data)))
    with _open(path, "wb") as f:
        f.write(bytes([0, 0, UBYTE, len(shape)]) + struct.pack(">%dI" % len(shape), *shape))
        f.write(bytes(data))
