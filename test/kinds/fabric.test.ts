// kind fabric: the parsers on real captures (test/fixtures/fabric/README.md says where each comes from)
// and the comparison with the design on captures of the ibsim fat tree with each fault in place.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compareFabric, counterFindings } from "../../lib/kinds/fabric/checks.ts";
import { parseIbqueryerrors } from "../../lib/kinds/fabric/ibqueryerrors.ts";
import { parseIblinkinfo } from "../../lib/kinds/fabric/iblinkinfo.ts";
import { formatTopology, parseTopology } from "../../lib/kinds/fabric/topology.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/fabric", name), "utf8");
const healthy = parseIblinkinfo(fixture("ibsim-healthy.iblinkinfo"));
const design = parseTopology(formatTopology(healthy, "test"), "fat-tree.topology");
const findings = (capture: string) => compareFabric(design, parseIblinkinfo(fixture(capture))).map((f) => f.message);

describe("iblinkinfo", () => {
  test("ibsim fat tree: 16 HCA ports, 6 switches of 8 ports, both ends of each cable", () => {
    expect(healthy.length).toBe(16 + 6 * 8);
    expect(healthy.find((p) => p.node === "node05 mlx5_0")).toEqual({
      nodeType: "CA",
      node: "node05 mlx5_0",
      guid: "0x0000000000100009",
      lid: 11,
      port: 1,
      width: "4X",
      speedGbps: "2.5",
      state: "Active",
      phys: "LinkUp",
      peer: { node: "leaf02", port: 1, lid: 3 },
    });
    expect(healthy.find((p) => p.node === "leaf01" && p.port === 7)).toMatchObject({ guid: "0x0000000000200000", state: "Down", phys: "Polling", width: null, peer: null });
  });

  test("a real back-to-back ConnectX pair (ArchWiki)", () => {
    const ports = parseIblinkinfo(fixture("archwiki-back-to-back.iblinkinfo"));
    expect(ports.map((p) => [p.node, p.width, p.speedGbps, p.peer?.node])).toEqual([
      ["MT25408 ConnectX Mellanox Technologies", "4X", "5.0", "kvm mlx4_0"],
      ["hostname mlx4_0", "4X", "5.0", "MT25408 ConnectX Mellanox Technologies"],
    ]);
  });

  test("output with no port line is an error that says what to do", () => {
    expect(() => parseIblinkinfo("ibwarn: [1] umad_init: can't open\n", "iblinkinfo on node01")).toThrow(
      "iblinkinfo on node01: no port lines; did iblinkinfo reach a subnet (run it by hand on the node with the subnet manager's view)?",
    );
  });
});

describe("topology file", () => {
  test("snapshot of the healthy fat tree: 24 cables, HCA end first, width and rate", () => {
    expect(design.length).toBe(24);
    expect(design[0]).toEqual({ a: { node: "node01 mlx5_0", port: 1 }, b: { node: "leaf01", port: 1 }, width: "4X", speedGbps: "2.5", line: 3 });
  });

  test("a line it cannot read names the file, line and the format", () => {
    expect(() => parseTopology('"node01 mlx5_0"[1] -- "leaf01"[1]\nnode02 1 leaf01 2\n', "fab.topo")).toThrow(
      'fab.topo:2: cannot read "node02 1 leaf01 2" while loading the fabric topology; write one cable a line: "node01 mlx5_0"[1] -- "leaf01"[1] 4X 2.5 (docs/fabric.md)',
    );
  });

  test("a port cabled twice is refused with both lines", () => {
    expect(() => parseTopology('"n1 mlx5_0"[1] -- "leaf01"[1]\n"n2 mlx5_0"[1] -- "leaf01"[1]\n', "fab.topo")).toThrow(
      'fab.topo:2: port "leaf01" port 1 is already cabled on line 1; a port takes one cable, fix one of the two lines',
    );
  });

  test("an empty file says how to make one", () => {
    expect(() => parseTopology("# nothing\n", "fab.topo")).toThrow(
      "fab.topo: no cables in the fabric topology; write one a line or make one with gpucheck fabric snapshot --out fab.topo",
    );
  });
});

