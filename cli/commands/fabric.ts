// `gpucheck fabric snapshot|counters|check`: the InfiniBand fabric against its design (lib/pipeline/fabric.ts).
import { fabricCheck, fabricCounters, fabricSnapshot } from "../../lib/pipeline/fabric.ts";
import { printer } from "./print.ts";

export async function snapshot(flags: { out?: string; via?: string }): Promise<number> {
  return fabricSnapshot({ flags, print: printer() });
}

export async function counters(flags: { out: string; via?: string }): Promise<number> {
  return fabricCounters({ flags, print: printer() });
}

export async function check(flags: { topology: string; countersBefore?: string; pkeys?: string; via?: string; json?: boolean }): Promise<number> {
  return fabricCheck({ flags, print: printer() });
}
