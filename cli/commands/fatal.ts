import { CommanderError } from "commander";
import { EXIT, PlatformError, SuiteError } from "../../lib/core/errors.ts";
import { err as printErr, OutputError } from "../output.ts";

/** Prints an error the way a user needs it and returns the exit code. */
export function reportFatal(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander already printed its message; --help and --version end here too
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof SuiteError) {
    printErr(`${err.render()}\n`);
    return EXIT.usage;
  }
  if (err instanceof PlatformError || err instanceof OutputError) {
    printErr(`gpucheck: ${err.message}\n`);
    return EXIT.infra;
  }
  const e = err as Error;
  printErr(`gpucheck: internal error: ${e?.stack ?? String(err)}\n`);
  return EXIT.infra;
}
