// Text generated from the registry: docs/reference/kinds.md (each kind's keys and metrics) and the
// JSON Schemas of each kind's workload result (schema/workload-<kind>.schema.json). Written by
// scripts/gen-docs.ts; test/kinds/reference.test.ts fails when the committed copies are stale.
import { z } from "zod";
import { type MetricInfo, TELEMETRY_METRICS } from "../core/metrics.ts";
import type { AnyKind } from "../core/kind.ts";
import { KINDS, type KindName } from "./mod.ts";
import { RESULTS } from "./results.ts";

export const KINDS_REFERENCE = "docs/reference/kinds.md";
export const REGENERATE = "bun run scripts/gen-docs.ts";

const kinds = (): AnyKind[] => Object.values(KINDS);

function metricRow(name: string, m: MetricInfo, perComponent = false): string {
  const notes = [
    perComponent && "per part (each GPU, link or NIC): one check per part, and `outlier:` against its peers",
    m.perSize && `per message size: \`${name}@1GiB\``,
    m.models && `${m.models.join(", ")} only`,
    m.realData && "real data sets only",
    m.total && `a total over the ${m.total === "job" ? "job's" : "node's"} GPUs`,
  ].filter(Boolean);
  const cell = (s: string) => s.replaceAll("|", "\\|");
  return `| \`${name}\` | ${m.unit === "" ? "-" : m.unit} | ${m.better} | ${cell(m.description)}${notes.length ? ` (${notes.join("; ")})` : ""} |`;
}

function metricTable(metrics: Record<string, MetricInfo>, perComponent: Record<string, MetricInfo> = {}): string[] {
  return [
    "| metric | unit | better | what |",
    "|---|---|---|---|",
    ...Object.entries(metrics).map(([n, m]) => metricRow(n, m)),
    ...Object.entries(perComponent).map(([n, m]) => metricRow(n, m, true)),
  ];
}

/** The reference of kinds: each kind's block keys with defaults, and its metrics. */
export function kindsReference(): string {
  const out: string[] = [
    "Kinds, their keys and metrics (`gpucheck list` prints the metrics too). Units are canonical:",
    "thresholds may use any compatible unit, and a plain number is in the canonical one.",
  ];
  for (const k of kinds()) {
    out.push("", `### kind: ${k.name}`, "", `${k.summary[0]!.toUpperCase()}${k.summary.slice(1)}.`);
    const defaults = [k.perNode && "perNode: true", k.ranksPerNode !== undefined && `ranksPerNode: ${k.ranksPerNode}`].filter(Boolean);
    if (defaults.length) out.push(`Defaults that differ from other kinds: ${defaults.join(", ")}.`);
    out.push("", `| \`${k.name}:\` key | default | what |`, "|---|---|---|");
    for (const key of k.keys) out.push(`| \`${key.key}\` | ${key.default ?? ""} | ${key.doc.replaceAll("|", "\\|")} |`);
    out.push("", ...metricTable(k.metrics, k.componentMetrics));
    if (k.transport) out.push("", "`transport: { require: [...], forbid: [...] }` judges the transports NCCL used (below).");
  }
  out.push("", "### Telemetry (any kind, during the test only)", "", ...metricTable(TELEMETRY_METRICS));
  return out.join("\n");
}

/** docs/reference/kinds.md: a title, where it comes from, then the reference of kinds. */
export function kindsPage(): string {
  return [
    "# Reference: kinds and metrics",
    "",
    `<!-- generated from lib/kinds/ by \`${REGENERATE}\`: do not edit -->`,
    "",
    "How to write a suite: [../writing-suites.md](../writing-suites.md); what each kind measures: [../kinds.md](../kinds.md).",
    "",
    kindsReference(),
    "",
  ].join("\n");
}

export const contractPath = (kind: string) => `schema/workload-${kind}.schema.json`;

/** The JSON Schema of a kind's workload result (draft 2020-12), from the zod schema its parser is held to. */
export function contractSchema(k: AnyKind): Record<string, unknown> {
  const generated = z.toJSONSchema(RESULTS[k.name as KindName], { target: "draft-2020-12" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: `urn:gpucheck:schema:workload-${k.name}:1`,
    title: `gpucheck workload result: kind ${k.name}`,
    description: `${k.resultSource[0]!.toUpperCase()}${k.resultSource.slice(1)}.`,
    ...rest,
  };
}

/** Every generated file: path relative to the repository → its text. */
export function generatedFiles(): Record<string, string> {
  const files: Record<string, string> = { [KINDS_REFERENCE]: kindsPage() };
  for (const k of kinds()) files[contractPath(k.name)] = `${JSON.stringify(contractSchema(k), null, 2)}\n`;
  return files;
}
