// A run's figures as the node history keeps them: one row per node, part slot and metric, with the
// part's serial and UUID, so that a GPU swapped by an RMA shows as a new serial in the same slot.
// Every judged check is a row (its value, what it was compared with, its verdict); a part's own
// values that no threshold judged are rows too ("recorded"), since drift is read from them as well.
import type { ComponentValues, MetricCheck, NodeInventory, PartId, ResultsFile, UnitResult } from "../core/types.ts";

export type FigureVerdict = "passed" | "failed" | "error" | "recorded";

export interface Figure {
  node: string;
  /** where the part sits, stable across swaps: "GPU 3", "NIC mlx5_0", "link GPU 0→GPU 3", "rank 1 (CPU)", or "node" */
  slot: string;
  serial: string | null;
  uuid: string | null;
  pci: string | null;
  test: string;
  metric: string;
  value: number | null;
  unit: string;
  verdict: FigureVerdict;
  expected: number | null;
  expectation: string | null;
  /** the check's own line, or why the value could not be read */
  message: string | null;
}

/** The slot of a part on its node: the index or device name, never the serial (which is what changes). */
export function slotOf(p: PartId): string {
  if (p.type === "cpu") return `rank ${p.rank ?? "?"} (CPU)`;
  if (p.type === "gpu") return `GPU ${p.index ?? p.pciBusId ?? p.uuid ?? "?"}`;
  if (p.type === "nic") return `NIC ${p.name ?? p.index ?? "?"}`;
  return `link ${p.name ?? "?"}`;
}

/** A GPU's serial from the inventory of its node: by UUID, else by nvidia-smi index. */
function serialOf(inventory: Map<string, NodeInventory>, p: PartId): string | null {
  if (p.type !== "gpu") return null;
  const gpus = inventory.get(p.host)?.gpus ?? [];
  const gpu = (p.uuid ? gpus.find((g) => g.uuid === p.uuid) : undefined) ?? (p.index !== undefined ? gpus.find((g) => g.index === p.index) : undefined);
  return typeof gpu?.serial === "string" && gpu.serial !== "" ? gpu.serial : null;
}

/** The node a unit without parts speaks for: its one host, else the unit's own name (a group, the cluster). */
const unitNode = (u: UnitResult) => (u.hosts.length === 1 ? u.hosts[0]! : u.unit);

/** `unitOf`: a metric's canonical unit for its kind (lib/kinds), for the values no check carried a unit for. */
export function figuresOf(results: ResultsFile, unitOf: (kind: string, metric: string) => string | undefined = () => undefined): Figure[] {
  const inventory = new Map(results.inventory.map((n) => [n.hostname, n]));
  const out: Figure[] = [];
  for (const t of results.tests) {
    for (const u of t.units) {
      if (!u.measurement) continue; // nothing was measured (an error before the ranks answered, an unfinished unit)
      const rows = new Map<string, Figure>();
      // one row per node, slot and metric: a check on a part's value fills the row its component value opened
      const rowFor = (host: string, p: PartId | undefined, metric: string): Figure => {
        const slot = p ? slotOf(p) : "node";
        const key = JSON.stringify([host, slot, metric]);
        let row = rows.get(key);
        if (!row) {
          row = {
            node: host,
            slot,
            serial: p ? serialOf(inventory, p) : null,
            uuid: p?.uuid ?? null,
            pci: p?.pciBusId ?? null,
            test: t.name,
            metric,
            value: null,
            unit: unitOf(t.kind, metric) ?? "",
            verdict: "recorded",
            expected: null,
            expectation: null,
            message: null,
          };
          rows.set(key, row);
        }
        return row;
      };
      for (const c of u.measurement.components ?? []) addComponent(c, (p, metric) => rowFor(p.host, p, metric));
      // a unit's own figures speak for its one node (a per-node test), or for its group or the cluster
      const node = unitNode(u);
      for (const [metric, value] of Object.entries(u.measurement.metrics)) {
        const row = rowFor(node, undefined, metric);
        row.value = value;
        row.message = value === null ? (u.measurement.unmeasured?.[metric] ?? null) : null;
      }
      for (const c of u.verdict.checks) {
        if (c.metric === "transport") continue;
        const m = c as MetricCheck;
        const row = m.part ? rowFor(m.part.host, m.part, m.metric) : rowFor(node, undefined, m.metric);
        row.value = m.measured;
        row.unit = m.unit;
        row.verdict = m.measured === null ? "error" : m.ok ? "passed" : "failed";
        row.expected = m.expected;
        row.expectation = m.expectation;
        row.message = m.message;
      }
      out.push(...rows.values());
    }
  }
  return out;
}

function addComponent(c: ComponentValues, row: (p: PartId, metric: string) => Figure): void {
  for (const [metric, value] of Object.entries(c.metrics)) {
    const r = row(c.part, metric);
    r.value = value;
    if (value === null) r.message = c.unmeasured?.[metric] ?? null;
  }
}
