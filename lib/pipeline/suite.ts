// `gpucheck suite`'s whole flow, in one place: rerun → load → plan → baseline → relative-threshold
// check → run-directory claim → execute → pages → certify. The command (cli/commands/suite.ts) turns
// flags into a SuiteRequest, handles the signals and says where to print.
import { join, resolve } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { FileError } from "../core/fs-error.ts";
import { executePlan } from "./run-suite.ts";
import type { FabricStart } from "../execute/fabric-run.ts";
import { exitCodeFor } from "../assess/judge.ts";
import { loadSuite, resolvedSuiteYaml } from "../load/mod.ts";
import { buildPlan } from "../plan/plan.ts";
import { quickProfilePlan } from "./quick-profile.ts";
import { checkBudget } from "../plan/expected-time.ts";
import { createProgress } from "../report/progress.ts";
import { renderSummary } from "../report/summary.ts";
import { readResults } from "../report/results.ts";
import { claimRunDir, utcStamp } from "../report/run-dir.ts";
import { writePages } from "../report/write.ts";
import type { ResultsFile, Suite } from "../core/types.ts";
import { REDACTED, redactionOf } from "../core/redact.ts";
import { parseDuration } from "../core/units.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions, onlyTests } from "./cli-overrides.ts";
import { checkRerunTests, readRerun, withUnreached } from "./rerun.ts";
import { suiteText } from "./suite-source.ts";
import type { Printer } from "./printer.ts";

export interface SuiteFlags extends HostFlags, NodeFlags {
  platform?: string;
  out?: string;
  timeout?: string;
  only?: string;
  failFast?: boolean;
  rerunFailed?: string;
  baseline?: string;
  signKey?: string;
  force?: boolean;
  groupReadable?: boolean;
  preflightOnly?: boolean;
  /** `--budget 30m`: refuse a plan expected to take longer (lib/plan/expected-time.ts) */
  budget?: string;
  progress: "auto" | "tty" | "plain" | "none";
}

export interface SuiteRequest {
  /** the suite argument: a file or a built-in name; absent with --rerun-failed (the run's own suite) */
  ref: string | undefined;
  flags: SuiteFlags;
  /** the platforms a suite may name (cli/platforms.ts) */
  platforms: PlatformRegistry;
  /** argv as the user typed it, kept in results.json */
  command: string[];
  print: Printer;
  /** aborted on Ctrl-C/SIGTERM with reason "cancelled" */
  signal: AbortSignal;
  /**
   * Called as the run starts (planned, before its directory is claimed) with the run's progress note;
   * returns what undoes it once the run has ended. The command installs its signal handlers here.
   */
  interruptible: (note: (text: string) => void) => () => void;
  /** a soak's first sweep of the fabric's counters, which this round's fabric test compares with */
  fabricStart?: FabricStart;
}

