"""GPUCHECK_TELEMETRY samples: GPU load, clocks, power, heat, memory, throttling, new Xids, error counters.

GPU readings come from NVML (ctypes) when libnvidia-ml loads, else from one `nvidia-smi
--query-gpu` call per sample, else none, with the reason (a CPU node reports CPU load only). New Xid
events come from NVML's event set (any user may register) and from the kernel log: /dev/kmsg read
from its end at start, else `dmesg`/`journalctl -k` diffed every few seconds. InfiniBand port and
NVLink error counters are read in the first sample and the last (`"final": true`): the judge counts
what grew in between. Whatever could not be read is named under "unmeasured" in the sample.
"""
import os
import shutil
import signal
import socket
import threading
import time

from . import counters, cpu, emit, nvsmi, probe, xid

QUERY = "index,pci.bus_id,utilization.gpu,clocks.sm,power.draw,temperature.gpu,memory.used,%s.active"
DMESG_EVERY_S = 5.0
LOG_READERS = (["dmesg", "--time-format=iso"], ["journalctl", "-k", "-b", "--no-pager", "-o", "short-iso"])


class GpuReader:
    def __init__(self):
        self.nvml, self.reasons_field, nvml_why = None, "clocks_event_reasons", None
        try:
            from .nvml import Nvml
            self.nvml = Nvml()
        except (OSError, RuntimeError, AttributeError) as e:
            self.nvml, nvml_why = None, "NVML: %s" % e
        self.smi = self.nvml is None and shutil.which("nvidia-smi") is not None
        self.why = None if self.nvml or self.smi else "%s; nvidia-smi not found" % nvml_why

    def _query(self):
        reasons = []
        for field in (self.reasons_field, "clocks_throttle_reasons"):  # drivers before 535 know only the old name
            try:
                text = probe.run(["nvidia-smi", "--query-gpu=" + QUERY % field, "--format=csv"], timeout=10)
                self.reasons_field = field
                return text, field, None
            except probe.ProbeFailed as e:
                reasons.append(str(e))
        return None, None, reasons[0]

    def sample(self):
        """([GPU readings], None), or ([], why) when no GPU could be read."""
        if self.nvml:
            return self.nvml.sample(), None
        if not self.smi:
            return [], self.why
        text, field, why = self._query()
        if text is None:
            return [], why
        rows = [r for r in nvsmi.parse_csv(text) if nvsmi.number(r.get("index")) is not None]
        if not rows:
            first = next((l.strip() for l in text.splitlines() if l.strip()), "")
            return [], "nvidia-smi --query-gpu printed no GPU row%s" % (": " + first[:200] if first else "")
        return [{
            "index": nvsmi.number(row.get("index")),
            "pci_bus_id": row.get("pci.bus_id"),
            "util_pct": nvsmi.number(row.get("utilization.gpu")),
            "sm_clock_mhz": nvsmi.number(row.get("clocks.sm")),
            "power_w": nvsmi.number(row.get("power.draw")),
            "temp_c": nvsmi.number(row.get("temperature.gpu")),
            "mem_used_mib": nvsmi.number(row.get("memory.used")),
            "throttle_reasons": nvsmi.throttling(row.get(field + ".active")),
        } for row in rows], None


def _event_key(e):
    return tuple(sorted((k, str(v)) for k, v in e.items()))


