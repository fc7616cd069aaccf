// A unit's end as soon as the batch output shows it, not when the job ends: the job-wide step of a
// per-node test prints one mark per rank as each ends (sbatch.ts), a round's step one per unit. The
// verdicts still come from the whole output at the end (outcome.ts); this only streams the progress.
import type { UnitRun } from "../../lib/core/types.ts";
import { STEP_MARK } from "./sbatch.ts";

const MARK = new RegExp(`^${STEP_MARK} unit=(\\S+)(?: rank=(\\d+))? exit=(\\d+)$`);

export class StepMarks {
  private readonly exits = new Map<string, Map<number, number>>();
  private readonly done = new Set<string>();
  private readonly ranks: Map<string, { hosts: string[]; ranks: number }>;

  constructor(
    units: ReadonlyArray<{ unit: string; hosts: string[]; ranks: number }>,
    private readonly startedAt: string,
    private readonly onEnded: (run: UnitRun) => void,
  ) {
    this.ranks = new Map(units.map((u) => [u.unit, u]));
  }

  see(lines: string[]): void {
    for (const line of lines) {
      const m = MARK.exec(line);
      const unit = m && this.ranks.get(m[1]!);
      if (!m || !unit || this.done.has(m[1]!)) continue;
      const exits = this.exits.get(m[1]!) ?? new Map<number, number>();
      this.exits.set(m[1]!, exits);
      // a unit's own step mark (no rank) says the whole unit ended; rank marks, once all its ranks did
      if (m[2] === undefined) exits.set(-1, Number(m[3]));
      else exits.set(Number(m[2]), Number(m[3]));
      if (m[2] === undefined || exits.size === unit.ranks) this.end(m[1]!, unit.hosts, exits);
    }
  }

  private end(unit: string, hosts: string[], exits: Map<number, number>): void {
    this.done.add(unit);
    const bad = [...exits].filter(([, rc]) => rc !== 0);
    const who = (rank: number) => (rank < 0 ? "its step" : `rank ${rank}`);
    this.onEnded({
      unit,
      hosts,
      status: bad.length ? "failed" : "completed",
      ...(bad.length ? { message: bad.map(([rank, rc]) => `${who(rank)} exited ${rc}`).join(", ") } : {}),
      startedAt: this.startedAt,
      endedAt: new Date().toISOString(),
      ranks: [],
      output: "",
      tail: "",
    });
  }
}
