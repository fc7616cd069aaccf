// A collective with `rails:`: every rank's log cut at its GPUCHECK_RAIL lines (the format of
// workload/gpucheck_workload/collective_rails.py) → a nic part per rail with that run's busbw and NCCL
// account, judged by name. Each rail's table is the real nccl-tests capture
// test/fixtures/nccl/gh200-2node-allreduce-complete-v2.18.3.txt, its INFO lines those of the real
// two-node capture test/fixtures/nccl-info/a100pcie-2node-ibext-gdrdma-v2.21.5.txt (each node's own
// lines in its own log); where a second HCA's account is needed, that capture with mlx5_0 renamed,
// marked where it is done.
import { expect, test } from "bun:test";
import { judgeUnit } from "../../lib/assess/judge.ts";
import type { Expectation } from "../../lib/core/types.ts";
import { KINDS } from "../../lib/kinds/mod.ts";
import { railsMeasurement } from "../../lib/parsers/nccl-rails.ts";
import { fixtureText, infoLines } from "./nccl-info-lines.ts";

const table = fixtureText("nccl", "gh200-2node-allreduce-complete-v2.18.3.txt");
const gdr = fixtureText("nccl-info", "a100pcie-2node-ibext-gdrdma-v2.21.5.txt");
const noGdr = fixtureText("nccl-info", "a100pcie-2node-ibext-no-gdr-v2.21.5.txt");
const sockets = fixtureText("nccl-info", "8gpu-2node-p2p-ipc-socket-fallback.txt");
const tag = (v: object) => `GPUCHECK_RAIL ${JSON.stringify(v)}`;

interface RailRun {
  rail: string;
  /** each rank's NCCL INFO lines for this rail (rank 0 first) */
  info?: [string, string];
  why?: string;
  rc?: number;
}
const HOSTS = ["test1", "test2"];

/** Both ranks' logs of a rails run; rank 0's also holds each rail's table. */
function logs(runs: RailRun[], done = true): [string, string] {
  return HOSTS.map((host, rank) => {
    const lines: string[] = [];
    runs.forEach((r, index) => {
      lines.push(tag({ rail: r.rail, index, host, rank, nccl_ib_hca: `=${r.rail}` }));
      if (r.why) return void lines.push(tag({ rail: r.rail, index, end: true, why: r.why }));
      if (rank === 0) lines.push(table);
      lines.push(r.info![rank]);
      lines.push(tag({ rail: r.rail, index, end: true, rc: r.rc ?? 0 }));
    });
    if (done) lines.push(tag({ done: true, rails: runs.map((r) => r.rail) }));
    return lines.join("\n");
  }) as [string, string];
}
const onHca = (text: string, hca: string): [string, string] => {
  // written for the test: the real capture with its HCA renamed, as a run pinned to that HCA prints it
  const renamed = text.replaceAll("mlx5_0:1", `${hca}:1`);
  return [infoLines(renamed, "test1"), infoLines(renamed, "test2")];
};
const measure = (ls: [string, string]) => railsMeasurement(ls[0], ls);

