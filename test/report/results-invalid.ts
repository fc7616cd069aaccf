// results.json files broken one way each, with what zod (lib/report/results-schema.ts, the unit
// tier's check) and Python's jsonschema on schema/results.schema.json (the cross-check in
// test/integration/report/validators.test.ts) say about them.
export const RESULTS_INVALID: Array<[what: string, breakIt: (r: Record<string, any>) => void, zodMessage: string, jsonSchemaMessage: string]> = [
  [
    "an unknown outcome",
    (r) => (r.tests[0].units[0].verdict.outcome = "ok"),
    `tests[0].units[0].verdict.outcome: Invalid option: expected one of "passed"|"failed"|"error"|"skipped"`,
    "tests/0/units/0/verdict/outcome: 'ok' is not one of ['passed', 'failed', 'error', 'skipped', 'unfinished']",
  ],
  [
    "a missing verdict",
    (r) => delete r.tests[0].units[0].verdict,
    "tests[0].units[0].verdict: Invalid input: expected object, received undefined",
    "tests/0/units/0: 'verdict' is a required property",
  ],
  [
    "a busbw row that is not a [size, value] pair",
    (r) => (r.tests[0].units[0].measurement.bySize.busbw[0] = [8]),
    "tests[0].units[0].measurement.bySize.busbw[0]: Too small: expected array to have >=2 items",
    "tests/0/units/0/measurement/bySize/busbw/0: [8] is too short",
  ],
  ["a timestamp without a zone", (r) => (r.startedAt = "2025-03-04 05:06:07"), "startedAt: Invalid ISO datetime", "startedAt: '2025-03-04 05:06:07' does not match"],
];
