// The JIT policy a command runs under: the executable starts with the JIT held back
// (scripts/compile-flags.ts); a brief command keeps that, every other one restores the normal policy
// before its main runs, so a run's hot loops are compiled as they always were.
import { afterEach, expect, spyOn, test } from "bun:test";
import { runCommand } from "../../cli/run-command.ts";
import { COMMANDS, type CommandSpec } from "../../cli/table.ts";

const policies: number[] = [];
spyOn(Bun.unsafe, "setJITPolicy").mockImplementation((scale: number) => void policies.push(scale));
afterEach(() => {
  policies.length = 0;
});

const spec = (brief: boolean, seen: number[][]): CommandSpec => ({
  name: "x",
  description: "",
  noZod: true,
  brief,
  load: async () => ({ main: async () => (seen.push([...policies]), 0) }),
});

test("a command that is not brief runs under the normal JIT policy: set before its main starts", async () => {
  const seen: number[][] = [];
  await runCommand(spec(false, seen), []);
  expect(seen).toEqual([[1]]);
});

test("a brief command keeps the policy the executable started with", async () => {
  const seen: number[][] = [];
  await runCommand(spec(true, seen), []);
  expect(seen).toEqual([[]]);
});

test("the brief commands are the ones that read, print or check one thing; runs, reports, judging and signing are not", () => {
  const names = (cs: CommandSpec[]): string[] => cs.flatMap((c) => (c.subcommands ? names(c.subcommands).map((n) => `${c.name} ${n}`) : [`${c.name}${c.brief ? " (brief)" : ""}`]));
  expect(names(COMMANDS)).toEqual([
    "suite",
    "soak",
    "validate (brief)",
    "show (brief)",
    "plan (brief)",
    "list (brief)",
    "parse nccl",
    "fabric snapshot",
    "fabric counters",
    "fabric check",
    "history import",
    "history show",
    "health",
    "baseline capture",
    "report",
    "judge",
    "keygen (brief)",
    "certify",
    "verify (brief)",
    "completion (brief)",
  ]);
});
