// `gpucheck suite <file|name>`: load → plan → execute → report (→ sign), composed by lib/pipeline/suite.ts;
// here the flags become its request, and Ctrl-C and SIGTERM stop the run.
import { err, out, syncStderr } from "../output.ts";
import { runSuite, type SuiteFlags } from "../../lib/pipeline/suite.ts";
import { PLATFORMS } from "../platforms.ts";
import { useColor } from "./color.ts";

export async function main(given: string | undefined, flags: SuiteFlags): Promise<number> {
  const cancel = new AbortController();
  const interruptible = (note: (text: string) => void) => {
    let interrupts = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      interrupts += 1;
      if (interrupts > 1) {
        // the user insists: leave now; every finished test is already on disk
        err(`\ngpucheck: ${sig} again, exiting without waiting for cleanup\n`);
        process.exit(130);
      }
      note(`${sig}: stopping the run, killing what it started (press Ctrl-C again to exit at once)`);
      cancel.abort("cancelled");
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    return () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
  };
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
