"""storage: fio's JSON read from real captures (fixtures/fio/, sources in its README) with fio's units
kept straight across versions; a path that cannot be written or a node without fio named with the reason;
and two real CPU ranks measuring their own paths with fio, rank 0 reporting both."""
import json
import os
import socket

import pytest

from conftest import run_ranks
from gpucheck_workload import fio
from gpucheck_workload.kinds import storage

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "fio")


def _read(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def test_fio_3_42_json_after_the_job_banner_and_before_the_normal_report():
    got = fio.parse(_read("cbt-3.42-nvme-randwrite-json-normal.out"), "write")
    # bw_bytes 5096143 B/s; clat_ns percentile 99 1695744 ns; mean 794090.278389 ns
    assert got == {"mbps": 5.096143, "iops": 1244.175582, "clat_p99_us": pytest.approx(1695.744), "clat_mean_us": pytest.approx(794.090278389),
                   "io_bytes": 50966528, "runtime_ms": 10001.0, "fio": "fio-3.42-6-g219f"}


def test_fio_2_json_latencies_in_us_and_io_bytes_in_kib():
    got = fio.parse(_read("cloud-2.2.10-xvda-write.out"), "write")
    # fio 2.x: bw 62499 KiB/s, io_bytes 37500272 KiB, clat in µs
    assert got["mbps"] == pytest.approx(62499 * 1024 / 1e6)
    assert got["io_bytes"] == 37500272 * 1024
    assert (got["clat_p99_us"], got["clat_mean_us"], got["iops"]) == (8640.0, 8151.19, 15624.70)


def test_fio_3_33_generated_here():
    w = fio.parse(_read("generated-3.33-seq-write-direct.out"), "write")
    assert w["io_bytes"] == 16777216 and w["fio"] == "fio-3.33" and w["mbps"] > 0
    r = fio.parse(_read("generated-3.33-randread-direct.out"), "read")
    assert r["iops"] > 0 and r["clat_p99_us"] > 0 and r["io_bytes"] > 0


def test_a_job_that_moved_nothing_is_an_error_not_zero():
    with pytest.raises(fio.FioError) as e:
        fio.parse(_read("generated-3.33-unwritable.out"), "read")
    assert str(e.value) == "fio's job 'seq_read' moved no read bytes"


@pytest.mark.parametrize("text, message", [
    ("fio: failed to create dir (/x): Permission denied\n", "fio printed no JSON object (was --output-format=json given?)"),
    ('{"fio version": "fio-3.33", "jobs": [', "fio's JSON output is cut or malformed: Expecting value: line 1 column 38 (char 37)"),
    ('{"fio version": "fio-3.33", "jobs": []}', "fio's JSON has no jobs"),
    ('{"jobs": [{"jobname": "j", "error": 5}]}', "fio job 'j' ended with error 5"),
    ('{"jobs": [{"jobname": "j", "error": 0}]}', "fio's job 'j' has no read section"),
])
def test_bad_fio_output_is_one_line_saying_what_is_missing(text, message):
    with pytest.raises(fio.FioError) as e:
        fio.parse(text, "read")
    assert str(e.value) == message


class _Args:
    size = 1024 ** 2
    runtime = 0.5
    direct = "auto"
    timeout = 60.0


def test_an_unwritable_path_names_the_node_and_the_path(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    got = storage.measure_path("/usr/bin/fio", "local", str(blocked / "sub"), _Args, 0, "node7")
    assert got == {"path": str(blocked / "sub"), "device": None, "unmeasured": "node7: cannot write the local path %s: Not a directory (storage.local must name a directory the ranks' user can write)" % (blocked / "sub")}


def test_a_node_without_fio_is_named_with_what_to_install(tmp_path):
    got = storage.measure_path(None, "shared", str(tmp_path), _Args, 1, "node3")
    assert got["unmeasured"] == "node3: fio is not installed (not on PATH) on node3: install fio (Debian/Ubuntu: apt-get install fio)"


def test_the_device_behind_a_path_comes_from_mountinfo(tmp_path):
    d = storage.device_of(str(tmp_path))
    st = os.stat(str(tmp_path))
    assert d["majmin"] == "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    assert d["mount"] is not None and str(tmp_path).startswith(d["mount"].rstrip("/") + "/")


@pytest.mark.skipif(fio.which() is None, reason="fio is not installed (scripts/ci-deps.sh installs it)")
def test_two_cpu_ranks_each_measure_their_own_path_and_rank_0_reports(tmp_path):
    outs = run_ranks(2, ["storage", "--local", str(tmp_path / "r{rank}"), "--shared", str(tmp_path / "shared"), "--size", str(1024 ** 2),
                         "--runtime", "0.3", "--checkpoint-size", str(1024 ** 2)])
    assert [c for c, _, _ in outs] == [0, 0], [e for _, _, e in outs]
    line = [l for l in outs[0][1].splitlines() if l.startswith("GPUCHECK_RESULT ")]
    r = json.loads(line[0].split(" ", 1)[1])
    assert [x["rank"] for x in r["ranks"]] == [0, 1]
    for x in r["ranks"]:
        assert x["host"] == socket.gethostname()
        local = x["targets"]["local"]
        assert local["path"] == str(tmp_path / ("r%d" % x["rank"]))
        for job in ("seq_write", "seq_read", "rand_read"):
            assert local[job]["io_bytes"] > 0, local[job]
        assert x["checkpoint"]["write"]["io_bytes"] == 1024 ** 2 and x["checkpoint"]["read"]["wall_s"] > 0
    # the fio files are removed afterwards
    assert sorted(os.listdir(str(tmp_path))) == ["r0", "r1", "shared"]
    assert os.listdir(str(tmp_path / "r0")) == []
