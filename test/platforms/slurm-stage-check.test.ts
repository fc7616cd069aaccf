// The Slurm node's check of its sbcast stage (/tmp/gpucheck-<job id>, a guessable path), run by
// bash as the batch script's staging step runs it: a stage made fresh is 0700 and used; a symlink,
// a group/other-writable directory, another user's directory or archive is refused with one line
// naming the node and the path, and nothing is unpacked from it. The same attack against a real
// Slurm, as a second user: test/integration/e2e/attacks.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBatchOutput } from "../../plugins/slurm/outcome.ts";
import { STAGE_CHECK } from "../../plugins/slurm/sbatch.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A private scratch dir, an archive beside the stage path (as sbcast leaves it), and the stage path. */
function scene(): { root: string; stage: string } {
  const root = mkdtempSync(join(tmpdir(), "gc-stagecheck-"));
  dirs.push(root);
  const stage = join(root, "gpucheck-4242");
  writeFileSync(`${stage}.tar.gz`, "archive");
  return { root, stage };
}

function check(stage: string): { status: number | null; out: string } {
  const script = [...STAGE_CHECK, `echo staged`].join("\n");
  const r = spawnSync("/bin/bash", ["-c", script, stage], { encoding: "utf8", env: { ...process.env, SLURMD_NODENAME: "node7" } });
  return { status: r.status, out: r.stdout.trim() };
}

const refusal = (path: string, owner: string, mode: string, link = "") =>
  `gpucheck-stage-failed: node7: ${path} is not private to this user (owner ${owner}, mode ${mode}${link}): gpucheck unpacks and runs nothing from it; remove it (or ask the admin of the node to)`;

const me = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim();

describe("the sbcast stage check on a node", () => {
  test("a stage it makes itself is 0700 and used", () => {
    const { stage } = scene();
    expect(check(stage)).toEqual({ status: 0, out: "staged" });
    expect(lstatSync(stage).mode & 0o777).toBe(0o700);
  });

  test("a directory of this user's from an earlier job of the same id is used when private", () => {
    const { stage } = scene();
    mkdirSync(stage, { mode: 0o700 });
    expect(check(stage)).toEqual({ status: 0, out: "staged" });
  });

  test("a symlink planted at the stage path is refused, and its target stays untouched", () => {
    const { root, stage } = scene();
    const target = join(root, "elsewhere");
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, stage);
    const r = check(stage);
    expect(r.status).toBe(1);
    expect(r.out).toBe(refusal(stage, me, "777", ", a symlink"));
    expect(existsSync(join(target, "node7"))).toBe(false);
  });

  test("a directory others can write is refused", () => {
    const { stage } = scene();
    mkdirSync(stage);
    chmodSync(stage, 0o777);
    expect(check(stage)).toEqual({ status: 1, out: refusal(stage, me, "777") });
  });

  test("a group-writable archive is refused", () => {
    const { stage } = scene();
    chmodSync(`${stage}.tar.gz`, 0o664);
    expect(check(stage)).toEqual({ status: 1, out: refusal(`${stage}.tar.gz`, me, "664") });
  });

  // making a file another user owns takes root; CI runs the unit tier as root
  test.skipIf(process.getuid?.() !== 0)("another user's directory at the stage path is refused (as root: chown to nobody)", () => {
    const { stage } = scene();
    mkdirSync(stage, { mode: 0o755 });
    chownSync(stage, 65534, 65534);
    const owner = spawnSync("stat", ["-c", "%U", stage], { encoding: "utf8" }).stdout.trim();
    expect(check(stage)).toEqual({ status: 1, out: refusal(stage, owner, "755") });
    expect(existsSync(join(stage, "node7"))).toBe(false);
  });
});

test("the node's own refusal is what the run says, not the batch script's later summary", () => {
  const line = refusal("/tmp/gpucheck-22", "nobody", "777");
  const report = parseBatchOutput(`${line}\nsrun: error: node7: task 0: Exited with exit code 1\ngpucheck-stage-failed: unpacking on the nodes\n`);
  expect(report.stageFailed).toBe(line.slice("gpucheck-stage-failed: ".length));
});
