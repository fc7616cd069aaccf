"""NCCL's debug output captured beside a collective: WARN to the console, INFO tagged after the run."""
import json
import os
import stat
import subprocess

from gpucheck_workload import nccl_debug

from conftest import PYTHON, WORKLOAD

# Lines in NCCL's own layout (host:pid:tid [dev] NCCL LEVEL text), from the nccl-tests #293 log that
# test/fixtures/nccl-info/a100pcie-2node-ibext-gdrdma-v2.21.5.txt holds; the WARN is from NVIDIA/nccl #1291.
INFO_1 = "test1:5425:5439 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [RO]; OOB eno1:192.168.160.111<0>"
INFO_2 = "test1:5425:5439 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IBext_v8/0/GDRDMA"
WARN = "gh1:185972:186354 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer with error 4"


class Sink:
    def __init__(self):
        self.lines = []

    def __call__(self, text):
        self.lines.append(text)

    def write(self, text):
        self.lines.extend(text.splitlines())

    def flush(self):
        pass


def started(env, **kw):
    out, err = Sink(), Sink()
    cap = nccl_debug.Capture(env=env, rank=3, out=out, err=err, **kw).start()
    return cap, out, err


def record(out):
    tagged = [l for l in out.lines if l.startswith("GPUCHECK_NCCL {")]
    assert len(tagged) == 1, out.lines
    return json.loads(tagged[0].split(" ", 1)[1])


def test_capture_points_nccl_at_a_private_file_and_reports_info_then_removes_it():
    env = {}
    cap, out, err = started(env)
    assert env["NCCL_DEBUG"] == "INFO" and env["NCCL_DEBUG_SUBSYS"] == "INIT,GRAPH,NET,TUNING"
    pattern = env["NCCL_DEBUG_FILE"]
    assert pattern.endswith("/nccl.%h.%p")
    # what NCCL would write, one file per process; the last line without its newline yet
    path = nccl_debug.expand(pattern, 4242)
    with open(path, "w") as f:
        f.write("NCCL version 2.21.5+cuda12.4\n%s\n%s\nsome unrelated line\n%s" % (INFO_1, WARN, INFO_2))
    cap.finish()
    assert err.lines == [WARN]
    assert out.lines[:3] == ["GPUCHECK_NCCL_INFO NCCL version 2.21.5+cuda12.4", "GPUCHECK_NCCL_INFO " + INFO_1, "GPUCHECK_NCCL_INFO " + INFO_2]
    assert record(out) == {"rank": 3, "backend": "nccl", "source": "capture", "lines": 3, "emitted": 3, "capped": False}
    assert not os.path.exists(os.path.dirname(path))


# NVIDIA/nccl #1453 (twichell's H100 cluster, NCCL 2.20–2.22 layout): rank 0's tuning line, once per call
TUNE_1 = "[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 262144 Bytes -> Algo 0 proto 1 time 54.707825"
TUNE_2 = "[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 524288 Bytes -> Algo 5 proto 2 time 59.553600"


def test_tuning_lines_are_kept_once_per_size_and_choice_and_the_repeats_counted():
    env = {}
    cap, out, _ = started(env)
    with open(nccl_debug.expand(env["NCCL_DEBUG_FILE"], 5), "w") as f:
        f.write("\n".join([INFO_2] + [TUNE_1] * 14 + [TUNE_2] * 14) + "\n")
    cap.finish()
    assert [l for l in out.lines if l.startswith("GPUCHECK_NCCL_INFO ")] == ["GPUCHECK_NCCL_INFO " + x for x in (INFO_2, TUNE_1, TUNE_2)]
    assert record(out) == {"rank": 3, "backend": "nccl", "source": "capture", "lines": 3, "emitted": 3, "capped": False, "tuningRepeats": 26}


def test_warn_reaches_the_console_while_the_run_goes_on(monkeypatch):
    monkeypatch.setattr(nccl_debug, "POLL_S", 0.05)
    env = {}
    cap, out, err = started(env)
    with open(nccl_debug.expand(env["NCCL_DEBUG_FILE"], 7), "w") as f:
        f.write(WARN + "\n")
    import time
    for _ in range(100):
        if err.lines:
            break
        time.sleep(0.02)
    assert err.lines == [WARN] and out.lines == []
    cap.finish()
    assert err.lines == [WARN]


