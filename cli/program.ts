// argv → command through commander, built from the command table (cli/table.ts). It answers what
// cli/direct.ts leaves to it: help for a command, every usage error, and the less common ways of
// writing a command line. Each command's module is imported only when that command runs (a chunk
// of its own in the binary: scripts/build.ts splits the bundle).
import { Argument, Command, Option } from "commander";
import { VERSION_LINE } from "../lib/core/version.ts";
import { writeFd } from "./output.ts";
import { COMMANDS, type CommandSpec, PROGRAM } from "./table.ts";

/** What runs a command once commander has parsed it; args: its arguments, its options, then commander's Command. */
export type Run = (spec: CommandSpec, args: unknown[]) => Promise<void>;

export function buildProgram(run: Run): Command {
  const program = new Command()
    .name(PROGRAM.name)
    .description(PROGRAM.description)
    .version(VERSION_LINE, PROGRAM.version.flags, PROGRAM.version.description)
    .helpOption(PROGRAM.help.flags, PROGRAM.help.description)
    .showHelpAfterError()
    // synchronous, as every command's output (cli/output.ts): --help into a pipe arrives whole
    .configureOutput({ writeOut: (s) => writeFd(1, s), writeErr: (s) => writeFd(2, s) })
    .exitOverride()
    .addHelpText("after", PROGRAM.afterHelp);
  for (const spec of COMMANDS) addCommand(program, spec, run);
  return program;
}

function addCommand(parent: Command, spec: CommandSpec, run: Run): void {
  const cmd = parent.command(spec.name).description(spec.description);
  for (const a of spec.args ?? []) {
    const arg = new Argument(a.name, a.description);
    cmd.addArgument(a.choices ? arg.choices(a.choices) : arg);
  }
  for (const o of spec.options ?? []) {
    const opt = new Option(o.flags, o.description);
    if (o.choices) opt.choices(o.choices);
    if (o.default !== undefined) opt.default(o.default);
    cmd.addOption(opt.makeOptionMandatory(o.required ?? false));
  }
  if (spec.load) cmd.action((...args: unknown[]) => run(spec, args));
  for (const sub of spec.subcommands ?? []) addCommand(cmd, sub, run);
}

/** Parses argv (process.argv: runtime and script first) and runs the command; commander's own exits (help, errors) throw a CommanderError. */
export async function runProgram(argv: string[]): Promise<void> {
  const { runCommand } = await import("./run-command.ts");
  await buildProgram(runCommand).parseAsync(argv);
}
