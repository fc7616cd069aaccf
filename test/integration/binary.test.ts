// The binary as a new user meets it: copied alone into an empty directory on another machine.
// Needs compiled/gpucheck (npm run test:integration builds it first).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const binary = join(root, "compiled", "gpucheck");

test("compiled/gpucheck was built (npm run build)", () => {
  expect(existsSync(binary), `${binary} is missing`).toBe(true);
});

describe.skipIf(!existsSync(binary))("compiled/gpucheck copied alone into an empty directory", () => {
  const dir = tempDir("gpucheck-alone-");
  const exe = join(dir, "gpucheck");
  copyFileSync(binary, exe);
  spawnSync("chmod", ["+x", exe]);
  const run = (...args: string[]) => spawnSync(exe, args, { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: dir } });

  test("--version", () => {
    const r = run("--version");
    expect(r.status).toBe(0);
    const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
    expect(r.stdout).toMatch(new RegExp(`^gpucheck ${version.replace(/\./g, "\\.")} \\(commit [0-9a-f]{12}(-dirty)?, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\n$`));
  });

  test("list names every built-in suite, kind and platform", () => {
    const r = run("list", "--json");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.suites.map((s: { name: string }) => s.name).sort()).toEqual(["cpu-smoke", "gpu-1x", "h100-8x", "h100-multinode", "h200-8x", "quick"]);
    expect(out.kinds.map((k: { kind: string }) => k.kind)).toEqual(expect.arrayContaining(["collective", "train", "inventory"]));
    expect(out.platforms.map((p: { name: string }) => p.name)).toEqual(["local", "ssh", "slurm", "docker", "k8s"]);
  });

  for (const suite of ["cpu-smoke", "gpu-1x", "h100-8x", "h200-8x", "h100-multinode", "quick"]) {
    test(`validate and plan ${suite}`, () => {
      expect(run("validate", suite).status).toBe(0);
      const r = run("plan", suite, "--json");
      expect(r.status).toBe(0);
      const plan = JSON.parse(r.stdout);
      expect(plan.suite.name).toBe(suite);
      expect(plan.tests.length).toBeGreaterThan(0);
      for (const t of plan.tests) expect(t.launch.args.slice(0, 2)).toEqual(["-m", "gpucheck_workload"]);
    });
  }

  test("parse nccl on every sample gives its expected JSON", () => {
    const fixtures = join(root, "test", "fixtures", "nccl");
    const logs = readdirSync(fixtures).filter((f) => f.endsWith(".txt"));
    expect(logs.length).toBeGreaterThanOrEqual(6);
    for (const log of logs) {
      const expected = join(fixtures, log.replace(/\.txt$/, ".expected.json"));
      if (!existsSync(expected)) continue;
      copyFileSync(join(fixtures, log), join(dir, log));
      const r = run("parse", "nccl", log, "--json");
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(readFileSync(expected, "utf8")));
    }
  });
});