describe("fabric against the design", () => {
  test("healthy: nothing named (unused switch ports that poll are not in the design)", () => {
    expect(findings("ibsim-healthy.iblinkinfo")).toEqual([]);
  });

  test("a switch named by GUID in the design matches its node GUID", () => {
    const byGuid = parseTopology('"node01 mlx5_0"[1] -- "0x200000"[1] 4X 2.5\n', "t");
    expect(compareFabric(byGuid, healthy)).toEqual([]);
  });

  test("unlinked port: the missing cable, its down end and the absent HCA", () => {
    expect(findings("ibsim-unlinked.iblinkinfo")).toEqual([
      'cable "node10 mlx5_0" port 1 – "leaf03" port 2 (topology line 12) is missing: "leaf03" port 2 Down/Polling; "node10 mlx5_0" is not in the fabric; reseat the cable between "node10 mlx5_0" port 1 and "leaf03" port 2, and replace it if the fault stays; check the switch port',
    ]);
  });

  test("swapped cables: one finding naming all four ends", () => {
    expect(findings("ibsim-swapped.iblinkinfo")).toEqual([
      'swapped cables: "node05 mlx5_0" port 1 goes to "leaf02" port 2 and "node06 mlx5_0" port 1 to "leaf02" port 1; the design cables "node05 mlx5_0" port 1 to "leaf02" port 1 and "node06 mlx5_0" port 1 to "leaf02" port 2: swap the cables at "leaf02" port 2 and "leaf02" port 1',
    ]);
  });

  test("a link at 1X on a 4X design", () => {
    expect(findings("ibsim-width1x.iblinkinfo")).toEqual([
      'cable "node12 mlx5_0" port 1 – "leaf03" port 4 (topology line 14) trained at 1X, expected 4X: lanes are down; reseat the cable between "node12 mlx5_0" port 1 and "leaf03" port 4, and replace it if the fault stays; check the switch port',
    ]);
  });

  test("a switch gone: one finding naming it and the far end of each of its cables", () => {
    expect(findings("ibsim-spine02-unlinked.iblinkinfo")).toEqual([
      'switch "spine02" is missing from the fabric: none of its 4 cables in the design answers ("leaf01" port 6, "leaf02" port 6, "leaf03" port 6, "leaf04" port 6); check that it is powered and its management/uplink cables are in, then rerun',
    ]);
  });

  test("a wrong speed is named with both rates", () => {
    const fast = parseTopology('"node01 mlx5_0"[1] -- "leaf01"[1] 4X 25.78125\n', "t");
    expect(compareFabric(fast, healthy).map((f) => f.message)).toEqual([
      'cable "node01 mlx5_0" port 1 – "leaf01" port 1 (topology line 1) runs at 2.5 Gbps a lane, expected 25.78125: check both ports\' enabled speeds and the cable\'s rating; reseat the cable between "node01 mlx5_0" port 1 and "leaf01" port 1, and replace it if the fault stays; check the switch port',
    ]);
  });
});

describe("error counters", () => {
  const clean = parseIbqueryerrors(fixture("ibsim-clean.ibqueryerrors"));
  const errors = parseIbqueryerrors(fixture("ibsim-errors.ibqueryerrors"));

  test("ibqueryerrors: per port, the ALL sum left out", () => {
    expect(clean).toEqual([]);
    expect(errors).toEqual([
      { node: "node07 mlx5_0", port: 1, counters: { PortRcvErrors: 3 } },
      { node: "leaf02", port: 3, counters: { SymbolErrorCounter: 7, LinkDownedCounter: 2 } },
    ]);
  });

  test("a sweep that never finished is an error", () => {
    expect(() => parseIbqueryerrors('Errors for 0x1 "x"\n', "ibqueryerrors")).toThrow(
      'ibqueryerrors: no "## Summary: N nodes checked" line; ibqueryerrors did not finish a sweep of the subnet (run it by hand to see why)',
    );
  });

  test("counters that moved are named with their port and both ends of the cable", () => {
    expect(counterFindings(clean, errors, healthy).map((f) => [f.parts, f.message])).toEqual([
      [
        ["node07 mlx5_0[1]", "leaf02[3]"],
        'PortRcvErrors on "node07 mlx5_0" port 1 moved from 0 to 3 during the test, cable "node07 mlx5_0" port 1 – "leaf02" port 3; reseat the cable between "node07 mlx5_0" port 1 and "leaf02" port 3, and replace it if the fault stays; check the switch port',
      ],
      [
        ["leaf02[3]", "node07 mlx5_0[1]"],
        'SymbolErrorCounter on "leaf02" port 3 moved from 0 to 7 during the test, cable "leaf02" port 3 – "node07 mlx5_0" port 1; reseat the cable between "leaf02" port 3 and "node07 mlx5_0" port 1, and replace it if the fault stays; check the switch port',
      ],
      [
        ["leaf02[3]", "node07 mlx5_0[1]"],
        'LinkDownedCounter on "leaf02" port 3 moved from 0 to 2 during the test, cable "leaf02" port 3 – "node07 mlx5_0" port 1; reseat the cable between "leaf02" port 3 and "node07 mlx5_0" port 1, and replace it if the fault stays; check the switch port',
      ],
    ]);
    // the same counts before and after: nothing moved
    expect(counterFindings(errors, errors, healthy)).toEqual([]);
  });
});
