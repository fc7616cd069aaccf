// `gpucheck suite <file|name>`: load → plan → execute → report (→ sign), composed by lib/pipeline/suite.ts;
// here the flags become its request, and Ctrl-C and SIGTERM stop the run.
import { err, out, syncStderr } from "../output.ts";
import { runSuite, type SuiteFlags } from "../../lib/pipeline/suite.ts";
import { PLATFORMS } from "../platforms.ts";
import { useColor } from "./color.ts";
import { stopOnSignals } from "./signals.ts";

export async function main(given: string | undefined, flags: SuiteFlags): Promise<number> {
  const cancel = new AbortController();
  const interruptible = (note: (text: string) => void) =>
    stopOnSignals(cancel, (sig) => note(`${sig}: stopping the run, killing what it started (press Ctrl-C again to exit at once)`));
  const code = await runSuite({
    ref: given,
    flags,
    platforms: PLATFORMS,
    command: ["gpucheck", ...process.argv.slice(2)],
    print: { out, err, stderr: syncStderr(), color: useColor(process.stdout) },
    signal: cancel.signal,
    interruptible,
  });
  if (cancel.signal.aborted) return 130;
  return code;
}
