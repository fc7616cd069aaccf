// A group failed, yet every node in it passed elsewhere: the fault needs two nodes together (a pair
// that only fails together, NVIDIA/nccl #1634), one of them perhaps a known-good node lent as
// padding. Found by two binary searches over the group's node list, one launch at a time: the
// shortest failing prefix ends with one node b of the pair; the shortest prefix that fails with b
// added ends with its partner a; then a+b alone. About 2·log2(n) + 1 launches instead of the
// n(n−1)/2 pairs of the group. A prefix of one node holds no pair, so it is never launched.

export type BoundaryOutcome = { pair: [string, string] } | { stopped: string };

export class Boundary {
  private stage: "b" | "a" | "pair" = "b";
  private lo = 1;
  private hi: number;
  private mid = 0;
  private b = "";
  private testing: string[] = [];
  private lastBad = false;
  outcome?: BoundaryOutcome;

  constructor(
    readonly label: string,
    private readonly nodes: readonly string[],
  ) {
    // the whole list failed: the shortest failing prefix is at most all of it
    this.hi = nodes.length;
  }

  /** The nodes to launch next, or undefined once the outcome is known. */
  next(): string[] | undefined {
    if (this.outcome) return undefined;
    if (this.stage === "b" && this.hi - this.lo <= 1) {
      this.b = this.nodes[this.hi - 1]!;
      this.stage = "a";
      // searching the prefixes of the nodes before b, each with b added: none passes alone, all of them fail
      [this.lo, this.hi] = [0, this.hi - 1];
    }
    if (this.stage === "a" && this.hi - this.lo <= 1) {
      const a = this.nodes[this.hi - 1]!;
      this.stage = "pair";
      // the last launch was already a and b alone, and it failed
      if (this.testing.length === 2 && this.testing.includes(a) && this.testing.includes(this.b) && this.lastBad) {
        this.outcome = { pair: [a, this.b] };
        return undefined;
      }
      this.testing = [a, this.b];
      return this.testing;
    }
    this.mid = Math.floor((this.lo + this.hi) / 2);
    this.testing = this.stage === "b" ? this.nodes.slice(0, this.mid) : [...this.nodes.slice(0, this.mid), this.b];
    return this.testing;
  }

  /** How the launch of next()'s nodes was judged; "unjudged" ends the search. */
  took(judged: "good" | "bad" | "unjudged", why: string): void {
    this.lastBad = judged === "bad";
    if (judged === "unjudged") {
      this.outcome = { stopped: `the boundary probe ${this.testing.join(", ")} gave no evidence (${why})` };
      return;
    }
    if (this.stage === "pair") {
      const [a, b] = this.testing as [string, string];
      this.outcome = judged === "bad" ? { pair: [a, b] } : { stopped: `the boundary probe narrowed it to ${a}+${b}, which then passed alone` };
      return;
    }
    if (judged === "bad") this.hi = this.mid;
    else this.lo = this.mid;
  }
}
