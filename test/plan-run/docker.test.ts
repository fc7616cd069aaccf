// Plan equals run, docker platform, daemon-free: the containers run() creates for a unit are the
// rendered create bodies with the run id and the rendezvous it learnt bound into their slots.
// (What the engine then receives is covered by test/integration/platforms/docker.test.ts.)
import { describe, expect, test } from "bun:test";
import { bindSlots, slotsIn } from "../../lib/core/slots.ts";
import { docker, runLabel } from "../../plugins/docker.ts";
import { engineList } from "../../plugins/docker/engines.ts";
import { unitsOf } from "../../plugins/docker/plan.ts";
import { boundContainers } from "../../plugins/docker/run.ts";
import { settings } from "../../plugins/docker/spec.ts";
import { runContextFor, scriptTest } from "../platforms/conformance.ts";
import { tempDir } from "../tmp.ts";

describe("plan equals run: docker", () => {
  test("one engine, 2 nodes: the bodies created are the rendered ones with {{runId}} and {{masterPort:local}} bound", () => {
    const outDir = tempDir("gpucheck-docker-plan-run-");
    const t = scriptTest("pr", "python3", "pass", { nodes: 2 });
    const ctx = runContextFor(t, { settings: settings.parse({}), cli: { hosts: ["unix:///var/run/docker.sock"] }, outDir, signal: new AbortController().signal });
    const rendered = docker.render(ctx);
    expect(rendered.slots).toEqual({
      runId: "a hash of the run's results directory (container names and the gpucheck.run label the end-of-run sweep finds them by)",
      "masterPort:local": "a free port on this machine, chosen when the test starts",
    });
    const [u] = unitsOf(ctx.test, engineList(ctx.settings, ctx.cli, ctx.suite));
    const runId = runLabel(outDir);
    const created = boundContainers(ctx, u!, {}, { addr: "127.0.0.1", port: 29611 }, runId).map((c) => ({ engine: c.node.engine, create: c.body }));
    const bound = bindSlots(rendered.units[0]!.containers, { runId, "masterPort:local": 29611 });
    expect(slotsIn(bound)).toEqual([]);
    expect(created).toEqual(bound);
    expect(created[1]!.create.Env).toContain("MASTER_PORT=29611");
  });

  test("ssh engines, per-node: each unit's rendezvous slots are its own host's", () => {
    const outDir = tempDir("gpucheck-docker-plan-run-");
    const t = { ...scriptTest("pn", "python3", "pass"), perNode: true };
    const ctx = runContextFor(t, { settings: settings.parse({}), cli: { hosts: ["n1", "n2"] }, outDir, signal: new AbortController().signal });
    const rendered = docker.render(ctx);
    expect(Object.keys(rendered.slots).sort()).toEqual(["controlDir", "masterPort:n1", "masterPort:n2", "runId"]);
    const units = unitsOf(ctx.test, engineList(ctx.settings, ctx.cli, ctx.suite));
    for (const [i, u] of units.entries()) {
      const host = u.unit;
      const created = boundContainers(ctx, u, {}, { addr: "10.0.0.9", port: 30000 + i }, runLabel(outDir)).map((c) => ({ engine: c.node.engine, create: c.body }));
      expect(created).toEqual(bindSlots(rendered.units[i]!.containers, { runId: runLabel(outDir), [`masterPort:${host}`]: 30000 + i }));
    }
  });
});
