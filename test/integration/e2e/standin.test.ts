// The workload's stand-in (test/standin/python3) answers from canned outputs: a run it answered is
// marked in every place a reader might take a verdict from, and a run of the real workload is not
// (here, not in the unit tier: the real run imports torch twice, ~50 s on the loaded dev machine).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { fixture, gpucheck, tempDir } from "../../e2e/cli.ts";

const standin = join(import.meta.dir, "..", "..", "standin", "python3");
const NOT_EVIDENCE = "simulated workload — not evidence about hardware";

function runAndCertify(python: string) {
  const dir = join(tempDir("standin"), "run");
  const run = gpucheck(["suite", fixture("inventory-only.yaml"), "--python", python, "--out", dir], { timeoutMs: 120_000 });
  expect(run.status).toBe(0);
  const keys = join(tempDir("standin-keys"), "keys");
  expect(gpucheck(["keygen", "--out", keys]).status).toBe(0);
  const cf = gpucheck(["certify", dir, "--key", join(keys, "gpucheck.key")]);
  expect(cf.status).toBe(0);
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  return { dir, out: run.stdout, results: JSON.parse(read("results.json")) as ResultsFile, read, statement: statementOf(read("certificate.intoto.json")) };
}

/** The in-toto statement inside the DSSE envelope. */
function statementOf(envelope: string): { predicate: { simulated?: string } } {
  return JSON.parse(Buffer.from((JSON.parse(envelope) as { payload: string }).payload, "base64").toString("utf8"));
}

describe("the workload's stand-in", () => {
  test("a run it answered is marked simulated on every unit, the summary, report.html, junit.xml and the certificate", () => {
    const r = runAndCertify(standin);
    const unit = r.results.tests[0]!.units[0]!;
    expect(unit.verdict.outcome).toBe("passed");
    expect(unit.simulated).toMatch(/^test\/standin\/python3: simulated workload: canned output of a real machine replayed, not a measurement of /);
    expect(r.results.simulated).toBe(`${NOT_EVIDENCE}: 1 of 1 units answered by test/standin/python3 (canned outputs of real machines replayed, nothing measured on these nodes)`);
    expect(r.out).toMatch(/^gpucheck e2e-inventory-only \(local\): PASSED \(SIMULATED WORKLOAD\): 1 passed$/m);
    expect(r.out).toContain(`SIMULATED: ${r.results.simulated}`);
    expect(r.read("report.html")).toContain("SIMULATED WORKLOAD</span>");
    const junit = r.read("junit.xml");
    assertJunitValid(join(r.dir, "junit.xml"));
    expect(junit).toContain(`<property name="simulated" value="${r.results.simulated}"/>`);
    expect(junit).toContain(`<system-out><![CDATA[SIMULATED: ${unit.simulated}\n`);
    expect(r.statement.predicate.simulated).toBe(r.results.simulated);
    const md = r.read("certificate.md");
    expect(md).toContain("# GPU cluster acceptance certificate: PASSED (SIMULATED WORKLOAD)");
    expect(md).toContain(`> **SIMULATED WORKLOAD — NOT EVIDENCE ABOUT HARDWARE: ${r.results.simulated}**`);
    expect(r.read("certificate.html")).toContain('<div class="verdict PASSED SIMULATED">PASSED (SIMULATED WORKLOAD)</div>');
  }, 120_000);

  test("a run of the real workload carries no mark", () => {
    const r = runAndCertify("/usr/bin/python3");
    expect(r.results.tests[0]!.units[0]!.simulated).toBeUndefined();
    expect(r.results.simulated).toBeUndefined();
    expect(r.out).not.toContain("SIMULATED");
    expect(r.read("report.html")).not.toContain("SIMULATED");
    expect(r.read("junit.xml")).not.toContain("simulated");
    expect(r.statement.predicate.simulated).toBeUndefined();
    expect(r.read("certificate.md")).not.toContain("SIMULATED");
  }, 120_000);

  test("a kind it has no canned output for is an error naming it, never a pass", () => {
    const dir = join(tempDir("standin-gemm"), "run");
    const suite = join(tempDir("standin-suite"), "gemm.yaml");
    writeFileSync(suite, "name: standin-gemm\nplatform: { type: local }\ndefaults: { gpusPerNode: 0, ranksPerNode: 1 }\ntests:\n  - name: gemm\n    kind: gemm\n");
    const run = gpucheck(["suite", suite, "--python", standin, "--out", dir]);
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as ResultsFile;
    expect(run.status).not.toBe(0);
    expect(results.outcome).not.toBe("passed");
    expect(results.tests[0]!.units[0]!.verdict.reason).toBe(
      `crashed before reporting results: rank 0 on ${hostname()} failed with exit code 2: the stand-in has no canned output for gemm (it answers inventory and preflight): nothing was measured`,
    );
  }, 120_000);
});
