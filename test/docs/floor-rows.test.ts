// docs/thresholds.md has one row per floor (a `min:` threshold) of every built-in suite, by the suite
// file that writes it, with its anchor first and every cell filled: the source and its method,
// whether gpucheck measures the same way, healthy → floor (margin), and what each single-part fault
// reads against it. A floor added to suites/*.yaml without its row, a row whose threshold differs
// from the suite's, or a row for a floor no suite has, fails here (issue 26 item 9).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "../../lib/core/yaml.ts";
import { floorAnchor } from "../../lib/load/floor-anchor.ts";

const root = join(import.meta.dir, "..", "..");
const doc = readFileSync(join(root, "docs", "thresholds.md"), "utf8");
const COLUMNS = [
  "floor",
  "threshold",
  "source and method",
  "gpucheck measures the same way",
  "healthy → floor (margin)",
  "one NVLink down",
  "one GPU at 90 % clock",
  "one HBM stack slow",
  "NIC half rate / HDR on NDR",
  "PCIe x8 or one gen down",
];

interface Floor {
  anchor: string;
  where: string;
  /** the threshold as the suite writes it: "358 GB/s" */
  min: string;
}

/** Every `min:` a built-in suite file writes itself, from the YAML (not from the docs generator). */
function suiteFloors(): Floor[] {
  const floors: Floor[] = [];
  for (const f of readdirSync(join(root, "suites")).filter((n) => n.endsWith(".yaml"))) {
    const suite = f.replace(/\.yaml$/, "");
    const data = parseDocument(readFileSync(join(root, "suites", f), "utf8")).toJS() as { tests?: Array<{ name: string; expect?: Record<string, unknown> }> };
    for (const t of data.tests ?? []) {
      for (const [metric, rule] of Object.entries(t.expect ?? {})) {
        if (!rule || typeof rule !== "object" || !("min" in rule)) continue;
        floors.push({ anchor: floorAnchor(suite, t.name, metric), where: `suites/${f} ${t.name} ${metric}`, min: String((rule as { min: unknown }).min) });
      }
    }
  }
  return floors;
}

/** The rows of the floor tables: anchor → cells (the pipes of a table row split, the outer ones dropped). */
function docRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of doc.split("\n")) {
    const m = /^\| <a id="(floor-[a-z0-9-]+)"><\/a>/.exec(line);
    if (!m) continue;
    rows.set(
      m[1]!,
      line
        .replace(/^\|/, "")
        .replace(/\|\s*$/, "")
        .split(" | "),
    );
  }
  return rows;
}

describe("docs/thresholds.md: one row per built-in floor", () => {
  const floors = suiteFloors();
  const rows = docRows();

  test("the suites have floors to document (the YAML was read)", () => {
    expect(floors.length).toBeGreaterThan(30);
    expect(floors.map((f) => f.anchor)).toContain("floor-h100-8x-nvlink-ring-allreduce-busbw");
  });

  test("every floor of suites/*.yaml has its row, with the suite's threshold", () => {
    const missing = floors.filter((f) => !rows.has(f.anchor)).map((f) => `${f.where}: no row with <a id="${f.anchor}"></a> in docs/thresholds.md`);
    expect(missing).toEqual([]);
    const differ = floors
      .filter((f) => !rows.get(f.anchor)![1]!.includes(`min: ${f.min}`))
      .map((f) => `${f.where}: the row says ${rows.get(f.anchor)![1]}, the suite min: ${f.min}`);
    expect(differ).toEqual([]);
  });

  test("no row for a floor that no suite has", () => {
    const known = new Set(floors.map((f) => f.anchor));
    expect([...rows.keys()].filter((a) => !known.has(a))).toEqual([]);
  });

  test("every row fills the table's columns: method, same-method, margin and each single-part fault", () => {
    const header = `| ${COLUMNS.join(" | ")} |`;
    // every table of rows has the same header, so a team adding floors appends to the same structure
    const headers = doc.split("\n").filter((l) => l.startsWith("| floor | threshold |"));
    expect(headers.length).toBeGreaterThanOrEqual(5);
    expect(headers.filter((h) => h !== header)).toEqual([]);
    const short = [...rows].filter(([, cells]) => cells.length !== COLUMNS.length || cells.some((c) => c.trim() === "")).map(([a]) => a);
    expect(short).toEqual([]);
  });

  test("a fault no check catches is listed as such", () => {
    expect(doc).toContain("### Faults no check catches");
    const list = doc.slice(doc.indexOf("### Faults no check catches"));
    expect(list).toContain("gpu-1x, one HBM stack slow");
  });
});
