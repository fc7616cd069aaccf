// results.json, described once: zod validates it when `gpucheck report`/`judge` read a results
// directory, schema/results.schema.json (JSON Schema 2020-12, for other tools) is generated from
// this file, and so are the TypeScript types of results (lib/core/results.gen.ts, by
// scripts/gen-results-types.ts; lib/core/types.ts re-exports them). test/report/results-schema.test.ts
// fails when either generated file is stale.
import { z } from "zod";
import { KIND_NAMES, type KindName } from "../kinds/mod.ts";

/**
 * What scripts/gen-results-types.ts makes of a schema in TypeScript besides its `.describe()` text:
 * `type` its name, where the JSON Schema's id (`.meta`) does not name it so or there is none; `doc`
 * its doc comment, for the TypeScript only; `param` a type parameter of the generated types (the
 * kinds' names: lib/core/types.ts gives its own Kind, so the core names no kind). The JSON Schema
 * never reads this registry: what is said here leaves schema/results.schema.json as it is.
 */
export const resultsTypes = z.registry<{ type?: string; doc?: string; param?: true }>();

const num = z.number();
const numOrNull = z.number().nullable();
const Timestamp = z.iso.datetime({ offset: true }).describe("ISO-8601 date and time with its zone, e.g. 2025-03-04T05:06:07.250Z").register(resultsTypes, { type: "Timestamp" });

const Outcome = z
  .enum(["passed", "failed", "error", "skipped", "unfinished"])
  .meta({ id: "Outcome" })
  .register(resultsTypes, { type: "Outcome", doc: '"unfinished": a planned test a run written ahead lists until it ends; a killed run leaves it so.' });
// the registry's kinds (lib/kinds/mod.ts): a new kind is a compatible addition to version 1
const Kind = z.enum(KIND_NAMES as [KindName, ...KindName[]]).register(resultsTypes, { type: "Kind", param: true });
const UnitStatus = z
  .enum(["completed", "failed", "timeout", "cancelled", "infra", "skipped", "unfinished"])
  .describe(
    "how the unit ended as the platform saw it: completed = every rank exited 0; infra = could not launch or host lost; skipped = not attempted; unfinished = listed ahead, the run never ended it",
  )
  .register(resultsTypes, { type: "UnitStatus" });

const SeriesPoint = z.object({ x: num, y: num }).meta({ id: "SeriesPoint" });
const Series = z.record(z.string(), z.array(SeriesPoint));

const TransportRule = z
  .object({
    require: z.array(z.string()).describe("transports NCCL must have used (a family such as P2P or NET covers its members)"),
    forbid: z.array(z.string()).describe("transports no connection may have used"),
  })
  .meta({ id: "TransportRule" })
  .register(resultsTypes, { doc: "`transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket] }`, tokens from TRANSPORT_TOKENS (lib/core/metrics.ts)." });

const PartId = z
  .object({
    type: z.enum(["gpu", "cpu", "nic", "link", "disk"]).describe("cpu: a CPU rank standing in for a GPU (CPU runs); disk: a storage path with the device behind it"),
    host: z.string(),
    rank: num.optional().describe("the rank that measured it"),
    index: num.optional().describe("the GPU's index as nvidia-smi counts it"),
    uuid: z.string().optional(),
    pciBusId: z.string().optional(),
    name: z.string().optional().describe("the device's model, or a NIC's device name"),
  })
  .meta({ id: "PartId" })
  .register(resultsTypes, { doc: "One component of a node (a GPU, a CPU standing in for one, a NIC, a GPU↔GPU link, a disk), named as a verdict must name it." });

const OutlierRule = z
  .object({
    side: z.enum(["below", "above"]).describe("below: fails under ratio × the median (higher-is-better metrics); above: over it"),
    ratio: num,
    over: z.enum(["unit", "fleet"]).describe("unit: the median of the other parts of the same type in the unit; fleet: of every part of the test"),
  })
  .meta({ id: "OutlierRule" })
  .register(resultsTypes, {
    doc: "`outlier: { below: 0.93 }`: a part fails when its value is under 0.93 × the median of the other parts of its type in its unit (`over: unit`), or of every part of the test (`over: fleet`).",
  });

