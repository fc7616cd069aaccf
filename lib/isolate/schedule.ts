// Who meets whom: the rounds of the pairwise pattern. Every round is a set of disjoint pairs, run
// concurrently, so the cost in wall time is the number of rounds, not the number of pairs.
import { SuiteError } from "../core/errors.ts";
import { seeded, shuffled } from "./random.ts";
import type { Group } from "./strategy.ts";
import { checkNodes } from "./validate.ts";

export const pairName = (a: string, b: string) => `${a}+${b}`;
export const pair = (a: string, b: string): Group => ({ name: pairName(a, b), nodes: [a, b] });

/**
 * Every unordered pair exactly once, by the circle method of a round-robin tournament: one node
 * stays put while the others turn around it. Even N: N−1 rounds of N/2 pairs. Odd N: a "bye" makes
 * the count even, so N rounds of (N−1)/2 pairs and each node sits out exactly one round.
 */
export function pairwiseRounds(nodes: string[]): Group[][] {
  checkNodes("pairwise", nodes);
  const ring: Array<string | null> = nodes.length % 2 ? [...nodes, null] : [...nodes];
  const fixed = ring[0]!;
  const turning = ring.slice(1);
  const m = turning.length;
  const rounds: Group[][] = [];
  for (let r = 0; r < m; r++) {
    const round: Group[] = [];
    const first = turning[r]!;
    if (first !== null) round.push(pair(fixed, first));
    for (let i = 1; i <= (m - 1) / 2; i++) {
      const a = turning[(r + i) % m]!;
      const b = turning[(r - i + m) % m]!;
      if (a !== null && b !== null) round.push(pair(a, b));
    }
    rounds.push(round);
  }
  return rounds;
}

/**
 * k rounds of random perfect matchings (for N too large for N−1 rounds), the same for the same
 * seed. Odd N: one node, drawn at random, sits out each round. A pair may meet in two rounds.
 */
export function randomMatchings(nodes: string[], k: number, seed: number): Group[][] {
  checkNodes("pairwise", nodes);
  if (!Number.isInteger(k) || k < 1) throw new SuiteError(`pairs must be a whole number of rounds, 1 or more: got ${k}`);
  const random = seeded(seed);
  return Array.from({ length: k }, () => {
    const order = shuffled(nodes, random);
    return Array.from({ length: Math.floor(order.length / 2) }, (_, i) => pair(order[2 * i]!, order[2 * i + 1]!));
  });
}

/** The first half takes the odd one: [a, b, c] → [a, b] and [c]. */
export function halves<T>(xs: readonly T[]): [T[], T[]] {
  const cut = Math.ceil(xs.length / 2);
  return [xs.slice(0, cut), xs.slice(cut)];
}