def test_output_is_capped_and_says_so(monkeypatch):
    monkeypatch.setattr(nccl_debug, "MAX_LINES", 5)
    env = {}
    cap, out, _ = started(env)
    with open(nccl_debug.expand(env["NCCL_DEBUG_FILE"], 1), "w") as f:
        f.write("".join("%s %d\n" % (INFO_1, i) for i in range(12)))
    cap.finish()
    assert len([l for l in out.lines if l.startswith("GPUCHECK_NCCL_INFO ")]) == 5
    assert record(out)["lines"] == 12 and record(out)["emitted"] == 5 and record(out)["capped"] is True


def test_nothing_written_says_why():
    cap, out, _ = started({})
    cap.finish()
    r = record(out)
    assert (r["lines"], r["reason"]) == (0, "NCCL wrote no INFO line to its debug file (NCCL_DEBUG=INFO was set): it was empty (did NCCL start?)")


def test_a_group_that_never_started_prints_nothing_and_leaves_no_file():
    # the process group's own error (no GPU for nccl, a rendezvous timeout) is the one line to read
    cap, out, _ = started({})
    side = cap.dir
    cap.abandon()
    assert out.lines == [] and not os.path.exists(side)


def test_something_unexpected_in_the_file_is_quoted_by_its_first_line():
    env = {}
    cap, out, _ = started(env)
    with open(nccl_debug.expand(env["NCCL_DEBUG_FILE"], 5), "w") as f:
        f.write("\n  libnccl.so.2: cannot open shared object file  \nmore\n")
    cap.finish()
    assert record(out)["reason"] == "NCCL wrote no INFO line to its debug file (NCCL_DEBUG=INFO was set): it began 'libnccl.so.2: cannot open shared object file'"


def test_the_suites_own_debug_file_is_kept_and_read(tmp_path):
    env = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": str(tmp_path / "mine.%h.%p")}
    cap, out, err = started(env)
    assert env == {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": str(tmp_path / "mine.%h.%p")}
    path = nccl_debug.expand(env["NCCL_DEBUG_FILE"], 999)
    with open(path, "w") as f:
        f.write(INFO_2 + "\n")
    cap.finish(pids=(999,))
    assert out.lines[0] == "GPUCHECK_NCCL_INFO " + INFO_2
    assert record(out)["source"] == "user-file"
    assert os.path.exists(path)


def test_the_suites_own_debug_file_missing_is_named(tmp_path):
    pattern = str(tmp_path / "gone.%p")
    cap, out, _ = started({"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": pattern})
    cap.finish(pids=(12,))
    reason = record(out)["reason"]
    assert reason.startswith("NCCL_DEBUG_FILE=%s was set by the suite and no file " % pattern)
    assert str(tmp_path / "gone.12") in reason


def test_info_on_the_console_when_the_suite_asked_for_it():
    env = {"NCCL_DEBUG": "info"}
    cap, out, _ = started(env)
    assert env == {"NCCL_DEBUG": "info"}
    cap.finish()
    assert record(out)["source"] == "console"


def test_gloo_never_reaches_nccl():
    out = Sink()
    nccl_debug.not_run(1, "gloo", out=out)
    assert record(out)["reason"] == "backend gloo: NCCL did not run"


def test_nccl_tests_binary_debug_output_through_the_cli(tmp_path):
    """A stand-in all_reduce_perf that writes where NCCL would: the wrapper forwards it."""
    fake = tmp_path / "all_reduce_perf"
    fake.write_text("#!/bin/sh\n"
                    "f=$(echo \"$NCCL_DEBUG_FILE\" | sed \"s/%%h/$(hostname | cut -d. -f1)/; s/%%p/$$/\")\n"
                    "printf '%%s\\n%%s\\n' '%s' '%s' > \"$f\"\n"
                    "echo '# Avg bus bandwidth    : 1.0'\n" % (INFO_2, WARN))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PYTHONPATH=WORKLOAD, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1", MASTER_ADDR="127.0.0.1")
    env.pop("NCCL_DEBUG", None)
    env.pop("NCCL_DEBUG_FILE", None)
    done = subprocess.run([PYTHON, "-m", "gpucheck_workload", "collective", "--impl", "nccl-tests", "--nccl-tests-dir", str(tmp_path)],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["# Avg bus bandwidth    : 1.0", "GPUCHECK_NCCL_INFO " + INFO_2]
    assert json.loads(lines[2].split(" ", 1)[1])["lines"] == 1
    assert done.stderr.splitlines() == [WARN]
