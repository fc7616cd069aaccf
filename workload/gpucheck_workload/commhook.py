"""Measures how much of each training step has a gradient all-reduce in flight.

A DDP communication hook does what DDP's default hook does (divide the bucket by the world size,
all-reduce it asynchronously) and timestamps each bucket's all-reduce at launch and at
completion: wall clock on CPU (gloo completes the future when the data is there), CUDA events on
GPU (the completion callback runs on a stream that waits for the NCCL kernel). The union of these
intervals within a step, divided by the step time, is the share reported: the time the step
spends with its gradients on the wire, overlapped with backward or not. Works on torch 1.13+.
"""
import time


def union_length(intervals):
    """Total length covered by possibly overlapping (start, end) intervals."""
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


class AllreduceTimer:
    def __init__(self, torch, dist, device, world_size):
        self.torch, self.dist, self.world = torch, dist, world_size
        self.cuda = device.type == "cuda"
        self.marks = []  # (start, end) marks of this step's buckets
        self.step_start = None

    def _mark(self):
        if self.cuda:
            event = self.torch.cuda.Event(enable_timing=True)
            event.record()
            return event
        return time.perf_counter()

    def hook(self, _state, bucket):
        tensor = bucket.buffer()
        tensor.div_(self.world)
        start = self._mark()
        fut = self.dist.all_reduce(tensor, async_op=True).get_future()

        def done(f):
            self.marks.append((start, self._mark()))
            return f.value()[0]
        return fut.then(done)

    def begin_step(self):
        self.marks = []
        self.step_start = self._mark()

    def end_step(self):
        """Seconds with an all-reduce in flight during the step; call after the step is synchronised."""
        if self.cuda:
            # elapsed_time is in ms between recorded (and, after synchronize, completed) events
            rel = [(self.step_start.elapsed_time(s) / 1e3, self.step_start.elapsed_time(e) / 1e3) for s, e in self.marks]
        else:
            rel = [(s - self.step_start, e - self.step_start) for s, e in self.marks]
        return union_length(rel)
