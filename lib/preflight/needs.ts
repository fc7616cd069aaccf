// What each planned test needs from a node before it can run: an interpreter with torch, GPUs,
// NCCL, tools. Derived from the plan alone (pure), so `gpucheck plan` and the judge agree.
import type { AnyKind } from "../core/kind.ts";
import { KINDS } from "../kinds/mod.ts";
import type { PlannedTest } from "../core/types.ts";

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
  const kind: AnyKind = KINDS[t.kind];
  const n = kind.needs(t, kind.params(t.spec));
  return { test: t.name, python: t.launch.python, torch: n.torch, gpus: n.gpus, gpuSource: n.gpuSource ?? "torch", nccl: n.nccl, tools: n.tools ?? [] };
}

/** The interpreters and tools preflight must look at: each once, in the order the tests name them. */
export function preflightInputs(needs: TestNeeds[]): { interpreters: string[]; tools: string[] } {
  return {
    interpreters: [...new Set(needs.map((n) => n.python))],
    tools: [...new Set(needs.flatMap((n) => n.tools))],
  };
}
