// `gpucheck fabric snapshot|counters|check`: the InfiniBand fabric against its design (lib/pipeline/fabric.ts).
// A Ctrl-C or SIGTERM stops the tool running (it leads its own process group, so the terminal's signal
// does not reach it): the command says which and exits 130.
import { fabricCheck, fabricCounters, fabricSnapshot, type FabricRequest } from "../../lib/pipeline/fabric.ts";
import { printer } from "./print.ts";
import { stopOnSignals } from "./signals.ts";

async function stoppable<F>(flags: F, run: (request: FabricRequest<F>) => Promise<number>): Promise<number> {
  const cancel = new AbortController();
  const print = printer();
  const release = stopOnSignals(cancel, (sig) => print.err(`\ngpucheck fabric: ${sig}: stopping the tool that reads the fabric\n`));
  try {
    return await run({ flags, print, signal: cancel.signal });
  } finally {
    release();
  }
}

export function snapshot(flags: { out?: string; via?: string }): Promise<number> {
  return stoppable(flags, fabricSnapshot);
}

export function counters(flags: { out: string; via?: string }): Promise<number> {
  return stoppable(flags, fabricCounters);
}

export function check(flags: { topology: string; countersBefore?: string; pkeys?: string; via?: string; json?: boolean }): Promise<number> {
  return stoppable(flags, fabricCheck);
}
