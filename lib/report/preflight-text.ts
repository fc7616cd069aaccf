// Preflight in words, for the terminal summary and report.html: per node its verdict, what each
// probe found (or why it could not look), and each problem.
import type { PreflightNode, PreflightProbe, PreflightResult } from "../core/types.ts";
import { xmlSafe } from "../core/xml.ts";

/** Probe values quote node output: on a terminal its escape codes and newlines would wreck the lines. */
const oneLine = (s: string) => xmlSafe(s).replace(/\s+/g, " ").trim();

/** "torch 1.13.0 (built without CUDA)", "NCCL no", "nvidia-smi -L unmeasured: nvidia-smi not found" */
export function probeText(p: PreflightProbe, showPython = false): string {
  const under = showPython && p.python && p.probe !== "python" ? ` [${p.python}]` : "";
  if (p.value === null) return `${p.probe}${under} unmeasured: ${p.reason ?? "no reason given"}`;
  const value = p.value === false ? "no" : p.value === true ? "yes" : String(p.value);
  return `${p.probe} ${value}${p.detail ? ` (${p.detail})` : ""}${under}`;
}

/** "PASSED on gpu-1, gpu-2" or "FAILED on gpu-2 (1 of 2 nodes): no test ran" */
export function preflightHeadline(pre: PreflightResult): string {
  const failed = pre.nodes.filter((n) => !n.passed);
  const aside = pre.nodes.filter((n) => n.status === "skipped").length;
  const asideText = aside ? ` (${aside} node${aside === 1 ? "" : "s"} set aside by the platform)` : "";
  if (pre.passed)
    return `PASSED on ${pre.nodes
      .filter((n) => n.status !== "skipped")
      .map((n) => n.node)
      .join(", ")}${asideText}`;
  if (!failed.length) return `FAILED: the platform offered no usable node${asideText}: no test ran`;
  return `FAILED on ${failed.map((n) => n.node).join(", ")} (${failed.length} of ${pre.nodes.length} node${pre.nodes.length === 1 ? "" : "s"}): no test ran`;
}

export function nodeProbes(n: PreflightNode): string {
  // with one interpreter its path is said once, by the python probe
  const several = new Set(n.probes.map((p) => p.python).filter(Boolean)).size > 1;
  return n.probes.map((p) => probeText(p, several)).join(", ") || `no probe ran (${n.status}${n.message ? `: ${n.message}` : ""})`;
}

/** The summary's section: one line per node, then its problems. */
export function preflightLines(pre: PreflightResult): string[] {
  const out = [`Preflight: ${preflightHeadline(pre)}`];
  for (const n of pre.nodes) {
    if (n.status === "skipped") out.push(`  ${n.node}: skipped: ${oneLine(n.message ?? "set aside by the platform")}`);
    else out.push(`  ${n.node}: ${n.passed ? "passed" : "FAILED"}: ${oneLine(nodeProbes(n))}`);
    for (const p of n.problems) out.push(`    - ${oneLine(p.message)}`);
  }
  return out;
}
