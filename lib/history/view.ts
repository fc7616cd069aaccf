// A node's or a part's history, read from the store: per part slot, the serials it held (a new serial
// in the same slot is a swap, an RMA), and per metric its figures run by run with the drift from the
// part's accepted figure: the value of the first acceptance run that measured that part (that serial)
// and passed it. A part no acceptance run passed has none; its first figure is the reference, said so.
import type { FigureRecord, RunRecord } from "./store.ts";

export interface Point {
  run: number;
  value: number | null;
  verdict: FigureRecord["verdict"];
  /** value ÷ reference − 1; null when either is missing or the reference is 0 */
  drift: number | null;
  serial: string | null;
  message: string | null;
}

export interface MetricHistory {
  test: string;
  metric: string;
  unit: string;
  /** the accepted figure (an acceptance run's), or the first figure of a part no acceptance run measured */
  reference: { run: number; value: number; accepted: boolean } | null;
  points: Point[];
}

export interface SlotHistory {
  node: string;
  slot: string;
  /** each serial (or UUID where no serial was read) the slot held, in order, with the runs it was seen in */
  parts: Array<{ serial: string | null; uuid: string | null; firstRun: number; lastRun: number }>;
  metrics: MetricHistory[];
}

export interface History {
  query: string;
  runs: RunRecord[];
  slots: SlotHistory[];
  failures: Array<{ run: number; node: string; slot: string; test: string; metric: string; verdict: "failed" | "error"; message: string | null }>;
}

/** A part's identity across runs: its serial, else its UUID; null for a node's own figures. */
const identity = (f: { serial: string | null; uuid: string | null }) => f.serial ?? f.uuid;

export function buildHistory(query: string, figures: FigureRecord[], runs: RunRecord[]): History {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const order = new Map(runs.map((r, i) => [r.id, i]));
  const sorted = [...figures].sort((a, b) => order.get(a.runId)! - order.get(b.runId)!);
  const slots = new Map<string, SlotHistory>();
  const metrics = new Map<string, MetricHistory>();
  for (const f of sorted) {
    const slotKey = JSON.stringify([f.node, f.slot]);
    let slot = slots.get(slotKey);
    if (!slot) slots.set(slotKey, (slot = { node: f.node, slot: f.slot, parts: [], metrics: [] }));
    const last = slot.parts.at(-1);
    if (!last || identity(last) !== identity(f)) slot.parts.push({ serial: f.serial, uuid: f.uuid, firstRun: f.runId, lastRun: f.runId });
    else last.lastRun = f.runId;

    const metricKey = JSON.stringify([f.node, f.slot, f.test, f.metric]);
    let m = metrics.get(metricKey);
    if (!m) {
      m = { test: f.test, metric: f.metric, unit: f.unit, reference: null, points: [] };
      metrics.set(metricKey, m);
      slot.metrics.push(m);
    }
    if (!m.unit && f.unit) m.unit = f.unit;
    m.points.push({ run: f.runId, value: f.value, verdict: f.verdict, drift: null, serial: f.serial, message: f.message });
  }
  for (const slot of slots.values()) {
    for (const m of slot.metrics) {
      // each point is compared with the reference of the part it measured: after a swap, the new part's own
      const refs = new Map<string | null, MetricHistory["reference"]>();
      for (const p of m.points) {
        const id = p.serial;
        if (!refs.has(id))
          refs.set(
            id,
            referenceOf(
              m.points.filter((q) => q.serial === id),
              byId,
            ),
          );
        const ref = refs.get(id)!;
        p.drift = ref && p.value !== null && ref.value !== 0 ? p.value / ref.value - 1 : null;
      }
      m.reference = refs.get(m.points.at(-1)?.serial ?? null) ?? null;
    }
  }
  const failures = sorted
    .filter((f) => f.verdict === "failed" || f.verdict === "error")
    .map((f) => ({ run: f.runId, node: f.node, slot: f.slot, test: f.test, metric: f.metric, verdict: f.verdict as "failed" | "error", message: f.message }));
  return { query, runs, slots: [...slots.values()], failures };
}

function referenceOf(points: Point[], runs: Map<number, RunRecord>): MetricHistory["reference"] {
  // a figure its acceptance run failed or could not judge was not accepted: the part has no accepted figure yet
  const accepted = points.find((p) => p.value !== null && runs.get(p.run)?.mode === "acceptance" && (p.verdict === "passed" || p.verdict === "recorded"));
  if (accepted) return { run: accepted.run, value: accepted.value!, accepted: true };
  const first = points.find((p) => p.value !== null);
  return first ? { run: first.run, value: first.value!, accepted: false } : null;
}
