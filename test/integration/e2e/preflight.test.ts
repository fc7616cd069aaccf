// Preflight as a new user meets it: the binary copied alone into an empty directory, run on this
// GPU-less machine. Each failure stops the run before any test starts, with one exact line naming
// the node, what it found and what the tests need; every test is skipped with that reason in the
// summary, results.json, junit.xml and report.html; exit 3; no certificate even with --sign-key.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { workloadHash } from "../../../lib/core/assets.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { fixture, gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const dir = tempDir("preflight");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const node = hostname();
const HINT = "pass --python /path/to/python3 or set defaults.python in the suite";
const torch = spawnSync("/usr/bin/python3", ["-c", "import torch; print(torch.__version__)"], { encoding: "utf8" }).stdout.trim();

// the binary alone in the directory, as a user copies it; from sources when it was not built
const argv = (() => {
  const [cmd, ...pre] = gpucheckArgv();
  if (pre.length) return [cmd!, ...pre];
  copyFileSync(cmd!, join(dir, "gpucheck"));
  chmodSync(join(dir, "gpucheck"), 0o755);
  return [join(dir, "gpucheck")];
})();
for (const f of ["needs-8-gpus.yaml", "nccl-tests-missing.yaml", "impossible.yaml"]) copyFileSync(fixture(f), join(dir, f));

