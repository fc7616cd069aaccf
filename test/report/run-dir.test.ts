// --out is the operator's own: a directory another user made, one others can write to, or a symlink
// is refused with one line naming owner and mode, before anything is written or run in it.
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimRunDir } from "../../lib/report/run-dir.ts";
import { tempDir } from "../tmp.ts";

const root = process.getuid?.() === 0;

describe("claimRunDir: a private run directory", () => {
  test("a new --out is created by gpucheck, mode 0700, whatever the umask", () => {
    const dir = join(tempDir("gpucheck-rundir-"), "a", "run");
    const old = process.umask(0);
    try {
      claimRunDir(dir).release();
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("an existing empty directory of the user's, not writable by others, is used as it is", () => {
    const dir = tempDir("gpucheck-rundir-");
    chmodSync(dir, 0o755);
    claimRunDir(dir).release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a directory others can write to is refused, nothing written", () => {
    const dir = tempDir("gpucheck-rundir-");
    chmodSync(dir, 0o777);
    const me = process.getuid!();
    expect(() => claimRunDir(dir)).toThrow(
      new RegExp(
        `^--out "${dir}" is writable by group or others \\(owner (\\S+ \\(uid ${me}\\)|uid ${me}), mode 0777\\): its contents could be replaced while gpucheck runs them; chmod go-w it, or choose a new --out$`,
      ),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a symbolic link is refused, even to the user's own directory", () => {
    const parent = tempDir("gpucheck-rundir-");
    mkdirSync(join(parent, "real"));
    symlinkSync(join(parent, "real"), join(parent, "link"));
    expect(() => claimRunDir(join(parent, "link"))).toThrow(`--out "${join(parent, "link")}" is a symbolic link (`);
    expect(readdirSync(join(parent, "real"))).toEqual([]);
  });

  test("a regular file is refused in one line", () => {
    const parent = tempDir("gpucheck-rundir-");
    writeFileSync(join(parent, "f"), "x");
    expect(() => claimRunDir(join(parent, "f"))).toThrow(
      `cannot set up the results directory at "${join(parent, "f")}": something that is not a directory is already there (EEXIST): choose another --out, or move that file away`,
    );
  });

  test.skipIf(!root)("(as root) a directory another user owns is refused with its owner and mode", () => {
    const dir = tempDir("gpucheck-rundir-");
    chmodSync(dir, 0o755);
    chownSync(dir, 65534, 65534);
    expect(() => claimRunDir(dir)).toThrow(
      `--out "${dir}" belongs to another user (owner nobody (uid 65534), mode 0755): its contents could run as you; choose a new --out, which gpucheck creates itself`,
    );
    expect(existsSync(join(dir, ".gpucheck.lock"))).toBe(false);
  });
});
