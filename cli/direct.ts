// A plain command line, read straight from the command table without loading commander (half of a
// start-up: BENCHMARKS.md, "Start-up: issue 12 item 10"). Plain means: a command of the table, its
// arguments, and its own options written as `--name`, `-n`, `--name value`, `-n value` or
// `--name=value`. Anything else (help, a usage error, an unknown option, a value that starts with
// "-", `--`, grouped short flags) returns undefined and goes to commander, which answers as it always
// has. What this returns is what commander hands the command's action: test/cli/direct.test.ts
// compares the two over every command.
import { COMMANDS, type CommandSpec, type OptionSpec } from "./table.ts";

export interface DirectCall {
  spec: CommandSpec;
  /** the positional arguments (undefined for an optional one not given), then the options object */
  args: unknown[];
}

interface Flag {
  short?: string;
  long: string;
  /** commander's attribute name: --each-node → eachNode */
  key: string;
  takesValue: boolean;
  spec: OptionSpec;
}

export function directCall(argv: string[]): DirectCall | undefined {
  let spec: CommandSpec | undefined;
  let i = 0;
  for (let list = COMMANDS; i < argv.length; ) {
    spec = list.find((c) => c.name === argv[i]);
    if (!spec) return undefined;
    i++;
    if (!spec.subcommands) break;
    list = spec.subcommands;
  }
  if (!spec?.load || spec.needsProgram) return undefined;
  const flags = (spec.options ?? []).map(flagOf);
  if (flags.some((f) => f === undefined)) return undefined;

  // commander sets defaults first, in the order the options are declared
  const opts: Record<string, string | true> = {};
  for (const f of flags as Flag[]) if (f.spec.default !== undefined) opts[f.key] = f.spec.default;
  const operands: string[] = [];
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    // a lone "-" is an argument (standard input), as commander reads it
    if (a.length < 2 || !a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const f = (flags as Flag[]).find((x) => x.long === name || x.short === name);
    if (!f) return undefined;
    let value: string | true = true;
    if (f.takesValue) {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || (eq < 0 && v.startsWith("-"))) return undefined;
      if (f.spec.choices && !f.spec.choices.includes(v)) return undefined;
      value = v;
    } else if (eq > 0) return undefined;
    opts[f.key] = value;
  }

  const declared = spec.args ?? [];
  if (operands.length > declared.length) return undefined;
  for (const [k, d] of declared.entries()) {
    const given = operands[k];
    if (given === undefined ? d.name.startsWith("<") : d.choices && !d.choices.includes(given)) return undefined;
  }
  if ((flags as Flag[]).some((f) => f.spec.required && !(f.key in opts))) return undefined;
  return { spec, args: [...declared.map((_, k) => operands[k]), opts] };
}

/** "-p, --platform <name>" → its names and whether it takes a value; undefined for a form not read here ([optional] values) */
function flagOf(spec: OptionSpec): Flag | undefined {
  const m = /^(?:(-\w), )?(--[\w-]+)( <[^>]+>)?$/.exec(spec.flags);
  if (!m) return undefined;
  const key = m[2]!.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return { ...(m[1] && { short: m[1] }), long: m[2]!, key, takesValue: m[3] !== undefined, spec };
}
