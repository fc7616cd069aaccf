// A results directory holds one run: `--out` never mixes a second run into it, --force moves the old
// one aside whole, and a run already writing there turns a second one away at once.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, gpucheck, gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const dirs: string[] = [];
const scratch = () => {
  const d = tempDir("rundir");
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const run = (out: string, ...extra: string[]) => gpucheck(["suite", fixture("inventory-only.yaml"), "--out", out, "--progress", "none", ...extra], { timeoutMs: 120_000 });

describe("--out", () => {
  test("a directory holding a run is refused, exit 2, nothing touched; --force moves it aside", () => {
    const parent = scratch();
    const out = join(parent, "run");
    expect(run(out).status).toBe(0);
    const first = readFileSync(join(out, "results.json"), "utf8");
    const again = run(out);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(
        `^--out "${out}" already holds a run \\(suite "e2e-inventory-only", started [^)]+\\): nothing was touched; choose another --out, or add --force to move that run aside\\n$`,
      ),
    );
    expect(readFileSync(join(out, "results.json"), "utf8")).toBe(first);
    const forced = run(out, "--force", "--progress", "plain");
    expect(forced.status).toBe(0);
    const moved = readdirSync(parent).filter((f) => f.startsWith("run.replaced-"));
    expect(moved).toHaveLength(1);
    expect(readFileSync(join(parent, moved[0]!, "results.json"), "utf8")).toBe(first);
    expect(forced.stderr).toContain(`--force: the run that was in ${out} is now in ${join(parent, moved[0]!)}`);
    expect(existsSync(join(out, ".gpucheck.lock"))).toBe(false);
  }, 300_000);

  test("a directory a live run holds is refused at once; a lock left by a killed run is not", () => {
    const out = join(scratch(), "busy");
    mkdirSync(out);
    writeFileSync(join(out, ".gpucheck.lock"), `${process.pid} 2026-01-01T00:00:00.000Z\n`);
    const busy = run(out);
    expect(busy.status).toBe(2);
    expect(busy.stderr).toBe(`--out "${out}" is in use by another gpucheck run (pid ${process.pid}, started 2026-01-01T00:00:00.000Z): wait for it, or choose another --out\n`);
    // a pid that cannot be alive: the lock of a run that was killed -9
    writeFileSync(join(out, ".gpucheck.lock"), "2147483646 2026-01-01T00:00:00.000Z\n");
    expect(run(out).status).toBe(0);
  }, 300_000);
});

describe("a results directory that fills up", () => {
  const root = process.getuid?.() === 0;
  // a real full file system: a 20 KiB tmpfs holds the run's first files and not its first result
  test.skipIf(!root)(
    "one line naming the file, exit 3, the previous results.json intact, no temporary file left",
    () => {
      const mnt = scratch();
      const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=20k", "tmpfs", mnt]);
      expect(mount.exitCode).toBe(0);
      try {
        const out = join(mnt, "run");
        const r = run(out);
        expect(r.status).toBe(3);
        // which file meets the full disk first depends on their sizes: the line names it
        const file = r.stderr.match(/^gpucheck: cannot write \S+\/([^/\s]+): /)?.[1];
        expect(r.stderr).toBe(
          `gpucheck: cannot write ${out}/${file}: no space left on the device (ENOSPC), after 0 of ${r.stderr.match(/of (\d+) bytes/)?.[1]} bytes; ${file === "results.json" ? "the previous results.json is intact" : `no ${file} was written`}: free space there (df "${out}") and run gpucheck again\n`,
        );
        expect(r.stderr).not.toContain("    at ");
        // what is on disk is the run written ahead: its test unfinished, the run never ended, no pass
        const onDisk = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
        expect(onDisk.tests.map((t: { outcome: string }) => t.outcome)).toEqual(["unfinished"]);
        expect(onDisk.endedAt).toBeNull();
        expect(readdirSync(out).filter((f) => f.endsWith(".tmp") || f === ".gpucheck.lock")).toEqual([]);
      } finally {
        Bun.spawnSync(["umount", mnt]);
      }
    },
    300_000,
  );
});

