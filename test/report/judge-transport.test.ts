// `transport:` judged against NCCL's account (measured from the real logs in test/fixtures/nccl-info).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { measure } from "../../lib/assess/measure.ts";
import { rejudgeResults } from "../../lib/assess/rejudge.ts";
import { ResultsFileSchema } from "../../lib/report/results-schema.ts";
import type { Expectation, Measurement } from "../../lib/core/types.ts";
import { COLLECTIVE_DEFAULTS } from "../../lib/kinds/collective/params.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/nccl-info", name), "utf8");

const rule = (require: string[], forbid: string[] = []): Expectation => ({
  metric: "transport",
  unit: "",
  transport: { require, forbid },
  text: `transport: ${[require.length ? `require ${require.join(", ")}` : "", forbid.length ? `forbid ${forbid.join(", ")}` : ""].filter(Boolean).join("; ")}`,
});
const IB_ONLY = rule(["NET/IB"], ["NET/Socket"]);

/** A complete all_reduce result whose rank logs hold `logs`. */
function measured(logs: string[]): Measurement {
  const table = [
    "# Collective test starting: all_reduce_perf",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "     1048576        262144     float     sum      -1   3332.3    0.31    0.31      0   3392.5    0.31    0.31      0",
    "# Out of bounds values : 0 OK",
    "# Avg bus bandwidth    : 0.31",
    "#",
    "# Collective test concluded: all_reduce_perf",
  ].join("\n");
  return measure(
    "collective",
    table,
    undefined,
    logs.map((l) => `${table}\n${l}`),
  );
}
const done = (m: Measurement) => ({ status: "completed" as const, measurement: m });

describe("transport checks", () => {
  test("sockets where IB is required and sockets forbidden: failed, naming what the connections used", () => {
    const v = judgeUnit([IB_ONLY], done(measured([fixture("8gpu-2node-p2p-ipc-socket-fallback.txt")])));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("transport: P2P/IPC, NET/Socket used, NET/IB required, NET/Socket forbidden (connections: 14 × P2P/IPC, 2 × NET/Socket)");
    expect(v.checks[0]).toEqual({
      metric: "transport",
      expectation: "transport: require NET/IB; forbid NET/Socket",
      measured: ["P2P/IPC", "NET/Socket"],
      expected: { require: ["NET/IB"], forbid: ["NET/Socket"] },
      unit: "",
      ok: false,
      message: v.reason,
    });
  });

  test("IB with GPUDirect RDMA meets require NET/IB, GDRDMA", () => {
    const v = judgeUnit([rule(["NET/IB", "GDRDMA"], ["NET/Socket"])], done(measured([fixture("a100pcie-2node-ibext-gdrdma-v2.21.5.txt")])));
    expect(v.outcome).toBe("passed");
    expect(v.checks[0].message).toBe("transport: NET/IB, GDRDMA used (requires NET/IB, GDRDMA, forbids NET/Socket)");
  });

  test("IB without GDRDMA misses a GDRDMA requirement and says why GDR was off", () => {
    const v = judgeUnit([rule(["NET/IB", "GDRDMA"])], done(measured([fixture("4gpu-2node-ring-gdr-distance-v2.4.7.txt")])));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe(
      "transport: P2P/IPC, NET/IB used, GDRDMA required (connections: 6 × P2P/IPC, 4 × NET/IB; GPUDirect RDMA disabled for GPU 2[2] / HCA 0 (distance 3 >= 2); GPU 3[3] / HCA 0 (distance 3 >= 2))",
    );
  });

  test("a family token: P2P is met by P2P/CUMEM, NET forbidden is broken by NET/IB", () => {
    const m = measured([fixture("a100sxm-4node-cumem-ibext-pxn-v2.23.4.txt")]);
    expect(judgeUnit([rule(["P2P"])], done(m)).outcome).toBe("passed");
    expect(judgeUnit([rule([], ["NET"])], done(m)).reason).toBe("transport: NET/IB, P2P/CUMEM used, NET forbidden (connections: 24 × NET/IB, 12 × P2P/CUMEM, 24 with GDRDMA)");
  });

  test("gloo: the transport is unmeasured, and a check on it is an error naming why", () => {
    const m = measured(['GPUCHECK_NCCL {"rank":0,"backend":"gloo","source":null,"lines":0,"emitted":0,"capped":false,"reason":"backend gloo: NCCL did not run"}']);
    expect(m.unmeasured).toEqual({ transport: "backend gloo: NCCL did not run" });
    expect(m.transport).toBeUndefined();
    const v = judgeUnit([IB_ONLY], done(m));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("transport unmeasured: backend gloo: NCCL did not run (requires NET/IB, forbids NET/Socket)");
    expect(v.checks[0]).toMatchObject({ measured: null, ok: false });
  });

  test("without a transport rule, nothing is judged on it, but the account is kept", () => {
    const m = measured([fixture("a100pcie-2node-ibext-gdrdma-v2.21.5.txt")]);
    expect(m.transport?.transports).toEqual({ "NET/IB": 8, GDRDMA: 8 });
    expect(judgeUnit([], done(m)).outcome).toBe("passed");
  });
});

