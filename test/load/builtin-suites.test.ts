// The built-in suites: each loads, says what the issue asks of it, and every performance
// threshold on GPUs carries its published source in a comment right above it.
import { describe, expect, test } from "bun:test";
import { builtinSuites } from "../../lib/core/assets.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { findMetric } from "../../lib/kinds/mod.ts";
import type { Suite } from "../../lib/core/types.ts";

const NAMES = ["b200-8x", "b200-8x-quick", "cpu-smoke", "gb200-nvl72", "gpu-1x", "h100-8x", "h100-8x-quick", "h100-multinode", "h200-8x", "h200-8x-quick", "quick"];
const suites = new Map<string, Suite>();
for (const name of NAMES) suites.set(name, await loadSuite(name));
const test_ = (suite: string, name: string) => suites.get(suite)!.tests.find((t) => t.name === name)!;
const threshold = (suite: string, name: string, metric: string) => test_(suite, name).expect.find((e) => e.metric === metric && e.at === undefined);

test("exactly these built-ins, each resolving from builtin:<name>.yaml", () => {
  expect([...builtinSuites().keys()].sort()).toEqual(NAMES);
  for (const [name, s] of suites) {
    expect(s.name).toBe(name);
    expect(s.source.path).toBe(`builtin:${name}.yaml`);
    expect(s.source.builtin).toBe(true);
  }
});

describe("h100-8x", () => {
  test("NVLink all-reduce sweeps 8 B to 8 GiB by factor 2 on 8 GPUs", () => {
    const t = test_("h100-8x", "nvlink-allreduce");
    expect(t).toMatchObject({ kind: "collective", nodes: 1, gpusPerNode: 8, ranksPerNode: 8 });
    expect(t.collective).toMatchObject({ op: "all_reduce", minBytes: 8, maxBytes: 8 * 1024 ** 3, factor: 2 });
    // NVLS: Azure's health-check floor, under every published 476–483 GB/s
    expect(threshold("h100-8x", "nvlink-allreduce", "busbw")?.min).toBe(460);
    expect(threshold("h100-8x", "nvlink-allreduce", "wrong")?.max).toBe(0);
  });

  test("a separate Ring all-reduce with NVLS off catches the degraded link NVLS hides", () => {
    const t = test_("h100-8x", "nvlink-ring-allreduce");
    expect(t).toMatchObject({ kind: "collective", nodes: 1, gpusPerNode: 8, ranksPerNode: 8 });
    expect(t.env).toEqual({ NCCL_DEBUG: "WARN", NCCL_ALGO: "Ring", NCCL_NVLS_ENABLE: "0" });
    expect(t.collective).toMatchObject({ op: "all_reduce", minBytes: 8, maxBytes: 8 * 1024 ** 3, factor: 2 });
    // midway between the published 368.76 GB/s Ring figure and one link in 18 down (348.3)
    expect(threshold("h100-8x", "nvlink-ring-allreduce", "busbw")?.min).toBe(358);
    expect(threshold("h100-8x", "nvlink-ring-allreduce", "transport")?.transport).toEqual({ require: [], forbid: ["NVLS", "NET", "SHM"] });
    expect(threshold("h200-8x", "nvlink-ring-allreduce", "busbw")?.min).toBe(358);
    expect(test_("h200-8x", "nvlink-ring-allreduce").env).toEqual(t.env);
  });

  test("the IB test disables NVLink P2P and shared memory, forces Ring and IB on the compute HCAs, and requires NET/IB", () => {
    expect(test_("h100-8x", "ib-allreduce").env).toEqual({
      NCCL_DEBUG: "WARN",
      NCCL_P2P_DISABLE: "1",
      NCCL_SHM_DISABLE: "1",
      NCCL_ALGO: "Ring",
      NCCL_NET: "IB",
      NCCL_IB_HCA: "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
    });
    expect(threshold("h100-8x", "ib-allreduce", "transport")?.transport).toEqual({ require: ["NET/IB"], forbid: ["NET/Socket"] });
    expect(threshold("h100-8x", "nvlink-allreduce", "transport")?.transport).toEqual({ require: ["NVLS"], forbid: ["NET", "SHM"] });
    expect(threshold("h200-8x", "ib-allreduce", "transport")?.transport).toEqual({ require: ["NET/IB"], forbid: ["NET/Socket"] });
  });

  test("ResNet-18 on FashionMNIST, ResNet-50 on synthetic data, a transformer, and an inventory", () => {
    expect(test_("h100-8x", "resnet18-fashionmnist").train).toMatchObject({ model: "resnet18", data: "fashionmnist" });
    expect(test_("h100-8x", "resnet50-synthetic").train).toMatchObject({ model: "resnet50", data: "synthetic" });
    expect(test_("h100-8x", "transformer-bandwidth").train).toMatchObject({ model: "transformer", layers: 24, width: 2048 });
    expect(test_("h100-8x", "inventory")).toMatchObject({ kind: "inventory", perNode: true });
    expect(threshold("h100-8x", "inventory", "gpu_count")?.min).toBe(8);
    // ResNet-18 is a functional test: the loss must fall; its throughput floor is only the
    // ResNet-50 floor (it does about 1/9 of ResNet-50's work per image)
    expect(threshold("h100-8x", "resnet18-fashionmnist", "samples_per_s")?.min).toBe(threshold("h100-8x", "resnet50-synthetic", "samples_per_s")!.min!);
    expect(threshold("h100-8x", "resnet18-fashionmnist", "loss_end")?.max).toBe(1);
    const text = builtinSuites().get("h100-8x")!.text;
    expect(text).toContain("A functional test");
    expect(text).toContain("about 1/9 of the work");
    expect(text).not.toContain("1/100");
  });
});

