// Runs a suite through the whole pipeline in-process on the fake platform and reads back what it
// wrote, checking on the way that results.json and junit.xml are valid.
import { silentProgress } from "./planned-suite.ts";
import { expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSuite } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import type { Progress } from "../../lib/report/progress.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { tempDir } from "../tmp.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { assertJunitValid } from "../report/junit-check.ts";
import { type Behaviour, fakePlatform, PYTHON } from "./fake-platform.ts";

/** A suite of gloo collectives, one per named test, each with its own timeout. */
async function planOf(dir: string, tests: Array<{ name: string; timeout?: string }>) {
  const path = join(dir, "suite.yaml");
  const yaml = [
    "name: pipeline",
    "platform: { type: local }",
    `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 2 }`,
    "tests:",
    ...tests.flatMap((t) => [
      `  - name: ${t.name}`,
      "    kind: collective",
      ...(t.timeout ? [`    timeout: ${t.timeout}`] : []),
      "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
      "    expect:",
      "      busbw: { min: 50 GB/s }",
    ]),
    "",
  ].join("\n");
  writeFileSync(path, yaml);
  const suite = await loadSuite(path);
  return { suite, plan: buildPlan(suite, { cli: {} }), yaml };
}

interface Seen {
  notes: string[];
  finished: string[];
}

function quietProgress(seen: Seen): Progress {
  return silentProgress(seen.notes, { testFinished: (r) => void seen.finished.push(`${r.name}: ${r.outcome}`) });
}

export async function runSuite(tests: Array<{ name: string; timeout?: string; behaviour: Behaviour }>, opts: { failFast?: boolean; cancelOn?: string; snapshotOn?: string } = {}) {
  const dir = tempDir("gpucheck-pipeline-");
  const { suite, plan, yaml } = await planOf(dir, tests);
  const cancel = new AbortController();
  const outDir = join(dir, "run");
  const snapshot: Array<{ results: string; junit: string }> = [];
  const platform = fakePlatform(Object.fromEntries(tests.map((t) => [t.name, t.behaviour])), {
    waiting: (name) => {
      // what a kill at this moment would leave: the files as they are on disk while the test runs
      if (name === opts.snapshotOn) snapshot.push({ results: readFileSync(join(outDir, "results.json"), "utf8"), junit: readFileSync(join(outDir, "junit.xml"), "utf8") });
      if (name === opts.cancelOn) setTimeout(() => cancel.abort("cancelled"), 20);
    },
  });
  const seen: Seen = { notes: [], finished: [] };
  const returned = await executePlan(suite, plan, {
    outDir,
    cli: {},
    progress: quietProgress(seen),
    command: ["gpucheck", "suite", "suite.yaml"],
    suiteText: yaml,
    signal: cancel.signal,
    failFast: opts.failFast,
    platform,
  });
  // what Jenkins and `gpucheck report` read: the files, not the returned object
  const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
  expect(results).toEqual(JSON.parse(JSON.stringify(returned)));
  assertResultsValid(join(outDir, "results.json"));
  assertJunitValid(join(outDir, "junit.xml"));
  const junit = readFileSync(join(outDir, "junit.xml"), "utf8");
  return { outDir, results, junit, seen, snapshot: snapshot[0] };
}