describe("results.json keeps transport checks, and judge reads them back", () => {
  test("a transport check and the account validate against the results schema; rejudging gives the same verdict", () => {
    const m = measured([fixture("8gpu-2node-p2p-ipc-socket-fallback.txt")]);
    const verdict = judgeUnit([IB_ONLY], done(m));
    const at = "2025-01-01T00:00:00.000Z";
    const results = {
      schemaVersion: 1 as const,
      gpucheck: "test",
      suite: { name: "s", description: "", path: "s.yaml", sha256: "0".repeat(64) },
      platform: "local",
      command: [],
      startedAt: at,
      endedAt: at,
      complete: true,
      outcome: verdict.outcome,
      inventory: [],
      tests: [
        {
          name: "ib",
          kind: "collective" as const,
          perNode: false,
          nodes: 2,
          gpusPerNode: 8,
          worldSize: 16,
          expect: [IB_ONLY],
          headline: { metric: "busbw", unit: "GB/s" },
          outcome: verdict.outcome,
          units: [{ unit: "all", hosts: ["a", "b"], status: "completed" as const, startedAt: at, endedAt: at, durationS: 1, measurement: m, verdict, logs: [], tail: "" }],
        },
      ],
    };
    const parsed = ResultsFileSchema.parse(JSON.parse(JSON.stringify(results)));
    expect(parsed.tests[0].units[0].verdict.checks[0].measured).toEqual(["P2P/IPC", "NET/Socket"]);
    const suite = {
      name: "s",
      description: "",
      platform: { type: "local", settings: {} },
      queueTimeoutMs: 0,
      source: { path: "t.yaml", sha256: "1".repeat(64), builtin: false },
      tests: [
        {
          name: "ib",
          kind: "collective" as const,
          nodes: 2,
          gpusPerNode: 8,
          ranksPerNode: 8,
          perNode: false,
          timeoutMs: 1,
          env: {},
          python: "python3",
          collective: { ...COLLECTIVE_DEFAULTS },
          expect: [rule([], ["NET/Socket"])],
        },
      ],
    };
    const again = rejudgeResults(parsed, suite).results;
    expect(again.tests[0].units[0].verdict.reason).toBe("transport: P2P/IPC, NET/Socket used, NET/Socket forbidden (connections: 14 × P2P/IPC, 2 × NET/Socket)");
  });
});

describe("gpucheck judge on results written before the transport account", () => {
  test("the account is read from the saved rank logs; units without logs are left alone", async () => {
    const { addTransportFromLogs } = await import("../../lib/parsers/nccl-transport.ts");
    const { FIXTURES } = await import("../fixtures/results/fixtures.ts");
    const old = FIXTURES["per-node"]();
    const logs: Record<string, string> = { "logs/nvlink-allreduce/gpu-01/rank0.log": fixture("8gpu-2node-p2p-ipc-socket-fallback.txt") };
    old.tests[0].units[0].logs = Object.keys(logs);
    const filled = addTransportFromLogs(old, (p) => logs[p]);
    expect(filled.tests[0].units[0].measurement?.transport?.transports).toEqual({ "P2P/IPC": 14, "NET/Socket": 2 });
    expect(filled.tests[0].units[1].measurement?.transport).toBeUndefined();
    expect(filled.tests[0].units[1].measurement?.unmeasured).toBeUndefined();
    expect(old.tests[0].units[0].measurement?.transport).toBeUndefined();
  });
});
