// The in-toto Test Result predicate (in-toto/attestation spec/predicates/test-results.md, type
// https://in-toto.io/attestation/test-result/v0.1; fields as in its protobuf, test_result.proto:
// result, configuration, url, passedTests, warnedTests, failedTests), built from the acceptance
// statement: a second statement over the same subjects, so that in-toto tooling reads pass and fail
// without knowing gpucheck. Pure: certify signs it, verify rebuilds it and compares.
import type { Statement } from "./predicate.ts";

export const TEST_RESULT_PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1";
/** The second envelope, beside certificate.intoto.json. */
export const TEST_RESULT_FILE = "certificate.test-result.intoto.json";

export interface TestResultPredicate {
  /** PASSED only when the run ended and every test passed; WARNED when none failed but some did not pass (skipped) */
  result: "PASSED" | "WARNED" | "FAILED";
  /** the suite the tests ran with (and the judging suite of a re-judged run), as ResourceDescriptors */
  configuration: Array<{ name: string; digest: { sha256: string } }>;
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
}

export interface TestResultStatement {
  _type: Statement["_type"];
  subject: Statement["subject"];
  predicateType: typeof TEST_RESULT_PREDICATE_TYPE;
  predicate: TestResultPredicate;
}

export function testResultStatement(acceptance: Statement): TestResultStatement {
  const p = acceptance.predicate;
  const named = (o: string[]) => p.tests.filter((t) => o.includes(t.outcome)).map((t) => t.name);
  // a test that never ended, or failed, or could not be measured, is a failure: never a pass
  const failedTests = named(["failed", "error", "unfinished"]);
  const warnedTests = named(["skipped"]);
  const incomplete = p.incomplete !== undefined || !p.complete;
  const configuration = [{ name: p.suite.file, digest: { sha256: p.suite.sha256 } }];
  if (p.judged) configuration.push({ name: p.judged.suite.file, digest: { sha256: p.judged.suite.sha256 } });
  return {
    _type: acceptance._type,
    subject: acceptance.subject,
    predicateType: TEST_RESULT_PREDICATE_TYPE,
    predicate: {
      result: failedTests.length > 0 || incomplete || p.outcome === "failed" || p.outcome === "error" ? "FAILED" : warnedTests.length > 0 ? "WARNED" : "PASSED",
      configuration,
      passedTests: named(["passed"]),
      warnedTests,
      failedTests,
    },
  };
}
