// Prints the slowest testcases of a bun JUnit report (npm test's last lines, scripts/test-unit.sh):
// where the unit tier's time goes, so that a test growing past its budget is seen in every run.
//   bun scripts/slowest-tests.ts REPORT.xml [N]
import { readFileSync } from "node:fs";

/** A test of the unit tier over this is too slow for it (issue 30): make it cheaper or move it to test/integration/. */
export const UNIT_TEST_BUDGET_S = 5;

export interface TimedCase {
  file: string;
  line: string;
  name: string;
  seconds: number;
}

const XML_ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&" };
const unescapeXml = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (m) => XML_ENTITIES[m] ?? m);

/** Every <testcase> of the report with its time attribute, slowest first. */
export function slowestCases(xml: string): TimedCase[] {
  const cases: TimedCase[] = [];
  for (const [tag] of xml.matchAll(/<testcase\s[^>]*>/g)) {
    const attr = (name: string) => unescapeXml(tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1] ?? "");
    cases.push({ file: attr("file"), line: attr("line"), name: attr("name"), seconds: Number(attr("time")) || 0 });
  }
  return cases.sort((a, b) => b.seconds - a.seconds);
}

export function formatSlowest(cases: TimedCase[], n: number): string {
  const top = cases.slice(0, n);
  const over = cases.filter((c) => c.seconds > UNIT_TEST_BUDGET_S).length;
  const lines = top.map((c) => `${c.seconds.toFixed(2).padStart(7)} s  ${c.file}:${c.line}  ${c.name}`);
  const head = `${top.length} slowest of ${cases.length} tests` + (over > 0 ? ` (${over} over the ${UNIT_TEST_BUDGET_S} s budget of a unit test)` : "");
  return [head, ...lines].join("\n");
}

if (import.meta.main) {
  const [report, n = "10"] = process.argv.slice(2);
  if (!report) {
    console.error("usage: bun scripts/slowest-tests.ts REPORT.xml [N]");
    process.exit(2);
  }
  let xml: string;
  try {
    xml = readFileSync(report, "utf8");
  } catch (e) {
    console.error(`slowest-tests: cannot read the JUnit report ${report} (did bun test crash before writing it?): ${(e as Error).message}`);
    process.exit(1);
  }
  console.log(formatSlowest(slowestCases(xml), Number(n)));
}