const Expectation = z
  .object({
    metric: z.string(),
    unit: z.string().describe("canonical unit of the metric: GB/s, samples/s, count, ms, %"),
    min: num.optional(),
    max: num.optional(),
    at: num.optional().describe("message size in bytes for per-size metrics; absent = the largest size"),
    baselineRatio: num.optional().describe("relative threshold: ratio × the baseline run's value of the same metric"),
    text: z.string().describe("the threshold as written in the suite"),
    transport: TransportRule.optional().describe('metric "transport" only (unit ""): the rule instead of min/max'),
    perComponent: z.literal(true).optional().describe("a per-component metric: one check per part (GPU, NIC, link)"),
    outlier: OutlierRule.optional().describe("per-component metrics: each part against the median of its peers"),
    fleet: z
      .object({ side: z.enum(["below", "above"]), k: num.optional().describe("scaled MADs from the median"), ratio: num.optional().describe("ratio to the median") })
      .register(resultsTypes, {
        type: "FleetRule",
        doc: "`outlier:` on a per-node test's metric: a node fails when its value lies more than `k` scaled MADs from the median of the test's nodes on the bad side, or, with a ratio, past that ratio to it.",
      })
      .optional()
      .describe("per-node metrics in a per-node test: each node against the median of the test's nodes"),
  })
  .meta({ id: "Expectation" })
  .register(resultsTypes, { doc: "A threshold on one named metric. Values are stored in the metric's canonical unit." });

const Remediation = z
  .object({
    class: z.enum(["reset-gpu", "reboot-node", "reseat-cable", "reflash-firmware", "reinstall-driver", "reconfigure", "rma-part", "check-cooling", "escalate-vendor"]),
    action: z.string().describe("what to do next, naming the part"),
    source: z.string().describe("the published operator practice behind the class: its name and address"),
  })
  .meta({ id: "Remediation" })
  .describe("a missed check: what an operator does next (docs/remediation.md)")
  .register(resultsTypes, { type: "Remediation" });

const MetricCheck = z
  .object({
    metric: z.string(),
    expectation: z.string(),
    measured: numOrNull.describe("null when the output did not contain the metric (the verdict is then error)"),
    expected: num,
    unit: z.string(),
    ok: z.boolean(),
    message: z.string().describe('e.g. "busbw 182.3 GB/s at 8 GiB < 400 GB/s expected (-54%)"'),
    part: PartId.optional().describe("a per-component check: the part it judged"),
    outlier: z
      .object({
        median: num,
        ratio: num.describe("the value / the median"),
        from: z.array(z.string()).describe("the parts the median was taken over"),
        mad: num.optional().describe("over: fleet: the median absolute deviation of the fleet's values"),
      })
      .optional()
      .describe("an outlier check: what the value was compared with"),
    remediation: Remediation.optional(),
  })
  .meta({ id: "MetricCheck" })
  .register(resultsTypes, { doc: "A threshold on a number, as judged." });

const TransportCheck = z
  .object({
    metric: z.literal("transport"),
    expectation: z.string(),
    measured: z.array(z.string()).nullable().describe("the transports NCCL's connections used; null when NCCL gave no account (the verdict is then error)"),
    expected: TransportRule,
    unit: z.literal(""),
    ok: z.boolean(),
    message: z.string().describe('e.g. "transport: P2P/IPC, NET/Socket used, NET/IB required (connections: 14 × P2P/IPC, 2 × NET/Socket)"'),
    part: PartId.optional().describe("a per-component check (one rail of a collective): the part it judged"),
    remediation: Remediation.optional(),
  })
  .meta({ id: "TransportCheck" })
  .register(resultsTypes, { doc: "`transport:` against what NCCL said it used." });

const Check = z.union([MetricCheck, TransportCheck]).meta({ id: "Check" });

