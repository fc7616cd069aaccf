"""NVML through ctypes, for telemetry without forking nvidia-smi every 500 ms (no pynvml needed).

Only the calls telemetry needs, each read independently: a GPU that refuses one query (e.g. power
on some boards) still reports the others. Structures and constants follow nvml.h (stable across
drivers); pynvml is not used so that one code path serves every node, with or without it installed.
"""
import ctypes

from . import nvsmi

NVML_SUCCESS = 0
NVML_CLOCK_SM = 1
NVML_TEMPERATURE_GPU = 0
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_TIMEOUT = 10
# nvmlEventTypeXidCriticalError: delivered for every Xid the driver logs, to any user (no privilege)
NVML_EVENT_TYPE_XID = 0x0000000000000008
NVML_NVLINK_MAX_LINKS = 18
# nvmlNvLinkErrorCounter_t: DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA
NVLINK_COUNTERS = [(0, "replay"), (1, "recovery"), (2, "crc_flit"), (3, "crc_data")]


class _Utilization(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


class _Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


class _PciInfo(ctypes.Structure):
    _fields_ = [("busIdLegacy", ctypes.c_char * 16), ("domain", ctypes.c_uint), ("bus", ctypes.c_uint),
                ("device", ctypes.c_uint), ("pciDeviceId", ctypes.c_uint), ("pciSubSystemId", ctypes.c_uint),
                ("busId", ctypes.c_char * 32)]


class _EventData(ctypes.Structure):
    _fields_ = [("device", ctypes.c_void_p), ("eventType", ctypes.c_ulonglong), ("eventData", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


class Nvml:
    """Raises OSError when libnvidia-ml is absent and RuntimeError when it cannot initialise."""

    def __init__(self, library="libnvidia-ml.so.1"):
        self.lib = ctypes.CDLL(library)
        if self.lib.nvmlInit_v2() != NVML_SUCCESS:
            raise RuntimeError("nvmlInit failed")
        count = ctypes.c_uint()
        if self.lib.nvmlDeviceGetCount_v2(ctypes.byref(count)) != NVML_SUCCESS:
            raise RuntimeError("nvmlDeviceGetCount failed")
        self.handles = []
        for i in range(count.value):
            handle = ctypes.c_void_p()
            if self.lib.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(handle)) == NVML_SUCCESS:
                self.handles.append((i, handle))
        self.pci = {}
        for i, h in self.handles:
            info = self._get("nvmlDeviceGetPciInfo_v3", h, _PciInfo())
            self.pci[i] = info.busId.decode("ascii", "replace") if info is not None else None
        self.events, self.events_why = None, None

    def _get(self, fn, handle, out, *args):
        # callers test the answer with `is None`: a ctypes number is falsy at 0, and 0 is a reading
        # (no clock event reason active, 0 W, 0 °C), which an H100 under load reports in every sample
        return out if getattr(self.lib, fn)(handle, *args, ctypes.byref(out)) == NVML_SUCCESS else None

    def sample(self):
        gpus = []
        for index, h in self.handles:
            util = self._get("nvmlDeviceGetUtilizationRates", h, _Utilization())
            clock = self._get("nvmlDeviceGetClockInfo", h, ctypes.c_uint(), NVML_CLOCK_SM)
            power = self._get("nvmlDeviceGetPowerUsage", h, ctypes.c_uint())
            temp = self._get("nvmlDeviceGetTemperature", h, ctypes.c_uint(), NVML_TEMPERATURE_GPU)
            mem = self._get("nvmlDeviceGetMemoryInfo", h, _Memory())
            # renamed "clocks event reasons" in newer headers; the old symbol is still exported
            reasons = self._get("nvmlDeviceGetCurrentClocksThrottleReasons", h, ctypes.c_ulonglong())
            gpus.append({
                "index": index,
                "pci_bus_id": self.pci.get(index),
                "util_pct": util.gpu if util is not None else None,
                "sm_clock_mhz": clock.value if clock is not None else None,
                "power_w": round(power.value / 1000.0, 2) if power is not None else None,  # mW
                "temp_c": temp.value if temp is not None else None,
                "mem_used_mib": round(mem.used / 1048576.0, 1) if mem is not None else None,
                # None, not []: a GPU whose reasons could not be read has not been seen unthrottled
                "throttle_reasons": nvsmi.throttling(reasons.value) if reasons is not None else None,
            })
        return gpus

    def watch_xids(self):
        """Register every GPU for Xid events; None when that worked, else why (some GPUs refuse it)."""
        event_set = ctypes.c_void_p()
        rc = self.lib.nvmlEventSetCreate(ctypes.byref(event_set))
        if rc != NVML_SUCCESS:
            self.events_why = "nvmlEventSetCreate returned %d" % rc
            return self.events_why
        refused = []
        for index, h in self.handles:
            rc = self.lib.nvmlDeviceRegisterEvents(h, ctypes.c_ulonglong(NVML_EVENT_TYPE_XID), event_set)
            if rc != NVML_SUCCESS:
                refused.append("GPU %d: nvmlDeviceRegisterEvents returned %d%s" % (
                    index, rc, " (not supported)" if rc == NVML_ERROR_NOT_SUPPORTED else ""))
        self.events = event_set
        self.events_why = "; ".join(refused) or None
        return self.events_why

    def xids(self):
        """Xid events waiting in the event set, without blocking: [{"kind", "code", "gpu", "pci"}]."""
        out = []
        if self.events is None:
            return out
        by_handle = {h.value: i for i, h in self.handles}
        while True:
            data = _EventData()
            rc = self.lib.nvmlEventSetWait_v2(self.events, ctypes.byref(data), ctypes.c_uint(0))
            if rc != NVML_SUCCESS:  # NVML_ERROR_TIMEOUT: nothing more waiting
                return out
            if data.eventType & NVML_EVENT_TYPE_XID:
                gpu = by_handle.get(data.device)
                # eventData is the Xid; 999 means the driver could not name it
                out.append({"kind": "xid", "code": int(data.eventData), "gpu": gpu, "pci": self.pci.get(gpu)})

    def nvlink_errors(self):
        """({gpu: {link: {counter: value}}}, None), or (None, why) when no GPU answered for any link."""
        out, answered, codes = {}, False, set()
        for index, h in self.handles:
            links = out.setdefault(index, {})
            for link in range(NVML_NVLINK_MAX_LINKS):
                for counter, name in NVLINK_COUNTERS:
                    value = ctypes.c_ulonglong()
                    rc = self.lib.nvmlDeviceGetNvLinkErrorCounter(h, ctypes.c_uint(link), ctypes.c_uint(counter),
                                                                  ctypes.byref(value))
                    if rc == NVML_SUCCESS:
                        links.setdefault(link, {})[name] = int(value.value)
                        answered = True
                    elif rc != NVML_ERROR_NOT_SUPPORTED:  # a link a GPU does not have is NOT_SUPPORTED
                        codes.add(rc)
        if codes and not answered:
            return None, "nvmlDeviceGetNvLinkErrorCounter returned %s" % ", ".join(str(c) for c in sorted(codes))
        return out, None

    def close(self):
        self.lib.nvmlShutdown()
