// PKey tables: the parser on real smpquery captures from the ibsim fat tree (test/fixtures/fabric/README.md),
// and the consistency check that names each compute port whose partitions differ.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { comparePkeys, parseSmpqueryPkeys } from "../../lib/kinds/fabric/pkeys.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/fabric", name), "utf8");
const inPartition = parseSmpqueryPkeys(fixture("ibsim-node16-partition-8001.smpquery-pkeys"));
const defaultOnly = parseSmpqueryPkeys(fixture("ibsim-node15-default-only.smpquery-pkeys"));

describe("smpquery pkeys", () => {
  test("opensm -P partitions.conf: node16 full member of Default and 0x8001, node15 of Default only", () => {
    expect(inPartition).toEqual([0xffff, 0x8001]);
    expect(defaultOnly).toEqual([0xffff]);
  });

  test("output without the capacity line is an error naming the port", () => {
    expect(() => parseSmpqueryPkeys("ibwarn: [1] smp_query_via: query failed\n", "smpquery pkeys 21 1 (node15 mlx5_0)")).toThrow(
      'smpquery pkeys 21 1 (node15 mlx5_0): no "N pkeys capacity for this port" line; smpquery did not read the port\'s PKey table (run it by hand to see why)',
    );
  });
});

describe("PKey consistency", () => {
  test("the one port left out of a partition is named against the majority", () => {
    const ports = new Map([
      ["node01 mlx5_0[1]", inPartition],
      ["node02 mlx5_0[1]", inPartition],
      ["node15 mlx5_0[1]", defaultOnly],
    ]);
    expect(comparePkeys(ports).map((f) => f.message)).toEqual([
      "node15 mlx5_0[1] holds PKeys [0xffff], expected partitions [0x0001, 0x7fff] (what 2 of 3 compute ports hold); add the port's GUID to the partition in the subnet manager's partitions.conf (or remove it from the one it should not be in) and let the SM sweep",
    ]);
  });

  test("a declared set is the expectation even when every port agrees without it", () => {
    const ports = new Map([
      ["node01 mlx5_0[1]", defaultOnly],
      ["node02 mlx5_0[1]", defaultOnly],
    ]);
    expect(comparePkeys(ports, [0x7fff, 0x8001]).map((f) => f.parts)).toEqual([["node01 mlx5_0[1]"], ["node02 mlx5_0[1]"]]);
    expect(comparePkeys(ports, [0x7fff])).toEqual([]);
  });

  test("no majority: every port is named, none guessed right", () => {
    const ports = new Map([
      ["node01 mlx5_0[1]", inPartition],
      ["node15 mlx5_0[1]", defaultOnly],
    ]);
    expect(comparePkeys(ports).map((f) => f.message)).toEqual([
      "node01 mlx5_0[1] holds PKeys [0xffff, 0x8001]; no partition set is held by most compute ports to compare with; add the port's GUID to the partition in the subnet manager's partitions.conf (or remove it from the one it should not be in) and let the SM sweep",
      "node15 mlx5_0[1] holds PKeys [0xffff]; no partition set is held by most compute ports to compare with; add the port's GUID to the partition in the subnet manager's partitions.conf (or remove it from the one it should not be in) and let the SM sweep",
    ]);
  });
});
