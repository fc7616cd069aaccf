"""`evidence`: one GPUCHECK_EVIDENCE line per item, in order; each missing item says why; every
command bounded by its timeout and the whole by --deadline-s."""
import base64
import json
import stat

from gpucheck_workload import evidence


def script(bin_dir, name, body):
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def lines(capsys):
    out = capsys.readouterr().out.splitlines()
    assert all(l.startswith("GPUCHECK_EVIDENCE ") for l in out)
    return [json.loads(l[len("GPUCHECK_EVIDENCE "):]) for l in out]


def test_each_item_in_order_with_data_or_why(tmp_path, monkeypatch, capsys):
    script(tmp_path, "journalctl", 'echo "kernel: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus. $*"\n')
    script(tmp_path, "nvidia-smi", 'echo "smi failed: $*" >&2; exit 9\n')
    script(tmp_path, "ibstat", "echo big; /usr/bin/head -c 5000 /dev/zero\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    evidence.collect("2026-11-28T10:00:00.123Z", "2026-11-28T10:05:00Z", 1000, node="gpu07")
    got = lines(capsys)
    assert [g["item"] for g in got] == [
        "kernel-log.txt", "nvidia-smi-q.txt", "nvidia-smi-topo-m.txt", "ibstat.txt",
        "iblinkinfo.txt", "dcgmi-discovery.txt", "nvidia-bug-report.txt",
    ]
    # journalctl gets the span in its own format, UTC
    kernel = base64.b64decode(got[0]["data"]).decode()
    assert kernel == "kernel: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus. -k --no-pager --utc --since 2026-11-28 10:00:00 --until 2026-11-28 10:05:00\n"
    assert got[0]["bytes"] == len(kernel)
    assert got[1] == {"item": "nvidia-smi-q.txt", "missing": "nvidia-smi -q exited 9: smi failed: -q"}
    # larger than the bundle may hold: only its size comes back
    assert got[3] == {"item": "ibstat.txt", "bytes": 5004}
    assert got[4] == {"item": "iblinkinfo.txt", "missing": "iblinkinfo is not installed on gpu07"}


def test_a_hung_tool_is_cut_at_the_deadline_and_later_items_are_not_started(tmp_path, monkeypatch, capsys):
    script(tmp_path, "journalctl", "exec /bin/sleep 30\n")
    script(tmp_path, "nvidia-smi", "echo ok\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    evidence.collect("2026-11-28T10:00:00Z", "2026-11-28T10:05:00Z", 1000, node="gpu07", deadline_s=1)
    got = lines(capsys)
    assert got[0] == {"item": "kernel-log.txt", "missing": "journalctl -k --no-pager --utc --since 2026-11-28 10:00:00 --until 2026-11-28 10:05:00 ran past its 1 s timeout"}
    assert got[1] == {"item": "nvidia-smi-q.txt", "missing": "not started: the evidence deadline (1 s) was spent on the items before it"}
    assert len(got) == 7


def test_the_node_name_defaults_to_the_rank_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("GPUCHECK_NODE", "node12")
    evidence.collect("2026-11-28T10:00:00Z", "2026-11-28T10:05:00Z", 1000)
    assert lines(capsys)[0] == {"item": "kernel-log.txt", "missing": "journalctl is not installed on node12"}
