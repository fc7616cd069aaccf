// results.json checked in-process, so that the unit tier needs no python3-jsonschema: through
// lib/report/results-schema.ts, the zod schema that schema/results.schema.json is generated from
// (test/report/results-schema.test.ts keeps the two in step). test/integration/report/validators.test.ts
// runs Python's jsonschema on the same files and fails when the two disagree; test/report/json-schema.ts
// (python3-jsonschema) stays for the integration runs.
import { readFileSync } from "node:fs";
import { parseResults } from "../../lib/report/results.ts";

/** Throws naming each file and its first problems when one is not a valid results file. */
export function assertResultsValid(...paths: string[]): void {
  const errors: string[] = [];
  for (const path of paths) {
    try {
      parseResults(readFileSync(path, "utf8"), path);
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  if (errors.length > 0) throw new Error(`not valid against schema/results.schema.json:\n${errors.join("\n")}`);
}
