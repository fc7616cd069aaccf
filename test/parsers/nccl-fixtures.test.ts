// Every nccl-tests fixture parses to its expected report: whole, and fed in chunks as the CLI
// streams it (a chunk boundary may fall anywhere: inside a row, a launcher prefix, a JSON string).
import { describe, expect, test } from "bun:test";
import { createNcclParser, parseNccl } from "../../lib/parsers/nccl.ts";
import { ncclFixtures } from "./nccl-fixtures.ts";

const fixtures = ncclFixtures();

test("every published sample and every synthetic case is a fixture", () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(35);
  for (const sample of [
    "h100-2node-16gpu-allreduce-a3mega.txt",
    "gh200-16rank-allreduce-wrong-nonzero-v2.17.9.txt",
    "gh200-2node-allreduce-complete-v2.18.3.txt",
    "h100-p5-8rank-allreduce-mpirun-tag-output.txt",
    "v100-4gpu-legacy-error-column-nccl2.8.txt",
    "v100-4gpu-legacy-nccl2.4.txt",
  ]) {
    expect(fixtures.map((f) => f.name)).toContain(sample);
  }
});

describe.each(fixtures.map((f) => [f.name, f] as const))("%s", (_name, f) => {
  test("parses to the expected report", () => {
    expect(parseNccl(f.text)).toEqual(f.expected);
  });

  test.each([1, 7, 4096])("fed in %i-character chunks gives the same report", (size) => {
    const p = createNcclParser();
    for (let i = 0; i < f.text.length; i += size) p.push(f.text.slice(i, i + size));
    expect(p.end()).toEqual(f.expected);
  });
});

test("the published samples' facts (nccl-samples/README.md)", () => {
  const by = Object.fromEntries(fixtures.map((f) => [f.name, parseNccl(f.text)]));
  const a3 = by["h100-2node-16gpu-allreduce-a3mega.txt"]!;
  expect([a3.rows.length, a3.rows[0]!.size, a3.rows.at(-1)!.size, a3.maxBusbwGBs, a3.avgBusbwGBs]).toEqual([31, 8, 8589934592, 338.82, 70.742]);
  const wrong = by["gh200-16rank-allreduce-wrong-nonzero-v2.17.9.txt"]!;
  const corrupt = wrong.rows.filter((r) => (r.outOfPlace?.wrong ?? 0) > 0 || (r.inPlace?.wrong ?? 0) > 0).map((r) => r.size);
  expect(corrupt).toEqual([2097152, 4194304, 8388608, 16777216, 33554432, 67108864]);
  expect([wrong.rows.length, wrong.complete, wrong.avgBusbwGBs, wrong.outOfBounds]).toEqual([28, false, null, null]);
  const p5 = by["h100-p5-8rank-allreduce-mpirun-tag-output.txt"]!;
  expect([p5.rows.length, p5.maxBusbwGBs, p5.avgBusbwGBs, p5.ranks]).toEqual([32, 483.35, 156.742, null]);
  expect(by["v100-4gpu-legacy-error-column-nccl2.8.txt"]!.avgBusbwGBs).toBe(4.22207);
  expect(by["v100-4gpu-legacy-nccl2.4.txt"]!.avgBusbwGBs).toBe(4.42606);
});
