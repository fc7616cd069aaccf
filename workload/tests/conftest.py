"""Shared helpers: the package on sys.path, fixtures by name, launching real ranks."""
import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile

import pytest

WORKLOAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# GPUCHECK_TEST_PYTHON: where torch is not in /usr/bin/python3 (a lent GPU machine's is a venv's)
PYTHON = os.environ.get("GPUCHECK_TEST_PYTHON") or ("/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable)
sys.path.insert(0, WORKLOAD)
# These tests describe nodes without GPUs (a test that wants a GPU says so with its own fakes): on a
# machine that has one, torch would otherwise see it and the ranks would take the CUDA path.
os.environ["CUDA_VISIBLE_DEVICES"] = ""
# the GPU and fabric tools a machine may have in /usr/bin, which a test node has only when it fakes them
HOST_TOOLS = ("nvidia-", "dcgm", "nv-hostengine", "ib", "perfquery")
_system_bin = None


def fixture_text(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def tool(bin_dir, name, body):
    """A fake command for a test node: a shell script named NAME in bin_dir."""
    path = os.path.join(str(bin_dir), name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)


def tools_on_path(tmp_path, monkeypatch):
    """tmp_path/bin, ahead of the system's tools on PATH: where a test node's fake commands go."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, system_bin()))
    return bin_dir


def system_bin():
    """/usr/bin and /bin as links, less HOST_TOOLS: the same node on a GPU machine as on CI's."""
    global _system_bin
    if _system_bin is None:
        _system_bin = tempfile.mkdtemp(prefix="gpucheck-sysbin-")
        # the test run must leave TMPDIR as it found it (scripts/test.sh checks)
        atexit.register(shutil.rmtree, _system_bin, True)
        for d in ("/usr/bin", "/bin"):
            for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                link = os.path.join(_system_bin, name)
                if not name.startswith(HOST_TOOLS) and not os.path.lexists(link):
                    os.symlink(os.path.join(d, name), link)
    return _system_bin


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workload_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE", "LOCAL_", "MASTER_", "SLURM_", "OMPI_"))}
    env["PYTHONPATH"] = WORKLOAD
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_ranks(n, args, timeout=120, python=PYTHON, script=None):
    """Start n ranks the way gpucheck's local platform does (RANK/WORLD_SIZE/... in the env)."""
    port = free_port()
    procs = []
    for r in range(n):
        env = workload_env(RANK=r, WORLD_SIZE=n, LOCAL_RANK=r, LOCAL_WORLD_SIZE=n, MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        argv = [python, script] if script else [python, "-m", "gpucheck_workload"]
        procs.append(subprocess.Popen(argv + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      universal_newlines=True))
    results = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            results.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results


def run_cli(args, python=PYTHON, timeout=60, **env):
    return subprocess.run([python, "-m", "gpucheck_workload"] + list(args), env=workload_env(**env),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)


@pytest.fixture(scope="session")
def torchless_python(tmp_path_factory):
    """An interpreter without torch: a venv of /usr/bin/python3 without system site packages."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = os.path.join(str(venv), "bin", "python3")
    probe = subprocess.run([python, "-c", "import torch"], stderr=subprocess.DEVNULL)
    assert probe.returncode != 0, "the venv unexpectedly has torch"
    return python


@pytest.fixture(scope="session")
def fashion_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fashion")
    done = run_cli(["make-fashionmnist", "--out", str(out), "--train", "600", "--test", "200", "--seed", "3"])
    assert done.returncode == 0, done.stderr
    return str(out)
