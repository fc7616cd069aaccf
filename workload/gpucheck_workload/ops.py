"""The five collectives on torch.distributed, with nccl-tests' buffer layout and placements.

Buffers are allocated once for the largest size and every size uses views of them, as
nccl-tests does. In place means what it means in nccl-tests: all_gather sends from its own
chunk of the output, reduce_scatter receives into its own chunk of the input, the others use
one buffer for both.
"""
from . import nccl_math, patterns

TORCH_DTYPES = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64", "int32": "int32"}
ROOT = 0


def _supported(call):
    """Run a tiny collective; False when the backend refuses it. Every rank runs the same torch,
    so every rank refuses alike (locally, before any traffic) and none is left waiting."""
    try:
        call()
        return True
    except RuntimeError as e:
        if "support" in str(e):
            return False
        raise


class Collective:
    def __init__(self, torch, dist, op, dtype_name, device, rank, nranks, max_bytes):
        self.torch, self.dist, self.op = torch, dist, op
        self.dtype_name, self.eltsize = dtype_name, nccl_math.DTYPE_SIZES[dtype_name]
        self.dtype = getattr(torch, TORCH_DTYPES[dtype_name])
        self.rank, self.n, self.device = rank, nranks, device
        self.m = patterns.magnitude(dtype_name)
        send, recv, _ = nccl_math.counts(op, max_bytes, self.eltsize, nranks)
        elems = max(send, recv, 1)
        self.big_send = torch.empty(elems, dtype=self.dtype, device=device)
        self.big_recv = torch.empty(elems, dtype=self.dtype, device=device)
        self.notes = []
        self.native_gather = self.native_scatter = True
        if op == "all_gather":
            self.native_gather = _supported(self._probe_all_gather)
            if not self.native_gather:
                self.notes.append("all_gather: this backend has no all_gather_into_tensor; using all_gather into views of one output buffer")
        if op == "reduce_scatter":
            self.native_scatter = _supported(self._probe_reduce_scatter)
            if not self.native_scatter:
                self.notes.append("reduce_scatter: this backend has no reduce_scatter; using a ring of send/recv "
                                  "(n-1 steps, (n-1)/n of the data sent per rank: the traffic busbw assumes)")
        if op in ("all_reduce", "broadcast"):
            self.notes.append("out-of-place %s: torch.distributed.%s works in place, so the send buffer is copied into "
                              "the receive buffer before the timed calls (not timed); the timed calls are the collective "
                              "alone on that receive buffer" % (op, op))
        self.resize(0)

    # -- sizes and views ---------------------------------------------------------------
    def resize(self, size):
        self.send_count, self.recv_count, self.count = nccl_math.counts(self.op, size, self.eltsize, self.n)
        self.size = max(self.send_count, self.recv_count) * self.eltsize

    def views(self, in_place):
        r, c = self.rank, self.count
        if self.op in ("all_gather", "reduce_scatter"):
            whole = self.big_recv[: c * self.n]
            if in_place:
                return (whole[r * c:(r + 1) * c], whole) if self.op == "all_gather" else (whole, whole[r * c:(r + 1) * c])
            if self.op == "all_gather":
                return self.big_send[:c], whole
            return self.big_send[: c * self.n], self.big_recv[:c]
        if in_place:
            buf = self.big_recv[: self.send_count]
            return buf, buf
        return self.big_send[: self.send_count], self.big_recv[: self.recv_count]

    # -- one call ------------------------------------------------------------------------
    def stage(self, in_place):
        """Put the send data where a collective that only works in place will read it.

        torch's all_reduce and broadcast have no out-of-place form, and copying send → receive in
        every timed call added a device copy to each out-of-place time (at HBM speed some 15 % of an
        8-GPU NVLS all_reduce), so those rows, and busbw_avg with them, read low. The copy is done here, once,
        outside the timed loop; the calls then timed are the collective alone. Repeating an
        all_reduce on its own output changes the values, not the traffic, and the check stages again
        before its single call.
        """
        if self.count == 0 or in_place:
            return
        if self.op == "all_reduce" or (self.op == "broadcast" and self.rank == ROOT):
            send, recv = self.views(False)
            recv.copy_(send)

    def runner(self, in_place):
        """The call that is timed: the collective only (see stage for the two in-place-only ones)."""
        send, recv = self.views(in_place)
        d, op = self.dist, self.op
        if self.count == 0:
            return lambda: None  # nccl-tests calls NCCL with count 0, which returns at once
        if op == "all_reduce":
            return lambda: d.all_reduce(recv)
        if op == "broadcast":
            return lambda: d.broadcast(recv, ROOT)
        if op == "alltoall":
            return lambda: d.all_to_all_single(recv, send)
        if op == "all_gather":
            if self.native_gather:
                gather = getattr(d, "all_gather_into_tensor", None) or d._all_gather_base
                return lambda: gather(recv, send)
            chunks = list(recv.view(self.n, self.count).unbind(0))
            return lambda: d.all_gather(chunks, send)
        if self.native_scatter:
            scatter = getattr(d, "reduce_scatter_tensor", None) or d._reduce_scatter_base
            return lambda: scatter(recv, send)
        return self._ring_reduce_scatter(send, recv)

    def _ring_reduce_scatter(self, send, recv):
        """Ring reduce-scatter from point-to-point calls; the send buffer is left untouched."""
        torch, d, n, r, c = self.torch, self.dist, self.n, self.rank, self.count
        chunk = lambda buf, j: buf[(j % n) * c:(j % n + 1) * c]
        incoming = torch.empty(c, dtype=self.dtype, device=self.device)
        partial = torch.empty(c, dtype=self.dtype, device=self.device)

        def run():
            if n == 1:
                recv.copy_(send)
                return
            outgoing = chunk(send, r - 1)
            for k in range(n - 1):
                reqs = [d.isend(outgoing, (r + 1) % n), d.irecv(incoming, (r - 1) % n)]
                for q in reqs:
                    q.wait()
                # after the last step the chunk that arrived is this rank's own, fully reduced
                target = recv if k == n - 2 else partial
                torch.add(incoming, chunk(send, r - k - 2), out=target)
                outgoing = partial
        return run

    def _probe_all_gather(self):
        gather = getattr(self.dist, "all_gather_into_tensor", None) or self.dist._all_gather_base
        gather(self.torch.zeros(self.n, dtype=self.dtype, device=self.device), self.torch.zeros(1, dtype=self.dtype, device=self.device))

    def _probe_reduce_scatter(self):
        scatter = getattr(self.dist, "reduce_scatter_tensor", None) or self.dist._reduce_scatter_base
        scatter(self.torch.zeros(1, dtype=self.dtype, device=self.device), self.torch.zeros(self.n, dtype=self.dtype, device=self.device))

    # -- data and check --------------------------------------------------------------------
    def _sentinel(self):
        return 2 ** 31 - 1 if self.dtype_name == "int32" else float("nan")

    def fill(self, in_place, rep):
        torch, m = self.torch, self.m
        send, recv = self.views(in_place)
        recv.fill_(self._sentinel())  # a collective that does nothing must not pass the check
        if self.op == "broadcast" and self.rank != ROOT:
            return  # only the root's data matters; the others keep the sentinel
        patterns.fill(torch, send, patterns.period(torch, self.rank, rep, m), 0)

    def wrong(self, in_place, rep):
        """Wrong elements in this rank's result (before summing over ranks)."""
        torch, m, n, r, c = self.torch, self.m, self.n, self.rank, self.count
        _, recv = self.views(in_place)
        tile = lambda per, start, length: patterns.tile(torch, per, start, length, self.dtype, self.device)
        if self.op == "all_reduce":
            return patterns.count_wrong(recv, tile(patterns.summed_period(torch, n, rep, m), 0, c))
        if self.op == "reduce_scatter":
            return patterns.count_wrong(recv, tile(patterns.summed_period(torch, n, rep, m), r * c, c))
        if self.op == "broadcast":
            return patterns.count_wrong(recv, tile(patterns.period(torch, ROOT, rep, m), 0, c))
        wrong = 0
        for s in range(n):  # all_gather: chunk s is rank s's data; alltoall: rank s's chunk for us
            start = 0 if self.op == "all_gather" else r * c
            wrong += patterns.count_wrong(recv[s * c:(s + 1) * c], tile(patterns.period(torch, s, rep, m), start, c))
        return wrong
