// Bad `fabric:` blocks: exactly what `gpucheck validate` prints (exit 2), at the line that is wrong.
// The topology is read at load, relative to the suite file, so a missing file or a line gpucheck
// cannot read is said before any test runs.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { load, problems } from "./_load.ts";

const TOPO = '"node01 mlx5_0"[1] -- "leaf01"[1] 4X 2.5\n';

/** As _load.ts's rejects, with rack.topo beside the suite: each case is about the block alone. */
function rejects(cases: Array<[string, string, string]>): void {
  for (const [title, yaml, out] of cases) {
    test(title, async () => {
      expect(await problems({ "suite.yaml": yaml.slice(1), "rack.topo": TOPO })).toBe(out.slice(1, -1));
    });
  }
}

describe("fabric block", () => {
  rejects([
    [
      "no topology",
      `
name: s
tests:
  - name: f
    kind: fabric
    fabric: { via: ssh sm-node }
`,
      `
suite.yaml:5:13: "fabric.topology" is required: the file that declares every cable (write one from a good fabric with gpucheck fabric snapshot --out FILE)
      fabric: { via: ssh sm-node }
              ^
`,
    ],
    [
      "a PKey that is not hex",
      `
name: s
tests:
  - name: f
    kind: fabric
    fabric:
      topology: rack.topo
      pkeys: "0x7fff,zz"
`,
      `
suite.yaml:7:14: "zz" is not a PKey; give "majority" or PKeys in hex separated by commas ("0x7fff,0x8001")
        pkeys: "0x7fff,zz"
               ^
`,
    ],
    [
      "pkeys neither majority nor a list",
      `
name: s
tests:
  - name: f
    kind: fabric
    fabric: { topology: rack.topo, pkeys: 7 }
`,
      `
suite.yaml:5:43: "pkeys" must be "majority" or a list of PKeys, got 7; give "majority" or PKeys in hex separated by commas ("0x7fff,0x8001")
      fabric: { topology: rack.topo, pkeys: 7 }
                                            ^
`,
    ],
    [
      "a counter gpucheck does not watch",
      `
name: s
tests:
  - name: f
    kind: fabric
    fabric: { topology: rack.topo, counters: [SymbolErrorCounter, VL15Dropped] }
`,
      `
suite.yaml:5:46: "VL15Dropped" is not a watched error counter: give some of SymbolErrorCounter, LinkDownedCounter, LinkErrorRecoveryCounter, PortRcvErrors, ExcessiveBufferOverrunErrors
      fabric: { topology: rack.topo, counters: [SymbolErrorCounter, VL15Dropped] }
                                               ^
`,
    ],
    [
      "perNode and nodes on a test that runs on no node",
      `
name: s
tests:
  - name: f
    kind: fabric
    perNode: true
    nodes: 4
    fabric: { topology: rack.topo }
`,
      `
suite.yaml:5:5: "perNode" does not apply to kind "fabric": it runs once per run where gpucheck runs, on no node; remove it
      perNode: true
      ^
suite.yaml:6:5: "nodes" does not apply to kind "fabric": it runs once per run where gpucheck runs, on no node; remove it
      nodes: 4
      ^
`,
    ],
  ]);

  test("a topology file that does not exist: its path as resolved against the suite's directory, at the line", async () => {
    const out = await problems({ "suites/s.yaml": "name: s\ntests:\n  - name: f\n    kind: fabric\n    fabric:\n      topology: ../fabric/rack.topo\n" });
    const [head, ...rest] = out.split("\n");
    expect(head).toMatch(
      /^suites\/s\.yaml:6:17: cannot read the fabric topology \/.+\/fabric\/rack\.topo: ENOENT; the path is relative to the suite file \(write one with gpucheck fabric snapshot --out FILE\)$/,
    );
    expect(rest.join("\n")).toBe("        topology: ../fabric/rack.topo\n                  ^");
  });

  test("a topology line gpucheck cannot read: the topology's file and line, at the suite's line", async () => {
    const out = await problems({ "s.yaml": "name: s\ntests:\n  - name: f\n    kind: fabric\n    fabric: { topology: rack.topo }\n", "rack.topo": `${TOPO}leaf01 17 spine01 1\n` });
    expect(out).toBe(
      's.yaml:5:25: rack.topo:2: cannot read "leaf01 17 spine01 1" while loading the fabric topology; write one cable a line: "node01 mlx5_0"[1] -- "leaf01"[1] 4X 2.5 (docs/fabric.md)\n      fabric: { topology: rack.topo }\n                          ^',
    );
  });

  test("a good block: the topology resolved against the suite file's directory, the counters defaulted", async () => {
    const suite = await load({
      "suites/s.yaml": "name: s\ntests:\n  - name: f\n    kind: fabric\n    fabric: { topology: rack.topo, pkeys: majority }\n",
      "suites/rack.topo": TOPO,
    });
    const t = suite.tests[0];
    if (t.kind !== "fabric") throw new Error("not a fabric test");
    expect(t.fabric.topologyPath?.endsWith(join("suites", "rack.topo"))).toBe(true);
    expect({ ...t.fabric, topologyPath: undefined }).toEqual({
      topology: "rack.topo",
      topologyPath: undefined,
      pkeys: "majority",
      counters: ["SymbolErrorCounter", "LinkDownedCounter", "LinkErrorRecoveryCounter", "PortRcvErrors", "ExcessiveBufferOverrunErrors"],
    });
  });
});
