// `gpucheck health [--suite quick] [--baseline DIR] [--drain] [--k8s-condition] [--history DB]`: the
// flow is lib/pipeline/health.ts; here the flags become its request, and Ctrl-C and SIGTERM stop the run.
import { err, out, syncStderr } from "../output.ts";
import { type HealthFlags, runHealth } from "../../lib/pipeline/health.ts";
import { PLATFORMS } from "../platforms.ts";
import { useColor } from "./color.ts";
import { stopOnSignals } from "./signals.ts";

export async function main(flags: HealthFlags): Promise<number> {
  const cancel = new AbortController();
  const interruptible = (note: (text: string) => void) => stopOnSignals(cancel, (sig) => note(`${sig}: stopping the health run`));
  const code = await runHealth({
    flags,
    platforms: PLATFORMS,
    command: ["gpucheck", ...process.argv.slice(2)],
    print: { out, err, stderr: syncStderr(), color: useColor(process.stdout) },
    signal: cancel.signal,
    interruptible,
  });
  return cancel.signal.aborted ? 130 : code;
}
