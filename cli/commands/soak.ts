// `gpucheck soak <suite> --for 72h --every 1h` and `gpucheck soak --resume <dir>`: the flags become the
// request of lib/pipeline/soak.ts; Ctrl-C and SIGTERM stop the round running and the soak with it
// (resumable), a second one exits at once.
import { err, out, syncStderr } from "../output.ts";
import { runSoak, type SoakFlags } from "../../lib/pipeline/soak.ts";
import { PLATFORMS } from "../platforms.ts";
import { useColor } from "./color.ts";
import { stopOnSignals } from "./signals.ts";

export async function main(given: string | undefined, flags: SoakFlags): Promise<number> {
  const cancel = new AbortController();
  const uninstall = stopOnSignals(cancel, (sig) =>
    err(`\ngpucheck: ${sig}: stopping the soak after killing what its round started; resume it with gpucheck soak --resume <its directory>\n`),
  );
  try {
    const code = await runSoak({
      ref: given,
      flags,
      platforms: PLATFORMS,
      command: ["gpucheck", ...process.argv.slice(2)],
      print: { out, err, stderr: syncStderr(), color: useColor(process.stdout) },
      signal: cancel.signal,
    });
    return cancel.signal.aborted ? 130 : code;
  } finally {
    uninstall();
  }
}
