// A remediation on every failure (issue 28 item 6): every metric every built-in kind can produce, in
// every way its check can fail, maps to a class with its source; every threshold of every built-in
// suite does; and a real fault, judged, carries the class its source prescribes, naming the part.
// Inputs: nccl-tests counting wrong elements with a complete footer (test/fixtures/nccl/README.md's
// synthetic oob-failed log: the one published #wrong capture ends before its footer) and a captured
// dmesg with Xids 48, 63 and 94 (workload/tests/fixtures, its source there).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { builtinSuites } from "../../lib/core/assets.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { KINDS } from "../../lib/kinds/mod.ts";
import type { AnyKind } from "../../lib/core/kind.ts";
import { TELEMETRY_METRICS } from "../../lib/core/metrics.ts";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { measure } from "../../lib/assess/measure.ts";
import { type FailureMode, REMEDIATION_RULES, remediationFor, remediationRule, xidCodes } from "../../lib/assess/remediation.ts";
import { CLASSES, SOURCES } from "../../lib/assess/remediation-sources.ts";
import type { Expectation, MetricCheck } from "../../lib/core/types.ts";

const workload = join(import.meta.dir, "..", "..", "workload");
const fixture = (dir: string, name: string) => readFileSync(join(dir, name), "utf8");

describe("the mapping covers everything a built-in kind can fail on", () => {
  const kinds: AnyKind[] = Object.values(KINDS);
  const rows = kinds.flatMap((k) => {
    const own = Object.keys(k.metrics).map((m) => [k.name, m, ["bound"]] as const);
    const parts = Object.keys(k.componentMetrics ?? {}).map((m) => [k.name, m, ["bound", "outlier"]] as const);
    // any per-node metric may be an outlier over the fleet (`outlier: { over: fleet }` in a per-node test)
    const fleet = Object.keys(k.metrics).map((m) => [k.name, m, ["outlier"]] as const);
    const telemetry = Object.keys(TELEMETRY_METRICS).map((m) => [k.name, m, ["bound", "outlier"]] as const);
    return [...own, ...parts, ...fleet, ...telemetry];
  });

  test("kinds × metrics × check types: every one has a class (a gap is named)", () => {
    const gaps = rows.flatMap(([kind, metric, modes]) => modes.filter((mode) => !remediationRule(kind, metric, mode as FailureMode)).map((mode) => `${kind} ${metric} ${mode}`));
    expect(rows.length).toBeGreaterThan(300);
    expect(gaps).toEqual([]);
  });

  test("collective's transport rule and its implicit wrong-elements check have their classes", () => {
    expect(remediationRule("collective", "transport", "transport")?.class).toBe("reinstall-driver");
    expect(remediationRule("collective", "wrong", "bound")?.class).toBe("rma-part");
    // a transport rule never falls through to a bandwidth row
    expect(remediationRule("train", "transport", "transport")).toBeUndefined();
  });

  test("the kinds other branches add have theirs: a fabric link is a cable named at both ends, storage a drive", () => {
    expect(remediationRule("fabric", "fabric_links_miscabled", "bound")?.class).toBe("reseat-cable");
    expect(remediationRule("storage", "storage_seq_read_gbps", "outlier")?.class).toBe("escalate-vendor");
  });

  test("every row's class and source are defined, and every class names its published sources", () => {
    for (const r of REMEDIATION_RULES) {
      expect(CLASSES[r.class]).toBeDefined();
      expect(SOURCES[r.source].url).toStartWith("https://");
    }
    for (const c of Object.values(CLASSES)) expect(c.sources.length).toBeGreaterThan(0);
  });

  test("every threshold of every built-in suite has a class", async () => {
    const gaps: string[] = [];
    let n = 0;
    for (const name of builtinSuites().keys()) {
      const suite = await loadSuite(name);
      for (const t of suite.tests)
        for (const e of t.expect) {
          n++;
          const mode: FailureMode = e.transport ? "transport" : e.outlier || e.fleet ? "outlier" : "bound";
          if (!remediationRule(t.kind, e.metric, mode)) gaps.push(`${name} ${t.name} ${e.metric} ${mode}`);
        }
    }
    expect(n).toBeGreaterThan(100);
    expect(gaps).toEqual([]);
  });
});

