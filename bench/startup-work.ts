// Each start-up command's own work, for bench/startup.ts: the command's function run in this process
// after its modules are loaded and it has run many times, so neither loading nor first-use costs
// (zod building its schemas, the JIT compiling) count as work. Whatever the binary spends beyond this is overhead.
//
//   node_modules/.bin/bun bench/startup-work.ts --case <name> --root <source tree> --runs 10 --cert <c> --key <pub> --help-text <file> --out <file.json>
//
// One case per process, so that its first run is cold (nothing else warmed zod's schemas). --root
// names the tree whose commands are measured (another commit's worktree measures that commit's
// commands). Standard output goes wherever the caller sent it (bench/startup.ts: /dev/null); the
// figures go to --out as JSON: the first in-process run ("cold", after loading) and the median of
// --runs warm runs after 20 untimed ones (the JIT's steady state), in ms.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median } from "./median.ts";

const arg = (name: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) throw new Error(`startup-work: --${name} is required`);
  return process.argv[i + 1]!;
};
const root = arg("root");
const runs = Number(arg("runs"));
const WARM_UP = 20;
const imp = (path: string) => import(join(root, path));

// what the CLI does before any command: zod without its JIT (cli/run-command.ts), the platform registry
(await import(Bun.resolveSync("zod", root))).config({ jitless: true });
await imp("cli/platforms.ts");
const { out } = await imp("cli/output.ts");
const { VERSION_LINE } = await imp("lib/core/version.ts");
const helpText = readFileSync(arg("help-text"), "utf8");
/** the command's main, loaded now, called with these arguments on each run */
async function calling(name: string, ...args: unknown[]): Promise<() => Promise<number>> {
  const main = (await imp(`cli/commands/${name}.ts`)).main as (...a: unknown[]) => Promise<number>;
  return () => main(...args);
}

// the names are those of bench/startup.ts's cases
const cases: Record<string, () => Promise<() => unknown>> = {
  "gpucheck --version": async () => () => out(`${VERSION_LINE}\n`),
  "gpucheck --help": async () => () => out(helpText),
  "gpucheck list": async () => calling("list", {}),
  "gpucheck validate h100-8x": async () => calling("validate", "h100-8x", {}),
  "gpucheck plan h100-8x": async () => calling("plan", "h100-8x", {}),
  "gpucheck verify <cert> --key <pub>": async () => calling("verify", arg("cert"), { key: arg("key") }),
};

const name = arg("case");
const fn = await cases[name]!();
async function timed(): Promise<number> {
  const t0 = Bun.nanoseconds();
  const code = await fn();
  if (code !== undefined && code !== 0) throw new Error(`startup-work: ${name} returned ${code}`);
  return (Bun.nanoseconds() - t0) / 1e6;
}
const cold = await timed();
// untimed, so the JIT has compiled the command's code before the timed runs: the steady state
for (let r = 0; r < WARM_UP; r++) await timed();
const warm: number[] = [];
for (let r = 0; r < runs; r++) warm.push(await timed());
writeFileSync(arg("out"), JSON.stringify({ cold, warm: median(warm) }));
