import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { RESULTS_SCHEMA_ID, resultsJsonSchema } from "../../lib/report/results-schema.ts";
import { parseResults, readResults, serialiseResults } from "../../lib/report/results.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { expectGolden } from "./golden.ts";
import { RESULTS_SCHEMA } from "./json-schema.ts";
import { assertResultsValid } from "./results-check.ts";
import { RESULTS_INVALID } from "./results-invalid.ts";
import { tempDir } from "../tmp.ts";

const FIXTURE_DIR = resolve(import.meta.dir, "../fixtures/results");
const tmp = () => tempDir("gpucheck-results-");

describe("schema/results.schema.json", () => {
  test("is the JSON Schema generated from lib/report/results-schema.ts (GPUCHECK_UPDATE_GOLDEN=1 rewrites it)", () => {
    expectGolden(RESULTS_SCHEMA, `${JSON.stringify(resultsJsonSchema(), null, 2)}\n`);
  });

  test("is draft 2020-12, versioned by its $id and schemaVersion", () => {
    const schema = JSON.parse(readFileSync(RESULTS_SCHEMA, "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe(RESULTS_SCHEMA_ID);
    expect(schema.properties.schemaVersion).toEqual({ type: "number", const: 1, description: "bumped on any incompatible change" });
  });
});

describe("results fixtures", () => {
  for (const [name, build] of Object.entries(FIXTURES)) {
    test(`${name}.json is what the builder makes, and valid (Python's jsonschema agrees: test/integration/report/validators.test.ts)`, () => {
      const path = join(FIXTURE_DIR, `${name}.json`);
      expectGolden(path, serialiseResults(build()));
      assertResultsValid(path);
      expect(parseResults(readFileSync(path, "utf8"), path)).toEqual(build());
    });
  }
});

describe("invalid results files: refused, each with its message", () => {
  const passing = () => FIXTURES.passing() as unknown as Record<string, any>;
  // Python's jsonschema gives its own message for each: test/integration/report/validators.test.ts
  for (const [what, breakIt, zodMessage] of RESULTS_INVALID) {
    test(what, () => {
      const r = passing();
      breakIt(r);
      const path = join(tmp(), "results.json");
      writeFileSync(path, JSON.stringify(r));
      expect(() => parseResults(JSON.stringify(r), "results.json")).toThrow(`results.json: not a gpucheck results file:\n  ${zodMessage}`);
      expect(() => assertResultsValid(path)).toThrow(`not valid against schema/results.schema.json:\n${path}: not a gpucheck results file:\n  ${zodMessage}`);
    });
  }

  test("not JSON", () => {
    expect(() => parseResults("{", "x/results.json")).toThrow(/^x\/results\.json: not valid JSON: /);
  });

  test("another schema version", () => {
    expect(() => parseResults(JSON.stringify({ schemaVersion: 2 }), "results.json")).toThrow(
      "results.json: schemaVersion 2 is not supported by this gpucheck (it reads version 1)",
    );
  });

  test("a directory without results.json, and a path that does not exist", () => {
    const dir = tmp();
    expect(() => readResults(dir)).toThrow(`"${dir}": no results.json in it (is it a gpucheck results directory?)`);
    expect(() => readResults(join(dir, "nope"))).toThrow(`"${join(dir, "nope")}": no such results directory`);
  });

  test("unknown keys from a newer gpucheck survive reading", () => {
    const r = passing();
    r.tests[0].futureField = { x: 1 };
    const dir = tmp();
    writeFileSync(join(dir, "results.json"), JSON.stringify(r));
    const back = readResults(dir).results as unknown as Record<string, any>;
    expect(back.tests[0].futureField).toEqual({ x: 1 });
  });
});
