// --fail-fast and --rerun-failed on the local platform, as a user runs them: a cpu-smoke cut to two
// short collectives whose first misses an impossible threshold (fixtures/e2e/fail-fast.yaml).
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { assertJunitValid } from "../../report/xsd.ts";
import { fixture, gpucheck, tempDir } from "../../e2e/cli.ts";

const results = (dir: string): any => {
  assertJunitValid(join(dir, "junit.xml"));
  return JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
};
const outcomes = (dir: string) => results(dir).tests.map((t: { name: string; outcome: string }) => `${t.name} ${t.outcome}`);
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("--fail-fast and --rerun-failed", () => {
  test("--fail-fast stops after the failed test; the rest are skipped with the reason everywhere; reruns go to new directories", () => {
    const root = tempDir("failfast");
    const first = join(root, "first");
    const r = gpucheck(["suite", fixture("fail-fast.yaml"), "--fail-fast", "--out", first, "--progress", "plain"]);
    expect(r.status).toBe(1);
    const why = "not started: --fail-fast: allreduce-gloo failed";
    expect(outcomes(first)).toEqual(["allreduce-gloo failed", "allreduce-small skipped"]);
    const res = results(first);
    expect(res.stopped).toBe("--fail-fast: allreduce-gloo failed");
    expect(res.complete).toBe(false);
    expect(res.outcome).toBe("failed");
    expect(res.tests[1].units[0].verdict.reason).toBe(why);
    const junit = readFileSync(join(first, "junit.xml"), "utf8");
    expect(junit).toContain(`<skipped message="${why}"/>`);
    expect(junit).toContain("\n--fail-fast: allreduce-gloo failed: 1 of 2 tests started</system-out>");
    const html = readFileSync(join(first, "report.html"), "utf8");
    expect(html).toContain(why);
    expect(html).toContain("no: the run stopped before every test finished (--fail-fast: allreduce-gloo failed)");
    expect(r.stdout).toContain(`  (no host)  allreduce-small: skipped: ${why}\n`);
    expect(r.stdout).toContain("Run incomplete: 1 test of 2 started before it stopped (--fail-fast: allreduce-gloo failed).");
    expect(r.stderr).toContain("note: --fail-fast: allreduce-gloo failed: skipping the 1 test(s) after it");
    expect(readFileSync(join(first, "summary.txt"), "utf8")).toContain(why);

    // a rerun never writes into the run it reruns, nor runs a suite without its tests
    const same = gpucheck(["suite", "--rerun-failed", first, "--out", first]);
    expect(same.stderr).toBe(
      `gpucheck: --out "${first}" is the run being rerun: --rerun-failed writes a new directory and never changes a run (its certificate would stop verifying)\n`,
    );
    expect(same.status).toBe(2);
    const other = gpucheck(["suite", fixture("impossible.yaml"), "--rerun-failed", first]);
    expect(other.stderr).toBe(
      `gpucheck: --rerun-failed: suite ${fixture("impossible.yaml")} has no test "allreduce-gloo" of ${first}: rerun with that run's own suite (leave the suite argument out)\n`,
    );
    expect(other.status).toBe(2);

    // the run's own suite (suite.resolved.yaml): the failed test and the skipped one run again
    const second = join(root, "second");
    const r2 = gpucheck(["suite", "--rerun-failed", first, "--out", second, "--progress", "none"]);
    expect(r2.status).toBe(1);
    expect(r2.stdout).toContain(`rerun of ${first} (its failed, errored and skipped tests)\n`);
    expect(outcomes(second)).toEqual(["allreduce-gloo failed", "allreduce-small passed"]);
    expect(results(second).rerunOf).toEqual({ path: first, sha256: sha256(join(first, "results.json")) });
    expect(readFileSync(join(second, "report.html"), "utf8")).toContain(
      `${first} (results.json sha256 ${sha256(join(first, "results.json"))}): its failed, errored and skipped tests`,
    );

    // a passed test is not rerun; a suite given on the command line judges what is rerun
    const third = join(root, "third");
    const r3 = gpucheck(["suite", fixture("fail-fast-fixed.yaml"), "--rerun-failed", second, "--out", third, "--progress", "none"]);
    expect(r3.status).toBe(0);
    expect(outcomes(third)).toEqual(["allreduce-gloo passed"]);

    const r4 = gpucheck(["suite", "--rerun-failed", third, "--out", join(root, "fourth")]);
    expect(r4.status).toBe(0);
    expect(r4.stdout).toBe(`nothing to rerun: every test of ${third} passed\n`);
    expect(r4.stderr).toBe("");

    // a run killed outright (no endedAt) never listed the tests it did not reach: they are rerun too
    const killed = join(root, "killed");
    mkdirSync(killed);
    copyFileSync(join(third, "suite.resolved.yaml"), join(killed, "suite.resolved.yaml"));
    writeFileSync(join(killed, "results.json"), JSON.stringify({ ...results(third), endedAt: null, complete: false }));
    const r5 = gpucheck(["suite", "--rerun-failed", killed, "--out", join(root, "fifth"), "--progress", "none"]);
    expect(r5.status).toBe(0);
    expect(outcomes(join(root, "fifth"))).toEqual(["allreduce-small passed"]);

    // hosts a one-node test leaves idle are said on stderr when the suite starts (here it stops at the
    // occupied --out before anything connects: no sshd needed)
    const idle = gpucheck(["suite", fixture("fail-fast.yaml"), "--platform", "ssh", "--hosts", "gpu01,gpu02", "--out", first]);
    expect(idle.status).toBe(2);
    expect(idle.stderr).toStartWith(
      'gpucheck: warning: test "allreduce-gloo" runs on gpu01; gpu02 unused: pass --each-node to run it on every host\n' +
        'gpucheck: warning: test "allreduce-small" runs on gpu01; gpu02 unused: pass --each-node to run it on every host\n',
    );
  }, 300_000);

  test("--each-node on local: the one host is the test's unit, with its own verdict in results.json, junit and the summary", () => {
    const out = tempDir("eachnode");
    const r = gpucheck(["suite", fixture("fail-fast.yaml"), "--each-node", "--only", "allreduce-small", "--out", out, "--progress", "none"]);
    expect(r.status).toBe(0);
    const test = results(out).tests[0];
    expect(test.perNode).toBe(true);
    expect(test.units.map((u: { unit: string; verdict: { outcome: string } }) => `${u.unit} ${u.verdict.outcome}`)).toEqual([`${hostname()} passed`]);
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain(`<testcase name="allreduce-small [${hostname()}]"`);
    expect(r.stdout).toMatch(new RegExp(`\\nallreduce-small  ${hostname()} +PASSED `));
  }, 120_000);
});

