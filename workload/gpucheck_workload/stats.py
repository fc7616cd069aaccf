"""Summaries of per-step timings (pure)."""


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default), q in 0..100."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summary_ms(seconds):
    if not seconds:
        return {"mean": None, "p50": None, "p95": None}
    ms = [s * 1e3 for s in seconds]
    return {"mean": sum(ms) / len(ms), "p50": percentile(ms, 50), "p95": percentile(ms, 95)}
