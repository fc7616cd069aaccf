// The ssh stage on a host is used only when it is what the binary carries: the node's own check
// (scripts.ts staged_ok, run by /bin/sh here as on a host) recomputes the workload hash from the
// staged files and checks owner and mode. A stale or modified stage of this user's is replaced; a
// symlink or another user's directory is refused in one line and never run or replaced. The same
// against a real sshd, as a second user: test/integration/e2e/attacks.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workloadHash } from "../../lib/core/assets.ts";
import { prepareScript, type StagePaths, stageScript } from "../../plugins/_shared/ssh/scripts.ts";
import { tarFiles } from "../../plugins/_shared/tar.ts";

// two packages whose names sort differently by locale and by byte: the hash is byte order
const FILES = new Map([
  ["gpucheck_workload/__init__.py", "X = 1\n"],
  ["gpucheck_workload/kinds/nic.py", "print('nic')\n"],
  ["gpucheck_workload/nic_p2p.py", "print('p2p')\n"],
  ["gpucheck_workload/sub/deep.py", "é = 'utf-8'\n"],
]);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scene(): { root: string; stage: StagePaths; dir: string } {
  const root = mkdtempSync(join(tmpdir(), "gc-sshstage-"));
  dirs.push(root);
  const stage = { base: join(root, "cache"), hash: workloadHash(FILES) };
  return { root, stage, dir: join(stage.base, stage.hash) };
}

const sh = (script: string, input?: Uint8Array) =>
  spawnSync("/bin/sh", ["-c", script, "gpucheck-test"], { input, encoding: "utf8", env: { ...process.env, SSH_CONNECTION: "10.0.0.1 2222 10.0.0.2 22" } });
const staged = (stage: StagePaths) => /^gpucheck-staged (yes|no)$/m.exec(sh(prepareScript(stage, "sh", false)).stdout)?.[1];
const stageIt = (stage: StagePaths) => sh(stageScript(stage), tarFiles(FILES));

describe("the ssh stage is what the binary carries", () => {
  test("a fresh stage hashes to its name and is used; nobody else can write in it", () => {
    const { stage, dir } = scene();
    expect(staged(stage)).toBe("no");
    expect(stageIt(stage).status).toBe(0);
    expect(staged(stage)).toBe("yes");
    expect(lstatSync(dir).mode & 0o022).toBe(0);
    expect(readFileSync(join(dir, "gpucheck_workload/sub/deep.py"), "utf8")).toBe("é = 'utf-8'\n");
  });

  test("Python's __pycache__ in the stage does not make it stale", () => {
    const { stage, dir } = scene();
    stageIt(stage);
    mkdirSync(join(dir, "gpucheck_workload/__pycache__"), { mode: 0o755 });
    writeFileSync(join(dir, "gpucheck_workload/__pycache__/nic.cpython-311.pyc"), "bytecode", { mode: 0o644 });
    expect(staged(stage)).toBe("yes");
  });

  for (const [what, spoil] of [
    ["a modified file", (dir: string) => appendFileSync(join(dir, "gpucheck_workload/kinds/nic.py"), "import os; os.system('touch /tmp/pwned')\n")],
    ["an added file", (dir: string) => writeFileSync(join(dir, "gpucheck_workload/sitecustomize.py"), "print('extra')\n", { mode: 0o644 })],
    ["a removed file", (dir: string) => rmSync(join(dir, "gpucheck_workload/nic_p2p.py"))],
    ["a file others can write", (dir: string) => chmodSync(join(dir, "gpucheck_workload/kinds/nic.py"), 0o666)],
    ["a stage directory others can write", (dir: string) => chmodSync(dir, 0o777)],
    ["no .complete (an interrupted copy)", (dir: string) => rmSync(join(dir, ".complete"))],
  ] as const) {
    test(`${what}: not used, and replaced by the binary's copy`, () => {
      const { stage, dir } = scene();
      stageIt(stage);
      spoil(dir);
      expect(staged(stage)).toBe("no");
      const r = stageIt(stage);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(staged(stage)).toBe("yes");
      expect(readFileSync(join(dir, "gpucheck_workload/kinds/nic.py"), "utf8")).toBe("print('nic')\n");
      expect(existsSync(join(dir, "gpucheck_workload/sitecustomize.py"))).toBe(false);
    });
  }

  test("a symlink at the stage path is refused in one line, never run from nor replaced", () => {
    const { root, stage, dir } = scene();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(stage.base, { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, dir);
    expect(staged(stage)).toBe("no");
    const r = stageIt(stage);
    expect(r.status).toBe(1);
    const me = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim();
    expect(r.stderr).toBe(`gpucheck: the stage ${dir} is not this user's own (owner ${me}, a symlink): gpucheck neither runs from it nor replaces it; remove it\n`);
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(existsSync(join(elsewhere, "gpucheck_workload"))).toBe(false);
  });

  // making a directory another user owns takes root; CI runs the unit tier as root
  test.skipIf(process.getuid?.() !== 0)("another user's stage with the right content is refused, not run (as root: chown to nobody)", () => {
    const { stage, dir } = scene();
    stageIt(stage);
    spawnSync("chown", ["-R", "65534:65534", dir]);
    chownSync(dir, 65534, 65534);
    expect(staged(stage)).toBe("no");
    const r = stageIt(stage);
    expect(r.status).toBe(1);
    const owner = spawnSync("stat", ["-c", "%U", dir], { encoding: "utf8" }).stdout.trim();
    expect(r.stderr).toBe(`gpucheck: the stage ${dir} is not this user's own (owner ${owner}): gpucheck neither runs from it nor replaces it; remove it\n`);
    expect(lstatSync(dir).uid).toBe(65534);
  });
});
