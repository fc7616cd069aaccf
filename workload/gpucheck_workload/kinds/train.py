"""The training benchmark: DDP over gloo (CPU) or NCCL (GPU), timed after warm-up.

Reports samples/s (global and per rank), tokens/s and achieved TFLOP/s for the transformer
((6 · N + 12 · layers · seq_len · width) · tokens: models.train_flops_per_token, weights and
attention-score matmuls), step time mean/p50/p95, the share of step time with a gradient all-reduce in
flight (commhook.py), loss at start and end, and accuracy on the real test split.
"""
import contextlib
import os
import socket
import time

from .. import batches, dist as pg, emit, models, stats
from ..commhook import AllreduceTimer
from ..errors import MissingDependency, WorkloadError, require_torch

HELP = "DDP training throughput"

PROGRESS_EVERY = 10  # progress lines per run
PRECISE_BN_BATCHES = 8
# each rank's own loss at the end is the mean over its last steps: one step's batch is noisy
RANK_LOSS_TAIL = 5
# the fault lab's switch (test/integration/e2e/convergence.test.ts): the rank it names trains on
# all-zero inputs, so it cannot learn its labels while every other rank does; never set in a suite
ZERO_INPUTS_ENV = "GPUCHECK_TEST_ZERO_INPUTS_RANK"


def add_arguments(p):
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


def main(args):
    from .. import affinity, ranks as ranks_mod
    ranks = ranks_mod.detect()
    affinity.bind(ranks)  # before torch starts its thread pools, which inherit the mask
    return run(args, ranks)


def validate(args):
    if args.steps < 1 or args.batch_size < 1:
        raise WorkloadError("--steps and --batch-size must be at least 1")
    if not 0 <= args.warmup_steps < args.steps:
        raise WorkloadError("--warmup-steps must be at least 0 and below --steps (%d), got %d" % (args.steps, args.warmup_steps))
    if args.model == "transformer":
        if args.data != "synthetic":
            raise WorkloadError("--model transformer trains on --data synthetic only (the image data sets have no tokens)")
        if min(args.layers, args.width, args.heads, args.seq_len, args.vocab) < 1 or args.width % args.heads:
            raise WorkloadError("--width (%d) must be a positive multiple of --heads (%d)" % (args.width, args.heads))


def _precision(torch, device, wanted):
    if wanted == "auto":
        return "bf16" if device.type == "cuda" and torch.cuda.is_bf16_supported() else "fp32"
    return wanted


def _autocast(torch, device, precision):
    if precision != "bf16":
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def _optimizer(torch, args, model):
    if args.model == "transformer":
        lr = args.lr or 3e-4
        try:  # the fused CUDA kernel (torch >= 2.0) is several times faster on big models
            return torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1,
                                     fused=next(model.parameters()).is_cuda)
        except (TypeError, RuntimeError):
            return torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1)
    return torch.optim.SGD(model.parameters(), lr=args.lr or 0.05, momentum=0.9, weight_decay=5e-5)


def _build(torch, args, ctx, data):
    """(model, batch source, classes)."""
    cuda = ctx.device.type == "cuda"
    r = ctx.ranks
    if args.model == "transformer":
        model = models.gpt(torch, args.layers, args.width, args.heads, args.seq_len, args.vocab)
        source = batches.SyntheticTokens(torch, args.batch_size, args.seq_len, args.vocab, r.rank, ctx.device, args.seed)
        return model.to(ctx.device), source
    try:
        import torchvision
    except ImportError as e:
        import sys
        raise MissingDependency("torchvision is not installed for %s: %s" % (sys.executable, e)) from None
    if data is None:
        size = args.image_size or 224
        model = models.resnet(torch, torchvision, args.model, 1000, 3, size)
        source = batches.SyntheticImages(torch, args.batch_size, 1000, size, r.rank, ctx.device, args.seed, cuda)
    else:
        size = args.image_size or data.size
        model = models.resnet(torch, torchvision, args.model, data.classes, data.channels, size)
        source = batches.RealImages(torch, data.train, args.batch_size, r.rank, r.world_size, ctx.device,
                                    args.image_size, args.seed, cuda)
    model = model.to(ctx.device)
    return (model.to(memory_format=torch.channels_last) if cuda else model), source


def _loss(torch, args, out, target):
    if args.model == "transformer":
        return torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]).float(), target.reshape(-1))
    return torch.nn.functional.cross_entropy(out.float(), target)


def _precise_bn(torch, dist, ctx, model, source, autocast):
    """Recompute BatchNorm statistics with the final weights before evaluating ("precise BN").

    The running averages collected during a short run mostly describe the early network: after
    20 steps they can put test accuracy at 30 % for a model at 100 %. A cumulative average over a
    few training batches, averaged over ranks, describes the weights being evaluated.
    """
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for bn in norms:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average
    model.train()
    with torch.no_grad(), autocast:
        for _ in range(PRECISE_BN_BATCHES):
            model(source.next()[0])
    for bn in norms:
        for stat in (bn.running_mean, bn.running_var):
            dist.all_reduce(stat)
            stat.div_(ctx.ranks.world_size)


def _accuracy(torch, dist, ctx, model, source, data, autocast):
    _precise_bn(torch, dist, ctx, model, source, autocast)
    model.eval()
    correct = total = 0
    with torch.no_grad(), autocast:
        for x, y in source.evaluation(data.test, 512):
            correct += int((model(x).argmax(1) == y).sum().item())
            total += y.shape[0]
    counts = torch.tensor([correct, total], dtype=torch.float64, device=ctx.device)
    dist.all_reduce(counts)
    return counts[0].item() / counts[1].item() if counts[1].item() else None


