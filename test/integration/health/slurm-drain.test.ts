// `gpucheck health --drain` against the real Slurm of the integration tier (test/infra/slurm.sh: 4
// logical nodes on this host), through the compiled binary copied alone into an empty directory.
// The fault is real: needs-a-gpu.yaml wants a GPU this machine lacks (nvidia-smi is absent), so the
// health run is an error; no-xid.yaml passes because the kernel log, read as root, holds no Xid.
// Each node drained here is resumed afterwards: the other Slurm tests want 4 idle nodes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { tempDir } from "../../e2e/cli.ts";

const enabled = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("slurm") && process.getuid?.() === 0;
const it = enabled ? test : test.skip;
const fixture = (name: string) => join(import.meta.dir, "..", "..", "fixtures", "health", name);
const scontrol = (...args: string[]) => execFileSync("scontrol", args, { encoding: "utf8" });
const nodeLine = (node: string) => {
  const text = scontrol("show", "node", node);
  return { state: /State=(\S+)/.exec(text)?.[1] ?? "", reason: /Reason=(.*)$/m.exec(text)?.[1]?.trim() ?? "" };
};

let dir = "";
/** the binary alone in an empty directory, as a new user runs it */
function health(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(dir, "gpucheck"), ["health", ...args], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const NODES = ["node1", "node2", "node3"];
const resume = () => {
  for (const n of NODES) if (/DRAIN|DOWN/.test(nodeLine(n).state)) scontrol("update", `nodename=${n}`, "state=resume");
};

describe("gpucheck health --drain on a real Slurm", () => {
  beforeAll(() => {
    if (!enabled) return;
    dir = tempDir("health-slurm");
    copyFileSync(process.env.GPUCHECK_TEST_BINARY!, join(dir, "gpucheck"));
    execFileSync("chmod", ["+x", join(dir, "gpucheck")]);
    resume();
    // node3 is already out for an operator's reason before gpucheck looks at it
    scontrol("update", "nodename=node3", "state=drain", "reason=operator: DIMM B2 replaced, burn-in pending");
  });
  afterAll(() => {
    if (enabled) resume();
  });

  it("drains the faulted node with its first failure, leaves the healthy one and keeps an operator's reason", async () => {
    // the three health runs at once: each is its own node's HealthCheckProgram
    const [healthy, faulted, drained] = await Promise.all([
      health(["--suite", fixture("no-xid.yaml"), "--drain", "--node", "node1", "--history", join(dir, "history.db")]),
      health(["--suite", fixture("needs-a-gpu.yaml"), "--drain", "--node", "node2"]),
      health(["--suite", fixture("needs-a-gpu.yaml"), "--drain", "--node", "node3"]),
    ]);

    // healthy: NHC's convention, silence and 0, and Slurm untouched
    expect({ code: healthy.code, stdout: healthy.stdout }).toEqual({ code: 0, stdout: "" });
    expect(healthy.stderr).toContain("gpucheck: Slurm node node1 is healthy: not drained");
    expect(nodeLine("node1").state).not.toContain("DRAIN");
    // … and its run appended to the node history, as a health run (unsigned: no key was given)
    expect(healthy.stderr).toMatch(/^gpucheck: history: run #1 \(health, suite no-xid, .*\): \d+ figures of 1 node added to .*history\.db$/m);
    const shown = execFileSync(join(dir, "gpucheck"), ["history", "show", hostname().split(".")[0]!, "--history", join(dir, "history.db")], { cwd: dir, encoding: "utf8" });
    expect(shown).toMatch(/: 1 run \(1 health\),/);
    expect(shown).toMatch(/#1 {2}\S+ {2}health {6}no-xid {2}PASSED/);

    // faulted: one line naming the check, the value and why; exit 3 (unmeasured); drained with it
    const line = faulted.stdout.trim();
    expect(faulted.code).toBe(3);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(/^ERROR gpucheck health: \S+: inventory: error: gpu_count unmeasured: the GPUs could not be listed \(nvidia-smi not found\) \(expected ≥ 1\)$/);
    const node2 = nodeLine("node2");
    expect(node2.state).toContain("DRAIN");
    expect(node2.reason).toStartWith(`gpucheck: ${line.replace("ERROR gpucheck health: ", "")}`);
    expect(faulted.stderr).toContain("gpucheck: drained Slurm node node2: gpucheck: ");

    // already drained for another reason: the same failure, but the operator's reason stays
    expect(drained.code).toBe(3);
    expect(nodeLine("node3").reason).toStartWith("operator: DIMM B2 replaced, burn-in pending");
    expect(drained.stderr).toMatch(/gpucheck: Slurm node node3 is already \S*DRAIN\S* for another reason \("operator: DIMM B2 replaced, burn-in pending"\): left as it is/);
  }, 90_000);
});
