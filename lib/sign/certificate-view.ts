// What a human-readable certificate shows, computed once from the signed statement so that the
// HTML and the Markdown say the same thing, and say only what the signature covers.
import { compressHostlist } from "../core/hostlist.ts";
import { partName } from "../core/parts.ts";
import { FLEET_UNITS } from "../report/fleet.ts";
import { formatDuration, withUnit } from "../core/quantity.ts";
import type { KeyAlgorithm } from "./public-key.ts";
import { PREDICATE_TYPE, type PredicateTest, type Statement } from "./predicate.ts";
import { verifyCommands, type VerifyCommands } from "./verify-commands.ts";

export interface CertificateView {
  verdict: string;
  /** why the verdict is not simply the outcome: an interrupted run */
  caveat: string | null;
  cluster: string;
  hardware: string;
  suite: { name: string; description: string; sha256: string };
  /** a re-judged run: the suite whose thresholds gave the verdicts, and the run it judged */
  judged: { suite: string; from: string | null; at: string } | null;
  platform: string;
  run: string;
  certifiedAt: string;
  gpucheck: string;
  counts: string;
  nodes: Array<{ hostname: string; gpus: string; serials: string; versions: string }>;
  /** "8 × NVIDIA H100 80GB HBM3 · driver …" when every node has the same, so rows need only names and serials */
  nodesAlike: string | null;
  /**
   * A fleet (more than FLEET_UNITS nodes): the nodes grouped by what they have, each group's names as
   * hostlist ranges, in place of a row per node; the serials stay in the signed file. null otherwise.
   */
  nodeGroups: Array<{ hosts: string; count: number; gpus: string; versions: string }> | null;
  tests: Array<{ name: string; outcome: string; measured: string; threshold: string; note: string; transport: string }>;
  /** the parts judged on their own that failed or could not be judged: what to replace or look at, and why */
  parts: Array<{ test: string; part: string; outcome: string; why: string }>;
  /** what to do about each missed check, by test and hosts (docs/remediation.md) */
  remediations: Array<{ test: string; hosts: string; class: string; action: string }>;
  /** isolating tests: the nodes rejected (with why) and accepted; null when no test isolated */
  nodeVerdicts: { rejected: Array<{ node: string; why: string }>; accepted: string; unjudged: string } | null;
  signer: { fingerprint: string; algorithm: string };
  subjects: Array<{ name: string; sha256: string }>;
  predicateType: string;
  verify: VerifyCommands;
}

/** what a certificate says where the suite and `certify --cluster` named no cluster */
export const UNNAMED_CLUSTER = "unnamed cluster";

export interface SignerInfo {
  fingerprint: string;
  algorithm: KeyAlgorithm;
}

