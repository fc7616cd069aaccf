// The binary as a new user meets it: copied alone into an empty directory on another machine.
// Needs compiled/gpucheck (npm run test:integration builds it first).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
    expect(out.suites.map((s: { name: string }) => s.name).sort()).toEqual([
      "b200-8x",
      "b200-8x-quick",
      "cpu-smoke",
      "gb200-nvl72",
      "gpu-1x",
      "h100-8x",
      "h100-8x-quick",
      "h100-multinode",
      "h200-8x",
      "h200-8x-quick",
      "quick",
    ]);
    expect(out.kinds.map((k: { kind: string }) => k.kind)).toEqual(expect.arrayContaining(["collective", "train", "inventory"]));
    expect(out.platforms.map((p: { name: string }) => p.name)).toEqual(["local", "ssh", "slurm", "docker", "k8s"]);
  });

  for (const suite of ["cpu-smoke", "gpu-1x", "h100-8x", "h200-8x", "h100-multinode", "b200-8x", "quick", "h100-8x-quick", "h200-8x-quick", "b200-8x-quick"]) {
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

  // the Blackwell suites on every platform (issue 29): b200-8x is one node; gb200-nvl72 is a rack of
  // 18 trays whose all-reduce is bisected to the tray on failure, so it needs the trays' names
  // before it runs: --hosts on ssh, slurm and docker, platform.k8s.nodes on k8s; local plans one tray
  test("b200-8x, gb200-nvl72 and the quick profiles plan on all five platforms", () => {
    const trays = Array.from({ length: 18 }, (_, i) => `tray${String(i + 1).padStart(2, "0")}`);
    const image = ["--image", "registry.example/gpucheck:1"];
    const plans: [string, string[]][] = [
      ["b200-8x", ["--platform", "local"]],
      ["b200-8x", ["--platform", "ssh", "--hosts", "node-a"]],
      ["b200-8x", ["--platform", "slurm"]],
      ["b200-8x", ["--platform", "docker", ...image]],
      ["b200-8x", ["--platform", "k8s", ...image]],
      ["gb200-nvl72", ["--platform", "ssh", "--hosts", trays.join(",")]],
      ["gb200-nvl72", ["--platform", "slurm", "--hosts", trays.join(",")]],
      ["gb200-nvl72", ["--platform", "docker", "--hosts", trays.join(","), ...image]],
    ];
    const site = join(dir, "site-gb200.yaml");
    writeFileSync(site, `name: acme-gb200\nextends: gb200-nvl72\nplatform:\n  type: k8s\n  k8s: { image: registry.example/gpucheck:1, nodes: [${trays.join(", ")}] }\n`);
    plans.push([site, []]);
    // the quick profiles (issue 28 item 8) plan wherever their full suites do
    for (const quick of ["h100-8x-quick", "h200-8x-quick", "b200-8x-quick"]) {
      for (const [suite, args] of plans.slice(0, 5)) if (suite === "b200-8x") plans.push([quick, args]);
    }
    const counts: Record<string, number> = { "b200-8x": 14, "h100-8x-quick": 13, "h200-8x-quick": 13, "b200-8x-quick": 12 };
    for (const [suite, args] of plans) {
      // an 18-host ssh plan is over spawnSync's default 1 MiB of output
      const r = spawnSync(exe, ["plan", suite, ...args, "--json"], { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: dir }, maxBuffer: 64 * 1024 * 1024 });
      expect(`${suite} ${args.join(" ")}: ${r.stderr}`).toBe(`${suite} ${args.join(" ")}: `);
      const plan = JSON.parse(r.stdout);
      expect(plan.tests.length).toBe(counts[suite] ?? 6);
      for (const t of plan.tests) expect(t.launch.args.slice(0, 2)).toEqual(["-m", "gpucheck_workload"]);
    }
    // local is one tray: its own tests planned, the rack all-reduce planned as not runnable (the run records it as an error)
    const local = run("plan", "gb200-nvl72", "--platform", "local");
    expect([local.status, local.stderr]).toEqual([0, ""]);
    expect(local.stdout).toContain(
      '\n   not runnable on platform local: test "mnnvl-allreduce" needs its 18 nodes on hosts of their own ("onFailure: isolate" names the node behind a failure), and platform "local" runs every node on this one machine: not run, recorded as an error so the run cannot pass; run it on platform ssh, slurm or docker with 18 hosts in --hosts, or k8s with 18 hosts in platform.k8s.nodes in the suite\n',
    );
    const slurm = run("plan", "gb200-nvl72", "--platform", "slurm");
    expect([slurm.status, slurm.stderr]).toEqual([
      2,
      'gpucheck: test "mnnvl-allreduce" has "onFailure: isolate", which needs the run\'s hosts before it starts, and platform "slurm" learns its nodes only at run time: give its 18 hosts with --hosts\n',
    ]);
  });

  // a node without a GPU driver (PATH holds no nvidia-smi, as on this CPU machine): refused before anything runs
  test("suite auto refuses a node with no GPU, in one line, exit 2, writing nothing", () => {
    const r = spawnSync(exe, ["suite", "auto"], { cwd: dir, encoding: "utf8", env: { PATH: tempDir("gpucheck-no-nvidia-smi-"), HOME: dir } });
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "gpucheck: suite auto: no GPU on this node (nvidia-smi is not on PATH): no built-in suite fits; run it on a GPU node, or name a suite (gpucheck list) or write one (docs/writing-suites.md)\n",
    );
    expect(r.status).toBe(2);
    expect(existsSync(join(dir, "gpucheck-results"))).toBe(false);
  });

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
