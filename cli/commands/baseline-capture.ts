// `gpucheck baseline capture <results-dir> [--node NAME] [--out FILE] [--json]` (lib/pipeline/baseline.ts).
import { baselineCapture } from "../../lib/pipeline/baseline.ts";
import { printer } from "./print.ts";

export async function main(dir: string, flags: { node?: string; out?: string; json?: boolean }): Promise<number> {
  return baselineCapture({ dir, flags, print: printer() });
}
