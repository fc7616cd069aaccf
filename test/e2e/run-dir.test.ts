// A results directory holds one run: `--out` never mixes a second run into it, --force moves the old
// one aside whole, and a run already writing there turns a second one away at once.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, gpucheck, tempDir } from "./cli.ts";

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
    expect(again.stderr).toMatch(new RegExp(`^--out "${out}" already holds a run \\(suite "e2e-inventory-only", started [^)]+\\): nothing was touched; choose another --out, or add --force to move that run aside\\n$`));
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
  // a real full file system: a 16 KiB tmpfs holds the run's first files and not its first result
  test.skipIf(!root)("one line naming the file, exit 3, the previous results.json intact, no temporary file left", () => {
    const mnt = scratch();
    const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mnt]);
    expect(mount.exitCode).toBe(0);
    try {
      const out = join(mnt, "run");
      const r = run(out);
      expect(r.status).toBe(3);
      expect(r.stderr).toBe(`gpucheck: cannot write ${out}/results.json: no space left on the device (ENOSPC), after 0 of ${r.stderr.match(/of (\d+) bytes/)?.[1]} bytes; the previous results.json is intact\n`);
      expect(r.stderr).not.toContain("    at ");
      expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8")).tests).toEqual([]);
      expect(readdirSync(out).filter((f) => f.endsWith(".tmp") || f === ".gpucheck.lock")).toEqual([]);
    } finally {
      Bun.spawnSync(["umount", mnt]);
    }
  }, 300_000);
});