test("each rail is a nic part named by its HCA on every host, with its busbw and how its bytes crossed", () => {
  const m = measure(
    logs([
      { rail: "mlx5_0", info: onHca(gdr, "mlx5_0") },
      { rail: "mlx5_3", info: onHca(gdr, "mlx5_3") },
    ]),
  );
  expect(m.components!.map((c) => [c.part, c.metrics, c.unmeasured, c.details])).toEqual([
    [
      { type: "nic", host: "test1, test2", name: "mlx5_0" },
      { rail_busbw: 107.63 },
      {},
      { rail_busbw: "107.63 GB/s busbw at 128 MiB through mlx5_0 alone (NCCL_IB_HCA==mlx5_0; 8 × NET/IB, all GDRDMA)" },
    ],
    [
      { type: "nic", host: "test1, test2", name: "mlx5_3" },
      { rail_busbw: 107.63 },
      {},
      { rail_busbw: "107.63 GB/s busbw at 128 MiB through mlx5_3 alone (NCCL_IB_HCA==mlx5_3; 8 × NET/IB, all GDRDMA)" },
    ],
  ]);
  expect(m.components![0]!.transport!.transports).toEqual({ "NET/IB": 8, GDRDMA: 8 });
  expect(m.metrics).toMatchObject({ complete: 1, busbw: 107.63, busbw_peak: 107.63, busbw_avg: 17.8617, wrong: 0, out_of_bounds: 0 });
  expect(m.details!.busbw).toBe(
    "rail mlx5_0: 107.63 GB/s busbw at 128 MiB through mlx5_0 alone (NCCL_IB_HCA==mlx5_0; 8 × NET/IB, all GDRDMA); rail mlx5_3: 107.63 GB/s busbw at 128 MiB through mlx5_3 alone (NCCL_IB_HCA==mlx5_3; 8 × NET/IB, all GDRDMA)",
  );
  expect(m.bySize!.busbw!.at(-1)).toEqual([134217728, 107.63]);
});

test("a rail whose NCCL INFO shows sockets or another HCA is unmeasured naming the host and both, and the worst-rail metrics say why", () => {
  const m = measure(
    logs([
      { rail: "mlx5_0", info: [infoLines(gdr, "test1"), infoLines(sockets)] },
      { rail: "mlx5_3", info: [infoLines(gdr, "test1"), infoLines(gdr, "test2")] },
    ]),
  );
  expect(m.components!.map((c) => [c.metrics.rail_busbw, c.unmeasured!.rail_busbw])).toEqual([
    [null, "test2: NCCL INFO: the bytes crossed NET/Socket, not NET/IB on mlx5_0 (connections: 14 × P2P/IPC, 2 × NET/Socket)"],
    [
      null,
      "test1: NCCL INFO: NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_3 alone: the NCCL_IB_HCA pin did not hold; " +
        "test2: NCCL INFO: NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_3 alone: the NCCL_IB_HCA pin did not hold",
    ],
  ]);
  expect(m.metrics.busbw).toBeNull();
  expect(m.unmeasured!.busbw).toStartWith("rail mlx5_0: test2: NCCL INFO: the bytes crossed NET/Socket");
  // the data check still ran on both: wrong values are a fact whichever way the bytes went
  expect(m.metrics.wrong).toBe(0);
  expect(m.bySize).toBeUndefined();
});

test("a rail a node lacks, a run cut during a rail, and auto finding no port: null with the reason, never a pass", () => {
  const refused = "test2 has no InfiniBand device (/sys/class/infiniband is empty)";
  const m = measure(
    logs([
      { rail: "mlx5_0", info: onHca(gdr, "mlx5_0") },
      { rail: "mlx5_9", why: refused },
    ]),
  );
  expect(m.components![1]).toEqual({
    part: { type: "nic", host: "test1, test2", name: "mlx5_9" },
    metrics: { rail_busbw: null },
    unmeasured: { rail_busbw: refused, transport: refused },
  });
  const cut = logs([{ rail: "mlx5_0", info: onHca(gdr, "mlx5_0") }], false);
  const half = `${cut[0].split("\n# Out of bounds")[0]}\n`;
  const c = railsMeasurement(half, [half, cut[1]]);
  expect(c.metrics.complete).toBe(0);
  expect(c.components![0]!.unmeasured!.rail_busbw).toBe("rail mlx5_0's table ended before its footer (the run ended during this rail)");
  const none = "rails: auto found no InfiniBand port on rank 0's node (/sys/class/infiniband is empty)";
  const a = railsMeasurement(`${tag({ done: true, rails: [], why: none })}\n`, undefined);
  expect(a.components).toEqual([]);
  expect(a.unmeasured).toMatchObject({ busbw: none, rail_busbw: none, transport: none, wrong: none });
  expect(() => railsMeasurement("Traceback …\n", undefined)).toThrow("no GPUCHECK_RAIL line in rank 0's output: the rails run did not start");
});

