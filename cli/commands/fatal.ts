import { EXIT, PlatformError, SuiteError } from "../../lib/core/errors.ts";
import { FileError, isErrnoError, uncaughtFsLine } from "../../lib/core/fs-error.ts";
import { err as printErr, OutputError } from "../output.ts";

/** Prints an error the way a user needs it and returns the exit code. */
export function reportFatal(err: unknown): number {
  // a CommanderError, known by its code rather than its class: a command run without commander
  // (cli/direct.ts) should not load commander only to say how it failed
  if (isCommanderError(err)) {
    // commander already printed its message; --help and --version end here too
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof FileError) {
    printErr(`gpucheck: ${err.message}\n`);
    return err.exitCode;
  }
  if (err instanceof SuiteError) {
    printErr(`${err.render()}\n`);
    return EXIT.usage;
  }
  if (err instanceof PlatformError || err instanceof OutputError) {
    printErr(`gpucheck: ${err.message}\n`);
    return EXIT.infra;
  }
  // a file-system error no call site put in words still gets its line, never a stack trace
  if (isErrnoError(err)) {
    printErr(`gpucheck: ${uncaughtFsLine(err)}\n`);
    return EXIT.infra;
  }
  const e = err as Error;
  printErr(`gpucheck: internal error: ${e?.stack ?? String(err)}\n`);
  return EXIT.infra;
}

function isCommanderError(err: unknown): err is { code: string; exitCode: number } {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === "string" && code.startsWith("commander.");
}
