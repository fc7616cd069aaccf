// What commander makes of a command line, for comparing the paths that skip it (cli/direct.ts,
// cli/help.ts) with it: the program is cli/program.ts's, built from the same table.
import type { Command } from "commander";
import { buildProgram } from "../../cli/program.ts";

export type Parsed = { command: string; args: unknown[] } | { error: string };

/** commander's reading of argv (without runtime and script): the command and what its action gets, or the error code. */
export async function viaCommander(argv: string[]): Promise<Parsed> {
  let got: Parsed | undefined;
  const program = buildProgram(async (spec, args) => {
    // the last argument is commander's Command itself
    got = { command: spec.name, args: args.slice(0, -1) };
  });
  quiet(program);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    return { error: (e as { code: string }).code };
  }
  return got ?? { error: "no action" };
}

/** commander's help text for the whole program at a given width, as `gpucheck --help` writes it. */
export async function commanderHelp(width: number): Promise<string> {
  let text = "";
  const program = buildProgram(async () => {});
  program.configureOutput({ writeOut: (s) => (text += s), getOutHelpWidth: () => width });
  await program.parseAsync(["--help"], { from: "user" }).catch(() => {});
  return text;
}

function quiet(cmd: Command): void {
  cmd.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  for (const sub of cmd.commands) quiet(sub);
}
