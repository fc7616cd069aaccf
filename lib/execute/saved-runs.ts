// A results directory's run records read back for `gpucheck judge`: what assess saw when the run
// judged itself, so that a parser fixed since then applies to an old run. Where that input is not
// whole (a rank log gone), the test is not re-parsed and the note says so.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile, TestResult } from "../core/types.ts";
import { RUN_RECORDS_FILE, restoredRecord, type RunRecord, type SavedRecord } from "./record.ts";
import { safeName } from "./run-test.ts";

/** records to assess again (with a note when they were rebuilt), or only the note saying why not */
export type SavedRun = { records: RunRecord[]; note?: string } | { records?: undefined; note: string };

/** Per test that ran, its records; a test that never started (no logs, no records) has nothing to parse again. */
export function readSavedRuns(dir: string, saved: ResultsFile): Map<string, SavedRun> {
  const runs = new Map<string, SavedRun>();
  const read = (log: string): string | undefined => {
    const path = log.startsWith("/") ? log : join(dir, log);
    try {
      return existsSync(path) ? readFileSync(path, "utf8") : undefined;
    } catch {
      return undefined;
    }
  };
  for (const t of saved.tests) {
    const file = join("logs", safeName(t.name), RUN_RECORDS_FILE);
    const text = read(file);
    if (text === undefined && t.units.every((u) => u.logs.length === 0)) continue;
    let records: SavedRecord[];
    let note: string | undefined;
    if (text === undefined) {
      records = t.units.map(fromResults);
      note = `test "${t.name}" has no ${file} (the run is older than run records): re-parsed from its rank logs, rank 0's output read from its log`;
    } else {
      try {
        records = JSON.parse(text) as SavedRecord[];
        if (!Array.isArray(records)) throw new Error("not a list of run records");
      } catch (err) {
        runs.set(t.name, { note: `test "${t.name}": ${file} cannot be read (${(err as Error).message}): its saved measurements were judged again, not re-parsed` });
        continue;
      }
    }
    const restored = records.map((r) => restoredRecord(r, read));
    const missing = restored.flatMap((r) => r.missing);
    if (missing.length) {
      runs.set(t.name, { note: `test "${t.name}": rank log ${missing.join(", ")} missing: its saved measurements were judged again, not re-parsed` });
      continue;
    }
    runs.set(t.name, { records: restored.map((r) => r.record), ...(note ? { note } : {}) });
  }
  return runs;
}

/**
 * A record rebuilt from results.json alone. It keeps neither hosts nor exit codes per rank (assess
 * reads neither), and on a completed unit the only message was the parser's, which the re-parse
 * gives anew.
 */
function fromResults(u: TestResult["units"][number]): SavedRecord {
  return {
    unit: u.unit,
    hosts: u.hosts,
    status: u.status,
    ...(u.status !== "completed" && u.message !== undefined ? { message: u.message } : {}),
    startedAt: u.startedAt,
    endedAt: u.endedAt,
    ranks: u.logs.map((log, rank) => ({ rank, host: "", log, exitCode: null })),
    tail: u.tail,
  };
}
