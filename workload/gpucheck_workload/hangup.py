"""A rank that outlives gpucheck ends itself.

The local platform holds each rank's stdin open as a pipe and sets GPUCHECK_HANGUP=stdin. When
gpucheck dies, even by SIGKILL (an OOM kill, a CI runner's timeout, a reboot of the jump host's
session), the kernel closes the pipe's other end: the rank reads EOF and kills its process group
(itself, its data-loader workers, a child tool), instead of training on for minutes with nobody
to read its results. ssh ranks have the same guard in the remote wrapper, on ssh's stdin.

The watch is a small shell process of the rank's own, not a thread: a thread needs the GIL to act
on the EOF, and the rank's main thread holds it for seconds at a time inside C code (torch's import,
its rendezvous) on a loaded machine, where a killed run's ranks were seen alive well after the
EOF. The shell dies with the rank (PR_SET_PDEATHSIG), holds none of its output pipes, and is not
named like a rank (tools that count ranks by their command line do not see it).
"""
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def _watcher(rank, group_leader):
    """In the forked child: become `sh` reading stdin to EOF, then kill the rank's group (or the rank)."""
    try:
        # the rank's end ends the watch: it must never outlive the rank it guards
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != rank:
            os._exit(0)
        # no output pipe of the rank held open: gpucheck reads the rank's stdout and stderr to their end
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.closerange(3, 1 << 16)
        target = "-%d" % rank if group_leader else "%d" % rank
        os.execv("/bin/sh", ["sh", "-c", 'while read -r _; do :; done; kill -KILL "$0"', target])
    except BaseException:
        pass
    os._exit(0)


def guard():
    """Start the watch when gpucheck asked for it (the watcher's pid); a no-op otherwise (ssh, Slurm, by hand)."""
    if os.environ.get("GPUCHECK_HANGUP") != "stdin" or sys.stdin is None or sys.stdin.isatty():
        return None
    rank = os.getpid()
    # the rank leads its own group (gpucheck starts it detached): the group is its work, nothing else
    group_leader = os.getpgrp() == rank
    pid = os.fork()
    if pid == 0:
        _watcher(rank, group_leader)
    return pid
