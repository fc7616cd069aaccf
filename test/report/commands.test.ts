// `gpucheck report` and `gpucheck judge` through the CLI's dispatch as mod.ts calls it (in this
// process: test/e2e/cli.ts's gpucheckRun), on results directories made from the fixtures.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serialiseResults } from "../../lib/report/results.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { gpucheckRun } from "../e2e/cli.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { assertResultsValid } from "./results-check.ts";
import { assertJunitValid } from "./junit-check.ts";
import { removeAfterRun, tempDir } from "../tmp.ts";

async function gpucheck(...args: string[]) {
  const r = await gpucheckRun(args);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function resultsDir(r: ResultsFile): string {
  const dir = tempDir("gpucheck-cmd-");
  writeFileSync(join(dir, "results.json"), serialiseResults(r));
  return dir;
}

function suiteFile(tests: string): string {
  const path = join(tempDir("gpucheck-suite-"), "other.yaml");
  writeFileSync(path, `name: other\ndescription: other thresholds\nplatform:\n  type: local\ntests:\n${tests}`);
  return path;
}

const collective = (expect: string) => `  - name: nvlink-allreduce
    kind: collective
    gpusPerNode: 8
    collective: { op: all_reduce, minBytes: 8, maxBytes: 8G }
    expect:
      ${expect}
`;

const read = (dir: string): ResultsFile => JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));

/** `gpucheck judge` into a new directory beside the run; the run itself must come out byte for byte unchanged. */
async function judge(dir: string, ...args: string[]) {
  const before = readFileSync(join(dir, "results.json"));
  const outDir = removeAfterRun(`${dir}-judged`);
  const r = await gpucheck("judge", dir, "--out", outDir, ...args);
  expect(readFileSync(join(dir, "results.json")).equals(before)).toBe(true);
  expect(existsSync(join(dir, "junit.xml"))).toBe(false);
  return { ...r, outDir };
}

describe("gpucheck report <dir>", () => {
  test("writes junit.xml, summary.txt and report.html from results.json, leaving results.json untouched", async () => {
    const dir = resultsDir(FIXTURES["per-node"]());
    const before = readFileSync(join(dir, "results.json"));
    const r = await gpucheck("report", dir);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("  gpu-03  nvlink-allreduce: failed: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%)");
    expect(readFileSync(join(dir, "results.json")).equals(before)).toBe(true);
    assertJunitValid(join(dir, "junit.xml"));
    expect(readFileSync(join(dir, "summary.txt"), "utf8")).toStartWith("gpucheck h100-8x on acme-h100-a (ssh): FAILED");
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain('data-series-count="4"');
  });

  test("a directory that is not a results directory: exit 2 and one clear line", async () => {
    const dir = tempDir("gpucheck-cmd-");
    const r = await gpucheck("report", dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`"${dir}": no results.json in it (is it a gpucheck results directory?)\n`);
  });

  test("a run killed while its second test ran (written ahead, no endedAt): INCOMPLETE, the tests that never ended named, exit 3", async () => {
    const killed = FIXTURES.passing();
    const [first, ...rest] = killed.tests;
    const unfinished = rest.map((t) => ({
      ...t,
      outcome: "unfinished" as const,
      units: [
        {
          ...t.units[0]!,
          status: "unfinished" as const,
          measurement: null,
          message: "not finished: the run stopped before this test ended",
          verdict: { outcome: "unfinished" as const, reason: "not finished: the run stopped before this test ended", checks: [] },
        },
      ],
    }));
    const dir = resultsDir({ ...killed, tests: [first!, ...unfinished], outcome: "unfinished", endedAt: null, complete: false });
    const r = await gpucheck("report", dir);
    expect(r.code).toBe(3);
    expect(r.out.split("\n")[0]).toContain(": INCOMPLETE: ");
    expect(r.out).toContain(
      `INCOMPLETE: the run never ended (killed, or still going): ${unfinished.length} test${unfinished.length === 1 ? "" : "s"} never ended: ${unfinished.map((t) => t.name).join(", ")}.`,
    );
    const junit = readFileSync(join(dir, "junit.xml"), "utf8");
    expect(junit).toContain('<error message="not finished: the run stopped before this test ended" type="unfinished"/>');
    expect(junit).not.toMatch(/errors="0"/);
    assertJunitValid(join(dir, "junit.xml"));
  });

  test("a damaged results.json: exit 2 naming the field", async () => {
    const broken = FIXTURES.passing() as unknown as { tests: Array<{ outcome: string }> };
    broken.tests[1].outcome = "great";
    const dir = resultsDir(broken as unknown as ResultsFile);
    const r = await gpucheck("report", dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `${join(dir, "results.json")}: not a gpucheck results file:\n  tests[1].outcome: Invalid option: expected one of "passed"|"failed"|"error"|"skipped"|"unfinished"\n`,
    );
  });
});

