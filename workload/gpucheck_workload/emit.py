"""The tagged output protocol: `GPUCHECK_<TAG> {json}` on stdout, one object per line.

Every line is flushed at once: the harness streams ranks live and a killed rank must not lose
lines sitting in a buffer. Lines are written with one write() so threads (the telemetry sampler
and the main command) never interleave halves of two lines.
"""
import json
import math
import sys
import threading

_lock = threading.Lock()


def finite(value):
    """NaN and infinity are not JSON: they become null, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def line(text):
    """Print one raw line (the nccl-tests layout) atomically and flush it."""
    with _lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def tagged(tag, obj):
    line("GPUCHECK_%s %s" % (tag, json.dumps(finite(obj), separators=(",", ":"), allow_nan=False)))