const TransportSummary = z
  .object({
    ncclVersion: z.string().nullable(),
    network: z.string().nullable().describe('"Using network X": IB, Socket, IBext_v8 …'),
    plugin: z.string().nullable().describe("the external net plugin NCCL loaded"),
    transports: z
      .record(z.string(), num)
      .describe(
        "connection lines per transport (P2P/IPC, P2P/CUMEM, P2P/direct, SHM, NET/IB, NET/Socket, NET/<plugin>); GDRDMA: network connections with GPUDirect RDMA; NVLS: NVLS channels",
      ),
    hcas: z.array(z.string()).describe('HCAs NCCL opened, as it lists them ("mlx5_0:1/IB")'),
    netDevices: z.array(z.string()).describe('network and NIC index the connections used ("IB/0")'),
    gdrDisabled: z.array(z.string()).describe("why GPUDirect RDMA was off, per NIC"),
    nvlsAvailable: z.boolean().nullable(),
    nvlsChannels: numOrNull,
    nRanks: numOrNull,
    nNodes: numOrNull,
    localRanks: numOrNull,
    collChannels: numOrNull,
    algorithms: z.array(z.string()).describe('algorithms NCCL connected at init: Ring ("Connected all rings"), Tree, NVLS'),
    settings: z.record(z.string(), z.string()).describe('NCCL_* values NCCL reported taking from the environment ("NCCL_ALGO set by environment to Ring")'),
    warnings: z.array(z.string()).describe("NCCL WARN texts, first few"),
    infoLines: num,
    unclassified: z
      .object({ lines: z.array(z.string()), count: num })
      .optional()
      .describe('connection lines whose "via" wording gpucheck does not know (first few, and how many distinct): the transport is then unmeasured'),
    tuning: z
      .array(z.object({ op: z.string().nullable(), bytes: num, algo: z.string(), proto: z.string() }))
      .optional()
      .describe('the algorithm and protocol NCCL chose per call (TUNING lines: "AllReduce: 8589934592 Bytes -> Algo NVLS proto SIMPLE"), once per call, size and choice'),
  })
  .meta({ id: "TransportSummary" })
  .register(resultsTypes, { doc: "NCCL's own account of the transports a collective used (lib/parsers/nccl-info.ts reads it from NCCL_DEBUG=INFO)." });

const Verdict = z.object({ outcome: Outcome, reason: z.string(), checks: z.array(Check) }).meta({ id: "Verdict" });

const Measurement = z
  .object({
    metrics: z.record(z.string(), numOrNull).describe("scalar metrics; complete = 0 marks output that ended early"),
    bySize: z
      .record(z.string(), z.array(z.tuple([num, numOrNull])))
      .optional()
      .describe("per-size metrics: [size in bytes, value]"),
    series: Series.optional().describe("plot series, e.g. samples_per_s over steps"),
    raw: z.unknown().optional().describe("the parsed output, kept whole"),
    unmeasured: z
      .record(z.string(), z.string())
      .optional()
      .describe("metrics whose source could not be read → why; their value is null and a check on them is an error, never a pass"),
    details: z.record(z.string(), z.string()).optional().describe("the components behind a metric's value (which GPU, link or port), quoted in its check's message"),
    transport: TransportSummary.optional().describe("collectives on NCCL: NCCL's own account of the transport each connection used (NCCL_DEBUG=INFO)"),
    components: z
      .array(
        z
          .object({
            part: PartId,
            metrics: z.record(z.string(), numOrNull).describe("the part's own values, by per-component metric name"),
            unmeasured: z.record(z.string(), z.string()).optional().describe("per-component metrics this part could not measure → why"),
            details: z.record(z.string(), z.string()).optional().describe("what lies behind a metric's value on this part, quoted in its check's message when the check fails"),
            source: z.string().optional().describe('the tool that measured this part where the kind has more than one (nic: "perftest" or "nccl-p2p")'),
            transport: TransportSummary.optional().describe("NCCL's account of this part's own run (a collective's rail); a transport threshold is judged on each such part"),
          })
          .meta({ id: "ComponentValues" })
          .register(resultsTypes, { doc: "One component's own values, by per-component metric name (`gemm_bf16_tflops`, not `gemm_bf16_tflops_min`)." }),
      )
      .optional()
      .describe("kinds that measure each part on its own (gemm, membw, pcie: every GPU or CPU rank)"),
    devices: z
      .array(
        z
          .object({
            rank: z.number().int().nonnegative(),
            host: z.string(),
            type: z.enum(["cuda", "cpu"]),
            name: z.string().nullable().describe("the GPU's or CPU's model"),
            index: z.number().int().nonnegative().nullable().describe("nvidia-smi's index of the GPU"),
            uuid: z.string().nullable(),
            pciBusId: z.string().nullable(),
            unnamed: z.string().optional().describe("on a GPU: why its index, UUID or bus could not be read"),
          })
          .meta({ id: "RankDevice" })
          .register(resultsTypes, { type: "RankDeviceId", doc: "Who a rank was and what it ran on: a GPU by nvidia-smi's index, UUID and PCI bus, or a CPU." }),
      )
      .optional()
      .describe(
        "the device each rank ran on (gemm, membw, nvlink, pcie, burn); in a suite with gpusPerNode > 0 a rank on a CPU, two ranks of a node on one GPU, or fewer GPUs than gpusPerNode is an error",
      ),
  })
  .meta({ id: "Measurement" })
  .register(resultsTypes, { doc: "What a unit's output gave: a metric whose source could not be read is null, with why in `unmeasured`, and never passed." });

