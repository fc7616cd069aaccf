// `gpucheck parse nccl` as a user runs it: every fixture through the command (in this process:
// test/e2e/cli.ts's gpucheckRun), standard input through `bun mod.ts`, and each bad input with its
// exact message and exit code.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";
import { renderNcclTable } from "../../lib/pipeline/parse-nccl-table.ts";
import { parseNccl } from "../../lib/parsers/nccl.ts";
import { FIXTURE_DIR, ncclFixtures } from "./nccl-fixtures.ts";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const bun = join(root, "node_modules", ".bin", "bun");
const gpucheck = (args: string[]) => gpucheckRun(["parse", "nccl", ...args], { cwd: root });
const fromStdin = (input: string) => spawnSync(bun, ["mod.ts", "parse", "nccl", "-"], { cwd: root, encoding: "utf8", input });
const multiReport = new Set(["non-mpi-one-report-per-process-srun.txt", "non-mpi-one-process-hung-srun.txt", "two-runs-one-log.txt"]);
const tmp = tempDir("gpucheck-parse-nccl-");

describe.each(ncclFixtures().map((f) => [f.name, f] as const))("parse nccl %s --json", (name, f) => {
  test("prints the expected report and exits 0", async () => {
    const r = await gpucheck([f.path, "--json"]);
    expect(r.stderr).toBe(
      multiReport.has(name)
        ? `gpucheck: note: "${f.path}" holds 2 nccl-tests reports (one per process without MPI, or several runs); showing the first, all count for "complete"\n`
        : "",
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(f.expected);
  });
});

test("- reads standard input, and JSON is the default when stdout is not a terminal", () => {
  const f = ncclFixtures().find((x) => x.name === "h100-p5-8rank-allreduce-mpirun-tag-output.txt")!;
  const r = fromStdin(f.text);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(f.expected);
});

test("a missing log: one line, exit 2", async () => {
  const path = join(tmp, "missing.log");
  const r = await gpucheck([path]);
  expect([r.status, r.stdout, r.stderr]).toEqual([2, "", `Cannot read nccl-tests log "${path}": no such file\n`]);
});

test("a directory: one line, exit 2", async () => {
  const r = await gpucheck([FIXTURE_DIR]);
  expect([r.status, r.stdout, r.stderr]).toEqual([
    2,
    "",
    `gpucheck: cannot read the nccl-tests log "${FIXTURE_DIR}": it is a directory (EISDIR): give the path of a file, or choose another log\n`,
  ]);
});

test.each([
  ["empty", ""],
  ["not nccl-tests output", "Authorization required, but no authorization protocol specified\nnode01:77:77 [0] NCCL INFO Bootstrap : Using eth0\n# just a comment\n"],
  ["JSON from another tool", '{"metrics":{"loss":0.3}}\n'],
  ["binary", "\u0000\u0001\u0002ELF\u0000\u0000"],
])("no nccl-tests output (%s): exit 3", async (what, content) => {
  const path = join(tmp, `${what.replace(/\W+/g, "-")}.log`);
  writeFileSync(path, content);
  const r = await gpucheck([path, "--json"]);
  expect([r.status, r.stdout, r.stderr]).toEqual([3, "", `gpucheck: "${path}" holds no nccl-tests output: no table header, result row, footer or failure line\n`]);
});

test("an nccl-tests JSON file broken beyond repair: exit 3 with the JSON error", async () => {
  const path = join(tmp, "broken.json");
  writeFileSync(path, '{"version":3,"nccl_version":22907,"results":[{"size":8,,"count":2}]}');
  const r = await gpucheck([path]);
  // the detail is the JavaScript engine's JSON.parse message (Bun's JavaScriptCore)
  expect([r.status, r.stdout, r.stderr]).toEqual([3, "", `gpucheck: "${path}": unreadable nccl-tests JSON file: JSON Parse error: Property name must be a string literal\n`]);
});

test("the terminal view lists every row and says how the run ended", () => {
  const f = ncclFixtures().find((x) => x.name === "failure-mid-row-v2.19.6.txt")!;
  const lines = renderNcclTable(parseNccl(f.text)).trimEnd().split("\n");
  expect(lines[0]).toBe("all_reduce, 16 ranks, 2 rows");
  expect(lines[1]!.split(/\s{2,}/)).toEqual(["size", "type", "redop", "root", "oop us", "oop busbw", "oop #wrong", "ip us", "ip busbw", "ip #wrong"]);
  expect(lines[2]!.split(/\s+/)).toEqual(["1", "MiB", "float", "sum", "-1", "61.52", "31.95", "0", "60.87", "32.3", "0"]);
  expect(lines[3]!.split(/\s+/)).toEqual(["16", "MiB", "float", "sum", "-1", "312.4", "100.69", "0", "310.9", "101.18", "0"]);
  expect(lines[4]).toBe(`max busbw 101.18 GB/s, avg busbw - GB/s, out of bounds -, 0 wrong values in total; failed: ${f.expected.failure}`);
  expect(readFileSync(f.path, "utf8")).toContain(f.expected.failure!);
});

test("the terminal view totals the wrong values, and says when the data check was off", () => {
  const wrong = ncclFixtures().find((x) => x.name === "gh200-16rank-allreduce-wrong-nonzero-v2.17.9.txt")!;
  expect(renderNcclTable(parseNccl(wrong.text)).trimEnd().split("\n").at(-1)).toContain(", 3935945 wrong values in total; ");
  const na = ncclFixtures().find((x) => x.name === "alltoall-inplace-na-v2.19.6.txt")!;
  expect(renderNcclTable(parseNccl(na.text)).trimEnd().split("\n").at(-1)).toMatch(
    /, (\d+ wrong values? in total \(\d+ placements not checked\)|wrong values not checked \(N\/A\)); /,
  );
});
