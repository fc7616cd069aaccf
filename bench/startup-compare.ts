// Two binaries, the same answers: `validate` and `plan` (text and --json) of every built-in suite
// (and `plan` for each platform), and of every suite directory given, run by each binary in that
// directory; stdout, stderr and the exit code must be identical. Prints the count compared and each
// difference. Lines of `--version` (commit, build time) are never compared.
//
//   node_modules/.bin/bun bench/startup-compare.ts --old /tmp/gpucheck-base --new compiled/gpucheck [--dirs <dir of suite dirs>]
//
// A suite directory holds the suite's files and `.ref`, the reference to load (a file name); the
// loader tests' suites can be written out so (BENCHMARKS.md, "Start-up: issue 12 item 10").
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const oldBin = resolve(argOf("old") ?? "");
const newBin = resolve(argOf("new") ?? "compiled/gpucheck");
const dirs = argOf("dirs");
const root = join(import.meta.dir, "..");

interface Case {
  cwd: string;
  argv: string[];
}
const cases: Case[] = [];
const builtins = readdirSync(join(root, "suites")).map((f) => f.replace(/\.yaml$/, ""));
for (const s of builtins) {
  for (const argv of [
    ["validate", s],
    ["validate", s, "--json"],
    ["plan", s],
    ["plan", s, "--json"],
    ["plan", s, "--platform", "slurm"],
    ["plan", s, "--platform", "k8s", "--image", "x", "--json"],
    ["plan", s, "--platform", "ssh", "--hosts", "a,b"],
    ["plan", s, "--platform", "docker", "--image", "x"],
    ["show", s],
  ])
    cases.push({ cwd: root, argv });
}
for (const f of readdirSync(join(root, "test", "fixtures", "suites"))) {
  const p = join("test", "fixtures", "suites", f);
  for (const argv of [
    ["validate", p],
    ["validate", p, "--json"],
    ["plan", p],
    ["plan", p, "--json"],
  ])
    cases.push({ cwd: root, argv });
}
if (dirs) {
  for (const d of readdirSync(dirs).sort()) {
    const cwd = join(dirs, d);
    if (!existsSync(join(cwd, ".ref"))) continue;
    const ref = readFileSync(join(cwd, ".ref"), "utf8");
    for (const argv of [
      ["validate", ref],
      ["validate", ref, "--json"],
      ["plan", ref],
      ["plan", ref, "--json"],
    ])
      cases.push({ cwd, argv });
  }
}

const runOne = async (bin: string, c: Case) => {
  const p = Bun.spawn([bin, ...c.argv], { cwd: c.cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { stdout, stderr, code };
};

let same = 0;
const differ: string[] = [];
const codes = new Map<number, number>();
// two at a time: the machine has two cores
for (let i = 0; i < cases.length; i += 2) {
  await Promise.all(
    cases.slice(i, i + 2).map(async (c) => {
      const [a, b] = await Promise.all([runOne(oldBin, c), runOne(newBin, c)]);
      codes.set(a.code, (codes.get(a.code) ?? 0) + 1);
      if (a.stdout === b.stdout && a.stderr === b.stderr && a.code === b.code) same++;
      else
        differ.push(
          `${c.cwd}: gpucheck ${c.argv.join(" ")}\n  old exit ${a.code}: ${JSON.stringify(a.stdout + a.stderr).slice(0, 600)}\n  new exit ${b.code}: ${JSON.stringify(b.stdout + b.stderr).slice(0, 600)}`,
        );
    }),
  );
}
console.log(`${cases.length} command lines compared: ${same} identical, ${differ.length} different; old exit codes ${[...codes].map(([c, n]) => `${c}: ${n}`).join(", ")}`);
for (const d of differ) console.log(d);
process.exitCode = differ.length ? 1 : 0;
