// Plan equals run, local platform: what `gpucheck plan` renders (slots named) is exactly what run()
// launches once the slots are bound. Every rank reports the argv and environment it really got
// (from /proc), and each must equal the rendered rank with the run's values in its slots.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { bindSlots, slotsIn } from "../../lib/core/slots.ts";
import { local, type LocalManifest } from "../../plugins/local.ts";
import type { TestToRender } from "../../lib/core/platform.ts";
import { runContextFor, scriptTest } from "../platforms/conformance.ts";
import { tempDir } from "../tmp.ts";

const PY = "/usr/bin/python3";
const REPORT = [
  "import json",
  "argv = open('/proc/self/cmdline', 'rb').read().decode().rstrip('\\0').split('\\0')",
  "env = dict(l.split('=', 1) for l in open('/proc/self/environ', 'rb').read().decode().rstrip('\\0').split('\\0') if '=' in l)",
  "print('LAUNCHED ' + json.dumps({'argv': argv, 'env': env}))",
].join("\n");

const settings = { peerFailureGraceMs: 2000 };

async function planAndRun(t: TestToRender) {
  const outDir = tempDir("gpucheck-plan-run-");
  const ctx = runContextFor(t, { settings, outDir, signal: new AbortController().signal });
  const rendered = local.render(ctx);
  const units = await local.run(ctx);
  const launched = units.map((u) => ({
    unit: u.unit,
    ranks: u.ranks.map((r) => {
      const line = readFileSync(r.path, "utf8")
        .split("\n")
        .find((l) => l.includes("LAUNCHED "))!;
      return { rank: r.rank, ...(JSON.parse(line.slice(line.indexOf("LAUNCHED ") + 9)) as { argv: string[]; env: Record<string, string> }) };
    }),
  }));
  return { rendered, launched, outDir, units };
}

/** The rendered manifest bound with the values this run used, and what each rank got, in the manifest's terms. */
function compare(rendered: LocalManifest, launched: Awaited<ReturnType<typeof planAndRun>>["launched"], outDir: string) {
  // the one value only the run chose: its port, as every rank received it
  const port = launched[0]!.ranks[0]!.env.MASTER_PORT!;
  const bound = bindSlots(rendered, { resultsDir: outDir, masterPort: port });
  expect(slotsIn(bound.units)).toEqual([]);
  const actual = launched.map((u, i) => ({
    unit: u.unit,
    ranks: u.ranks.map((r) => ({ rank: r.rank, argv: r.argv, env: Object.fromEntries(Object.keys(bound.units[i]!.ranks[0]!.env).map((k) => [k, r.env[k]])) })),
  }));
  expect(actual).toEqual(bound.units);
}

describe("plan equals run: local", () => {
  test("2 nodes × 2 ranks: one unit; every rank's argv and environment are the rendered ones with {{resultsDir}} and {{masterPort}} bound", async () => {
    const t = scriptTest("pr", PY, REPORT, { nodes: 2, ranksPerNode: 2, env: { GPUCHECK_X: "a b" } });
    const { rendered, launched, outDir, units } = await planAndRun(t);
    expect(units.map((u) => u.status)).toEqual(["completed"]);
    expect(rendered.slots).toEqual({ resultsDir: "the run's results directory", masterPort: "a free port on this host, chosen when the test starts" });
    expect(rendered.units.map((u) => u.unit)).toEqual(["all"]);
    expect(rendered.units[0]!.ranks[3]!.env).toMatchObject({ RANK: "3", LOCAL_RANK: "1", WORLD_SIZE: "4", MASTER_PORT: "{{masterPort}}", PYTHONPATH: "{{resultsDir}}/workload" });
    compare(rendered, launched, outDir);
  });

  test("per-node: the plan's one-node unit, named after the host", async () => {
    const t = { ...scriptTest("pn", PY, REPORT, { ranksPerNode: 2 }), perNode: true, worldSize: 2 };
    const { rendered, launched, outDir } = await planAndRun(t);
    expect(rendered.units.map((u) => u.unit)).toEqual([rendered.host]);
    compare(rendered, launched, outDir);
  });

  test("settings that fix the port and the stage leave no slot", async () => {
    const stageDir = tempDir("gpucheck-plan-stage-");
    const t = scriptTest("fx", PY, REPORT, { ranksPerNode: 1 });
    const ctx = runContextFor(t, { settings: { ...settings, stageDir, masterPort: 29533 }, outDir: stageDir, signal: new AbortController().signal });
    const rendered = local.render(ctx);
    expect(rendered.slots).toEqual({});
    expect(slotsIn(rendered)).toEqual([]);
  });
});
