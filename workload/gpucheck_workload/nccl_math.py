"""nccl-tests' byte counts, bandwidth formulas (algbw, busbw) and size sweep, per collective (pure, no torch).

Copied in meaning from NVIDIA/nccl-tests src/<op>.cu (*GetCollByteCount, *GetBw), so a number
printed here means the same as one printed by all_reduce_perf & co:
  algbw = bytes moved per rank's call / time, decimal GB/s (1e9)
  busbw = algbw × factor, the factor making it comparable to link bandwidth:
    all_reduce 2(n-1)/n · all_gather, reduce_scatter, alltoall (n-1)/n · broadcast 1
"""

OPS = ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast")

# nccl-tests' -d names → element size in bytes
DTYPE_SIZES = {"float": 4, "half": 2, "bfloat16": 2, "double": 8, "int32": 4}

REDOP = {"all_reduce": "sum", "reduce_scatter": "sum"}  # the rest print "none"


def redop(op):
    return REDOP.get(op, "none")


def root(op):
    """nccl-tests prints -1 for collectives without a root; broadcast runs with root 0."""
    return 0 if op == "broadcast" else -1


def counts(op, size, eltsize, nranks):
    """(send, recv, param) element counts for a requested size in bytes, as nccl-tests computes them.

    all_gather / reduce_scatter / alltoall split the buffer into nranks chunks rounded down to a
    16-byte multiple, so the size printed can be below the size asked for (or 0 for tiny sizes).
    """
    count = size // eltsize
    if op in ("all_reduce", "broadcast"):
        return count, count, count
    base = (count // nranks) & ~(16 // eltsize - 1)
    if op == "all_gather":
        return base, base * nranks, base
    if op == "reduce_scatter":
        return base * nranks, base, base
    if op == "alltoall":
        return base * nranks, base * nranks, base
    raise ValueError("unknown collective %r" % op)


def printed_size(op, size, eltsize, nranks):
    send, recv, _ = counts(op, size, eltsize, nranks)
    return max(send, recv) * eltsize


def bus_factor(op, nranks):
    if op == "all_reduce":
        return 2.0 * (nranks - 1) / nranks
    if op in ("all_gather", "reduce_scatter", "alltoall"):
        return (nranks - 1) / float(nranks)
    if op == "broadcast":
        return 1.0
    raise ValueError("unknown collective %r" % op)


def bandwidth(op, param_count, eltsize, seconds, nranks):
    """(algbw, busbw) in GB/s for one call taking `seconds` with the per-call element count."""
    moved = param_count * eltsize * (nranks if op in ("all_gather", "reduce_scatter", "alltoall") else 1)
    algbw = moved / 1.0e9 / seconds if seconds > 0 else 0.0
    return algbw, algbw * bus_factor(op, nranks)


def sweep(min_bytes, max_bytes, factor):
    """The requested sizes: min, min×f, … ≤ max (nccl-tests -b -e -f)."""
    sizes, size = [], min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size *= factor
        if size == 0:
            break
    return sizes


def parse_size(text):
    """A byte count as nccl-tests -b/-e accept it: plain, or with K/M/G (powers of 1024)."""
    raw = str(text).strip()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(raw[-1:].upper(), 1)
    digits = raw[:-1] if scale > 1 else raw
    if not digits.isdigit():
        raise ValueError("%r is not a byte count (e.g. 8, 1048576, 64M, 8G)" % text)
    return int(digits) * scale
