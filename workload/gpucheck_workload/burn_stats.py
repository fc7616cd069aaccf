"""Per-rank summaries of a burn's iterations, kept bounded however long the run (pure).

A 30-minute burn on a GPU runs hundreds of thousands of iterations, and every rank's result is
gathered to rank 0 and printed on one line: the iterations are summarised as they come (running
sums, per-window figures), and only the first RAW_CAP iteration times are kept as they are.
"""
import math

WINDOW_S = 10.0
RAW_CAP = 1000
# throughput is compared over the first and the last minute; a run too short to hold two whole,
# separate minutes compares its first and last tenth instead
EDGE_S = 60.0
SHORT_EDGE_FRACTION = 0.1


def edge_span(duration_s):
    """Seconds at each end of the run whose throughput is compared."""
    return EDGE_S if duration_s >= 2 * EDGE_S else duration_s * SHORT_EDGE_FRACTION


class Running:
    """Count, mean, standard deviation (Welford) and maximum of a stream of values."""

    def __init__(self):
        self.n, self.mean, self.m2, self.max, self.total = 0, 0.0, 0.0, None, 0.0

    def add(self, x):
        self.n += 1
        self.total += x
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)
        self.max = x if self.max is None else max(self.max, x)

    def summary(self):
        if self.n == 0:
            return {"n": 0, "mean_s": None, "std_s": None, "max_s": None}
        # the population deviation: every iteration of the run is here, not a sample of them
        return {"n": self.n, "mean_s": self.mean, "std_s": math.sqrt(self.m2 / self.n), "max_s": self.max}


class Window(Running):
    """One window of the run: its iterations' own times, and the seconds each phase took in it."""

    def __init__(self):
        super().__init__()
        self.gemm, self.copy, self.allreduce = 0.0, 0.0, 0.0


class Burn:
    """One rank's iterations: each is (start in s since the run began, gemm s, copy s, all-reduce s)."""

    def __init__(self, gemm_flop, copy_bytes, duration_s, window_s=WINDOW_S, raw_cap=RAW_CAP):
        self.gemm_flop, self.copy_bytes = gemm_flop, copy_bytes
        self.span = edge_span(duration_s)
        self.last_from = duration_s - self.span
        self.first, self.last = [0, 0.0, 0.0], [0, 0.0, 0.0]
        self.window_s, self.raw_cap = window_s, raw_cap
        self.own, self.gemm, self.copy, self.allreduce = Running(), Running(), Running(), Running()
        self.windows = {}
        self.raw = []

    def add(self, start, gemm_s, copy_s, allreduce_s):
        own = gemm_s + copy_s
        self.own.add(own)
        self.gemm.add(gemm_s)
        self.copy.add(copy_s)
        self.allreduce.add(allreduce_s)
        w = self.windows.setdefault(int(start // self.window_s), Window())
        w.add(own)
        w.gemm += gemm_s
        w.copy += copy_s
        w.allreduce += allreduce_s
        if len(self.raw) < self.raw_cap:
            self.raw.append(own)
        self._edge_add(start, gemm_s, copy_s)

    def _edge_add(self, start, gemm_s, copy_s):
        for edge, inside in ((self.first, start < self.span), (self.last, start >= self.last_from)):
            if inside:
                edge[0] += 1
                edge[1] += gemm_s
                edge[2] += copy_s

    def _rates(self, n, gemm_s, copy_s):
        return {"iterations": n,
                "gemm_tflops": self.gemm_flop * n / gemm_s / 1e12 if gemm_s > 0 else None,
                "copy_gbps": self.copy_bytes * n / copy_s / 1e9 if copy_s > 0 else None}

    def result(self, elapsed_s):
        windows = []
        for i in sorted(self.windows):
            w = self.windows[i]
            s = w.summary()
            windows.append({"start_s": i * self.window_s, "iterations": s["n"], "mean_s": s["mean_s"], "std_s": s["std_s"],
                            "max_s": s["max_s"], **{k: v for k, v in self._rates(w.n, w.gemm, w.copy).items() if k != "iterations"},
                            "allreduce_mean_s": w.allreduce / w.n})
        return {"elapsed_s": elapsed_s, "iteration": self.own.summary(), "gemm": self.gemm.summary(),
                "copy": self.copy.summary(), "allreduce": self.allreduce.summary(),
                **self._rates(self.own.n, self.gemm.total, self.copy.total),
                "window_s": self.window_s, "windows": windows, "edges": {"span_s": self.span, "first": self._rates(*self.first), "last": self._rates(*self.last)},
                "raw_s": self.raw, "raw_cap": self.raw_cap, "raw_truncated": self.own.n > len(self.raw)}
