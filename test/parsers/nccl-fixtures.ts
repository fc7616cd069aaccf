// The nccl-tests fixtures and the report each must parse to (test/fixtures/nccl/README.md).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { NcclReport } from "../../lib/parsers/nccl.ts";

export const FIXTURE_DIR = join(import.meta.dir, "..", "fixtures", "nccl");

export interface NcclFixture {
  name: string;
  path: string;
  text: string;
  expected: NcclReport;
}

export function ncclFixtures(): NcclFixture[] {
  return readdirSync(FIXTURE_DIR)
    .filter((n) => /\.(txt|json)$/.test(n) && !n.endsWith(".expected.json"))
    .sort()
    .map((name) => {
      const path = join(FIXTURE_DIR, name);
      const expected = JSON.parse(readFileSync(path.replace(/\.(txt|json)$/, ".expected.json"), "utf8")) as NcclReport;
      return { name, path, text: readFileSync(path, "utf8"), expected };
    });
}
