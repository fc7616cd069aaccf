// The machinery every pattern shares: a queue of wanted launches packed into rounds (no node twice
// in a round), known-good nodes lent as padding and as confirm partners, one re-run of a launch that
// gave no evidence, the second pass that confirms suspects, and the verdict.
import { Findings, nodeVerdicts } from "./findings.ts";
import { comparable, Ledger, type Rules } from "./judge.ts";
import { SecondPass } from "./confirm.ts";
import type { Planned, Request } from "./request.ts";
import { pairName } from "./schedule.ts";
import type { Group, Isolation, IsolationVerdict, JudgedGroup, Pattern, Phase, Round } from "./strategy.ts";

/** A launch that gave no evidence (an infrastructure error, no value) is run once more, then its nodes are untested. */
const RETRIES = 1;

// a round holds one phase; of the phases waiting, the one that finds more work goes first
const PHASE_ORDER: Phase[] = ["screen", "pairwise", "bisect", "boundary", "confirm", "second-pass"];
const PHASE_WORD: Record<Phase, string> = { screen: "screen", pairwise: "pairwise", bisect: "bisect", boundary: "boundary", confirm: "confirm", "second-pass": "second pass" };

export interface Settings extends Rules {
  confirmPartners: number;
}

export abstract class Engine implements Isolation {
  protected readonly ledger: Ledger;
  protected readonly queue: Request[] = [];
  protected readonly planned: Planned[] = [];
  /** known-good nodes and how many good groups vouch for each */
  protected readonly good = new Map<string, number>();
  protected readonly findings = new Findings();
  protected readonly second: SecondPass;
  private pending?: { round: Round; placed: Array<{ req: Request; pads: string[] }> };
  private finished = false;
  private readonly counts = new Map<Phase, number>();
  private controls = 0;

  constructor(
    readonly pattern: Pattern,
    readonly nodes: string[],
    protected readonly settings: Settings,
    /** the phase of confirm pairs: "second-pass" after pairwise, "confirm" after bisection */
    confirmPhase: Phase,
  ) {
    this.ledger = new Ledger(settings);
    this.second = new SecondPass({
      queue: this.queue,
      findings: this.findings,
      vouch: (nodes) => this.vouch(nodes),
      forget: (node) => this.good.delete(node),
      confirmPartners: settings.confirmPartners,
      phase: confirmPhase,
    });
  }

  /** Queues more work once the queue is empty (stalled: only waiting requests are left); false when there is none. */
  protected abstract advance(stalled: boolean): boolean;
  protected abstract rule(): string;
  /** findings to add to a partial verdict (pairwise before its blame ran) */
  protected provisional(_f: Findings): void {}

  next(): Round | undefined {
    if (this.pending) return this.pending.round;
    if (this.finished) return undefined;
    for (let guard = 0; guard < 100_000; guard++) {
      const plan = this.planned.shift();
      const placed = plan ? plan.requests.map((req) => ({ req, pads: [] as string[] })) : this.pack();
      if (placed?.length) {
        if (!plan) this.addControls(placed);
        const phase = plan?.phase ?? placed[0]!.req.phase;
        const n = (this.counts.get(phase) ?? 0) + 1;
        this.counts.set(phase, n);
        const groups = placed.map(({ req, pads }) => {
          const nodes = [...req.subjects, ...pads];
          return { name: nodes.length === 2 ? pairName(nodes[0]!, nodes[1]!) : req.label, nodes };
        });
        this.pending = { round: { label: plan?.label ?? `${PHASE_WORD[phase]} ${n}`, phase, groups }, placed };
        return this.pending.round;
      }
      if (!this.advance(this.queue.length > 0)) {
        this.finished = true;
        return undefined;
      }
    }
    throw new Error("isolation: the planner made no progress (a bug: please report it with the node list and options)");
  }

  feed(results: Parameters<Isolation["feed"]>[0]): void {
    if (!this.pending) throw new Error("feed: no round is waiting for results (call next() first)");
    const { round, placed } = this.pending;
    const entries = this.ledger.add(round, results);
    this.pending = undefined;
    entries.forEach((e, i) => {
      const { req, pads } = placed[i]!;
      if (e.judged === "unjudged" && (req.tries ?? 0) < RETRIES) this.queue.unshift({ ...req, tries: (req.tries ?? 0) + 1 });
      else req.done(e, pads);
    });
  }

  verdict(): IsolationVerdict {
    const complete = this.finished;
    const f = complete ? this.findings : this.partial();
    const nodes = nodeVerdicts(this.nodes, this.ledger, f, complete);
    return {
      pattern: this.pattern,
      nodes,
      bad: nodes.filter((n) => n.verdict === "bad").map((n) => n.node),
      badPairs: [...f.badPairs.keys()],
      unresolved: [...f.unresolved],
      rounds: this.ledger.rounds,
      launches: this.ledger.groups.length,
      groups: [...this.ledger.groups],
      rule: this.rule(),
      complete,
    };
  }

