// kind: fabric inside a suite: the reading a run takes (real ibsim captures, test/fixtures/fabric/README.md)
// measured and judged as a test result, one check per difference naming both cable ends, with its
// remediation; a tool that fails, or a start sweep that could not be taken, is an error, never a pass;
// and `gpucheck plan` shows what the test runs where gpucheck runs and the sweep before the first test.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError } from "../../lib/core/errors.ts";
import type { Check, MetricCheck, PlannedTest } from "../../lib/core/types.ts";
import { assessTest } from "../../lib/assess/assess.ts";
import { executeTest } from "../../lib/execute/run-test.ts";
import { fabricCheck } from "../../lib/pipeline/fabric.ts";
import { PKEY_QUERIES_AT_ONCE, readPkeyTables } from "../../lib/execute/fabric-tools.ts";
import { fabricMeasurement } from "../../lib/kinds/fabric/kind.ts";
import { RESULTS } from "../../lib/kinds/results.ts";
import { parseIblinkinfo } from "../../lib/kinds/fabric/iblinkinfo.ts";
import type { FabricReading } from "../../lib/kinds/fabric/reading.ts";
import { formatTopology } from "../../lib/kinds/fabric/topology.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { planLines, silentProgress } from "../pipeline/planned-suite.ts";
import { tempDir } from "../tmp.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/fabric", name), "utf8");
const healthy = fixture("ibsim-healthy.iblinkinfo");
const topology = { path: "fat-tree.topo", text: formatTopology(parseIblinkinfo(healthy), "test") };
const SINCE = "since the start of the run (fabric-counters-start.txt)";
const reading = (over: Partial<FabricReading> = {}): string =>
  JSON.stringify({
    topology,
    iblinkinfo: healthy,
    ibqueryerrors: fixture("ibsim-clean.ibqueryerrors"),
    before: { path: "fabric-counters-start.txt", text: fixture("ibsim-clean.ibqueryerrors"), at: SINCE },
    pkeys: null,
    counters: ["SymbolErrorCounter", "LinkDownedCounter", "LinkErrorRecoveryCounter", "PortRcvErrors", "ExcessiveBufferOverrunErrors"],
    ...over,
  } satisfies FabricReading);

const dir = tempDir("gpucheck-fabric-suite-");
writeFileSync(join(dir, "fat-tree.topo"), topology.text);

async function planned(fabric: string): Promise<PlannedTest> {
  const { plan } = await planLines(dir, [
    "name: s",
    "platform: { type: local }",
    "defaults: { gpusPerNode: 0, ranksPerNode: 1 }",
    "tests:",
    `  - { name: fabric, kind: fabric, fabric: ${fabric} }`,
  ]);
  return plan.tests[0];
}

