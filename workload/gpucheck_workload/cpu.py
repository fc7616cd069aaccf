"""What a CPU node can tell about itself from /proc and /sys, with no tool installed.

Every reader returns None when its file is missing or unreadable (containers, non-Linux).
"""
import glob
import os


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def model(cpuinfo=None):
    text = _read("/proc/cpuinfo") if cpuinfo is None else cpuinfo
    for line in (text or "").splitlines():
        key, _, value = line.partition(":")
        # x86 says "model name"; arm64 kernels print no name, only "CPU part"
        if key.strip() in ("model name", "Model", "cpu model") and value.strip():
            return value.strip()
    return "unknown"


def cores():
    return os.cpu_count() or 1


def memory_gb(meminfo=None):
    text = _read("/proc/meminfo") if meminfo is None else meminfo
    for line in (text or "").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024.0 / 1024.0, 1)  # kB → GiB
    return None


def load1(loadavg=None):
    text = _read("/proc/loadavg") if loadavg is None else loadavg
    try:
        return float(text.split()[0])
    except (AttributeError, IndexError, ValueError):
        return None


def cpu_times(stat=None):
    """(busy, total) jiffies from the aggregate `cpu` line of /proc/stat."""
    text = _read("/proc/stat") if stat is None else stat
    for line in (text or "").splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            return sum(values) - idle, sum(values)
    return None


def utilisation(before, after):
    """Percent busy between two cpu_times() readings."""
    if not before or not after or after[1] <= before[1]:
        return None
    return round(100.0 * (after[0] - before[0]) / (after[1] - before[1]), 1)


def max_temp_c(root="/sys/class/thermal"):
    temps = []
    for path in glob.glob(os.path.join(root, "thermal_zone*", "temp")):
        raw = _read(path)
        try:
            temps.append(int(raw.strip()) / 1000.0)  # millidegrees
        except (AttributeError, ValueError):
            continue
    return max(temps) if temps else None
