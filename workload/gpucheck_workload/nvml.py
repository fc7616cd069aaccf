"""NVML through ctypes, for telemetry without forking nvidia-smi every 500 ms (no pynvml needed).

Only the calls telemetry needs, each read independently: a GPU that refuses one query (e.g. power
on some boards) still reports the others. Structures follow nvml.h (stable across drivers).
"""
import ctypes

from . import nvsmi

NVML_SUCCESS = 0
NVML_CLOCK_SM = 1
NVML_TEMPERATURE_GPU = 0


class _Utilization(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


class _Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


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

    def _get(self, fn, handle, out, *args):
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
                "util_pct": util.gpu if util else None,
                "sm_clock_mhz": clock.value if clock else None,
                "power_w": round(power.value / 1000.0, 2) if power else None,  # mW
                "temp_c": temp.value if temp else None,
                "mem_used_mib": round(mem.used / 1048576.0, 1) if mem else None,
                "throttle_reasons": nvsmi.throttling(reasons.value) if reasons else [],
            })
        return gpus

    def close(self):
        self.lib.nvmlShutdown()
