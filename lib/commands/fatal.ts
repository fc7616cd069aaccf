import { CommanderError } from "commander";
import { EXIT, PlatformError, SuiteError } from "../errors.ts";

/** Prints an error the way a user needs it and returns the exit code. */
export function reportFatal(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander already printed its message; --help and --version end here too
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof SuiteError) {
    process.stderr.write(`${err.render()}\n`);
    return EXIT.usage;
  }
  if (err instanceof PlatformError) {
    process.stderr.write(`gpucheck: ${err.message}\n`);
    return EXIT.infra;
  }
  const e = err as Error;
  process.stderr.write(`gpucheck: internal error: ${e?.stack ?? String(err)}\n`);
  return EXIT.infra;
}