/** The run's exit code (0, 1 or 3, as exitCodeFor says); the command makes it 130 when the run was cancelled. */
export async function runSuite(request: SuiteRequest): Promise<number> {
  const { ref: given, flags, print } = request;
  const { out, err } = print;
  const read = flags.rerunFailed === undefined ? undefined : readRerun(flags.rerunFailed, flags);
  const ref = given === "auto" && !read ? await chooseAuto(print) : (given ?? read?.dir);
  if (ref === undefined) throw new SuiteError("gpucheck: suite: name the suite to run (a file or a built-in name, see `gpucheck list`), or pass --rerun-failed <results-dir>");
  const { platforms } = request;
  const suite = await loadSuite(ref, { platforms });
  refuseRedacted(suite, ref);
  const rerun = read && withUnreached(read, suite);
  if (rerun?.tests.length === 0) {
    out(`nothing to rerun: every test of ${flags.rerunFailed} passed\n`);
    return 0;
  }
  if (rerun) checkRerunTests(rerun, suite);
  const cli = cliOverrides(flags);
  const timeoutMs = flags.timeout === undefined ? undefined : durationFlag(flags.timeout);
  const opts = {
    // a rerun goes where the run went unless told otherwise
    platform: flags.platform ?? rerun?.platform,
    cli,
    only: rerun?.tests ?? onlyTests(flags.only),
    timeoutMs,
    ...nodeOptions(flags),
    platforms,
  };
  const plan = buildPlan(suite, opts);
  // before a node is touched: a plan that cannot fit the budget names what to drop, and the suite's
  // quick profile when that fits (not for a rerun or --only, which chose their tests)
  if (flags.budget !== undefined) {
    const quick = rerun || opts.only ? undefined : await quickProfilePlan(plan, opts);
    err(`gpucheck: ${checkBudget("suite", plan, flags.budget, quick)}\n`);
  }
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
    const { checkSigningKey } = await import("../sign/keys.ts");
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
  const mode = flags.progress === "auto" ? (print.stderr.isTTY ? "tty" : "plain") : flags.progress;
  const progress = createProgress({ mode, total: plan.tests.length, stream: print.stderr });

  const uninterruptible = request.interruptible((text) => progress.note(text));

  const claim = claimRunDir(outDir, { force: flags.force, groupReadable: flags.groupReadable });
  if (claim.movedTo) progress.note(`--force: the run that was in ${outDir} is now in ${claim.movedTo}`);
  if (rerun) progress.note(`rerunning ${rerun.tests.join(", ")} of ${rerun.dir} (failed, errored or skipped there)`);
  progress.note(`suite ${suite.name} (${plan.tests.length} test${plan.tests.length === 1 ? "" : "s"}) on ${plan.platform}; results in ${outDir}`);
  let results: ResultsFile;
  try {
    results = await executePlan(suite, plan, {
      outDir,
      cli,
      progress,
      command: request.command,
      suiteText: suiteText(suite),
      resolvedSuite: resolvedSuiteYaml(ref),
      baseline: baseline?.results,
      baselinePath: baseline?.path,
      signal: request.signal,
      failFast: flags.failFast,
      ...(rerun && { rerunOf: { path: rerun.dir, sha256: rerun.sha256 } }),
      preflightOnly: flags.preflightOnly,
      platforms,
      ...(request.fabricStart && { fabricStart: request.fabricStart }),
    });
    // executePlan wrote results.json and junit.xml as the run closed
    writePages(outDir, results);
  } finally {
    uninterruptible();
    claim.release();
  }
  progress.close();
  out(renderSummary(results, { color: print.color }) + "\n");
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
    const { certifyResults } = await import("../sign/certify.ts");
    const cert = await certifyResults(outDir, flags.signKey);
    out(`signed: ${cert}\n`);
  }
  out(`results: ${join(outDir, "results.json")}  junit: ${join(outDir, "junit.xml")}  report: ${join(outDir, "report.html")}\n`);
  return exitCodeFor(results.outcome);
}

function durationFlag(text: string): number {
  const d = parseDuration(text);
  if (!d.ok) throw new SuiteError(`gpucheck: --timeout: ${d.reason}`);
  if (d.value <= 0) throw new SuiteError(`gpucheck: --timeout: must be positive, got "${text}"`);
  return d.value;
}

/** The results.json of an earlier run (a directory or the file itself), read by the one reader of results.json. */
function readBaseline(path: string): { path: string; results: ResultsFile } {
  try {
    const read = readResults(path, { doing: "read the baseline", option: "--baseline" });
    return { path: read.path, results: read.results };
  } catch (e) {
    // a path gpucheck cannot read is already one line naming --baseline
    if (e instanceof FileError) throw e;
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

/** `suite auto`: the built-in suite for this node's GPUs (lib/pipeline/suite-auto.ts), said in one line before anything runs. */
async function chooseAuto(print: Printer): Promise<string> {
  const { autoSuite } = await import("./suite-auto.ts");
  const choice = autoSuite();
  print.out(`${choice.why}\n`);
  return choice.suite;
}
