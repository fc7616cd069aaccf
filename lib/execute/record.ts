// What running one unit left behind, as plain data: the stage boundary between execute (which runs
// platforms) and assess (which parses and judges). Saved beside the rank logs as
// logs/<test>/run-records.json so that `gpucheck judge` can hand assess the very same input again
// after a parser fix.
import type { UnitRun } from "../core/types.ts";

export interface RecordRank {
  rank: number;
  host: string;
  /** the rank's log, relative to the results directory (absolute only when a platform put it elsewhere) */
  log: string;
  exitCode: number | null;
}

/** A platform's UnitRun with its ranks' logs relative to the results directory and read back. */
export interface RunRecord extends Omit<UnitRun, "ranks"> {
  ranks: RecordRank[];
  /** every rank's log as read after the run (telemetry and inventory lines are in them), in `ranks` order */
  texts: string[];
}

/** The file beside a test's rank logs that holds its records. */
export const RUN_RECORDS_FILE = "run-records.json";

/**
 * A record as saved: the rank logs are files already, so their texts are not repeated; rank 0's
 * output only where it is not its log file's text (local keeps stdout then stderr, the last 256 KiB
 * of each; docker drops the last newline), so a re-parse reads exactly what the first parse read.
 */
export type SavedRecord = Omit<RunRecord, "texts" | "output"> & { output?: string };

export function savedRecord(r: RunRecord): SavedRecord {
  const { texts, output, ...rest } = r;
  return output === (texts[0] ?? "") ? rest : { ...rest, output };
}

/** A saved record with its texts read back; `read` says undefined for a log that is gone. */
export function restoredRecord(s: SavedRecord, read: (log: string) => string | undefined): { record: RunRecord; missing: string[] } {
  const missing: string[] = [];
  const texts = s.ranks.map((r) => {
    const text = read(r.log);
    if (text === undefined) missing.push(r.log);
    return text ?? "";
  });
  const { output, ...rest } = s;
  return { record: { ...rest, output: output ?? texts[0] ?? "", texts }, missing };
}
