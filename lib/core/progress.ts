// What the stages tell the person watching a run. The stages only call it; how it is drawn (a
// redrawn terminal block, plain timestamped lines) is the report's (lib/report/progress.ts).
import type { Kind, TestResult, UnitRun } from "./types.ts";

export interface Progress {
  /**
   * perNode: the platform decides how many nodes (every host given, every idle Slurm node); units:
   * how many the plan expects, undefined where only the platform learns it (k8s nodes, Slurm's idle ones)
   */
  testStarted(name: string, index: number, kind: Kind, perNode: boolean, units?: number): void;
  phase(text: string): void;
  line(unit: string, rank: number, text: string): void;
  metric(name: string, value: number, unit: string): void;
  /** ranks that have printed at least one line in this test: the first sign each one started */
  ranksReporting(n: number): void;
  /** a unit's own start where the platform knows it (a host's turn in the window); else its first line counts */
  unitStarted(unit: string): void;
  /** a unit ended, before it is judged: a per-node test streams a line per node and the counts */
  unitEnded(run: UnitRun): void;
  testFinished(result: TestResult): void;
  note(text: string): void;
  close(): void;
}