describe("--rerun-failed refuses, exit 2, nothing run", () => {
  const cases: Array<[string, (dir: string) => string[], (dir: string) => string]> = [
    [
      "a directory that does not exist",
      (d) => ["suite", "--rerun-failed", join(d, "nowhere")],
      (d) => `gpucheck: --rerun-failed: "${join(d, "nowhere")}": no such results directory\n`,
    ],
    [
      "a directory without results.json",
      (d) => (mkdirSync(join(d, "empty")), ["suite", "--rerun-failed", join(d, "empty")]),
      (d) => `gpucheck: --rerun-failed: "${join(d, "empty")}": no results.json in it (is it a gpucheck results directory?)\n`,
    ],
    ["--only beside it", (d) => ["suite", "--rerun-failed", d, "--only", "x"], () => "gpucheck: --only and --rerun-failed both choose the tests to run: pass one of them\n"],
    [
      "no suite and no --rerun-failed",
      () => ["suite"],
      () => "gpucheck: suite: name the suite to run (a file or a built-in name, see `gpucheck list`), or pass --rerun-failed <results-dir>\n",
    ],
  ];
  for (const [title, args, message] of cases) {
    test(title, () => {
      const dir = tempDir("rerun-bad");
      const r = gpucheck(args(dir));
      expect(r.stderr).toBe(message(dir));
      expect(r.status).toBe(2);
    });
  }
});
