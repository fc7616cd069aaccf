// Generates docs/reference/ from the code, so the reference cannot drift from what the binary does:
// the commands and their flags (cli/table.ts), the exit codes (the root help's), the files a run
// writes (lib/report, lib/load, lib/sign), the preflight's messages (lib/preflight/) and, through
// lib/kinds/reference.ts, the kinds with their keys and metrics and the workload result schemas.
// `bun run scripts/gen-docs.ts` writes them; test/docs/generated.test.ts and
// test/kinds/reference.test.ts fail when a committed copy is stale.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS, type CommandSpec, PROGRAM } from "../cli/table.ts";
import { EXIT } from "../lib/core/errors.ts";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "../lib/core/yaml.ts";
import { generatedFiles, REGENERATE } from "../lib/kinds/reference.ts";
import { RESOLVED_SUITE } from "../lib/load/read.ts";
import { RESULT_FILES } from "../lib/report/results.ts";
import { LOCK_FILE } from "../lib/report/run-dir.ts";
import { JUDGED_WITH_FILE, SUITE_FILE } from "../lib/sign/predicate.ts";
import { CERTIFICATE_FILE } from "../lib/sign/verify-commands.ts";

const root = join(import.meta.dir, "..");
const header = (title: string, from: string) => [`# ${title}`, "", `<!-- generated from ${from} by \`${REGENERATE}\`: do not edit -->`, ""];
const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

function commandRows(c: CommandSpec, prefix: string): string[] {
  const name = `${prefix}${c.name}`;
  const out = ["", `## gpucheck ${name}`, "", `${c.description}.`, ""];
  const usage = [`gpucheck ${name}`, ...(c.options?.length ? ["[options]"] : []), ...(c.args ?? []).map((a) => a.name)].join(" ");
  if (!c.subcommands) out.push("```", usage, "```", "");
  for (const a of c.args ?? []) out.push(`- \`${a.name}\`${a.description ? `: ${a.description}` : ""}${a.choices ? ` (${a.choices.join(", ")})` : ""}`);
  if (c.args?.length) out.push("");
  if (c.options?.length) {
    out.push("| flag | what |", "|---|---|");
    for (const o of c.options) {
      const extra = [o.choices && `one of ${o.choices.join(", ")}`, o.default && `default ${o.default}`, o.required && "required"].filter(Boolean);
      out.push(`| \`${cell(o.flags)}\` | ${cell(o.description)}${extra.length ? ` (${extra.join("; ")})` : ""} |`);
    }
  }
  for (const s of c.subcommands ?? []) out.push(...commandRows(s, `${name} `));
  return out;
}

/** docs/reference/cli.md: every command, argument and flag, from the command table. */
export function cliPage(): string {
  const out = header("Reference: commands and flags", "cli/table.ts");
  out.push(
    `${PROGRAM.description}. Every command also takes \`${PROGRAM.help.flags}\`; \`gpucheck ${PROGRAM.version.flags}\` prints the version. Exit codes: [exit-codes.md](exit-codes.md).`,
  );
  for (const c of COMMANDS) out.push(...commandRows(c, ""));
  return `${out.join("\n")}\n`;
}

/** docs/reference/exit-codes.md: the codes as the root help states them, each checked against EXIT. */
export function exitCodesPage(): string {
  const entries = PROGRAM.afterHelp
    .replace("Exit codes:", "")
    .split(/·|\n/)
    .map((s) => s.trim().replace(/\s+/g, " "))
    .filter(Boolean)
    .map((s) => [Number(s.split(" ")[0]), s.slice(s.indexOf(" ") + 1)] as const);
  for (const code of Object.values(EXIT)) {
    if (!entries.some(([c]) => c === code)) throw new Error(`exit code ${code} (lib/core/errors.ts EXIT) is missing from cli/table.ts PROGRAM.afterHelp`);
  }
  const out = header("Reference: exit codes", "cli/table.ts (PROGRAM.afterHelp) and lib/core/errors.ts (EXIT)");
  out.push("Every command exits with one of these. How a verdict is reached: [../verdicts.md](../verdicts.md).", "", "| code | meaning |", "|---|---|");
  for (const [code, meaning] of entries) out.push(`| ${code} | ${cell(meaning)} |`);
  return `${out.join("\n")}\n`;
}

/** docs/reference/outputs.md: the names a run writes, from the constants the writers use. */
export function outputsPage(): string {
  const names: [string, string][] = [
    [RESULT_FILES.results, "lib/report/results.ts RESULT_FILES.results"],
    [RESULT_FILES.junit, "RESULT_FILES.junit"],
    [RESULT_FILES.ctrf, "RESULT_FILES.ctrf"],
    [RESULT_FILES.inventoryCdx, "RESULT_FILES.inventoryCdx"],
    [RESULT_FILES.metricsProm, "RESULT_FILES.metricsProm"],
    [RESULT_FILES.html, "RESULT_FILES.html"],
    [RESULT_FILES.summary, "RESULT_FILES.summary"],
    [`${RESULT_FILES.logs}/`, "RESULT_FILES.logs"],
    [`${RESULT_FILES.telemetry}/`, "RESULT_FILES.telemetry"],
    ["preflight/", "lib/preflight (each node's log)"],
    [SUITE_FILE, "lib/sign/predicate.ts SUITE_FILE"],
    [RESOLVED_SUITE, "lib/load/read.ts RESOLVED_SUITE"],
    [JUDGED_WITH_FILE, "lib/sign/predicate.ts JUDGED_WITH_FILE (gpucheck judge)"],
    ["workload/", "platform local's staging directory"],
    [LOCK_FILE, "lib/report/run-dir.ts LOCK_FILE"],
    [CERTIFICATE_FILE, "lib/sign/verify-commands.ts CERTIFICATE_FILE (with certificate.html, certificate.md)"],
  ];
  const out = header("Reference: output files", "lib/report, lib/load and lib/sign");
  out.push("What each file holds: [../outputs.md](../outputs.md).", "", "| name | defined by |", "|---|---|");
  for (const [n, by] of names) out.push(`| \`${n}\` | ${cell(by)} |`);
  return `${out.join("\n")}\n`;
}

