// Wall times measured on real hardware, each with the BENCHMARKS.md section it comes from. Only whole
// suites have been timed so far (one H100 lent per session), so a row is a suite's total, not a test's.
// A row holds the workload commands the timed run launched: a plan whose tests launch anything else
// (another gemm sweep, --only) did other work, and is estimated instead.
export interface MeasuredTime {
  suite: string;
  /** each test's workload command (`launch.args`) as the timed run launched it, in order */
  commands: string[];
  /** the longest of the measured runs, ms */
  wallMs: number;
  source: string;
}

const TELEMETRY = "-m gpucheck_workload --inventory --telemetry-interval 0.5";

export const MEASURED_TIMES: MeasuredTime[] = [
  {
    suite: "gpu-1x",
    // `gpucheck plan gpu-1x --json` at 412ba7f, the commit both runs were made on
    commands: [
      "-m gpucheck_workload inventory",
      `${TELEMETRY} gemm --dtypes bf16,fp16,tf32 --min-size 1024 --max-size 16384 --step 1024 --iters 10 --warmup 3 --checksum-size 4096`,
      `${TELEMETRY} membw --size 2147483648 --iters 20 --warmup 3`,
      `${TELEMETRY} pcie --size 268435456 --iters 20 --warmup 3`,
      `${TELEMETRY} burn --duration 120 --gemm-size 8192 --copy-size 1073741824 --allreduce-size 268435456 --window 10`,
      "-m gpucheck_workload inventory",
      `${TELEMETRY} train --model resnet50 --data synthetic --batch-size 256 --steps 150 --warmup-steps 30 --precision auto --image-size 224`,
      `${TELEMETRY} train --model transformer --data synthetic --batch-size 8 --steps 40 --warmup-steps 8 --precision auto --layers 24 --width 2048 --heads 16 --seq-len 1024 --vocab 50304`,
    ],
    wallMs: 234_000,
    source: 'BENCHMARKS.md "GPU figures": the whole suite with preflight on one H100 80GB HBM3, 3 min 54 s and 3 min 46 s',
  },
];

/** the suite's measured row, and whether `commands` are the ones it timed */
export function measuredTime(suite: string, commands: readonly string[]): { row: MeasuredTime; same: boolean } | undefined {
  const row = MEASURED_TIMES.find((m) => m.suite === suite);
  return row && { row, same: row.commands.length === commands.length && row.commands.every((c, i) => c === commands[i]) };
}

/**
 * What one launch of a test costs besides its own work: starting the ranks, importing torch, creating
 * the process group, the inventory and telemetry around it, collecting. Derived from gpu-1x's measured
 * wall (BENCHMARKS.md "GPU figures"): run 1 took 234 s for preflight and 8 tests; the tests' own work at
 * their measured rates is ≈141 s (burn 120, ResNet-50 150 steps × 69.5 ms = 10.4, transformer 40 × 177 ms
 * = 7.1, the gemm sweep of that commit ≈2.6 at its measured TFLOP/s, HBM and PCIe copies ≈0.8, the two
 * inventories counted as launches alone), leaving 93 s over 9 launches = 10.3 s; run 2 (226 s) gives
 * 9.5 s. One GPU: an 8-rank NCCL start was never measured, and may cost more.
 */
export const LAUNCH_STARTUP_MS = 10_000;
export const LAUNCH_STARTUP_SOURCE = 'start-up derived from gpu-1x\'s measured wall (BENCHMARKS.md "GPU figures")';
