// npm test's closing list of its slowest tests (scripts/slowest-tests.ts) read from bun's JUnit report.
import { expect, test } from "bun:test";
import { formatSlowest, slowestCases } from "../../scripts/slowest-tests.ts";

const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="3">
  <testsuite name="test/a.test.ts" file="test/a.test.ts" tests="2" time="7.5">
    <testcase name="quick &amp; small" classname="" time="0.25" file="test/a.test.ts" line="4" assertions="1" />
    <testcase name="builds a &quot;fleet&quot;" classname="" time="7.125" file="test/a.test.ts" line="9" assertions="2" />
  </testsuite>
  <testsuite name="test/b.test.ts" file="test/b.test.ts" tests="1" time="1">
    <testcase name="middle" classname="" time="1" file="test/b.test.ts" line="3" assertions="1"><failure type="AssertionError" /></testcase>
  </testsuite>
</testsuites>`;

test("every testcase, slowest first, its name unescaped and its file:line kept", () => {
  expect(slowestCases(REPORT)).toEqual([
    { file: "test/a.test.ts", line: "9", name: 'builds a "fleet"', seconds: 7.125 },
    { file: "test/b.test.ts", line: "3", name: "middle", seconds: 1 },
    { file: "test/a.test.ts", line: "4", name: "quick & small", seconds: 0.25 },
  ]);
});

test("the list says how many tests are over a unit test's 5 s budget", () => {
  expect(formatSlowest(slowestCases(REPORT), 2)).toBe(
    ["2 slowest of 3 tests (1 over the 5 s budget of a unit test)", '   7.13 s  test/a.test.ts:9  builds a "fleet"', "   1.00 s  test/b.test.ts:3  middle"].join("\n"),
  );
});
