// `gpucheck --help` from the command table, laid out as commander lays it out (commander 14's Help:
// terms padded to the longest, descriptions wrapped at whitespace to the width, not below 40
// columns), without loading commander: test/cli/help.test.ts compares the two at several widths.
import { COMMANDS, type CommandSpec, PROGRAM } from "./table.ts";

const MIN_WIDTH_TO_WRAP = 40;

/** The text `gpucheck --help` prints, for a terminal `width` columns wide (commander: 80 when not a terminal). */
export function rootHelp(width: number): string {
  const term = (c: CommandSpec) => [c.name, c.options?.length ? "[options]" : "", ...(c.args ?? []).map((a) => a.name)].filter(Boolean).join(" ");
  const options = [PROGRAM.version, PROGRAM.help].map((o) => [o.flags, o.description] as const);
  const commands = [...COMMANDS.map((c) => [term(c), c.description] as const), ["help [command]", PROGRAM.help.description] as const];
  const termWidth = Math.max(...[...options, ...commands].map(([t]) => t.length));
  const item = ([t, description]: readonly [string, string]) => formatItem(t, termWidth, description, width);
  const lines = [`Usage: ${PROGRAM.name} [options] [command]`, "", boxWrap(PROGRAM.description, width), "", "Options:", ...options.map(item), ""];
  lines.push("Commands:", ...commands.map(item), "");
  // commander writes the text added after the help with a newline of its own
  return `${lines.join("\n")}${PROGRAM.afterHelp}\n`;
}

function formatItem(term: string, termWidth: number, description: string, width: number): string {
  if (!description) return `  ${term}`;
  const remaining = width - termWidth - 4;
  // commander leaves a description alone when a line of it starts with whitespace: laid out by hand
  const wrapped = remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description) ? description : boxWrap(description, remaining).replace(/\n/g, `\n${" ".repeat(termWidth + 2)}`);
  return `  ${term.padEnd(termWidth)}  ${wrapped.replace(/\n/g, "\n  ")}`;
}

/** Greedy wrap at whitespace, each line of the text on its own; a word longer than the width stands alone. */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const lines: string[] = [];
  for (const raw of text.split(/\r\n|\n/)) {
    const chunks = raw.match(/\s*\S+/g);
    if (!chunks) {
      lines.push("");
      continue;
    }
    let line = chunks.shift()!;
    for (const chunk of chunks) {
      if (line.length + chunk.length <= width) line += chunk;
      else {
        lines.push(line);
        line = chunk.trimStart();
      }
    }
    lines.push(line);
  }
  return lines.join("\n");
}
