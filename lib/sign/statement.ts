// results.json → in-toto Statement v1. Pure. What goes in is chosen field by field, never copied
// wholesale: results.json also holds the command line, log paths, log tails and free-form inventory
// that may carry environment values, user names and private paths, none of which a ticket needs.
import { isTransportCheck } from "../assess/checks.ts";
import { transportAccount } from "../parsers/nccl-info.ts";
import type { MetricCheck, NodeInventory, ResultsFile, TestResult, TransportCheck, UnitResult } from "../core/types.ts";
import { type AcceptancePredicate, JUDGED_WITH_FILE, PREDICATE_TYPE, type PredicateNode, type PredicateTest, STATEMENT_TYPE, type Statement, SUITE_FILE } from "./predicate.ts";
import { kindOf } from "../kinds/mod.ts";
import { partChecks, partOutcome } from "../assess/part-checks.ts";
import { nodeAcceptance } from "../report/isolation-text.ts";

export interface SubjectFile {
  /** file name relative to the results directory */
  name: string;
  sha256: string;
}

export interface CertifyMeta {
  certifiedAt: string;
  /** the gpucheck version that signs (results.gpucheck is the one that ran) */
  gpucheckVersion: string;
  /** the signing binary's commit and the hash of the workload it carries */
  binary?: { commit: string; workloadHash: string };
  /** `certify --cluster`: the cluster's name when the suite gives none */
  cluster?: string;
  /** `certify --allow-incomplete` on a run that never ended: the tests that never ended, and why it counts as incomplete */
  incomplete?: { unfinished: string[]; why: string };
}

export function buildStatement(results: ResultsFile, subjects: SubjectFile[], meta: CertifyMeta): Statement {
  const predicate: AcceptancePredicate = {
    cluster: results.suite.cluster ?? meta.cluster ?? null,
    outcome: results.outcome,
    complete: results.complete,
    suite: { name: results.suite.name, description: results.suite.description, file: SUITE_FILE, sha256: results.suite.sha256 },
    platform: results.platform,
    startedAt: results.startedAt,
    endedAt: results.endedAt,
    certifiedAt: meta.certifiedAt,
    gpucheck: { ran: results.gpucheck, certified: meta.gpucheckVersion },
    nodes: nodesOf(results),
    tests: results.tests.map(testOf),
  };
  predicate.hosts = [...new Set(predicate.nodes.map((n) => n.hostname))].sort();
  if (meta.binary) predicate.binary = { version: meta.gpucheckVersion, ...meta.binary };
  if (meta.incomplete) predicate.incomplete = { verdict: "INCOMPLETE", ...meta.incomplete };
  if (results.simulated) predicate.simulated = results.simulated;
  if (results.tests.some((t) => t.isolation)) predicate.nodeVerdicts = { ...nodeAcceptance(results), ...(results.excluded?.length && { excluded: true }) };
  if (results.judgedWith) {
    predicate.judged = {
      suite: { file: JUDGED_WITH_FILE, path: results.judgedWith.path, sha256: results.judgedWith.sha256 },
      from: results.judgedFrom ? { path: results.judgedFrom.path, sha256: results.judgedFrom.sha256 } : null,
      at: results.judgedWith.at,
    };
  }
  return {
    _type: STATEMENT_TYPE,
    subject: subjects.map((s) => ({ name: s.name, digest: { sha256: s.sha256 } })),
    predicateType: PREDICATE_TYPE,
    predicate,
  };
}

/** Every node that took part: its inventory where there is one, else at least its name. */
function nodesOf(results: ResultsFile): PredicateNode[] {
  const nodes = results.inventory.map(nodeOf);
  const known = new Set(nodes.map((n) => n.hostname));
  for (const host of results.tests.flatMap((t) => t.units.flatMap((u) => u.hosts))) {
    if (known.has(host)) continue;
    known.add(host);
    nodes.push({ hostname: host, gpus: [], driver: null, cuda: null, nccl: null, torch: null });
  }
  return nodes;
}

function nodeOf(inv: NodeInventory): PredicateNode {
  return {
    hostname: inv.hostname,
    gpus: inv.gpus.map((g) => ({ index: g.index, name: g.name, uuid: g.uuid ?? null, serial: g.serial ?? null })),
    driver: text(inv.driver),
    cuda: text(inv.cuda),
    nccl: text(inv.nccl),
    torch: text(inv.torch),
  };
}

