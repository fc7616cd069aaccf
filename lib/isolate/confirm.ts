// The second pass (issue 16, item 3; Google cluster-health-scanner's method): each suspect is paired
// with distinct known-good partners, so one bad node does not condemn the partners it failed with.
// Most pairs bad: the node is bad. None: cleared. A tie gets one more partner. A minority of bad
// pairs points at those pairs, not the node: each is re-tested, and a pair failing again is a bad pair.
import type { Findings } from "./findings.ts";
import type { Request } from "./request.ts";
import type { JudgedGroup, Judgement, Phase } from "./strategy.ts";

interface Trial {
  partner: string;
  judged: Judgement;
  entry: JudgedGroup;
}

interface Suspect {
  node: string;
  why: string;
  trials: Trial[];
  partners: Set<string>;
  open: number;
  tieBroken: boolean;
}

export interface SecondPassContext {
  queue: Request[];
  findings: Findings;
  vouch(nodes: readonly string[]): void;
  forget(node: string): void;
  confirmPartners: number;
  phase: Phase;
}

export class SecondPass {
  readonly suspects = new Map<string, Suspect>();
  private readonly retests = new Map<string, { done: boolean; after: Array<() => void> }>();

  constructor(private readonly ctx: SecondPassContext) {}

  /** `trial`: a launch that already paired the node alone with a known-good node (a bisected single node). */
  suspect(node: string, why: string, trial?: { partner: string; entry: JudgedGroup }): void {
    if (this.suspects.has(node) || this.ctx.findings.bad.has(node)) return;
    const trials = trial ? [{ ...trial, judged: trial.entry.judged }] : [];
    const s: Suspect = { node, why, trials, partners: new Set(trial ? [trial.partner] : []), open: 0, tieBroken: false };
    this.suspects.set(node, s);
    this.ctx.forget(node);
    const need = this.ctx.confirmPartners - s.trials.length;
    for (let i = 0; i < need; i++) this.ctx.queue.push(this.trial(s));
    if (need <= 0) this.decide(s);
  }

  private trial(s: Suspect): Request {
    s.open++;
    return {
      label: `confirm-${s.node}`,
      phase: this.ctx.phase,
      subjects: [s.node],
      pads: 1,
      avoid: s.partners,
      short: "wait",
      done: (entry, pads) => {
        s.open--;
        for (const p of pads) s.partners.add(p);
        s.trials.push({ partner: pads.join(", "), judged: entry.judged, entry });
        if (!s.open) this.decide(s);
      },
      abandon: () => {
        s.open--;
        if (!s.open) this.decide(s, "too few healthy nodes to pair it with");
      },
    };
  }

  private decide(s: Suspect, short?: string): void {
    const f = this.ctx.findings;
    const judged = s.trials.filter((t) => t.judged !== "unjudged");
    const bad = judged.filter((t) => t.judged === "bad");
    const wanted = this.ctx.confirmPartners;
    const few = judged.length < wanted ? ` (${judged.length} of the ${wanted} wanted${short ? `: ${short}` : ""})` : "";
    const list = (ts: Trial[]) => ts.map((t) => t.partner).join(", ");
    const tally = `${bad.length} of ${judged.length} pairs with healthy partners bad`;
    if (bad.length * 2 === judged.length && bad.length && !s.tieBroken && !short) {
      s.tieBroken = true;
      this.ctx.queue.push(this.trial(s));
      return;
    }
    const end = (where: Map<string, string>, why: string) => {
      this.suspects.delete(s.node);
      where.set(s.node, `${s.why}; ${why}`);
      if (where === f.cleared) this.ctx.vouch([s.node]);
    };
    if (!judged.length) return end(f.unconfirmed, `second pass not possible: ${short ?? "its confirm pairs gave no evidence"}`);
    // bad only when most of its pairs with healthy partners fail (issue 16, item 3)
    if (bad.length * 2 > judged.length) return end(f.bad, `second pass confirmed: ${tally} (${list(bad)})${few}`);
    if (!bad.length) return end(f.cleared, `cleared by the second pass: passed with ${list(judged)}${few}`);
    if (bad.length * 2 === judged.length) return end(f.unconfirmed, `second pass: ${tally} (${list(bad)}), not a majority${few}`);
    let open = bad.length;
    for (const t of bad)
      this.retestPair(t.entry, () => {
        if (--open) return;
        const pairs = bad.map((t) => t.entry.group.name);
        if (pairs.every((p) => f.badPairs.has(p))) end(f.cleared, `second pass: ${tally}, and ${pairs.join(", ")} failed again alone: a bad pair, not the node`);
        else end(f.unconfirmed, `second pass: ${tally} (${list(bad)}), not a majority, and the re-test did not show a bad pair`);
      });
  }

  /** A pair that failed with no bad node in it is run once more (false: it was already): failing again, it is a bad pair (neither node bad). */
  retestPair(g: JudgedGroup, after?: () => void): boolean {
    const name = g.group.name;
    const known = this.retests.get(name);
    if (known) {
      if (after) known.done ? after() : known.after.push(after);
      return false;
    }
    const state = { done: false, after: after ? [after] : [] };
    this.retests.set(name, state);
    const f = this.ctx.findings;
    this.ctx.queue.push({
      label: name,
      phase: this.ctx.phase,
      subjects: [...g.group.nodes],
      pads: 0,
      short: "launch",
      done: (e) => {
        if (e.judged === "bad") f.badPairs.set(name, `${name} ${g.why}, and again when re-tested (${e.why}), while each node passes with others`);
        else if (e.judged === "good") f.unresolved.push(`${name} ${g.why} (round ${g.round}), then passed when re-tested`);
        else f.unresolved.push(`${name} ${g.why} (round ${g.round}); its re-test gave no evidence (${e.why})`);
        state.done = true;
        for (const a of state.after) a();
      },
    });
    return true;
  }
}
