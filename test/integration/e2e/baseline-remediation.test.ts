// Issue 28 items 2 and 6 as a new user meets them: the binary copied alone into an empty directory runs
// an inventory test on this machine with `nvidia-smi` and `ibstat` answering from real H100 captures
// (workload/tests/fixtures, sources there); `gpucheck baseline capture` learns the baseline from that
// run; the suite judged again with a baseline one VBIOS ahead fails, naming every GPU with both
// versions, with the remediation (reflash firmware) in results.json, the summary and junit.xml, and the
// failed node's evidence bundle in the run directory.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const fixtures = join(import.meta.dir, "..", "..", "..", "workload", "tests", "fixtures");
const dir = tempDir("baseline");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setUp(): { argv: string[]; env: Record<string, string> } {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  copyFileSync(join(fixtures, "nvidia-smi-q-h100-8gpu-565.57.01.txt"), join(dir, "q.txt"));
  copyFileSync(join(fixtures, "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt"), join(dir, "nvlink.txt"));
  copyFileSync(join(fixtures, "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"), join(dir, "ibstat.txt"));
  writeFileSync(join(bin, "nvidia-smi"), `#!/bin/sh\ncase "$1" in\n  -q) cat "${dir}/q.txt" ;;\n  *) exit 2 ;;\nesac\n`);
  writeFileSync(join(bin, "ibstat"), `#!/bin/sh\ncat "${dir}/ibstat.txt"\n`);
  for (const f of ["bin/nvidia-smi", "bin/ibstat"]) chmodSync(join(dir, f), 0o755);
  const [cmd, ...pre] = gpucheckArgv();
  let argv = [cmd!, ...pre];
  if (pre.length === 0) {
    copyFileSync(cmd!, join(dir, "gpucheck"));
    chmodSync(join(dir, "gpucheck"), 0o755);
    argv = ["./gpucheck"];
  }
  return { argv, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, NO_COLOR: "1" } };
}

const suite = (baseline: string) => `name: baseline-h100
tests:
  - name: inventory
    kind: inventory
    inventory:
      hcas: [mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11]
${baseline}
    expect:
      gpu_count: { min: 8 }
      baseline_mismatches: { max: 0 }
`;

describe("the firmware baseline through the binary", () => {
  test("captured from a golden run, a VBIOS behind it fails on every GPU with both versions and the remediation", () => {
    const { argv, env } = setUp();
    const run = (args: string[]) => spawnSync(argv[0]!, [...argv.slice(1), ...args], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
    // the golden run: no baseline yet, so baseline_mismatches says why it is not measured
    writeFileSync(join(dir, "golden.yaml"), suite(""));
    const golden = run(["suite", "golden.yaml", "--python", "/usr/bin/python3", "--out", "golden", "--progress", "none"]);
    expect(golden.stdout).toContain("baseline_mismatches");

    const cap = run(["baseline", "capture", "golden", "--out", "baseline.yaml"]);
    expect(cap.stderr).toBe("");
    expect(cap.status).toBe(0);
    expect(cap.stdout).toMatch(/^baseline of \S+: \d+ fields written to baseline\.yaml; not captured: .*nic_psid/);
    const yaml = readFileSync(join(dir, "baseline.yaml"), "utf8");
    expect(yaml).toContain('  driver: "565.57.01"\n');
    const vbios = /^ {2}vbios: "([^"]+)"$/m.exec(yaml)![1]!;
    // PSID: ibstat does not print it, and this machine has no sysfs HCA to read it from
    expect(yaml).toContain("  # nic_psid: not captured:");

    // the same node against a baseline one VBIOS ahead
    const block = yaml
      .split("\n")
      .filter((l) => /^ {2}\w+: "/.test(l))
      .map((l) => `      ${l.replace(vbios, "96.00.99.00.01")}`);
    writeFileSync(join(dir, "ahead.yaml"), suite(`      baseline:\n${block.join("\n")}`));
    const ahead = run(["suite", "ahead.yaml", "--python", "/usr/bin/python3", "--out", "ahead", "--progress", "none"]);
    if (ahead.status !== 1) console.error(ahead.stdout, ahead.stderr);
    expect(ahead.status).toBe(1);
    const res = JSON.parse(readFileSync(join(dir, "ahead", "results.json"), "utf8"));
    const check = res.tests[0].units[0].verdict.checks.find((c: { metric: string }) => c.metric === "baseline_mismatches");
    expect(check.measured).toBe(8);
    expect(check.message).toContain(`GPU 7 (00000000:DB:00.0, serial `);
    expect(check.message).toContain(`: vbios ${vbios} ≠ 96.00.99.00.01 (the baseline)`);
    expect(check.remediation.class).toBe("reflash-firmware");
    expect(check.remediation.source).toContain("https://");
    expect(ahead.stdout).toContain("Remediation (docs/remediation.md):");
    expect(ahead.stdout).toContain("inventory: reflash-firmware: flash the firmware the baseline names:");
    const junit = readFileSync(join(dir, "ahead", "junit.xml"), "utf8");
    expect(junit).toContain("remediation (reflash-firmware): flash the firmware the baseline names:");

    // the failed node's evidence bundle: in the run directory, listed with what it holds and what it could not collect
    const host = res.tests[0].units[0].hosts[0];
    expect(res.evidence).toHaveLength(1);
    const ev = res.evidence[0];
    expect(ev.node).toBe(host);
    expect(ev.file).toBe(`evidence/${host}.tar.gz`);
    const archive = statSync(join(dir, "ahead", ev.file));
    expect(archive.size).toBe(ev.bytes);
    expect(archive.mode & 0o777).toBe(0o600);
    expect(ev.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(ev.collected).toEqual(expect.arrayContaining(["MANIFEST.txt", "nvidia-smi-q.txt", "ibstat.txt"]));
    expect(ev.collected.some((f: string) => f.startsWith("logs/"))).toBe(true);
    expect(ev.missing).toContainEqual({ item: "iblinkinfo.txt", why: `iblinkinfo is not installed on ${host}` });
    expect(ev.missing).toContainEqual({ item: "nvidia-smi-topo-m.txt", why: "nvidia-smi topo -m exited 2: " });
  }, 240_000);
});
