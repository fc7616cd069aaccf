// `gpucheck baseline capture`: the versions of a golden node, from a run's inventory, as a YAML block
// for an inventory test (`inventory: { baseline: … }`). Each field is the value every part of the node
// agrees on; a field the node could not read, or whose parts differ, is left out and said why: a
// baseline learned from a node that is itself inconsistent would pass its own fault.
import type { NodeInventory } from "../core/types.ts";
import { SuiteError } from "../core/errors.ts";
import { partsOf } from "../kinds/inventory/config.ts";
import { computePorts } from "../kinds/inventory/parse.ts";
import { BASELINE_FIELDS } from "./fields.ts";

export interface Captured {
  node: string;
  baseline: Record<string, string>;
  /** field → why it is not in the baseline */
  left: Record<string, string>;
}

export function captureBaseline(inventory: NodeInventory[], node: string | undefined, from: string): Captured {
  if (inventory.length === 0) throw new SuiteError(`${from}: the run holds no node inventory to capture a baseline from (run a suite with an inventory test on the golden node)`);
  const inv = node === undefined ? inventory[0]! : inventory.find((i) => i.hostname === node);
  if (!inv) throw new SuiteError(`${from}: no inventory of node "${node}" in this run (it has ${inventory.map((i) => i.hostname).join(", ")}): name one with --node`);
  if (node === undefined && inventory.length > 1)
    throw new SuiteError(`${from}: the run has ${inventory.length} nodes (${inventory.map((i) => i.hostname).join(", ")}): name the golden one with --node`);
  const nics = computePorts(inv, undefined).ports;
  const baseline: Record<string, string> = {};
  const left: Record<string, string> = {};
  for (const field of Object.keys(BASELINE_FIELDS)) {
    const parts = partsOf(inv, field, nics);
    const values = [...new Set(parts.map((p) => p.value))];
    const why = (inv.unmeasured as Record<string, unknown> | undefined)?.[field];
    if (parts.length === 0) left[field] = "the node has no part that carries it";
    else if (values.includes(null)) left[field] = typeof why === "string" ? why : "not in the node's inventory";
    else if (values.length > 1) left[field] = `its parts differ (${parts.map((p) => `${p.part || inv.hostname} ${p.value}`).join(", ")}): fix the golden node first`;
    else baseline[field] = values[0]!;
  }
  return { node: inv.hostname, baseline, left };
}

/** The block as YAML, with a comment per field left out. */
export function baselineYaml(c: Captured, from: string): string {
  const quote = (v: string) => JSON.stringify(v);
  return [
    `# firmware and software baseline of ${c.node}, captured by gpucheck baseline capture from ${from}`,
    "# use it in an inventory test: inventory: { baseline: { ... } }",
    "baseline:",
    ...Object.entries(c.baseline).map(([k, v]) => `  ${k}: ${quote(v)}`),
    ...Object.entries(c.left).map(([k, why]) => `  # ${k}: not captured: ${why}`),
    "",
  ].join("\n");
}
