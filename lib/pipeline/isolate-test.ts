// An isolating test, round by round: lib/isolate picks each round's groups of hosts, the platform
// runs them together as units (execute), each unit is judged (assess), and the verdicts choose the
// next round. What every round measured is kept as units of the one test, and the isolation's
// verdict (which nodes are bad, with their evidence) goes beside them.
import type { IsolationVerdict } from "../core/isolation.ts";
import type { PlannedIsolation, PlannedTest, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { paramsOf } from "../kinds/mod.ts";
import { isolation } from "../isolate/mod.ts";
import { groupUnit, isolationOptions } from "../plan/pattern.ts";
import { runUnits, type TestEnv, testLogDir } from "../execute/run-test.ts";
import type { RunRecord } from "../execute/record.ts";
import { assessTest } from "../assess/assess.ts";
import { asGroup, groupStatus, headlineRule, isolatedOutcome } from "../assess/isolation.ts";
import { testResult } from "../assess/test-result.ts";

export interface IsolationRun {
  /** every round's units, named `<round>.<group>` so a group run twice stays apart */
  units: UnitResult[];
  records: RunRecord[];
  verdict: IsolationVerdict;
}

/**
 * Runs the rounds of `iso` until the pattern is done or the run is stopped. `render` is the
 * platform's pure rendering (what `gpucheck plan` prints), applied to each round's units.
 */
export async function runIsolation(
  test: PlannedTest,
  iso: PlannedIsolation,
  env: TestEnv,
  render: (t: PlannedTest) => unknown,
  baseline?: ResultsFile,
  /** the whole-cluster run that failed (`onFailure: isolate`): it stands as the first round when that round is the whole set */
  ring?: { units: UnitResult[]; records: RunRecord[] },
  /** after each round: the isolation so far (incomplete), for results.json to keep what a killed run finished */
  onRound?: (sofar: IsolationRun) => void,
): Promise<IsolationRun> {
  const h = headlineRule(test.kind, test.expect, paramsOf(test.spec));
  const machine = isolation(iso.pattern, iso.hosts, { ...isolationOptions(iso), ...(h.floor !== undefined && { floor: h.floor }) });
  const logDir = testLogDir(env.outDir, test.name);
  const run: Omit<IsolationRun, "verdict"> = { units: [], records: [] };
  let n = 1;
  const first = machine.next();
  if (ring && first?.groups.length === 1 && sameNodes(first.groups[0]!.nodes, iso.hosts) && ring.units.length === 1) {
    machine.feed([asGroup(first.groups[0]!, ring.units[0]!, h)]);
    n = 2;
  }
  for (let round = machine.next(); round; n++, round = machine.next()) {
    if (env.signal.aborted) break;
    const units = round.groups.map((g) => groupUnit({ name: `${n}.${g.name}`, nodes: g.nodes }, test.ranksPerNode));
    const shaped: PlannedTest = { ...test, worldSize: Math.max(...units.map((u) => u.ranks.length)), units };
    const planned = { ...shaped, rendered: render(shaped) };
    env.progress.note(`${test.name}: ${round.label} (${round.phase}): ${round.groups.map((g) => g.name).join(", ")}`);
    const records = await runUnits(planned, env, logDir);
    const judged = assessTest(planned, records, baseline).units;
    run.records.push(...records);
    run.units.push(...judged);
    // a round cut short by Ctrl-C is not evidence: the verdict stays what the finished rounds say
    if (env.signal.aborted) break;
    // by name, not position: a platform returns units in its own order (Slurm lists the groups it
    // could not submit last), and a shifted result once condemned a good pair for a frozen node
    const byName = new Map(judged.map((u) => [u.unit, u]));
    machine.feed(
      round.groups.map((group, i) => {
        const u = byName.get(units[i]!.name);
        return u ? asGroup(group, u, h) : { group, status: "error", value: null, unit: h.unit, higher: h.higher, message: "no result came back for this group" };
      }),
    );
    onRound?.({ units: [...run.units], records: [...run.records], verdict: verdictOf(machine, iso) });
  }
  return { ...run, verdict: verdictOf(machine, iso) };
}

function verdictOf(machine: ReturnType<typeof isolation>, iso: PlannedIsolation): IsolationVerdict {
  const runOf = { hosts: iso.hosts, seed: iso.seed, ...(iso.pairs !== undefined && { pairs: iso.pairs }), ...(iso.screen && { screen: iso.screen }) };
  return { ...machine.verdict(), run: runOf };
}

/** The test's result: every round's units, the isolation's verdict, and an outcome that follows it. */
export function isolatedResult(test: PlannedTest, run: IsolationRun, before: UnitResult[] = []): TestResult {
  const units = [...before, ...run.units];
  return { ...testResult(test, units, isolatedOutcome(run.verdict, units)), isolation: run.verdict };
}

/** A whole-cluster run worth isolating: it failed or hung, rather than could not be judged. */
export function isolationWanted(u: UnitResult): boolean {
  const s = groupStatus(u);
  return s === "failed" || s === "timeout";
}

function sameNodes(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
