"""NVIDIA Xid and NVSwitch SXid events from kernel log text (pure parser + log readers).

Log lines come in three timestamp styles (dmesg --time-format=iso, dmesg -T, plain dmesg's
[seconds]) and /dev/kmsg records (`prio,seq,usec,flags;text`). Only the line that starts an
event is matched: `NVRM: Xid (PCI:…): <code>, pid=…, name=…, <text>`; the NVRM continuation
lines (RPC history tables, `GPU has fallen off the bus.` repeated without `Xid`) are not events.
"""
import errno
import os
import re

from . import probe

_XID = re.compile(r"NVRM: Xid \(PCI:([0-9A-Fa-f:.]+)\): (\d+), (?:pid=(?:'?<?(\w+)>?'?), name=([^,]*), )?(.*)$")
_SXID = re.compile(r"(nvidia-nvswitch\d+): SXid \(PCI:([0-9A-Fa-f:.]+)\): (\d+), (.*)$")
_STAMP = re.compile(r"^(\[[^\]]+\]|\d{4}-\d\d-\d\dT\S+)\s*")


def parse_line(line):
    stamp = _STAMP.match(line)
    time = stamp.group(1).strip("[]").strip() if stamp else None
    m = _XID.search(line)
    if m:
        pid = m.group(3)
        return {"kind": "xid", "code": int(m.group(2)), "pci": m.group(1), "time": time,
                "pid": int(pid) if pid and pid.isdigit() else None,
                "process": None if m.group(4) in (None, "<unknown>") else m.group(4), "message": m.group(5).strip()}
    m = _SXID.search(line)
    if m:
        return {"kind": "sxid", "code": int(m.group(3)), "pci": m.group(2), "time": time, "pid": None,
                "process": None, "message": m.group(4).strip(), "device": m.group(1)}
    return None


def parse(text):
    return [e for e in (parse_line(l) for l in text.splitlines()) if e]


def kmsg_line(record):
    """A /dev/kmsg record → a dmesg-style `[seconds] text` line."""
    head, _, text = record.partition(";")
    fields = head.split(",")
    usec = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else 0
    return "[%.6f] %s" % (usec / 1e6, text.split("\n")[0])


class Kmsg:
    """Non-blocking reader of /dev/kmsg: everything buffered, or only what arrives after open."""

    def __init__(self, path="/dev/kmsg", from_end=False):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        if from_end:
            os.lseek(self.fd, 0, os.SEEK_END)

    def lines(self):
        out = []
        while True:
            try:
                record = os.read(self.fd, 8192)
            except OSError as e:
                if e.errno == errno.EPIPE:  # records overwritten before we read them: skip ahead
                    continue
                if e.errno == errno.EAGAIN:
                    return out
                raise
            if not record:
                return out
            out.append(kmsg_line(record.decode("utf-8", "replace")))

    def close(self):
        os.close(self.fd)


PRIVILEGE_HINT = ": run as root, as a user in the adm or systemd-journal group, or with CAP_SYSLOG"


def _has_messages(text):
    """journalctl answers an unprivileged user with `-- No entries --` and exit 0: that is not a log."""
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("-- ")]
    return bool(lines) and not (len(lines) == 1 and lines[0].startswith("No journal files"))


def kernel_log():
    """(text, source) of the whole kernel log, from whichever reader this user may use; (None, why) if none."""
    try:
        k = Kmsg()
        try:
            text = "\n".join(k.lines())
        finally:
            k.close()
        if text.strip():
            return text, "/dev/kmsg"
        reasons = ["/dev/kmsg returned no kernel messages"]
    except OSError as e:
        reasons = ["/dev/kmsg: %s" % e.strerror]
    for argv in (["dmesg", "--time-format=iso"], ["journalctl", "-k", "-b", "--no-pager", "-o", "short-iso"]):
        try:
            text = probe.run(argv, timeout=15)
        except probe.ProbeFailed as e:
            reasons.append(str(e))
            continue
        if _has_messages(text):
            return text, argv[0]
        reasons.append("%s returned no kernel messages" % argv[0])
    return None, "; ".join(reasons)
