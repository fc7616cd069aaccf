// patterns bisect and adaptive: launch a set of groups; a failing group splits into halves (an odd
// half padded with known-good nodes once some are known), recursing into failing halves down to
// single nodes, each then confirmed against healthy partners. A group that failed while both halves
// passed has its boundary probed for a pair fault. If every group failed and no node is known good,
// the few nodes left are tested pairwise among themselves.
import { Boundary } from "./boundary.ts";
import { Engine, type Settings } from "./engine.ts";
import type { Request } from "./request.ts";
import { blame } from "./pairs.ts";
import { suspectWhy } from "./pairwise.ts";
import { describeRule } from "./rule.ts";
import { halves, pairwiseRounds } from "./schedule.ts";
import type { Group, JudgedGroup, Pattern, Phase } from "./strategy.ts";

/**
 * With no node known good, up to this many left are tested pairwise among themselves (15 rounds);
 * beyond it every group failing says more about the test or the fabric than about nodes, and the
 * nodes are reported unconfirmed instead. Our choice: the cost of a 16-node pairwise pass.
 */
const FALLBACK_MAX = 16;

interface SetTest {
  path: string;
  subjects: string[];
  parent?: SetTest;
  entry?: JudgedGroup;
  probed?: boolean;
}

export class Bisection extends Engine {
  private readonly sets: SetTest[] = [];
  private fallback?: string[];
  private fallbackBlamed = false;

  constructor(pattern: Extract<Pattern, "bisect" | "adaptive">, nodes: string[], settings: Settings, first: Group[], phase: Phase) {
    super(pattern, nodes, settings, "confirm");
    first.forEach((g, i) => this.queue.push(this.setRequest(pattern === "bisect" ? "" : String(i + 1), g.name, g.nodes, g.nodes.length, phase)));
  }

  private setRequest(path: string, label: string, subjects: string[], size: number, phase: Phase, parent?: SetTest): Request {
    const set: SetTest = { path, subjects, ...(parent && { parent }) };
    this.sets.push(set);
    const single = subjects.length === 1;
    return {
      label,
      phase,
      subjects,
      pads: Math.max(size, 2) - subjects.length,
      // a lone node cannot run a multi-node test: it waits for a partner known to be good
      short: single ? "wait" : "launch",
      done: (e, pads) => this.setDone(set, e, pads),
      abandon: () => this.findings.unconfirmed.set(subjects[0]!, `${this.chain(set)}; no node known good to pair it with`),
    };
  }

  private chain(set: SetTest): string {
    const names: string[] = [];
    for (let s = set.parent; s; s = s.parent) if (s.entry) names.unshift(s.entry.group.name);
    return `bisection: ${names.length ? `${names.join(" → ")} bad` : "its group"}`;
  }

  private setDone(set: SetTest, e: JudgedGroup, pads: string[]): void {
    set.entry = e;
    if (e.judged === "good") return this.vouch(e.group.nodes);
    if (e.judged === "unjudged") {
      for (const n of set.subjects) if (!this.good.has(n)) this.findings.untested.set(n, `its group ${e.group.name} gave no evidence twice (${e.why})`);
      return;
    }
    const [a, b] = halves(set.subjects);
    if (!b.length) return this.second.suspect(a[0]!, `${this.chain(set)}; ${e.group.name} ${e.why}`, { partner: pads.join(", "), entry: e });
    [a, b].forEach((h, i) => {
      const path = set.path ? `${set.path}.${i + 1}` : String(i + 1);
      this.queue.push(this.setRequest(path, `half-${path}`, h, a.length, "bisect", set));
    });
  }

  protected advance(stalled: boolean): boolean {
    if (stalled) return this.unstall();
    if (this.fallback && !this.fallbackBlamed) {
      this.fallbackBlamed = true;
      const among = this.pairwiseGroups();
      const b = blame(among);
      for (const n of b.healthy) this.vouch([n]);
      for (const n of b.suspects) this.second.suspect(n, `with no node known good, tested pairwise among the ${this.fallback.length} left: ${suspectWhy(n, among)}`);
      for (const g of b.pairs) this.second.retestPair(g);
      return true;
    }
    return this.probe();
  }

  /** Only requests waiting for a known-good partner are left. */
  private unstall(): boolean {
    const usable = [...this.good.keys()].some((n) => !this.findings.bad.has(n));
    const left = [...new Set([...this.queue.flatMap((r) => r.subjects), ...this.second.suspects.keys()])];
    if (!usable && !this.fallback && left.length >= 2 && left.length <= FALLBACK_MAX) {
      this.fallback = left;
      this.queue.splice(0, this.queue.length);
      this.second.suspects.clear();
      this.planPairs(pairwiseRounds(left));
      return true;
    }
    this.abandonWaiting();
    return true;
  }

  /** Failing groups nothing explains, every node of them good elsewhere: a pair is re-tested, a larger group has its boundary probed. */
  private probe(): boolean {
    const known = (n: string) => this.good.has(n) || this.findings.cleared.has(n);
    const open = this.sets.filter((s) => s.entry?.judged === "bad" && !s.probed && !this.findings.settled(s.entry) && s.entry.group.nodes.every(known));
    open.sort((x, y) => x.subjects.length - y.subjects.length);
    const taken = new Set<string>();
    let started = false;
    for (const s of open) {
      const e = s.entry!;
      if (e.group.nodes.some((n) => taken.has(n))) continue;
      s.probed = true;
      for (const n of e.group.nodes) taken.add(n);
      if (e.group.nodes.length === 2) this.second.retestPair(e);
      else this.boundary(s, e);
      started = true;
    }
    return started;
  }

  private boundary(s: SetTest, e: JudgedGroup): void {
    const chain = new Boundary(`boundary-${s.path || "all"}`, e.group.nodes);
    let step = 0;
    const ask = () => {
      const nodes = chain.next();
      if (!nodes) {
        const o = chain.outcome!;
        if ("pair" in o) {
          const name = o.pair.join("+");
          this.findings.badPairs.set(name, `${e.group.name} ${e.why} while each of its nodes passed elsewhere; the boundary probe narrowed it to ${name}, which fails alone`);
        } else this.findings.unresolved.push(`${e.group.name} ${e.why} while each of its nodes passed elsewhere; ${o.stopped}`);
        return;
      }
      step++;
      this.queue.push({
        label: `${chain.label}.${step}`,
        phase: "boundary",
        subjects: nodes,
        // padded to the failing group's size so the relative rule compares like with like
        pads: this.settings.floor === undefined && nodes.length > 2 ? e.group.nodes.length - nodes.length : 0,
        // never a node of the failing group: it may be the other half of the pair being searched for
        avoid: new Set(e.group.nodes),
        short: "launch",
        done: (r) => {
          chain.took(r.judged, r.why);
          ask();
        },
      });
    };
    ask();
  }

  protected rule(): string {
    const first =
      this.pattern === "bisect" ? "bisect: the whole set first" : "adaptive (NVIDIA's Cluster Readiness Engine): a screen of groups of about √N nodes (or the suite's groups)";
    return `${first}; a bad group splits into halves (an odd half padded with known-good nodes once some are known), recursing into bad halves down to single nodes. ${describeRule(this.settings)} A single node is bad only when most of its pairs with ${this.settings.confirmPartners} healthy partners are bad (Google cluster-health-scanner's second pass). A group that failed while both halves passed has its boundary probed by binary search for a pair that fails only together, reported as a bad pair with neither node bad.`;
  }
}