describe("a real fault, judged, carries its remediation", () => {
  test("nccl-tests counting wrong elements: RMA, as silent data corruption, with its source", () => {
    const text = fixture(join(import.meta.dir, "..", "fixtures", "nccl"), "oob-failed-trailing-testfailure-v2.19.6.txt");
    const m = measure("collective", text);
    const v = judgeUnit([], { status: "completed", measurement: m, kind: "collective" });
    expect(v.outcome).toBe("failed");
    const wrong = v.checks.find((c) => c.metric === "wrong")!;
    expect(wrong.remediation?.class).toBe("rma-part");
    expect(wrong.remediation?.action).toStartWith("return the part to the vendor (RMA), naming its serial: the node: wrong results are silent data corruption");
    expect(wrong.remediation?.source).toContain("https://clustermax.ai/");
  });

  test("Xids 48, 63 and 94 from a real dmesg: the class follows the Xid numbers (reset the GPU), each named", () => {
    // the events as the node's parser (workload/gpucheck_workload/xid.py) reports them: code and bus of each NVRM Xid line
    const log = fixture(join(workload, "tests", "fixtures"), "xid-dmesg-48-63-94-dbe-row-remap-iso.txt");
    const events = [...log.matchAll(/NVRM: Xid \(PCI:([0-9A-Fa-f:.]+)\): (\d+),/g)].map((x) => ({ kind: "xid", code: Number(x[2]), pci: x[1] }));
    const m = measure("inventory", `GPUCHECK_RESULT ${JSON.stringify({ hostname: "gpu07", gpus: [], ib_ports: [], xid_events: events })}\n`);
    const e: Expectation = { metric: "xid_events", unit: "count", max: 0, text: "{ max: 0 }" };
    const c = judgeUnit([e], { status: "completed", measurement: m, kind: "inventory" }).checks[0]!;
    expect(c.ok).toBe(false);
    expect(xidCodes(m.details!.xid_events!)).toEqual([48, 63, 94]);
    expect(c.remediation?.class).toBe("reset-gpu");
    expect(c.remediation?.action).toStartWith("reset the GPU (nvidia-smi -r with its clients stopped), then run the test again: Xid 48, 63, 94 on the node (Xid 48 on PCI");
    expect(c.remediation?.source).toContain("docs.nvidia.com/deploy/xid-errors");
  });

  test("the most drastic Xid wins: 79 (fallen off the bus) with 48 → reboot the node; 64 (remap failed) → RMA", () => {
    const check = (details: string): MetricCheck => ({
      metric: "xid_hardware",
      expectation: "{ max: 0 }",
      measured: 2,
      expected: 0,
      unit: "count",
      ok: false,
      message: `xid_hardware 2 > 0 expected: ${details}`,
    });
    expect(remediationFor("gemm", check("n1 GPU 2: Xid 48; n1 GPU 5: Xid 79 ×3")).class).toBe("reboot-node");
    expect(remediationFor("gemm", check("n1 GPU 2: Xid 64; n1 GPU 5: Xid 79")).class).toBe("rma-part");
    // an NVSwitch's SXid is not a GPU's Xid
    expect(xidCodes("n1 NVSwitch (0000:05:00.0): SXid 20034; n1 GPU 0: Xid 79")).toEqual([79]);
  });

  test("a per-GPU outlier names the part in the action", () => {
    const part = { type: "gpu" as const, host: "gpu03", index: 5, uuid: "GPU-8b1e7f20", pciBusId: "00000000:2A:00.0" };
    const c: MetricCheck = {
      metric: "membw_copy_gbps",
      expectation: "{ outlier: { below: 0.93 } }",
      measured: 2100,
      expected: 2400,
      unit: "GB/s",
      ok: false,
      message: "…",
      part,
      outlier: { median: 2600, ratio: 0.81, from: [] },
    };
    const r = remediationFor("membw", c);
    expect(r.class).toBe("reset-gpu");
    expect(r.action).toBe(
      "reset the GPU (nvidia-smi -r with its clients stopped), then run the test again: gpu03 GPU 5 (GPU-8b1e7f20, 00000000:2A:00.0): HBM bandwidth short; persistent after a reset, RMA",
    );
  });

  test("a passed or unmeasured check carries none", () => {
    const m = measure("collective", fixture(join(import.meta.dir, "..", "fixtures", "nccl"), "gh200-2node-allreduce-complete-v2.18.3.txt"));
    const e: Expectation[] = [
      { metric: "busbw", unit: "GB/s", min: 1, text: "{ min: 1 GB/s }" },
      { metric: "nvlink_errors", unit: "count", max: 0, text: "{ max: 0 }" },
    ];
    const v = judgeUnit(e, { status: "completed", measurement: m, kind: "collective" });
    expect(v.checks.map((c) => [c.metric, c.ok, c.measured === null, c.remediation])).toEqual([
      ["busbw", true, false, undefined],
      ["nvlink_errors", false, true, undefined],
      ["wrong", true, false, undefined],
    ]);
  });
});
