"""Run as 2+ ranks: one real collective per placement, then rank 1 corrupts its result and every
rank reports its own wrong-element count and the count summed over ranks, as JSON."""
import json
import sys

import torch
import torch.distributed as dist

from gpucheck_workload import dist as pg, ranks
from gpucheck_workload.ops import Collective

r = ranks.detect()
ctx = pg.init(r, "gloo")
op, dtype = sys.argv[1], sys.argv[2]
coll = Collective(torch, dist, op, dtype, ctx.device, r.rank, r.world_size, 4096)
coll.resize(4096)
report = {}
for in_place in ((False,) if op == "alltoall" else (False, True)):
    coll.fill(in_place, 5)
    coll.stage(in_place)
    coll.runner(in_place)()
    clean = coll.wrong(in_place, 5)
    _, recv = coll.views(in_place)
    if r.rank == 1:
        recv[3] += 1
        recv[7] = 2 ** 20 if dtype == "int32" else float("nan")
    local = coll.wrong(in_place, 5)
    total = torch.tensor([local], dtype=torch.int64)
    dist.all_reduce(total)
    coll.fill(in_place, 6)  # a collective that never ran leaves the sentinel: every element is wrong
    untouched = coll.wrong(in_place, 6)
    report["in_place" if in_place else "out_of_place"] = {"clean": clean, "local": local, "total": int(total.item()),
                                                          "untouched": untouched, "elements": recv.numel()}
print(json.dumps(report))
pg.close()