describe("gpucheck judge <dir> --suite <file>", () => {
  test("an impossible threshold applied afterwards: exit 1, junit.xml holds a failure naming the metric and both values", async () => {
    const dir = resultsDir(FIXTURES.passing());
    const suite = suiteFile(collective("busbw: { min: 100000 GB/s }"));
    const r = await judge(dir, "--suite", suite);
    expect(r.code).toBe(1);
    expect(r.err).toContain('gpucheck: note: test "resnet18-fashionmnist" is not in suite "other"');
    const junit = readFileSync(join(r.outDir, "junit.xml"), "utf8");
    assertJunitValid(join(r.outDir, "junit.xml"));
    expect(junit).toContain('<failure message="busbw 477.2 GB/s at 8 GiB &lt; 100000 GB/s expected (-100%)" type="threshold">');
    const saved = read(r.outDir);
    assertResultsValid(join(r.outDir, "results.json"));
    expect(saved.outcome).toBe("failed");
    expect(saved.tests[0].expect).toEqual([{ metric: "busbw", unit: "GB/s", min: 100000, text: "busbw: min 100000 GB/s" }]);
    expect(saved.judgedWith?.path).toBe(suite);
    expect(saved.judgedWith?.sha256).toMatch(/^[0-9a-f]{64}$/);
    // what it was judged from: the run and its results.json's hash, and the judging suite's own bytes
    expect(saved.judgedFrom?.path).toBe(dir);
    expect(saved.judgedFrom?.sha256).toBe(new Bun.CryptoHasher("sha256").update(readFileSync(join(dir, "results.json"))).digest("hex"));
    expect(readFileSync(join(r.outDir, "judged-with.yaml"), "utf8")).toBe(readFileSync(suite, "utf8"));
    expect(r.out).toContain(`judged ${dir} with ${suite} into ${r.outDir}`);
    // the other tests keep their verdicts; nothing was rerun
    expect(saved.tests[1]).toEqual(FIXTURES.passing().tests[1]);
    expect(existsSync(join(r.outDir, "report.html"))).toBe(true);
  });

  test("a looser threshold turns the failing run into a pass: exit 0", async () => {
    const dir = resultsDir(FIXTURES["failing-threshold"]());
    const r = await judge(dir, "--suite", suiteFile(collective("busbw: { min: 400 GB/s }")));
    expect(r.code).toBe(0);
    expect(read(r.outDir).outcome).toBe("passed");
    expect(readFileSync(join(r.outDir, "junit.xml"), "utf8")).not.toContain("<failure");
  });

  test("relative thresholds against a baseline run, per node", async () => {
    const baseline = resultsDir(FIXTURES["per-node"]());
    const faster = FIXTURES["per-node"]();
    const dir = resultsDir(faster);
    const suite = suiteFile(collective("busbw: { baseline: 95% }"));
    const r = await judge(dir, "--suite", suite, "--baseline", baseline);
    // the same run against itself: every node is at 100% of its own baseline
    expect(r.code).toBe(0);
    const saved = read(r.outDir);
    expect(saved.baseline).toBe(join(baseline, "results.json"));
    expect(saved.tests[0].units[2].verdict.checks[0].message).toBe("busbw 181.3 GB/s at 8 GiB ≥ 172.2 GB/s expected (95% of baseline 181.3 GB/s) (+5%)");
  });

  test("relative thresholds without --baseline: exit 3, an error that says what to pass", async () => {
    const dir = resultsDir(FIXTURES["failing-threshold"]());
    const r = await judge(dir, "--suite", suiteFile(collective("busbw: { baseline: 95% }")));
    expect(r.code).toBe(3);
    expect(read(r.outDir).tests[0].units[0].verdict.reason).toBe('busbw: "busbw: baseline 95%" is relative to a baseline but none was given (pass --baseline <results.json>)');
  });

  test("a test of another kind under the same name: exit 2, results untouched", async () => {
    const dir = resultsDir(FIXTURES.passing());
    const before = readFileSync(join(dir, "results.json"));
    const suite = suiteFile("  - name: nvlink-allreduce\n    kind: inventory\n");
    const r = await gpucheck("judge", dir, "--suite", suite);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${suite}: test "nvlink-allreduce" has kind "inventory" there but "collective" in the results: cannot judge one with the other's thresholds\n`);
    expect(readFileSync(join(dir, "results.json")).equals(before)).toBe(true);
  });

  test("--out pointing at the judged run, or at another run: exit 2, nothing touched", async () => {
    const dir = resultsDir(FIXTURES.passing());
    const other = resultsDir(FIXTURES["failing-threshold"]());
    const suite = suiteFile(collective("busbw: { min: 400 GB/s }"));
    const same = await gpucheck("judge", dir, "--suite", suite, "--out", dir);
    expect(same.code).toBe(2);
    expect(same.err).toBe(`--out "${dir}" is the run being judged: judge writes a new directory and never changes a run (its certificate would stop verifying)\n`);
    const taken = await gpucheck("judge", dir, "--suite", suite, "--out", other);
    expect(taken.code).toBe(2);
    expect(taken.err).toStartWith(`--out "${other}" already holds a run (suite "h100-8x", started `);
    expect(read(other)).toEqual(FIXTURES["failing-threshold"]());
  });

  test("a suite that does not load: the loader's positioned message, exit 2", async () => {
    const dir = resultsDir(FIXTURES.passing());
    const r = await gpucheck("judge", dir, "--suite", suiteFile(collective("busbw: { min: lots }")));
    expect(r.code).toBe(2);
    expect(r.err).toContain('invalid value "lots" for metric "busbw"');
  });
});
