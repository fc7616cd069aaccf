// `gpucheck judge`'s whole flow: the saved rank logs of a run parsed again and judged against another
// suite's thresholds, into a new run directory (the judged run is never changed: its certificate must
// keep verifying). The command (cli/commands/judge.ts) turns flags into a JudgeRequest and prints.
import { createHash } from "node:crypto";
import { cpSync, existsSync, linkSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { exitCodeFor } from "../assess/judge.ts";
import { rejudgeResults } from "../assess/rejudge.ts";
import { excludeBad } from "../assess/exclude.ts";
import { readSavedRuns } from "../execute/saved-runs.ts";
import { addTransportFromLogs } from "../parsers/nccl-transport.ts";
import { loadSuite } from "../load/mod.ts";
import { readResults, RESULT_FILES } from "../report/results.ts";
import { claimRunDir, fillRunDir, utcStamp } from "../report/run-dir.ts";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import { renderSummary } from "../report/summary.ts";
import { writeFinalFiles } from "../report/write.ts";
import { JUDGED_WITH_FILE } from "../sign/predicate.ts";
import { suiteText } from "./suite-source.ts";
import { redactionOf } from "../core/redact.ts";
import { redactSuiteText } from "../load/redact-yaml.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import type { Printer } from "./printer.ts";

export interface JudgeRequest {
  /** the run to judge: its directory or its results.json */
  dir: string;
  flags: { suite: string; baseline?: string; out?: string; force?: boolean; groupReadable?: boolean; json?: boolean; excludeBad?: boolean };
  /** the platforms a suite may name (cli/platforms.ts) */
  platforms: PlatformRegistry;
  print: Printer;
}

/** Exits as a run would: 0, 1 or 3. */
export async function judgeRun(request: JudgeRequest): Promise<number> {
  const { dir, flags } = request;
  const { out, err } = request.print;
  const { dir: sourceDir, path: sourceResults, results: read } = readResults(dir);
  // results from before the transport account: read it from the saved rank logs
  const saved = addTransportFromLogs(read, (path) => {
    const file = join(sourceDir, path);
    try {
      return existsSync(file) ? readFileSync(file, "utf8") : undefined;
    } catch {
      return undefined;
    }
  });
  const suite = await loadSuite(flags.suite, { platforms: request.platforms });
  const baseline = flags.baseline === undefined ? undefined : readResults(flags.baseline);
  const outDir = flags.out ?? `${sourceDir.replace(/\/+$/, "")}-judged-${utcStamp(new Date())}`;
  if (resolve(outDir) === resolve(sourceDir)) {
    const { SuiteError } = await import("../core/errors.ts");
    throw new SuiteError(`--out "${outDir}" is the run being judged: judge writes a new directory and never changes a run (its certificate would stop verifying)`);
  }
  // the saved rank logs are parsed again, so a parser fixed since the run applies to it
  const runs = readSavedRuns(sourceDir, saved);
  const judged = rejudgeResults(saved, suite, { baseline: baseline?.results, baselinePath: baseline?.path, runs });
  const excluded = flags.excludeBad ? excludeBad(judged.results) : undefined;
  const results = excluded?.results ?? judged.results;
  const notes = [...judged.notes, ...(excluded?.notes ?? [])];
  results.judgedFrom = { path: sourceDir, sha256: createHash("sha256").update(readFileSync(sourceResults)).digest("hex") };
  const claim = claimRunDir(outDir, { force: flags.force, groupReadable: flags.groupReadable });
  for (const n of notes) err(`gpucheck: note: ${n}\n`);
  fillRunDir(outDir, claim, "write the judged run at", () => {
    // the logs come along (hard links where the file system allows) so the report's links work
    linkTree(join(sourceDir, RESULT_FILES.logs), join(outDir, RESULT_FILES.logs));
    // and a big run's telemetry series, which its results.json names by file
    linkTree(join(sourceDir, RESULT_FILES.telemetry), join(outDir, RESULT_FILES.telemetry));
    for (const f of ["suite.yaml"]) if (existsSync(join(sourceDir, f))) writePrivateFile(join(outDir, f), readFileSync(join(sourceDir, f)));
    // its secret env values as *** (lib/core/redact.ts): judgedWith names the copy's sha256
    const judgedText = redactSuiteText(suiteText(suite), redactionOf(suite));
    if (results.judgedWith) results.judgedWith.sha256 = createHash("sha256").update(judgedText).digest("hex");
    writePrivateFile(join(outDir, JUDGED_WITH_FILE), judgedText);
    writeFinalFiles(outDir, results);
  });
  if (flags.json) {
    const doc = {
      judged: sourceDir,
      suite: suite.source.path,
      out: outDir,
      outcome: results.outcome,
      complete: results.complete,
      files: [RESULT_FILES.results, RESULT_FILES.junit, RESULT_FILES.html],
      notes,
      tests: results.tests.map((t) => ({ name: t.name, kind: t.kind, outcome: t.outcome })),
    };
    out(`${JSON.stringify(doc, null, 2)}\n`);
    return exitCodeFor(results.outcome);
  }
  out(`${renderSummary(results, { color: request.print.color })}\n`);
  out(`judged ${sourceDir} with ${suite.source.path} into ${outDir} (${RESULT_FILES.results}, ${RESULT_FILES.junit}, ${RESULT_FILES.html}); ${sourceDir} is unchanged\n`);
  return exitCodeFor(results.outcome);
}

function linkTree(from: string, to: string): void {
  if (!existsSync(from)) return;
  ensurePrivateDir(to);
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    const dst = join(to, name);
    if (statSync(src).isDirectory()) linkTree(src, dst);
    else {
      try {
        linkSync(src, dst);
      } catch {
        cpSync(src, dst);
      }
    }
  }
}
