// The document `dcgmi diag -j` prints → one result per test and GPU, whichever DCGM wrote it.
// DCGM 3.x: `{"DCGM GPU Diagnostic": {test_categories: [{category, tests: [{name, results: [{gpu_ids:
// "0,1,2" | 0, status: "Pass", warnings}]}]}], version}}`; DCGM 4.x: `{"DCGM Diagnostic":
// {test_categories: [… results: [{entity_group: "GPU", entity_id: 0, status, warnings: [{warning,
// error_id}]}], test_summary}], runtime_error?}, entity_groups, metadata: {version}}` (the 4.x schema:
// NVIDIA/DCGM testing/python3/dcgm_diag_schema.json; real captures of both: test/fixtures/dcgm/).
import { frCode } from "./codes.ts";
import { num, obj } from "../../parsers/part.ts";

export type DcgmStatus = "pass" | "fail" | "warn" | "skip";

export interface DcgmResult {
  test: string;
  /** "GPU" for a GPU; the group DCGM names otherwise (CPU …); "all" when a 3.x result names no GPU */
  group: string;
  id: number | null;
  /** null: a status word this parser does not know (never read as a pass) */
  status: DcgmStatus | null;
  rawStatus: string;
  /** DCGM's warnings, each led by its DCGM_FR code when it gives one, then its info lines */
  messages: string[];
}

export interface DcgmDoc {
  version: string | null;
  format: "3.x" | "4.x";
  results: DcgmResult[];
  /** GPUs DCGM lists in its own inventory (4.x entity_groups), by DCGM GPU id: the serial it read */
  gpus: Map<number, { serial?: string }>;
}

const ROOTS = { "DCGM Diagnostic": "4.x", "DCGM GPU Diagnostic": "3.x" } as const;

const STATUS: Record<string, DcgmStatus> = { pass: "pass", fail: "fail", warn: "warn", warning: "warn", skip: "skip", skipped: "skip", "not run": "skip" };

/** The document, or why it cannot be read: a JSON this parser does not recognise is never an empty pass. */
export function readDcgmDoc(doc: unknown): DcgmDoc | { unread: string } {
  const top = obj(doc);
  const key = (Object.keys(ROOTS) as Array<keyof typeof ROOTS>).find((k) => Object.hasOwn(top, k));
  if (!key) {
    const keys = Object.keys(top);
    return {
      unread: `dcgmi printed JSON this parser does not recognise: top-level keys ${keys.length ? keys.map((k) => `"${k}"`).join(", ") : "none"} (expected "DCGM Diagnostic" from DCGM 4.x or "DCGM GPU Diagnostic" from 3.x)`,
    };
  }
  const root = obj(top[key]);
  const runtime = typeof root.runtime_error === "string" ? root.runtime_error : typeof top.runtime_error === "string" ? top.runtime_error : undefined;
  if (runtime) return { unread: `DCGM's diagnostic stopped with a runtime error: ${runtime.trim()}` };
  const categories = root.test_categories;
  if (!Array.isArray(categories)) return { unread: `the "${key}" document has no test_categories list: DCGM ran no test` };
  const results: DcgmResult[] = [];
  for (const c of categories) {
    for (const t of Array.isArray(obj(c).tests) ? (obj(c).tests as unknown[]) : []) {
      if (t === null) continue; // DCGM 3.1 writes null between tests (NVIDIA's own capture)
      results.push(...testResults(obj(t)));
    }
  }
  if (results.length === 0) return { unread: `the "${key}" document lists no test result: DCGM ran no test` };
  const meta = obj(top.metadata);
  const version = typeof meta.version === "string" ? meta.version : typeof root.version === "string" ? root.version : null;
  return { version, format: ROOTS[key], results, gpus: dcgmGpus(top.entity_groups) };
}

function testResults(t: Record<string, unknown>): DcgmResult[] {
  const test = typeof t.name === "string" ? t.name : "unnamed test";
  const listed = Array.isArray(t.results) ? (t.results as unknown[]).map(obj) : [];
  // a 4.x test with no per-entity result says what happened in its summary only
  const rows = listed.length ? listed : t.test_summary ? [obj(t.test_summary)] : [];
  return rows.flatMap((r) => {
    const rawStatus = typeof r.status === "string" ? r.status : String(r.status ?? "no status");
    const status = STATUS[rawStatus.trim().toLowerCase()] ?? null;
    const messages = [...warnings(r.warnings), ...lines(r.info)];
    return entities(r).map((e) => ({ test, ...e, status, rawStatus, messages }));
  });
}

/** 4.x: the entity; 3.x: one row per GPU of `gpu_ids` ("0,1,2", 3) or `gpu_id` (a 3.x result may cover several GPUs). */
function entities(r: Record<string, unknown>): Array<{ group: string; id: number | null }> {
  if (r.entity_group !== undefined || r.entity_id !== undefined) {
    return [{ group: typeof r.entity_group === "string" ? r.entity_group : "unknown group", id: num(r.entity_id) }];
  }
  const ids = r.gpu_ids ?? r.gpu_id;
  const list = typeof ids === "number" ? [ids] : typeof ids === "string" ? ids.split(",").map((s) => Number(s.trim())) : [];
  const gpus = list.filter((n) => Number.isInteger(n) && n >= 0);
  return gpus.length ? gpus.map((id) => ({ group: "GPU", id })) : [{ group: "all", id: null }];
}

function warnings(w: unknown): string[] {
  const items = Array.isArray(w) ? w : w === undefined || w === null ? [] : [w];
  return items.map((x) => {
    if (typeof x === "string") return x.trim();
    const o = obj(x);
    const text = typeof o.warning === "string" ? o.warning.trim() : JSON.stringify(x);
    const id = num(o.error_id);
    return id === null ? text : `${frCode(id)}: ${text}`;
  });
}

function lines(v: unknown): string[] {
  const items = Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
  return items.filter((x): x is string => typeof x === "string").map((x) => x.trim());
}

function dcgmGpus(groups: unknown): Map<number, { serial?: string }> {
  const out = new Map<number, { serial?: string }>();
  for (const g of Array.isArray(groups) ? groups.map(obj) : []) {
    if (g.entity_group !== "GPU") continue;
    for (const e of Array.isArray(g.entities) ? g.entities.map(obj) : []) {
      const id = num(e.entity_id);
      if (id === null) continue;
      // "<<<NOT_SUPPORTED>>>" is DCGM saying the part exposes no serial
      const serial = typeof e.serial_num === "string" && !e.serial_num.startsWith("<<<") ? e.serial_num : undefined;
      out.set(id, serial ? { serial } : {});
    }
  }
  return out;
}
