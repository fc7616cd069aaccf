// Text generated from the registry: the README's reference of kinds (their keys and metrics) and the
// JSON Schemas of each kind's workload result (schema/workload-<kind>.schema.json). Written by
// scripts/readme-reference.ts; test/kinds/reference.test.ts fails when the committed copies are stale.
import { z } from "zod";
import { type MetricInfo, TELEMETRY_METRICS } from "../core/metrics.ts";
import type { AnyKind } from "../core/kind.ts";
import { KINDS, type KindName } from "./mod.ts";
import { RESULTS } from "./results.ts";

export const README_BEGIN = "<!-- kinds reference: generated from lib/kinds/ by `bun run scripts/readme-reference.ts`; edit there -->";
export const README_END = "<!-- end of kinds reference -->";
export const REGENERATE = "bun run scripts/readme-reference.ts";

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

/** The README's reference of kinds: each kind's block keys with defaults, and its metrics. */
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

/** The README with its reference of kinds regenerated; throws when the markers are missing. */
export function withReference(readme: string): string {
  const a = readme.indexOf(README_BEGIN);
  const b = readme.indexOf(README_END);
  if (a < 0 || b < a) throw new Error(`README.md has no "${README_BEGIN}" … "${README_END}" markers`);
  return `${readme.slice(0, a + README_BEGIN.length)}\n${kindsReference()}\n${readme.slice(b)}`;
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
export function generatedFiles(readme: string): Record<string, string> {
  const files: Record<string, string> = { "README.md": withReference(readme) };
  for (const k of kinds()) files[contractPath(k.name)] = `${JSON.stringify(contractSchema(k), null, 2)}\n`;
  return files;
}
