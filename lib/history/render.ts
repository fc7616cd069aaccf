// `gpucheck history show` as text: the runs, then each part slot with the serials it held and each
// metric's figures run by run with their drift from the part's accepted figure, then every failure.
import { plural } from "../core/plural.ts";
import type { History, MetricHistory, SlotHistory } from "./view.ts";

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(2) : String(Number(v.toPrecision(3))));
const pct = (d: number) => `${d >= 0 ? "+" : "−"}${Math.abs(d * 100).toFixed(1)} %`;

export function renderHistory(h: History, db: string): string {
  if (h.runs.length === 0)
    return `history: nothing recorded for "${h.query}" in ${db} (a node's name, a GPU's serial or UUID; add runs with: gpucheck history import <results-dir>)\n`;
  const modes = ["acceptance", "health"].map((m) => [m, h.runs.filter((r) => r.mode === m).length] as const).filter(([, n]) => n > 0);
  const lines = [
    `history of ${h.query} in ${db}: ${plural(h.runs.length, "run")} (${modes.map(([m, n]) => `${n} ${m}`).join(", ")}), ${h.runs[0]!.startedAt} to ${h.runs.at(-1)!.startedAt}`,
    "",
    "runs:",
  ];
  for (const r of h.runs) lines.push(`  #${r.id}  ${r.startedAt}  ${r.mode.padEnd(10)}  ${r.suite}  ${r.endedAt === null ? "INCOMPLETE" : r.outcome.toUpperCase()}  ${r.dir}`);
  for (const s of h.slots) lines.push("", ...renderSlot(s));
  lines.push("");
  if (h.failures.length === 0) lines.push("failures: none");
  else {
    lines.push(`failures (${h.failures.length}):`);
    for (const f of h.failures)
      lines.push(`  #${f.run}  ${f.node} ${f.slot === "node" ? "" : `${f.slot} `}${f.test} ${f.metric} ${f.verdict.toUpperCase()}: ${f.message ?? "no message"}`);
  }
  return `${lines.join("\n")}\n`;
}

function renderSlot(s: SlotHistory): string[] {
  const head = `${s.node}${s.slot === "node" ? " (the node's own figures)" : ` ${s.slot}`}`;
  const parts = s.parts.filter((p) => p.serial ?? p.uuid);
  const out: string[] = [];
  if (parts.length <= 1) out.push(`${head}${parts[0] ? `  ${partName(parts[0])}` : ""}`);
  else {
    out.push(`${head}  SWAPPED: ${parts.length} parts in this slot (an RMA or a reseat into another slot)`);
    for (const p of parts) out.push(`  ${partName(p)}: runs #${p.firstRun}${p.lastRun !== p.firstRun ? ` to #${p.lastRun}` : ""}`);
  }
  for (const m of s.metrics) out.push(`  ${renderMetric(m)}`);
  return out;
}

const partName = (p: { serial: string | null; uuid: string | null }) => [p.serial ? `serial ${p.serial}` : null, p.uuid].filter(Boolean).join(", ");

function renderMetric(m: MetricHistory): string {
  const unit = m.unit && m.unit !== "count" ? ` ${m.unit}` : "";
  const ref = m.reference
    ? `${m.reference.accepted ? "accepted" : "first seen (no acceptance run passed this part)"} ${fmt(m.reference.value)}${unit} (#${m.reference.run})`
    : "never measured";
  const points = m.points.map((p) => {
    const v = p.value === null ? "not measured" : `${fmt(p.value)}${p.drift !== null && p.drift !== 0 ? ` (${pct(p.drift)})` : ""}`;
    return `#${p.run} ${v}${p.verdict === "failed" || p.verdict === "error" ? ` ${p.verdict.toUpperCase()}` : ""}`;
  });
  return `${m.test} ${m.metric}: ${ref} · ${points.join(" · ")}`;
}
