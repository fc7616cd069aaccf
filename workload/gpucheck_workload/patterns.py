"""Deterministic per-rank data for the collective check, with exactly computable results.

Rank r holds at global element index i the small integer ((7i + 13r + 3rep) mod P) - M, P = 2M+1.
Small integers add exactly in every dtype we test, so the expected result is exact and any
difference is a wrong element, not rounding. The pattern has period P in i, so buffers of any
size are built by tiling a P-element period (no int64 index tensor as large as the buffer), and
13 is coprime with P, so over consecutive ranks the values cycle through -M..M and partial sums
in any contiguous reduction order stay small (bf16 is exact only up to 256).
"""

HALF_M = 3  # half / bfloat16: partial sums stay far below 256
WIDE_M = 15


def magnitude(dtype_name):
    return HALF_M if dtype_name in ("half", "bfloat16") else WIDE_M


def period(torch, rank, rep, m):
    p = 2 * m + 1
    i = torch.arange(p, dtype=torch.int64)
    return (i * 7 + 13 * rank + 3 * rep) % p - m


def summed_period(torch, nranks, rep, m):
    total = period(torch, 0, rep, m)
    for r in range(1, nranks):
        total = total + period(torch, r, rep, m)
    return total


def tile(torch, per, start, length, dtype, device):
    """Elements start..start+length of the infinite repetition of `per`, in dtype on device."""
    p = per.numel()
    if length == 0:
        return torch.empty(0, dtype=dtype, device=device)
    rolled = torch.roll(per, -(start % p))
    reps = -(-length // p)
    return rolled.to(dtype=dtype, device=device).repeat(reps)[:length]


def fill(torch, buf, per, start):
    if buf.numel():
        buf.copy_(tile(torch, per, start, buf.numel(), buf.dtype, buf.device))


def count_wrong(got, expected):
    """Elements that differ; NaN never equals anything, so a NaN counts as wrong."""
    if got.numel() == 0:
        return 0
    return int((got != expected).sum().item())
