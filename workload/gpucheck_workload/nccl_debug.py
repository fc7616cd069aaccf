"""NCCL's own account of a collective: which transport each connection used.

NCCL says it only at NCCL_DEBUG=INFO, and then says a great deal. So INFO (subsystems
INIT,GRAPH,NET,TUNING) goes to a side file per process (NCCL_DEBUG_FILE=<private dir>/nccl.%h.%p); the
console keeps only NCCL's WARN lines, copied to stderr as they appear; after the run the INFO lines
are printed once, each as `GPUCHECK_NCCL_INFO <line>` (the harness reads them, `gpucheck judge` can
read them again from the saved logs), at most MAX_LINES of them, then one `GPUCHECK_NCCL {json}`
record says how many there were, whether they were cut, or why there are none. The side files are
removed.

TUNING is asked for because only its lines say which algorithm and protocol NCCL chose for each
call ("AllReduce: 8589934592 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}" from 2.24,
"… Bytes -> Algo 4 proto 2 time …" in 2.20–2.23; rank 0 prints one per call): what proves that NVLS
served the measured sizes. Every timed iteration repeats its size's line, so a tuning line is kept
only the first time its call, size, algorithm and protocol appear; the record counts the repeats
left out ("tuningRepeats").

A suite that set NCCL_DEBUG_FILE itself keeps it: the file is read (not removed) when it can be
found. A suite that set NCCL_DEBUG=INFO (or TRACE) without a file gets NCCL's lines on the console as
it asked, and the harness reads them there.
"""
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import threading

from . import emit

SUBSYS = "INIT,GRAPH,NET,TUNING"
# "[AllReduce: ]<bytes> Bytes -> Algo <algo> proto <proto>": what identifies a tuning line's choice
TUNING = re.compile(r"NCCL INFO (?:(\w+): )?(\d+) Bytes -> Algo (\w+) proto (\w+)")
# NCCL 2.2x on 8 GPUs prints a few hundred INFO lines per rank at INIT,GRAPH,NET; a one-process
# nccl-tests run (-g 8) prints all eight ranks' in one file
MAX_LINES = 4000
MAX_LINE_CHARS = 1000
INFO_TAG = "GPUCHECK_NCCL_INFO "
POLL_S = 0.5


def _is_info_level(value):
    return (value or "").strip().upper() in ("INFO", "TRACE")


def _short_host():
    # NCCL's %h: the host name up to its first dot
    return socket.gethostname().split(".")[0]


def expand(pattern, pid, host=None):
    """NCCL_DEBUG_FILE's %h and %p, as NCCL expands them."""
    return pattern.replace("%h", host or _short_host()).replace("%p", str(pid))