function run(args: string[], path = "/usr/bin:/bin") {
  const t0 = Date.now();
  const r = spawnSync(argv[0]!, [...argv.slice(1), ...args, ...(args[0] === "suite" ? ["--progress", "none"] : [])], {
    cwd: dir,
    env: { PATH: path, HOME: dir, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { ...r, seconds: (Date.now() - t0) / 1000 };
}

const results = (out: string) => {
  assertJunitValid(join(dir, out, "junit.xml"));
  return JSON.parse(readFileSync(join(dir, out, "results.json"), "utf8"));
};

/** every planned test skipped with `reason`, in every output */
function expectSkipped(out: string, tests: string[], reason: string, stdout: string) {
  const res = results(out);
  expect(res.outcome).toBe("error");
  expect(res.complete).toBe(true);
  expect(res.tests.map((t: { name: string; outcome: string; units: Array<{ message: string }> }) => [t.name, t.outcome, t.units[0]!.message])).toEqual(
    tests.map((t) => [t, "skipped", reason]),
  );
  expect(readFileSync(join(dir, out, "junit.xml"), "utf8")).toContain(`<skipped message="${reason}"`);
  expect(readFileSync(join(dir, out, "report.html"), "utf8")).toContain(reason);
  expect(stdout).toContain(`skipped: ${reason}\n`);
  expect(existsSync(join(dir, out, "logs", tests[0]!))).toBe(false);
  return res;
}

describe("preflight through the binary alone in an empty directory", () => {
  test("cpu-smoke passes preflight with /usr/bin/python3: --preflight-only exits 0 and runs no test", () => {
    const r = run(["suite", "cpu-smoke", "--python", "/usr/bin/python3", "--preflight-only", "--out", "only"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const res = results("only");
    // nothing was judged: the run is skipped (exit 0), never "passed"; the preflight itself passed
    expect(res.outcome).toBe("skipped");
    expect(r.stdout).toStartWith("gpucheck cpu-smoke (local): SKIPPED: 3 skipped\n");
    expect(res.preflight.passed).toBe(true);
    const [n] = res.preflight.nodes;
    expect(n).toMatchObject({ node, hosts: [node], status: "completed", passed: true, problems: [], logs: [`preflight/${node}/rank-0.log`] });
    expect(n.probes.slice(0, 4)).toEqual([
      { probe: "python", python: "/usr/bin/python3", value: expect.stringMatching(/^3\.\d+\.\d+$/), detail: "/usr/bin/python3" },
      { probe: "torch", python: "/usr/bin/python3", value: torch, detail: "built without CUDA" },
      { probe: "torch.cuda.device_count", python: "/usr/bin/python3", value: 0 },
      { probe: "NCCL", python: "/usr/bin/python3", value: false },
    ]);
    const why = "--preflight-only: preflight passed, no test was run";
    expect(res.tests.map((t: { outcome: string; units: Array<{ message: string }> }) => `${t.outcome}: ${t.units[0]!.message}`)).toEqual([
      `skipped: ${why}`,
      `skipped: ${why}`,
      `skipped: ${why}`,
    ]);
    expect(r.stdout).toContain(`Preflight: PASSED on ${node}\n  ${node}: passed: python `);
    expect(readFileSync(join(dir, "only", "report.html"), "utf8")).toContain(`<section id="preflight"><h2>Preflight</h2><p>PASSED on ${node}</p>`);
  }, 60_000);

  test("a Python without torch stops the run at once with the fix; --sign-key signs nothing", () => {
    const venv = join(dir, "venv");
    expect(spawnSync("/usr/bin/python3", ["-m", "venv", "--without-pip", venv]).status).toBe(0);
    expect(spawnSync(argv[0]!, [...argv.slice(1), "keygen", "--out", join(dir, "keys")], { cwd: dir }).status).toBe(0);
    const r = run(["suite", "cpu-smoke", "--python", `${venv}/bin/python3`, "--sign-key", join(dir, "keys", "gpucheck.key"), "--out", "notorch"]);
    expect(r.status).toBe(3);
    expect(r.seconds).toBeLessThan(30);
    expect(r.stderr).toBe("gpucheck: not signed: preflight failed, no test ran\n");
    expect(existsSync(join(dir, "notorch", "certificate.intoto.json"))).toBe(false);
    const why = `PyTorch is not installed for ${venv}/bin/python3 (ModuleNotFoundError: No module named 'torch'), needed by allreduce-gloo, resnet18-fashionmnist: ${HINT}`;
    const res = expectSkipped("notorch", ["inventory", "allreduce-gloo", "resnet18-fashionmnist"], `preflight failed on ${node}: ${why}`, r.stdout);
    expect(res.preflight.nodes[0].problems).toEqual([{ message: why, tests: ["allreduce-gloo", "resnet18-fashionmnist"] }]);
    expect(res.preflight.nodes[0].probes[1]).toEqual({ probe: "torch", python: `${venv}/bin/python3`, value: null, reason: "ModuleNotFoundError: No module named 'torch'" });
    expect(r.stdout).toContain(`Preflight: FAILED on ${node} (1 of 1 node): no test ran\n`);
    expect(r.stdout).toContain(`\n    - ${why}\n`);
  }, 60_000);

  test("an interpreter that does not exist is named, with the fix", () => {
    const r = run(["suite", "impossible.yaml", "--python", "/nonexistent/python3", "--out", "nopython"]);
    expect(r.status).toBe(3);
    expectSkipped(
      "nopython",
      ["allreduce-small"],
      `preflight failed on ${node}: preflight could not run: could not launch: /nonexistent/python3: command not found: ${HINT}`,
      r.stdout,
    );
  }, 60_000);

  test("an 8-GPU test on this GPU-less node stops at once naming the node and 0 GPUs", () => {
    const r = run(["suite", "needs-8-gpus.yaml", "--python", "/usr/bin/python3", "--out", "gpus"]);
    expect(r.status).toBe(3);
    expect(r.seconds).toBeLessThan(30);
    const gpus = `0 GPUs visible to torch ${torch} (built without CUDA), nvidia-smi not found: gpusPerNode 8 needed by allreduce-8gpu`;
    const res = expectSkipped("gpus", ["allreduce-8gpu"], `preflight failed on ${node}: ${gpus}`, r.stdout);
    expect(res.preflight.nodes[0].problems.map((p: { message: string }) => p.message)).toEqual([
      gpus,
      `NCCL is not available in torch ${torch} (torch.distributed.is_nccl_available() is False), needed by allreduce-8gpu (backend nccl)`,
    ]);
    // judged again, a run its preflight stopped is still an error: nothing was measured
    const again = run(["judge", "gpus", "--suite", "gpus", "--out", "gpus-judged"]);
    expect(again.status).toBe(3);
    expect(results("gpus-judged").outcome).toBe("error");
  }, 60_000);

  test("--preflight-only on a failing node exits 3 with the reason", () => {
    const r = run(["suite", "needs-8-gpus.yaml", "--python", "/usr/bin/python3", "--preflight-only", "--out", "gpus-only"]);
    expect(r.status).toBe(3);
    const reason = `--preflight-only: preflight failed on ${node}: 0 GPUs visible to torch ${torch} (built without CUDA), nvidia-smi not found: gpusPerNode 8 needed by allreduce-8gpu`;
    expect(results("gpus-only").tests[0].units[0].message).toBe(reason);
  }, 60_000);

  test("nccl-tests without all_reduce_perf on PATH names the binary and the test", () => {
    // nvidia-smi -L answering with the GPU line of a real H100 capture, so only the binary is missing
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    const capture = join(import.meta.dir, "..", "..", "..", "workload", "tests", "fixtures", "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt");
    copyFileSync(capture, join(dir, "nvlink.txt"));
    writeFileSync(join(bin, "nvidia-smi"), `#!/bin/sh\n[ "$1" = -L ] && exec grep '^GPU ' "${dir}/nvlink.txt"\nexit 2\n`);
    chmodSync(join(bin, "nvidia-smi"), 0o755);
    const r = run(["suite", "nccl-tests-missing.yaml", "--python", "/usr/bin/python3", "--out", "nccl-tests"], `${bin}:/usr/bin:/bin`);
    expect(r.status).toBe(3);
    const why = "nccl-tests binary all_reduce_perf not found on PATH (build NVIDIA/nccl-tests with MPI=1, or use --impl workload), needed by nccl-allreduce";
    const res = expectSkipped("nccl-tests", ["nccl-allreduce"], `preflight failed on ${node}: ${why}`, r.stdout);
    expect(res.preflight.nodes[0].problems).toEqual([{ message: why, tests: ["nccl-allreduce"] }]);
    expect(res.preflight.nodes[0].probes).toContainEqual({ probe: "nvidia-smi -L", value: 1, detail: "1 × NVIDIA H100 80GB HBM3" });
  }, 60_000);

  // Bun's own CLI (`bun mod.ts`, the sources) reads .env by design; the release binary must not
  test.skipIf(gpucheckArgv().length > 1)(
    "a .env and a bunfig.toml in the working directory are not read: the ranks' environment is the caller's, no preload runs",
    () => {
      const project = join(dir, "project");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, ".env"), "CUDA_VISIBLE_DEVICES=7\nNCCL_IB_HCA=mlx5_9\nGPUCHECK_FROM_DOTENV=1\n");
      // Bun's preload: a script the runtime would run before gpucheck's own code
      writeFileSync(join(project, "bunfig.toml"), 'preload = ["./preload.js"]\n');
      writeFileSync(join(project, "preload.js"), `require("node:fs").writeFileSync(${JSON.stringify(join(project, "PRELOADED"))}, "");\n`);
      // the interpreter the ranks start, recording the environment each one is given
      const python = join(project, "python3");
      writeFileSync(python, `#!/bin/sh\nenv > "${project}/env.$$"\nexec /usr/bin/python3 "$@"\n`);
      chmodSync(python, 0o755);
      const r = spawnSync(argv[0]!, [...argv.slice(1), "suite", "cpu-smoke", "--python", python, "--preflight-only", "--out", "run", "--progress", "none"], {
        cwd: project,
        env: { PATH: "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" },
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(r.status).toBe(0);
      const seen = readdirSync(project).filter((f) => f.startsWith("env."));
      expect(seen.length).toBeGreaterThan(0);
      for (const f of seen) expect(readFileSync(join(project, f), "utf8")).not.toMatch(/CUDA_VISIBLE_DEVICES|NCCL_IB_HCA|GPUCHECK_FROM_DOTENV/);
      expect(existsSync(join(project, "PRELOADED"))).toBe(false);
    },
    60_000,
  );

  test("the workload a plan names is the one the sources hash to (the binary's is hashed when it is built)", () => {
    const r = run(["plan", "cpu-smoke", "--platform", "ssh", "--hosts", "h1"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`stage ~/.cache/gpucheck/${workloadHash()}, at most`);
  });
});
