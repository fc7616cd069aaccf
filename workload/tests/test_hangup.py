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
