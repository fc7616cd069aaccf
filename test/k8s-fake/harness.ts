// Runs the k8s platform against a FakeCluster the way the executor would: a RunContext with the
// real workload package (so gpucheck_workload.launch starts the ranks), a kubeconfig for the fake,
// live lines and notes collected.
import type { UnitRun } from "../../lib/core/types.ts";
import { k8s } from "../../plugins/k8s.ts";
import { runTest, type RunOptions } from "../../plugins/k8s/lifecycle.ts";
import type { CliOverrides, TestToRender } from "../../lib/core/platform.ts";
import { fakeSuite, runContextFor } from "../platforms/conformance.ts";
import type { FakeCluster } from "./cluster.ts";
import { tempDir } from "../tmp.ts";

export const PYTHON = "/usr/bin/python3";

export interface K8sRun {
  units: UnitRun[];
  lines: string[];
  notes: string[];
  outDir: string;
  elapsedMs: number;
}

export interface HarnessOptions {
  settings?: Record<string, unknown>;
  cli?: CliOverrides;
  queueTimeoutMs?: number;
  /** the executor's budget for the whole test, after which it aborts with "timeout" (default: the test's timeout) */
  budgetMs?: number;
  /** abort with "cancelled" after this long (Ctrl-C) */
  cancelAfterMs?: number;
  /** abort as soon as a note matches (e.g. once pods run) */
  cancelOnNote?: RegExp;
  runOptions?: RunOptions;
  kubeconfigDir?: string;
  /** called once the run has started, for faults injected mid-run */
  during?(notes: string[]): void;
}

export async function runOnFake(cluster: FakeCluster, t: TestToRender, o: HarnessOptions = {}): Promise<K8sRun> {
  const outDir = tempDir("gpucheck-k8s-");
  const kubeconfig = cluster.kubeconfig(o.kubeconfigDir ?? outDir, { namespace: "gpu" });
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort("timeout"), o.budgetMs ?? t.timeoutMs);
  const cancel = o.cancelAfterMs === undefined ? undefined : setTimeout(() => ctl.abort("cancelled"), o.cancelAfterMs);
  const lines: string[] = [];
  const notes: string[] = [];
  const suite = { ...fakeSuite(), queueTimeoutMs: o.queueTimeoutMs ?? 60_000 };
  const settings = k8s.settings.parse({ image: "python:3-local", ...(o.settings ?? {}) });
  const ctx = runContextFor(t, {
    suite,
    settings,
    cli: o.cli,
    outDir,
    signal: ctl.signal,
    onLine: (unit, rank, line) => lines.push(`${unit}/${rank}: ${line}`),
    note: (m) => {
      notes.push(m);
      if (o.cancelOnNote?.test(m)) ctl.abort("cancelled");
      o.during?.(notes);
    },
  });
  const started = Date.now();
  try {
    const units = await runTest(ctx, { source: { env: { KUBECONFIG: kubeconfig } }, ...o.runOptions });
    return { units, lines, notes, outDir, elapsedMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
    clearTimeout(cancel);
  }
}
