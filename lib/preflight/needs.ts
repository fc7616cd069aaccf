// What each planned test needs from a node before it can run: an interpreter with torch, GPUs,
// NCCL, tools. Derived from the plan alone (pure), so `gpucheck plan` and the judge agree.
import type { PlannedTest } from "../types.ts";

export interface TestNeeds {
  test: string;
  python: string;
  /** the workload's own benchmark and training import torch; inventory and nccl-tests do not */
  torch: boolean;
  /**
   * GPUs each node must show the test's ranks. Inventory tests are left out: they count the GPUs
   * themselves (gpu_count) and name the missing one, which a preflight stop would hide.
   */
  gpus: number;
  /** who counts the GPUs: torch (what the ranks will see) or nvidia-smi (nccl-tests needs no torch) */
  gpuSource: "torch" | "nvidia-smi";
  nccl: boolean;
  /** `nccl-tests:<op>[:<dir>]` or a name on PATH, as the workload's preflight takes them */
  tools: string[];
}

export function needsOf(t: PlannedTest): TestNeeds {
  const base = { test: t.name, python: t.launch.python, torch: false, gpus: 0, gpuSource: "torch" as const, nccl: false, tools: [] as string[] };
  if (t.kind === "train") {
    // training picks its backend like `backend: auto`: NCCL whenever it has GPUs
    return { ...base, torch: true, gpus: t.gpusPerNode, nccl: t.gpusPerNode > 0 };
  }
  if (t.kind === "collective" && t.spec.collective) {
    const c = t.spec.collective;
    if (c.impl === "nccl-tests") {
      // the binaries carry their own NCCL; they find <op>_perf as workload/gpucheck_workload/nccl_tests.py does
      return { ...base, gpus: t.gpusPerNode, gpuSource: "nvidia-smi", tools: [`nccl-tests:${c.op}${c.ncclTestsDir ? `:${c.ncclTestsDir}` : ""}`] };
    }
    const nccl = c.backend === "nccl" || (c.backend === "auto" && t.gpusPerNode > 0);
    return { ...base, torch: true, gpus: t.gpusPerNode, nccl };
  }
  return base;
}

/** The interpreters and tools preflight must look at: each once, in the order the tests name them. */
export function preflightInputs(needs: TestNeeds[]): { interpreters: string[]; tools: string[] } {
  return {
    interpreters: [...new Set(needs.map((n) => n.python))],
    tools: [...new Set(needs.flatMap((n) => n.tools))],
  };
}
