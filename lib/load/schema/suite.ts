// The top level of a suite file and its `defaults:` block. The tests and the platform block are
// checked piece by piece (./test.ts, ./platform.ts) so that one bad test does not hide the
// problems of the others.
import * as z from "../../core/schema.ts";
import { bool, duration, envMap, envNames, name, nonEmptyText, nonNegativeInt, positiveInt, size, strictMap, text } from "../../core/fields.ts";

export const SUITE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const suiteSchema = strictMap({
  name: name("suite name", SUITE_NAME, "expected lower-case letters, digits and '-', starting with a letter or digit"),
  description: text().optional(),
  cluster: text().optional(),
  // env names whose values are written as *** (beside those that look secret: lib/core/redact.ts)
  redact: envNames().optional(),
  // resolved by the loader before this schema sees the merged suite
  // each failed or errored node's bundle (docs/evidence.md): its size limit, how long the nodes may take
  // (a frozen node answers nothing), or none at all (a health run over a thousand nodes may not want one from each)
  evidence: strictMap({ maxBytes: size().optional(), timeout: duration().optional(), collect: bool().optional() }).optional(),
  extends: z.unknown().optional(),
  remove: z.unknown().optional(),
  platform: z.unknown().optional(),
  defaults: z.unknown().optional(),
  tests: z.array(z.unknown(), { error: (iss) => notAList(iss.input) }).min(1, { error: () => "must list at least one test" }),
});

/**
 * A map of tests keyed by name is what someone overriding a parent's test tends to write first;
 * the message shows the list form with their own first name.
 */
function notAList(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  const first = input !== null && typeof input === "object" ? Object.keys(input)[0] : undefined;
  if (first === undefined) return "must be a list of tests";
  return `must be a list of tests, not a map: write each test as "- name: ${first}" with its fields under it (a test with the name of one in the suite it extends changes only the fields it gives)`;
}

export const defaultsSchema = strictMap({
  timeout: duration().optional(),
  queueTimeout: duration().optional(),
  python: nonEmptyText().optional(),
  env: envMap().optional(),
  nodes: positiveInt().optional(),
  gpusPerNode: nonNegativeInt().optional(),
  ranksPerNode: positiveInt().optional(),
  // a one-node test meeting several hosts would leave all but one idle: run it on each (as --each-node)
  eachNode: bool().optional(),
});

export type DefaultsInput = z.output<typeof defaultsSchema>;
