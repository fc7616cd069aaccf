// The shape of one test as written. Everything but name and kind is optional here: defaults and
// cross-field rules (metric belongs to the kind, ranks vs GPUs, sizes in the sweep) are applied
// afterwards by lib/load/resolve.ts, which sees the whole suite. Each kind's block comes from its
// kind (lib/kinds/).
import * as z from "../../core/schema.ts";
import { KIND_NAMES, KINDS, type KindName } from "../../kinds/mod.ts";
import { show } from "../../core/units.ts";
import { PATTERNS } from "../../core/types.ts";
import { screenMap } from "./screen.ts";
import { bool, duration, envMap, name, nonEmptyText, nonNegativeInt, oneOf, positiveInt, ratio, strictMap, text } from "../../core/fields.ts";

/** Each kind's block (collective: {...}), optional on every test: resolve.ts says which kind it belongs to. */
const blocks = Object.fromEntries(KIND_NAMES.map((k) => [k, KINDS[k].block.optional()])) as Record<KindName, z.ZodOptional<z.ZodType>>;

const thresholdValue = () => z.union([z.number(), z.string()], { error: (iss) => `must be a number, or a number with its unit such as "400 GB/s", got ${show(iss.input)}` });

/** Transport names, checked against the known set by lib/load/expect.ts (which knows the key they sit under). */
const transportList = () =>
  z.array(z.string({ error: (iss) => `must be a transport name such as NET/IB, got ${show(iss.input)}` }), {
    error: (iss) => (iss.input === undefined ? undefined : `must be a list of transports such as [NET/IB, GDRDMA], got ${show(iss.input)}`),
  });

/** `outlier: { below: 0.93, over: fleet }`: values checked by lib/load/expect.ts, which knows the metric's direction. */
const outlierSchema = () =>
  strictMap(
    {
      below: z.number({ error: (iss) => `must be a ratio such as 0.93, got ${show(iss.input)}` }).optional(),
      above: z.number({ error: (iss) => `must be a ratio such as 1.1, got ${show(iss.input)}` }).optional(),
      mad: z.number({ error: (iss) => `must be a number of scaled MADs such as 3, got ${show(iss.input)}` }).optional(),
      over: text().optional(),
    },
    "a map such as { below: 0.93 }",
  );

/**
 * One threshold; values stay as written until the metric (and so the unit) is known. `require` and
 * `forbid` belong to the `transport` entry, min/max/baseline to the metrics: expect.ts says which.
 */
export const thresholdSchema = strictMap(
  {
    min: thresholdValue().optional(),
    max: thresholdValue().optional(),
    baseline: ratio().optional(),
    require: transportList().optional(),
    forbid: transportList().optional(),
    outlier: outlierSchema().optional(),
  },
  "a map such as { min: 400 GB/s }",
);

export const testSchema = strictMap({
  name: name("test name", /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "expected letters, digits, '.', '_' and '-', starting with a letter or digit"),
  kind: oneOf("kind", KIND_NAMES as [KindName, ...KindName[]]),
  description: text().optional(),
  nodes: positiveInt().optional(),
  gpusPerNode: nonNegativeInt().optional(),
  ranksPerNode: positiveInt().optional(),
  perNode: bool().optional(),
  pattern: oneOf("pattern", PATTERNS).optional(),
  pairs: positiveInt().optional(),
  onFailure: oneOf("onFailure", ["isolate"] as const).optional(),
  screen: screenMap().optional(),
  timeout: duration().optional(),
  env: envMap().optional(),
  python: nonEmptyText().optional(),
  ...blocks,
  // keys are metric names, optionally with a message size: busbw, busbw@1GiB
  expect: z
    .record(z.string(), thresholdSchema, { error: (iss) => (iss.input === undefined ? undefined : `must be a map of metric names to thresholds, got ${show(iss.input)}`) })
    .optional(),
});

export type TestInput = z.output<typeof testSchema>;
export type ThresholdInput = z.output<typeof thresholdSchema>;
