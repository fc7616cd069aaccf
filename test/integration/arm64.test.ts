// The linux-arm64 binary (Grace hosts: GH200, GB200 NVL72) run for real, under Debian's qemu-user-static
// with the arm64 C libraries of libc6-arm64-cross (ci-deps.sh installs both). Copied alone into an empty
// directory, it must answer every command the way the x64 binary built from the same commit does:
// the same plan on every platform byte for byte, and certificates each binary verifies for the other.
// What qemu cannot show: a Grace CPU's own timing, and an arm64 Python on the nodes (the ranks here are
// this machine's x86 Python, as a GB200 tray's would be its own arm64 one).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const x64 = process.env.GPUCHECK_TEST_BINARY ?? join(root, "compiled", "gpucheck");
const arm64Built = join(dirname(x64), "gpucheck-linux-arm64");
const qemu = "/usr/bin/qemu-aarch64-static";
const sysroot = "/usr/aarch64-linux-gnu";
const standin = join(root, "test", "standin", "python3");
const inventorySuite = join(root, "test", "fixtures", "e2e", "inventory-only.yaml");

test("the arm64 binary was built and qemu-user-static with the arm64 libc is installed (scripts/ci-deps.sh)", () => {
  expect(existsSync(arm64Built), `${arm64Built} is missing: npm run build makes it`).toBe(true);
  expect(existsSync(qemu), `${qemu} is missing: apt-get install qemu-user-static`).toBe(true);
  expect(existsSync(join(sysroot, "lib", "ld-linux-aarch64.so.1")), `${sysroot} has no arm64 loader: apt-get install libc6-arm64-cross`).toBe(true);
});

describe("gpucheck-linux-arm64 under qemu, copied alone into an empty directory", () => {
  const dir = tempDir("gpucheck-arm64-");
  const exe = join(dir, "gpucheck");
  copyFileSync(arm64Built, exe);
  spawnSync("chmod", ["+x", exe]);
  const env = { PATH: "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" };
  const arm = (...args: string[]) => spawnSync(qemu, ["-L", sysroot, exe, ...args], { cwd: dir, encoding: "utf8", env, timeout: 120_000 });
  const amd = (...args: string[]) => spawnSync(x64, args, { cwd: dir, encoding: "utf8", env, timeout: 120_000 });

  test("it is an aarch64 executable, not the x64 one renamed", () => {
    const head = readFileSync(exe).subarray(0, 20);
    expect(head.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(head.readUInt16LE(18)).toBe(183); // e_machine EM_AARCH64
  });

  test("--version names the same version and commit as the x64 binary", () => {
    const a = arm("--version");
    expect(a.stderr).toBe("");
    expect(a.status).toBe(0);
    // the build time differs by the seconds between the two compiles; version and commit must not
    const strip = (s: string) => s.replace(/, built \S+\)/, ")");
    expect(strip(a.stdout)).toBe(strip(amd("--version").stdout));
    expect(a.stdout).toMatch(/^gpucheck \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?, built /);
  });

  test("list --json is the x64 binary's, byte for byte", () => {
    const a = arm("list", "--json");
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(amd("list", "--json").stdout);
    expect(JSON.parse(a.stdout).platforms.map((p: { name: string }) => p.name)).toEqual(["local", "ssh", "slurm", "docker", "k8s"]);
  });

  // the Blackwell suites too: gb200-nvl72 is what the arm64 binary is for (on local: one tray, its rack test planned as not runnable)
  const suites = ["cpu-smoke", "gpu-1x", "h100-8x", "h200-8x", "b200-8x", "h100-multinode", "gb200-nvl72", "quick"];
  test("validate passes every built-in suite", () => {
    for (const s of suites) {
      const a = arm("validate", s);
      expect(`${s}: ${a.stderr}`).toBe(`${s}: `);
      expect(a.status).toBe(0);
    }
  });

  // plan equals run is tested per platform elsewhere; here the arm64 build must render the same plan
  const platforms: [string, string[]][] = [
    ["local", []],
    ["ssh", ["--hosts", "node-a,node-b"]],
    ["slurm", []],
    ["docker", ["--image", "registry.example/gpucheck:1"]],
    ["k8s", ["--image", "registry.example/gpucheck:1"]],
  ];
  for (const [platform, extra] of platforms) {
    // every suite on local; elsewhere the two that reach most of each platform's renderer (one node, many nodes)
    const planned = platform === "local" ? suites : ["h100-8x", "h100-multinode"];
    test(`plan on ${platform}: ${planned.join(", ")} render exactly as the x64 binary renders them`, () => {
      for (const s of planned) {
        const args = ["plan", s, "--platform", platform, ...extra, "--json"];
        const a = arm(...args);
        expect(`${s}: ${a.stderr}`).toBe(`${s}: `);
        expect(a.status).toBe(0);
        const x = amd(...args);
        expect(x.status).toBe(0);
        expect(a.stdout.length).toBeGreaterThan(1000);
        // compared as text: a difference in key order or number formatting between the builds is a defect too
        expect(a.stdout === x.stdout, `${s} on ${platform}: the arm64 plan differs from the x64 plan`).toBe(true);
      }
    });
  }

  // the rack as a Grace host plans it: slurm, the suite's own platform, with the 18 trays named
  test("plan on slurm: gb200-nvl72 with its 18 trays renders exactly as the x64 binary renders it", () => {
    const trays = Array.from({ length: 18 }, (_, i) => `tray${String(i + 1).padStart(2, "0")}`);
    const args = ["plan", "gb200-nvl72", "--platform", "slurm", "--hosts", trays.join(","), "--json"];
    const a = arm(...args);
    expect(`${a.stderr}`).toBe("");
    expect(a.status).toBe(0);
    const x = amd(...args);
    expect(x.status).toBe(0);
    expect(JSON.parse(a.stdout).tests[1].isolation.hosts).toEqual(trays);
    expect(a.stdout === x.stdout, "gb200-nvl72 on slurm: the arm64 plan differs from the x64 plan").toBe(true);
  });

  test("each binary runs a suite, signs it, and verifies the other's certificate", () => {
    const armKeys = join(dir, "arm-keys");
    const amdKeys = join(dir, "amd-keys");
    const kg = arm("keygen", "--out", armKeys);
    expect(kg.stderr).toBe("");
    expect(kg.status).toBe(0);
    expect(amd("keygen", "--out", amdKeys).status).toBe(0);

    // the arm64 binary drives the local platform itself (its ranks are the workload's stand-in on this machine's Python)
    const runArm = join(dir, "run-arm");
    const s1 = arm("suite", inventorySuite, "--python", standin, "--out", runArm);
    expect(s1.stderr).toContain("PASSED inventory [vm]: gpu_count 8");
    expect(s1.status).toBe(0);
    const runAmd = join(dir, "run-amd");
    expect(amd("suite", inventorySuite, "--python", standin, "--out", runAmd).status).toBe(0);

    // arm64 signs, x64 verifies
    const c1 = arm("certify", runArm, "--key", join(armKeys, "gpucheck.key"), "--cluster", "grace-lab");
    expect(c1.stderr).toBe("");
    expect(c1.status).toBe(0);
    const v1 = amd("verify", join(runArm, "certificate.intoto.json"), "--key", join(armKeys, "gpucheck.pub"), "--results", runArm, "--expect-cluster", "grace-lab");
    expect(v1.stderr).toBe("");
    expect(v1.status).toBe(0);
    expect(v1.stdout).toContain("verdict:  PASSED\n");

    // x64 signs, arm64 verifies
    expect(amd("certify", runAmd, "--key", join(amdKeys, "gpucheck.key"), "--cluster", "x86-lab").status).toBe(0);
    const v2 = arm("verify", join(runAmd, "certificate.intoto.json"), "--key", join(amdKeys, "gpucheck.pub"), "--results", runAmd, "--expect-cluster", "x86-lab");
    expect(v2.stderr).toBe("");
    expect(v2.status).toBe(0);
    expect(v2.stdout).toContain("in-toto:  certificate.test-result.intoto.json verified: https://in-toto.io/attestation/test-result/v0.1 result PASSED\n");

    // and each refuses the other's certificate under the wrong key
    const wrong = arm("verify", join(runAmd, "certificate.intoto.json"), "--key", join(armKeys, "gpucheck.pub"), "--results", runAmd);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^gpucheck: certificate ".*" is NOT valid: /);
  });
});

