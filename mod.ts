#!/usr/bin/env bun
// The entry point, and with it the only place that calls process.exit. `gpucheck --version` is
// answered here, before anything else loads; every other command line goes to cli/dispatch.ts,
// which reads a plain one from the command table and leaves the rest to commander (start-up:
// BENCHMARKS.md, bench/startup.ts).
import { EXIT } from "./lib/core/errors.ts";
import { out } from "./cli/output.ts";
import { VERSION_LINE } from "./lib/core/version.ts";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  try {
    out(`${VERSION_LINE}\n`);
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
