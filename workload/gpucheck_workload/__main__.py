"""Command line: `python3 -m gpucheck_workload [--inventory] [--telemetry-interval S] <command> ...`.

Only argument parsing and dispatch live here; each command's module is imported when chosen,
so `inventory` and `telemetry` start without importing torch.
"""
import argparse
import sys

from . import busbw
from .errors import PREFIX, WorkloadError, report


class Parser(argparse.ArgumentParser):
    """argparse prints usage and two lines; the harness wants one line and exit 2."""

    def error(self, message):
        raise WorkloadError(message)


def _size(text):
    try:
        return busbw.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _collective(sub):
    p = sub.add_parser("collective", help="nccl-tests style collective benchmark")
    p.add_argument("--op", choices=busbw.OPS, default="all_reduce")
    p.add_argument("--min-bytes", type=_size, default=8)
    p.add_argument("--max-bytes", type=_size, default=64 << 20)
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--dtype", choices=sorted(busbw.DTYPE_SIZES), default="float")
    p.add_argument("--no-check", dest="check", action="store_false", help="skip the #wrong check (prints N/A)")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto")
    p.add_argument("--impl", choices=("workload", "nccl-tests"), default="workload")
    p.add_argument("--nccl-tests-dir", help="directory holding <op>_perf (default: PATH)")


def _train(sub):
    p = sub.add_parser("train", help="DDP training throughput")
    p.add_argument("--model", choices=("resnet18", "resnet50", "transformer"), default="resnet18")
    p.add_argument("--data", choices=("synthetic", "fashionmnist", "cifar10", "cifar100"), default="synthetic")
    p.add_argument("--data-dir")
    p.add_argument("--batch-size", type=int, default=32, help="per rank")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup-steps", type=int, default=5)
    p.add_argument("--image-size", type=int)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--width", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--precision", choices=("auto", "fp32", "bf16"), default="auto")
    p.add_argument("--lr", type=float)
    p.add_argument("--seed", type=int, default=0)


def parser():
    top = Parser(prog="gpucheck-workload", description="gpucheck's workload: runs on the nodes")
    top.add_argument("--inventory", action="store_true", help="print GPUCHECK_INVENTORY first (local rank 0)")
    top.add_argument("--telemetry-interval", type=float, metavar="S", help="sample GPUCHECK_TELEMETRY every S seconds meanwhile (local rank 0)")
    sub = top.add_subparsers(dest="command", metavar="<command>")
    sub.required = True
    _collective(sub)
    _train(sub)
    sub.add_parser("inventory", help="GPUs, drivers, links, ports, Xid events of this node")
    pf = sub.add_parser("preflight", help="interpreters, torch, GPUs, NCCL and tools this node offers the suite")
    pf.add_argument("--python", dest="interpreters", action="append", default=[], metavar="PATH",
                    help="an interpreter the tests use (repeatable; default: this one)")
    pf.add_argument("--tool", dest="tools", action="append", default=[], metavar="NAME",
                    help="a tool a test needs: a name on PATH, or nccl-tests:<op>[:<dir>] (repeatable)")
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
    if args.command == "inventory":
        from . import inventory, emit
        emit.tagged("RESULT", inventory.collect())
        return 0
    if args.command == "preflight":
        from . import preflight, emit
        emit.tagged("RESULT", preflight.collect(args.interpreters, args.tools))
        return 0
    if args.command == "telemetry":
        from . import telemetry
        return telemetry.main(args.interval, args.duration)
    if args.command == "make-fashionmnist":
        from . import fakedata
        fakedata.write_fashionmnist(args.out, args.train, args.test, args.seed)
        return 0
    from . import ranks as ranks_mod
    ranks = ranks_mod.detect()
    if args.command == "collective" and args.impl == "nccl-tests":
        from . import nccl_tests
        return nccl_tests.run(args, ranks)  # unbound: in node mode one process drives every GPU
    from . import affinity
    affinity.bind(ranks)  # before torch starts its thread pools, which inherit the mask
    if args.command == "collective":
        from . import collective
        return collective.run(args, ranks)
    from . import train
    return train.run(args, ranks)


def _is_local_leader():
    from . import ranks
    return ranks.detect().local_rank == 0


def main(argv=None):
    sampler = None
    try:
        args = parser().parse_args(argv)
        if args.telemetry_interval is not None and args.telemetry_interval <= 0:
            raise WorkloadError("--telemetry-interval must be positive, got %s" % args.telemetry_interval)
        leader = (args.inventory or args.telemetry_interval) and _is_local_leader()
        if leader and args.inventory:
            from . import inventory, emit
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