describe("a results directory stands alone", () => {
  test("suite.resolved.yaml carries every extends with origins: validate and judge work on a copy of the directory alone", () => {
    const src = scratch();
    writeFileSync(
      join(src, "base.yaml"),
      "name: base\nplatform: { type: local }\ndefaults: { python: /usr/bin/python3, gpusPerNode: 0, ranksPerNode: 1, env: { NCCL_DEBUG: WARN } }\ntests:\n  - name: inventory\n    kind: inventory\n",
    );
    writeFileSync(join(src, "site.yaml"), "name: site\nextends: ./base.yaml\ndefaults:\n  env: { NCCL_IB_TIMEOUT: 1.10 }\n");
    const out = join(src, "run");
    const r = gpucheck(["suite", "site.yaml", "--out", out, "--progress", "none"], { cwd: src, timeoutMs: 120_000 });
    expect(r.status).toBe(0);
    const resolved = readFileSync(join(out, "suite.resolved.yaml"), "utf8");
    expect(resolved).toContain('NCCL_IB_TIMEOUT: "1.10" # site.yaml:4');
    expect(resolved).toContain("kind: inventory # base.yaml:6");
    expect(resolved).not.toContain("extends:");
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(res.tests[0].launch.env).toEqual({ NCCL_DEBUG: "WARN", NCCL_IB_TIMEOUT: "1.10" });
    expect(res.tests[0].launch.command.slice(0, 4)).toEqual(["/usr/bin/python3", "-m", "gpucheck_workload", "inventory"]);
    // the directory copied somewhere without base.yaml
    const copy = join(scratch(), "copied");
    Bun.spawnSync(["cp", "-r", out, copy]);
    const v = gpucheck(["validate", copy], { cwd: scratch() });
    expect(v.status).toBe(0);
    expect(v.stdout).toContain(`valid: suite "site"`);
    const j = gpucheck(["judge", copy, "--suite", copy, "--out", `${copy}-again`], { cwd: scratch() });
    expect(j.status).toBe(0);
  }, 300_000);
});

describe("--out on a shared host: another user's directory runs nothing as the operator", () => {
  // what another user leaves for the operator: their directory, open to all, with a workload/ whose
  // sitecustomize.py any Python started from there imports first, and symlinks where gpucheck writes
  const planted = () => {
    const parent = scratch();
    chmodSync(parent, 0o755);
    const out = join(parent, "shared-out");
    mkdirSync(join(out, "workload"), { recursive: true });
    writeFileSync(join(out, "workload", "sitecustomize.py"), `open(${JSON.stringify(join(out, "PWNED"))}, "w").write("ran")\n`);
    symlinkSync("/etc", join(out, "preflight"));
    for (const p of [out, join(out, "workload"), join(out, "workload", "sitecustomize.py")]) chownSync(p, 65534, 65534);
    lchownSync(join(out, "preflight"), 65534, 65534);
    return out;
  };

  test.skipIf(process.getuid?.() !== 0)(
    "(as root) a directory nobody made, mode 0777, is refused in one line and its code never runs",
    () => {
      const out = planted();
      chmodSync(out, 0o777);
      const r = run(out);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `--out "${out}" belongs to another user (owner nobody (uid 65534), mode 0777): its contents could run as you; choose a new --out, which gpucheck creates itself\n`,
      );
      expect(existsSync(join(out, "PWNED"))).toBe(false);
      expect(readdirSync(out).sort()).toEqual(["preflight", "workload"]);
    },
    120_000,
  );

  test("a symlink in place of --out is refused, and nothing is written where it points", () => {
    const parent = scratch();
    mkdirSync(join(parent, "target"));
    symlinkSync(join(parent, "target"), join(parent, "out"));
    const r = run(join(parent, "out"));
    expect(r.status).toBe(2);
    expect(r.stderr).toStartWith(`--out "${join(parent, "out")}" is a symbolic link (`);
    expect(readdirSync(join(parent, "target"))).toEqual([]);
  }, 120_000);
});

describe("the run's modes are gpucheck's, not the umask's", () => {
  const modes = (dir: string) => {
    const seen = new Set<string>();
    const walk = (p: string) => {
      const st = lstatSync(p);
      seen.add(`${st.isDirectory() ? "dir" : "file"} ${(st.mode & 0o777).toString(8)}`);
      if (st.isDirectory()) for (const f of readdirSync(p)) walk(join(p, f));
    };
    walk(dir);
    return [...seen].sort();
  };
  // umask 000 would leave every file 0666 to anyone on the host; gpucheck sets each mode itself
  const runWithUmask0 = (out: string, ...extra: string[]) => {
    const [cmd, ...pre] = gpucheckArgv();
    const argv = [cmd!, ...pre, "suite", fixture("inventory-only.yaml"), "--out", out, "--progress", "none", ...extra].map((a) => `'${a}'`).join(" ");
    return spawnSync("/bin/sh", ["-c", `umask 000; exec ${argv}`], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  };

  test("by default the run is the user's alone: directories 0700, files 0600", () => {
    const out = join(scratch(), "run");
    expect(runWithUmask0(out).status).toBe(0);
    expect(modes(out)).toEqual(["dir 700", "file 600"]);
  }, 120_000);

  test("--group-readable: the group reads it, never writes it: directories 0750, files 0640", () => {
    const out = join(scratch(), "run");
    expect(runWithUmask0(out, "--group-readable").status).toBe(0);
    expect(modes(out)).toEqual(["dir 750", "file 640"]);
  }, 120_000);
});
