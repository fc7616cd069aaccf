#!/usr/bin/env bun
// The entry point, and with it the only place that calls process.exit. The fixed texts are
// answered here, before anything else loads: the version, and --help into a pipe or a file (the
// 80-column layout, rendered at build time: cli/help.gen.ts). Every other command line goes to
// cli/dispatch.ts, which reads a plain one from the command table and leaves the rest to commander
// (start-up: BENCHMARKS.md, bench/startup.ts).
import { fstatSync } from "node:fs";
import { EXIT } from "./lib/core/errors.ts";
import { out } from "./cli/output.ts";
import { ROOT_HELP } from "./cli/help.gen.ts";
import { VERSION_LINE } from "./lib/core/version.ts";

const args = process.argv.slice(2);
const fixed = args.length === 1 ? fixedText(args[0]!) : undefined;
if (fixed !== undefined) {
  try {
    out(fixed);
    process.exit(EXIT.ok);
  } catch (e) {
    process.stderr.write(`gpucheck: ${(e as Error).message}\n`);
    process.exit(EXIT.infra);
  }
}
// no top-level await: `bun build --compile --bytecode` rejects it
import("./cli/dispatch.ts")
  .then(({ dispatch }) => dispatch(args))
  .then(
    (code) => process.exit(code),
    async (err: unknown) => {
      const { reportFatal } = await import("./cli/commands/fatal.ts");
      process.exit(reportFatal(err));
    },
  );

/** The answer that needs nothing loaded, if there is one; a terminal's width for --help is cli/dispatch.ts's to read. */
function fixedText(arg: string): string | undefined {
  if (arg === "--version" || arg === "-V") return `${VERSION_LINE}\n`;
  if (arg !== "--help" && arg !== "-h") return undefined;
  try {
    return fstatSync(1).isCharacterDevice() ? undefined : ROOT_HELP;
  } catch {
    return undefined;
  }
}
