// Validation of junit.xml against junit-10.xsd (the schema the Jenkins xUnit plugin uses) with
// xmllint from Debian's libxml2-utils, plus the counts Jenkins' schema cannot check. Other tests
// that produce a junit.xml (integration runs of every platform) call assertJunitValid on it.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "../tmp.ts";

export const JUNIT_XSD = resolve(import.meta.dir, "../fixtures/junit/junit-10.xsd");

function xmllint(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync("xmllint", args, { encoding: "utf8" });
  if (r.error) throw new Error(`xmllint could not run (install Debian's libxml2-utils): ${r.error.message}`);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Throws with xmllint's own message when the file is not valid, or when a testsuite's counts are wrong. */
export function assertJunitValid(path: string): void {
  assertJunitSchemaValid(path);
  const q = (xpath: string) => xmllint(["--xpath", xpath, path]).out.trim();
  const suites = Number(q("count(//testsuite)"));
  for (let i = 1; i <= suites; i++) {
    const s = `(//testsuite)[${i}]`;
    const expect: Record<string, string> = {
      tests: q(`count(${s}/testcase)`),
      failures: q(`count(${s}/testcase[failure])`),
      errors: q(`count(${s}/testcase[error])`),
      skipped: q(`count(${s}/testcase[skipped])`),
    };
    for (const [attr, n] of Object.entries(expect)) {
      const said = q(`string(${s}/@${attr})`);
      // skipped is optional in the schema; the others are required, so the XSD already caught their absence
      if (said === "" && attr === "skipped") continue;
      if (said !== n) throw new Error(`${path}: testsuite ${i} says ${attr}="${said}" but has ${n}`);
    }
  }
}

/** Against junit-10.xsd only: one xmllint run, for files too big to query once per count (test/integration/no-daemon/report-fleet.test.ts counts them itself). */
export function assertJunitSchemaValid(path: string): void {
  const v = xmllint(["--noout", "--schema", JUNIT_XSD, path]);
  if (v.code !== 0) throw new Error(`${path} does not validate against junit-10.xsd:\n${v.err}`);
}

/** The same for text not yet on disk. */
export function assertJunitTextValid(xml: string, name = "junit.xml"): void {
  const dir = tempDir("gpucheck-junit-");
  const path = join(dir, name);
  writeFileSync(path, xml);
  assertJunitValid(path);
}
