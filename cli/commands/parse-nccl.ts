// `gpucheck parse nccl <log|-> [--json]`: nccl-tests output → the report as JSON (lib/pipeline/parse-nccl.ts).
import { parseNcclLog } from "../../lib/pipeline/parse-nccl.ts";
import { printer } from "./print.ts";

export async function main(log: string, opts: { json?: boolean }): Promise<number> {
  return parseNcclLog({ log, opts, print: printer() });
}
