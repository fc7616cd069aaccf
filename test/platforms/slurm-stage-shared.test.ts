// Slurm's shared stage (platform.slurm.stageDir) is reused only when it is what the binary carries:
// this user's, writable by nobody else, each file's SHA-256 the binary's. A stale or changed one of
// this user's is replaced; a symlink or another user's is refused in one line and left alone.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workloadHash } from "../../lib/core/assets.ts";
import { stagePath } from "../../plugins/slurm/sbatch.ts";
import { stageShared } from "../../plugins/slurm/stage.ts";

const FILES = new Map([
  ["gpucheck_workload/__init__.py", "X = 1\n"],
  ["gpucheck_workload/kinds/nic.py", "print('nic')\n"],
]);
const HASH = workloadHash(FILES);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function stageDir(): string {
  const d = mkdtempSync(join(tmpdir(), "gc-slurmshared-"));
  dirs.push(d);
  return d;
}

describe("the shared Slurm stage", () => {
  test("made 0755 with files 0644 whatever the umask, reused as is when unchanged", () => {
    const base = stageDir();
    const old = process.umask(0o002);
    try {
      const dir = stageShared(base, HASH, FILES);
      expect(dir).toBe(stagePath(base, HASH));
      expect(lstatSync(dir).mode & 0o777).toBe(0o755);
      expect(lstatSync(join(dir, "gpucheck_workload/kinds/nic.py")).mode & 0o777).toBe(0o644);
      const before = lstatSync(join(dir, "gpucheck_workload/kinds/nic.py")).ino;
      expect(stageShared(base, HASH, FILES)).toBe(dir);
      expect(lstatSync(join(dir, "gpucheck_workload/kinds/nic.py")).ino).toBe(before);
    } finally {
      process.umask(old);
    }
  });

  for (const [what, spoil] of [
    ["a changed file", (d: string) => appendFileSync(join(d, "gpucheck_workload/kinds/nic.py"), "import os\n")],
    ["an added sitecustomize.py", (d: string) => writeFileSync(join(d, "sitecustomize.py"), "print('x')\n", { mode: 0o644 })],
    ["a missing file", (d: string) => rmSync(join(d, "gpucheck_workload/__init__.py"))],
    ["a group-writable directory", (d: string) => chmodSync(join(d, "gpucheck_workload"), 0o775)],
  ] as const) {
    test(`${what}: replaced by the binary's copy`, () => {
      const base = stageDir();
      const dir = stageShared(base, HASH, FILES);
      spoil(dir);
      expect(stageShared(base, HASH, FILES)).toBe(dir);
      expect(readFileSync(join(dir, "gpucheck_workload/kinds/nic.py"), "utf8")).toBe("print('nic')\n");
      expect(readFileSync(join(dir, "gpucheck_workload/__init__.py"), "utf8")).toBe("X = 1\n");
      expect(existsSync(join(dir, "sitecustomize.py"))).toBe(false);
      expect(lstatSync(join(dir, "gpucheck_workload")).mode & 0o777).toBe(0o755);
    });
  }

  test("a symlink at the stage path is refused in one line and left alone", () => {
    const base = stageDir();
    const elsewhere = join(base, "elsewhere");
    mkdirSync(elsewhere);
    const dir = stagePath(base, HASH);
    symlinkSync(elsewhere, dir);
    expect(() => stageShared(base, HASH, FILES)).toThrow(
      `the workload stage ${dir} (platform.slurm.stageDir) is a symlink: gpucheck neither runs from it nor replaces it; remove it, or set platform.slurm.stageDir to a directory of your own`,
    );
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(existsSync(join(elsewhere, "gpucheck_workload"))).toBe(false);
  });

  test("a stage directory that does not exist, or is a file, is refused in one line and not made", () => {
    const missing = join(stageDir(), "not-mounted");
    expect(() => stageShared(missing, HASH, FILES)).toThrow(
      `the stage directory ${missing} (platform.slurm.stageDir) does not exist on this host: it must be a directory every node sees at the same path (a shared file system, mounted here too); mount or create it, or leave stageDir out to copy the workload to each node with sbcast`,
    );
    expect(existsSync(missing)).toBe(false);
    const file = join(stageDir(), "a-file");
    writeFileSync(file, "");
    expect(() => stageShared(file, HASH, FILES)).toThrow(
      `the stage directory ${file} (platform.slurm.stageDir) is not a directory on this host: it must be a directory every node sees at the same path (a shared file system, mounted here too); mount or create it, or leave stageDir out to copy the workload to each node with sbcast`,
    );
  });

  // making a directory another user owns takes root; CI runs the unit tier as root
  test.skipIf(process.getuid?.() !== 0)("another user's stage, even with the right files, is refused (as root: chown to nobody)", () => {
    const base = stageDir();
    const dir = stageShared(base, HASH, FILES);
    chownSync(dir, 65534, 65534);
    expect(() => stageShared(base, HASH, FILES)).toThrow(
      `the workload stage ${dir} (platform.slurm.stageDir) belongs to uid 65534, not to this user (uid 0): gpucheck neither runs from it nor replaces it; remove it, or set platform.slurm.stageDir to a directory of your own`,
    );
    expect(lstatSync(dir).uid).toBe(65534);
  });
});
