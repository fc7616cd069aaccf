"""Storage as a training job sees it, with fio on every rank: sequential write and read bandwidth, random
4 KiB read IOPS and p99 latency on the node's local path (NVMe scratch) and on the shared filesystem
path, then a checkpoint-like burst: every rank writes its `--checkpoint-size` bytes to the shared path at
once (after a barrier), then, after another barrier, reads them back, each timed.

Direct I/O (O_DIRECT) wherever the filesystem takes it, so the device is measured, not the page cache;
where it is refused (tmpfs, some FUSE mounts) the run is buffered with fsync at the end and the cache
invalidated before reading, and the result says so. Each path is named with the device and filesystem
behind it (from /proc/self/mountinfo), so a verdict names the disk. A path may hold `{rank}` and
`{host}`, so ranks of one machine can each be given their own device.

fio missing or a path that cannot be written: the figures are null with the reason, every rank's result
still reaches rank 0, and rank 0 exits 2 after printing it with one line naming each node and path.
"""
import errno
import mmap
import os
import socket
import time

from .. import dist as pg, emit, fio
from ..errors import WorkloadError, require_torch

HELP = "storage with fio: sequential MB/s, random-read IOPS and p99 latency on local and shared paths, and a checkpoint write/read burst"

SEQ_BS = 1024 ** 2
RAND_BS = 4096
SEQ_DEPTH = 8
RAND_DEPTH = 32


def add_arguments(p):
    p.add_argument("--local", help="the node's local path (NVMe scratch); {rank} and {host} are replaced")
    p.add_argument("--shared", help="the shared filesystem path every node sees; {rank} and {host} are replaced")
    p.add_argument("--size", type=int, default=1024 ** 3, help="bytes of each rank's fio file per path")
    p.add_argument("--runtime", type=float, default=10.0, help="seconds of the random-read job")
    p.add_argument("--checkpoint-size", type=int, default=0, help="bytes each rank writes to the shared path at once (0: no checkpoint)")
    p.add_argument("--direct", choices=("auto", "off"), default="auto", help="auto: O_DIRECT where the filesystem allows")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds one fio job may take")


def main(args):
    from .. import ranks as ranks_mod
    return run(args, ranks_mod.detect())


def run(args, ranks):
    if not args.local and not args.shared:
        raise WorkloadError("storage: give --local or --shared (the suite's storage.local / storage.shared)")
    require_torch()
    import torch.distributed as dist

    host = socket.gethostname()
    ctx = pg.init(ranks, "gloo")  # only barriers and the gather: no GPU is involved
    try:
        binary = fio.which()
        mine = {"rank": ranks.rank, "host": host, "targets": {}, "checkpoint": None}
        for role in ("local", "shared"):
            path = getattr(args, role)
            if path:
                mine["targets"][role] = measure_path(binary, role, _expand(path, ranks.rank, host), args, ranks.rank, host)
        if args.shared and args.checkpoint_size > 0:
            mine["checkpoint"] = checkpoint(binary, ctx, _expand(args.shared, ranks.rank, host), args, ranks.rank, host)
        everyone = [None] * ranks.world_size
        dist.all_gather_object(everyone, mine)
        if ranks.rank != 0:
            return 0
        emit.tagged("RESULT", {"world_size": ranks.world_size, "size": args.size, "runtime_s": args.runtime,
                               "checkpoint_size": args.checkpoint_size, "ranks": everyone})
        problems = [p for r in everyone for p in _problems(r)]
        if problems:
            raise WorkloadError("storage could not be measured: " + "; ".join(problems))
        return 0
    finally:
        pg.close()


def _expand(path, rank, host):
    return path.replace("{rank}", str(rank)).replace("{host}", host)


def _problems(r):
    out = [t["unmeasured"] for t in r["targets"].values() if t.get("unmeasured")]
    c = r.get("checkpoint")
    if c and c.get("unmeasured"):
        out.append(c["unmeasured"])
    return out


def device_of(path):
    """The mount behind a path: source device, MAJ:MIN and filesystem type, from /proc/self/mountinfo."""
    try:
        st = os.stat(path)
        dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
        best = None
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 2 and fields[2] == dev:
                    mount = fields[4].replace("\\040", " ")
                    if path == mount or path.startswith(mount.rstrip("/") + "/") or mount == "/":
                        if best is None or len(mount) > len(best["mount"]):
                            best = {"majmin": dev, "mount": mount, "fstype": tail[0], "source": tail[1]}
        return best or {"majmin": dev, "mount": None, "fstype": None, "source": None}
    except OSError as e:
        return {"majmin": None, "mount": None, "fstype": None, "source": None, "unread": str(e)}


