// `gpucheck suite <file|name>`: load → plan → execute → report (→ sign).
import { err, out, syncStderr } from "../output.ts";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SuiteError } from "../../lib/core/errors.ts";
import { asFileError, isErrnoError } from "../../lib/core/fs-error.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { exitCodeFor } from "../../lib/assess/judge.ts";
import { loadSuite, resolvedSuiteYaml } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import { createProgress } from "../../lib/report/progress.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { claimRunDir, utcStamp } from "../../lib/report/run-dir.ts";
import { writePages } from "../../lib/report/write.ts";
import type { ResultsFile, Suite } from "../../lib/core/types.ts";
import { REDACTED, redactionOf } from "../../lib/core/redact.ts";
import { parseDuration } from "../../lib/core/units.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions } from "./cli-overrides.ts";
import { checkRerunTests, readRerun, withUnreached } from "./rerun.ts";
import { suiteText } from "./suite-source.ts";
import { useColor } from "./color.ts";

interface SuiteFlags extends HostFlags, NodeFlags {
  platform?: string;
  out?: string;
  timeout?: string;
  only?: string;
  failFast?: boolean;
  rerunFailed?: string;
  baseline?: string;
  signKey?: string;
  force?: boolean;
  preflightOnly?: boolean;
  progress: "auto" | "tty" | "plain" | "none";
}

export async function main(given: string | undefined, flags: SuiteFlags): Promise<number> {
  const read = flags.rerunFailed === undefined ? undefined : readRerun(flags.rerunFailed, flags);
  const ref = given ?? read?.dir;
  if (ref === undefined) throw new SuiteError("gpucheck: suite: name the suite to run (a file or a built-in name, see `gpucheck list`), or pass --rerun-failed <results-dir>");
  const suite = await loadSuite(ref);
  refuseRedacted(suite, ref);
  const rerun = read && withUnreached(read, suite);
  if (rerun?.tests.length === 0) {
    out(`nothing to rerun: every test of ${flags.rerunFailed} passed\n`);
    return 0;
  }
  if (rerun) checkRerunTests(rerun, suite);
  const cli = cliOverrides(flags);
  const timeoutMs = flags.timeout === undefined ? undefined : durationFlag(flags.timeout);
  const plan = buildPlan(suite, {
    // a rerun goes where the run went unless told otherwise
    platform: flags.platform ?? rerun?.platform,
    cli,
    only:
      rerun?.tests ??
      flags.only
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    timeoutMs,
    ...nodeOptions(flags),
  });
  const baseline = flags.baseline ? readBaseline(flags.baseline) : undefined;
  // a relative threshold without a baseline could only end as an error after every test ran
  const relative = plan.tests.flatMap((t) => t.expect.filter((e) => e.baselineRatio !== undefined).map((e) => `${t.name}: ${e.text}`));
  if (!baseline && relative.length) {
    throw new SuiteError(
      `${relative.length === 1 ? "a threshold is" : `${relative.length} thresholds are`} relative to a baseline (${relative.join("; ")}): pass --baseline <results.json> of an earlier run`,
    );
  }
  if (flags.signKey) {
    // refuse a bad key before spending an hour of GPU time, not after
    const { checkSigningKey } = await import("../../lib/sign/keys.ts");
    checkSigningKey(flags.signKey);
  }
  const outDir = flags.out ?? join("gpucheck-results", `${suite.name}-${utcStamp(new Date())}`);
  if (rerun && resolve(outDir) === resolve(rerun.dir)) {
    throw new SuiteError(
      `gpucheck: --out "${outDir}" is the run being rerun: --rerun-failed writes a new directory and never changes a run (its certificate would stop verifying)`,
    );
  }
  // hosts left idle are said whatever the progress mode: a user who gave them expects them used
  for (const w of plan.warnings) err(`gpucheck: warning: ${w}\n`);
  const mode = flags.progress === "auto" ? (process.stderr.isTTY ? "tty" : "plain") : flags.progress;
  const progress = createProgress({ mode, total: plan.tests.length, stream: syncStderr() });

  const cancel = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      // the user insists: leave now; every finished test is already on disk
      err(`\ngpucheck: ${sig} again, exiting without waiting for cleanup\n`);
      process.exit(130);
    }
    progress.note(`${sig}: stopping the run, killing what it started (press Ctrl-C again to exit at once)`);
    cancel.abort("cancelled");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const claim = claimRunDir(outDir, { force: flags.force });
  if (claim.movedTo) progress.note(`--force: the run that was in ${outDir} is now in ${claim.movedTo}`);
  if (rerun) progress.note(`rerunning ${rerun.tests.join(", ")} of ${rerun.dir} (failed, errored or skipped there)`);
  progress.note(`suite ${suite.name} (${plan.tests.length} test${plan.tests.length === 1 ? "" : "s"}) on ${plan.platform}; results in ${outDir}`);
  let results: ResultsFile;
  try {
    results = await executePlan(suite, plan, {
      outDir,
      cli,
      progress,
      command: ["gpucheck", ...process.argv.slice(2)],
      suiteText: suiteText(suite),
      resolvedSuite: resolvedSuiteYaml(ref),
      baseline: baseline?.results,
      baselinePath: baseline?.path,
      signal: cancel.signal,
      failFast: flags.failFast,
      ...(rerun && { rerunOf: { path: rerun.dir, sha256: rerun.sha256 } }),
      preflightOnly: flags.preflightOnly,
    });
    // executePlan wrote results.json and junit.xml as the run closed
    writePages(outDir, results);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    claim.release();
  }
  progress.close();
  out(renderSummary(results, { color: useColor(process.stdout) }) + "\n");
  // a certificate vouches for measurements: a run that stopped at preflight has none
  const unsigned = !flags.signKey
    ? undefined
    : flags.preflightOnly
      ? "--preflight-only runs no test"
      : results.preflight && !results.preflight.passed
        ? "preflight failed, no test ran"
        : !results.complete || !results.endedAt
          ? `INCOMPLETE run (gpucheck certify ${outDir} --key ${flags.signKey} --allow-incomplete signs it as INCOMPLETE)`
          : undefined;
  if (unsigned) err(`gpucheck: not signed: ${unsigned}\n`);
  else if (flags.signKey) {
    const { certifyResults } = await import("../../lib/sign/certify.ts");
    const cert = await certifyResults(outDir, flags.signKey);
    out(`signed: ${cert}\n`);
  }
  out(`results: ${join(outDir, "results.json")}  junit: ${join(outDir, "junit.xml")}  report: ${join(outDir, "report.html")}\n`);
  if (cancel.signal.aborted) return 130;
  return exitCodeFor(results.outcome);
}

