// What an isolating test found, in lines for the terminal summary and the JUnit output: which nodes
// are bad and why, which pairs fail only together, what stayed unexplained, and the line a person
// looks for last: "Bad nodes: …".
import type { IsolationVerdict, NodeVerdict } from "../core/isolation.ts";
import type { ResultsFile, TestResult } from "../core/types.ts";

type Isolated = TestResult & { isolation: IsolationVerdict };

export function isolatedTests(r: ResultsFile): Isolated[] {
  return r.tests.filter((t): t is Isolated => t.isolation !== undefined);
}

/** One block per isolating test: its pattern and cost, then every node that is not plainly good. */
export function isolationLines(t: Isolated): string[] {
  const v = t.isolation;
  const head = `${t.name}: ${v.pattern} over ${plural(v.nodes.length, "node")}, ${plural(v.rounds, "round")}, ${plural(v.launches, "launch", "launches")}${v.complete ? "" : " (stopped before it finished)"}`;
  const lines = [head];
  for (const n of v.nodes.filter((x) => x.verdict !== "good")) lines.push(`  ${n.node}  ${n.verdict}: ${n.reason}`);
  for (const p of v.badPairs) lines.push(`  ${p}  bad pair: fails only together, each node passes with others`);
  for (const u of v.unresolved) lines.push(`  unexplained: ${u}`);
  return lines;
}

/** "Bad nodes: gpu07 (pairwise-allreduce: …)", or "Bad nodes: none (…)" when every isolation cleared every node. */
export function badNodesLine(r: ResultsFile): string | undefined {
  const tests = isolatedTests(r);
  if (!tests.length) return undefined;
  const bad = new Map<string, string[]>();
  for (const t of tests) for (const n of t.isolation.nodes.filter((x) => x.verdict === "bad")) bad.set(n.node, [...(bad.get(n.node) ?? []), `${t.name}: ${n.reason}`]);
  if (!bad.size) {
    const open = tests.flatMap((t) => t.isolation.nodes.filter((n) => n.verdict !== "good").map((n) => `${n.node} ${n.verdict}`));
    return `Bad nodes: none${open.length ? `; not cleared: ${open.join(", ")}` : ""} (${tests.map((t) => `${t.name}: ${plural(t.isolation.nodes.length, "node")} judged`).join("; ")})`;
  }
  return `Bad nodes: ${[...bad].map(([node, why]) => `${node} (${why.join("; ")})`).join(", ")}`;
}

/** The nodes every isolating test judged good, and those any of them found bad, for the certificate. */
export function nodeAcceptance(r: { tests: Array<Pick<TestResult, "name" | "isolation">> }): {
  accepted: string[];
  rejected: Array<{ node: string; why: string[] }>;
  unjudged: string[];
} {
  const all = new Map<string, NodeVerdict[]>();
  for (const t of r.tests) for (const n of t.isolation?.nodes ?? []) all.set(n.node, [...(all.get(n.node) ?? []), n]);
  const rejected: Array<{ node: string; why: string[] }> = [];
  const accepted: string[] = [];
  const unjudged: string[] = [];
  for (const [node, vs] of all) {
    if (vs.some((v) => v.verdict === "bad")) rejected.push({ node, why: vs.filter((v) => v.verdict === "bad").map((v) => v.reason) });
    else if (vs.every((v) => v.verdict === "good")) accepted.push(node);
    else unjudged.push(node);
  }
  return { accepted, rejected, unjudged };
}

function plural(n: number, noun: string, many = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : many}`;
}