def _writable(path):
    """Make the directory and write one byte there; the reason it cannot be, or None."""
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".gpucheck-probe-%d" % os.getpid())
        with open(probe, "wb") as f:
            f.write(b"x")
        os.unlink(probe)
        return None
    except OSError as e:
        return e.strerror or str(e)


def direct_ok(path):
    """Whether O_DIRECT writes work on this filesystem, and why not when they do not."""
    if not hasattr(os, "O_DIRECT"):
        return False, "this system has no O_DIRECT"
    probe = os.path.join(path, ".gpucheck-direct-%d" % os.getpid())
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
        try:
            buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT needs
            os.write(fd, buf)
        finally:
            os.close(fd)
        return True, None
    except OSError as e:
        return False, "O_DIRECT refused by the filesystem: %s" % (e.strerror or e)
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


def _mode(path, args):
    if args.direct == "off":
        return False, "buffered: the suite set direct: false"
    ok, why = direct_ok(path)
    return (True, "direct I/O (O_DIRECT)") if ok else (False, "buffered with fsync, cache invalidated before reads (%s)" % why)


def measure_path(binary, role, path, args, rank, host):
    """One path's sequential write, sequential read and random read, or why they could not run."""
    out = {"path": path, "device": None}
    if binary is None:
        out["unmeasured"] = "%s: fio is not installed (not on PATH) on %s: install fio (Debian/Ubuntu: apt-get install fio)" % (host, host)
        return out
    why = _writable(path)
    if why:
        out["unmeasured"] = "%s: cannot write the %s path %s: %s (storage.%s must name a directory the ranks' user can write)" % (host, role, path, why, role)
        return out
    out["device"] = device_of(path)
    direct, mode = _mode(path, args)
    out["io"] = mode
    target = os.path.join(path, "gpucheck-fio-%s-%d.dat" % (host, rank))
    jobs = (("seq_write", "write", "write", SEQ_BS, SEQ_DEPTH, None),
            ("seq_read", "read", "read", SEQ_BS, SEQ_DEPTH, None),
            ("rand_read", "randread", "read", RAND_BS, RAND_DEPTH, args.runtime))
    try:
        for name, rw, direction, bs, depth, runtime in jobs:
            cmd = fio.command(binary, name, target, rw, args.size, bs, depth, direct, runtime)
            try:
                out[name] = fio.parse(fio.run(cmd, args.timeout), direction)
            except fio.FioError as e:
                out[name] = {"unmeasured": "%s: %s on %s: %s" % (host, name.replace("_", " "), path, e)}
    finally:
        _remove(target)
    return out


def checkpoint(binary, ctx, path, args, rank, host):
    """Every rank writes its checkpoint at once, then reads it back at once; each phase timed by wall
    clock from the barrier, so rank 0 can report the aggregate against the slowest rank."""
    out = {"path": path, "bytes": args.checkpoint_size}
    why = None
    if binary is None:
        why = "%s: fio is not installed (not on PATH) on %s: install fio" % (host, host)
    else:
        w = _writable(path)
        if w:
            why = "%s: cannot write the shared path %s for the checkpoint: %s (storage.shared must name a directory the ranks' user can write)" % (host, path, w)
    direct, mode = _mode(path, args) if why is None else (False, None)
    out["io"] = mode
    target = os.path.join(path, "gpucheck-checkpoint-%s-%d.dat" % (host, rank))
    try:
        for phase, rw in (("write", "write"), ("read", "read")):
            pg.barrier(ctx)  # every rank starts together, as a checkpoint of a data-parallel job does
            if why:
                continue
            start = time.monotonic()
            try:
                cmd = fio.command(binary, "checkpoint_" + phase, target, rw, args.checkpoint_size, SEQ_BS, SEQ_DEPTH, direct)
                got = fio.parse(fio.run(cmd, args.timeout), phase)
                got["wall_s"] = time.monotonic() - start
                out[phase] = got
            except fio.FioError as e:
                out[phase] = {"unmeasured": "%s: checkpoint %s on %s: %s" % (host, phase, path, e)}
    finally:
        _remove(target)
    if why:
        out["unmeasured"] = why
    return out


def _remove(path):
    try:
        os.unlink(path)
    except OSError as e:
        if e.errno != errno.ENOENT:
            raise
