// The node history: every imported run's figures in one SQLite file (Bun's own bun:sqlite, no
// server), keyed by node, slot and the part's serial/UUID. Many nodes' health runs may write into one
// shared file at once, and that file may sit on a shared filesystem: so SQLite's rollback journal, not
// WAL (whose shared memory index works only among processes of one host). Each import is one IMMEDIATE
// transaction (it takes the write lock before reading, so two imports never interleave), and a writer
// waits for the lock (busy_timeout) rather than failing. The same results.json imported twice is one
// run (its sha256 is unique).
import { Database } from "bun:sqlite";
import type { Figure } from "./figures.ts";

export type RunMode = "acceptance" | "health";

export interface RunRecord {
  id: number;
  resultsSha256: string;
  dir: string;
  suite: string;
  cluster: string | null;
  platform: string;
  mode: RunMode;
  startedAt: string;
  endedAt: string | null;
  outcome: string;
  importedAt: string;
}

export interface FigureRecord extends Figure {
  runId: number;
}

const SCHEMA_VERSION = "1";
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  results_sha256 TEXT NOT NULL UNIQUE,
  dir TEXT NOT NULL,
  suite TEXT NOT NULL,
  cluster TEXT,
  platform TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('acceptance', 'health')),
  started_at TEXT NOT NULL,
  ended_at TEXT,
  outcome TEXT NOT NULL,
  imported_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS figures (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  node TEXT NOT NULL,
  slot TEXT NOT NULL,
  serial TEXT,
  uuid TEXT,
  pci TEXT,
  test TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  unit TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('passed', 'failed', 'error', 'recorded')),
  expected REAL,
  expectation TEXT,
  message TEXT
);
CREATE INDEX IF NOT EXISTS figures_node ON figures (node);
CREATE INDEX IF NOT EXISTS figures_serial ON figures (serial);
CREATE INDEX IF NOT EXISTS figures_uuid ON figures (uuid);
`;

export class HistoryStore {
  private readonly db: Database;

  constructor(readonly path: string) {
    this.db = new Database(path, { create: true, strict: true });
    // a writer that finds the file locked waits up to 30 s (hundreds of nodes ending a health run together)
    this.db.exec("PRAGMA busy_timeout = 30000");
    this.db.exec("PRAGMA foreign_keys = ON");
    this.db
      .transaction(() => {
        this.db.exec(SCHEMA);
        const v = this.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema'").get();
        if (!v) this.db.query("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
        else if (v.value !== SCHEMA_VERSION) throw new Error(`schema ${v.value}, this gpucheck reads schema ${SCHEMA_VERSION}`);
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }

  /** Adds a run and its figures in one transaction; a run already there (same results.json) is returned as it is. */
  addRun(run: Omit<RunRecord, "id" | "importedAt">, figures: Figure[], now = new Date()): { run: RunRecord; added: boolean } {
    const insert = this.db.transaction((): { run: RunRecord; added: boolean } => {
      const existing = this.runBySha(run.resultsSha256);
      if (existing) return { run: existing, added: false };
      const importedAt = now.toISOString();
      const r = this.db
        .query(
          "INSERT INTO runs (results_sha256, dir, suite, cluster, platform, mode, started_at, ended_at, outcome, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(run.resultsSha256, run.dir, run.suite, run.cluster, run.platform, run.mode, run.startedAt, run.endedAt, run.outcome, importedAt) as { id: number };
      const add = this.db.query(
        "INSERT INTO figures (run_id, node, slot, serial, uuid, pci, test, metric, value, unit, verdict, expected, expectation, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      );
      for (const f of figures) {
        // SQLite stores NaN as NULL; a non-finite figure is not a measurement
        const value = f.value !== null && Number.isFinite(f.value) ? f.value : null;
        add.run(r.id, f.node, f.slot, f.serial, f.uuid, f.pci, f.test, f.metric, value, f.unit, f.verdict, f.expected, f.expectation, f.message);
      }
      return { run: { ...run, id: r.id, importedAt }, added: true };
    });
    return insert.immediate();
  }

  runBySha(sha: string): RunRecord | null {
    return this.db.query<RunRecord, [string]>(`${RUN_SELECT} WHERE results_sha256 = ?`).get(sha);
  }

  runs(ids: number[]): RunRecord[] {
    if (ids.length === 0) return [];
    return this.db.query<RunRecord, number[]>(`${RUN_SELECT} WHERE id IN (${ids.map(() => "?").join(",")}) ORDER BY started_at, id`).all(...ids);
  }

  /** Every figure of a node, or of the part with this serial or UUID, oldest run first. */
  figuresFor(query: string): FigureRecord[] {
    return this.db
      .query<FigureRecord, [string, string, string]>(
        `SELECT ${FIGURE_COLUMNS} FROM figures f JOIN runs r ON r.id = f.run_id WHERE f.node = ? OR f.serial = ? OR f.uuid = ? ORDER BY r.started_at, r.id, f.rowid`,
      )
      .all(query, query, query);
  }

  counts(): { runs: number; figures: number } {
    const runs = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM runs").get()!.n;
    const figures = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM figures").get()!.n;
    return { runs, figures };
  }

  integrity(): string {
    return this.db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()!.integrity_check;
  }
}

// the columns under the record's own names: rows come back as RunRecord and FigureRecord as they are
const RUN_SELECT =
  "SELECT id, results_sha256 AS resultsSha256, dir, suite, cluster, platform, mode, started_at AS startedAt, ended_at AS endedAt, outcome, imported_at AS importedAt FROM runs";
const FIGURE_COLUMNS = "f.run_id AS runId, f.node, f.slot, f.serial, f.uuid, f.pci, f.test, f.metric, f.value, f.unit, f.verdict, f.expected, f.expectation, f.message";
