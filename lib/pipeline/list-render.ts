// What `gpucheck list` prints: what is built in: suites, each kind's metrics (unit, which way is
// better, what it is), the telemetry metrics every test collects, the transports and the platforms.
// All of it is fixed when the binary is built, so the build renders it once (scripts/gen-list.ts →
// list.gen.ts) and `list` only prints it: loading the suites, zod and yaml was 10× a hello-world's
// start-up (BENCHMARKS.md).
import { builtinSuites } from "../core/assets.ts";
import { loadSuite } from "../load/mod.ts";
import { KINDS } from "../kinds/mod.ts";
import { type MetricInfo, TELEMETRY_METRICS, TRANSPORT_TOKENS } from "../core/metrics.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import type { AnyKind } from "../core/kind.ts";
import { REMEDIATION_RULES, XID_CLASSES } from "../assess/remediation.ts";
import { CLASSES, SOURCES } from "../assess/remediation-sources.ts";

/** one metric as `list --json` gives it */
function metricEntry(name: string, m: MetricInfo, perComponent = false) {
  return {
    name,
    ...(perComponent && { perComponent: true }),
    unit: m.unit,
    better: m.better,
    description: m.description,
    ...(m.perSize && { perSize: true }),
    ...(m.models && { models: m.models }),
    ...(m.realData && { realData: true }),
    ...(m.total && { total: m.total }),
  };
}

type Entry = ReturnType<typeof metricEntry>;

/** The output of `gpucheck list` (text) and `gpucheck list --json`. */
export async function renderList(registry: PlatformRegistry): Promise<{ text: string; json: string }> {
  const suites = await Promise.all(
    [...builtinSuites().keys()].sort().map(async (name) => {
      const s = await loadSuite(name, { platforms: registry });
      return { name, description: s.description, tests: s.tests.map((t) => t.name), platform: s.platform.type };
    }),
  );
  const all: AnyKind[] = Object.values(KINDS);
  const kinds = all.map((k) => ({
    kind: k.name,
    metrics: [...Object.entries(k.metrics).map(([n, m]) => metricEntry(n, m)), ...Object.entries(k.componentMetrics ?? {}).map(([n, m]) => metricEntry(n, m, true))],
  }));
  const telemetry = Object.entries(TELEMETRY_METRICS).map(([n, m]) => metricEntry(n, m));
  const platforms = Object.values(registry).map((p) => ({ name: p.name, summary: p.summary }));
  const remediation = {
    classes: Object.fromEntries(Object.entries(CLASSES).map(([name, c]) => [name, { label: c.label, sources: c.sources.map((k) => SOURCES[k]) }])),
    rules: REMEDIATION_RULES.map((r) => ({ kind: r.kind, metric: r.metric.source, ...(r.modes && { modes: r.modes }), class: r.class, why: r.why, source: SOURCES[r.source] })),
    xids: XID_CLASSES,
  };
  const json = `${JSON.stringify({ suites, kinds, telemetry, transports: TRANSPORT_TOKENS, platforms, remediation }, null, 2)}\n`;
  const lines = ["Built-in suites (`gpucheck show <name>` prints one with its threshold sources):"];
  for (const s of suites) lines.push(`  ${s.name.padEnd(16)} ${s.description} (${s.tests.length} test${s.tests.length === 1 ? "" : "s"}: ${s.tests.join(", ")})`);
  for (const k of kinds) {
    lines.push("", `Metrics of kind ${k.kind}:`, ...k.metrics.map(metricLine));
  }
  lines.push("", "Telemetry metrics (collected on every node during any test; thresholds allowed on every kind):", ...telemetry.map(metricLine));
  lines.push("", "Transports a collective's expect: may name (transport: { require: [...], forbid: [...] }):");
  for (const [name, what] of Object.entries(TRANSPORT_TOKENS)) lines.push(`  ${name.padEnd(16)} ${what}`);
  lines.push("", "Remediation of a missed check (first row that matches kind and metric; docs/remediation.md):");
  for (const [name, c] of Object.entries(CLASSES)) lines.push(`  ${name.padEnd(16)} ${c.label}`);
  for (const r of REMEDIATION_RULES)
    lines.push(`  ${r.kind.padEnd(10)} ${r.metric.source.padEnd(24)} → ${r.class}${r.modes ? ` (${r.modes.join(", ")})` : ""}: ${r.why} [${SOURCES[r.source].name}]`);
  lines.push(
    `  Xid checks by the Xid's number (${SOURCES.xidCatalog.name}): ${Object.entries(XID_CLASSES)
      .map(([x, c]) => `${x} ${c}`)
      .join(", ")}; any other hardware Xid reset-gpu`,
  );
  lines.push("", "Platforms:");
  for (const p of platforms) lines.push(`  ${p.name.padEnd(16)} ${p.summary}`);
  return { text: `${lines.join("\n")}\n`, json };
}

function metricLine(m: Entry): string {
  const unit = m.unit === "" ? "-" : m.unit;
  const notes = [
    m.perComponent && "per part: one check per part; outlier: allowed",
    m.perSize && `per message size: ${m.name}@1GiB`,
    m.models && `${m.models.join(", ")} only`,
    m.realData && "real data sets only",
  ].filter(Boolean);
  return `  ${m.name.padEnd(24)} ${unit.padEnd(10)} ${`${m.better} is better`.padEnd(17)} ${m.description}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}
