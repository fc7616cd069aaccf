"""Errors that end the workload with the exit code the harness judges by.

Exit 2: bad input or a missing data set (the suite or the staging is wrong).
Exit 3: a missing dependency (torch, nccl-tests binaries): the node image is wrong.
Each is one line on stderr, `gpucheck-workload: error: <message>`, so a log tail shows the cause.
"""
import sys

PREFIX = "gpucheck-workload: error: "


class WorkloadError(Exception):
    """Bad input or a missing data set: exit 2."""

    exit_code = 2


class MissingDependency(WorkloadError):
    """Torch or an external binary is not there: exit 3."""

    exit_code = 3


def report(err):
    """Print the one-line message and return the exit code."""
    sys.stderr.write(PREFIX + str(err) + "\n")
    sys.stderr.flush()
    return err.exit_code


def require_torch():
    """Import torch or explain which interpreter lacks it (the user picked it with --python)."""
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise MissingDependency("PyTorch is not installed for %s: %s" % (sys.executable, e)) from None
    return torch