class Capture:
    """One process's capture. start() before NCCL initialises (it reads the variables once)."""

    def __init__(self, env=None, rank=0, backend="nccl", out=None, err=None):
        self.env = os.environ if env is None else env
        self.rank = rank
        self.backend = backend
        self.out = out or emit.line
        self.err = err or sys.stderr
        self.mode = None
        self.dir = None
        self.pattern = None
        self._offsets = {}
        self._partial = {}
        self._info = []
        self._total = 0
        self._first_other = None
        self._tuning = set()
        self._tuning_repeats = 0
        self._stop = threading.Event()
        self._thread = None
        self._lock = threading.Lock()

    def start(self):
        if self.env.get("NCCL_DEBUG_FILE"):
            self.mode, self.pattern = "user-file", self.env["NCCL_DEBUG_FILE"]
            return self
        if _is_info_level(self.env.get("NCCL_DEBUG")):
            self.mode = "console"
            return self
        self.mode = "capture"
        self.dir = tempfile.mkdtemp(prefix="gpucheck-nccl-")
        self.env["NCCL_DEBUG"] = "INFO"
        self.env.setdefault("NCCL_DEBUG_SUBSYS", SUBSYS)
        self.env["NCCL_DEBUG_FILE"] = os.path.join(self.dir, "nccl.%h.%p")
        self._thread = threading.Thread(target=self._follow, name="gpucheck-nccl-debug", daemon=True)
        self._thread.start()
        return self

    def _follow(self):
        while not self._stop.wait(POLL_S):
            self._read_dir()

    def _read_dir(self):
        try:
            names = sorted(os.listdir(self.dir))
        except OSError:
            return
        for name in names:
            self._read(os.path.join(self.dir, name))

    def _read(self, path):
        with self._lock:
            try:
                with open(path, "rb") as f:
                    f.seek(self._offsets.get(path, 0))
                    chunk = f.read()
            except OSError:
                return
            self._offsets[path] = self._offsets.get(path, 0) + len(chunk)
            text = self._partial.pop(path, "") + chunk.decode("utf-8", "replace")
            lines = text.split("\n")
            if lines[-1]:
                self._partial[path] = lines[-1]
            for line in lines[:-1]:
                self._line(line.rstrip("\r"))

    def _flush_partials(self):
        with self._lock:
            rest, self._partial = self._partial, {}
            for line in rest.values():
                self._line(line)

    def _line(self, line):
        if " NCCL WARN " in line:
            # the console keeps WARN, as NCCL_DEBUG=WARN would have printed it
            self.err.write(line + "\n")
            self.err.flush()
        elif " NCCL INFO " in line or line.startswith("NCCL version"):
            choice = TUNING.search(line)
            if choice:
                if choice.groups() in self._tuning:
                    self._tuning_repeats += 1
                    return
                self._tuning.add(choice.groups())
            self._total += 1
            if len(self._info) < MAX_LINES:
                self._info.append(line[:MAX_LINE_CHARS])
        elif self._first_other is None and line.strip():
            self._first_other = line.strip()[:200]

    def _began(self):
        """What the file held instead, for the reason: its first line, or that it was empty."""
        return ": it began %r" % self._first_other if self._first_other else ": it was empty (did NCCL start?)"

    def finish(self, pids=()):
        """Read what is left, print the INFO lines and the record, remove the side files."""
        if self.mode is None:
            return
        if self._thread:
            self._stop.set()
            self._thread.join()
        reason = None
        if self.mode == "capture":
            self._read_dir()
            self._flush_partials()
            shutil.rmtree(self.dir, ignore_errors=True)
            if self._total == 0:
                reason = "NCCL wrote no INFO line to its debug file (NCCL_DEBUG=INFO was set)" + self._began()
        elif self.mode == "user-file":
            paths = sorted({expand(self.pattern, p) for p in (os.getpid(),) + tuple(pids)})
            found = [p for p in paths if os.path.isfile(p)]
            for p in found:
                self._read(p)
            self._flush_partials()
            if not found:
                reason = "NCCL_DEBUG_FILE=%s was set by the suite and no file %s was found after the run" % (self.pattern, " or ".join(paths))
            elif self._total == 0:
                reason = "NCCL_DEBUG_FILE=%s was set by the suite but holds no INFO line (NCCL_DEBUG is %s)%s" % (
                    self.pattern, self.env.get("NCCL_DEBUG") or "unset", self._began())
        for line in self._info:
            self.out(INFO_TAG + line)
        record = {"rank": self.rank, "backend": self.backend, "source": self.mode, "lines": self._total,
                  "emitted": len(self._info), "capped": self._total > len(self._info)}
        if self._tuning_repeats:
            record["tuningRepeats"] = self._tuning_repeats
        if reason:
            record["reason"] = reason
        self.out("GPUCHECK_NCCL " + json.dumps(record, separators=(",", ":")))
        self.mode = None


    def abandon(self):
        """The process group never started: remove the side files and say nothing (the error says it)."""
        if self._thread:
            self._stop.set()
            self._thread.join()
        if self.mode == "capture":
            shutil.rmtree(self.dir, ignore_errors=True)
        self.mode = None


def not_run(rank, backend, out=None):
    """The record for a collective that never reached NCCL (gloo on CPUs)."""
    record = {"rank": rank, "backend": backend, "source": None, "lines": 0, "emitted": 0, "capped": False,
              "reason": "backend %s: NCCL did not run" % backend}
    (out or emit.line)("GPUCHECK_NCCL " + json.dumps(record, separators=(",", ":")))
