// The validators of ctrf.json, inventory.cdx.json and metrics.prom that are not gpucheck's: the
// published JSON schemas (CTRF's and CycloneDX 1.6's, copied with their sources in
// test/fixtures/ctrf/ and test/fixtures/cyclonedx/) through Python's jsonschema (Debian's
// python3-jsonschema, Draft 7 as both schemas declare, formats checked), and Prometheus' own
// `promtool check metrics` (Debian's prometheus) and node_exporter's textfile collector (Debian's
// prometheus-node-exporter). Integration runs call these on the binary's files.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "../tmp.ts";

const FIXTURES = resolve(import.meta.dir, "../fixtures");
export const CTRF_SCHEMA = resolve(FIXTURES, "ctrf/ctrf.schema.json");
export const CDX_SCHEMA_DIR = resolve(FIXTURES, "cyclonedx");

// bom-1.6 refers to spdx.schema.json and jsf-0.82.schema.json by their $id: a store resolves them
// from the copies, so nothing is fetched
const SCRIPT = `
import json, sys
from jsonschema import Draft7Validator, FormatChecker, RefResolver
kind, schema_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
Draft7Validator.check_schema(schema)
store = {}
if kind == "cdx":
    for f in ("spdx.schema.json", "jsf-0.82.schema.json"):
        s = json.load(open(sys.argv[3] + "/" + f))
        store[s["$id"]] = s
v = Draft7Validator(schema, resolver=RefResolver.from_schema(schema, store=store), format_checker=FormatChecker())
bad = 0
for path in sys.argv[4:]:
    for e in sorted(v.iter_errors(json.load(open(path))), key=lambda e: [str(p) for p in e.absolute_path]):
        bad += 1
        print("%s: %s: %s" % (path, "/".join(str(p) for p in e.absolute_path) or "(top level)", e.message[:400]))
sys.exit(1 if bad else 0)
`;

function schemaErrors(kind: "ctrf" | "cdx", paths: string[]): string[] {
  const schema = kind === "ctrf" ? CTRF_SCHEMA : resolve(CDX_SCHEMA_DIR, "bom-1.6.schema.json");
  const r = spawnSync("/usr/bin/python3", ["-c", SCRIPT, kind, schema, CDX_SCHEMA_DIR, ...paths], { encoding: "utf8" });
  if (r.error) throw new Error(`python3 could not run: ${r.error.message}`);
  if (r.status !== 0 && r.stdout.trim() === "") throw new Error(`jsonschema failed (install Debian's python3-jsonschema):\n${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean);
}

/** Every problem against CTRF's schema, one line each; empty when valid. */
export const ctrfSchemaErrors = (...paths: string[]) => schemaErrors("ctrf", paths);
/** Every problem against CycloneDX 1.6's JSON schema, one line each; empty when valid. */
export const cdxSchemaErrors = (...paths: string[]) => schemaErrors("cdx", paths);

export function assertCtrfValid(...paths: string[]): void {
  const errors = ctrfSchemaErrors(...paths);
  if (errors.length > 0) throw new Error(`not valid against CTRF's schema:\n${errors.join("\n")}`);
}

export function assertCdxValid(...paths: string[]): void {
  const errors = cdxSchemaErrors(...paths);
  if (errors.length > 0) throw new Error(`not valid against CycloneDX 1.6's schema:\n${errors.join("\n")}`);
}

/** promtool's verdict on a metrics file: exit 0 and no output when it parses and passes Prometheus' lint. */
export function promtoolCheck(path: string): { code: number | null; out: string } {
  const r = spawnSync("sh", ["-c", 'promtool check metrics < "$1"', "sh", path], { encoding: "utf8" });
  if (r.error) throw new Error(`promtool could not run (install Debian's prometheus): ${r.error.message}`);
  return { code: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

/**
 * What node_exporter's textfile collector (Debian's prometheus-node-exporter) serves from the file: it
 * runs on a free loopback port with only that collector, reading a directory holding a copy of it.
 * Its node_textfile_scrape_error is 1 when it could not read the file.
 */
export async function nodeExporterServes(path: string): Promise<string> {
  const dir = tempDir("gpucheck-textfile-");
  copyFileSync(path, join(dir, "gpucheck.prom"));
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const exporter = spawn(
    "prometheus-node-exporter",
    [`--web.listen-address=127.0.0.1:${port}`, "--collector.disable-defaults", "--collector.textfile", `--collector.textfile.directory=${dir}`],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  exporter.stderr.on("data", (d) => (log += d));
  const spawned = new Promise<Error | null>((r) => {
    exporter.on("error", r);
    exporter.on("spawn", () => r(null));
  });
  const failed = await spawned;
  if (failed) throw new Error(`prometheus-node-exporter could not run (install Debian's prometheus-node-exporter): ${failed.message}`);
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        if (res.ok) return await res.text();
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`node_exporter did not answer on 127.0.0.1:${port}: ${String(e)}\n${log}`);
      }
      await Bun.sleep(100);
    }
  } finally {
    exporter.kill("SIGTERM");
  }
}

const PROM_SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families as prometheus_text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
out = []
for path in sys.argv[1:]:
    text = open(path).read()
    got = {"path": path}
    for name, parse in (("prometheus", prometheus_text), ("openmetrics", openmetrics)):
        try:
            got[name] = sum(len(f.samples) for f in parse(text))
        except Exception as e:
            got[name] = "%s: %s" % (type(e).__name__, e)
    out.append(got)
print(json.dumps(out))
`;

/**
 * Each file read by Prometheus' Python client (Debian's python3-prometheus-client) with its parser of
 * the Prometheus text format and with its OpenMetrics parser: the number of samples each read, or its error.
 */
export function prometheusClientReads(...paths: string[]): Array<{ path: string; prometheus: number | string; openmetrics: number | string }> {
  const r = spawnSync("/usr/bin/python3", ["-c", PROM_SCRIPT, ...paths], { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`prometheus_client could not run (install Debian's python3-prometheus-client): ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout);
}
