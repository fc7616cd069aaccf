// `gpucheck history`: runs imported into the node history, and a node's or part's history read back.
// The default file is the user's own ($XDG_DATA_HOME/gpucheck/history.db, else
// ~/.local/share/gpucheck/history.db), in a directory gpucheck makes 0700; `--history` names another,
// such as one file on a shared filesystem that every node's health runs write into.
import { lstatSync, mkdirSync, readFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { sha256 } from "../core/sha256.ts";
import { figuresOf } from "../history/figures.ts";
import { renderHistory } from "../history/render.ts";
import { HistoryStore, type RunMode, type RunRecord } from "../history/store.ts";
import { buildHistory, type History } from "../history/view.ts";
import { findComponentMetric, findMetric, isKindName } from "../kinds/mod.ts";
import { readResults } from "../report/results.ts";

export function defaultHistoryPath(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : join(env.HOME || homedir(), ".local", "share");
  return join(data, "gpucheck", "history.db");
}

/** Opens the store; the default location's directory is made private, and a file that is a symlink is refused. */
export function openHistory(path: string | undefined): HistoryStore {
  const file = resolve(path ?? defaultHistoryPath());
  if (path === undefined) privateDir(dirname(file));
  let st;
  try {
    st = lstatSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink())
    throw new SuiteError(`history "${file}" is a symbolic link: gpucheck writes only to a regular file it can trust; remove the link or give --history another path`);
  if (st && !st.isFile()) throw new SuiteError(`history "${file}" is not a regular file: give --history the path of a history file (it is created when missing)`);
  try {
    return new HistoryStore(file);
  } catch (e) {
    throw new SuiteError(`history "${file}" could not be opened: ${(e as Error).message}`);
  }
}

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = userInfo().uid;
  if (st.isSymbolicLink() || !st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0)
    throw new SuiteError(
      `history directory "${dir}" is not private (owner uid ${st.uid}, mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}${st.isSymbolicLink() ? ", a symbolic link" : ""}): another user could replace the history; make it yours and 0700, or give --history a path`,
    );
}

export interface ImportResult {
  run: RunRecord;
  added: boolean;
  figures: number;
  nodes: number;
  db: string;
}

export function importRun(dir: string, opts: { history?: string; mode?: RunMode } = {}): ImportResult {
  const { dir: resultsDir, path, results } = readResults(dir);
  const sha = sha256(readFileSync(path));
  const unitOf = (kind: string, metric: string) => (isKindName(kind) ? (findComponentMetric(kind, metric) ?? findMetric(kind, metric))?.unit : undefined);
  const figures = figuresOf(results, unitOf);
  const store = openHistory(opts.history);
  try {
    const { run, added } = store.addRun(
      {
        resultsSha256: sha,
        dir: resolve(resultsDir),
        suite: results.suite.name,
        cluster: results.suite.cluster ?? null,
        platform: results.platform,
        mode: opts.mode ?? "acceptance",
        startedAt: results.startedAt,
        endedAt: results.endedAt,
        outcome: results.endedAt === null ? "unfinished" : results.outcome,
      },
      figures,
    );
    return { run, added, figures: figures.length, nodes: new Set(figures.map((f) => f.node)).size, db: store.path };
  } finally {
    store.close();
  }
}

export function importLine(r: ImportResult): string {
  if (!r.added) return `history: ${r.run.dir} is already in ${r.db} as run #${r.run.id} (imported ${r.run.importedAt}): nothing added\n`;
  return `history: run #${r.run.id} (${r.run.mode}, suite ${r.run.suite}, ${r.run.startedAt}${r.run.endedAt === null ? ", INCOMPLETE: its finished tests only" : ""}): ${r.figures} figures of ${r.nodes} node${r.nodes === 1 ? "" : "s"} added to ${r.db}\n`;
}

export function showHistory(query: string, opts: { history?: string } = {}): { history: History; text: string; db: string } {
  const store = openHistory(opts.history);
  try {
    const figures = store.figuresFor(query);
    const runs = store.runs([...new Set(figures.map((f) => f.runId))]);
    const history = buildHistory(query, figures, runs);
    return { history, text: renderHistory(history, store.path), db: store.path };
  } finally {
    store.close();
  }
}