const TelemetrySummary = z
  .object({
    samples: num,
    metrics: z
      .record(z.string(), numOrNull)
      .optional()
      .describe("the telemetry metrics of this unit: Xids, throttling, SM clocks under load, IB and NVLink error counter deltas, heat, power, load"),
    unmeasured: z.record(z.string(), z.string()).optional().describe("telemetry metrics whose source some node could not read → why"),
    details: z.record(z.string(), z.string()).optional().describe("the parts behind each telemetry metric: which GPU, port, link or Xid"),
    maxTempC: numOrNull,
    maxPowerW: numOrNull,
    meanUtilPct: numOrNull,
    throttleReasons: z.array(z.string()),
    xids: z.array(z.string()),
    series: Series.optional().describe(
      "util_pct, power_w, temp_c (GPU nodes), cpu_util_pct (nodes without a GPU); x = seconds since the first sample; at most 600 points, heat and power as each time bucket's peak",
    ),
    seriesFile: z
      .string()
      .optional()
      .describe(
        "instead of series, in a test of more than 32 units: the file holding them (a JSON object of the same shape), relative to the results directory, e.g. telemetry/burn/gpu0042.json",
      ),
  })
  .meta({ id: "TelemetrySummary" });

const UnitResult = z
  .object({
    unit: z.string().describe('"all" for a whole-cluster test, the node name in per-node mode, "<round>.<group>" for a round of an isolating pattern ("2.gpu01+gpu07")'),
    hosts: z.array(z.string()),
    status: UnitStatus,
    message: z.string().optional(),
    startedAt: Timestamp,
    endedAt: Timestamp,
    durationS: num.describe("seconds"),
    measurement: Measurement.nullable(),
    verdict: Verdict,
    logs: z.array(z.string()).describe("raw log paths, relative to the results directory"),
    tail: z.string().describe("last lines of the ranks' logs"),
    telemetry: TelemetrySummary.optional(),
    lost: z.array(z.string()).optional().describe("status infra: the hosts that stopped answering (unreachable, a connection lost mid-run), which an isolation holds against them"),
    simulated: z
      .string()
      .optional()
      .describe("a stand-in answered instead of the workload (its GPUCHECK_SIMULATED line: test/standin/python3): canned output, not a measurement of these hosts"),
  })
  .meta({ id: "UnitResult" });

const GroupStatus = z
  .enum(["passed", "failed", "timeout", "error"])
  .describe("error = the launch never ran or its value could not be read: no evidence either way")
  .register(resultsTypes, { type: "GroupStatus" });
const Phase = z.enum(["screen", "pairwise", "second-pass", "bisect", "confirm", "boundary"]).register(resultsTypes, { type: "Phase" });
const Group = z
  .object({ name: z.string(), nodes: z.array(z.string()) })
  .register(resultsTypes, { type: "Group", doc: "One launch of the test over a group of nodes (2 for a pair, more for a group or a half)." });

