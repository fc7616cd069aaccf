#!/usr/bin/env bun
// The entry point. `gpucheck --version` is answered here, before commander and the command table
// load (cli/program.ts): they were half of its start-up (BENCHMARKS.md, bench/startup.ts).
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
void import("./cli/program.ts");
