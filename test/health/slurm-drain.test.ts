// The drain decision against `scontrol show node` as Slurm 22.05 printed it (test/fixtures/slurm/,
// captured from test/infra/slurm.sh by capture.sh): scontrol answers from the captures, and every
// call gpucheck makes is recorded. The drain on the live Slurm is test/integration/health/slurm-drain.test.ts.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { drainLine, drainOnFailure, type Exec, parseScontrolNode } from "../../lib/health/slurm-drain.ts";

const capture = (name: string) => readFileSync(join(import.meta.dir, "..", "fixtures", "slurm", name), "utf8");

/** scontrol answering `show node` with a capture (and the exit code Slurm gave with it), `update` with success */
function scontrol(shown: string, showCode = 0, update = { code: 0, stdout: "", stderr: "" }): Exec & { calls: string[][] } {
  const calls: string[][] = [];
  const exec: Exec = async (argv) => {
    calls.push(argv);
    return argv[1] === "show" ? { code: showCode, stdout: capture(shown), stderr: "" } : update;
  };
  return Object.assign(exec, { calls });
}

const FAILURE = "gpu07: inventory: ecc_uncorrected 2 > 0 expected (+2): GPU 3 (00000000:9D:00.0) 2 volatile DRAM";

describe("scontrol show node, as captured", () => {
  test("State and Reason, without Slurm's [user@time]", () => {
    expect(parseScontrolNode(capture("scontrol-node-idle.txt"))).toEqual({ state: "IDLE" });
    expect(parseScontrolNode(capture("scontrol-node-drained-operator.txt"))).toEqual({ state: "IDLE+DRAIN", reason: "operator: DIMM B2 replaced, burn-in pending" });
    expect(parseScontrolNode(capture("scontrol-node-drained-gpucheck.txt"))).toEqual({
      state: "IDLE+DRAIN",
      reason: "gpucheck: node4: inventory: ecc_uncorrected 2 > 0 expected",
    });
    expect(parseScontrolNode(capture("scontrol-node-not-found.txt"))).toBeUndefined();
  });
});

describe("drainOnFailure", () => {
  test("a healthy node: Slurm is not even asked", async () => {
    const io = scontrol("scontrol-node-idle.txt");
    expect(await drainOnFailure("node4", [], io)).toEqual({ action: "healthy", node: "node4" });
    expect(io.calls).toEqual([]);
  });

  test("a failing idle node is drained with its first failure as the reason", async () => {
    const io = scontrol("scontrol-node-idle.txt");
    const d = await drainOnFailure("node4", [FAILURE, "gpu07: gemm: the second failure"], io);
    expect(io.calls).toEqual([
      ["scontrol", "show", "node", "node4"],
      ["scontrol", "update", "nodename=node4", "state=drain", `reason=gpucheck: ${FAILURE}`],
    ]);
    expect(drainLine(d)).toBe(`drained Slurm node node4: gpucheck: ${FAILURE}`);
  });

  test("a node an operator drained keeps the operator's reason", async () => {
    const io = scontrol("scontrol-node-drained-operator.txt");
    const d = await drainOnFailure("node4", [FAILURE], io);
    expect(io.calls).toEqual([["scontrol", "show", "node", "node4"]]);
    expect(drainLine(d)).toBe('Slurm node node4 is already IDLE+DRAIN for another reason ("operator: DIMM B2 replaced, burn-in pending"): left as it is');
  });

  test("a node gpucheck drained before gets the new failure as its reason", async () => {
    const io = scontrol("scontrol-node-drained-gpucheck.txt");
    await drainOnFailure("node4", [FAILURE], io);
    expect(io.calls[1]).toEqual(["scontrol", "update", "nodename=node4", "state=drain", `reason=gpucheck: ${FAILURE}`]);
  });

  test("a reason past 250 characters is cut, said with …", async () => {
    const io = scontrol("scontrol-node-idle.txt");
    const d = await drainOnFailure("node4", ["x".repeat(400)], io);
    expect(d).toMatchObject({ action: "drained" });
    const reason = (d as { reason: string }).reason;
    expect(reason.length).toBe(250);
    expect(reason).toEndWith("x…");
  });

  test("a node Slurm does not know: one line, not drained, what to check", async () => {
    const io = scontrol("scontrol-node-not-found.txt", 1);
    await expect(drainOnFailure("node9", [FAILURE], io)).rejects.toThrow(
      '--drain: could not read Slurm node "node9" (scontrol show node node9: Node node9 not found): it was not drained; check that this is a Slurm node (--node names it) and slurmctld answers',
    );
  });

  test("an update Slurm refuses: one line, not drained, run as root or SlurmUser", async () => {
    const io = scontrol("scontrol-node-idle.txt", 0, { code: 1, stdout: "", stderr: "slurm_update error: Invalid node name specified\n" });
    await expect(drainOnFailure("node4", [FAILURE], io)).rejects.toThrow(
      '--drain: Slurm refused to drain "node4" (scontrol update: slurm_update error: Invalid node name specified): it was not drained; run gpucheck health as root or SlurmUser',
    );
  });
});
