// Preflight in words, for the terminal summary and report.html: per node its verdict, what each
// probe found (or why it could not look), and each problem. A fleet's preflight (more than
// FLEET_UNITS nodes) is told by exception: its passing nodes as hostlist ranges, one line for each
// distinct finding, so 1,000 nodes are not 1,000 lines and a headline of 1,000 names.
import { compressHostlist } from "../core/hostlist.ts";
import type { PreflightNode, PreflightProbe, PreflightResult } from "../core/types.ts";
import { xmlSafe } from "../core/xml.ts";
import { FLEET_UNITS } from "./fleet.ts";

/** Probe values quote node output: on a terminal its escape codes and newlines would wreck the lines. */
const oneLine = (s: string) => xmlSafe(s).replace(/\s+/g, " ").trim();

/** "torch 1.13.0 (built without CUDA)", "NCCL no", "nvidia-smi -L unmeasured: nvidia-smi not found" */
export function probeText(p: PreflightProbe, showPython = false): string {
  const under = showPython && p.python && p.probe !== "python" ? ` [${p.python}]` : "";
  if (p.value === null) return `${p.probe}${under} unmeasured: ${p.reason ?? "no reason given"}`;
  const value = p.value === false ? "no" : p.value === true ? "yes" : String(p.value);
  return `${p.probe} ${value}${p.detail ? ` (${p.detail})` : ""}${under}`;
}

const isFleetPreflight = (pre: PreflightResult) => pre.nodes.length > FLEET_UNITS;

/** Node names as a list, or at fleet size as hostlist ranges (`gpu[001-998]`). */
function namesOf(nodes: PreflightNode[], fleet: boolean): string {
  return fleet ? compressHostlist(nodes.map((n) => n.node)) : nodes.map((n) => n.node).join(", ");
}

/** "PASSED on gpu-1, gpu-2", "PASSED on 1000 nodes: gpu-[1-1000]" or "FAILED on gpu-2 (1 of 2 nodes): no test ran" */
export function preflightHeadline(pre: PreflightResult): string {
  const fleet = isFleetPreflight(pre);
  const failed = pre.nodes.filter((n) => !n.passed);
  const aside = pre.nodes.filter((n) => n.status === "skipped").length;
  const asideText = aside ? ` (${aside} node${aside === 1 ? "" : "s"} set aside by the platform)` : "";
  if (pre.passed) {
    const used = pre.nodes.filter((n) => n.status !== "skipped");
    return `PASSED on ${fleet ? `${used.length} nodes: ` : ""}${namesOf(used, fleet)}${asideText}`;
  }
  if (!failed.length) return `FAILED: the platform offered no usable node${asideText}: no test ran`;
  return `FAILED on ${namesOf(failed, fleet)} (${failed.length} of ${pre.nodes.length} node${pre.nodes.length === 1 ? "" : "s"}): no test ran`;
}

export function nodeProbes(n: PreflightNode): string {
  // with one interpreter its path is said once, by the python probe
  const several = new Set(n.probes.map((p) => p.python).filter(Boolean)).size > 1;
  return n.probes.map((p) => probeText(p, several)).join(", ") || `no probe ran (${n.status}${n.message ? `: ${n.message}` : ""})`;
}

/** The summary's section: one line per node, then its problems; at fleet size the passing nodes grouped by what they offer. */
export function preflightLines(pre: PreflightResult): string[] {
  const out = [`Preflight: ${preflightHeadline(pre)}`];
  const fleet = isFleetPreflight(pre);
  if (fleet) {
    const alike = new Map<string, PreflightNode[]>();
    for (const n of pre.nodes.filter((x) => x.passed && x.status !== "skipped" && !x.problems.length)) {
      const found = oneLine(nodeProbes(n));
      const same = alike.get(found);
      if (same) same.push(n);
      else alike.set(found, [n]);
    }
    for (const [found, nodes] of alike) out.push(`  ${namesOf(nodes, true)} (${nodes.length} node${nodes.length === 1 ? "" : "s"}): passed: ${found}`);
  }
  for (const n of fleet ? pre.nodes.filter((x) => !x.passed || x.status === "skipped" || x.problems.length) : pre.nodes) {
    if (n.status === "skipped") out.push(`  ${n.node}: skipped: ${oneLine(n.message ?? "set aside by the platform")}`);
    else out.push(`  ${n.node}: ${n.passed ? "passed" : "FAILED"}: ${oneLine(nodeProbes(n))}`);
    for (const p of n.problems) out.push(`    - ${oneLine(p.message)}`);
  }
  return out;
}
