"""Run a node tool (nvidia-smi, ibstat, dmesg) with a timeout; every probe is optional.

A hung nvidia-smi (a GPU fallen off the bus makes it block for minutes) must not hang the test:
each call has a timeout and its failure is a reason string, never an exception.
"""
import shutil
import subprocess


class ProbeFailed(Exception):
    pass


def run(argv, timeout=20.0):
    """stdout of argv, or ProbeFailed with a one-line reason."""
    if shutil.which(argv[0]) is None:
        raise ProbeFailed("%s not found" % argv[0])
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, universal_newlines=True, errors="replace")
    except subprocess.TimeoutExpired:
        raise ProbeFailed("%s timed out after %gs" % (" ".join(argv), timeout)) from None
    except OSError as e:
        raise ProbeFailed("%s: %s" % (argv[0], e)) from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise ProbeFailed("%s exited %d%s" % (" ".join(argv), done.returncode, ": " + detail[-1] if detail else ""))
    return done.stdout
