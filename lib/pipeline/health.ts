// `gpucheck health`'s whole flow: run the quick suite (or --suite) on this node through the local
// platform, turn its verdicts into one line per failure, then act on them: append the run to the
// node history (--history, unsigned: signing stays with acceptance runs), drain the Slurm node
// (--drain), set the Kubernetes Node condition (--k8s-condition). The exit code is NHC's convention
// (mej/nhc README: a passing run prints nothing and exits 0; a failing one says why and exits
// non-zero): 0 healthy; 1 a check failed; 3 a check could not measure or the run never finished,
// which is never healthy; 2 a usage error before anything ran.
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT, PlatformError, SuiteError } from "../core/errors.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { readResults } from "../report/results.ts";
import { healthVerdict } from "../health/lines.ts";
import { drainLine, drainOnFailure, type Exec } from "../health/slurm-drain.ts";
import { type ApiTarget, conditionLine, inCluster, setHealthCondition } from "../health/k8s-condition.ts";
import { HEALTH_DEFAULTS, healthManifestsYaml } from "../health/k8s-manifest.ts";
import { importLine, importRun } from "./history.ts";
import type { Printer } from "./printer.ts";
import { runSuite } from "./suite.ts";

export interface HealthFlags {
  suite?: string;
  baseline?: string;
  history?: string;
  drain?: boolean;
  k8sCondition?: boolean;
  node?: string;
  out?: string;
  python?: string;
  timeout?: string;
  json?: boolean;
}

export interface HealthRequest {
  flags: HealthFlags;
  platforms: PlatformRegistry;
  command: string[];
  print: Printer;
  signal: AbortSignal;
  interruptible: (note: (text: string) => void) => () => void;
  env?: NodeJS.ProcessEnv;
  /** how scontrol runs (a test may count the calls) */
  exec?: Exec;
  /** the API server to set the condition through; default: in-cluster */
  api?: ApiTarget;
}

/** This node's name: --node, else the scheduler's (SLURMD_NODENAME in a Slurm HealthCheckProgram, Prolog or Epilog; NODE_NAME in the DaemonSet), else the short host name. */
export function nodeName(flags: HealthFlags, env: NodeJS.ProcessEnv): string {
  return flags.node ?? (flags.k8sCondition ? env.NODE_NAME : env.SLURMD_NODENAME) ?? env.SLURMD_NODENAME ?? hostname().split(".")[0]!;
}

export async function runHealth(request: HealthRequest): Promise<number> {
  const { flags, print } = request;
  const env = request.env ?? process.env;
  const node = nodeName(flags, env);
  // resolved before the run, so a pod without its token fails in a second, not after the checks
  const api = flags.k8sCondition ? (request.api ?? asPlatformError(() => inCluster(env))) : undefined;
  const scratch = flags.out ? undefined : mkdtempSync(join(tmpdir(), "gpucheck-health-"));
  const outDir = flags.out ?? join(scratch!, "run");
  try {
    // the suite's own summary and progress would bury the lines a health check is read by: only
    // its warnings and errors reach stderr
    const code = await runSuite({
      ref: flags.suite ?? "quick",
      flags: { out: outDir, baseline: flags.baseline, platform: "local", python: flags.python, timeout: flags.timeout, progress: "none" },
      platforms: request.platforms,
      command: request.command,
      print: { ...print, out: () => {} },
      signal: request.signal,
      interruptible: request.interruptible,
    });
    if (request.signal.aborted) return 130;
    const { results } = readResults(outDir);
    const verdict = healthVerdict(results, node);
    let exit: number = verdict.healthy ? EXIT.ok : code === EXIT.ok ? EXIT.failed : code;
    if (!flags.json) for (const f of verdict.failures) print.out(`ERROR gpucheck health: ${f}\n`);
    // each action is tried whatever became of the one before: a history file on a full disk must
    // not keep a failing node in service
    const actions: string[] = [];
    const problems: string[] = [];
    const act = async (what: () => Promise<string> | string) => {
      try {
        actions.push(await what());
      } catch (e) {
        problems.push((e as Error).message);
      }
    };
    if (flags.history) await act(() => importLine(importRun(outDir, { history: flags.history, mode: "health" })).trimEnd());
    if (flags.drain) await act(async () => drainLine(await drainOnFailure(node, verdict.failures, request.exec)));
    if (api) await act(async () => conditionLine(node, await setHealthCondition(api, node, verdict.failures)));
    // a node whose verdict could not be acted on is not known to be handled: an error of the run
    if (problems.length && exit === EXIT.ok) exit = EXIT.infra;
    if (flags.json)
      print.out(`${JSON.stringify({ node, healthy: verdict.healthy, exitCode: exit, failures: verdict.failures, actions, problems, results: flags.out ?? null }, null, 2)}\n`);
    for (const line of actions) print.err(`gpucheck: ${line}\n`);
    for (const line of problems) print.err(`gpucheck: ${line}\n`);
    return exit;
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

function asPlatformError<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new PlatformError((e as Error).message);
  }
}

export interface HealthPlanFlags {
  platform?: string;
  image?: string;
  baseline?: string;
}

/** `gpucheck plan <suite> --platform k8s --health`: the DaemonSet that runs `gpucheck health --suite <suite>` on every GPU node, and its RBAC, as YAML. */
export function healthPlan(suite: string, flags: HealthPlanFlags, print: Printer): number {
  if (flags.platform !== "k8s")
    throw new SuiteError(
      `gpucheck: plan --health renders the Kubernetes DaemonSet of \`gpucheck health\`: add --platform k8s (got ${flags.platform ? `--platform ${flags.platform}` : "no --platform"}); on Slurm, gpucheck health runs as HealthCheckProgram (docs/health.md)`,
    );
  if (!flags.image)
    throw new SuiteError("gpucheck: plan --health: --image is required: an image holding the gpucheck binary, Python and torch that the DaemonSet runs on every GPU node");
  if (flags.baseline !== undefined && !flags.baseline.startsWith("/"))
    throw new SuiteError(
      `gpucheck: plan --health: --baseline "${flags.baseline}" must be an absolute path: it is each node's acceptance results directory, mounted into the pod from the host at that path`,
    );
  print.out(healthManifestsYaml({ ...HEALTH_DEFAULTS, image: flags.image, args: ["--suite", suite], ...(flags.baseline && { baseline: flags.baseline }) }));
  return EXIT.ok;
}