function durationFlag(text: string): number {
  const d = parseDuration(text);
  if (!d.ok) throw new SuiteError(`gpucheck: --timeout: ${d.reason}`);
  if (d.value <= 0) throw new SuiteError(`gpucheck: --timeout: must be positive, got "${text}"`);
  return d.value;
}

function readBaseline(path: string): { path: string; results: ResultsFile } {
  const file = existsSync(path) && !path.endsWith(".json") ? join(path, "results.json") : path;
  try {
    return { path: file, results: JSON.parse(readFileSync(file, "utf8")) as ResultsFile };
  } catch (e) {
    if (isErrnoError(e)) throw asFileError(e, { doing: "read the baseline", path: file, option: "--baseline", mode: "read" });
    throw new SuiteError(`gpucheck: --baseline ${path}: cannot read results: ${(e as Error).message}`);
  }
}

/**
 * A results directory's suite.resolved.yaml holds its secrets as *** (lib/core/redact.ts): run from it,
 * the ranks would get "***" for a token. The suite file itself has the values.
 */
function refuseRedacted(suite: Suite, ref: string): void {
  const secrets = redactionOf(suite);
  for (const t of suite.tests)
    for (const [k, v] of Object.entries(t.env))
      if (v === REDACTED && secrets.names.has(k))
        throw new SuiteError(
          `gpucheck: suite "${ref}": env ${k} of test ${t.name} is "${REDACTED}", a secret redacted when a run was saved: run the suite file that has its value (gpucheck suite <file> --rerun-failed <results-dir> reruns a run's failures with it)`,
        );
}
