// argv → the command that runs, and its exit code. `gpucheck --help` (on a terminal: mod.ts answers
// a pipe or a file) and a plain command line (cli/direct.ts) are answered from the command table;
// everything else goes through commander (cli/program.ts).
import { fstatSync } from "node:fs";
import { EXIT } from "../lib/core/errors.ts";
import { directCall } from "./direct.ts";
import { out } from "./output.ts";
import { runCommand } from "./run-command.ts";

export async function dispatch(argv: string[]): Promise<number> {
  const width = argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h") ? helpWidth() : undefined;
  if (width !== undefined) {
    out((await import("./help.ts")).rootHelp(width));
    return EXIT.ok;
  }
  const call = directCall(argv);
  if (call) await runCommand(call.spec, call.args);
  else await (await import("./program.ts")).runProgram(process.argv);
  return Number(process.exitCode ?? EXIT.ok);
}

/**
 * The width commander would lay help out for: the terminal's, else 80. A pipe or a file is known
 * from fstat without touching process.stdout, whose first use costs more than the rest of --help
 * (BENCHMARKS.md); undefined when standard output is closed, which commander then reports.
 */
function helpWidth(): number | undefined {
  try {
    if (!fstatSync(1).isCharacterDevice()) return 80;
  } catch {
    return undefined;
  }
  return (process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80;
}