const PREFLIGHT_SOURCES = ["lib/preflight/judge.ts", "lib/preflight/run.ts"];

/**
 * The preflight's problem messages as written in lib/preflight/ (each template's `${x}` shown as {x}):
 * every `problem(`…`)` and `message: `…`` there. docs/troubleshooting.md says what to do for each.
 */
export function preflightMessages(): { file: string; line: number; text: string }[] {
  const found: { file: string; line: number; text: string }[] = [];
  for (const file of PREFLIGHT_SOURCES) {
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((l, i) => {
        for (const m of l.matchAll(/(?:problem\(|message: )`((?:[^`$]|\$\{(?:[^{}]|\{[^{}]*\})*\})*)`/g)) {
          found.push({ file, line: i + 1, text: m[1]!.replace(/\$\{((?:[^{}]|\{[^{}]*\})*)\}/g, "{$1}") });
        }
        if (/\$\{PREFLIGHT_FAILED\}/.test(l)) found.push({ file, line: i + 1, text: "preflight failed on {node}: {why}" });
      });
  }
  return found;
}

export function preflightPage(): string {
  const out = header("Reference: preflight messages", PREFLIGHT_SOURCES.join(", "));
  out.push("What each means and what to do: [../troubleshooting.md](../troubleshooting.md).", "", "| message ({…} is filled in by the run) | where |", "|---|---|");
  for (const m of preflightMessages()) out.push(`| \`${cell(m.text)}\` | ${m.file}:${m.line} |`);
  return `${out.join("\n")}\n`;
}

export const FLOORS_BEGIN = "<!-- floors table: generated from suites/*.yaml by `bun run scripts/gen-docs.ts`; edit the suites' comments -->";
export const FLOORS_END = "<!-- end of floors table -->";

/**
 * One row per threshold a built-in suite file writes: the suite, test, metric, the threshold as
 * written and its source: the comment above it and beside it in the file (what `gpucheck show`
 * prints). A suite that extends another lists only the thresholds it writes itself.
 */
export function floorsTable(): string {
  const out = ["| suite | test | metric | threshold | source and method (the suite's comment) |", "|---|---|---|---|---|"];
  for (const f of readdirSync(join(root, "suites"))
    .filter((n) => n.endsWith(".yaml"))
    .sort()) {
    const text = readFileSync(join(root, "suites", f), "utf8");
    const lines = text.split("\n");
    const counter = new LineCounter();
    const doc = parseDocument(text, { lineCounter: counter });
    const suite = f.replace(/\.yaml$/, "");
    const tests = doc.get("tests", true) as Node | undefined;
    if (!isSeq(tests)) continue;
    for (const t of tests.items) {
      if (!isMap(t)) continue;
      const expect = t.get("expect", true) as Node | undefined;
      if (!isMap(expect)) continue;
      for (const pair of expect.items) {
        if (!isScalar(pair.key)) continue;
        const line = counter.linePos(pair.key.range![0]).line;
        const above: string[] = [];
        for (let i = line - 2; i >= 0 && /^\s*#/.test(lines[i]!); i--) above.unshift(lines[i]!.replace(/^\s*#\s?/, "").trim());
        const value = pair.value as Node | null;
        const beside = value && "comment" in value && value.comment ? [String(value.comment).trim()] : [];
        const source = [...above, ...beside].join(" ") || "(no source comment)";
        const threshold = value?.range ? text.slice(value.range[0], value.range[1]).replace(/\s+/g, " ") : "";
        out.push(`| ${suite} | ${t.get("name")} | \`${pair.key.value}\` | \`${cell(threshold)}\` | ${cell(source)} |`);
      }
    }
  }
  return out.join("\n");
}

/** docs/thresholds.md with its floors table regenerated between the markers. */
export function withFloors(page: string): string {
  const a = page.indexOf(FLOORS_BEGIN);
  const b = page.indexOf(FLOORS_END);
  if (a < 0 || b < a) throw new Error(`docs/thresholds.md has no "${FLOORS_BEGIN}" … "${FLOORS_END}" markers`);
  return `${page.slice(0, a + FLOORS_BEGIN.length)}\n${floorsTable()}\n${page.slice(b)}`;
}

/** The pages this script writes besides lib/kinds/reference.ts's: path → text. */
export function referencePages(): Record<string, string> {
  return {
    "docs/reference/cli.md": cliPage(),
    "docs/reference/exit-codes.md": exitCodesPage(),
    "docs/reference/outputs.md": outputsPage(),
    "docs/reference/preflight.md": preflightPage(),
    "docs/thresholds.md": withFloors(readFileSync(join(root, "docs", "thresholds.md"), "utf8")),
  };
}

if (import.meta.main) {
  for (const [path, text] of Object.entries({ ...referencePages(), ...generatedFiles() })) {
    let old = "";
    try {
      old = readFileSync(join(root, path), "utf8");
    } catch {}
    if (old === text) continue;
    writeFileSync(join(root, path), text);
    console.log(`wrote ${path}`);
  }
}