function testOf(t: TestResult): PredicateTest {
  return {
    name: t.name,
    kind: t.kind,
    outcome: t.outcome,
    perNode: t.perNode,
    nodes: t.nodes,
    gpusPerNode: t.gpusPerNode,
    worldSize: t.worldSize,
    headline: { metric: t.headline.metric, unit: t.headline.unit },
    thresholds: t.expect.map(({ metric, unit, min, max, at, baselineRatio, text, transport, outlier }) => ({
      metric,
      unit,
      min,
      max,
      at,
      baselineRatio,
      text,
      ...(transport && { transport }),
      ...(outlier && { outlier }),
    })),
    units: t.units.map((u) => unitOf(u, t.headline.metric, t.kind)),
    ...(t.missing?.length && { missing: t.missing }),
    ...(t.isolation && {
      isolation: {
        pattern: t.isolation.pattern,
        rounds: t.isolation.rounds,
        launches: t.isolation.launches,
        complete: t.isolation.complete,
        bad: t.isolation.bad,
        badPairs: t.isolation.badPairs,
        nodes: t.isolation.nodes.map((n) => ({ node: n.node, verdict: n.verdict, reason: n.reason })),
      },
    }),
  };
}

function unitOf(u: UnitResult, headline: string, kind: string): PredicateTest["units"][number] {
  const numeric = u.verdict.checks.filter((c): c is MetricCheck => !isTransportCheck(c));
  const transportChecks = u.verdict.checks.filter(isTransportCheck);
  const headlineCheck = numeric.find((c) => c.metric === headline);
  const scalar = u.measurement?.metrics[headline];
  const account = kindOf(kind)?.transport ? transportLine(u) : undefined;
  const failing = partChecks(u)
    .map((p) => ({ part: p.part, outcome: partOutcome(p.checks), messages: p.checks.filter((c) => !c.ok).map((c) => redactPaths(c.message)) }))
    .filter((p) => p.outcome !== "passed");
  return {
    unit: u.unit,
    hosts: u.hosts,
    outcome: u.verdict.outcome,
    reason: redactPaths(u.verdict.reason),
    // the checked value (at the threshold's message size) when there is one, else the scalar metric
    headline: headlineCheck ? headlineCheck.measured : typeof scalar === "number" && Number.isFinite(scalar) ? scalar : null,
    checks: numeric.map(({ outlier: _compared, ...c }) => ({
      ...c,
      measured: finite(c.measured),
      message: redactPaths(c.message),
      expectation: redactPaths(c.expectation),
      ...(c.remediation && { remediation: { ...c.remediation, action: redactPaths(c.remediation.action) } }),
    })),
    ...(account !== undefined && { transport: redactPaths(account) }),
    ...(transportChecks.length > 0 && { transportChecks: transportChecks.map(transportCheckOf) }),
    ...(failing.length > 0 && { failingParts: failing }),
  };
}

/** NCCL's account for the certificate: what the connections used, or why it is not known. */
function transportLine(u: UnitResult): string | undefined {
  const m = u.measurement;
  if (!m) return undefined;
  if (m.transport && !m.unmeasured?.transport) return transportAccount(m.transport);
  return m.unmeasured?.transport ? `unmeasured: ${m.unmeasured.transport}` : undefined;
}

function transportCheckOf(c: TransportCheck) {
  return {
    expectation: redactPaths(c.expectation),
    used: c.measured,
    ok: c.ok,
    message: redactPaths(c.message),
    ...(c.remediation && { remediation: { ...c.remediation, action: redactPaths(c.remediation.action) } }),
  };
}

/**
 * Absolute paths in free text (an error message naming a log or an interpreter) become "…/<file name>":
 * a certificate names no directory outside the results directory. "GB/s", "N/A" and URLs are left alone.
 */
export function redactPaths(s: string): string {
  return s.replace(/(?<![\w.~/:-])~?\/[^\s"'`<>|;:,()[\]{}]+/g, (p) => `…/${p.slice(p.lastIndexOf("/") + 1)}`);
}

function text(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function finite(v: number | null): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
