"""A rank whose gpucheck is gone (its stdin pipe closed) ends its process group; without the
variable nothing changes."""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(env_extra):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_extra)
    # a child of the rank, in its group: a data-loader worker, a tool it started
    code = ("import subprocess,sys,time;from gpucheck_workload import hangup;hangup.guard();"
            "c=subprocess.Popen([sys.executable,'-c','import time;time.sleep(60)']);"
            "print(c.pid,flush=True);time.sleep(60)")
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, start_new_session=True, text=True)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as f:
        return f.read().split(") ")[1][0] != "Z"


def test_eof_on_stdin_kills_the_rank_and_its_group():
    p = start({"GPUCHECK_HANGUP": "stdin"})
    child = int(p.stdout.readline())
    p.stdin.close()
    assert p.wait(timeout=5) == -9
    deadline = time.time() + 5
    while alive(child) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_without_the_variable_eof_changes_nothing():
    p = start({})
    child = int(p.stdout.readline())
    p.stdin.close()
    time.sleep(0.5)
    assert p.poll() is None and alive(child)
    os.killpg(p.pid, 9)
    p.wait(timeout=5)


def test_a_rank_that_ends_on_its_own_exits_cleanly_with_the_watch_running():
    # a daemon thread inside a buffered stdin reader made the interpreter abort at exit (SIGABRT)
    env = dict(os.environ, PYTHONPATH=ROOT, GPUCHECK_HANGUP="stdin")
    p = subprocess.Popen([sys.executable, "-c", "from gpucheck_workload import hangup; hangup.guard(); print('done')"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    # stdin stays open (as gpucheck holds it) while the rank ends by itself
    out, err = p.stdout.read(), p.stderr.read()
    assert p.wait(timeout=10) == 0, err
    assert out == "done\n"
    p.stdin.close()


def test_eof_while_the_rank_holds_the_gil_in_c_code_still_kills_it():
    # a regex backtracking for minutes inside C holds the GIL, as torch's import and rendezvous do for
    # seconds on a loaded machine: a watch thread could not act until it let go
    env = dict(os.environ, PYTHONPATH=ROOT, GPUCHECK_HANGUP="stdin")
    code = ("import re;from gpucheck_workload import hangup;hangup.guard();print('busy',flush=True);"
            "re.match(r'(a+)+$', 'a' * 40 + 'b')")
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                         start_new_session=True, text=True)
    assert p.stdout.readline() == "busy\n"
    time.sleep(0.3)
    t0 = time.time()
    p.stdin.close()
    assert p.wait(timeout=5) == -9
    assert time.time() - t0 < 2


def test_the_watch_is_a_shell_that_ends_with_its_rank_and_is_not_named_like_one():
    env = dict(os.environ, PYTHONPATH=ROOT, GPUCHECK_HANGUP="stdin")
    # the rank ends by itself a few seconds on (not by reading stdin: the watch reads it too)
    p = subprocess.Popen([sys.executable, "-c", "import time;from gpucheck_workload import hangup;print(hangup.guard(),flush=True);time.sleep(3)"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    watcher = int(p.stdout.readline())

    def argv():
        with open("/proc/%d/cmdline" % watcher) as f:
            return f.read().split("\0")[:2]
    # a fork of the rank until it has become the shell
    deadline = time.time() + 5
    while argv()[0] != "sh" and time.time() < deadline:
        time.sleep(0.05)
    assert argv() == ["sh", "-c"]
    # gpucheck's end of the pipe still open when the rank ends: the watch goes with the rank
    assert p.wait(timeout=10) == 0
    deadline = time.time() + 5
    while alive(watcher) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(watcher)
    p.stdin.close()

