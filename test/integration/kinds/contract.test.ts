// The contract between the Python workload and this binary: each kind's module runs on CPU here
// (/usr/bin/python3, torch CPU), and what it prints — as the kind's parser reads it — must match the
// kind's result schema, both the zod one (lib/kinds/<kind>/result.ts) and the committed JSON Schema
// (schema/workload-<kind>.schema.json, checked by Python's jsonschema, an implementation not ours).
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import type { AnyKind } from "../../../lib/core/kind.ts";
import { KINDS } from "../../../lib/kinds/mod.ts";
import { RESULTS } from "../../../lib/kinds/results.ts";
import { tempDir } from "../../tmp.ts";
import { contractPath } from "../../../lib/kinds/reference.ts";
import { parseNccl } from "../../../lib/parsers/nccl.ts";
import { taggedLines } from "../../../lib/parsers/protocol.ts";
import { GPU_LOAD_METRICS } from "../../../lib/kinds/burn/parse-gpu.ts";
import { schemaErrors } from "../../report/json-schema.ts";

const root = resolve(import.meta.dir, "../../..");
const WORKLOAD = join(root, "workload");
const NODE_SAMPLES = join(WORKLOAD, "tests", "fixtures");
const dir = tempDir("gpucheck-contract-");

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** `n` ranks of `python3 -m gpucheck_workload <args>` as the local platform starts them; rank 0's stdout. */
async function ranks(n: number, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(RANK|WORLD_SIZE|LOCAL_|MASTER_|SLURM_|OMPI_)/.test(k))) as Record<string, string>;
  const procs = Array.from({ length: n }, (_, r) =>
    Bun.spawn(["/usr/bin/python3", "-m", "gpucheck_workload", ...args], {
      env: {
        ...base,
        PYTHONPATH: WORKLOAD,
        RANK: `${r}`,
        WORLD_SIZE: `${n}`,
        LOCAL_RANK: `${r}`,
        LOCAL_WORLD_SIZE: `${n}`,
        MASTER_ADDR: "127.0.0.1",
        MASTER_PORT: `${port}`,
        ...extraEnv,
      },
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  const outs = await Promise.all(procs.map(async (p) => ({ out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text(), code: await p.exited })));
  const bad = outs.find((o) => o.code !== 0);
  if (bad) throw new Error(`workload ${args.join(" ")} exited ${bad.code}:\n${bad.err}`);
  return outs[0]!.out;
}

/**
 * nvidia-smi and ibstat answering from real H100 captures (workload/tests/fixtures, see its README): their directory.
 * Written once: two runs use them, two at a time, and rewriting a script another run is executing fails with ETXTBSY.
 */
let h100Tools: string | undefined;
function fakeH100Tools(): string {
  if (h100Tools) return h100Tools;
  const bin = join(dir, "bin");
  h100Tools = bin;
  mkdirSync(bin, { recursive: true });
  const tool = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool("nvidia-smi", `case "$1" in -q) cat "${NODE_SAMPLES}/nvidia-smi-q-h100-8gpu-565.57.01.txt";; nvlink) cat "${NODE_SAMPLES}/nvlink-s-a100-8gpu-space-indent.txt";; esac`);
  tool("ibstat", `cat "${NODE_SAMPLES}/ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"`);
  return bin;
}

/** a dcgmi that prints the real DCGM 4.2.3 capture (test/fixtures/dcgm/README.md) and exits 226, as it did there */
function fakeDcgmi(): string {
  const bin = join(dir, "dcgm-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "dcgmi"), `#!/bin/sh\ncat "${join(root, "test/fixtures/dcgm/dcgm-4.2.3-gb10-level1-persistence-fail.json")}"; exit 226\n`);
  chmodSync(join(bin, "dcgmi"), 0o755);
  return bin;
}

/** The result as the kind's parser reads it, valid for the zod schema and for the committed JSON Schema. */
function expectValid(kind: AnyKind, result: unknown, label: string): void {
  const parsed = RESULTS[kind.name as keyof typeof RESULTS].safeParse(result);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join("/")}: ${i.message}`)).toEqual([]);
  const file = join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(result));
  expect(schemaErrors(join(root, contractPath(kind.name)), file)).toEqual([]);
}

// The runs start before the tests, two at a time in the tests' order: most of their time is importing
// torch, which overlaps with the previous test. All at once, the first test waited on every other
// run's torch import (13.7 s in CI with six kinds, past its 60 s on a loaded machine with nine).
let free = 2;
const queued: Array<() => void> = [];
async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  if (free > 0) free--;
  else await new Promise<void>((go) => queued.push(go));
  try {
    return await run();
  } finally {
    const next = queued.shift();
    if (next) next();
    else free++;
  }
}

const runs = {
  collective: inTurn(() =>
    ranks(2, ["collective", "--op", "all_reduce", "--min-bytes", "8", "--max-bytes", "1024", "--factor", "4", "--iters", "2", "--warmup", "1", "--backend", "gloo"]),
  ),
  train: inTurn(() => ranks(1, ["train", "--model", "resnet18", "--data", "synthetic", "--batch-size", "2", "--steps", "2", "--warmup-steps", "1", "--image-size", "32"])),
  gemm: inTurn(() => ranks(2, ["gemm", "--min-size", "64", "--max-size", "128", "--step", "64", "--iters", "2", "--warmup", "1", "--checksum-size", "64"])),
  membw: inTurn(() => ranks(2, ["membw", "--size", String(4 * 1024 ** 2), "--iters", "2", "--warmup", "1"])),
  pcie: inTurn(() => ranks(2, ["pcie", "--size", String(1024 ** 2), "--iters", "2", "--warmup", "1"], { PATH: "/usr/bin:/bin" })),
  nvlink: inTurn(() => ranks(2, ["nvlink", "--size", String(64 * 1024), "--iters", "2", "--warmup", "1"])),
  inventoryCpu: inTurn(() => ranks(1, ["inventory"], { PATH: "/usr/bin:/bin" })),
  inventoryH100: inTurn(() => ranks(1, ["inventory"], { PATH: `${fakeH100Tools()}:/usr/bin:/bin` })),
  dcgmCpu: inTurn(() => ranks(1, ["dcgm", "--level", "2", "--timeout", "30"], { PATH: "/usr/bin:/bin" })),
  dcgmH100: inTurn(() => ranks(1, ["dcgm", "--level", "1", "--timeout", "30"], { PATH: `${fakeDcgmi()}:${fakeH100Tools()}:/usr/bin:/bin` })),
  burn: inTurn(() => ranks(2, ["burn", "--duration", "1", "--window", "0.5"])),
  nic: inTurn(() => ranks(2, ["nic", "--tcp-bytes", String(16 * 1024 ** 2), "--tcp-pings", "20"], { PATH: "/usr/bin:/bin" })),
  storage: inTurn(() =>
    ranks(2, [
      "storage",
      "--local",
      join(dir, "storage-r{rank}"),
      "--shared",
      join(dir, "storage-shared"),
      "--size",
      String(1024 ** 2),
      "--runtime",
      "0.3",
      "--checkpoint-size",
      String(1024 ** 2),
    ]),
  ),
  nicLoopback: inTurn(() => ranks(1, ["nic-loopback", "--hcas", "mlx5_0,mlx5_3"], { PATH: "/usr/bin:/bin" })),
};
// a run that fails is reported by its test, not as an unhandled rejection
for (const r of Object.values(runs)) r.catch(() => {});

test("collective: two gloo ranks print an nccl-tests table that parses into the contract", async () => {
  const out = await runs.collective;
  const report = parseNccl(out);
  expect(report.rows.map((r) => r.size)).toEqual([8, 32, 128, 512]);
  expectValid(KINDS.collective, report, "collective");
  // and the kind turns it into metrics (busbw of 512 B on gloo prints as 0.00)
  expect(KINDS.collective.measure(out, { params: undefined }).metrics.complete).toBe(1);
}, 120_000);

test("train: resnet18 on synthetic data, a few steps, prints a GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.train;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.train, result, "train");
  const m = KINDS.train.measure(out, { params: undefined });
  expect(m.metrics.samples_per_s).toBeGreaterThan(0);
  // each rank's own loss, as a part
  expect(m.components!.map((c) => [c.part.type, c.part.rank, Object.keys(c.metrics)])).toEqual([["cpu", 0, ["rank_loss_start", "rank_loss_end"]]]);
}, 120_000);

test("storage: two CPU ranks run fio on their own local paths and the shared one, in the contract", async () => {
  const out = await runs.storage;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.storage, result, "storage");
  const m = KINDS.storage.measure(out, { params: undefined });
  for (const metric of [
    "storage_local_write_gbyte_s_min",
    "storage_local_read_gbyte_s_min",
    "storage_local_randread_iops_min",
    "storage_shared_randread_p99_us_max",
    "storage_checkpoint_write_total_gbyte_s",
  ])
    expect(m.metrics[metric]).toBeGreaterThan(0);
  expect(m.components!.map((c) => [c.part.type, c.part.rank, c.part.name!.split(" ")[0]])).toEqual([
    ["disk", 0, "local"],
    ["disk", 1, "local"],
    ["disk", 0, "shared"],
    ["disk", 1, "shared"],
  ]);
}, 120_000);

test("gemm: two CPU ranks gather their sweeps and checksums into one GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.gemm;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.gemm, result, "gemm");
  const m = KINDS.gemm.measure(out, { params: undefined });
  expect(m.metrics.gemm_fp32_tflops_min).toBeGreaterThan(0);
  expect(m.metrics.gemm_checksum_mismatches).toBe(0);
  expect(m.unmeasured?.gemm_fp8_tflops_min).toMatch(/^\S+ rank 0 \(CPU: .*\): CPU: fp8 not measured; \S+ rank 1 \(CPU: .*\): CPU: fp8 not measured$/);
}, 120_000);

test("membw: two CPU ranks gather their copy and triad into one GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.membw;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.membw, result, "membw");
  const m = KINDS.membw.measure(out, { params: undefined });
  for (const metric of ["membw_copy_gbps_min", "membw_copy_median_min", "membw_triad_gbps_min", "membw_triad_median_min"]) expect(m.metrics[metric]).toBeGreaterThan(0);
  expect(m.details!.membw_copy_gbps_min).toMatch(/^device: cpu \(host memory, no HBM\); \S+ rank [01] \(CPU: .*\): best [\d.]+ GB\/s, median [\d.]+ GB\/s; \S+ rank [01] /);
  expect(m.components!.map((c) => [c.part.type, c.part.rank, Object.keys(c.metrics)])).toEqual([
    ["cpu", 0, ["membw_copy_gbps", "membw_copy_median", "membw_triad_gbps", "membw_triad_median"]],
    ["cpu", 1, ["membw_copy_gbps", "membw_copy_median", "membw_triad_gbps", "membw_triad_median"]],
  ]);
}, 120_000);

test("burn: two CPU ranks under load for a second gather their windows into one GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.burn;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.burn, result, "burn");
  const m = KINDS.burn.measure(out, { params: undefined });
  expect(m.metrics.burn_iter_cv_max).toBeGreaterThan(0);
  expect(m.metrics.burn_stragglers).toBeGreaterThanOrEqual(0);
  // no telemetry in a bare workload run: unmeasured with the reason, never 0
  expect(m.unmeasured!.burn_clock_events_rate).toBe("no telemetry sample in the output (the sampler runs beside local rank 0 of each node)");
  const keys = ["burn_iter_cv", "burn_iter_max_avg", "burn_gemm_tflops", "burn_copy_gbps", "burn_gemm_slowdown_pct", "burn_gpu_checksum_mismatches", ...GPU_LOAD_METRICS];
  expect(m.components!.map((c) => [c.part.type, c.part.rank, Object.keys(c.metrics)])).toEqual([
    ["cpu", 0, keys],
    ["cpu", 1, keys],
  ]);
  // the checksum ran under the load on both ranks and agreed; a CPU rank has no GPU readings, said so
  expect(m.metrics.burn_checksum_mismatches).toBe(0);
  for (const c of m.components!) {
    expect(c.metrics.burn_gpu_checksum_mismatches).toBe(0);
    expect(c.unmeasured!.burn_gpu_temp_max_c).toBe("a CPU rank: no GPU clock, temperature, power or clock event reason to read");
  }
}, 120_000);

test("pcie: two CPU ranks copy host memory, the links unmeasured with the reason, in the contract", async () => {
  const out = await runs.pcie;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.pcie, result, "pcie");
  const m = KINDS.pcie.measure(out, { params: undefined });
  for (const metric of ["pcie_h2d_gbps_min", "pcie_d2h_gbps_min", "pcie_bidir_gbps_min", "pcie_h2d_all_gbps_min", "pcie_d2h_all_gbps_min", "pcie_bidir_all_gbps_min"]) {
    expect(m.metrics[metric]).toBeGreaterThan(0);
    expect(m.details![metric]).toStartWith("device: cpu — host memory copy, no PCIe link crossed; ");
  }
  expect(m.metrics.pcie_link_degraded).toBeNull();
  expect(m.unmeasured!.pcie_link_degraded).toMatch(
    /^\S+ rank 0 \(CPU: .*\): no NVIDIA GPU \(nvidia-smi not found\); \S+ rank 1 \(CPU: .*\): no NVIDIA GPU \(nvidia-smi not found\)$/,
  );
  expect(m.unmeasured!.pcie_replays).toBe(m.unmeasured!.pcie_link_degraded!);
}, 120_000);

test("nvlink: two CPU ranks time both ordered pairs alone and at once into one GPUCHECK_RESULT in the contract; the copy engines skipped with the reason", async () => {
  const out = await runs.nvlink;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.nvlink, result, "nvlink");
  const m = KINDS.nvlink.measure(out, { params: undefined });
  for (const metric of ["nvlink_pair_gbps_min", "nvlink_pair_gbps_median", "nvlink_all_gbps_min"]) {
    expect(m.metrics[metric]).toBeGreaterThan(0);
    expect(m.details![metric]).toStartWith("device: cpu — gloo between processes over TCP loopback (host memory), no NVLink crossed; ");
  }
  const every = ["nvlink_link_gbps", "nvlink_link_all_gbps", "nvlink_ce_gbps", "nvlink_ce_all_gbps"];
  expect(m.components!.map((c) => [c.part.type, c.part.rank, c.part.name?.replace(/CPU: [^)]*/g, "CPU"), Object.keys(c.metrics)])).toEqual([
    ["link", 0, "rank 0 (CPU)→rank 1 (CPU)", every],
    ["link", 1, "rank 1 (CPU)→rank 0 (CPU)", every],
  ]);
  // no copy engine on a CPU: the phase is null with the reason, said once per host, never a pass
  for (const metric of ["nvlink_ce_gbps_min", "nvlink_ce_gbps_median", "nvlink_ce_all_gbps_min", "nvlink_nvbw_read_gbps_min"]) {
    expect(m.metrics[metric]).toBeNull();
    expect(m.unmeasured![metric]).toMatch(/^\S+: device: cpu — no GPU, so no copy engine: the copy-engine phase did not run$/);
  }
}, 120_000);

test("nic: two CPU ranks, no InfiniBand: perftest metrics null with the reason, a TCP stream over lo, in the contract", async () => {
  const out = await runs.nic;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.nic, result, "nic");
  const m = KINDS.nic.measure(out, { params: undefined });
  expect(m.unmeasured!.nic_bw_gbps_min).toBe("no InfiniBand device (/sys/class/infiniband is empty)");
  expect(m.unmeasured!.nic_lat_us_max).toBe("no InfiniBand device (/sys/class/infiniband is empty)");
  expect(m.metrics.nic_tcp_gbyte_s).toBeGreaterThan(0);
  expect(m.details!.nic_tcp_gbyte_s).toMatch(/^device: cpu — TCP over lo \(\S+ 127\.0\.0\.1 → \S+ 127\.0\.0\.1\), no RDMA NIC crossed; 16777216 bytes in /);
}, 120_000);

test("nic-loopback: no InfiniBand here: one reason for the node, in the contract", async () => {
  const out = await runs.nicLoopback;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS["nic-loopback"], result, "nic-loopback");
  const m = KINDS["nic-loopback"].measure(out, { params: undefined });
  expect(m.metrics.nic_loopback_gbps_min).toBeNull();
  expect(m.unmeasured!.nic_loopback_gbps_min).toMatch(/^\S+: no InfiniBand device \(\/sys\/class\/infiniband is empty\)$/);
}, 120_000);

test("inventory on this machine (no GPU, no InfiniBand): every gap null with its reason, in the contract", async () => {
  const out = await runs.inventoryCpu;
  const [result] = taggedLines(out, "RESULT");
  expect((result as { unmeasured: Record<string, string> }).unmeasured.gpus).toBe("nvidia-smi not found");
  expectValid(KINDS.inventory, result, "inventory-cpu");
}, 120_000);

test("inventory of an H100 node (nvidia-smi and ibstat answering from captured outputs) is in the contract", async () => {
  const out = await runs.inventoryH100;
  const [result] = taggedLines(out, "RESULT") as Array<{ gpus: unknown[]; ib_ports: unknown[] }>;
  expect(result!.gpus).toHaveLength(8);
  expect(result!.ib_ports.length).toBeGreaterThan(0);
  expectValid(KINDS.inventory, result, "inventory-h100");
}, 120_000);

test("the contract catches drift: the real train result without samples_per_s fails both validators", async () => {
  const { samples_per_s: _, ...drifted } = taggedLines(await runs.train, "RESULT")[0]!;
  const parsed = RESULTS.train.safeParse(drifted);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join("/")}: ${i.message}`)).toEqual(["samples_per_s: Invalid input: expected number, received undefined"]);
  const file = join(dir, "drifted.json");
  writeFileSync(file, JSON.stringify(drifted));
  expect(schemaErrors(join(root, contractPath("train")), file)).toEqual([`${file}: (top level): 'samples_per_s' is a required property`]);
}, 120_000);

test("dcgm on this machine (no DCGM): every metric null with the reason, in the contract", async () => {
  const out = await runs.dcgmCpu;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.dcgm, result, "dcgm-cpu");
  const m = KINDS.dcgm.measure(out, { params: undefined });
  expect(m.metrics).toEqual({ dcgm_failures: null, dcgm_warnings: null, dcgm_skipped: null });
  expect(m.unmeasured!.dcgm_failures).toStartWith("dcgmi not found on PATH: DCGM is not installed on this node");
}, 120_000);

test("dcgm with a dcgmi printing a real DCGM 4.2.3 failure: the GPU named from nvidia-smi, in the contract", async () => {
  const out = await runs.dcgmH100;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.dcgm, result, "dcgm-h100");
  const m = KINDS.dcgm.measure(out, { params: undefined });
  expect(m.metrics.dcgm_failures).toBe(1);
  const host = (result as { host: string }).host;
  expect(m.details!.dcgm_failures).toStartWith(`${host} GPU 0 (GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1, 00000000:18:00.0): software Fail — DCGM_FR_PERSISTENCE_MODE (29): `);
}, 120_000);
