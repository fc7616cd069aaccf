"""fio on one path: its command line and its `--output-format=json` read into the few figures the storage
kind judges. Pure but for run(): the parser is tested on real captures (tests/fixtures/fio/, sources in
its README), and fio's own units are kept straight here (bw in KiB/s, latencies in ns since fio 3.0,
in µs before it), so the binary never sees fio's JSON shape.
"""
import json
import shutil
import subprocess


class FioError(Exception):
    """fio could not run or its output cannot be read: the message says which and why."""


def which():
    return shutil.which("fio")


def command(fio, name, filename, rw, size, bs, iodepth, direct, runtime=None):
    """One fio job on one file. Sequential jobs move `size` bytes once; a random-read job with a runtime
    runs that long over the `size`-byte file (time_based), as fio's own examples time IOPS."""
    cmd = [fio, "--name=%s" % name, "--filename=%s" % filename, "--rw=%s" % rw, "--size=%d" % size,
           "--bs=%d" % bs, "--iodepth=%d" % iodepth, "--ioengine=libaio", "--direct=%d" % (1 if direct else 0),
           "--output-format=json"]
    if not direct:
        # buffered: the write is not done until it reaches the device, and the read must not come from
        # the page cache the write just filled
        cmd += ["--end_fsync=1", "--invalidate=1"]
    if runtime:
        cmd += ["--runtime=%g" % runtime, "--time_based"]
    return cmd


def run(cmd, timeout):
    """fio's stdout, or FioError with its exit code and last stderr line."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise FioError("fio did not finish within %gs: %s" % (timeout, " ".join(cmd))) from None
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["no output"])[-1]
        raise FioError("fio exited with code %d: %s" % (p.returncode, last))
    return p.stdout


def _json(text):
    """fio's JSON object: it may follow a job banner ("name: (g=0): rw=...", "Starting 1 process") and
    be followed by the normal report (--output-format=json,normal)."""
    start = text.find("{")
    if start < 0:
        raise FioError("fio printed no JSON object (was --output-format=json given?)")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError as e:
        raise FioError("fio's JSON output is cut or malformed: %s" % e) from None
    return doc


def _num(d, key):
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _latency_us(side, name):
    """fio ≥ 3.0 writes `<name>_ns` in nanoseconds; 2.x wrote `<name>` in microseconds."""
    if isinstance(side.get(name + "_ns"), dict):
        return side[name + "_ns"], 1e-3
    if isinstance(side.get(name), dict):
        return side[name], 1.0
    return None, None


def parse(text, direction):
    """The first job's figures for `direction` ("read" or "write"): MB/s (1 MB = 1e6 bytes), IOPS,
    completion latency p99 and mean in µs, bytes moved and milliseconds taken."""
    doc = _json(text)
    jobs = doc.get("jobs")
    if not isinstance(jobs, list) or not jobs or not isinstance(jobs[0], dict):
        raise FioError("fio's JSON has no jobs")
    job = jobs[0]
    if job.get("error"):
        raise FioError("fio job %r ended with error %s" % (job.get("jobname"), job.get("error")))
    side = job.get(direction)
    if not isinstance(side, dict):
        raise FioError("fio's job %r has no %s section" % (job.get("jobname"), direction))
    bw_bytes = _num(side, "bw_bytes")
    if bw_bytes is None and _num(side, "bw") is not None:
        bw_bytes = _num(side, "bw") * 1024  # fio < 3.2: bw only, in KiB/s
    io_bytes = _num(side, "io_kbytes")
    if io_bytes is not None:
        io_bytes *= 1024
    elif _num(side, "io_bytes") is not None:
        # fio 2.x wrote KiB under "io_bytes" (3.0 made it bytes and added io_kbytes)
        old = str(doc.get("fio version", "")).startswith("fio-2.")
        io_bytes = _num(side, "io_bytes") * (1024 if old else 1)
    if bw_bytes is None or not io_bytes:
        raise FioError("fio's job %r moved no %s bytes" % (job.get("jobname"), direction))
    clat, scale = _latency_us(side, "clat")
    pct = clat.get("percentile") if clat else None
    p99 = pct.get("99.000000") if isinstance(pct, dict) else None
    return {
        "mbps": bw_bytes / 1e6,
        "iops": _num(side, "iops"),
        "clat_p99_us": p99 * scale if isinstance(p99, (int, float)) else None,
        "clat_mean_us": _num(clat, "mean") * scale if clat and _num(clat, "mean") is not None else None,
        "io_bytes": int(io_bytes),
        "runtime_ms": _num(side, "runtime"),
        "fio": doc.get("fio version"),
    }
