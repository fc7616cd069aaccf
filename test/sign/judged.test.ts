// A run re-judged with a stricter suite, then signed: the certificate names both suites and covers
// the judging suite's bytes, so nobody can swap the thresholds that gave the verdicts.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";
import { keyFiles, resultsCopy, tmp } from "./keys-fixture.ts";

/** Through test/e2e/cli.ts: the sources (in this process) in the unit tier, the built binary in the integration tier. */
async function gpucheck(...args: string[]) {
  const p = await gpucheckRun(args, { cwd: tmp() });
  return { code: p.status, out: p.stdout, err: p.stderr };
}

const STRICTER = `name: h100-2node-strict
description: the same run against a floor no node reaches
platform:
  type: slurm
tests:
  - name: nccl-allreduce
    kind: collective
    nodes: 2
    gpusPerNode: 8
    collective: { op: all_reduce, minBytes: 8M, maxBytes: 8G }
    expect:
      busbw: { min: 100000 GB/s }
`;

/** h100-2node judged with STRICTER into a new directory; returns it and the judging suite's path. */
async function judged(): Promise<{ dir: string; suite: string; source: string }> {
  const source = resultsCopy("h100-2node");
  const suite = join(tmp(), "stricter.yaml");
  writeFileSync(suite, STRICTER);
  const dir = `${source}-strict`;
  const j = await gpucheck("judge", source, "--suite", suite, "--out", dir);
  expect(j.code).toBe(1);
  return { dir, suite, source };
}

describe("certify a re-judged run", () => {
  test("the certificate names the suite that ran and the suite that judged, and signs judged-with.yaml", async () => {
    const { dir, suite, source } = await judged();
    const { key, pub } = keyFiles("ed25519");
    const cf = await gpucheck("certify", dir, "--key", key);
    expect(cf.err).toBe("");
    expect(cf.code).toBe(0);
    const envelope = JSON.parse(readFileSync(join(dir, "certificate.intoto.json"), "utf8"));
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    const sha = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
    expect(statement.subject.map((s: { name: string }) => s.name)).toEqual([
      "results.json",
      "junit.xml",
      "suite.yaml",
      "judged-with.yaml",
      "ctrf.json",
      "inventory.cdx.json",
      "metrics.prom",
    ]);
    expect(statement.predicate.suite.name).toBe("h100-2node");
    expect(statement.predicate.judged.suite).toEqual({ file: "judged-with.yaml", path: suite, sha256: sha(suite) });
    expect(statement.predicate.judged.from).toEqual({ path: source, sha256: sha(join(source, "results.json")) });
    const md = readFileSync(join(dir, "certificate.md"), "utf8");
    expect(md).toContain(`| Judged with | judged-with.yaml (read from ${suite}, sha256 ${sha(suite)}), `);
    expect(md).toContain(
      `: its thresholds gave these verdicts; the suite above is the one the tests ran with (measurements of ${source} (results.json sha256 ${sha(join(source, "results.json"))})) |`,
    );
    expect(readFileSync(join(dir, "certificate.html"), "utf8")).toContain("<th>Judged with</th>");

    const ok = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", pub, "--results", dir);
    expect(ok.code).toBe(0);
    // a looser suite swapped in afterwards no longer verifies
    writeFileSync(join(dir, "judged-with.yaml"), STRICTER.replace("100000 GB/s", "1 GB/s"));
    const bad = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", pub, "--results", dir);
    expect(bad.code).not.toBe(0);
    expect(bad.out + bad.err).toContain("judged-with.yaml");
  });

  test("certify refuses a judged run whose judging suite was changed after judging", async () => {
    const { dir } = await judged();
    const { key } = keyFiles("ed25519");
    const file = join(dir, "judged-with.yaml");
    writeFileSync(file, STRICTER.replace("100000 GB/s", "1 GB/s"));
    const sha = new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex");
    const cf = await gpucheck("certify", dir, "--key", key);
    expect(cf.code).toBe(2);
    const recorded = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).judgedWith.sha256;
    expect(cf.err).toBe(
      `Cannot certify "${dir}": judged-with.yaml has sha256 ${sha} but results.json says the verdicts were judged with ${recorded}: the file was changed after judging\n`,
    );
  });
});