  private partial(): Findings {
    const f = new Findings();
    for (const k of ["bad", "unconfirmed", "cleared", "badPairs", "untested"] as const) for (const [n, why] of this.findings[k]) f[k].set(n, why);
    f.unresolved.push(...this.findings.unresolved);
    for (const s of this.second.suspects.values()) f.unconfirmed.set(s.node, `${s.why}; the isolation stopped before its second pass finished`);
    this.provisional(f);
    return f;
  }

  /** Rounds of pairs fixed in advance (the circle, random matchings), run before anything queued. */
  protected planPairs(rounds: Group[][]): void {
    rounds.forEach((groups, i) => {
      const requests = groups.map((g): Request => ({ label: g.name, phase: "pairwise", subjects: g.nodes, pads: 0, short: "launch", done: () => {} }));
      this.planned.push({ label: `pairwise ${i + 1}/${rounds.length}`, phase: "pairwise", requests });
    });
  }

  /** The pairs of the pairwise rounds, a launch that gave no evidence replaced by its re-run. */
  protected pairwiseGroups(): JudgedGroup[] {
    const all = this.ledger.groups.filter((g) => g.phase === "pairwise");
    const later = new Set<string>();
    const out: JudgedGroup[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const g = all[i]!;
      if (g.judged !== "unjudged" || !later.has(g.group.name)) out.push(g);
      later.add(g.group.name);
    }
    return out.reverse();
  }

  protected vouch(nodes: readonly string[]): void {
    for (const n of nodes) if (!this.findings.bad.has(n) && !this.findings.unconfirmed.has(n) && !this.second.suspects.has(n)) this.good.set(n, (this.good.get(n) ?? 0) + 1);
  }

  /** The requests of one phase that fit in a round together, their pads chosen. */
  private pack(): Array<{ req: Request; pads: string[] }> | undefined {
    for (const phase of PHASE_ORDER) {
      const used = new Set<string>();
      const placed: Array<{ req: Request; pads: string[] }> = [];
      for (const req of this.queue) {
        if (req.phase !== phase || req.subjects.some((n) => used.has(n))) continue;
        const pads = this.padsFor(req, used);
        if (!pads) continue;
        for (const n of [...req.subjects, ...pads]) used.add(n);
        placed.push({ req, pads });
      }
      if (placed.length) {
        const taken = new Set(placed.map((p) => p.req));
        const rest = this.queue.filter((r) => !taken.has(r));
        this.queue.splice(0, this.queue.length, ...rest);
        return placed;
      }
    }
    return undefined;
  }

  private padsFor(req: Request, used: ReadonlySet<string>): string[] | undefined {
    if (req.pads === 0) return [];
    const subjects = new Set(req.subjects);
    const fit = [...this.good]
      .filter(([n]) => !subjects.has(n) && !req.avoid?.has(n) && !this.findings.bad.has(n) && !this.second.suspects.has(n))
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([n]) => n);
    const free = fit.filter((n) => !used.has(n));
    if (free.length >= req.pads) return free.slice(0, req.pads);
    // too few free this round but enough later: wait a round so comparable groups stay comparable
    if (fit.length >= req.pads || req.short === "wait") return undefined;
    return free.length === fit.length ? free : undefined;
  }

  /**
   * The relative rule needs a clean group to compare with: when a round holds groups of a size no
   * group of known-good nodes has run at, a group of known-good nodes of that size joins the round
   * (once per size). Otherwise two halves that each hold a slow node would only be compared with each
   * other, and the less slow one would pass.
   */
  private addControls(placed: Array<{ req: Request; pads: string[] }>): void {
    if (this.settings.floor !== undefined) return;
    const used = new Set(placed.flatMap(({ req, pads }) => [...req.subjects, ...pads]));
    const sizes = [...new Set(placed.map(({ req, pads }) => req.subjects.length + pads.length))].sort((a, b) => b - a);
    const clean = this.ledger.groups.filter((g) => g.judged === "good" && g.group.nodes.every((n) => this.good.has(n))).map((g) => g.group.nodes.length);
    for (const size of sizes) {
      if (size < 2 || clean.some((c) => comparable(c, size))) continue;
      const req: Request = {
        label: `control-${++this.controls}`,
        phase: placed[0]!.req.phase,
        subjects: [],
        pads: size,
        short: "wait",
        done: (e) => e.judged === "good" && this.vouch(e.group.nodes),
      };
      const pads = this.padsFor(req, used);
      if (!pads) continue;
      for (const n of pads) used.add(n);
      placed.push({ req, pads });
      clean.push(size);
    }
  }

  /** Nothing else can run: every waiting request is given up. */
  protected abandonWaiting(): void {
    const waiting = this.queue.splice(0, this.queue.length);
    for (const r of waiting) r.abandon?.();
  }
}