const Isolation = z
  .object({
    pattern: z.enum(["pairwise", "bisect", "adaptive"]).register(resultsTypes, { type: "IsolatingPattern" }),
    nodes: z.array(
      z
        .object({
          node: z.string(),
          verdict: z.enum(["good", "bad", "suspect-unconfirmed", "untested"]),
          reason: z.string(),
          evidence: z.array(
            z
              .object({
                group: z.string(),
                partners: z.array(z.string()),
                status: GroupStatus,
                value: numOrNull,
                reference: numOrNull.describe("what the value was held against: the best comparable group, or the floor"),
                ratio: numOrNull,
                phase: Phase,
              })
              .register(resultsTypes, { type: "PairEvidence" }),
          ),
        })
        .meta({ id: "NodeVerdict" }),
    ),
    bad: z.array(z.string()).describe("the nodes found bad, each confirmed against healthy partners"),
    badPairs: z.array(z.string()).describe('pairs that fail only together ("gpu01+gpu07"): neither node is bad'),
    unresolved: z.array(z.string()).describe("failures nothing explained, in words"),
    rounds: num,
    launches: num,
    groups: z.array(
      z
        .object({
          group: Group,
          status: GroupStatus,
          value: numOrNull,
          unit: z.string().optional(),
          higher: z.boolean(),
          message: z.string().optional(),
          phase: Phase,
          round: num,
          judged: z.enum(["good", "bad", "unjudged"]).register(resultsTypes, {
            type: "Judgement",
            doc: "How a group counts against its nodes: `unjudged` (an error, or no value to compare) is no evidence either way.",
          }),
          reference: numOrNull,
          ratio: numOrNull,
          why: z.string(),
        })
        .register(resultsTypes, { type: "JudgedGroup", doc: "A launched group with the round it ran in and how it was judged." }),
    ),
    rule: z.string().describe("the rule applied, in words, with its source"),
    complete: z.boolean().describe("false when the run stopped before the isolation finished"),
    run: z
      .object({
        hosts: z.array(z.string()),
        seed: num,
        pairs: num.optional(),
        screen: z.array(Group).optional().describe("the suite's groups screened first (`screen:`)"),
      })
      .optional()
      .describe("the hosts isolated among, in order, the random pairs' seed and the suite's screen groups: gpucheck judge feeds the saved rounds again"),
  })
  .meta({ id: "Isolation" })
  .register(resultsTypes, { type: "IsolationVerdict" });

const TestResult = z
  .object({
    name: z.string(),
    kind: Kind,
    perNode: z.boolean(),
    nodes: num,
    gpusPerNode: num,
    worldSize: num,
    launch: z
      .object({ command: z.array(z.string()), env: z.record(z.string(), z.string()) })
      .optional()
      .describe("the workload command every rank ran and the environment the suite gave it (platforms add the rank variables)"),
    expect: z.array(Expectation),
    headline: z.object({ metric: z.string(), unit: z.string() }),
    units: z.array(UnitResult),
    outcome: Outcome,
    isolation: Isolation.optional().describe("pattern pairwise, bisect or adaptive (or onFailure: isolate after a failed run): the nodes judged, with the evidence of every round"),
    missing: z.array(z.string()).optional().describe("the planned units (in per-node mode the nodes) whose result never came back: never counted passed, the test is an error"),
  })
  .meta({ id: "TestResult" });

const NodeInventory = z
  .looseObject({
    hostname: z.string(),
    gpus: z.array(z.looseObject({ index: num, name: z.string(), uuid: z.string().optional(), serial: z.string().optional() })),
    driver: z.string().nullable().optional(),
    cuda: z.string().nullable().optional(),
    nccl: z.string().nullable().optional(),
    torch: z.string().nullable().optional(),
  })
  .meta({ id: "NodeInventory" });

const PreflightProbe = z
  .object({
    probe: z.string().describe('"python", "torch", "torch.cuda.device_count", "NCCL", "nvidia-smi -L", "tool <name>"'),
    python: z.string().optional().describe("the interpreter the probe ran under"),
    value: z.union([z.string(), num, z.boolean()]).nullable().describe("false: looked and absent; null: could not look (see reason)"),
    detail: z.string().optional().describe("the parts behind the value: GPU models, a tool's path"),
    reason: z.string().optional(),
  })
  .meta({ id: "PreflightProbe" })
  .register(resultsTypes, { doc: "One thing preflight looked at on a node: its value, or null with why it could not be read." });

const PreflightProblem = z
  .object({
    message: z.string().describe("what is missing, what was found, and the tests that need it"),
    tests: z.array(z.string()).describe("the tests it kept from running"),
  })
  .meta({ id: "PreflightProblem" });