export function certificateView(st: Statement, signer: SignerInfo): CertificateView {
  const p = st.predicate;
  const gpus = p.nodes.flatMap((n) => n.gpus);
  const models = [...new Set(gpus.map((g) => g.name))];
  const nodes = p.nodes.map((n) => ({
    hostname: n.hostname,
    gpus: n.gpus.length ? `${n.gpus.length} × ${[...new Set(n.gpus.map((g) => g.name))].join(", ")}` : "no GPU inventory",
    serials: n.gpus.map((g) => g.serial ?? "?").join(" "),
    versions: [n.driver && `driver ${n.driver}`, n.cuda && `CUDA ${n.cuda}`, n.nccl && `NCCL ${n.nccl}`].filter(Boolean).join(", ") || "—",
  }));
  const counts = (["passed", "failed", "error", "skipped"] as const).map((o) => [o, p.tests.filter((t) => t.outcome === o).length] as const);
  // a fleet names its nodes as ranges (gpu[0001-0998]), and is judged node by node even without an isolating test
  const fleet = p.nodes.length > FLEET_UNITS || p.tests.some((t) => t.units.length > FLEET_UNITS);
  const names = (list: string[]) => (fleet ? compressHostlist(list) : list.join(", "));
  const verdicts = p.nodeVerdicts ?? (fleet ? perNodeVerdicts(p) : undefined);
  const incomplete = p.incomplete !== undefined || !p.complete;
  return {
    // a run that never ended is never read as its finished tests' outcome
    verdict: `${incomplete ? "INCOMPLETE" : p.outcome.toUpperCase()}${p.simulated ? " (SIMULATED WORKLOAD)" : ""}`,
    caveat:
      [
        p.simulated ? `SIMULATED WORKLOAD — NOT EVIDENCE ABOUT HARDWARE: ${p.simulated}` : null,
        p.incomplete
          ? `INCOMPLETE: ${p.incomplete.why}; the tests that finished: ${p.outcome.toUpperCase()}`
          : p.complete
            ? null
            : "INCOMPLETE: the run stopped early (interrupted, or --fail-fast); only the tests listed here finished",
      ]
        .filter(Boolean)
        .join(" · ") || null,
    cluster: p.cluster ?? UNNAMED_CLUSTER,
    hardware: `${plural(p.nodes.length, "node")}, ${plural(gpus.length, "GPU")}${models.length ? ` (${models.join(", ")})` : ""}`,
    suite: { name: p.suite.name, description: p.suite.description, sha256: p.suite.sha256 },
    judged: p.judged
      ? {
          suite: `${p.judged.suite.file} (read from ${p.judged.suite.path}, sha256 ${p.judged.suite.sha256})`,
          from: p.judged.from ? `${p.judged.from.path} (results.json sha256 ${p.judged.from.sha256})` : null,
          at: utc(p.judged.at),
        }
      : null,
    platform: p.platform,
    run: `${utc(p.startedAt)} → ${p.endedAt ? `${utc(p.endedAt)} (${formatDuration((Date.parse(p.endedAt) - Date.parse(p.startedAt)) / 1000)})` : "not finished"}`,
    certifiedAt: utc(p.certifiedAt),
    gpucheck: p.gpucheck.ran === p.gpucheck.certified ? p.gpucheck.ran : `${p.gpucheck.ran} (certified with ${p.gpucheck.certified})`,
    counts: `${plural(p.tests.length, "test")}: ${
      counts
        .filter(([, n]) => n > 0)
        .map(([o, n]) => `${n} ${o}`)
        .join(", ") || "none run"
    }`,
    nodes,
    nodesAlike: nodes.length > 1 && nodes.every((n) => n.gpus === nodes[0].gpus && n.versions === nodes[0].versions) ? `${nodes[0].gpus} · ${nodes[0].versions}` : null,
    nodeGroups: fleet ? groupNodes(nodes) : null,
    tests: p.tests.map(testRow),
    parts: p.tests.flatMap((t) =>
      t.units.flatMap((u) =>
        (u.failingParts ?? []).map((f) => {
          const part = partName(f.part);
          // each message starts with the part's name, which has its own column here
          const why = f.messages.map((m) => (m.startsWith(`${part}: `) ? m.slice(part.length + 2) : m)).join("; ");
          return { test: t.name, part, outcome: f.outcome.toUpperCase(), why: clip(why, 300) };
        }),
      ),
    ),
    remediations: p.tests.flatMap((t) =>
      t.units.flatMap((u) => {
        const seen = new Set<string>();
        return [...u.checks, ...(u.transportChecks ?? [])].flatMap((c) => {
          const r = c.remediation;
          if (!r || seen.has(`${r.class} ${r.action}`)) return [];
          seen.add(`${r.class} ${r.action}`);
          return [{ test: t.name, hosts: names(u.hosts), class: r.class, action: clip(r.action, 300) }];
        });
      }),
    ),
    nodeVerdicts: verdicts
      ? {
          rejected: verdicts.rejected.map((r) => ({ node: r.node, why: clip(r.why.join("; "), 300) })),
          // a re-judged run without the rejected nodes says so where the accepted ones are named
          accepted: `${names(verdicts.accepted) || "none"}${verdicts.excluded ? " (the verdicts above are of the cluster without the rejected nodes: gpucheck judge --exclude-bad)" : ""}`,
          unjudged: names(verdicts.unjudged),
        }
      : null,
    signer: { fingerprint: signer.fingerprint, algorithm: signer.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256" },
    subjects: st.subject.map((s) => ({ name: s.name, sha256: s.digest.sha256 })),
    predicateType: PREDICATE_TYPE,
    verify: verifyCommands(
      signer.algorithm,
      st.subject.map((s) => s.name),
      st.predicate.testResult !== undefined,
    ),
  };
}

/**
 * A fleet without an isolating test: each node by its own units of the per-node tests. Rejected: a
 * unit that failed or ended in an error, with why. Not judged: a node some per-node test has no
 * passing result for (lost, skipped): not measured is never accepted. A whole-cluster test's verdict
 * is the cluster's and names no node.
 */
function perNodeVerdicts(p: Statement["predicate"]): NonNullable<Statement["predicate"]["nodeVerdicts"]> {
  const all = new Set([...p.nodes.map((n) => n.hostname), ...p.tests.flatMap((t) => t.units.flatMap((u) => u.hosts))]);
  const why = new Map<string, string[]>();
  const unmeasured = new Set<string>();
  for (const t of p.tests.filter((x) => x.perNode)) {
    const seen = new Set<string>();
    for (const u of t.units) {
      for (const host of u.hosts) {
        if (u.outcome === "passed") seen.add(host);
        else if (u.outcome === "failed" || u.outcome === "error") {
          seen.add(host);
          why.set(host, [...(why.get(host) ?? []), `${t.name}: ${u.outcome}: ${u.reason}`]);
        }
      }
    }
    for (const n of all) if (!seen.has(n)) unmeasured.add(n);
  }
  const order = (xs: Iterable<string>) => [...xs].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return {
    rejected: order(why.keys()).map((node) => ({ node, why: why.get(node) as string[] })),
    unjudged: order([...unmeasured].filter((n) => !why.has(n))),
    accepted: order([...all].filter((n) => !why.has(n) && !unmeasured.has(n))),
  };
}

/** Nodes alike as one group; the groups in the order of their first node. */
function groupNodes(nodes: CertificateView["nodes"]): NonNullable<CertificateView["nodeGroups"]> {
  const groups = new Map<string, string[]>();
  for (const n of nodes) {
    const key = `${n.gpus}\u0001${n.versions}`;
    groups.set(key, [...(groups.get(key) ?? []), n.hostname]);
  }
  return [...groups].map(([key, hosts]) => {
    const [gpus, versions] = key.split("\u0001");
    return { hosts: compressHostlist(hosts), count: hosts.length, gpus, versions };
  });
}

/** One line per test: the headline number against its threshold; the worst unit when there are several. */
function testRow(t: PredicateTest): CertificateView["tests"][number] {
  const { metric, unit } = t.headline;
  const bounds = t.thresholds.filter((x) => x.metric === metric);
  const higherIsWorse = bounds.length > 0 && bounds.every((b) => b.max !== undefined && b.min === undefined);
  const measured = t.units.filter((u) => u.headline !== null);
  const missed = (u: (typeof t.units)[number]) => u.checks.some((c) => c.metric === metric && !c.ok);
  const worse = (a: number, b: number) => (higherIsWorse ? b > a : b < a);
  let shown = "not measured";
  if (measured.length > 0) {
    // a unit that missed the threshold first, then the lowest (or highest, for a maximum)
    const worst = measured.reduce((a, b) => (missed(b) !== missed(a) ? (missed(b) ? b : a) : worse(a.headline as number, b.headline as number) ? b : a));
    shown = `${metric} ${withUnit(worst.headline as number, unit)}`;
    if (t.units.length > 1) shown += ` (worst of ${t.units.length}: ${worst.unit})`;
  }
  // a figure from CPU ranks (a CPU suite, or no GPU found) must not read as a GPU's
  // (a link between two CPU ranks carries their names: "rank 1 (CPU: …)→rank 0 (CPU: …)")
  const onCpu = (p: (typeof t.units)[number]["checks"][number]["part"]) => p?.type === "cpu" || (p?.type === "link" && (p.name ?? "").includes("(CPU"));
  if (measured.length > 0 && t.units.some((u) => u.checks.some((c) => onCpu(c.part)))) shown += " — measured on CPU ranks, not GPUs";
  const bad = t.units.find((u) => u.outcome !== "passed");
  const note = bad && t.outcome !== "passed" ? `${t.units.length > 1 ? `${bad.unit}: ` : ""}${bad.reason}` : "";
  const rule = t.thresholds.find((x) => x.metric === "transport");
  const threshold = [...bounds, ...(rule ? [rule] : [])].map((b) => b.text).join("; ") || "—";
  // a test with no threshold was recorded, not judged: it is no pass of anything
  const recorded = t.outcome === "passed" && t.thresholds.length === 0;
  return {
    name: t.name,
    outcome: recorded ? "RECORDED (no thresholds)" : t.outcome.toUpperCase(),
    measured: shown,
    threshold,
    note: clip(note, 180),
    transport: clip(transportOf(t), 240),
  };
}

/** NCCL's account of a fabric test's transport; per unit when units differ. Empty when none was recorded. */
function transportOf(t: PredicateTest): string {
  const lines = t.units.filter((u) => u.transport !== undefined).map((u) => ({ unit: u.unit, line: u.transport as string }));
  const distinct = [...new Set(lines.map((l) => l.line))];
  if (distinct.length <= 1) return distinct[0] ?? "";
  return lines.map((l) => `${l.unit}: ${l.line}`).join("; ");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "2025-03-01T10:04:05.123Z" → "2025-03-01 10:04:05 UTC": the form a ticket reader compares by eye. */
function utc(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}
