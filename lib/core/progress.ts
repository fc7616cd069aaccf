// What the stages tell the person watching a run. The stages only call it; how it is drawn (a
// redrawn terminal block, plain timestamped lines) is the report's (lib/report/progress.ts).
import type { Kind, TestResult } from "./types.ts";

export interface Progress {
  /** perNode: the platform decides how many nodes (every host given, every idle Slurm node) */
  testStarted(name: string, index: number, kind: Kind, perNode: boolean): void;
  phase(text: string): void;
  line(unit: string, rank: number, text: string): void;
  metric(name: string, value: number, unit: string): void;
  /** ranks that have printed at least one line in this test: the first sign each one started */
  ranksReporting(n: number): void;
  testFinished(result: TestResult): void;
  note(text: string): void;
  close(): void;
}