test("h200-8x is h100-8x with H200 throughput floors", () => {
  const h100 = suites.get("h100-8x")!;
  const h200 = suites.get("h200-8x")!;
  expect(h200.tests.map((t) => t.name)).toEqual(h100.tests.map((t) => t.name));
  expect(h200.source.parents?.[0].path).toBe("builtin:h100-8x.yaml");
  expect(threshold("h200-8x", "resnet50-synthetic", "samples_per_s")?.min).toBe(17100);
  expect(threshold("h200-8x", "resnet18-fashionmnist", "samples_per_s")?.min).toBe(17100);
  // Azure's H200 health-check floor for NVLS all-reduce
  expect(threshold("h200-8x", "nvlink-allreduce", "busbw")?.min).toBe(431);
  expect(builtinSuites().get("h200-8x")!.text).not.toContain("1/100");
  expect(threshold("h200-8x", "resnet18-fashionmnist", "accuracy")?.min).toBe(50);
});

test("h100-multinode: 2 nodes by default, Ring forced, per-GPU training floor", () => {
  const s = suites.get("h100-multinode")!;
  expect(s.platform.type).toBe("slurm");
  expect(s.tests.every((t) => t.nodes === 2 && t.gpusPerNode === 8)).toBe(true);
  expect(test_("h100-multinode", "fabric-allreduce").env).toMatchObject({ NCCL_ALGO: "Ring", NCCL_NET: "IB" });
  expect(threshold("h100-multinode", "fabric-allreduce", "transport")?.transport).toEqual({ require: ["NET/IB", "GDRDMA"], forbid: ["NET/Socket"] });
  expect(threshold("h100-multinode", "resnet50-synthetic", "samples_per_s_per_gpu")?.min).toBe(1950);
  // each compute NIC pair by perftest (else NCCL send/recv), and one all-reduce per rail through that HCA only
  expect(test_("h100-multinode", "nic-pairs")).toMatchObject({
    ranksPerNode: 1,
    nic: { hcas: ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"] },
  });
  // no absolute floor across nodes (Azure's 380 is a loopback figure): nic-loopback on every node carries it
  expect(threshold("h100-multinode", "nic-pairs", "nic_bw_gbps_min")).toBeUndefined();
  expect(threshold("h100-multinode", "nic-loopback", "nic_loopback_gbps_min")?.min).toBe(380);
  // the 8 rails are one test: the sweep once per HCA, each rail a part judged by name
  expect(s.tests.map((t) => t.name)).toEqual(["inventory", "fabric-allreduce", "nic-loopback", "nic-pairs", "rails-allreduce", "resnet50-synthetic"]);
  expect(test_("h100-multinode", "rails-allreduce")).toMatchObject({
    env: { NCCL_ALGO: "Ring", NCCL_NET: "IB" },
    collective: { minBytes: 1024 ** 3, maxBytes: 4 * 1024 ** 3, rails: ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"] },
  });
  expect(test_("h100-multinode", "rails-allreduce").env.NCCL_IB_HCA).toBeUndefined();
  expect(threshold("h100-multinode", "rails-allreduce", "rail_busbw")).toMatchObject({ min: 44, perComponent: true, outlier: { side: "below", ratio: 0.93, over: "unit" } });
  expect(threshold("h100-multinode", "rails-allreduce", "transport")?.transport).toEqual({ require: ["NET/IB", "GDRDMA"], forbid: ["NET/Socket"] });
  for (const m of ["wrong", "ib_link_downed"]) expect(threshold("h100-multinode", "rails-allreduce", m)?.max).toBe(0);
});

test("gpu-1x: every CUDA path on one GPU, with per-GPU floors from per-GPU sources", () => {
  const s = suites.get("gpu-1x")!;
  expect(s.tests.map((t) => [t.name, t.kind])).toEqual([
    ["inventory", "inventory"],
    ["gemm", "gemm"],
    ["hbm-bandwidth", "membw"],
    ["pcie-bandwidth", "pcie"],
    ["burn", "burn"],
    ["inventory-after-burn", "inventory"],
    ["resnet50-synthetic", "train"],
    ["transformer", "train"],
  ]);
  expect(s.tests.every((t) => t.nodes === 1 && t.gpusPerNode === 1)).toBe(true);
  expect(test_("gpu-1x", "burn").burn).toMatchObject({ duration: 120_000 });
  expect(threshold("gpu-1x", "burn", "burn_stragglers")?.max).toBe(0);
  // 70 % of the 1× H100 figure, 2,790 img/s (performance.md 5.3), as h100-multinode per GPU
  expect(threshold("gpu-1x", "resnet50-synthetic", "samples_per_s")?.min).toBe(threshold("h100-multinode", "resnet50-synthetic", "samples_per_s_per_gpu")!.min!);
  // h100-8x's transformer floor is 15 % of 8 × 989: one GPU's share
  expect(threshold("gpu-1x", "transformer", "tflops")?.min).toBe(Math.round(threshold("h100-8x", "transformer-bandwidth", "tflops")!.min! / 8));
  // per-GPU sources used as they are
  expect(threshold("gpu-1x", "hbm-bandwidth", "membw_copy_gbps_min")?.min).toBe(threshold("h100-8x", "hbm-bandwidth", "membw_copy_gbps_min")!.min!);
  expect(threshold("gpu-1x", "pcie-bandwidth", "pcie_h2d_gbps_min")?.min).toBe(48);
});

test("cpu-smoke: 2 gloo ranks on the CPU of the local machine", () => {
  const s = suites.get("cpu-smoke")!;
  expect(s.platform.type).toBe("local");
  const ar = test_("cpu-smoke", "allreduce-gloo");
  expect(ar).toMatchObject({ gpusPerNode: 0, ranksPerNode: 2 });
  expect(ar.collective).toMatchObject({ backend: "gloo", minBytes: 1024, maxBytes: 16 * 1024 ** 2 });
  expect(test_("cpu-smoke", "resnet18-fashionmnist").train).toMatchObject({ dataDir: "@generated" });
  // loose but not vacuous
  expect(threshold("cpu-smoke", "allreduce-gloo", "busbw")?.min).toBeGreaterThan(0);
  expect(threshold("cpu-smoke", "resnet18-fashionmnist", "samples_per_s")?.min).toBeGreaterThan(0);
  // gloo never runs NCCL: a transport rule there could only ever be an error
  expect(s.tests.flatMap((t) => t.expect).some((e) => e.metric === "transport")).toBe(false);
});

test("every GPU performance threshold has a comment right above it naming its source", () => {
  const perf = new Set(["GB/s", "samples/s", "tokens/s", "TFLOP/s", "ms", "us"]);
  const sources = /nccl-tests #\d+|lambdal\/deeplearning-benchmark|Azure|NVIDIA|performance\.md/;
  for (const name of ["h100-8x", "h200-8x", "h100-multinode", "gpu-1x"]) {
    const lines = builtinSuites().get(name)!.text.split("\n");
    lines.forEach((line, i) => {
      const m = /^\s+([a-z_0-9]+)(@\S+)?: \{ (min|max):/.exec(line);
      const info = m && (findMetric("collective", m[1]) ?? findMetric("train", m[1]));
      if (!info || !perf.has(info.unit)) return;
      const comment: string[] = [];
      for (let j = i - 1; j >= 0 && /^\s*#/.test(lines[j]); j--) comment.unshift(lines[j]);
      expect({ suite: name, line: i + 1, sourced: sources.test(comment.join(" ")) }).toEqual({ suite: name, line: i + 1, sourced: true });
    });
  }
});
