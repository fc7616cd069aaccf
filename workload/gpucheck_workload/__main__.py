"""Command line: `python3 -m gpucheck_workload [--inventory] [--telemetry-interval S] <command> ...`.

Only argument parsing and dispatch live here: the test kinds come from kinds.py (each kind's
module adds its own arguments), the helper commands are imported when chosen. No module imports
torch before its command runs, so `inventory` and `telemetry` start without it.
"""
import argparse
import sys

from . import hangup
from .errors import PREFIX, WorkloadError, report
from .kinds import KINDS


class Parser(argparse.ArgumentParser):
    """argparse prints usage and two lines; the harness wants one line and exit 2."""

    def error(self, message):
        raise WorkloadError(message)


def parser():
    top = Parser(prog="gpucheck-workload", description="gpucheck's workload: runs on the nodes")
    top.add_argument("--inventory", action="store_true", help="print GPUCHECK_INVENTORY first (local rank 0)")
    top.add_argument("--telemetry-interval", type=float, metavar="S", help="sample GPUCHECK_TELEMETRY every S seconds meanwhile (local rank 0)")
    top.add_argument("--backend", dest="planned_backend", choices=("nccl", "gloo"),
                     help="the process-group backend planned from the suite (nccl when it asks for GPUs): replaces each command's "
                          "\"auto\", so a rank that sees no GPU is an error, never a CPU run over gloo")
    sub = top.add_subparsers(dest="command", metavar="<command>")
    sub.required = True
    for name, kind in KINDS.items():
        kind.add_arguments(sub.add_parser(name, help=kind.HELP))
    pf = sub.add_parser("preflight", help="interpreters, torch, GPUs, NCCL and tools this node offers the suite")
    pf.add_argument("--python", dest="interpreters", action="append", default=[], metavar="PATH",
                    help="an interpreter the tests use (repeatable; default: this one)")
    pf.add_argument("--tool", dest="tools", action="append", default=[], metavar="NAME",
                    help="a tool a test needs: a name on PATH, or nccl-tests:<op>[:<dir>] (repeatable)")
    ev = sub.add_parser("evidence", help="a failed node's kernel log, GPU and fabric state for its evidence bundle")
    ev.add_argument("--since", required=True, help="the failed test's start (ISO 8601, UTC)")
    ev.add_argument("--until", required=True, help="its end")
    ev.add_argument("--max-bytes", type=int, required=True, help="the bundle's limit: an item larger is not sent")
    ev.add_argument("--node", help="the node's name in the run (default: GPUCHECK_NODE, else the hostname)")
    ev.add_argument("--deadline-s", type=int, help="start no item after this many seconds; cut each item's timeout to what is left")
    t = sub.add_parser("telemetry", help="GPUCHECK_TELEMETRY lines until SIGTERM")
    t.add_argument("--interval", type=float, default=0.5)
    t.add_argument("--duration", type=float, help="stop after S seconds")
    m = sub.add_parser("make-fashionmnist", help="write a small learnable FashionMNIST-format data set")
    m.add_argument("--out", required=True)
    m.add_argument("--train", type=int, default=1000)
    m.add_argument("--test", type=int, default=200)
    m.add_argument("--seed", type=int, default=0)
    return top


def _command(args):
    if args.command == "preflight":
        from . import preflight, emit
        emit.tagged("RESULT", preflight.collect(args.interpreters, args.tools))
        return 0
    if args.command == "evidence":
        from . import evidence
        return evidence.collect(args.since, args.until, args.max_bytes, args.node, args.deadline_s)
    if args.command == "telemetry":
        from . import telemetry
        return telemetry.main(args.interval, args.duration)
    if args.command == "make-fashionmnist":
        from . import fakedata
        fakedata.write_fashionmnist(args.out, args.train, args.test, args.seed)
        return 0
    return KINDS[args.command].main(args)


def _is_local_leader():
    from . import ranks
    return ranks.detect().local_rank == 0


def main(argv=None):
    sampler = None
    hangup.guard()
    try:
        args = parser().parse_args(argv)
        if args.telemetry_interval is not None and args.telemetry_interval <= 0:
            raise WorkloadError("--telemetry-interval must be positive, got %s" % args.telemetry_interval)
        if args.planned_backend:  # not args.backend: collective's own --backend would overwrite it
            from . import dist
            dist.PLANNED = args.planned_backend
        leader = (args.inventory or args.telemetry_interval) and _is_local_leader()
        if leader and args.inventory:
            from . import emit
            from .kinds import inventory
            emit.tagged("INVENTORY", inventory.collect())
        if leader and args.telemetry_interval:
            from . import telemetry
            sampler = telemetry.Sampler(args.telemetry_interval)
            sampler.start()
        return _command(args)
    except WorkloadError as e:
        return report(e)
    except KeyboardInterrupt:
        sys.stderr.write(PREFIX + "interrupted\n")
        return 130
    finally:
        if sampler:
            sampler.stop()


if __name__ == "__main__":
    sys.exit(main())