const PreflightNode = z
  .object({
    node: z.string(),
    hosts: z.array(z.string()),
    status: UnitStatus,
    message: z.string().optional(),
    probes: z.array(PreflightProbe),
    passed: z.boolean(),
    problems: z.array(PreflightProblem),
    logs: z.array(z.string()),
  })
  .meta({ id: "PreflightNode" })
  .register(resultsTypes, { doc: "Preflight on one node: what it offers and whether that is what the suite's tests need." });

const Preflight = z
  .object({
    passed: z.boolean().describe("every node offers every test what it needs; when false no test ran"),
    startedAt: Timestamp,
    endedAt: Timestamp,
    nodes: z.array(PreflightNode),
  })
  .meta({ id: "Preflight" })
  .register(resultsTypes, { type: "PreflightResult" });

const SuiteRef = z.object({
  name: z.string(),
  description: z.string(),
  cluster: z.string().optional(),
  path: z.string(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("of suite.yaml as saved beside this file"),
  sourceSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("of the suite file itself, where the saved copy differs from it: its secret env values written as ***"),
});

export const ResultsFileSchema = z
  .object({
    schemaVersion: z.literal(1).describe("bumped on any incompatible change"),
    gpucheck: z.string().describe("gpucheck version that wrote the file"),
    suite: SuiteRef,
    platform: z.string(),
    command: z.array(z.string()),
    startedAt: Timestamp,
    endedAt: Timestamp.nullable().describe("null while the run is going, or when it was killed"),
    complete: z.boolean().describe("false while running or when interrupted; finished tests are kept either way"),
    outcome: Outcome,
    tests: z.array(TestResult),
    inventory: z.array(NodeInventory),
    preflight: Preflight.optional().describe("each node checked, before the first test, for the interpreter, torch, GPUs, NCCL and tools the tests need"),
    baseline: z.string().optional().describe("path of the results.json relative thresholds were judged against"),
    evidence: z
      .array(
        z
          .object({
            node: z.string(),
            file: z.string().optional().describe("the archive, relative to the run directory: evidence/<node>.tar.gz"),
            bytes: num,
            collected: z.array(z.string()).describe("the files in the archive"),
            missing: z.array(z.object({ item: z.string(), why: z.string() })).describe("what could not be collected, and why"),
          })
          .register(resultsTypes, {
            type: "EvidenceBundle",
            doc: "A failed or errored node's evidence bundle (lib/evidence/): its archive, what it holds, what could not be collected and why.",
          }),
      )
      .optional()
      .describe("each failed or errored node's evidence bundle (docs/evidence.md)"),
    judgedWith: z
      .object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), at: Timestamp })
      .optional()
      .describe("set by `gpucheck judge`: the suite whose thresholds gave these verdicts, and when"),
    judgedFrom: z
      .object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })
      .optional()
      .describe("set by `gpucheck judge`: the run directory whose measurements were judged, and the sha256 of its results.json (that run is never changed)"),
    excluded: z
      .array(z.string())
      .optional()
      .describe("gpucheck judge --exclude-bad: the nodes the isolating tests found bad; every other unit that ran on one is skipped with the reason"),
    rerunOf: z
      .object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })
      .optional()
      .describe("set by `gpucheck suite --rerun-failed`: the run directory whose failed, errored and skipped tests this run reran, and the sha256 of its results.json"),
    stopped: z.string().optional().describe('why the run stopped before every test started: "--fail-fast: <test> failed", "interrupted by Ctrl-C or SIGTERM"'),
    simulated: z
      .string()
      .optional()
      .describe("set when any unit was answered by a stand-in for the workload: how many units and which stand-in; such a run is not evidence about hardware"),
  })
  .meta({
    title: "gpucheck results.json",
    description: "Everything one gpucheck run measured and decided: per test and unit the metrics, verdicts, timings, hosts, telemetry and raw log paths.",
  })
  .register(resultsTypes, { type: "ResultsFile" });

export const RESULTS_SCHEMA_ID = "urn:gpucheck:schema:results:1";

/** The JSON Schema written to schema/results.schema.json. */
export function resultsJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ResultsFileSchema, { target: "draft-2020-12" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, $id: RESULTS_SCHEMA_ID, ...rest };
}
