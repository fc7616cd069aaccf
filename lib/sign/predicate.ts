// The gpucheck acceptance predicate: what a certificate asserts about a cluster. The schema
// (predicate-schema.ts) is the contract between `certify` (which builds it from results.json) and
// `verify` and the human-readable certificate (which read it back): bump the version in
// PREDICATE_TYPE for any incompatible change. This file holds its names and types only, so that
// what imports them does not load zod.
import type { z } from "zod";
import type { acceptancePredicate, node, test } from "./predicate-schema.ts";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const PREDICATE_TYPE = "https://gpucheck.dev/acceptance/v1";
/** The files a v1 certificate covers, by name relative to the results directory. */
export const SUBJECT_FILES = ["results.json", "junit.xml", "suite.yaml"] as const;
/** Signed too where the run wrote them (runs before they existed have none): derived from results.json. */
export const ECOSYSTEM_SUBJECTS = ["ctrf.json", "inventory.cdx.json", "metrics.prom"] as const;
/** The executor's copy of the suite file, byte for byte, in the results directory. */
export const SUITE_FILE = "suite.yaml";
/**
 * A run re-judged by `gpucheck judge`: the judging suite's bytes, beside the run's suite.yaml. Its
 * thresholds gave the verdicts, so a certificate of such a run covers it as a fourth subject.
 */
export const JUDGED_WITH_FILE = "judged-with.yaml";

export type AcceptancePredicate = z.infer<typeof acceptancePredicate>;
export type PredicateNode = z.infer<typeof node>;
export type PredicateTest = z.infer<typeof test>;

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: Array<{ name: string; digest: { sha256: string } }>;
  predicateType: typeof PREDICATE_TYPE;
  predicate: AcceptancePredicate;
}
