// The top level of a suite file and its `defaults:` block. The tests and the platform block are
// checked piece by piece (./test.ts, ./platform.ts) so that one bad test does not hide the
// problems of the others.
import * as z from "../../core/schema.ts";
import { bool, duration, envMap, name, nonEmptyText, nonNegativeInt, positiveInt, strictMap, text } from "../../core/fields.ts";

export const SUITE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const suiteSchema = strictMap({
  name: name("suite name", SUITE_NAME, "expected lower-case letters, digits and '-', starting with a letter or digit"),
  description: text().optional(),
  cluster: text().optional(),
  // resolved by the loader before this schema sees the merged suite
  extends: z.unknown().optional(),
  remove: z.unknown().optional(),
  platform: z.unknown().optional(),
  defaults: z.unknown().optional(),
  tests: z.array(z.unknown(), { error: (iss) => (iss.input === undefined ? undefined : "must be a list of tests") }).min(1, { error: () => "must list at least one test" }),
});

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
