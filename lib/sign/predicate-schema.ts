// The zod schema of the acceptance predicate and of the in-toto statement around it (predicate.ts
// has the names and types). `gpucheck verify` checks a certificate against the shape generated from
// these (predicate-shape.gen.ts) and loads this file only to say what is wrong with one.
import { z } from "zod";

/** a run signed with --allow-incomplete, and its tests, may never have ended (added within v1) */
const outcome = z.enum(["passed", "failed", "error", "skipped", "unfinished"]);
const testOutcome = outcome;
const version = z.string().nullable();

const gpu = z.object({ index: z.number(), name: z.string(), uuid: z.string().nullable(), serial: z.string().nullable() });

export const node = z.object({ hostname: z.string(), gpus: z.array(gpu), driver: version, cuda: version, nccl: version, torch: version });

const threshold = z.object({
  metric: z.string(),
  unit: z.string(),
  min: z.number().optional(),
  max: z.number().optional(),
  at: z.number().optional(),
  baselineRatio: z.number().optional(),
  /** as the suite wrote it */
  text: z.string(),
  /** metric "transport": the transports required and forbidden (added within v1: optional) */
  transport: z.object({ require: z.array(z.string()), forbid: z.array(z.string()) }).optional(),
  /** per-component metrics: each part against the median of its peers (added within v1: optional) */
  outlier: z.object({ side: z.enum(["below", "above"]), ratio: z.number(), over: z.enum(["unit", "fleet"]) }).optional(),
});

/** A part judged on its own (a GPU, a CPU rank, a NIC, a link), as results.json names it (added within v1: optional). */
const part = z.object({
  type: z.enum(["gpu", "cpu", "nic", "link", "disk"]),
  host: z.string(),
  rank: z.number().optional(),
  index: z.number().optional(),
  uuid: z.string().optional(),
  pciBusId: z.string().optional(),
  name: z.string().optional(),
});

const remediation = z.object({ class: z.string(), action: z.string(), source: z.string() });

const check = z.object({
  metric: z.string(),
  expectation: z.string(),
  measured: z.number().nullable(),
  expected: z.number(),
  unit: z.string(),
  ok: z.boolean(),
  message: z.string(),
  /** a per-component check: the part it judged */
  part: part.optional(),
  /** a missed check: what to do next, with its published source (added within v1: optional) */
  remediation: remediation.optional(),
});

/**
 * A `transport:` check: kept apart from the numeric checks so that a v1 reader that knows only those
 * still reads every certificate (added within v1: optional).
 */
const transportCheck = z.object({
  expectation: z.string(),
  /** the transports NCCL's connections used; null when NCCL gave no account */
  used: z.array(z.string()).nullable(),
  ok: z.boolean(),
  message: z.string(),
  remediation: remediation.optional(),
});

const unit = z.object({
  unit: z.string(),
  hosts: z.array(z.string()),
  outcome,
  reason: z.string(),
  /** the test's headline metric as this unit measured it */
  headline: z.number().nullable(),
  checks: z.array(check),
  /** fabric tests: NCCL's one-line account of the transports it used, or why there is none */
  transport: z.string().optional(),
  transportChecks: z.array(transportCheck).optional(),
  /** the parts that failed or could not be judged, each with its checks' messages: what to replace (added within v1: optional) */
  failingParts: z.array(z.object({ part, outcome, messages: z.array(z.string()) })).optional(),
});

export const test = z.object({
  name: z.string(),
  kind: z.string(),
  outcome: testOutcome,
  perNode: z.boolean(),
  nodes: z.number(),
  gpusPerNode: z.number(),
  worldSize: z.number(),
  headline: z.object({ metric: z.string(), unit: z.string() }),
  thresholds: z.array(threshold),
  units: z.array(unit),
  /** the planned units (per-node: the nodes) whose result never came back; the test is an error (added within v1: optional) */
  missing: z.array(z.string()).optional(),
  /** an isolating pattern's findings: the nodes it found bad (added within v1: optional) */
  isolation: z
    .object({
      pattern: z.string(),
      rounds: z.number(),
      launches: z.number(),
      complete: z.boolean(),
      bad: z.array(z.string()),
      badPairs: z.array(z.string()),
      nodes: z.array(z.object({ node: z.string(), verdict: z.string(), reason: z.string() })),
    })
    .optional(),
});

/** The nodes the run's isolating tests accepted and rejected: what goes back to the vendor (added within v1: optional). */
const nodeVerdicts = z.object({
  /** `gpucheck judge --exclude-bad`: the verdicts are of the cluster without the rejected nodes */
  excluded: z.boolean().optional(),
  accepted: z.array(z.string()),
  rejected: z.array(z.object({ node: z.string(), why: z.array(z.string()) })),
  unjudged: z.array(z.string()),
});

export const acceptancePredicate = z.object({
  cluster: z.string().nullable(),
  outcome,
  /** false when the run stopped early (interrupted, --fail-fast): the certificate then covers only the tests that finished */
  complete: z.boolean(),
  suite: z.object({ name: z.string(), description: z.string(), file: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  platform: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  certifiedAt: z.string(),
  gpucheck: z.object({ ran: z.string(), certified: z.string() }),
  nodes: z.array(node),
  tests: z.array(test),
  nodeVerdicts: nodeVerdicts.optional(),
  /**
   * Set when a stand-in for the workload answered some units (results.json's `simulated`): canned
   * outputs replayed, so the certificate is no evidence about the hardware (added within v1: optional).
   */
  simulated: z.string().optional(),
  /**
   * Set when the verdicts come from `gpucheck judge` with another suite than the one that ran: that
   * suite (its file in the results directory, the path it was read from, its sha256) and the run whose
   * measurements were judged (added within v1: optional).
   */
  judged: z
    .object({
      suite: z.object({ file: z.string(), path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
      from: z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).nullable(),
      at: z.string(),
    })
    .optional(),
  /**
   * Set when a run that never ended (no endedAt, a test still "unfinished") was signed with
   * `certify --allow-incomplete`: the verdict is INCOMPLETE whatever the finished tests say, and the
   * tests that never ended are named (added within v1: optional).
   */
  incomplete: z.object({ verdict: z.enum(["INCOMPLETE"]), unfinished: z.array(z.string()), why: z.string() }).optional(),
  /** every host that took part, sorted: what `verify` prints and a reader compares with the cluster's list (added within v1: optional) */
  hosts: z.array(z.string()).optional(),
  /** the gpucheck binary that signed: its version, the commit it was built from and the hash of the workload it carries (added within v1: optional) */
  binary: z.object({ version: z.string(), commit: z.string(), workloadHash: z.string() }).optional(),
  /**
   * The second envelope, beside this one, that carries the same run as an in-toto Test Result
   * statement over the same subjects (lib/sign/test-result.ts); `verify` requires it when this names
   * it, so that deleting it is noticed (added within v1: optional).
   */
  testResult: z.object({ file: z.string(), predicateType: z.string() }).optional(),
});

const subject = z.object({ name: z.string(), digest: z.record(z.string(), z.string()) });

/** The in-toto Statement v1 layer; the predicate is checked separately, after its type. */
export const statementShape = z.object({
  _type: z.string(),
  subject: z.array(subject).min(1),
  predicateType: z.string(),
  predicate: z.unknown(),
});
