// b200-8x and gb200-nvl72 (issue 29 item 1): what each judges, and where no B200/GB200 figure was
// found, that the threshold is gone rather than an H100 one left standing.
import { expect, test } from "bun:test";
import { loadSuite } from "../../lib/load/mod.ts";

const b200 = await loadSuite("b200-8x");
const gb200 = await loadSuite("gb200-nvl72");
const test_ = (s: typeof b200, name: string) => s.tests.find((t) => t.name === name)!;
const rule = (s: typeof b200, name: string, metric: string) => test_(s, name).expect.find((e) => e.metric === metric && e.at === undefined);

test("b200-8x: h100-8x's tests with B200 figures, NVLink 5's 18 links, no H100 floor where no B200 figure exists", () => {
  expect(b200.source.parents?.[0].path).toBe("builtin:h100-8x.yaml");
  expect(b200.tests.every((t) => t.nodes === 1 && t.gpusPerNode === 8)).toBe(true);
  expect(test_(b200, "inventory").inventory).toEqual({ nvlinksPerGpu: 18 });
  // nccl #1807: 8× B200 "830+" GB/s with NVLS
  expect(rule(b200, "nvlink-allreduce", "busbw")?.min).toBe(800);
  expect(rule(b200, "nvlink-allreduce", "transport")?.transport).toEqual({ require: ["NVLS"], forbid: ["NET", "SHM"] });
  // no published B200 Ring figure: recorded, not judged; the ring must still stay on NVLink
  expect(rule(b200, "nvlink-ring-allreduce", "busbw")).toBeUndefined();
  expect(rule(b200, "nvlink-ring-allreduce", "transport")?.transport).toEqual({ require: [], forbid: ["NVLS", "NET", "SHM"] });
  expect(rule(b200, "transformer-bandwidth", "tflops")?.min).toBe(2700);
  expect(rule(b200, "hbm-bandwidth", "membw_copy_gbps_min")?.min).toBe(5600);
  expect(rule(b200, "hbm-bandwidth", "membw_triad_gbps_min")?.min).toBe(5600);
  expect(rule(b200, "burn", "burn_gpu_temp_max_c")).toBeUndefined();
  expect(rule(b200, "burn", "burn_gpu_throttle_hw")?.max).toBe(0);
});

test("gb200-nvl72: 18 trays × 4 GPUs, fabric state of every GPU in the rack's clique, MNNVL proven, per-tray GPU tests", () => {
  expect(gb200.platform.type).toBe("slurm");
  expect(gb200.tests.map((t) => [t.name, t.kind, t.nodes, t.gpusPerNode])).toEqual([
    ["inventory", "inventory", 18, 4],
    ["mnnvl-allreduce", "collective", 18, 4],
    ["hbm-bandwidth", "membw", 1, 4],
    ["gemm", "gemm", 1, 4],
    ["nvlink-bandwidth", "nvlink", 1, 4],
    ["dcgm-diag", "dcgm", 18, 4],
  ]);
  expect(test_(gb200, "inventory")).toMatchObject({ perNode: true, inventory: { nvlinkDomain: "rack", nvlinksPerGpu: 18 } });
  expect(rule(gb200, "inventory", "fabric_not_ready")?.max).toBe(0);
  expect(rule(gb200, "inventory", "gpu_count")?.min).toBe(4);
  // the trays must talk over multi-node NVLink, never a NIC: NCCL must not fall back silently
  const m = test_(gb200, "mnnvl-allreduce");
  expect(m.env.NCCL_MNNVL_ENABLE).toBe("1");
  expect(rule(gb200, "mnnvl-allreduce", "transport")?.transport).toEqual({ require: ["P2P/MNNVL"], forbid: ["NET", "SHM"] });
  expect(rule(gb200, "mnnvl-allreduce", "busbw")?.min).toBe(800);
  // a failing rack run is bisected down to the tray
  expect(m.onFailure).toBe("isolate");
  for (const name of ["hbm-bandwidth", "gemm", "nvlink-bandwidth"]) expect(test_(gb200, name)).toMatchObject({ pattern: "each-node", perNode: true });
  expect(test_(gb200, "dcgm-diag")).toMatchObject({ perNode: true, dcgm: { level: 2 } });
});
