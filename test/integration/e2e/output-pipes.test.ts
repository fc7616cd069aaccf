// Every command's whole output reaches a slow reader, a file and a full disk says so: the process
// used to exit before a pipe had drained (190 kB of `plan --json` arrived as 65,536 bytes, exit 0).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { gpucheckArgv } from "../../e2e/cli.ts";

const root = join(import.meta.dir, "..", "..", "..");
const ncclDir = join(root, "test", "fixtures", "nccl");
const biggestLog = readdirSync(ncclDir)
  .filter((f) => f.endsWith(".txt"))
  .map((f) => join(ncclDir, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;

const COMMANDS: Array<[string, string[]]> = [
  ["plan --json on k8s", ["plan", "h100-8x", "--platform", "k8s", "--image", "x", "--json"]],
  ["plan as text on slurm", ["plan", "h100-multinode", "--platform", "slurm"]],
  ["list --json", ["list", "--json"]],
  ["parse nccl --json", ["parse", "nccl", biggestLog, "--json"]],
  ["--help", ["--help"]],
];

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const shell = (cmd: string) => spawnSync("bash", ["-c", `set -o pipefail; ${cmd}`], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 });
const gpucheck = (args: string[]) => [...gpucheckArgv(), ...args].map(quote).join(" ");

describe("output through pipes", () => {
  for (const [name, args] of COMMANDS) {
    test(`${name}: a reader that waits a second still gets every byte, exit 0`, () => {
      const direct = shell(`${gpucheck(args)} | wc -c`);
      const slow = shell(`${gpucheck(args)} | (sleep 1; wc -c)`);
      expect(direct.status).toBe(0);
      expect(slow.status).toBe(0);
      expect(Number(slow.stdout.trim())).toBe(Number(direct.stdout.trim()));
      if (name.startsWith("plan --json")) expect(Number(direct.stdout.trim())).toBeGreaterThan(65_536);
    });
  }

  test("a full disk is an error with one line, exit 3", () => {
    const r = shell(`${gpucheck(COMMANDS[0]![1])} > /dev/full`);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe("gpucheck: could not write to standard output: ENOSPC (no space left on the device)\n");
  });

  test("a reader that closes the pipe early is an error, not a silent 0", () => {
    const r = spawnSync("bash", ["-c", `${gpucheck(COMMANDS[0]![1])} | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(r.stdout.trim()).toBe("3");
    expect(r.stderr).toBe("gpucheck: could not write to standard output: EPIPE (the reader closed the pipe)\n");
  });
});
