"""A rank that outlives gpucheck ends itself.

The local platform holds each rank's stdin open as a pipe and sets GPUCHECK_HANGUP=stdin. When
gpucheck dies, even by SIGKILL (an OOM kill, a CI runner's timeout, a reboot of the jump host's
session), the kernel closes the pipe's other end: the rank reads EOF and kills its process group
(itself, its data-loader workers, a child tool), instead of training on for minutes with nobody
to read its results. ssh ranks have the same guard in the remote wrapper, on ssh's stdin.
"""
import os
import signal
import sys
import threading


def _watch():
    # the raw descriptor, not sys.stdin: a daemon thread blocked inside a buffered reader makes the
    # interpreter abort at exit (it cannot take the reader's lock), so every rank would end in SIGABRT
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    # the rank leads its own group (gpucheck starts it detached): the group is its work, nothing else
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def guard():
    """Start the watch when gpucheck asked for it; a no-op otherwise (ssh, Slurm, by hand)."""
    if os.environ.get("GPUCHECK_HANGUP") != "stdin" or sys.stdin is None or sys.stdin.isatty():
        return
    threading.Thread(target=_watch, name="gpucheck-hangup", daemon=True).start()
