// Runs one command of the table (cli/table.ts) with its parsed arguments, whichever way they were
// parsed (commander in cli/program.ts, or cli/direct.ts): the exit code goes to process.exitCode.
import type { CommandSpec } from "./table.ts";

export async function runCommand(spec: CommandSpec, args: unknown[]): Promise<void> {
  // a run, a report over a thousand nodes, a long log: their loops are hot, and JIT-compiled code
  // pays for itself within the run (the policy the executable starts with is for brief commands)
  if (!spec.brief) Bun.unsafe.setJITPolicy(1);
  // A command parses each schema once or twice: zod's JIT (a `new Function` per object schema, built
  // on first parse) costs more than it saves there; jitless halved the first suite parse
  // (BENCHMARKS.md, start-up). Long runs parse no more often, so they lose nothing.
  if (!spec.noZod) (await import("zod")).config({ jitless: true });
  const { main } = await spec.load!();
  process.exitCode = await (main as (...a: unknown[]) => Promise<number>)(...args);
}