test("the judge: a floor, the outlier rule and the transport rule on each rail by name", () => {
  const m = measure(
    logs([
      { rail: "mlx5_0", info: onHca(gdr, "mlx5_0") },
      { rail: "mlx5_3", info: onHca(noGdr, "mlx5_3") },
      { rail: "mlx5_4", why: "test2 has no mlx5_4 (its HCA ports: mlx5_0:1)" },
    ]),
  );
  const expectations: Expectation[] = [
    {
      metric: "rail_busbw",
      unit: "GB/s",
      min: 46,
      perComponent: true,
      outlier: { side: "below", ratio: 0.93, over: "unit" },
      text: "rail_busbw: { min: 46 GB/s, outlier: { below: 0.93 } }",
    },
    { metric: "transport", unit: "", transport: { require: ["NET/IB", "GDRDMA"], forbid: ["NET/Socket"] }, text: "transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket] }" },
  ];
  const v = judgeUnit(expectations, { status: "completed", measurement: m });
  expect(v.outcome).toBe("error");
  expect(v.checks.map((c) => [c.ok, c.message])).toEqual([
    [true, "test1, test2 NIC mlx5_0: rail_busbw 107.6 GB/s ≥ 46 GB/s expected (+134%)"],
    [true, "test1, test2 NIC mlx5_0: rail_busbw 107.6 GB/s is 1.000 × the median 107.6 GB/s of 1 nic part: test1, test2 NIC mlx5_3 (≥ 0.93 expected)"],
    [true, "test1, test2 NIC mlx5_3: rail_busbw 107.6 GB/s ≥ 46 GB/s expected (+134%)"],
    [true, "test1, test2 NIC mlx5_3: rail_busbw 107.6 GB/s is 1.000 × the median 107.6 GB/s of 1 nic part: test1, test2 NIC mlx5_0 (≥ 0.93 expected)"],
    [false, "test1, test2 NIC mlx5_4: rail_busbw unmeasured: test2 has no mlx5_4 (its HCA ports: mlx5_0:1) (expected ≥ 46 GB/s)"],
    [
      false,
      "test1, test2 NIC mlx5_4: rail_busbw unmeasured: test2 has no mlx5_4 (its HCA ports: mlx5_0:1) (outlier rule: fails below 0.93 × the median of the other nic parts of its unit)",
    ],
    [true, "test1, test2 NIC mlx5_0: transport: NET/IB, GDRDMA used (requires NET/IB, GDRDMA, forbids NET/Socket)"],
    [false, "test1, test2 NIC mlx5_3: transport: NET/IB used, GDRDMA required (connections: 8 × NET/IB)"],
    [false, "test1, test2 NIC mlx5_4: transport unmeasured: test2 has no mlx5_4 (its HCA ports: mlx5_0:1) (requires NET/IB, GDRDMA, forbids NET/Socket)"],
  ]);
  expect(v.checks.every((c) => c.part?.type === "nic")).toBe(true);
});

test("the collective kind reads a rails run through its rails reader, and its block's args carry them", () => {
  const ls = logs([{ rail: "mlx5_0", info: onHca(gdr, "mlx5_0") }]);
  const params = {
    ...KINDS.collective.resolve({}, { testAt: [], gpusPerNode: 8, gpusAt: [], timeoutMs: 60_000, report: () => {}, sound: () => true }).collective,
    rails: ["mlx5_0"],
  };
  expect(KINDS.collective.measure(ls[0], { logs: ls, params }).components!.map((c) => c.part.name)).toEqual(["mlx5_0"]);
  expect(KINDS.collective.args(params).slice(-2)).toEqual(["--rails", "mlx5_0"]);
  expect(KINDS.collective.args({ ...params, rails: "auto" }).slice(-2)).toEqual(["--rails", "auto"]);
});
