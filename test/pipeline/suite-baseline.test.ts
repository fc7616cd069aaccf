// runSuite reads --baseline with the one reader of results.json (lib/report/results.ts readResults):
// a baseline it cannot use stops the run before anything runs, naming the flag, the path and why.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORMS } from "../../cli/platforms.ts";
import { runSuite } from "../../lib/pipeline/suite.ts";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const SUITE = join(root, "test/fixtures/suites/relative-no-baseline.yaml");

async function refusal(baseline: string, out: string): Promise<string> {
  const printed: string[] = [];
  const print = { out: (t: string) => printed.push(t), err: (t: string) => printed.push(t), stderr: process.stderr, color: false };
  const started: string[] = [];
  const run = runSuite({
    ref: SUITE,
    flags: { baseline, out, progress: "none" },
    platforms: PLATFORMS,
    command: ["gpucheck", "suite"],
    print,
    signal: new AbortController().signal,
    interruptible: () => (started.push("run"), () => {}),
  });
  const message = await run.then(
    () => "",
    (e: Error) => e.message,
  );
  // refused before the run started: nothing printed, no directory claimed
  expect({ printed, started, claimed: existsSync(out) }).toEqual({ printed: [], started: [], claimed: false });
  return message;
}

test("a baseline that does not exist", async () => {
  const dir = tempDir("gpucheck-baseline-");
  const missing = join(dir, "no-such-run");
  expect(await refusal(missing, join(dir, "out"))).toBe(`gpucheck: --baseline ${missing}: cannot read results: "${missing}": no such results directory`);
});

test("a baseline written by a gpucheck with another results schema", async () => {
  const dir = tempDir("gpucheck-baseline-");
  const file = join(dir, "results.json");
  writeFileSync(file, '{ "schemaVersion": 2 }\n');
  expect(await refusal(file, join(dir, "out"))).toBe(
    `gpucheck: --baseline ${file}: cannot read results: ${file}: schemaVersion 2 is not supported by this gpucheck (it reads version 1)`,
  );
});

test("a baseline directory without results.json", async () => {
  const dir = tempDir("gpucheck-baseline-");
  expect(await refusal(dir, join(dir, "out"))).toBe(`gpucheck: --baseline ${dir}: cannot read results: "${dir}": no results.json in it (is it a gpucheck results directory?)`);
});
