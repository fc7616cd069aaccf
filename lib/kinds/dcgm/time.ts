// A dcgm test's expected wall time: NVIDIA's documented length of its `dcgmi diag -r` level
// (https://docs.nvidia.com/datacenter/dcgm/latest/reference/command-line-reference/dcgmi/dcgmi-diag.html:
// 1 "normally lasting seconds", 2 "approximately two minutes", 3 "approximately 15 minutes").
// Level 4 has no documented length ("extended"), so its timeout stays the upper bound.
import type { DcgmParams } from "./params.ts";
import type { KindEstimate } from "../time-basis.ts";

const SOURCE = "NVIDIA's dcgmi diag reference";
const LEVEL_MS: Partial<Record<DcgmParams["level"], { ms: number; words: string }>> = {
  1: { ms: 60_000, words: "level 1 lasts seconds (counted as 1m)" },
  2: { ms: 120_000, words: "level 2 lasts about two minutes" },
  3: { ms: 900_000, words: "level 3 lasts about 15 minutes" },
};

export function dcgmExpectedMs(p: Pick<DcgmParams, "level">): KindEstimate {
  const known = LEVEL_MS[p.level];
  if (!known) return { why: `dcgm.level ${p.level} has no documented length (${SOURCE})` };
  return { ms: known.ms, basis: `estimated from dcgm.level ${p.level}: ${known.words} (${SOURCE})` };
}