def run(args, ranks):
    validate(args)
    torch = require_torch()
    import torch.distributed as dist
    from .. import data as datasets

    # Load before joining the group: a missing file then ends every rank at once with its message.
    data = None if args.data == "synthetic" else datasets.load(torch, args.data, args.data_dir)
    ctx = pg.init(ranks, "auto")
    try:
        torch.manual_seed(args.seed)
        if ctx.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
        return _train(torch, dist, ctx, args, data)
    finally:
        pg.close()


def _train(torch, dist, ctx, args, data):
    from torch.nn.parallel import DistributedDataParallel as DDP

    r = ctx.ranks
    model, source = _build(torch, args, ctx, data)
    precision = _precision(torch, ctx.device, args.precision)
    cuda = ctx.device.type == "cuda"
    ddp = DDP(model, device_ids=[ctx.device.index] if cuda else None, gradient_as_bucket_view=True,
              broadcast_buffers=args.model != "transformer")
    timer = AllreduceTimer(torch, dist, ctx.device, r.world_size)
    ddp.register_comm_hook(None, timer.hook)
    opt = _optimizer(torch, args, ddp)
    per_step = args.batch_size * r.world_size
    every = max(1, args.steps // PROGRESS_EVERY)
    step_s, inflight_s, losses, history = [], [], [], []
    mark_t, mark_step, start = time.perf_counter(), 0, None
    zero_inputs = os.environ.get(ZERO_INPUTS_ENV) == str(r.rank)
    ddp.train()
    for step in range(1, args.steps + 1):
        if step == args.warmup_steps + 1:
            start = time.perf_counter()
        t0 = time.perf_counter()
        timer.begin_step()
        x, y = source.next()
        if zero_inputs:
            x = torch.zeros_like(x)
        with _autocast(torch, ctx.device, precision):
            loss = _loss(torch, args, ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        pg.sync(ctx)
        elapsed = time.perf_counter() - t0
        losses.append(loss.item())
        if step > args.warmup_steps:
            step_s.append(elapsed)
            inflight_s.append(timer.end_step())
        if step % every == 0 or step == args.steps:
            now = time.perf_counter()
            point = {"step": step, "steps": args.steps, "loss": losses[-1],
                     "samples_per_s": per_step * (step - mark_step) / (now - mark_t)}
            mark_t, mark_step = now, step
            history.append({k: point[k] for k in ("step", "loss", "samples_per_s")})
            if r.rank == 0:
                emit.tagged("PROGRESS", point)
    window = time.perf_counter() - start
    ends = torch.tensor([losses[0], losses[-1]], dtype=torch.float64, device=ctx.device)
    dist.all_reduce(ends)
    # each rank's own loss, so that a rank that does not learn is named: after DDP's all-reduce every
    # rank holds the same weights, but its loss is on its own inputs
    tail = losses[-RANK_LOSS_TAIL:]
    everyone = [None] * r.world_size
    dist.all_gather_object(everyone, {"rank": r.rank, "host": socket.gethostname(), "device": ctx.device.type, "loss_start": losses[0],
                                      "loss_end": sum(tail) / len(tail), "loss_end_steps": len(tail)})
    accuracy = None
    if data is not None:
        accuracy = _accuracy(torch, dist, ctx, ddp.module, source, data, _autocast(torch, ctx.device, precision))
    if r.rank == 0:
        emit.tagged("RESULT", _result(torch, args, ctx, precision, model, window, step_s, inflight_s,
                                      (ends / r.world_size).tolist(), accuracy, history, everyone))
    return 0


def _result(torch, args, ctx, precision, model, window, step_s, inflight_s, loss_ends, accuracy, history, ranks):
    world = ctx.ranks.world_size
    samples_per_s = args.batch_size * world * len(step_s) / window
    tokens_per_s = samples_per_s * args.seq_len if args.model == "transformer" else None
    flops = models.train_flops_per_token(model, args.layers, args.seq_len, args.width) if tokens_per_s else None
    tflops = flops * tokens_per_s / 1e12 if tokens_per_s else None
    device_name = torch.cuda.get_device_name(ctx.device) if ctx.device.type == "cuda" else "cpu"
    return {
        "model": args.model, "data": args.data, "world_size": world, "device": device_name,
        "backend": ctx.backend, "precision": precision, "batch_size": args.batch_size,
        "steps": args.steps, "warmup_steps": args.warmup_steps, "torch": torch.__version__,
        "samples_per_s": samples_per_s, "samples_per_s_per_gpu": samples_per_s / world,
        "tokens_per_s": tokens_per_s, "tflops": tflops, "tflops_per_gpu": tflops / world if tflops else None,
        "params": sum(p.numel() for p in model.parameters()),
        "step_time_ms": stats.summary_ms(step_s),
        "allreduce_share": sum(inflight_s) / sum(step_s) if step_s else None,
        "allreduce_ms": 1e3 * sum(inflight_s) / len(inflight_s) if inflight_s else None,
        "allreduce_method": "ddp-comm-hook: union of bucket all-reduce launch..completion intervals per step / step time",
        "loss_start": loss_ends[0], "loss_end": loss_ends[1], "accuracy": accuracy, "history": history,
        "ranks": ranks,
    }
