// The workload command line for a test: the same on every platform.
import type { TestSpec } from "./types.ts";

/** Telemetry sampling period on the nodes, seconds (issue 3: every 500 ms). */
export const TELEMETRY_INTERVAL_S = 0.5;

export function workloadArgs(test: TestSpec): string[] {
  const head = ["-m", "gpucheck_workload", "--inventory", "--telemetry-interval", String(TELEMETRY_INTERVAL_S)];
  switch (test.kind) {
    case "collective": {
      const c = test.collective!;
      return [
        ...head,
        "collective",
        "--op", c.op,
        "--min-bytes", String(c.minBytes),
        "--max-bytes", String(c.maxBytes),
        "--factor", String(c.factor),
        "--iters", String(c.iters),
        "--warmup", String(c.warmup),
        "--dtype", c.dtype,
        "--backend", c.backend,
        "--impl", c.impl,
        ...(c.check ? [] : ["--no-check"]),
        ...(c.ncclTestsDir ? ["--nccl-tests-dir", c.ncclTestsDir] : []),
      ];
    }
    case "train": {
      const t = test.train!;
      const opt = (flag: string, v: number | string | undefined) => (v === undefined ? [] : [flag, String(v)]);
      return [
        ...head,
        "train",
        "--model", t.model,
        "--data", t.data,
        ...opt("--data-dir", t.dataDir),
        "--batch-size", String(t.batchSize),
        "--steps", String(t.steps),
        "--warmup-steps", String(t.warmupSteps),
        "--precision", t.precision,
        ...opt("--image-size", t.imageSize),
        ...opt("--layers", t.layers),
        ...opt("--width", t.width),
        ...opt("--heads", t.heads),
        ...opt("--seq-len", t.seqLen),
        ...opt("--vocab", t.vocab),
      ];
    }
    case "inventory":
      return ["-m", "gpucheck_workload", "inventory"];
  }
}
