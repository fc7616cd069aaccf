// An isolating test writes results.json after each round, not only when the test ends: a run killed
// in the middle of an isolation (kill -9, a lost login node) leaves the rounds it finished, with the
// isolation so far marked incomplete, rather than a results.json without the test.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORMS } from "../../cli/platforms.ts";
import { registerPlatforms } from "../../lib/core/platform.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { RUN_RECORDS_FILE } from "../../lib/execute/record.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { tempDir } from "../tmp.ts";
import { fakeHostsPlatform } from "./fake-hosts.ts";
import { PYTHON } from "./fake-platform.ts";
import { planLines, silentProgress } from "./planned-suite.ts";

test("killed in the third round of pairwise: results.json on disk holds the first two rounds and the isolation so far, incomplete", async () => {
  const dir = tempDir("gpucheck-isolate-killed-");
  const launched: string[][] = [];
  // h3 is broken; the third round's h1+h4 never ends: the moment the process would be killed
  const platform = fakeHostsPlatform({ hosts: ["h1", "h2", "h3", "h4"], end: (h) => (h.includes("h3") ? "fail" : h.join("+") === "h1+h4" ? "hang" : "ok") }, launched);
  registerPlatforms({ ...PLATFORMS, "fake-hosts": platform });
  const { yaml, suite, plan } = await planLines(
    dir,
    [
      "name: killed",
      `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 1 }`,
      "tests:",
      "  - { name: fabric, kind: collective, pattern: pairwise, collective: { backend: gloo } }",
    ],
    { platform: "fake-hosts" },
  );
  const outDir = join(dir, "run");
  const ctl = new AbortController();
  const done = executePlan(suite, plan, { outDir, cli: {}, progress: silentProgress(), command: ["gpucheck"], suiteText: yaml, signal: ctl.signal, platform });
  try {
    while (!launched.some((g) => g.join("+") === "h1+h4")) await Bun.sleep(10);
    // what a kill -9 now would leave
    assertResultsValid(join(outDir, "results.json"));
    const onDisk = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
    const t = onDisk.tests[0]!;
    expect(onDisk.complete).toBe(false);
    expect(t.units.map((u) => `${u.unit} ${u.status}`)).toEqual(["1.h1+h2 completed", "1.h3+h4 failed", "2.h1+h3 failed", "2.h4+h2 completed"]);
    expect(t.isolation).toMatchObject({ pattern: "pairwise", complete: false, rounds: 2, launches: 4 });
    // the rounds so far keep their verdicts; the test itself never ended, and says so
    expect(t.outcome).toBe("unfinished");
    expect(onDisk.outcome).toBe("unfinished");
    expect(onDisk.endedAt).toBeNull();
    // the saved runs go with them, so `gpucheck judge` can read the finished rounds again
    expect(existsSync(join(outDir, "logs", "fabric", RUN_RECORDS_FILE))).toBe(true);
  } finally {
    ctl.abort("cancelled");
    await done;
    registerPlatforms(PLATFORMS);
  }
});
