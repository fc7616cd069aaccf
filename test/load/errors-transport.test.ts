// `transport: { require, forbid }` in expect: each bad input and exactly what `gpucheck validate` prints.
import { describe, expect, test } from "bun:test";
import { load, rejects } from "./_load.ts";

describe("transport expectations", () => {
  rejects([
    [
      "unknown transport names, each with the close one",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: { require: [NET/IBB, GDRDMA], forbid: [NET/Sockets] }
`,
      `
suite.yaml:6:30: unknown transport "NET/IBB" in "require": did you mean "NET/IB"?
        transport: { require: [NET/IBB, GDRDMA], forbid: [NET/Sockets] }
                               ^
suite.yaml:6:57: unknown transport "NET/Sockets" in "forbid": did you mean "NET/Socket"?
        transport: { require: [NET/IBB, GDRDMA], forbid: [NET/Sockets] }
                                                          ^
`,
    ],
    [
      "transport on a test that is not a collective",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      transport: { require: [NET/IB] }
`,
      `
suite.yaml:6:7: "transport" applies to kind "collective" only: it is NCCL's account of a collective's connections
        transport: { require: [NET/IB] }
        ^
`,
    ],
    [
      "a number bound on transport",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: { require: [NET/IB], min: 3 }
`,
      `
suite.yaml:6:39: "min" does not apply to "transport": it takes "require" and "forbid"
        transport: { require: [NET/IB], min: 3 }
                                        ^
`,
    ],
    [
      "require on a metric",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: 300 GB/s, require: [NET/IB] }
`,
      `
suite.yaml:6:31: "require" applies to "transport" only: a metric takes "min", "max" or "baseline"
        busbw: { min: 300 GB/s, require: [NET/IB] }
                                ^
`,
    ],
    [
      "transport with neither require nor forbid",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: {}
`,
      `
suite.yaml:6:7: "transport" needs "require" or "forbid", e.g. { require: [NET/IB], forbid: [NET/Socket] }
        transport: {}
        ^
`,
    ],
    [
      "require that is not a list",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: { require: NET/IB }
`,
      `
suite.yaml:6:29: "require" must be a list of transports such as [NET/IB, GDRDMA], got "NET/IB"
        transport: { require: NET/IB }
                              ^
`,
    ],
    [
      "a transport that is not a name",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: { forbid: [3] }
`,
      `
suite.yaml:6:29: item 1 of "forbid" must be a transport name such as NET/IB, got 3
        transport: { forbid: [3] }
                              ^
`,
    ],
    [
      "the same transport required and forbidden",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket, NET/IB] }
`,
      `
suite.yaml:6:68: transport "NET/IB" is both required and forbidden
        transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket, NET/IB] }
                                                                     ^
`,
    ],
    [
      "transport on the gloo backend",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { backend: gloo }
    expect:
      transport: { require: [NET/IB] }
`,
      `
suite.yaml:7:7: "transport" needs NCCL, but backend is "gloo": NCCL never runs, so its transport is never known
        transport: { require: [NET/IB] }
        ^
`,
    ],
    [
      "transport on a CPU suite (auto picks gloo)",
      `
name: s
defaults:
  gpusPerNode: 0
  ranksPerNode: 2
tests:
  - name: a
    kind: collective
    expect:
      transport: { forbid: [NET/Socket] }
`,
      `
suite.yaml:9:7: "transport" needs NCCL, but "gpusPerNode" is 0: the collective runs on gloo, so its transport is never known
        transport: { forbid: [NET/Socket] }
        ^
`,
    ],
    [
      "transport at a message size",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transport@1GiB: { require: [NET/IB] }
`,
      `
suite.yaml:6:7: "transport" is not measured per message size: remove "@1GiB"
        transport@1GiB: { require: [NET/IB] }
        ^
`,
    ],
    [
      "a misspelt transport key",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      transprot: { require: [NET/IB] }
`,
      `
suite.yaml:6:7: unknown metric "transprot" for kind "collective": did you mean "transport"?
        transprot: { require: [NET/IB] }
        ^
`,
    ],
  ]);

  test("a valid rule resolves to the tokens as written", async () => {
    const suite = await load({
      "suite.yaml": "name: s\ntests:\n  - name: a\n    kind: collective\n    expect:\n      transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket] }\n",
    });
    expect(suite.tests[0].expect).toEqual([
      { metric: "transport", unit: "", transport: { require: ["NET/IB", "GDRDMA"], forbid: ["NET/Socket"] }, text: "transport: require NET/IB, GDRDMA; forbid NET/Socket" },
    ]);
  });
});