// The workload's modules that need no torch (the parsers of nvidia-smi, ibstat, NCCL's output, the
// maths, the data sets) under Debian's own arm64 Python: what a Grace tray's python3 runs. The test
// files listed are those whose tests launch no torch rank (torch is not unpacked for arm64 here).
const pureTests = [
  "test_affinity.py",
  "test_dcgm.py",
  "test_generated.py",
  "test_idx.py",
  "test_nccl_debug.py",
  "test_nccl_layout.py",
  "test_nccl_math.py",
  "test_node_parsers.py",
  "test_pure_helpers.py",
  "test_telemetry_sources.py",
];
describe("the workload's torch-free modules under an arm64 Python (Debian's python3 for arm64, unpacked, under qemu)", () => {
  const cache = join(root, "node_modules", ".cache", "gpucheck-arm64-python");
  const prep = spawnSync("bash", [join(root, "test", "infra", "arm64-python.sh"), cache], { encoding: "utf8", timeout: 300_000 });
  const python = prep.stdout.trim();

  test("the interpreter is an aarch64 one", () => {
    expect(prep.stderr).toBe("");
    expect(prep.status).toBe(0);
    const r = spawnSync(python, ["-c", "import platform, struct; print(platform.machine(), struct.calcsize('P') * 8)"], { encoding: "utf8" });
    expect(r.stdout).toBe("aarch64 64\n");
  });

  test(`pytest passes ${pureTests.length} files of workload/tests with it, their subprocesses on it too`, () => {
    const workload = join(root, "workload");
    const r = spawnSync(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", ...pureTests.map((f) => join("tests", f))], {
      cwd: workload,
      encoding: "utf8",
      timeout: 300_000,
      // pytest is Debian's python3-pytest (architecture all); GPUCHECK_TEST_PYTHON makes the tests' own launches arm64 too
      env: { PATH: "/usr/bin:/bin", PYTHONPATH: "/usr/lib/python3/dist-packages", GPUCHECK_TEST_PYTHON: python, PYTHONDONTWRITEBYTECODE: "1" },
    });
    expect(r.stdout).toMatch(/\n\d+ passed in [\d.]+s/);
    expect(r.stdout).not.toMatch(/failed|error/i);
    expect(r.status).toBe(0);
  });
});
