"""The nccl-tests text layout (v2.19.6, src/util.cu), line for line, so one parser reads both
gpucheck's collective benchmark and the official binaries. Pure functions returning strings.
"""

NCCL_TESTS_LAYOUT = "2.19.6"


def float_str(value, width):
    """nccl-tests' getFloatStr: %.2f if it fits the column, then %.1f, %.0f, then exponent form."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        text = fmt % (width, value)
        if len(text) <= width:
            return text
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def preamble(program, min_bytes, max_bytes, factor, warmup, iters, check, version_note):
    return [
        # Not "# nccl-tests version": this is not nccl-tests, and a parser must not think it is.
        "# %s" % version_note,
        "# Collective test starting: %s" % program,
        "# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: %d iters: %d "
        "agg iters: 1 validation: %d graph: 0 unalign: 0" % (min_bytes, max_bytes, factor, warmup, iters, int(check)),
        "#",
        "# Using devices",
    ]


def device_line(rank, pid, host, device, pci, name):
    """One `#  Rank ...` line; pci = (domain, bus, device). The host is cut at its first dot."""
    return "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s" % (
        rank, 0, pid, host.split(".")[0], device, pci[0], pci[1], pci[2], name)


def header():
    blank = ("", "", "", "", "")
    return [
        "#",
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % blank,
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
            "time", "algbw", "busbw", "#wrong", 0, ""),
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, ""),
    ]


def placement(time_us, algbw, busbw, wrong):
    """One out-of-place or in-place block; wrong=None prints N/A (no check, or alltoall in place)."""
    head = "  %7s  %6s  %6s" % (float_str(time_us, 7), float_str(algbw, 6), float_str(busbw, 6))
    return head + ("    N/A" if wrong is None else "  %6g" % float(wrong))


def row(size, count, dtype, redop, root, out_of_place, in_place):
    """A data row; out_of_place / in_place are (time_us, algbw, busbw, wrong) tuples."""
    return "%12d  %12d  %8s  %6s  %6s" % (size, count, dtype, redop, "%6i" % root) + \
        placement(*out_of_place) + placement(*in_place)


def footer(out_of_bounds, avg_busbw, program):
    return [
        "# %-20s : %d %s" % ("Out of bounds values", out_of_bounds, "FAILED" if out_of_bounds else "OK"),
        "# %-20s : %g %s" % ("Avg bus bandwidth", avg_busbw, ""),
        "#",
        "# Collective test concluded: %s" % program,
        "#",
        "",
    ]
