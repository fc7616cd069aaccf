"""`nvidia-imex-ctl -N` parsed, on the one public capture found (18 GB200 nodes all READY, AWS PCS
user guide: workload/tests/fixtures/imex-ctl-N-18node-ready-aws-pcs-570.172.txt, source on its first
line). No public capture of a node not READY or a pair not Connected was found: those cases are
tested on the documented format (the legend the same report prints: I, N, R, D, A, !V!, !M!, C),
stated as such, by putting those documented values into the captured layout.
"""
import pytest

from conftest import fixture_text, tool, tools_on_path
from gpucheck_workload import imex

READY = "imex-ctl-N-18node-ready-aws-pcs-570.172.txt"


def test_the_captured_18_node_domain_is_up_every_node_ready_every_pair_connected():
    r = imex.parse(fixture_text(READY))
    assert r["domain_state"] == "UP"
    assert [n["index"] for n in r["nodes"]] == list(range(18))
    assert {n["status"] for n in r["nodes"]} == {"READY"}
    assert r["nodes"][3] == {"index": 3, "address": "172.31.49.228", "status": "READY", "version": "570.172"}
    assert r["not_connected"] == []


def _documented(text):
    """The capture with node 3 unavailable, its row and column Never Connected and the domain DEGRADED:
    values from the report's own legend (documented format, no public capture of them)."""
    out = []
    for line in text.splitlines():
        if line.startswith("Node #3 "):
            line = line.replace("READY      ", "UNAVAILABLE")
        elif line.strip().startswith(("0 ", "1 ", "2 ", "4 ")) and "C   C" in line:
            cells = line.split()
            line = "       %s        %s" % (cells[0], "   ".join("N" if i == 3 else c for i, c in enumerate(cells[1:])))
        elif line == "Domain State: UP":
            line = "Domain State: DEGRADED"
        out.append(line)
    return "\n".join(out)


def test_documented_failures_are_read_node_by_node_and_pair_by_pair():
    r = imex.parse(_documented(fixture_text(READY)))
    assert r["domain_state"] == "DEGRADED"
    assert [(n["index"], n["status"]) for n in r["nodes"] if n["status"] != "READY"] == [(3, "UNAVAILABLE")]
    assert r["not_connected"] == [[0, 3, "N"], [1, 3, "N"], [2, 3, "N"], [4, 3, "N"]]


@pytest.mark.parametrize("text, message", [
    ("", "nvidia-imex-ctl -N printed no `Node #` line"),
    ("Node #0   - 10.0.0.1    - READY                - Version: 570.172\n", "nvidia-imex-ctl -N printed no `Domain State:` line"),
    ("Node #0   - 10.0.0.1    - READY                - Version: 570.172\n Nodes From\\To  0   1\n       0        C\nDomain State: UP\n",
     "nvidia-imex-ctl -N: row 0 of the connectivity table has 1 cells for 2 nodes"),
])
def test_text_that_is_not_the_report_says_what_is_missing(text, message):
    with pytest.raises(ValueError) as e:
        imex.parse(text)
    assert str(e.value) == message


def test_collect_without_the_tool_is_unmeasured_with_the_reason(tmp_path, monkeypatch):
    tools_on_path(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    unmeasured = {}
    assert imex.collect(unmeasured) is None
    assert unmeasured == {"imex": "nvidia-imex-ctl not found (is the nvidia-imex daemon installed and running?)"}


def test_collect_reads_the_tool_and_a_failing_tool_is_unmeasured(tmp_path, monkeypatch):
    bin_dir = tools_on_path(tmp_path, monkeypatch)
    tool(bin_dir, "nvidia-imex-ctl", "sed 1d '%s/%s'" % (__import__("conftest").FIXTURES, READY))
    unmeasured = {}
    assert imex.collect(unmeasured)["domain_state"] == "UP"
    assert unmeasured == {}
    tool(bin_dir, "nvidia-imex-ctl", 'echo "connect failed" >&2; exit 1')
    assert imex.collect(unmeasured) is None
    assert unmeasured == {"imex": "nvidia-imex-ctl -N exited 1: connect failed (is the nvidia-imex daemon installed and running?)"}
