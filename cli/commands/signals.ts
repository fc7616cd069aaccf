// Ctrl-C and SIGTERM for the commands that run tests (suite, soak, health): the first stops the run
// through its AbortController (every finished test is already on disk), a second exits at once.
import { err } from "../output.ts";

/** Installs the handlers; `say` tells the user what the first signal does. Returns what removes them. */
export function stopOnSignals(cancel: AbortController, say: (sig: NodeJS.Signals) => void): () => void {
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      // the user insists: leave now
      err(`\ngpucheck: ${sig} again, exiting without waiting for cleanup\n`);
      process.exit(130);
    }
    say(sig);
    cancel.abort("cancelled");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
