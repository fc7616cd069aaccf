// No GPU work passes on a CPU (issue 26 item 1), as a new user meets it: the binary copied alone into
// an empty directory runs h100-8x's per-GPU tests on this GPU-less machine. The node's preflight
// answers as a node whose 8 GPUs were there at preflight and are gone when the tests run (the
// "CUDA fails after the preflight" case of the issue); everything after it is the real workload under
// /usr/bin/python3. The plan fixed the backend from the suite (gpusPerNode 8 → nccl), so every rank
// stops with its own error naming the rank and node, and every test is an error, never a CPU pass.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const dir = tempDir("gpu-on-cpu");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const node = hostname();
const torch = spawnSync("/usr/bin/python3", ["-c", "import torch; print(torch.__version__)"], { encoding: "utf8" }).stdout.trim();

const argv = (() => {
  const [cmd, ...pre] = gpucheckArgv();
  if (pre.length) return [cmd!, ...pre];
  copyFileSync(cmd!, join(dir, "gpucheck"));
  chmodSync(join(dir, "gpucheck"), 0o755);
  return [join(dir, "gpucheck")];
})();

// the preflight of a node with 8 H100s and NCCL (the GPUs vanish before the tests: nothing else is faked)
const python = join(dir, "python3");
const preflight = {
  hostname: node,
  interpreters: {
    [python]: {
      executable: python,
      version: "3.11.2",
      torch,
      torch_cuda: "12.4",
      cuda_available: true,
      cuda_device_count: 8,
      cuda_devices: Array.from({ length: 8 }, () => "NVIDIA H100 80GB HBM3"),
      nccl_available: true,
    },
  },
  tools: {},
};
writeFileSync(
  python,
  ["#!/bin/sh", `case " $* " in *" preflight "*) echo 'GPUCHECK_RESULT ${JSON.stringify(preflight)}'; exit 0 ;; esac`, 'exec /usr/bin/python3 "$@"', ""].join("\n"),
);
chmodSync(python, 0o755);

const GPU_TESTS = ["hbm-bandwidth", "pcie-bandwidth", "gemm", "burn", "nvlink-bandwidth"];
writeFileSync(
  join(dir, "suite.yaml"),
  [
    "name: h100-8x-gpus-gone",
    "extends: h100-8x",
    `remove: [inventory, nvlink-allreduce, nvlink-ring-allreduce, ib-allreduce, resnet18-fashionmnist, resnet50-synthetic, transformer-bandwidth, dcgm-diag]`,
    `defaults: { python: ${python}, timeout: 3m }`,
    "",
  ].join("\n"),
);

describe("h100-8x's GPU tests on CPU ranks", () => {
  test("every rank of every test is an error naming the rank and the node; the run exits 3", () => {
    const t0 = Date.now();
    const r = spawnSync(argv[0]!, [...argv.slice(1), "suite", "suite.yaml", "--out", "out", "--progress", "none"], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 600_000,
    });
    console.log(`gpu-on-cpu: ${(Date.now() - t0) / 1000} s`);
    expect(r.status).toBe(3);
    const res = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8"));
    expect(res.preflight.passed).toBe(true);
    expect(res.tests.map((t: { name: string; outcome: string }) => [t.name, t.outcome])).toEqual([...GPU_TESTS, "nic-loopback"].map((n) => [n, "error"]));
    // the ib_write_bw loopback needs no torch: it ran, found no HCA here, and says so: unmeasured, an error
    const loop = res.tests.find((t: { name: string }) => t.name === "nic-loopback");
    expect(loop.units[0].measurement.metrics.nic_loopback_gbps_min).toBeNull();
    expect(loop.units[0].measurement.unmeasured.nic_loopback_gbps_min).toBe(`${node}: no InfiniBand device (/sys/class/infiniband is empty)`);
    expect(loop.units[0].verdict.reason).toBe(`nic_loopback_gbps_min unmeasured: ${node}: no InfiniBand device (/sys/class/infiniband is empty) (expected ≥ 380 Gb/s)`);
    for (const t of res.tests.filter((t: { name: string }) => t.name !== "nic-loopback")) {
      // the command each rank ran carries the backend the plan chose from gpusPerNode
      expect(t.launch.command.join(" ")).toContain("-m gpucheck_workload --inventory --telemetry-interval 0.5 --backend nccl ");
      const unit = t.units[0];
      expect(unit.measurement ?? null).toBeNull();
      for (let rank = 0; rank < 8; rank++) {
        const log = readFileSync(join(dir, "out", "logs", t.name, unit.unit, `rank-${rank}.log`), "utf8");
        expect(log).toContain(
          `gpucheck-workload: error: rank ${rank} on ${node}: the suite asks for GPUs (gpusPerNode > 0, backend nccl planned) but torch ${torch} sees none ` +
            "(torch.cuda.is_available() is False): no GPU work runs on a CPU; check the NVIDIA driver and CUDA_VISIBLE_DEVICES on this node",
        );
      }
      expect(unit.verdict.reason).toStartWith("crashed before reporting results: ");
      expect(unit.verdict.reason).toContain(`on ${node}: the suite asks for GPUs`);
    }
    // the summary's table: every test ERROR, none PASS
    for (const name of [...GPU_TESTS, "nic-loopback"]) expect(r.stdout).toMatch(new RegExp(`^${name} +\\S+ +ERROR `, "m"));
    expect(r.stdout).toContain(`ERROR: ${GPU_TESTS.length + 1} errors`);
  }, 620_000);
});
