// Every part's figures of every complete round, kept in one file beside the rounds (series.json):
// each series' identity once, then one value per round. A round's results.json is read once, when it
// ends, and its figures appended here; the trends and the index are made from this file and soak.json,
// never from every round's results again (at 1,000 nodes one round's results.json is tens of MB).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { partName } from "../core/parts.ts";
import { writePrivateFileAtomic } from "../core/private-fs.ts";
import type { PartId, ResultsFile } from "../core/types.ts";

export const SERIES_FILE = "series.json";

export interface SeriesKey {
  test: string;
  kind: string;
  /** the node (or the unit, for a figure of a group of nodes) */
  node: string;
  part?: PartId;
  metric: string;
}

export interface SeriesStore {
  /** the complete rounds, in order */
  rounds: number[];
  keys: SeriesKey[];
  /** values[k][i]: series k's value in rounds[i]; null when unmeasured (or absent) that round */
  values: Array<Array<number | null>>;
}

export const emptySeries = (): SeriesStore => ({ rounds: [], keys: [], values: [] });

const keyOf = (k: SeriesKey) => JSON.stringify([k.test, k.node, k.part ? partName(k.part) : "", k.metric]);

/** Adds a complete round's figures: every part's own values, and each unit's. */
export function appendRound(store: SeriesStore, round: number, results: ResultsFile): void {
  if (store.rounds.includes(round)) return;
  const index = new Map(store.keys.map((k, i) => [keyOf(k), i]));
  const at = store.rounds.length;
  store.rounds.push(round);
  for (const v of store.values) v.push(null);
  const put = (k: SeriesKey, value: number | null) => {
    const id = keyOf(k);
    let i = index.get(id);
    if (i === undefined) {
      i = store.keys.length;
      index.set(id, i);
      store.keys.push(k);
      store.values.push(Array.from({ length: at + 1 }, () => null));
    }
    store.values[i]![at] = value;
  };
  for (const t of results.tests)
    for (const u of t.units) {
      const m = u.measurement;
      if (!m) continue;
      for (const c of m.components ?? [])
        for (const [metric, value] of Object.entries(c.metrics)) put({ test: t.name, kind: t.kind, node: c.part.host, part: c.part, metric }, value);
      const node = u.hosts.length === 1 ? u.hosts[0]! : u.unit;
      for (const [metric, value] of Object.entries(m.metrics)) put({ test: t.name, kind: t.kind, node, metric }, value);
    }
}

export function readSeries(dir: string): SeriesStore {
  const path = join(dir, SERIES_FILE);
  if (!existsSync(path)) return emptySeries();
  try {
    return JSON.parse(readFileSync(path, "utf8")) as SeriesStore;
  } catch (e) {
    throw new SuiteError(
      `gpucheck: soak: ${path} is not readable JSON (${(e as Error).message}): the soak's figures are lost; start a new soak (its rounds' results are kept in rounds/)`,
    );
  }
}

export function writeSeries(dir: string, store: SeriesStore): void {
  writePrivateFileAtomic(join(dir, SERIES_FILE), JSON.stringify(store));
}
