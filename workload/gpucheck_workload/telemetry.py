"""GPUCHECK_TELEMETRY samples: GPU load, clocks, power, heat, memory, throttling and new Xids.

GPU readings come from NVML (ctypes) when libnvidia-ml loads, else from one `nvidia-smi
--query-gpu` call per sample, else none (a CPU node reports CPU load only). New Xid events come
from /dev/kmsg read from its end at start, else from diffing `dmesg` every few seconds.
"""
import os
import shutil
import signal
import socket
import threading
import time

from . import cpu, emit, nvsmi, probe, xid

QUERY = "index,utilization.gpu,clocks.sm,power.draw,temperature.gpu,memory.used,%s.active"
DMESG_EVERY_S = 5.0


class GpuReader:
    def __init__(self):
        self.nvml, self.reasons_field = None, "clocks_event_reasons"
        try:
            from .nvml import Nvml
            self.nvml = Nvml()
        except (OSError, RuntimeError, AttributeError):
            self.nvml = None
        self.smi = self.nvml is None and shutil.which("nvidia-smi") is not None

    def _query(self):
        for field in (self.reasons_field, "clocks_throttle_reasons"):  # drivers before 535 know only the old name
            try:
                text = probe.run(["nvidia-smi", "--query-gpu=" + QUERY % field, "--format=csv"], timeout=10)
                self.reasons_field = field
                return text, field
            except probe.ProbeFailed:
                continue
        return None, None

    def sample(self):
        if self.nvml:
            return self.nvml.sample()
        if not self.smi:
            return []
        text, field = self._query()
        if text is None:
            return []
        return [{
            "index": nvsmi.number(row.get("index")),
            "util_pct": nvsmi.number(row.get("utilization.gpu")),
            "sm_clock_mhz": nvsmi.number(row.get("clocks.sm")),
            "power_w": nvsmi.number(row.get("power.draw")),
            "temp_c": nvsmi.number(row.get("temperature.gpu")),
            "mem_used_mib": nvsmi.number(row.get("memory.used")),
            "throttle_reasons": nvsmi.throttling(row.get(field + ".active")),
        } for row in nvsmi.parse_csv(text)]


class XidWatch:
    """Xid events that appear after construction."""

    def __init__(self):
        self.kmsg, self.seen, self.next_dmesg = None, None, 0.0
        try:
            self.kmsg = xid.Kmsg(from_end=True)
        except OSError:
            self.seen = self._dmesg_events()

    def _dmesg_events(self):
        try:
            text = probe.run(["dmesg"], timeout=5)
        except probe.ProbeFailed:
            return set()
        return {tuple(sorted((k, str(v)) for k, v in e.items())) for e in xid.parse(text)}

    def new(self):
        if self.kmsg:
            return xid.parse("\n".join(self.kmsg.lines()))
        now = time.time()
        if now < self.next_dmesg:
            return []
        self.next_dmesg = now + DMESG_EVERY_S
        current = self._dmesg_events()
        fresh = current - self.seen
        self.seen |= current
        return [dict(e) for e in sorted(fresh)]


class Probe:
    def __init__(self):
        self.gpus, self.xids = GpuReader(), XidWatch()
        self.cpu_before = cpu.cpu_times()
        self.host = os.environ.get("GPUCHECK_NODE") or socket.gethostname()

    def sample(self):
        after = cpu.cpu_times()
        util, self.cpu_before = cpu.utilisation(self.cpu_before, after), after
        out = {"t": round(time.time(), 3), "host": self.host, "gpus": self.gpus.sample(), "xids": self.xids.new(),
               "cpu_util_pct": util, "load1": cpu.load1()}
        if not out["gpus"]:
            out["cpu_temp_c"] = cpu.max_temp_c()
        return out


class Sampler(threading.Thread):
    """Prints a sample every `interval` seconds beside the running command (daemon: never blocks exit)."""

    def __init__(self, interval):
        super().__init__(name="gpucheck-telemetry", daemon=True)
        self.interval, self.stopped = interval, threading.Event()
        self.probe = Probe()

    def run(self):
        while True:  # a sample at once: the baseline, and a short command still gets one
            emit.tagged("TELEMETRY", self.probe.sample())
            if self.stopped.wait(self.interval):
                return

    def stop(self):
        """Stop and wait briefly, so the process does not exit in the middle of a sample's line."""
        self.stopped.set()
        self.join(timeout=2.0)


def main(interval, duration=None):
    if interval <= 0:
        from .errors import WorkloadError
        raise WorkloadError("--interval must be positive, got %s" % interval)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    p = Probe()
    end = time.time() + duration if duration else None
    while not stop.is_set():
        emit.tagged("TELEMETRY", p.sample())
        wait = interval if end is None else min(interval, end - time.time())
        if wait <= 0 or stop.wait(wait):
            break
    return 0