/** The test as judged from one record of its output, as a run assesses it. */
async function judged(output: string, status: "completed" | "infra" = "completed", message?: string) {
  const t = await planned("{ topology: fat-tree.topo }");
  const now = new Date().toISOString();
  return assessTest(t, [{ unit: "all", hosts: [], status, ...(message && { message }), startedAt: now, endedAt: now, ranks: [], output, tail: "", texts: [] }]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const failing = (checks: Check[]) => checks.filter((c) => !c.ok) as MetricCheck[];

describe("a fabric test's verdict", () => {
  test("the healthy fat tree: passed, one passing check per class, each saying what it compared", async () => {
    const r = await judged(reading());
    expect(r.outcome).toBe("passed");
    expect(r.units[0].verdict.checks.map((c) => c.message)).toEqual([
      "fabric_cabling 0: every one of the 24 cables of fat-tree.topo in place and Active/LinkUp",
      "fabric_link_rate 0: every cable of fat-tree.topo at its declared width and speed",
      `fabric_counters 0: no watched error counter (SymbolErrorCounter, LinkDownedCounter, LinkErrorRecoveryCounter, PortRcvErrors, ExcessiveBufferOverrunErrors) moved ${SINCE}`,
    ]);
  });

  test("counters that moved since the run's start and a swapped pair: one failed check each, the cable's ends its part, with a remediation", async () => {
    const r = await judged(reading({ iblinkinfo: fixture("ibsim-swapped.iblinkinfo"), ibqueryerrors: fixture("ibsim-errors.ibqueryerrors") }));
    expect(r.outcome).toBe("failed");
    const bad = failing(r.units[0].verdict.checks);
    expect(bad.map((c) => [c.metric, c.part?.name])).toEqual([
      ["fabric_cabling", '"node05 mlx5_0" port 1 – "leaf02" port 2 – "node06 mlx5_0" port 1 – "leaf02" port 1'],
      ["fabric_counters", '"node07 mlx5_0" port 1 – "leaf02" port 3'],
      ["fabric_counters", '"leaf02" port 3 – "node07 mlx5_0" port 1'],
      ["fabric_counters", '"leaf02" port 3 – "node07 mlx5_0" port 1'],
    ]);
    expect(bad[2].message).toBe(
      `SymbolErrorCounter on "leaf02" port 3 moved from 0 to 7 ${SINCE}, cable "leaf02" port 3 – "node07 mlx5_0" port 1; reseat the cable between "leaf02" port 3 and "node07 mlx5_0" port 1, and replace it if the fault stays; check the switch port`,
    );
    expect(bad.map((c) => c.remediation?.class)).toEqual(["reseat-cable", "reseat-cable", "reseat-cable", "reseat-cable"]);
    expect(r.units[0].measurement?.metrics).toEqual({ fabric_differences: 4, fabric_cabling: 1, fabric_link_rate: 0, fabric_counters: 3, fabric_pkeys: null });
  });

  test("with the sweeps taken after each earlier test, a moved counter names the test it moved during", async () => {
    const clean = fixture("ibsim-clean.ibqueryerrors");
    const errors = fixture("ibsim-errors.ibqueryerrors");
    const sweep = (after: string, text: string) => ({ after, path: `logs/${after}/fabric-counters-after.txt`, text });
    const during = await judged(reading({ ibqueryerrors: errors, sweeps: [sweep("gemm", clean), sweep("allreduce", errors), sweep("train", errors)] }));
    const symbol = (checks: Check[]) => failing(checks).find((c) => c.message.startsWith('SymbolErrorCounter on "leaf02"'))!.message;
    expect(symbol(during.units[0].verdict.checks)).toBe(
      `SymbolErrorCounter on "leaf02" port 3 moved from 0 to 7 ${SINCE}, during test "allreduce" (0 after "gemm", 7 after it), cable "leaf02" port 3 – "node07 mlx5_0" port 1; reseat the cable between "leaf02" port 3 and "node07 mlx5_0" port 1, and replace it if the fault stays; check the switch port`,
    );
    // moved in the first test, and after the last one ended (while the fabric test itself read it)
    const first = symbol((await judged(reading({ ibqueryerrors: errors, sweeps: [sweep("gemm", errors)] }))).units[0].verdict.checks);
    expect(first).toContain(`${SINCE}, during test "gemm" (0 at the start, 7 after it), cable`);
    const last = symbol((await judged(reading({ ibqueryerrors: errors, sweeps: [sweep("gemm", clean)] }))).units[0].verdict.checks);
    expect(last).toContain(`${SINCE}, after test "gemm" ended (0 then), cable`);
  });

  test("the summary's failing rows say the fabric, not a host, for a test that runs on no node", async () => {
    const r = await judged(reading({ ibqueryerrors: fixture("ibsim-errors.ibqueryerrors") }));
    const text = renderSummary({ ...FIXTURES["per-node"](), tests: [{ ...r, name: "fabric" }], outcome: "failed" }, { color: false });
    expect(text).toContain("\nFailing hosts:\n  (the fabric)  fabric: failed: ");
  });

  test("a port out of the declared partition: its check is the subnet manager's to fix, not a cable's", async () => {
    const tables = [
      { node: "node15 mlx5_0", port: 1, lid: 21, text: fixture("ibsim-node15-default-only.smpquery-pkeys") },
      { node: "node16 mlx5_0", port: 1, lid: 22, text: fixture("ibsim-node16-partition-8001.smpquery-pkeys") },
    ];
    const r = await judged(reading({ pkeys: { expected: [0x7fff, 0x8001], tables } }));
    const bad = failing(r.units[0].verdict.checks);
    expect(bad.map((c) => [c.metric, c.part?.name, c.remediation?.class])).toEqual([["fabric_pkeys", '"node15 mlx5_0" port 1', "reconfigure"]]);
    expect(bad[0].message).toStartWith('"node15 mlx5_0" port 1 holds PKeys [0xffff], expected partitions [0x0001, 0x7fff] (the declared PKeys [0x7fff, 0x8001]);');
  });

  test("the reading matches its result schema (schema/workload-fabric.schema.json is made from it)", () => {
    expect(RESULTS.fabric.safeParse(JSON.parse(reading({ pkeys: { expected: "majority", tables: [] } }))).success).toBe(true);
    expect(RESULTS.fabric.safeParse({ ...JSON.parse(reading()), iblinkinfo: 7 }).success).toBe(false);
  });

  test("a reading that is not gpucheck's JSON: a ParseError that says so", () => {
    expect(() => fabricMeasurement("iblinkinfo: command not found")).toThrow(
      new ParseError("the fabric test's reading is not the JSON gpucheck writes (lib/execute/fabric-run.ts); run the test again"),
    );
  });
});

describe("a fabric test that cannot read the fabric is an error", () => {
  const env = (fabricStart: Parameters<typeof executeTest>[1]["fabricStart"]) => ({
    suite: { name: "s", description: "", platform: { type: "local", settings: {} }, queueTimeoutMs: 0, tests: [], source: { path: "s.yaml", sha256: "", builtin: false } },
    settings: {},
    outDir: dir,
    workload: new Map<string, string>(),
    platformRun: () => Promise.reject(new Error("a fabric test launches nothing on the nodes")),
    cli: {},
    progress: silentProgress(),
    signal: new AbortController().signal,
    ...(fabricStart && { fabricStart }),
  });

  test("a wrapper whose tool fails: the command, its exit status and what to do", async () => {
    const t = await planned("{ topology: fat-tree.topo, via: /bin/false }");
    const records = await executeTest(t, env({ path: join(dir, "none.txt"), at: SINCE }));
    const r = assessTest(t, records);
    expect([r.outcome, r.units[0].verdict.reason]).toEqual([
      "error",
      'could not run: "/bin/false iblinkinfo" exited 1 while reading the fabric: no output; run it by hand on a node with the subnet manager\'s view',
    ]);
  });

  test("a wrapper that is not there: an error naming it and what to install, at once", async () => {
    const t = await planned("{ topology: fat-tree.topo, via: /nonexistent/sm-wrapper }");
    const records = await executeTest(t, env({ path: join(dir, "none.txt"), at: SINCE }));
    expect([records[0]!.status, records[0]!.message]).toEqual([
      "infra",
      '/nonexistent/sm-wrapper not found while reading the fabric with "/nonexistent/sm-wrapper iblinkinfo"; install infiniband-diags on this node (Debian/Ubuntu: apt-get install infiniband-diags) or point --via at a node that has it',
    ]);
  });

  test("a wrapper that hangs is stopped at the test's timeout: a timeout naming the command, nothing left running", async () => {
    const hang = join(dir, "hang-via.sh");
    writeFileSync(hang, `#!/bin/sh\necho $$ > ${dir}/hang.pid\nexec sleep 60\n`, { mode: 0o755 });
    const t = await planned(`{ topology: fat-tree.topo, via: ${hang} }`);
    const started = Date.now();
    const records = await executeTest({ ...t, timeoutMs: 1000 }, env({ path: join(dir, "none.txt"), at: SINCE }));
    expect(Date.now() - started).toBeLessThan(4000);
    expect([records[0]!.status, records[0]!.message]).toEqual(["timeout", `timed out after 1s: "${hang} iblinkinfo" was stopped while reading the fabric`]);
    expect(alive(Number(readFileSync(join(dir, "hang.pid"), "utf8")))).toBe(false);
  });

  test("a Ctrl-C while a tool runs stops it: cancelled, not an error of the fabric", async () => {
    const hang = join(dir, "hang-via.sh");
    const t = await planned(`{ topology: fat-tree.topo, via: ${hang} }`);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const records = await executeTest(t, { ...env({ path: join(dir, "none.txt"), at: SINCE }), signal: stop.signal });
    expect([records[0]!.status, records[0]!.message]).toEqual(["cancelled", `cancelled: "${hang} iblinkinfo" was stopped while reading the fabric`]);
  });

  test("gpucheck fabric check stopped by Ctrl-C: exit 130, the command it stopped named, nothing left running", async () => {
    const hang = join(dir, "hang-via.sh");
    const stop = new AbortController();
    const said: string[] = [];
    const print = { out: (t: string) => said.push(t), err: (t: string) => said.push(t), stderr: process.stderr, color: false };
    setTimeout(() => stop.abort("cancelled"), 300);
    const code = await fabricCheck({ flags: { topology: join(dir, "fat-tree.topo"), via: hang }, print, signal: stop.signal });
    expect([code, said]).toEqual([130, [`gpucheck fabric: stopped: "${hang} iblinkinfo" was stopped while reading the fabric\n`]]);
    expect(alive(Number(readFileSync(join(dir, "hang.pid"), "utf8")))).toBe(false);
  });

  test("no sweep at the start of the run: why, and nothing compared", async () => {
    const t = await planned("{ topology: fat-tree.topo }");
    const why =
      'the fabric\'s error counters could not be taken before the first test, so none can be compared: ibqueryerrors not found while reading the fabric with "ibqueryerrors --skip-sl"';
    const r = assessTest(t, await executeTest(t, env({ error: why })));
    expect([r.outcome, r.units[0].verdict.reason]).toEqual(["error", `could not run: ${why}`]);
  });
});

describe("PKey tables", () => {
  // a wrapper standing for the SM node: iblinkinfo and ibqueryerrors from the ibsim captures, each
  // smpquery a fifth of a second with its start and end logged, the port whose LID is $FAIL failing
  const via = join(dir, "pkey-via.sh");
  const log = join(dir, "pkey-via.log");
  const fixtures = join(import.meta.dir, "../fixtures/fabric");
  writeFileSync(
    via,
    [
      "#!/bin/sh",
      'case "$1" in',
      `iblinkinfo) cat ${fixtures}/ibsim-healthy.iblinkinfo ;;`,
      `ibqueryerrors) cat ${fixtures}/ibsim-clean.ibqueryerrors ;;`,
      `smpquery) echo "start $3" >> ${log}; sleep 0.2; echo "end $3" >> ${log}`,
      '  [ "$3" = "$FAIL" ] && { echo "ibwarn: [1] smp_query_via: query failed" >&2; exit 255; }',
      `  cat ${fixtures}/ibsim-node16-partition-8001.smpquery-pkeys ;;`,
      "esac",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const ports = parseIblinkinfo(healthy).filter((p) => p.nodeType === "CA" && p.lid > 0);
  /** the most queries the log shows running at once */
  const mostAtOnce = (lines: string[]) =>
    lines.reduce((acc, l) => ({ now: acc.now + (l.startsWith("start") ? 1 : -1), most: Math.max(acc.most, acc.now + (l.startsWith("start") ? 1 : -1)) }), { now: 0, most: 0 }).most;

  test("every compute port's table is read once, several at once (a large fabric is thousands of queries), in the ports' order", async () => {
    writeFileSync(log, "");
    const tables = await readPkeyTables(via, parseIblinkinfo(healthy));
    expect(tables.map((t) => [t.node, t.lid])).toEqual(ports.map((p) => [p.node, p.lid]));
    expect(tables.every((t) => t.text.includes("pkeys capacity"))).toBe(true);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(
      lines
        .filter((l) => l.startsWith("start"))
        .map((l) => Number(l.split(" ")[1]))
        .sort((a, b) => a - b),
    ).toEqual(ports.map((p) => p.lid).sort((a, b) => a - b));
    expect(mostAtOnce(lines)).toBeGreaterThan(1);
    expect(mostAtOnce(lines)).toBeLessThanOrEqual(PKEY_QUERIES_AT_ONCE);
  });

  test("one port's query that fails: the reading is given up with that port's command and smpquery's words, the others stopped", async () => {
    writeFileSync(log, "");
    const bad = ports[5]!;
    process.env.FAIL = String(bad.lid);
    try {
      await expect(readPkeyTables(via, parseIblinkinfo(healthy))).rejects.toThrow(
        `"${via} smpquery pkeys ${bad.lid} ${bad.port}" exited 255 while reading the fabric: ibwarn: [1] smp_query_via: query failed; run it by hand on a node with the subnet manager's view`,
      );
    } finally {
      delete process.env.FAIL;
    }
    // none begun after the failure: fewer than every port was asked
    expect(
      readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("start")).length,
    ).toBeLessThan(ports.length);
  });
});

describe("gpucheck plan", () => {
  test("the fabric test's tools where gpucheck runs, what it compares with, and the sweep before the first test", async () => {
    const { plan } = await planLines(dir, [
      "name: s",
      "platform: { type: local }",
      "defaults: { gpusPerNode: 0, ranksPerNode: 1, eachNode: true }",
      "tests:",
      "  - { name: inv, kind: inventory }",
      "  - { name: fabric, kind: fabric, fabric: { topology: fat-tree.topo, via: ssh sm-node, pkeys: majority } }",
    ]);
    const text = renderPlanText(plan);
    expect(text).toContain(
      "before the first test, where gpucheck runs: ssh sm-node ibqueryerrors --skip-sl > <results>/fabric-counters-start.txt (the fabric's error counters at the start)\n",
    );
    const fabric = text.slice(text.indexOf("2. fabric"));
    expect(fabric.split("\n").slice(0, 7)).toEqual([
      "2. fabric  [fabric]  where gpucheck runs, once per run, timeout 900s",
      expect.stringMatching(/^ {3}expected: /),
      "   runs where gpucheck runs, once (no rank on the nodes):",
      "     ssh sm-node iblinkinfo",
      "     ssh sm-node ibqueryerrors --skip-sl",
      "     ssh sm-node smpquery pkeys <lid> <port>",
      `   compares with: the topology ${join(dir, "fat-tree.topo")}; the error counters of fabric-counters-start.txt, taken before the first test`,
    ]);
    expect(plan.tests[1].perNode).toBe(false);
    // results.json keeps a test's launch to rerun it by hand: for a fabric test, the same check through the CLI
    expect([plan.tests[1].launch.python, ...plan.tests[1].launch.args]).toEqual([
      "gpucheck",
      "fabric",
      "check",
      "--topology",
      join(dir, "fat-tree.topo"),
      "--counters-before",
      "<results>/fabric-counters-start.txt",
      "--via",
      "ssh sm-node",
      "--pkeys",
      "majority",
    ]);
  });
});
