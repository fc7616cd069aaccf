// The second statement: the in-toto Test Result predicate, checked against a JSON schema written from
// the spec (test/fixtures/sign/in-toto-test-result.schema.json, cites it) by python3-jsonschema, a
// validator that is not gpucheck's; and verify's refusals when it is missing, re-signed or foreign.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheck as run } from "../../e2e/cli.ts";
import { keySigner, serializeEnvelope, signEnvelope } from "../../../lib/sign/dsse.ts";
import { IN_TOTO_PAYLOAD_TYPE } from "../../../lib/sign/envelope.ts";
import { TEST_RESULT_FILE } from "../../../lib/sign/test-result.ts";
import { keyFiles, resultsCopy, SIGN, tmp } from "../../sign/keys-fixture.ts";

function gpucheck(...args: string[]) {
  const p = run(args, { cwd: tmp(), timeoutMs: 60_000 });
  return { code: p.status, out: p.stdout, err: p.stderr };
}

const SCHEMA = join(SIGN, "in-toto-test-result.schema.json");

/** python3-jsonschema's verdict on a statement: "" when valid, else its first error. */
function validate(statement: unknown): string {
  const file = join(tmp(), "statement.json");
  writeFileSync(file, JSON.stringify(statement));
  const py = `import json,sys,jsonschema
s=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(s)
e=next(iter(jsonschema.Draft202012Validator(s).iter_errors(d)),None)
print("" if e is None else e.message)`;
  const p = spawnSync("python3", ["-c", py, SCHEMA, file], { encoding: "utf8" });
  expect(p.stderr).toBe("");
  return p.stdout.trim();
}

function certified(fixture: string, edit?: (r: Record<string, unknown>) => void, flags: string[] = []) {
  const dir = resultsCopy(fixture);
  if (edit) {
    const r = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    edit(r);
    writeFileSync(join(dir, "results.json"), JSON.stringify(r));
  }
  const k = keyFiles("ed25519");
  const c = gpucheck("certify", dir, "--key", k.key, ...flags);
  expect(c.err).toBe("");
  expect(c.out).toContain(`in-toto:     ${join(dir, TEST_RESULT_FILE)} (Test Result statement, same subjects)\n`);
  const envelope = (f: string) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { payload: string };
  const statement = (f: string) => JSON.parse(Buffer.from(envelope(f).payload, "base64").toString("utf8"));
  return { dir, k, acceptance: statement("certificate.intoto.json"), testResult: statement(TEST_RESULT_FILE) };
}

describe("the in-toto Test Result statement", () => {
  test("a passing run: PASSED, every test passed, the same subjects, valid against the spec's schema", () => {
    const c = certified("h100-2node");
    expect(c.testResult.predicate).toEqual({
      result: "PASSED",
      configuration: [{ name: "suite.yaml", digest: { sha256: c.acceptance.predicate.suite.sha256 } }],
      passedTests: ["inventory", "nccl-allreduce-node", "nccl-allreduce", "train-resnet50"],
      warnedTests: [],
      failedTests: [],
    });
    expect(c.testResult.subject).toEqual(c.acceptance.subject);
    expect(c.acceptance.predicate.testResult).toEqual({ file: TEST_RESULT_FILE, predicateType: "https://in-toto.io/attestation/test-result/v0.1" });
    expect(validate(c.testResult)).toBe("");
  }, 60_000);

  test("a failing run: FAILED, the failed and errored tests named, valid", () => {
    const c = certified("h100-2node-failing");
    expect(c.testResult.predicate.result).toBe("FAILED");
    expect(c.testResult.predicate.failedTests).toEqual(["nccl-allreduce-node", "train-resnet50"]);
    expect(validate(c.testResult)).toBe("");
  }, 60_000);

  test("a run signed with --allow-incomplete is FAILED, its unfinished tests failed, never PASSED", () => {
    const c = certified(
      "h100-2node",
      (r) => {
        r.endedAt = null;
        r.complete = false;
        (r.tests as Array<{ outcome: string }>)[3]!.outcome = "unfinished";
      },
      ["--allow-incomplete"],
    );
    expect(c.testResult.predicate.result).toBe("FAILED");
    expect(c.testResult.predicate.failedTests).toEqual(["train-resnet50"]);
    expect(validate(c.testResult)).toBe("");
  }, 60_000);

  test("the schema is not a rubber stamp: a PASSED result with a failed test, and a lower-case result, are refused", () => {
    const c = certified("h100-2node");
    expect(validate({ ...c.testResult, predicate: { ...c.testResult.predicate, failedTests: ["x"] } })).toBe("['x'] is expected to be empty");
    expect(validate({ ...c.testResult, predicate: { ...c.testResult.predicate, result: "pass" } })).toBe("'pass' is not one of ['PASSED', 'WARNED', 'FAILED']");
  }, 60_000);
});

describe("verify checks both statements", () => {
  test("the second envelope missing, re-signed with another verdict, or signed by another key: exit 1, one line", async () => {
    const c = certified("h100-2node-failing");
    const cert = join(c.dir, "certificate.intoto.json");
    const tr = join(c.dir, TEST_RESULT_FILE);
    const verify = () => gpucheck("verify", cert, "--key", c.k.pub, "--results", c.dir);
    const ok = verify();
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`in-toto:  ${TEST_RESULT_FILE} verified: https://in-toto.io/attestation/test-result/v0.1 result FAILED\n`);
    const original = readFileSync(tr, "utf8");

    const forged = { ...c.testResult, predicate: { ...c.testResult.predicate, result: "PASSED", failedTests: [] } };
    writeFileSync(tr, serializeEnvelope(await signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(forged)), keySigner(c.k.privateKey))));
    expect(verify()).toEqual({
      code: 1,
      out: "",
      err: `gpucheck: certificate "${cert}" is NOT valid: ${TEST_RESULT_FILE}: test-result mismatch: its subjects or results are not those of the certificate it sits beside\n`,
    });

    const other = keyFiles("ed25519");
    writeFileSync(tr, serializeEnvelope(await signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(c.testResult)), keySigner(other.privateKey))));
    expect(verify().err).toMatch(new RegExp(`is NOT valid: ${TEST_RESULT_FILE.replace(/\./g, "\\.")}: bad signature: it does not verify with --key \\(SHA256:\\S+\\)\\n$`));

    rmSync(tr);
    expect(verify()).toEqual({
      code: 1,
      out: "",
      err: `gpucheck: certificate "${cert}" is NOT valid: missing file: ${TEST_RESULT_FILE} is named in the certificate but is not beside it (${tr})\n`,
    });
    writeFileSync(tr, original);
    expect(verify().code).toBe(0);
  }, 60_000);
});
