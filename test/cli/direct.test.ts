// A command line read without commander (cli/direct.ts) gives the command exactly what commander
// would: the same arguments and the same options object (values, defaults, key order). What it does
// not read plainly it leaves to commander, which then answers as before (help, usage errors).
import { describe, expect, test } from "bun:test";
import { directCall } from "../../cli/direct.ts";
import { COMMANDS, type CommandSpec, type OptionSpec } from "../../cli/table.ts";
import { type Parsed, viaCommander } from "./commander.ts";

/** every command that runs, with the words that name it: ["parse", "nccl"] */
const runnable: Array<{ path: string[]; spec: CommandSpec }> = COMMANDS.flatMap((c) =>
  c.subcommands ? c.subcommands.map((s) => ({ path: [c.name, s.name], spec: s })) : [{ path: [c.name], spec: c }],
);

const value = (o: OptionSpec) => o.choices?.at(-1) ?? (o.flags.includes("<") ? "v1" : undefined);
const long = (o: OptionSpec) => /--[\w-]+/.exec(o.flags)![0];
const short = (o: OptionSpec) => /^-\w(?=,)/.exec(o.flags)?.[0];
const written = (name: string, o: OptionSpec) => (value(o) === undefined ? [name] : [name, value(o)!]);

/** the command's required arguments and options: the shortest command line that runs it */
function minimal(spec: CommandSpec): string[] {
  const args = (spec.args ?? []).filter((a) => a.name.startsWith("<")).map((a) => a.choices?.[0] ?? "x");
  return [...args, ...(spec.options ?? []).filter((o) => o.required).flatMap((o) => written(long(o), o))];
}

/** plain command lines: each option alone in each of its forms, all of them at once, options first, one given twice */
function plainLines(spec: CommandSpec): string[][] {
  const base = minimal(spec);
  const opts = spec.options ?? [];
  const lines = [base];
  for (const o of opts) {
    lines.push([...base, ...written(long(o), o)]);
    if (short(o)) lines.push([...written(short(o)!, o), ...base]);
    if (value(o) !== undefined) lines.push([...base, `${long(o)}=${value(o)}`]);
  }
  lines.push([...opts.flatMap((o) => written(long(o), o)), ...base]);
  if (opts[0]) lines.push([...base, ...written(long(opts[0]), opts[0]), `${long(opts[0])}=${value(opts[0]) ?? ""}`.replace(/=$/, "")]);
  const optional = (spec.args ?? []).find((a) => a.name.startsWith("["));
  if (optional) lines.push([...base, "given"]);
  // "-" is standard input for parse nccl: an argument, not an option
  if (spec.args?.length && !spec.args[0]!.choices) lines.push(["-", ...base.slice(1)]);
  return lines;
}

/** lines left to commander: help, usage errors, the forms not read directly (`--`) */
function otherLines(spec: CommandSpec): string[][] {
  const base = minimal(spec);
  const lines = [
    [...base, "--help"],
    [...base, "-h"],
    [...base, "-V"],
    [...base, "--no-such-option"],
    [...base, "--"],
    [...base, "extra", "arguments", "beyond", "any"],
  ];
  if (base.length && spec.args?.some((a) => a.name.startsWith("<"))) lines.push(base.slice(1));
  for (const o of spec.options ?? []) {
    if (value(o) === undefined) lines.push([...base, `${long(o)}=1`]);
    else lines.push([...base, long(o)], [...base, long(o), "-dash"]);
    if (o.choices) lines.push([...base, long(o), "not-a-choice"]);
    if (o.required) lines.push(base.filter((w, i) => w !== long(o) && base[i - 1] !== long(o)));
  }
  return lines;
}

describe("a plain command line without commander", () => {
  for (const { path, spec } of runnable) {
    test(`${path.join(" ")}: the same call as commander's, or left to commander`, async () => {
      if (spec.needsProgram) {
        // completion reads commander's program: it always runs through commander
        expect(directCall([...path, ...minimal(spec)])).toBeUndefined();
        return;
      }
      for (const line of plainLines(spec)) {
        const argv = [...path, ...line];
        const direct = directCall(argv);
        const commander = await viaCommander(argv);
        // JSON: the options object's key order counts too
        const mine: Parsed | undefined = direct && { command: direct.spec.name, args: [JSON.stringify(direct.args)] };
        const theirs: Parsed = "error" in commander ? commander : { command: commander.command, args: [JSON.stringify(commander.args)] };
        expect<unknown>({ argv, call: mine }).toEqual({ argv, call: theirs });
      }
      for (const line of otherLines(spec)) {
        const argv = [...path, ...line];
        expect({ argv, direct: directCall(argv) }).toEqual({ argv, direct: undefined });
      }
    });
  }

  test("what names no command, or only a group, is commander's", () => {
    for (const argv of [[], ["--help"], ["-V"], ["help", "list"], ["lsit"], ["parse"], ["parse", "nccll", "x"], ["--json", "list"]]) {
      expect({ argv, direct: directCall(argv) }).toEqual({ argv, direct: undefined });
    }
  });

  test("defaults come first, in the order declared, as commander sets them", () => {
    const call = directCall(["keygen", "--json", "--out", "k", "--algorithm", "p256"])!;
    expect(call.spec.name).toBe("keygen");
    expect(Object.keys(call.args[0] as object)).toEqual(["algorithm", "json", "out"]);
    expect(call.args).toEqual([{ algorithm: "p256", json: true, out: "k" }]);
  });
});
