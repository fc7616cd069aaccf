// A plan for people: per test what runs where, with the platform's rendering verbatim.
import type { Slots } from "../core/slots.ts";
import type { Plan, PlannedIsolation, PlannedUnit } from "../core/types.ts";
import { expectedPlanTime, fmtMs } from "./expected-time.ts";

export function renderPlanText(plan: Plan): string {
  const out: string[] = [];
  out.push(`suite ${plan.suite.name}  (${plan.suite.path}, sha256 ${plan.suite.sha256.slice(0, 12)}…)`);
  if (plan.suite.cluster) out.push(`cluster ${plan.suite.cluster}`);
  out.push(`platform ${plan.platform}`);
  if (plan.hosts) out.push(`hosts ${plan.hosts.join(", ")}`);
  for (const w of plan.warnings) out.push(`warning: ${w}`);
  const expected = expectedPlanTime(plan);
  out.push(`expected total ${fmtMs(expected.total.ms)} (${expected.total.basis})`);
  if (plan.fabricStart)
    out.push(`before the first test, where gpucheck runs: ${plan.fabricStart.command.join(" ")} > <results>/${plan.fabricStart.file} (the fabric's error counters at the start)`);
  out.push("");
  for (const [i, t] of plan.tests.entries()) {
    const where = t.perNode ? (t.placement ? `per node on ${t.placement.hosts.length} host(s)` : "per node on every node") : `${t.nodes} node(s)`;
    const shape = t.kind === "fabric" ? "where gpucheck runs, once per run" : `${where} × ${t.ranksPerNode} ranks (world ${t.worldSize}), ${t.gpusPerNode} GPU(s)/node`;
    out.push(`${i + 1}. ${t.name}  [${t.kind}]  ${shape}, timeout ${Math.round(t.timeoutMs / 1000)}s`);
    if (t.notRunnable) out.push(`   not runnable on platform ${plan.platform}: ${t.notRunnable}`);
    if (t.placement) out.push(`   runs on: ${t.placement.hosts.join(", ")}${t.placement.unused.length ? `; unused: ${t.placement.unused.join(", ")}` : ""}`);
    out.push(`   expected: ${fmtMs(expected.tests[i].ms)} (${expected.tests[i].basis})`);
    if (t.kind === "fabric") {
      out.push(...fabricText(t.rendered as FabricRendering), "");
      continue;
    }
    out.push(`   command: ${[t.launch.python, ...t.launch.args].join(" ")}`);
    const env = Object.entries(t.launch.env);
    if (env.length) out.push(`   env: ${env.map(([k, v]) => `${k}=${v}`).join(" ")}`);
    for (const e of t.expect) out.push(`   expect: ${e.text}`);
    out.push(`   files: ${t.launch.files.length} workload files (gpucheck_workload/)`);
    if (t.isolation) out.push(...isolationText(t.isolation));
    for (const u of t.units) out.push(`   unit ${u.name}${u.eachNode ? " (one per node found at run time)" : ""}: ${unitNodes(u)}`);
    if (t.notRunnable) {
      out.push("");
      continue;
    }
    const slots = Object.entries((t.rendered as { slots?: Slots } | null)?.slots ?? {});
    if (slots.length) out.push("   slots the run fills in:", ...slots.map(([k, v]) => `     {{${k}}}: ${v}`));
    out.push(...indent(renderedText(t.rendered), "   "), "");
  }
  return `${out.join("\n")}\n`;
}

function isolationText(iso: PlannedIsolation): string[] {
  const count = iso.planned ? `: ${iso.planned.rounds} round(s), ${iso.planned.launches} launch(es) in the first pass` : "";
  const head = `   ${iso.onFailure ? "on failure: " : ""}pattern ${iso.pattern} over ${iso.hosts.length} hosts${iso.pairs !== undefined ? ` (${iso.pairs} rounds of random pairs, seed ${iso.seed})` : ""}${count}`;
  const rounds = iso.rounds.map((r) => `     ${r.label} (${r.phase}): ${r.units.join(", ")}`);
  return [head, ...rounds, `     ${iso.later}`, ...(iso.rounds.length ? ["   the first round's units, as the platform renders them:"] : [])];
}

interface FabricRendering {
  here: string[][];
  topology: string;
  countersSince: string;
}

/** A fabric test launches nothing on the nodes: the tools it runs where gpucheck runs, and what it compares with. */
function fabricText(r: FabricRendering): string[] {
  return [
    "   runs where gpucheck runs, once (no rank on the nodes):",
    ...r.here.map((argv) => `     ${argv.join(" ")}`),
    `   compares with: the topology ${r.topology}; the error counters of ${r.countersSince}`,
  ];
}

function renderedText(r: unknown): string {
  if (typeof r === "string") return r;
  if (r && typeof r === "object" && typeof (r as { text?: unknown }).text === "string") return (r as { text: string }).text;
  if (r && typeof r === "object" && typeof (r as { yaml?: unknown }).yaml === "string") return (r as { yaml: string }).yaml;
  return JSON.stringify(r, null, 2);
}

function unitNodes(u: PlannedUnit): string {
  return u.nodes
    .map(
      (n, i) =>
        `${n} (ranks ${u.ranks
          .filter((r) => r.node === i)
          .map((r) => r.rank)
          .join(",")})`,
    )
    .join(", ");
}

function indent(text: string, pad: string): string[] {
  return text.split("\n").map((l) => pad + l);
}
