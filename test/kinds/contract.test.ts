// The contract between the Python workload and this binary: each kind's module runs on CPU here
// (/usr/bin/python3, torch CPU), and what it prints — as the kind's parser reads it — must match the
// kind's result schema, both the zod one (lib/kinds/<kind>/result.ts) and the committed JSON Schema
// (schema/workload-<kind>.schema.json, checked by Python's jsonschema, an implementation not ours).
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import type { AnyKind } from "../../lib/core/kind.ts";
import { KINDS } from "../../lib/kinds/mod.ts";
import { tempDir } from "../tmp.ts";
import { contractPath } from "../../lib/kinds/reference.ts";
import { parseNccl } from "../../lib/parsers/nccl.ts";
import { taggedLines } from "../../lib/parsers/protocol.ts";
import { schemaErrors } from "../report/json-schema.ts";

const root = resolve(import.meta.dir, "../..");
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

/** nvidia-smi and ibstat answering from real H100 captures (workload/tests/fixtures, see its README): their directory. */
function fakeH100Tools(): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const tool = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool("nvidia-smi", `case "$1" in -q) cat "${NODE_SAMPLES}/nvidia-smi-q-h100-8gpu-565.57.01.txt";; nvlink) cat "${NODE_SAMPLES}/nvlink-s-a100-8gpu-space-indent.txt";; esac`);
  tool("ibstat", `cat "${NODE_SAMPLES}/ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"`);
  return bin;
}

/** The result as the kind's parser reads it, valid for the zod schema and for the committed JSON Schema. */
function expectValid(kind: AnyKind, result: unknown, label: string): void {
  const parsed = kind.result.safeParse(result);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join("/")}: ${i.message}`)).toEqual([]);
  const file = join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(result));
  expect(schemaErrors(join(root, contractPath(kind.name)), file)).toEqual([]);
}

// every run starts at once, before the tests: most of their time is importing torch, and the whole file stays under 30 s
const runs = {
  collective: ranks(2, ["collective", "--op", "all_reduce", "--min-bytes", "8", "--max-bytes", "1024", "--factor", "4", "--iters", "2", "--warmup", "1", "--backend", "gloo"]),
  train: ranks(1, ["train", "--model", "resnet18", "--data", "synthetic", "--batch-size", "2", "--steps", "2", "--warmup-steps", "1", "--image-size", "32"]),
  gemm: ranks(2, ["gemm", "--min-size", "64", "--max-size", "128", "--step", "64", "--iters", "2", "--warmup", "1", "--checksum-size", "64"]),
  membw: ranks(2, ["membw", "--size", String(4 * 1024 ** 2), "--iters", "2", "--warmup", "1"]),
  pcie: ranks(2, ["pcie", "--size", String(1024 ** 2), "--iters", "2", "--warmup", "1"], { PATH: "/usr/bin:/bin" }),
  nic: ranks(2, ["nic", "--tcp-bytes", String(16 * 1024 ** 2), "--tcp-pings", "20"], { PATH: "/usr/bin:/bin" }),
  inventoryCpu: ranks(1, ["inventory"], { PATH: "/usr/bin:/bin" }),
  inventoryH100: ranks(1, ["inventory"], { PATH: `${fakeH100Tools()}:/usr/bin:/bin` }),
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
}, 60_000);

test("train: resnet18 on synthetic data, a few steps, prints a GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.train;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.train, result, "train");
  expect(KINDS.train.measure(out, { params: undefined }).metrics.samples_per_s).toBeGreaterThan(0);
}, 60_000);

test("gemm: two CPU ranks gather their sweeps and checksums into one GPUCHECK_RESULT in the contract", async () => {
  const out = await runs.gemm;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.gemm, result, "gemm");
  const m = KINDS.gemm.measure(out, { params: undefined });
  expect(m.metrics.gemm_fp32_tflops_min).toBeGreaterThan(0);
  expect(m.metrics.gemm_checksum_mismatches).toBe(0);
  expect(m.unmeasured?.gemm_fp8_tflops_min).toMatch(/^\S+ rank 0 \(CPU: .*\): CPU: fp8 not measured; \S+ rank 1 \(CPU: .*\): CPU: fp8 not measured$/);
}, 60_000);

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
}, 60_000);

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
}, 60_000);

test("nic: two CPU ranks, no InfiniBand: perftest metrics null with the reason, a TCP stream over lo, in the contract", async () => {
  const out = await runs.nic;
  const [result] = taggedLines(out, "RESULT");
  expectValid(KINDS.nic, result, "nic");
  const m = KINDS.nic.measure(out, { params: undefined });
  expect(m.unmeasured!.nic_bw_gbps_min).toBe("no InfiniBand device (/sys/class/infiniband is empty)");
  expect(m.unmeasured!.nic_lat_us_max).toBe("no InfiniBand device (/sys/class/infiniband is empty)");
  expect(m.metrics.nic_tcp_gbyte_s).toBeGreaterThan(0);
  expect(m.details!.nic_tcp_gbyte_s).toMatch(/^device: cpu — TCP over lo \(\S+ 127\.0\.0\.1 → \S+ 127\.0\.0\.1\), no RDMA NIC crossed; 16777216 bytes in /);
}, 60_000);

test("inventory on this machine (no GPU, no InfiniBand): every gap null with its reason, in the contract", async () => {
  const out = await runs.inventoryCpu;
  const [result] = taggedLines(out, "RESULT");
  expect((result as { unmeasured: Record<string, string> }).unmeasured.gpus).toBe("nvidia-smi not found");
  expectValid(KINDS.inventory, result, "inventory-cpu");
}, 30_000);

test("inventory of an H100 node (nvidia-smi and ibstat answering from captured outputs) is in the contract", async () => {
  const out = await runs.inventoryH100;
  const [result] = taggedLines(out, "RESULT") as Array<{ gpus: unknown[]; ib_ports: unknown[] }>;
  expect(result!.gpus).toHaveLength(8);
  expect(result!.ib_ports.length).toBeGreaterThan(0);
  expectValid(KINDS.inventory, result, "inventory-h100");
}, 30_000);

test("the contract catches drift: the real train result without samples_per_s fails both validators", async () => {
  const { samples_per_s: _, ...drifted } = taggedLines(await runs.train, "RESULT")[0]!;
  const parsed = KINDS.train.result.safeParse(drifted);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join("/")}: ${i.message}`)).toEqual(["samples_per_s: Invalid input: expected number, received undefined"]);
  const file = join(dir, "drifted.json");
  writeFileSync(file, JSON.stringify(drifted));
  expect(schemaErrors(join(root, contractPath("train")), file)).toEqual([`${file}: (top level): 'samples_per_s' is a required property`]);
}, 60_000);
