// Validation of results.json files against schema/results.schema.json with an implementation that
// is not ours: Python's jsonschema (Debian's python3-jsonschema), Draft 2020-12. Other tests that
// produce a results.json (integration runs) can call assertResultsValid on it.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

export const RESULTS_SCHEMA = resolve(import.meta.dir, "../../schema/results.schema.json");

const SCRIPT = `
import json, sys
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    for top in sorted(validator.iter_errors(json.load(open(path))), key=lambda e: [str(p) for p in e.absolute_path]):
        # "not valid under any of the given schemas" (a nullable object) says nothing: name the deepest cause
        e = best_match([top])
        bad += 1
        print("%s: %s: %s" % (path, "/".join(str(p) for p in e.absolute_path) or "(top level)", e.message))
sys.exit(1 if bad else 0)
`;

/** Every problem, one line each ("path: tests/0/outcome: 'x' is not one of …"); empty when valid. */
export function resultsSchemaErrors(...paths: string[]): string[] {
  return schemaErrors(RESULTS_SCHEMA, ...paths);
}

/** The same against another of schema/'s files (the workload contracts). */
export function schemaErrors(schema: string, ...paths: string[]): string[] {
  const r = spawnSync("/usr/bin/python3", ["-c", SCRIPT, schema, ...paths], { encoding: "utf8" });
  if (r.error) throw new Error(`python3 could not run: ${r.error.message}`);
  if (r.status !== 0 && r.stdout.trim() === "") throw new Error(`jsonschema failed (install Debian's python3-jsonschema):\n${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean);
}

export function assertResultsValid(...paths: string[]): void {
  const errors = resultsSchemaErrors(...paths);
  if (errors.length > 0) throw new Error(`not valid against schema/results.schema.json:\n${errors.join("\n")}`);
}