class XidWatch:
    """Xid events that appear after construction, from NVML events and the kernel log.

    new() says which sources were read this round; when none was read completely the round's
    events may be missing, and the reason goes into the sample so the Xid metrics are unmeasured.
    """

    def __init__(self, nvml=None):
        self.nvml = nvml
        self.nvml_why = nvml.watch_xids() if nvml else "NVML not loaded"
        self.kmsg, self.seen, self.reader, self.log_why, self.next_read = None, None, None, None, 0.0
        try:
            self.kmsg = xid.Kmsg(from_end=True)
        except OSError as e:
            kmsg_why = "/dev/kmsg: %s" % e.strerror
            text, self.reader, why = self._read_log()
            if text is None:
                self.log_why = "%s; %s" % (kmsg_why, why)
            else:
                self.seen = {_event_key(e) for e in xid.parse(text)}

    @staticmethod
    def _read_log():
        reasons = []
        for argv in LOG_READERS:
            try:
                text = probe.run(argv, timeout=10)
            except probe.ProbeFailed as e:
                reasons.append(str(e))
                continue
            if xid._has_messages(text):
                return text, argv, None
            reasons.append("%s returned no kernel messages" % argv[0])
        return None, None, "; ".join(reasons)

    def _log_events(self, force):
        """(events, source, why) from the kernel log since the last call."""
        if self.kmsg:
            try:
                return xid.parse("\n".join(self.kmsg.lines())), "/dev/kmsg", None
            except OSError as e:
                return [], None, "/dev/kmsg: %s" % e.strerror
        if self.reader is None:
            return [], None, self.log_why
        now = time.time()
        if now < self.next_read and not force:
            return [], self.reader[0], None
        self.next_read = now + DMESG_EVERY_S
        try:
            text = probe.run(self.reader, timeout=10)
        except probe.ProbeFailed as e:
            return [], None, str(e)
        current = {_event_key(e): e for e in xid.parse(text)}
        fresh = [current[k] for k in sorted(set(current) - self.seen)]
        self.seen |= set(current)
        return fresh, self.reader[0], None

    def new(self, force=False):
        """(events, sources read, why) — why is None when at least one source was read completely."""
        events, sources, reasons = [], [], []
        if self.nvml and self.nvml.events is not None:
            events += [dict(e, source="nvml") for e in self.nvml.xids()]
        if self.nvml_why:
            reasons.append("NVML events: %s" % self.nvml_why)
        else:
            sources.append("nvml")
        logged, source, why = self._log_events(force)
        events += [dict(e, source="kernel log") for e in logged]
        if why:
            reasons.append("kernel log: %s%s" % (why, xid.PRIVILEGE_HINT))
        else:
            sources.append(source)
        return events, sources, None if sources else "; ".join(reasons)


class Probe:
    def __init__(self):
        self.gpus = GpuReader()
        self.xids = XidWatch(self.gpus.nvml)
        self.cpu_before = cpu.cpu_times()
        self.host = os.environ.get("GPUCHECK_NODE") or socket.gethostname()
        self.said = {}

    def _news(self, reasons):
        """Each reason once, until it changes: a CPU node would otherwise repeat it twice a second."""
        fresh = {k: v for k, v in reasons.items() if self.said.get(k) != v}
        self.said = dict(reasons)
        return fresh

    def sample(self, with_counters=False, final=False):
        """One sample; the first and the last of a test carry the error counters."""
        after = cpu.cpu_times()
        util, self.cpu_before = cpu.utilisation(self.cpu_before, after), after
        gpus, gpu_why = self.gpus.sample()
        xids, xid_sources, xid_why = self.xids.new(force=final)
        out = {"t": round(time.time(), 3), "host": self.host, "gpus": gpus, "xids": xids, "xid_sources": xid_sources,
               "cpu_util_pct": util, "load1": cpu.load1()}
        unmeasured = self._news({k: v for k, v in (("gpus", gpu_why), ("xids", xid_why)) if v})
        if with_counters:
            out["counters"], why = counters.read_all(self.gpus.nvml)
            unmeasured.update(why)
        if final:
            out["final"] = True
        if unmeasured:
            out["unmeasured"] = unmeasured
        if not gpus:
            out["cpu_temp_c"] = cpu.max_temp_c()
        return out


class Sampler(threading.Thread):
    """Prints a sample every `interval` seconds beside the running command (daemon: never blocks exit)."""

    # the last sample reads the counters (nvidia-smi nvlink -e, bounded by its own timeout): wait for it
    FINAL_WAIT_S = 40.0

    def __init__(self, interval):
        super().__init__(name="gpucheck-telemetry", daemon=True)
        self.interval, self.stopped = interval, threading.Event()
        self.probe = Probe()

    def start(self):
        # the baseline is read before the command starts, so nothing it does happens before it
        emit.tagged("TELEMETRY", self.probe.sample(with_counters=True))
        super().start()

    def run(self):
        while not self.stopped.wait(self.interval):
            emit.tagged("TELEMETRY", self.probe.sample())
        emit.tagged("TELEMETRY", self.probe.sample(with_counters=True, final=True))

    def stop(self):
        """Stop and wait for the last sample, so the process does not exit in the middle of it."""
        self.stopped.set()
        self.join(timeout=self.FINAL_WAIT_S)


def main(interval, duration=None):
    if interval <= 0:
        from .errors import WorkloadError
        raise WorkloadError("--interval must be positive, got %s" % interval)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    p = Probe()
    end = time.time() + duration if duration else None
    emit.tagged("TELEMETRY", p.sample(with_counters=True))
    while not stop.is_set():
        wait = interval if end is None else min(interval, end - time.time())
        if wait <= 0 or stop.wait(wait):
            break
        emit.tagged("TELEMETRY", p.sample())
    emit.tagged("TELEMETRY", p.sample(with_counters=True, final=True))
    return 0
